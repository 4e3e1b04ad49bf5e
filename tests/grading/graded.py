"""One sample graded in this process by every default evaluator, the detectors and the jury:
what the tests that pin verdicts and review reasons call."""

from grading.evaluators import build_evaluators
from grading.pipeline import grade_sample
from grading.types import GradedSample, Sample

EVALUATORS = build_evaluators()


def grade(gold: str, output: str, problem: str = "", finish_reason: str = "") -> GradedSample:
    return grade_sample(Sample(gold, output, finish_reason, problem), EVALUATORS)


def reasons(graded: GradedSample) -> set[str]:
    """The codes of the reasons the row was given."""
    return {r.code for r in graded.review_reasons}
