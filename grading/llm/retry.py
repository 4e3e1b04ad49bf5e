"""When to ask a model server again, and how long to wait first.

The openai client's own retries are switched off (``max_retries=0``) so that every attempt is
counted, Retry-After is honoured up to a stated limit, and one 429 pauses every thread that
shares the client instead of each finding out for itself.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from grading.llm.errors import ErrorKind, detail_excerpt
from grading.llm.responses import StreamCutOff

if TYPE_CHECKING:
    import openai


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff and jitter.

    Attempt k (from 1) that failed for a retryable reason waits between half and all of
    ``base_delay * 2**(k-1)`` (at most ``max_delay``) before attempt k+1, or exactly what the
    server's Retry-After asks plus up to 10% jitter. A Retry-After longer than ``max_delay``
    ends the retries at once: waiting less would only earn another 429.
    """

    max_attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("delays cannot be negative")

    def delay(self, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait after failed ``attempt``; None when the server asks for too long."""
        if retry_after is not None:
            if retry_after > self.max_delay:
                return None
            return retry_after + random.uniform(0, retry_after * 0.1)
        ceiling = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


@dataclass(frozen=True)
class Failure:
    """One failed attempt, classified."""

    kind: ErrorKind
    reason: str
    status: int | None = None
    retry_after: float | None = None


def failure_from_exception(exc: Exception) -> Failure:
    """Classify what the openai client (or our reading of its answer) raised."""
    import openai  # loaded already: the client raised it (grading.llm.endpoint imports it late)

    if isinstance(exc, openai.APITimeoutError):
        return Failure(ErrorKind.TIMEOUT, "no answer within the time-out")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc.__context__
        what = type(cause).__name__ if cause else "connection error"
        return Failure(
            ErrorKind.CONNECTION, f"the connection failed or dropped ({what}: {cause or exc})"
        )
    if isinstance(exc, StreamCutOff):
        return Failure(ErrorKind.CONNECTION, str(exc))
    if isinstance(exc, openai.APIStatusError):
        return _status_failure(exc)
    if isinstance(exc, openai.APIResponseValidationError):
        return Failure(ErrorKind.BAD_RESPONSE, "the answer does not have the expected shape")
    return Failure(ErrorKind.BAD_RESPONSE, f"the answer could not be read ({exc})")


def _status_failure(exc: openai.APIStatusError) -> Failure:
    status = exc.status_code
    if status == 429:
        kind = ErrorKind.RATE_LIMITED
    elif status >= 500:
        kind = ErrorKind.SERVER_ERROR
    elif status == 408:
        kind = ErrorKind.TIMEOUT
    elif status in (401, 403):
        kind = ErrorKind.AUTHENTICATION
    else:
        kind = ErrorKind.BAD_REQUEST
    reason = f"the server answered HTTP {status}"
    message = _server_message(exc)
    if message:
        reason += f": {message}"
    return Failure(kind, reason, status=status, retry_after=retry_after_seconds(exc.response))


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("detail") or body.get("error")
        if message:
            return detail_excerpt(str(message))
    try:
        return detail_excerpt(exc.response.text)
    except Exception:  # a streamed response that was never read has no text
        return ""


def retry_after_seconds(response) -> float | None:
    """The wait a 429 or 503 asks for: ``retry-after-ms``, or Retry-After in seconds or as a
    date; None when absent or unreadable."""
    headers = response.headers
    milliseconds = headers.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class SharedPause:
    """A moment before which no thread sharing a client sends anything: set by a Retry-After,
    so 64 threads do not each earn their own 429."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._until = 0.0

    def extend(self, seconds: float) -> None:
        with self._lock:
            self._until = max(self._until, time.monotonic() + seconds)

    def wait(self) -> None:
        remaining = self._until - time.monotonic()
        if remaining > 0:
            time.sleep(remaining)
