"""Gold sanity: a gold answer that looks malformed, so an "incorrect" against it is in doubt.

Datasets carry typos (``4:30p..``), truncated LaTeX and golds of the wrong kind for their
question. A row whose gold is suspect is never silently "incorrect": the jury flags it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from grading import options, recompute
from grading.equivalence import real_sets
from grading.evaluators.symbolic import parse_answer
from grading.types import Sample

_STRAY_END = re.compile(r"(?:\.\.|[,;:=+\-*/^_\\(\[{]|\?)\s*$")
_REPEATED_PUNCTUATION = re.compile(r"[?!]{2,}|,,")
_YES_NO_QUESTION = re.compile(
    r"^\s*(?:is|are|does|do|can|will|was|were|has|have)\b[^?]*\?\s*$", re.IGNORECASE
)
_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?$")
# "How many integers x satisfy …?": a count of mathematical objects (not "How many marbles
# does each receive?", which asks for several counts)
_HOW_MANY = re.compile(
    r"\bhow many\s+(?:\w+\s+)?(?:integers?|numbers?|solutions?|values?|divisors?|factors?"
    r"|primes?|pairs?|triples?|ways?|roots?|zeros?)\b(?![^?]*\beach\b)",
    re.IGNORECASE,
)
_SEVERAL_VALUES = re.compile(r"-?\d+(?:\s*,\s*-?\d+){2,}")
_RATIO = re.compile(r"\d+\s*(?::|\\colon)\s*\d+")
_PROBABILITY_ASKED = re.compile(
    r"\bprobabilit|\bchance\b|probabilidad|probabilité|wahrscheinlichkeit|probabilità|вероятност"
    r"|概率|確率",
    re.IGNORECASE,
)
_ODDS_ASKED = re.compile(r"\bodds\b|\bratio\b|\bcotes?\b|\bquote\b|\bVerhältnis\b", re.IGNORECASE)
_LOWER_CASE_LABEL = re.compile(r"\s*\$?\(?([a-e])\)?\$?\s*")
_LABEL_WITH_VALUE = re.compile(
    r"\s*\$?\s*(?:\\textbf\s*\{\s*)?\(([A-E])\)\s*\}?\s*(?:\\[ ,;:]|~|\s)*(\S.*?)\s*\$?\s*",
    re.DOTALL,
)
_SPELLING = re.compile(r"\s|\$|\\[ ,;:!]|~")


def gold_is_suspect(gold: str, problem: str) -> bool:
    """True when ``gold`` carries stray punctuation, unbalanced brackets, does not parse as
    an answer at all, or is not the kind of answer its question asks for (a number for a
    yes/no question, a ratio for a probability)."""
    text = gold.strip()
    if not text:
        return True
    bare = text.strip("$").strip()
    if _STRAY_END.search(bare) or _REPEATED_PUNCTUATION.search(bare) or not _balanced(bare):
        return True
    parsed = parse_answer(text)
    if parsed.empty:
        return True
    question = problem.strip().rsplit("\n", 1)[-1][-300:]
    if _HOW_MANY.search(question) and _SEVERAL_VALUES.fullmatch(bare):
        return True  # "1, 3, 5, 7" for "How many integers …?": the values, not their count
    if _RATIO.fullmatch(bare) and _PROBABILITY_ASKED.search(question):
        return not _ODDS_ASKED.search(question)  # "1:2" for a probability: odds, or a ratio?
    if _misrounded(bare, question):
        return True  # 19.9 for "Round 19.96 to the nearest tenth": cut, not rounded
    if real_sets.PLUS_MINUS.search(bare) and _ONE_ROOT_ASKED.search(question):
        return True  # "\pm 12" for "the principal square root of 144", or for √144 itself
    if _EQUATION_ASKED.search(question) and _NUMERIC.match(bare):
        return True  # 3 for "the equation of the tangent line": its slope, not the line
    if _SUM_OF_LETTERS_ASKED.search(question) and (
        "=" in bare or (_INTEGERS_NAMED.search(problem) and not _INTEGER.fullmatch(bare))
    ):
        # 3/8 for "… is m/n, m and n relatively prime … Find m + n", "a = -7, b = 6" for a + b:
        # the parts, not the sum asked for
        return True
    if _ONE_VALUE_ASKED.search(question) and _PAIR.fullmatch(bare):
        return True  # (3, 2) for "求 $xy$ 的值", "Find the value of $xy$": x and y, not xy
    if recompute.contradicts(text, problem):
        return True  # 8 for "Evaluate $\log_2 64$": the question's own answer is 6
    return bool(_YES_NO_QUESTION.match(question)) and bool(_NUMERIC.match(bare))


# "Find $m+n$." where m/n is a fraction in lowest terms: a sum of integers.
_SUM_OF_LETTERS_ASKED = re.compile(
    r"\b(?:find|compute|what\s+is)\s+\$\s*[a-z]\s*\+\s*[a-z](?:\s*\+\s*[a-z])*\s*\$", re.IGNORECASE
)
_INTEGER = re.compile(r"-?\d+")
_INTEGERS_NAMED = re.compile(r"relatively\s+prime|\bcoprime|lowest\s+terms|\bintegers\b", re.I)
# "Find the value of $xy$", "求 $xy$ 的值": one value of an expression with no comma in it.
_ONE_VALUE_ASKED = re.compile(
    r"\b(?:find|compute|determine|what\s+is)\s+the\s+value\s+of\s+\$[^$,(]+\$|求\s*\$[^$,(]+\$\s*的值",
    re.IGNORECASE,
)
_PAIR = re.compile(r"\(\s*[^(),]+(?:,\s*[^(),]+)+\)")
_EQUATION_ASKED = re.compile(
    r"\b(?:an?|the)\s+equation\s+(?:of|for)\s+(?:the\s+|a\s+|an\s+)?(?:\w+\s+)?"
    r"(?:line|circle|parabola|plane|ellipse|hyperbola|curve)\b",
    re.IGNORECASE,
)
# A question that asks for one root: "principal", "positive", or the value of a radical.
_ONE_ROOT_ASKED = re.compile(
    r"\bprincipal\b|\bpositive\s+(?:square\s+)?root|\bnon-?negative\s+(?:square\s+)?root"
    r"|\b(?:evaluate|simplify|compute|what\s+is)\s+\$?(?:\\sqrt|√)",
    re.IGNORECASE,
)
# "Round $19.96$ to the nearest tenth": the question's own number, and the place it names.
_ROUNDING_EXERCISE = re.compile(
    r"\bround\s+\$?(-?\d+(?:\.\d+)?)\$?\s+to\s+the\s+nearest\s+"
    r"(ten[ -]thousandth|thousandth|hundredth|tenth|whole number|integer|one|ten[ -]thousand"
    r"|hundred[ -]thousand|million|thousand|hundred|ten)\b",
    re.IGNORECASE,
)
_PLACES = {
    "thousandth": "0.001",
    "hundredth": "0.01",
    "tenth": "0.1",
    "whole number": "1",
    "integer": "1",
    "one": "1",
    "ten": "1E1",
    "hundred": "1E2",
    "thousand": "1E3",
    "ten thousandth": "0.0001",
    "ten thousand": "1E4",
    "hundred thousand": "1E5",
    "million": "1E6",
}


def _misrounded(gold: str, question: str) -> bool:
    """A gold that is not the rounding the question asks of its own number (half up, as
    schools round): a truncation or a rounding done twice."""
    exercise = _ROUNDING_EXERCISE.search(question)
    if exercise is None or not _NUMERIC.match(gold):
        return False
    place = Decimal(_PLACES[exercise.group(2).lower().replace("-", " ")])
    try:
        rounded = Decimal(exercise.group(1)).quantize(place, rounding=ROUND_HALF_UP)
    except InvalidOperation:  # more digits than a decimal context holds: nothing to check
        return False
    return Decimal(gold) != rounded


def _balanced(text: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{"}
    depth: list[str] = []
    for char in text:
        if char in "([{":
            depth.append(char)
        elif char in pairs:
            # Half-open intervals ("[2, 5)") close with the other kind of bracket.
            if not depth or (depth[-1] != pairs[char] and {depth[-1], char} - set("[()]")):
                return False
            depth.pop()
    return not depth


def with_option_letter(sample: Sample) -> Sample:
    """``sample`` with a gold that names an option as the capital letter every choice reader
    compares: a lower-case label ("b", where the problem lists "(a) 24 (b) 48"), read as
    mathematics a variable; or a label with its option's value ("\\textbf{(C) }12", as AMC
    answer keys write it), which no reader takes for a letter."""
    label = _LOWER_CASE_LABEL.fullmatch(sample.gold) or _LABEL_WITH_VALUE.fullmatch(sample.gold)
    if label is None or not sample.problem:
        return sample
    letter = label.group(1).upper()
    listed = options.problem_options(sample.problem)
    if letter not in listed:
        return sample
    value = label.group(2) if label.re is _LABEL_WITH_VALUE else ""
    if value and _spelled(value) != _spelled(listed[letter]):
        return sample  # "(C) 14" where (C) is 12: not the option's own text
    return replace(sample, gold=letter)


def _spelled(text: str) -> str:
    return _SPELLING.sub("", text)
