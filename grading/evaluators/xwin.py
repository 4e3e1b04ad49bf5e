"""The Xwin-Math evaluation tool's two extraction policies, ``strict`` and ``flex``.

Xwin-Math (Xwin-LM/Xwin-LM, Xwin-Math/eval) extracts an answer with explicit markers only
(strict) or markers, then ``\\boxed``/``\\mbox``, then the last number or formula (flex). Plain
numbers compare with a relative tolerance of 1e-3, except that two integers must be equal, and
answers listing several numbers follow a multi-number policy; anything with mathematical
structure is compared symbolically (math-verify's parse and verify, through the shared cache).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from grading.evaluators import TimedEvaluator
from grading.evaluators.extraction import (
    MAX_NESTING,
    MAX_OUTPUT_CHARS,
    is_bare_answer,
    last_command_argument,
    last_match,
    nesting_depth_exceeds,
    output_tail,
    strip_math_delimiters,
    text_after_marker,
)
from grading.evaluators.symbolic import compare, parse_answer, to_latex
from grading.types import Status, Verdict

MULTI_NUMBER_POLICIES = ("strict", "model_include_gt", "gt_include_model")
# int() refuses strings over 4300 digits; longer numbers compare as digit strings.
_MAX_NUMBER_DIGITS = 4000

_NUMBER = re.compile(
    r"(?P<sign>-\s*)?\\[dt]?frac\{(?P<num>-?\d+)\}\{(?P<den>\d+)\}"
    r"|(?<![\w.])(?P<plain>[-+]?(?:\d{1,3}(?:(?:\{,\}|,)\d{3})+|\d+)(?:\.\d+)?(?:\s*/\s*\d+)?"
    r"|[-+]?\.\d+)"
)
_WRAPPERS = re.compile(r"\\(?:text|mbox|mathrm|textbf)\{[^{}]*\}")
_DECORATION = re.compile(r"\\[%$!,;:]|\\?%|\$|\^\s*\{?\\circ\}?|\\(?:quad|qquad|left|right)\b|°")
# What is left of a plain list of numbers once the numbers are gone: prose, units, separators.
_STRUCTURE = re.compile(
    r"\\[a-zA-Z]+|[\^_=<>*/|(){}\[\]+]|(?<![A-Za-z])[A-Za-z](?![A-Za-z])|(?<=\S)\s*-\s*(?=\S)"
)
_LAST_NUMBER_OR_FORMULA = re.compile(
    r"\$\$(?P<display>[^$]{1,2000})\$\$|\$(?P<inline>[^$\n]{1,500})\$"
    r"|\\\((?P<paren>.{1,500}?)\\\)|\\\[(?P<bracket>.{1,2000}?)\\\]"
    r"|(?P<number>-?\d[\d,]*(?:\.\d+)?(?:/\d+)?|-?\.\d+)",
    re.DOTALL,
)


class XwinStrict(TimedEvaluator):
    """Xwin-Math's strict extraction: only explicit markers ("The answer is", "####")."""

    name = "strict"
    version = "1"
    flexible = False

    def __init__(
        self,
        *,
        multi_number_policy: str = "strict",
        relative_tolerance: float = 1e-3,
        max_output_chars: int = MAX_OUTPUT_CHARS,
        max_nesting: int = MAX_NESTING,
    ) -> None:
        if multi_number_policy not in MULTI_NUMBER_POLICIES:
            raise ValueError(
                f"multi_number_policy must be one of {', '.join(MULTI_NUMBER_POLICIES)}"
            )
        self.multi_number_policy = multi_number_policy
        self.relative_tolerance = Fraction(relative_tolerance)
        self.max_output_chars = max_output_chars
        self.max_nesting = max_nesting

    def extract(self, output: str) -> str | None:
        """The answer text this policy finds in ``output``, or None."""
        answer = text_after_marker(output)
        if answer is not None:
            boxed = last_command_argument(answer, ("boxed", "mbox"))
            return boxed if boxed is not None else answer
        if not self.flexible:
            return None
        if is_bare_answer(output):
            return output
        boxed = last_command_argument(output, ("boxed", "mbox"))
        if boxed is not None:
            return boxed
        last = last_match(_LAST_NUMBER_OR_FORMULA, output)
        if last is None:
            return None
        return next(group for group in last.groups() if group is not None)

    def _evaluate(self, gold: str, output: str) -> dict:
        return {"gold_latex": gold.strip(), **self._judge(gold, output)}

    def _judge(self, gold: str, output: str) -> dict:
        text, cut = output_tail(output, self.max_output_chars)
        detail = f"graded on the last {self.max_output_chars} characters" if cut else ""
        answer = self.extract(text)
        answer = strip_math_delimiters(answer) if answer is not None else ""
        if not answer:
            return {"status": Status.NO_ANSWER, "detail": detail or "no answer marker found"}
        if nesting_depth_exceeds(answer, self.max_nesting) or nesting_depth_exceeds(
            gold, self.max_nesting
        ):
            return {
                "status": Status.PARSE_ERROR,
                "extracted": answer[:500],
                "detail": f"brackets nested deeper than {self.max_nesting} levels",
            }
        shown = {"extracted": answer, "extracted_latex": answer}
        if _literal(answer) == _literal(gold):
            return {"status": Status.OK, "verdict": Verdict.CORRECT, **shown, "detail": detail}

        gold_numbers = plain_numbers(gold)
        pred_numbers = plain_numbers(answer)
        if gold_numbers is not None and pred_numbers is not None:
            correct = self.numbers_match(gold_numbers, pred_numbers)
            verdict = Verdict.CORRECT if correct else Verdict.INCORRECT
            return {"status": Status.OK, "verdict": verdict, **shown, "detail": detail}

        gold_parsed = parse_answer(gold)
        pred_parsed = parse_answer(answer)
        comparison = compare(gold_parsed, pred_parsed)
        if pred_parsed.values:
            shown["extracted_latex"] = to_latex(pred_parsed.values[0], answer)
        if not comparison.correct and not (gold_parsed.values and pred_parsed.values):
            side = "gold" if pred_parsed.values else "answer"
            return {
                "status": Status.PARSE_ERROR,
                **shown,
                "detail": f"the {side} does not parse as mathematics",
            }
        return {
            "status": Status.OK,
            "verdict": Verdict.CORRECT if comparison.correct else Verdict.INCORRECT,
            **shown,
            "signals": ("string_fallback",) if comparison.string_only else (),
            "detail": detail,
        }

    def numbers_match(self, gold: tuple, pred: tuple) -> bool:
        """Pair gold and predicted numbers one to one, in any order, under the policy."""
        if not gold or not pred:
            return False
        if self.multi_number_policy == "strict" and len(gold) != len(pred):
            return False
        unmatched_pred = list(pred)
        unmatched_gold = []
        for gold_number in gold:
            partner = next((p for p in unmatched_pred if self.same_number(gold_number, p)), None)
            if partner is None:
                unmatched_gold.append(gold_number)
            else:
                unmatched_pred.remove(partner)
        if self.multi_number_policy == "model_include_gt":
            return not unmatched_gold
        if self.multi_number_policy == "gt_include_model":
            return not unmatched_pred
        return not unmatched_gold and not unmatched_pred

    def same_number(self, a: Fraction | str, b: Fraction | str) -> bool:
        """Integers must be equal; otherwise equal within the relative tolerance."""
        if isinstance(a, str) or isinstance(b, str):
            return a == b
        if a.denominator == 1 and b.denominator == 1:
            return a == b
        return abs(a - b) <= self.relative_tolerance * max(abs(a), abs(b))


class XwinFlex(XwinStrict):
    """Xwin-Math's flex extraction: markers, then \\boxed/\\mbox, then the last number or formula."""

    name = "flex"
    flexible = True


@lru_cache(maxsize=8192)
def plain_numbers(text: str) -> tuple | None:
    """The numbers of an answer that is only numbers (with units, words, separators), or None.

    None means the answer has mathematical structure (a variable, an operator, a bracket, a
    command) and must be compared symbolically.
    """
    numbers = []

    def take(match: re.Match) -> str:
        numbers.append(_number_value(match))
        return " "

    rest = _NUMBER.sub(take, _DECORATION.sub("", _WRAPPERS.sub(" ", text)))
    if _STRUCTURE.search(rest):
        return None
    return tuple(numbers)


def _number_value(match: re.Match) -> Fraction | str:
    if match.group("num") is not None:
        numerator, denominator = match.group("num"), match.group("den")
        if match.group("sign"):  # -\frac{2}{3}
            numerator = numerator[1:] if numerator.startswith("-") else f"-{numerator}"
    else:
        literal = re.sub(r"\{,\}|,|\s", "", match.group("plain")).lstrip("+")
        numerator, _, denominator = literal.partition("/")
    divides_by_zero = bool(denominator) and not denominator.strip("0")
    if len(numerator) + len(denominator) > _MAX_NUMBER_DIGITS or divides_by_zero:
        if denominator:  # huge, or divided by zero: compare as written
            return f"{numerator}/{denominator}"
        return numerator.lstrip("0") or "0"
    value = Fraction(numerator)
    return value / Fraction(denominator) if denominator else value


def _literal(text: str) -> str:
    """Text compared character by character: no spaces, $, %, degrees, boxes, or case."""
    text = strip_math_delimiters(text)
    boxed = last_command_argument(text, ("boxed", "mbox"))
    if boxed is not None:
        text = boxed
    text = re.sub(r"\\(?:text|mathrm|textbf)\{([^{}]*)\}", r"\1", text)
    return re.sub(r"\s|\\[,!;: ]", "", _DECORATION.sub("", text)).replace("{,}", "").lower()
