"""Which prediction a row shows, and the key that groups rows with the same gold and
prediction, so one human ruling ("0.5 is right for \\frac{1}{2}") can decide them all."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Protocol, TypeVar

from grading.evaluators.exact import normalize
from grading.types import Status


class ExtractedAnswer(Protocol):
    """What this module reads of an evaluation: grading.types.Evaluation or a stored one."""

    evaluator: str
    status: str
    extracted: str
    extracted_latex: str


E = TypeVar("E", bound=ExtractedAnswer)


def shown_prediction(evaluations: Iterable[E]) -> E | None:
    """The evaluation whose prediction a reviewer is shown: by evaluator name, the first that
    parsed an answer, else the first that extracted anything, else the first."""
    ordered = sorted(
        evaluations,
        key=lambda e: (e.status != Status.OK, not e.extracted_latex, not e.extracted, e.evaluator),
    )
    return ordered[0] if ordered else None


def pair_key(gold: str, prediction: str) -> str:
    """A fixed-length key shared by rows whose gold and prediction normalise alike (MATH's
    string normalisation); "" when there is no prediction, as rows without an answer differ
    in ways a ruling on one cannot see."""
    if not prediction.strip():
        return ""
    pair = f"{normalize(gold.strip())}\x00{normalize(prediction.strip())}"
    return hashlib.sha256(pair.encode("utf-8", "surrogatepass")).hexdigest()


def pair_key_of(gold: str, evaluations: Iterable[ExtractedAnswer]) -> str:
    """``pair_key`` of the gold and the prediction a reviewer is shown."""
    shown = shown_prediction(evaluations)
    return pair_key(gold, shown.extracted_latex or shown.extracted) if shown else ""
