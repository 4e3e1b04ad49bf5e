"""Normalised string equality, in the spirit of the original MATH benchmark's ``is_equiv``.

The answer is normalised the way hendrycks/math's ``strip_string`` does (spaces, \\left and
\\right, units, \\dfrac, degrees, dollars, percent, leading zeros, malformed fractions and
roots, a short "x =" prefix, 0.5) and compared character by character: no mathematics, so
``\\frac{1}{2}`` equals 0.5 but not 2/4.
"""

from __future__ import annotations

import re
import time

from grading.evaluators.extraction import (
    MAX_OUTPUT_CHARS,
    is_bare_answer,
    last_command_argument,
    output_tail,
    strip_math_delimiters,
    text_after_marker,
)
from grading.types import Evaluation, Status, Verdict

_TRAILING_UNITS = re.compile(r"(?<=\S)\s*\\(?:text|mbox|mathrm)\{\s*[^{}]*\}\s*$")
_WHOLE_TEXT = re.compile(r"^\\(?:text|mbox|mathrm|textbf)\{([^{}]*)\}$")
_UNBRACED_SQRT = re.compile(r"\\sqrt(?=[^{\s\[])(\\?[a-zA-Z]+|\S)")
_UNBRACED_FRAC = re.compile(r"\\frac(?:\{([^{}]*)\}|([^{\s]))(?:\{([^{}]*)\}|([^{\s]))")
_SIMPLE_SLASH = re.compile(r"^(-?\d+)/(\d+)$")
_SHORT_PREFIX = re.compile(r"^[^=]{1,2}=(?!=)")


def normalize(answer: str) -> str:
    """``answer`` in the canonical form two equal MATH answers share."""
    text = answer.replace("\n", "").replace("\\!", "")
    text = text.replace("\\\\", "\\")
    text = text.replace("tfrac", "frac").replace("dfrac", "frac")
    text = text.replace("\\left", "").replace("\\right", "")
    text = text.replace("^{\\circ}", "").replace("^\\circ", "")
    text = text.replace("\\$", "").replace("$", "")
    text = _TRAILING_UNITS.sub("", text)
    whole_text = _WHOLE_TEXT.match(text.strip())
    if whole_text:
        text = whole_text.group(1)
    text = text.replace("\\%", "").replace("%", "")
    text = text.replace(" .", " 0.").replace("{.", "{0.")
    if text.startswith("."):
        text = "0" + text
    if _SHORT_PREFIX.match(text):
        text = text.split("=", 1)[1]
    text = _UNBRACED_SQRT.sub(r"\\sqrt{\1}", text)
    text = text.replace(" ", "")
    text = _UNBRACED_FRAC.sub(_braced_fraction, text)
    if text == "0.5":
        text = "\\frac{1}{2}"
    slash = _SIMPLE_SLASH.match(text)
    if slash:
        text = f"\\frac{{{slash.group(1)}}}{{{slash.group(2)}}}"
    return text


def _braced_fraction(match: re.Match) -> str:
    numerator = match.group(1) if match.group(1) is not None else match.group(2)
    denominator = match.group(3) if match.group(3) is not None else match.group(4)
    return f"\\frac{{{numerator}}}{{{denominator}}}"


def final_answer(output: str, *, whole_if_unmarked: bool = True) -> str:
    """The last \\boxed{...}, else the text after "The answer is"/"####", else the whole text
    (a gold, a bare answer) or, with ``whole_if_unmarked`` off, nothing."""
    boxed = last_command_argument(output)
    if boxed is not None:
        return boxed
    marked = text_after_marker(output)
    if marked is not None:
        return strip_math_delimiters(marked)
    if whole_if_unmarked or is_bare_answer(output):
        return strip_math_delimiters(output)
    return ""


class ExactMatch:
    """Normalised string equality of the final answer with the gold."""

    name = "exact"
    version = "1"

    def __init__(self, *, max_output_chars: int = MAX_OUTPUT_CHARS) -> None:
        self.max_output_chars = max_output_chars

    def evaluate(self, gold: str, output: str) -> Evaluation:
        started = time.perf_counter()
        text, cut = output_tail(output, self.max_output_chars)
        # Like MATH's own grader, an output with no box and no answer marker states nothing
        # to compare, unless it is a bare answer.
        answer = final_answer(text, whole_if_unmarked=False)
        gold_answer = final_answer(gold)
        fields: dict = {
            "extracted": answer,
            "extracted_latex": answer,
            "gold_latex": gold_answer,
            "detail": f"graded on the last {self.max_output_chars} characters" if cut else "",
        }
        if not answer.strip():
            fields["status"] = Status.NO_ANSWER
        else:
            same = normalize(answer) == normalize(gold_answer)
            fields["status"] = Status.OK
            fields["verdict"] = Verdict.CORRECT if same else Verdict.INCORRECT
        return Evaluation(
            evaluator=self.name,
            version=self.version,
            ms=(time.perf_counter() - started) * 1000,
            **fields,
        )
