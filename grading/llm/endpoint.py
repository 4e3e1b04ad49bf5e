"""A client for one OpenAI-compatible server and model: chat completions, the model list,
embeddings, each retried as ``RetryPolicy`` says.

Built on the maintained ``openai`` package with its own retries off (see ``retry.py``). One
client is safe to share between threads; it never logs, prints or repeats its API key.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar
from urllib.parse import urlsplit

from grading.llm.errors import (
    RETRYABLE_KINDS,
    EndpointError,
    ErrorKind,
    display_url,
    redact,
)
from grading.llm.responses import (
    Completion,
    answer_from_completion,
    answer_from_stream,
    completions_from_answer,
)
from grading.llm.retry import RetryPolicy, SharedPause, failure_from_exception

logger = logging.getLogger(__name__)

# The openai client insists on a key and would otherwise read OPENAI_API_KEY from the
# environment and send it to whatever server is configured; keyless servers ignore this one.
NO_KEY = "no-key"
# Which samples of its prompt a request is for ("0,1,2,3"): visible in server logs, ignored by
# servers that do not look at it, and counted by the test server.
SAMPLES_HEADER = "X-MathJury-Samples"

T = TypeVar("T")


@dataclass(frozen=True)
class EndpointConfig:
    """Where to send requests and how long to wait for each (seconds)."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout_s: float = 120.0
    stream: bool = False  # stream answers: the time-out then bounds the gap between chunks

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"base URL {display_url(self.base_url)!r} is not an http(s) URL "
                "(expected something like http://127.0.0.1:8000/v1)"
            )
        if parts.username is not None or parts.password is not None:
            raise ValueError(
                f"base URL {display_url(self.base_url)!r} carries a user name or password, "
                "which HTTP libraries write to their logs; give the secret as the API key"
            )
        if not self.model.strip():
            raise ValueError("the model name is empty")
        if not (self.timeout_s > 0 and math.isfinite(self.timeout_s)):
            raise ValueError(
                f"timeout_s must be a positive number of seconds, not {self.timeout_s}"
            )


@dataclass(frozen=True)
class SamplingParams:
    """Sampling parameters; None (or no stop strings) leaves the server's default."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.temperature is not None and not 0 <= self.temperature <= 2:
            raise ValueError(f"temperature must be between 0 and 2, not {self.temperature}")
        if self.top_p is not None and not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be above 0 and at most 1, not {self.top_p}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be at least 1, not {self.max_tokens}")
        if isinstance(self.stop, str) or any(not s for s in self.stop):
            raise ValueError("stop must be a tuple of non-empty strings")

    def request_fields(self, first_sample: int) -> dict:
        """The request body's sampling fields. With a seed, the request for samples starting
        at k is seeded ``seed + k``, so samples asked one by one differ and a resumed run asks
        each missing sample with the seed it would have had."""
        fields: dict = {}
        if self.temperature is not None:
            fields["temperature"] = self.temperature
        if self.top_p is not None:
            fields["top_p"] = self.top_p
        if self.max_tokens is not None:
            fields["max_tokens"] = self.max_tokens
        if self.seed is not None:
            fields["seed"] = self.seed + first_sample
        if self.stop:
            fields["stop"] = list(self.stop)
        return fields


@dataclass(frozen=True)
class Embeddings:
    """Vectors in the order of the texts asked for."""

    vectors: tuple[tuple[float, ...], ...]
    model: str
    prompt_tokens: int | None
    latency_s: float
    attempts: int


class EndpointClient:
    """Requests to one server and model, retried on 429, 5xx, time-outs and dropped
    connections; every other failure, and the last retryable one, raises ``EndpointError``."""

    def __init__(self, config: EndpointConfig, retry: RetryPolicy | None = None) -> None:
        self.config = config
        self.retry = retry or RetryPolicy()
        self._url = display_url(config.base_url)
        self._pause = SharedPause()
        self._n_refused = False  # the server answered 400 to n > 1 and 200 to n = 1
        # Imported here, not with the module: it costs about a second of CPU to import and
        # more to tear down at exit, which commands that never call a server (every
        # ``manage.py import_run``, through reviewer.services) should not pay.
        import openai

        self._openai = openai.OpenAI(
            base_url=config.base_url,
            api_key=config.api_key or NO_KEY,
            timeout=config.timeout_s,
            max_retries=0,
        )

    def __repr__(self) -> str:
        return f"EndpointClient(base_url={self._url!r}, model={self.config.model!r})"

    def __enter__(self) -> EndpointClient:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._openai.close()

    def chat(
        self,
        messages: Sequence[Mapping[str, str]],
        sampling: SamplingParams | None = None,
        *,
        samples: Sequence[int] = (0,),
    ) -> tuple[Completion, ...]:
        """Ask for one choice per entry of ``samples`` (the request's ``n``), labelled with
        those sample numbers. A server that ignores ``n`` returns fewer: ask again for the
        rest (``complete_many`` does). A server that refuses ``n`` > 1 is asked with n = 1."""
        sampling = sampling or SamplingParams()
        samples = tuple(samples)
        if not samples:
            raise ValueError("samples is empty: ask for at least one")
        if len(samples) > 1 and not self._n_refused:
            try:
                return self._chat(messages, sampling, samples)
            except EndpointError as error:
                if error.kind is not ErrorKind.BAD_REQUEST:
                    raise
                completions = self._chat(messages, sampling, samples[:1])
                self._n_refused = True
                logger.info("%s refuses n > 1; asking for one sample per request", self._url)
                return completions
        return self._chat(messages, sampling, samples[:1] if self._n_refused else samples)

    def _chat(
        self, messages: Sequence[Mapping[str, str]], sampling: SamplingParams, samples: tuple
    ) -> tuple[Completion, ...]:
        body = {
            "model": self.config.model,
            "messages": [dict(m) for m in messages],
            **sampling.request_fields(samples[0]),
        }
        if len(samples) > 1:
            body["n"] = len(samples)
        headers = {SAMPLES_HEADER: ",".join(str(s) for s in samples)}

        def send():
            if not self.config.stream:
                response = self._openai.chat.completions.create(**body, extra_headers=headers)
                return answer_from_completion(response)
            stream = self._openai.chat.completions.create(
                **body, stream=True, stream_options={"include_usage": True}, extra_headers=headers
            )
            with stream:
                return answer_from_stream(stream)

        answer, attempts, latency = self._with_retries("chat completion", send)
        if not answer.choices:
            raise self._error("chat completion", attempts, ErrorKind.BAD_RESPONSE, "no choices")
        return completions_from_answer(
            answer,
            samples=samples,
            model=self.config.model,
            latency_s=latency,
            attempts=attempts,
        )

    def list_models(self) -> tuple[str, ...]:
        """The model names the server offers: the "test connection" check."""

        def send():
            return tuple(str(model.id) for model in self._openai.models.list().data)

        models, _, _ = self._with_retries("listing models", send)
        return models

    def embed(self, texts: Sequence[str], *, model: str = "") -> Embeddings:
        """One vector per text, in order, from ``model`` (default: the endpoint's model)."""
        model = model or self.config.model
        if not texts:
            return Embeddings(vectors=(), model=model, prompt_tokens=0, latency_s=0.0, attempts=0)

        def send():
            response = self._openai.embeddings.create(
                input=list(texts), model=model, encoding_format="float"
            )
            rows = sorted(response.data, key=lambda row: row.index)
            if len(rows) != len(texts):
                raise ValueError(f"{len(rows)} vectors for {len(texts)} texts")
            vectors = tuple(tuple(float(x) for x in row.embedding) for row in rows)
            usage = response.usage
            return vectors, response.model or model, usage.prompt_tokens if usage else None

        (vectors, answered_model, tokens), attempts, latency = self._with_retries(
            "embeddings", send
        )
        return Embeddings(
            vectors=vectors,
            model=answered_model,
            prompt_tokens=tokens,
            latency_s=latency,
            attempts=attempts,
        )

    def _with_retries(self, operation: str, send: Callable[[], T]) -> tuple[T, int, float]:
        """``send()`` until it succeeds or may not be retried: (result, attempts, seconds the
        successful attempt took)."""
        import openai  # loaded by __init__ already

        attempt = 0
        while True:
            attempt += 1
            self._pause.wait()
            started = time.perf_counter()
            try:
                return send(), attempt, time.perf_counter() - started
            except (openai.APIError, ValueError, TypeError, AttributeError, KeyError) as exc:
                failure = failure_from_exception(exc)
            if failure.kind not in RETRYABLE_KINDS or attempt >= self.retry.max_attempts:
                raise self._error(operation, attempt, failure.kind, failure.reason, failure.status)
            delay = self.retry.delay(attempt, failure.retry_after)
            if delay is None:
                reason = (
                    f"{failure.reason}; it asked to wait {failure.retry_after:.0f} s, longer "
                    f"than the {self.retry.max_delay:.0f} s this client waits"
                )
                raise self._error(operation, attempt, failure.kind, reason, failure.status)
            if failure.retry_after is not None:
                self._pause.extend(delay)
            logger.info(
                "%s at %s: attempt %d of %d failed (%s); retrying in %.2f s",
                operation,
                self._url,
                attempt,
                self.retry.max_attempts,
                redact(failure.reason, self.config.api_key),
                delay,
            )
            time.sleep(delay)

    def _error(
        self,
        operation: str,
        attempts: int,
        kind: ErrorKind,
        reason: str,
        status: int | None = None,
    ) -> EndpointError:
        message = (
            f"{operation} at {self._url} failed after {attempts} "
            f"attempt{'s' if attempts != 1 else ''}: {reason}"
        )
        if status == 404 and operation == "listing models":
            message += " (check the base URL: OpenAI-compatible servers usually answer under /v1)"
        return EndpointError(
            redact(message, self.config.api_key), kind=kind, attempts=attempts, status=status
        )
