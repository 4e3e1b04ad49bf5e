"""Notions through an OpenAI-compatible chat endpoint: the MSU method's own way of extracting them.

The method's authors ask an LLM for "the general mathematical concepts required in a given
solution" as a comma-separated line. We ask for the same thing as a JSON list, which can be parsed
without guessing where a notion ends, and read the reply strictly first, then tolerantly: code
fences, text around the list, or an object with a ``keywords`` list. The prompt is versioned;
change ``PROMPT_VERSION`` whenever its wording changes, so stored scores say which prompt made them.

The endpoint is any callable ``chat(messages) -> str`` (OpenAI chat messages in, the reply's text
out), so this module works with whichever client the caller has; call it at temperature 0 for
repeatable lists.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from grading.msu.notions import Notions, normalise_notions

PROMPT_VERSION = "msu-notions-1"
# Long solutions are cut in the middle: the approach is stated early and the conclusion late.
MAX_SOLUTION_CHARS = 16_000
_HEAD_CHARS = 12_000
MAX_REPLY_NOTIONS = 100  # a reply longer than this is rambling; the first ones are kept
_REPLY_KEYS = ("keywords", "notions", "concepts")
_MAX_JSON_STARTS = 20  # places in the reply where a JSON value is tried, bounding the work

SYSTEM_PROMPT = (
    "You are a careful mathematician. You read a solution to a math problem and list the "
    "mathematical knowledge it relies on."
)
USER_PROMPT = """List the general mathematical concepts, theorems, formulas and methods that \
the solution below relies on.

Rules:
- Only mathematical knowledge: no numbers, variable names or steps specific to this problem.
- Each item is a short noun phrase of at most five words, for example "quadratic formula", \
"complementary counting" or "law of cosines".
- Reply with a JSON array of strings and nothing else, for example: \
["modular arithmetic", "chinese remainder theorem"]

Solution:
{solution}"""

ChatFn = Callable[[list[dict[str, str]]], str]

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)


class NotionReplyError(ValueError):
    """The endpoint's reply holds no usable list of notions; the message quotes its start."""


class ChatNotionExtractor:
    """Asks a chat endpoint for a solution's notions with the versioned prompt above."""

    def __init__(self, chat: ChatFn, model: str) -> None:
        self._chat = chat
        self.name = f"llm:{model}"
        self.version = PROMPT_VERSION

    def extract(self, solution: str) -> Notions:
        """Raises ``NotionReplyError`` when the reply cannot be read as a list of notions."""
        reply = self._chat(notion_messages(solution))
        return Notions(parse_notion_reply(reply), self.name, self.version)


def notion_messages(solution: str) -> list[dict[str, str]]:
    """The chat messages that ask for the notions of one solution."""
    if len(solution) > MAX_SOLUTION_CHARS:
        tail = MAX_SOLUTION_CHARS - _HEAD_CHARS
        solution = f"{solution[:_HEAD_CHARS]}\n[...]\n{solution[-tail:]}"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": USER_PROMPT.format(solution=solution)},
    ]


def parse_notion_reply(reply: str) -> tuple[str, ...]:
    """The normalised notions of a reply: a JSON list, or an object with a ``keywords`` list."""
    value = _json_value(reply)
    if isinstance(value, dict):
        key = next((k for k in _REPLY_KEYS if isinstance(value.get(k), list)), None)
        if key is None:
            raise NotionReplyError(
                f"the reply is a JSON object without a list under 'keywords': {_quote(reply)}"
            )
        value = value[key]
    if not isinstance(value, list):
        raise NotionReplyError(f"the reply is JSON but not a list of notions: {_quote(reply)}")
    items = [str(item) for item in value if isinstance(item, str | int | float)]
    if value and not items:
        raise NotionReplyError(f"the reply's list holds no strings: {_quote(reply)}")
    return normalise_notions(items[:MAX_REPLY_NOTIONS])


def _json_value(reply: str) -> object:
    text = reply.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced[1].strip()
    decoder = json.JSONDecoder()
    starts = (i for i, char in enumerate(text) if char in "[{")
    for _, start in zip(range(_MAX_JSON_STARTS), starts, strict=False):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if _holds_notions(value):
            return value
    raise NotionReplyError(f"the reply holds no JSON list of notions: {_quote(reply)}")


def _holds_notions(value: object) -> bool:
    """Whether a JSON value found inside prose is the list asked for (not, say, a "[1]")."""
    if isinstance(value, dict):
        return any(isinstance(value.get(key), list) for key in _REPLY_KEYS)
    return isinstance(value, list) and any(isinstance(item, str) for item in value)


def _quote(reply: str) -> str:
    """The start of a reply, for an error message that shows what came back."""
    return repr(reply[:200] + ("..." if len(reply) > 200 else ""))
