"""The API accepts personal tokens (made on the API tokens page) beside the older
one-per-user token from POST /api/token/, in the same header: ``Authorization: Token <key>``."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication, get_authorization_header

from reviewer import services
from reviewer.models import ApiToken


class PersonalTokenAuthentication(TokenAuthentication):
    """Authenticates keys that start with ``mj_``; leaves other keys to TokenAuthentication."""

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if len(parts) != 2 or parts[0].lower() != self.keyword.lower().encode():
            return None
        try:
            key = parts[1].decode()
        except UnicodeError:
            return None
        if not key.startswith(ApiToken.KEY_PREFIX):
            return None
        token = services.api_token_authenticate(key)
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        return token.user, token


class PersonalTokenScheme(OpenApiAuthenticationExtension):
    """The schema's name for personal tokens: a second "tokenAuth" would hide one of the two."""

    target_class = PersonalTokenAuthentication
    name = "personalTokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token mj_…`: a personal token from the API tokens page.",
        }
