"""Reading chat answers, whole or streamed, into plain values.

Servers differ in small ways: vLLM, SGLang and DeepSeek put a reasoning model's thinking in
``reasoning_content`` (newer vLLM in ``reasoning``), some leave out ``usage``, and several
report one usage total for all ``n`` choices. This module reads all of them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

REASONING_FIELDS = ("reasoning_content", "reasoning")


class StreamCutOff(ValueError):
    """A stream that ended before every choice said why it stopped: the connection dropped
    (a server closing a stream early looks like a normal end to the HTTP client)."""


@dataclass(frozen=True)
class Completion:
    """One sample of a chat completion, as it arrived.

    ``prompt_tokens`` is the prompt's length as the server counted it. When one response
    carried several choices (``usage_shared_by`` > 1), the server reported a single completion
    total: each choice's ``completion_tokens`` is its share by text length (the shares add up
    to the total), and the prompt was billed once for all of them.
    """

    text: str
    reasoning: str
    finish_reason: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float  # the successful attempt, from sending to the last byte
    model: str
    attempts: int  # 1 when the first request succeeded
    sample: int = 0  # which sample of its prompt this is
    usage_shared_by: int = 1


@dataclass
class ChoiceText:
    """A choice being read: text, reasoning and why it stopped."""

    text: str = ""
    reasoning: str = ""
    finish_reason: str = ""
    parts: list[str] = field(default_factory=list)
    reasoning_parts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ChatAnswer:
    """Everything one successful request returned, before it is split into samples."""

    choices: tuple[ChoiceText, ...]
    model: str
    prompt_tokens: int | None
    completion_tokens: int | None


def reasoning_of(message) -> str:
    """The reasoning text of a message or a streamed delta, under either field name."""
    for name in REASONING_FIELDS:
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def answer_from_completion(response) -> ChatAnswer:
    """Read a non-streamed ``ChatCompletion``."""
    if not isinstance(getattr(response, "choices", None), list):
        raise ValueError("the answer has no list of choices")
    choices = []
    for choice in sorted(response.choices, key=lambda c: c.index or 0):
        message = choice.message
        choices.append(
            ChoiceText(
                text=(message.content if message else None) or "",
                reasoning=reasoning_of(message) if message else "",
                finish_reason=choice.finish_reason or "",
            )
        )
    usage = response.usage
    return ChatAnswer(
        choices=tuple(choices),
        model=response.model or "",
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
    )


def answer_from_stream(chunks: Iterable) -> ChatAnswer:
    """Read a streamed answer: deltas per choice index, and the usage chunk if one comes."""
    by_index: dict[int, ChoiceText] = {}
    model = ""
    usage = None
    for chunk in chunks:
        model = model or (chunk.model or "")
        usage = chunk.usage or usage
        for choice in chunk.choices or ():
            state = by_index.setdefault(choice.index or 0, ChoiceText())
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    state.parts.append(delta.content)
                reasoning = reasoning_of(delta)
                if reasoning:
                    state.reasoning_parts.append(reasoning)
            if choice.finish_reason:
                state.finish_reason = choice.finish_reason
    if not by_index or not all(state.finish_reason for state in by_index.values()):
        raise StreamCutOff("the stream ended before the answer was complete")
    choices = tuple(
        ChoiceText(
            text="".join(state.parts),
            reasoning="".join(state.reasoning_parts),
            finish_reason=state.finish_reason,
        )
        for _, state in sorted(by_index.items())
    )
    return ChatAnswer(
        choices=choices,
        model=model,
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
    )


def completions_from_answer(
    answer: ChatAnswer, *, samples: Sequence[int], model: str, latency_s: float, attempts: int
) -> tuple[Completion, ...]:
    """One Completion per choice (at most one per requested sample), labelled in order."""
    choices = answer.choices[: len(samples)]
    shares = _token_shares(answer.completion_tokens, [c.text for c in answer.choices])
    return tuple(
        Completion(
            text=choice.text,
            reasoning=choice.reasoning,
            finish_reason=choice.finish_reason,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=share,
            latency_s=latency_s,
            model=answer.model or model,
            attempts=attempts,
            sample=sample,
            usage_shared_by=len(answer.choices),
        )
        for choice, sample, share in zip(choices, samples, shares, strict=False)
    )


def _token_shares(total: int | None, texts: Sequence[str]) -> list[int | None]:
    """Split a usage total over choices by text length; the last takes the rounding."""
    if total is None:
        return [None] * len(texts)
    if len(texts) <= 1:
        return [total] * len(texts)
    lengths = [len(text) for text in texts]
    whole = sum(lengths)
    shares = [
        (total * length // whole) if whole else total // len(texts) for length in lengths[:-1]
    ]
    return [*shares, total - sum(shares)]
