"""Finding the final answer in a model output with plain string work, shared by the evaluators.

Everything here is linear in the length of its input, so it is safe on outputs of any size;
the guards at the top keep the expensive steps after it (SymPy) away from pathological text.
"""

from __future__ import annotations

import re
from collections import deque
from functools import lru_cache

# The final answer sits at the end of an output, so a long output is graded on its tail.
MAX_OUTPUT_CHARS = 20_000
# Real answers nest a handful of levels; thousands of levels only exhaust the LaTeX parser.
MAX_NESTING = 60

_BRACKET = re.compile(r"[{}()\[\]]")
_OPENING = frozenset("{([")
# Display environments open math mode; array environments (pmatrix, cases) do not.
_MATH_DELIMITERS = re.compile(
    r"(?<!\\)\$|\\\(|\\\[|\\boxed|\\begin\{(?:equation|align|gather|multline|displaymath|math)"
)
_COMMAND = re.compile(r"\\[a-zA-Z]+")
_PROSE = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}")
# An output this short with no delimiters and no prose is an answer written as bare LaTeX.
MAX_BARE_ANSWER_CHARS = 300
_ANSWER_MARKERS = (
    re.compile(r"final answer is\s*:?", re.IGNORECASE),
    re.compile(r"the answer is\s*:?", re.IGNORECASE),
    re.compile(r"####"),
)
# The words each case-insensitive marker opens with, lower case: the last one is found with
# str.rfind on the lower-cased text, where the pattern would be tried at every position.
_MARKER_WORDS = ("final answer is", "the answer is", None)
_LEADING_MATH = re.compile(
    r"\s*:?\s*(?:\$\$(.+?)\$\$|\$(.+?)(?<!\\)\$|\\\((.+?)\\\)|\\\[(.+?)\\\])", re.DOTALL
)
# A sentence ends at a full stop followed by a space or the end; a decimal point never is.
_SENTENCE_END = re.compile(r"\.(?=\s|$)|\n")
# Several evaluators read the same output's box and marker (strict, flex, exact): a row's
# scans are cached, keyed by the text, whose hash Python keeps on the string. Texts are the
# graded tails (at most ``MAX_OUTPUT_CHARS`` by default), so the cache holds little.
_SHARED_SCANS = 32


def output_tail(text: str, limit: int = MAX_OUTPUT_CHARS) -> tuple[str, bool]:
    """The last ``limit`` characters of ``text``, and whether anything was cut."""
    if len(text) <= limit:
        return text, False
    return text[-limit:], True


def nesting_depth_exceeds(text: str, limit: int = MAX_NESTING) -> bool:
    """Whether brackets of any kind nest deeper than ``limit`` anywhere in ``text``."""
    if text.count("{") + text.count("(") + text.count("[") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.finditer(text):
        if bracket.group() in _OPENING:
            depth += 1
            if depth > limit:
                return True
        elif depth > 0:
            depth -= 1
    return False


def has_math_delimiter(text: str) -> bool:
    """Whether ``text`` already marks its mathematics ($, \\(, \\[, an environment, \\boxed)."""
    return _MATH_DELIMITERS.search(text) is not None


def is_bare_answer(text: str) -> bool:
    """Whether ``text`` is only an answer in bare LaTeX (``\\frac{3}{4}``, ``x^2-9``), no prose."""
    text = text.strip()
    return (
        0 < len(text) <= MAX_BARE_ANSWER_CHARS
        and not has_math_delimiter(text)
        and not _PROSE.search(_COMMAND.sub(" ", text))
    )


def first_math_span(text: str) -> str | None:
    """The content of the math span ($...$, \\(...\\), \\[...\\]) ``text`` starts with."""
    span = _LEADING_MATH.match(text)
    if span is None:
        return None
    return next(group for group in span.groups() if group is not None)


def braced_argument(text: str, start: int) -> tuple[str, int] | None:
    """The content of the balanced ``{...}`` opening at ``start``, and the index after it."""
    if start >= len(text) or text[start] != "{":
        return None
    depth = 0
    for brace in re.compile(r"(?<!\\)[{}]").finditer(text, start):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return text[start + 1 : brace.start()], brace.end()
    return None


@lru_cache(maxsize=_SHARED_SCANS)
def last_command_argument(text: str, commands: tuple[str, ...] = ("boxed",)) -> str | None:
    """The argument of the last ``\\boxed{...}`` (or other named command) in ``text``.

    Also accepts the brace-less form ``\\boxed 5``. Returns None when there is none or its
    braces never close.
    """
    names = "|".join(re.escape(c) for c in commands)
    found = None
    for command in re.finditer(rf"\\(?:{names})(?![a-zA-Z])\s*", text):
        start = command.end()
        if start < len(text) and text[start] == "{":
            argument = braced_argument(text, start)
            if argument is not None:
                found = argument[0]
        else:
            bare = re.match(r"[^\s$.,]+", text[start:])
            if bare:
                found = bare.group()
    return found


@lru_cache(maxsize=_SHARED_SCANS)
def text_after_marker(text: str) -> str | None:
    """The answer after the last explicit marker ("The answer is", "####").

    That is the math span right after the marker, else the sentence. When several markers
    occur, the shortest remainder wins: it is the one nearest the end.
    """
    best = None
    lowered = text.lower()
    for marker, words in zip(_ANSWER_MARKERS, _MARKER_WORDS, strict=True):
        if words and len(lowered) == len(text):  # lower() kept every position where it was
            at = lowered.rfind(words)
            last = marker.match(text, at) if at >= 0 else None
        else:
            last = last_match(marker, text)
        if last is not None:
            remainder = text[last.end() :]
            if best is None or len(remainder) < len(best):
                best = remainder
    if best is None:
        return None
    math = first_math_span(best)
    return math if math is not None else first_sentence(best)


def last_match(pattern: re.Pattern, text: str, start: int = 0) -> re.Match | None:
    """The last non-overlapping match of ``pattern`` in ``text`` from ``start`` on."""
    matches = deque(pattern.finditer(text, start), maxlen=1)
    return matches[0] if matches else None


def first_sentence(text: str) -> str:
    """``text`` up to its first full stop or line break, ignoring leading blank lines."""
    text = text.lstrip()
    end = _SENTENCE_END.search(text)
    return text[: end.start()] if end else text


def strip_math_delimiters(text: str) -> str:
    """``text`` without surrounding $, \\(, \\[ or a trailing full stop."""
    text = text.strip()
    for left, right in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if text.startswith(left) and text.endswith(right) and len(text) >= len(left + right):
            text = text[len(left) : len(text) - len(right)].strip()
    return re.sub(r"(?<!\\)\$", "", text).strip().rstrip(".").strip()
