"""The math-verify evaluators: the library's extraction and comparison, with doubt signals.

``math_verify`` is the library with its default extraction; ``math_verify_strict`` is the
reward-style configuration Math-Verify recommends for RL (boxed answers first, no guessing at
unanchored text, no repair of malformed operators).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import sympy
from latex2sympy2_extended import NormalizationConfig
from latex2sympy2_extended.sets import FiniteSet as LatexFiniteSet
from math_verify import (
    ExprExtractionConfig,
    LatexExtractionConfig,
    StringExtractionConfig,
    parse,
)
from math_verify.grader import sympy_expr_eq
from math_verify.parser import ExtractionTarget

from grading.evaluators import TimedEvaluator
from grading.evaluators.extraction import (
    MAX_NESTING,
    MAX_OUTPUT_CHARS,
    has_math_delimiter,
    is_bare_answer,
    nesting_depth_exceeds,
    output_tail,
)
from grading.evaluators.symbolic import (
    DEFAULT_TARGETS,
    Comparison,
    Parsed,
    compare,
    equal_only_after_rounding,
    parse_text,
    to_latex,
)
from grading.types import Status, Verdict

# The prediction side of Math-Verify's recommended reward configuration.
REWARD_PREDICTION_TARGETS: tuple[ExtractionTarget, ...] = (
    LatexExtractionConfig(
        normalization_config=NormalizationConfig(
            nits=False,
            malformed_operators=False,
            basic_latex=True,
            equations=False,
            boxed="all",
            units=True,
        ),
        boxed_match_priority=0,
        try_extract_without_anchor=False,
    ),
)

# Math-verify's priority of "answer:" matches, the first group after final-answer and boxed.
_ANSWER_PRIORITY = 100
# A comma between parts of an answer, not inside brackets and not a thousands separator.
_THOUSANDS_SEPARATOR = re.compile(r"(?<=\d)(?:\{,\}|,)(?=\d{3}(?!\d))")
_PART_SEPARATOR = re.compile(r",|;|\\text\{\s*(?:and|or)\s*\}|\b(?:and|or)\b")
_BRACKETED = re.compile(r"\\\{[^{}]*?\\\}|\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}")


def extraction_targets(match_types: Sequence[str], boxed_match_priority: int) -> tuple:
    """Math-verify extraction targets from match-type names ("latex", "expr")."""
    targets: list[ExtractionTarget] = []
    for match_type in match_types:
        if match_type == "latex":
            targets.append(LatexExtractionConfig(boxed_match_priority=boxed_match_priority))
        elif match_type == "expr":
            targets.append(ExprExtractionConfig())
        else:
            raise ValueError(f"unknown match type {match_type!r}; use 'latex' or 'expr'")
    return tuple(targets)


class MathVerify(TimedEvaluator):
    """Math-verify's parse and verify on the gold and the whole output."""

    name = "math_verify"
    version = "1"

    def __init__(
        self,
        *,
        match_types: Sequence[str] = ("latex", "expr"),
        boxed_match_priority: int = 50,
        float_rounding: int = 6,
        numeric_precision: int = 15,
        strict: bool = True,
        allow_set_relation_comp: bool = False,
        wrap_gold: bool = True,
        wrap_bare_output: bool = True,
        max_output_chars: int = MAX_OUTPUT_CHARS,
        max_nesting: int = MAX_NESTING,
    ) -> None:
        targets = extraction_targets(match_types, boxed_match_priority)
        self.gold_targets = targets
        self.prediction_targets = targets
        self.prediction_extraction_mode = "any_match"
        self.require_boxed = False
        self.compare_options = {
            "float_rounding": float_rounding,
            "numeric_precision": numeric_precision,
            "strict": strict,
            "allow_set_relation_comp": allow_set_relation_comp,
        }
        self.wrap_gold = wrap_gold
        self.wrap_bare_output = wrap_bare_output
        self.max_output_chars = max_output_chars
        self.max_nesting = max_nesting
        self.boxed_match_priority = boxed_match_priority

    def _evaluate(self, gold: str, output: str) -> dict:
        if nesting_depth_exceeds(gold, self.max_nesting):
            return {"status": Status.PARSE_ERROR, "detail": "the gold answer is nested too deeply"}
        gold_parsed = self.parse_gold(gold)
        gold_latex = to_latex(gold_parsed.first, gold)
        if gold_parsed.empty:
            return {
                "status": Status.PARSE_ERROR,
                "gold_latex": gold,
                "detail": "no answer could be extracted from the gold",
            }

        text, cut = output_tail(output, self.max_output_chars)
        detail = f"graded on the last {self.max_output_chars} characters" if cut else ""
        window = boxed_window(text)
        if self.require_boxed and window is None:
            return {
                "status": Status.NO_ANSWER,
                "gold_latex": gold_latex,
                "detail": "no \\boxed answer",
            }
        if self.require_boxed:
            text = text[window:]
        if nesting_depth_exceeds(text, self.max_nesting):
            return {
                "status": Status.PARSE_ERROR,
                "gold_latex": gold_latex,
                "detail": f"brackets nested deeper than {self.max_nesting} levels",
            }
        if self.wrap_bare_output and is_bare_answer(text):
            text = f"${text.strip()}$"
        pred_parsed = self._parse_prediction(text, window)
        if pred_parsed.empty:
            return {"status": Status.NO_ANSWER, "gold_latex": gold_latex, "detail": detail}

        pred_value = pred_parsed.first
        shown = {
            "extracted": pred_parsed.matched or _short_text(pred_value),
            "extracted_latex": to_latex(pred_value, pred_parsed.matched),
            "gold_latex": gold_latex,
        }
        comparison = compare(gold_parsed, pred_parsed, **self.compare_options)
        if not comparison.correct and not (gold_parsed.values and pred_parsed.values):
            side = "prediction" if not pred_parsed.values else "gold"
            return {
                "status": Status.PARSE_ERROR,
                **shown,
                "detail": _join(detail, f"the {side} does not parse as mathematics"),
            }
        return {
            "status": Status.OK,
            "verdict": Verdict.CORRECT if comparison.correct else Verdict.INCORRECT,
            **shown,
            "signals": self.signals(gold, gold_parsed, pred_parsed, comparison),
            "detail": detail,
        }

    def _parse_prediction(self, text: str, window: int | None) -> Parsed:
        """Math-verify's parse of the output. When the output has a box and no "final answer"
        phrase, only boxed matches can be tried before "answer:" ones (priority 50 against
        100 and up), and every one of them lies at or after the first box's line or the
        display block that opens it; so that window is parsed first, and the whole text only
        when the window yields no value. Same result, a fraction of the regex scanning
        (checked on every conformance file and the real run, with one explained difference:
        tests/grading/test_parse_window.py).
        """
        if (
            window
            and not self.require_boxed
            and self.boxed_match_priority < _ANSWER_PRIORITY
            and "final answer" not in text.lower()
        ):
            windowed = parse_text(
                text[window:], self.prediction_targets, self.prediction_extraction_mode
            )
            if windowed.values:
                return windowed
        return parse_text(text, self.prediction_targets, self.prediction_extraction_mode)

    def parse_gold(self, gold: str) -> Parsed:
        """The gold as math-verify reads it; bare LaTeX is wrapped in $...$ first (wrap_gold)."""
        gold = gold.strip()
        if self.wrap_gold and gold and not has_math_delimiter(gold):
            gold = f"${gold}$"
        return parse_text(gold, self.gold_targets)

    def signals(
        self, gold: str, gold_parsed: Parsed, pred_parsed: Parsed, comparison: Comparison
    ) -> tuple[str, ...]:
        """Doubt codes for a verdict: how far the "correct" rests on something shaky."""
        if not comparison.correct:
            return ()
        if comparison.string_only:
            return ("string_fallback",)
        found = []
        if equal_only_after_rounding(comparison.gold_value, comparison.pred_value):
            found.append("rounding_match")
        gold_parts = max(_part_count(comparison.gold_value), _listed_part_count(gold))
        if gold_parts > 1 and _part_count(comparison.pred_value) < gold_parts:
            found.append("partial_match")
        return tuple(found)


class MathVerifyStrict(MathVerify):
    """Math-Verify's reward configuration: boxed answers only, nothing guessed or repaired."""

    name = "math_verify_strict"
    version = "1"

    def __init__(self, *, require_boxed: bool = True, **options) -> None:
        super().__init__(**options)
        self.gold_targets = DEFAULT_TARGETS
        self.prediction_targets = REWARD_PREDICTION_TARGETS
        self.prediction_extraction_mode = "first_match"
        self.require_boxed = require_boxed


def boxed_window(text: str) -> int | None:
    """Where the part of ``text`` that holds every boxed answer starts: the line of the first
    ``\\boxed``, or the display block (``$$``, ``\\[``) left open before it. None without a box."""
    first_box = text.find("\\boxed")
    if first_box < 0:
        return None
    start = text.rfind("\n", 0, first_box) + 1
    if text.count("$$", 0, first_box) % 2:  # an odd number of $$: the last one opens a block
        start = min(start, text.rfind("$$", 0, first_box))
    opened = text.rfind("\\[", 0, first_box)
    if opened >= 0 and text.find("\\]", opened, first_box) < 0:
        start = min(start, opened)
    return start


def _part_count(value: object) -> int:
    """How many separate answers a parsed value holds (a set or tuple of them, x = {1, 2})."""
    if isinstance(value, sympy.Eq):
        value = value.rhs
    if isinstance(value, sympy.FiniteSet | LatexFiniteSet | sympy.Tuple):
        return len(value.args)
    return 1


def _listed_part_count(gold: str) -> int:
    """How many comma-separated answers the gold text lists at the top level."""
    text = _THOUSANDS_SEPARATOR.sub("", gold)
    previous = None
    while previous != text:  # drop bracketed groups, innermost first
        previous, text = text, _BRACKETED.sub("", text)
    return len([part for part in _PART_SEPARATOR.split(text) if part.strip(" $.")]) or 1


def _short_text(value: object) -> str:
    try:
        return str(value)[:500] if value is not None else ""
    except ValueError:  # an integer over 4300 digits
        return ""


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def agrees_with_case(case: dict) -> bool:
    """Whether math-verify, run under a conformance case's config, gives its expected result.

    Cases come from /work/shared/grading-cases (see the README there): ``compare_strings``
    is Math-Verify's own test helper, ``parse_default`` the library defaults on both sides,
    ``sympy_expr_eq`` SymPy source compared directly, ``parse_extraction`` what parse()
    extracts, and ``lighteval_compare_strings`` lighteval's extractive match approximated with
    math-verify's own configs.
    """
    config = case.get("config") or {}
    mode = config.get("mode", "parse_default")
    if mode == "parse_extraction":
        return _extraction_agrees(case, config)
    if mode == "sympy_expr_eq":
        namespace = {"__builtins__": {}, "sympy": sympy}
        gold = eval(case["gold"], namespace)  # trusted, read-only conformance data
        pred = eval(case["output"], namespace)
        verdict = sympy_expr_eq(gold, pred, config["float_rounding"], config["numeric_precision"])
        return verdict == (case["expected"] == "correct")
    evaluator = _evaluator_for(config)
    evaluation = evaluator.evaluate(case["gold"], case["output"])
    said_correct = evaluation.verdict is Verdict.CORRECT
    return said_correct == (case["expected"] == "correct")


def _evaluator_for(config: dict) -> MathVerify:
    mode = config.get("mode", "parse_default")
    if mode == "parse_default":
        return MathVerify(wrap_gold=False, wrap_bare_output=False)
    if mode == "compare_strings":
        return MathVerify(
            match_types=config.get("match_types", ("latex", "expr")),
            boxed_match_priority=0,
            float_rounding=config.get("precision", 6),
            strict=config.get("strict", True),
            allow_set_relation_comp=config.get("allow_set_relation_comp", False),
            wrap_gold=False,
            wrap_bare_output=False,
        )
    if mode == "lighteval_compare_strings":
        evaluator = MathVerify(
            float_rounding=config.get("precision", 6), wrap_gold=False, wrap_bare_output=False
        )
        targets: list[ExtractionTarget] = []
        for match_type in config.get("match_types", ("latex", "expr")):
            if match_type == "latex":
                targets.append(LatexExtractionConfig())
            elif match_type == "expr":
                targets.append(ExprExtractionConfig())
            else:  # letters: lighteval's IndicesExtractionConfig, read as literal strings
                targets.append(StringExtractionConfig(strings=tuple("ABCDE")))
        evaluator.gold_targets = evaluator.prediction_targets = tuple(targets)
        return evaluator
    raise ValueError(f"unknown conformance mode {mode!r}")


def _extraction_agrees(case: dict, config: dict) -> bool:
    options = {
        key: tuple(value) if isinstance(value, list) else value
        for key, value in config["extraction_config"].items()
        if not key.startswith("__")
    }
    extracted = parse(case["output"], [StringExtractionConfig(**options)], parsing_timeout=None)
    return extracted == case["expected_extraction"]
