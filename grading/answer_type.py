"""What kind of answer a gold is, from its text alone.

Regular expressions only, no SymPy: every pattern here runs in linear time and looks at a
bounded prefix, so classifying a 400 kB gold or a 5,000-digit integer costs microseconds.
"""

from __future__ import annotations

import re
from functools import lru_cache

from grading.evaluators.choice import gold_choice
from grading.option_lists import gold_option_list
from grading.types import AnswerType

# Golds longer than this are classified by their beginning (and, for integers, a digit scan).
_PREFIX_CHARS = 2_000

_WRAPPER = re.compile(r"^(?:\\boxed|\\text|\\textbf|\\mathrm|\\mbox)\{(.*)\}$", re.DOTALL)
_NOISE = re.compile(r"\\[,!;: ]|\\(?:left|right|displaystyle)\b|\{,\}|\\\$|\\%|%|\^\{?\\circ\}?|°")
_DIGITS = re.compile(r"[+-]?\d+")
_INTEGER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.0+)?")
_DECIMAL = re.compile(
    r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?\.\d+(?:[eE][+-]?\d+)?|[+-]?\d+[eE][+-]?\d+"
)
_FRACTION = re.compile(r"[+-]?(?:\\frac\{[+-]?\d+\}\{\d+\}|\\frac\d\d|\d+/\d+)")
_MATRIX = re.compile(r"\\begin\{[pbBvV]?matrix\}|\\begin\{array\}")
_SET_MARKS = re.compile(r"\\cup|\\cap|\\emptyset|\\varnothing|\\setminus|\\\{|\\in\b|\\infty")
_INTERVAL = re.compile(r"^[\[(].*,.*[\])]$", re.DOTALL)
_TUPLE = re.compile(r"^\(.*,.*\)$", re.DOTALL)
_RELATION = re.compile(r"(?<![<>!\\])=|<|>|\\[lg]eq?\b|\\neq?\b|\\approx\b")
_TOP_LEVEL_LIST = re.compile(r",|;|\\text\{\s*(?:and|or)\s*\}")
_TEXT = re.compile(r"^(?:\\text(?:bf)?\{[^{}]*\}|[A-Za-z][A-Za-z' -]*[A-Za-z])$")
_MATH_SIGNS = re.compile(r"\\[a-zA-Z]+|[\d^_+*/=(){}\[\]|<>]")
_BRACKETED = re.compile(r"\\\{[^{}]*?\\\}|\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")
_LIST_SEPARATOR = re.compile(r"(?<!\d),|,(?!\d{3}\b)|\band\b|\bor\b")
_PLUS_MINUS = re.compile(r"\\pm|±|\\mp|∓")


# Read once per gold: a run grades several outputs against each.
@lru_cache(maxsize=1024)
def classify(gold: str) -> AnswerType:
    """The answer type of ``gold``, decided by its shape."""
    text = gold.strip()
    if len(text) > _PREFIX_CHARS:
        return AnswerType.INTEGER if _DIGITS.fullmatch(text) else AnswerType.EXPRESSION
    text = _unwrap(text)

    choice = gold_choice(text)
    if choice is not None:
        return AnswerType.YES_NO if choice[0] == "yes_no" else AnswerType.LETTER
    if gold_option_list(text) is not None:
        return AnswerType.OPTION_LIST
    if _MATRIX.search(text):
        return AnswerType.MATRIX
    bare = _NOISE.sub("", text).replace(" ", "")
    if _INTEGER.fullmatch(bare):
        return AnswerType.INTEGER
    if _DECIMAL.fullmatch(bare):
        return AnswerType.DECIMAL
    if _FRACTION.fullmatch(bare.replace("dfrac", "frac").replace("tfrac", "frac")):
        return AnswerType.FRACTION
    if _RELATION.search(text) and not _SET_MARKS.search(text):
        return AnswerType.EQUATION
    if _SET_MARKS.search(text) or (_INTERVAL.match(bare) and not _TUPLE.match(bare)):
        return AnswerType.INTERVAL_OR_SET
    if _TUPLE.match(bare) and _top_level_parts(bare[1:-1]) > 1:
        return AnswerType.TUPLE
    if _top_level_parts(text) > 1:
        return AnswerType.INTERVAL_OR_SET  # a list of solutions: order does not matter
    if _TEXT.match(text) or not _MATH_SIGNS.search(text):
        return AnswerType.TEXT
    return AnswerType.EXPRESSION


def _unwrap(text: str) -> str:
    """Strip math delimiters, a surrounding \\boxed or \\text, and a final full stop."""
    for _ in range(3):
        text = text.strip().strip("$").strip()
        if text.startswith(("\\(", "\\[")) and text.endswith(("\\)", "\\]")):
            text = text[2:-2].strip()
        text = text.rstrip(".").strip()
        wrapped = _WRAPPER.match(text)
        if not wrapped or _BRACKETED.sub("", wrapped.group(1)).count("}"):
            break
        text = wrapped.group(1)
    return text


def _top_level_parts(text: str) -> int:
    """How many comma- or semicolon-separated parts ``text`` has outside any brackets."""
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    previous = None
    while previous != text:
        previous, text = text, _BRACKETED.sub("", text)
    return len(_TOP_LEVEL_LIST.split(text))


def is_multi_part(gold: str) -> bool:
    """True for golds that hold several values ("2, 3", "\\pm 3", a tuple), where an answer
    listing values is expected rather than a hedge."""
    text = gold[:_PREFIX_CHARS].replace("{,}", "")
    return bool(_PLUS_MINUS.search(text) or _LIST_SEPARATOR.search(text))
