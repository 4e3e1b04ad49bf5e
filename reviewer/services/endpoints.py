"""A project's saved model servers and their API keys.

A key typed into the app is encrypted with Fernet under a key derived from SECRET_KEY (HKDF),
so a database dump alone does not reveal it; or the endpoint stores only the name of an
environment variable that holds the key on the workers (``--api-key-env``). The key is never
returned by any page, API, export or message: the client redacts it from what servers echo.
"""

from __future__ import annotations

import base64
import re
from decimal import Decimal

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.db import IntegrityError, transaction

from grading.llm import EndpointClient, EndpointConfig, RetryPolicy
from reviewer.models import Endpoint, Project

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")


class EndpointSetupError(ValueError):
    """An endpoint cannot be saved or used as given; the message says why (never the key)."""


def _fernet() -> Fernet:
    derived = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=b"mathjury-endpoint-api-keys", info=b"v1"
    ).derive(settings.SECRET_KEY.encode("utf-8"))
    return Fernet(base64.urlsafe_b64encode(derived))


def api_key_encrypt(key: str) -> str:
    return _fernet().encrypt(key.encode("utf-8")).decode("ascii")


def api_key_decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise EndpointSetupError(
            "the saved API key can no longer be read (SECRET_KEY has changed); "
            "save the endpoint's key again"
        ) from None


def endpoint_create(
    *,
    project: Project,
    user,
    name: str,
    base_url: str,
    model: str,
    api_key: str = "",
    api_key_env: str = "",
    price_input: Decimal | None = None,
    price_output: Decimal | None = None,
) -> Endpoint:
    """Save a model server for ``project``; raises EndpointSetupError with what is wrong."""
    base_url, model, api_key_env = base_url.strip(), model.strip(), api_key_env.strip()
    _check(base_url=base_url, model=model, api_key=api_key, api_key_env=api_key_env)
    name = name.strip() or f"{model} at {base_url}"[:200]
    for price in (price_input, price_output):
        if price is not None and price < 0:
            raise EndpointSetupError("a price per million tokens cannot be negative")
    try:
        with transaction.atomic():
            return Endpoint.objects.create(
                project=project,
                name=name,
                base_url=base_url,
                model=model,
                api_key_encrypted=api_key_encrypt(api_key) if api_key else "",
                api_key_env=api_key_env,
                price_input=price_input,
                price_output=price_output,
                created_by=user,
            )
    except IntegrityError:
        raise EndpointSetupError(
            f"the project already has an endpoint named {name!r}; choose another name"
        ) from None


def endpoint_for_command(
    *, project: Project, base_url: str, model: str, api_key_env: str = ""
) -> Endpoint:
    """The project's endpoint with this URL, model and key variable, saved if new (for
    ``manage.py generate_run``, which names a server instead of a saved endpoint)."""
    base_url, model, api_key_env = base_url.strip(), model.strip(), api_key_env.strip()
    found = Endpoint.objects.filter(
        project=project, base_url=base_url, model=model, api_key_env=api_key_env
    ).first()
    if found is not None:
        return found
    _check(base_url=base_url, model=model, api_key="", api_key_env=api_key_env)
    name = f"{model} at {base_url}"[:190]
    taken = set(
        Endpoint.objects.filter(project=project, name__startswith=name).values_list(
            "name", flat=True
        )
    )
    unique = next(n for n in (name, *(f"{name} ({i})" for i in range(2, 999))) if n not in taken)
    return endpoint_create(
        project=project,
        user=None,
        name=unique,
        base_url=base_url,
        model=model,
        api_key_env=api_key_env,
    )


def _check(*, base_url: str, model: str, api_key: str, api_key_env: str) -> None:
    try:
        EndpointConfig(base_url=base_url, model=model)
    except ValueError as error:
        raise EndpointSetupError(str(error)) from None
    if api_key and api_key_env:
        raise EndpointSetupError(
            "give the API key or the name of the variable that holds it, not both"
        )
    if api_key_env and not _ENV_NAME.match(api_key_env):
        raise EndpointSetupError(
            "the key's environment variable must be a name such as OPENAI_API_KEY "
            "(letters, digits and _)"
        )


def endpoint_config(
    *, endpoint: Endpoint, model: str = "", timeout_s: float = 120
) -> EndpointConfig:
    """The client settings of a saved endpoint with its key read (decrypted, or from the
    environment variable it names); raises EndpointSetupError when the key cannot be had."""
    if endpoint.api_key_env:
        key = settings.MATHJURY_ENDPOINT_KEY_ENVIRONMENT.get(endpoint.api_key_env, "")
        if not key:
            raise EndpointSetupError(
                f"the environment variable {endpoint.api_key_env} that should hold the API key "
                "of this endpoint is not set where the work runs"
            )
    elif endpoint.api_key_encrypted:
        key = api_key_decrypt(endpoint.api_key_encrypted)
    else:
        key = ""
    try:
        return EndpointConfig(
            base_url=endpoint.base_url,
            model=model or endpoint.model,
            api_key=key,
            timeout_s=timeout_s,
        )
    except ValueError as error:
        raise EndpointSetupError(str(error)) from None


def endpoint_test(*, endpoint: Endpoint) -> tuple[str, ...]:
    """The models the server lists ("test connection"); raises EndpointSetupError or
    grading.llm.EndpointError (its message names the server, never the key)."""
    # A person is waiting: two quick attempts, not the generation's patient retries.
    retry = RetryPolicy(max_attempts=2, base_delay=0.5, max_delay=5)
    with EndpointClient(endpoint_config(endpoint=endpoint, timeout_s=15), retry) as client:
        return client.list_models()
