"""What the fake OpenAI-compatible server answers: deterministic replies and the JSON bodies
and stream events that carry them, as plain functions of the request."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct

EMBEDDING_DIMENSIONS = 8
_INTEGER = re.compile(r"-?\d+")


def default_reply(prompt: str) -> str:
    """YES/NO by the parity of the integers' sum for yes/no prompts, else that sum, boxed."""
    total = sum(int(n) for n in _INTEGER.findall(prompt)[:1000])
    if "YES or NO" in prompt:
        return "YES" if total % 2 == 0 else "NO"
    return (
        f"Adding the numbers in the question gives {total}.\n\n"
        f"The final answer is $\\boxed{{{total}}}$."
    )


def token_count(text: str) -> int:
    return len(text.split())


def choice_for(
    prompt: str,
    sample: int,
    *,
    max_tokens: int | None,
    scripts: list[tuple[str, list[dict]]],
    reasoning_field: str,
) -> dict:
    """One choice: the first script whose text the prompt contains (reply k for sample k, in a
    cycle), else the default reply; cut to ``max_tokens`` words with finish_reason "length"."""
    reply = {"content": default_reply(prompt)}
    for match, replies in scripts:
        if match in prompt:
            reply = replies[sample % len(replies)]
            break
    content = reply.get("content", "")
    finish_reason = reply.get("finish_reason", "stop")
    words = content.split(" ")
    if max_tokens and len(words) > max_tokens:
        content, finish_reason = " ".join(words[:max_tokens]), "length"
    extra = (
        {reasoning_field: reply.get("reasoning", "Thinking it over.")} if reasoning_field else {}
    )
    return {"content": content, "finish_reason": finish_reason, "extra": extra}


def usage_for(messages: list[dict], choices: list[dict]) -> dict:
    prompt_tokens = sum(token_count(str(m.get("content", ""))) for m in messages)
    completion_tokens = sum(token_count(c["content"]) for c in choices)
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def completion_body(choices: list[dict], model: str, usage: dict) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": c["content"], **c["extra"]},
                "finish_reason": c["finish_reason"],
            }
            for i, c in enumerate(choices)
        ],
        "usage": usage,
    }


def stream_events(choices: list[dict], model: str, usage: dict | None) -> list[bytes]:
    """Server-sent events: per choice a role chunk, reasoning, content four words at a time and
    a finish chunk; then the usage chunk if asked for, then [DONE]."""

    def chunk(choice_list: list[dict], **extra) -> bytes:
        data = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": choice_list,
            **extra,
        }
        return f"data: {json.dumps(data)}\n\n".encode()

    events = []
    for i, choice in enumerate(choices):
        events.append(chunk([{"index": i, "delta": {"role": "assistant", "content": ""}}]))
        for name, value in choice["extra"].items():
            events.append(chunk([{"index": i, "delta": {name: value}}]))
        words = choice["content"].split(" ")
        for k in range(0, len(words), 4):
            piece = " ".join(words[k : k + 4]) + (" " if k + 4 < len(words) else "")
            events.append(chunk([{"index": i, "delta": {"content": piece}}]))
        events.append(chunk([{"index": i, "delta": {}, "finish_reason": choice["finish_reason"]}]))
    if usage:
        events.append(chunk([], usage=usage))
    events.append(b"data: [DONE]\n\n")
    return events


def embedding(text: str) -> list[float]:
    """A unit vector from the text's hash: equal texts, equal vectors."""
    digest = hashlib.sha256(text.encode()).digest()
    raw = [b / 127.5 - 1 for b in digest[:EMBEDDING_DIMENSIONS]]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return [x / norm for x in raw]


def embeddings_body(texts: list[str], model: str, as_base64: bool) -> dict:
    data = []
    for i, text in enumerate(texts):
        vector = embedding(text)
        if as_base64:
            vector = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()
        data.append({"object": "embedding", "index": i, "embedding": vector})
    tokens = sum(token_count(t) for t in texts)
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }
