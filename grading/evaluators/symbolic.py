"""Math-verify's parse and verify behind process-wide caches, shared by every evaluator.

Evaluators run in long-lived processes that see each gold many times and the same short
answers again and again, so the LaTeX -> SymPy conversion of a string and the comparison of
two parsed values are each done once per process. Math-verify's own ``signal.alarm`` time-outs
are off: they turn a time-out into a silent "incorrect" and fail off the main thread; the
sandbox bounds time instead.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig, verify
from math_verify.parser import ExtractionTarget, extract_target_from_pred, get_extraction_regexes

from grading.evaluators.extraction import has_math_delimiter

# Math-verify warns once per process that its time-out is off; that is our design.
logging.getLogger("math_verify").setLevel(logging.ERROR)

DEFAULT_TARGETS: tuple[ExtractionTarget, ...] = (LatexExtractionConfig(), ExprExtractionConfig())
# Whole outputs are rarely repeated; caching them would only evict the answers that are.
CACHEABLE_CHARS = 2_000
# Values closer than this (relative) count as the same number, not a rounding coincidence.
ROUNDING_RELATIVE_TOLERANCE = 1e-3


@dataclass(frozen=True)
class Parsed:
    """What math-verify extracted from one text: SymPy values and the matched strings."""

    values: tuple  # SymPy objects, best first
    strings: tuple[str, ...]  # the matched text, normalised by math-verify

    @property
    def empty(self) -> bool:
        return not self.values and not self.strings

    @property
    def matched(self) -> str:
        return self.strings[0] if self.strings else ""

    @property
    def first(self) -> object:
        """The best value, or None where nothing parsed."""
        return self.values[0] if self.values else None


@dataclass(frozen=True)
class Comparison:
    correct: bool
    string_only: bool = False  # correct only because the two strings are equal
    gold_value: object = None  # the SymPy pair that matched, for the signals
    pred_value: object = None


@lru_cache(maxsize=64)
def _extraction_regexes(targets: tuple[ExtractionTarget, ...]) -> list:
    # math-verify keeps only the last config's regexes (lru_cache(maxsize=1)), so evaluators
    # with different configs would rebuild them on every call; keep them all.
    return get_extraction_regexes(targets)


def _parse(text: str, targets: tuple[ExtractionTarget, ...], extraction_mode: str) -> Parsed:
    """math_verify.parse without its alarm-based time-out, with the regexes kept per config."""
    try:
        found = extract_target_from_pred(
            text,
            _extraction_regexes(targets),
            fallback_mode="first_match",
            extraction_mode=extraction_mode,
        )
    except MemoryError:  # the sandbox reports it; "nothing extracted" would read as no answer
        raise
    except Exception:  # parse() reads a failure as "nothing extracted"; so do we
        found = []
    values = tuple(v for v in found if not isinstance(v, str))
    strings = tuple(v for v in found if isinstance(v, str))
    return Parsed(values=values, strings=strings)


_parse_cached = lru_cache(maxsize=8192)(_parse)


def parse_text(
    text: str,
    targets: Sequence[ExtractionTarget] = DEFAULT_TARGETS,
    extraction_mode: str = "any_match",
) -> Parsed:
    """Extract and parse ``text`` with math-verify; short texts are cached per process."""
    targets = tuple(targets)
    if len(text) <= CACHEABLE_CHARS:
        return _parse_cached(text, targets, extraction_mode)
    return _parse(text, targets, extraction_mode)


# A single letter after an operator ("6 + h", "x^2 + 2x + m"): a variable, which math-verify
# would drop as a unit (hours, metres) and read "6 + h" as 6. Braced, it stays a variable
# (after a comma braces would make it a set).
_LETTER_AFTER_OPERATOR = re.compile(r"([-+*/=−]\s*)([A-Za-z])(?=\s*(?:[-+*/=,)−$]|\\\)|$))")
# The same for a letter after its coefficient at the end of a sum ("3 + 2m", "25 + 0.1t"):
# math-verify drops it as metres or tonnes and reads 3 + 2m as 5. A lone "5m" stays a unit.
_COEFFICIENT_LETTER = re.compile(r"(?<=[\d}])([cdghlmost])(?=\s*$)")  # the letters it drops
_SUM = re.compile(r"[\w}]\s*[-+−]\s*[\w\\{(]")
# "= y^3 + 3xy^2" on a display of its own: the right side of the chain the line before began.
_CONTINUED = re.compile(r"^=(?!=)\s*(?=[^=]*$)")


def parse_answer(text: str, targets: Sequence[ExtractionTarget] = DEFAULT_TARGETS) -> Parsed:
    """Parse a bare answer (a gold, or an extracted answer): bare LaTeX is read as LaTeX, and
    a letter after an operator, or closing a sum after its coefficient, as a variable, never
    as a unit."""
    text = _LETTER_AFTER_OPERATOR.sub(r"\1{\2}", _CONTINUED.sub("", text.strip()))
    if _SUM.search(text):
        text = _COEFFICIENT_LETTER.sub(r"{\1}", text)
    if "^" in text and "." in text:
        # "1000e^{0.5}" is 1000\sqrt{e}: an exact power, not a float SymPy evaluates
        text = _DECIMAL_EXPONENT.sub(_exponent_as_fraction, text)
    if text and not has_math_delimiter(text):
        text = f"${text}$"
    return parse_text(text, targets)


_DECIMAL_EXPONENT = re.compile(r"\^\s*(?:\{\s*(-?\d+\.\d+)\s*\}|(\d+\.\d+)(?![\d.]))")


def _exponent_as_fraction(match: re.Match) -> str:
    whole, _, decimals = (match.group(1) or match.group(2)).partition(".")
    sign = "-" if whole.startswith("-") else ""
    numerator = int(whole.lstrip("-") + decimals)
    return f"^{{{sign}\\frac{{{numerator}}}{{{10 ** len(decimals)}}}}}"


@lru_cache(maxsize=16384)
def _verify_pair(gold: object, pred: object, options: tuple, written_orders: tuple) -> bool:
    float_rounding, numeric_precision, strict, allow_set_relation_comp = options
    return verify(
        gold,
        pred,
        float_rounding=float_rounding,
        numeric_precision=numeric_precision,
        strict=strict,
        allow_set_relation_comp=allow_set_relation_comp,
        timeout_seconds=None,
    )


def verify_pair(gold: object, pred: object, options: tuple) -> bool:
    """Math-verify's verdict on one gold value and one prediction value, cached when hashable.

    Two sets equal as sets are one key to a cache, but math-verify compares a set against a
    tuple in the order the set was written ({2; 3} against (3, 2) differs from {3, 2}), so
    that order is part of the key: without it a row's verdict depended on the rows graded
    before it in the same process."""
    try:
        hash((gold, pred))
    except TypeError:  # mutable matrices
        return _verify_pair.__wrapped__(gold, pred, options, ())
    return _verify_pair(gold, pred, options, (_written_order(gold), _written_order(pred)))


def _written_order(value: object) -> tuple:
    """The elements of a set (and of the sets in a tuple) in the order the text wrote them."""
    unsorted = getattr(value, "_unsorted_args", None)
    if unsorted is not None:
        return tuple(unsorted)
    if isinstance(value, sympy.Tuple):
        return tuple(_written_order(element) for element in value.args)
    return ()


def compare(
    gold: Parsed,
    pred: Parsed,
    *,
    float_rounding: int = 6,
    numeric_precision: int = 15,
    strict: bool = True,
    allow_set_relation_comp: bool = False,
) -> Comparison:
    """Math-verify's verify over all pairs, telling apart a SymPy match from a string match.

    Same verdict as ``verify(gold_list, pred_list)``: that function also tries every pair and
    never matches a SymPy value with a string.
    """
    options = (float_rounding, numeric_precision, strict, allow_set_relation_comp)
    for gold_value in gold.values:
        for pred_value in pred.values:
            if verify_pair(gold_value, pred_value, options):
                return Comparison(True, gold_value=gold_value, pred_value=pred_value)
    for gold_string in gold.strings:
        for pred_string in pred.strings:
            if verify_pair(gold_string, pred_string, options):
                return Comparison(True, string_only=True)
    return Comparison(False)


def equal_only_after_rounding(gold_value: object, pred_value: object) -> bool:
    """Whether two numbers that verify accepted are in fact far apart (relative to their size).

    Catches verify's ``evalf(chop=True)`` and ``round`` accepting 1/2004! for 1/2006!, or
    0.0000014 for 0.000001.
    """
    if not isinstance(gold_value, sympy.Expr) or not isinstance(pred_value, sympy.Expr):
        return False
    if gold_value == pred_value or not (gold_value.is_number and pred_value.is_number):
        return False
    try:
        gold_number = sympy.N(gold_value, 30)
        pred_number = sympy.N(pred_value, 30)
        size = sympy.Max(abs(gold_number), abs(pred_number))
        return bool(
            size > 0 and abs(gold_number - pred_number) > ROUNDING_RELATIVE_TOLERANCE * size
        )
    except (TypeError, ValueError, ArithmeticError):  # not comparable as real magnitudes
        return False


def to_latex(value: object, fallback: str) -> str:
    """LaTeX of a SymPy value for display; ``fallback`` when SymPy cannot print it.

    ``str`` of an integer over 4300 digits raises ValueError, so huge answers keep the
    original text.
    """
    if value is None:
        return fallback
    try:
        return _latex_cached(value, fallback)
    except TypeError:  # unhashable (mutable matrix)
        return _latex_cached.__wrapped__(value, fallback)


@lru_cache(maxsize=8192)
def _latex_cached(value: object, fallback: str) -> str:
    try:
        return sympy.latex(value)
    except Exception:  # printing must never cost the row
        return fallback
