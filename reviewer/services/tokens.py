"""Personal API tokens: made, used and revoked."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from reviewer.models import ApiToken

# last_used_at is written at most this often per token, not on every request.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenNameTakenError(ValueError):
    """The user already has an active token of that name."""


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user`` and its key, which is not stored and cannot be shown again."""
    name = name.strip()
    key = ApiToken.KEY_PREFIX + secrets.token_urlsafe(32)
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user, name=name, key_hash=key_hash(key), key_start=key[:10]
            )
    except IntegrityError as error:
        raise TokenNameTakenError(f"You already have a token named “{name}”.") from error
    return token, key


def api_token_revoke(*, token: ApiToken) -> None:
    """Revoke ``token``: the API refuses it from now on. Revoking twice changes nothing."""
    ApiToken.objects.filter(pk=token.pk, revoked_at=None).update(revoked_at=timezone.now())


def api_token_authenticate(key: str) -> ApiToken | None:
    """The active token with this key (its user loaded), noting when it was used; None if
    there is none or it was revoked."""
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=key_hash(key), revoked_at=None)
        .first()
    )
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
