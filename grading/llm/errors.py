"""What can go wrong talking to a model server, sorted into kinds a run page can count.

Every message built here passes through ``redact`` first: a server may echo the API key in an
error body, and a base URL may carry a user name and password.
"""

from __future__ import annotations

import re
from enum import StrEnum
from urllib.parse import urlsplit, urlunsplit

# Shorter keys cannot be told apart from ordinary text, so they are not searched for.
MIN_REDACTED_KEY_CHARS = 4
REDACTED = "[redacted]"
_MAX_DETAIL_CHARS = 300


class ErrorKind(StrEnum):
    RATE_LIMITED = "rate_limited"  # 429
    SERVER_ERROR = "server_error"  # 5xx
    TIMEOUT = "timeout"  # no answer within the request's time-out, or 408
    CONNECTION = "connection"  # refused, reset or dropped before the answer was complete
    AUTHENTICATION = "authentication"  # 401 or 403: the key is wrong or lacks access
    BAD_REQUEST = "bad_request"  # another 4xx: unknown model, prompt too long, bad parameter
    BAD_RESPONSE = "bad_response"  # 200 with something that is not what was asked for


# Worth asking again: the same request may well succeed a moment later.
RETRYABLE_KINDS = frozenset(
    {ErrorKind.RATE_LIMITED, ErrorKind.SERVER_ERROR, ErrorKind.TIMEOUT, ErrorKind.CONNECTION}
)


class EndpointError(Exception):
    """A request that failed for good (after its retries): ``kind`` says why, the message says
    where and what the server answered, without the API key."""

    def __init__(
        self, message: str, *, kind: ErrorKind, attempts: int, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.status = status

    def __reduce__(self):
        # Picklable with its keywords, so a Celery result or a subprocess can carry it.
        return _rebuild_endpoint_error, (str(self), self.kind, self.attempts, self.status)


def _rebuild_endpoint_error(
    message: str, kind: ErrorKind, attempts: int, status: int | None
) -> EndpointError:
    return EndpointError(message, kind=kind, attempts=attempts, status=status)


def redact(text: str, secret: str) -> str:
    """``text`` with every occurrence of ``secret`` replaced (keys shorter than 4 are left)."""
    if len(secret) >= MIN_REDACTED_KEY_CHARS:
        text = text.replace(secret, REDACTED)
    return text


def display_url(url: str) -> str:
    """``url`` without a user name or password, for messages and logs."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def detail_excerpt(text: str) -> str:
    """One line of at most 300 characters: enough to recognise a server's message."""
    one_line = re.sub(r"\s+", " ", text).strip()
    if len(one_line) > _MAX_DETAIL_CHARS:
        return one_line[: _MAX_DETAIL_CHARS - 1] + "…"
    return one_line
