"""One sample through the engine: classify the gold, run the evaluators, detect doubt, decide.

These are the steps the sandbox child runs; ``grade_sample`` composes them for callers that
need no time or memory bound (tests, the conformance runner).
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator, Sequence

from grading import answer_type, detectors, jury
from grading.evaluators import Evaluator
from grading.types import Evaluation, GradedSample, Sample, Status

# The detail of an evaluation that raised MemoryError; the sandbox replaces that child.
OUT_OF_MEMORY_DETAIL = "ran out of memory"


def run_evaluator(evaluator: Evaluator, sample: Sample) -> Evaluation:
    """Run one evaluator, turning any exception into an ERROR evaluation."""
    started = time.perf_counter()
    try:
        return evaluator.evaluate(sample.gold, sample.output)
    except MemoryError:
        detail = OUT_OF_MEMORY_DETAIL
    except RecursionError:
        detail = "expression nested too deeply"
    except Exception as exc:  # an evaluator bug must cost one row, not the run
        detail = f"{type(exc).__name__}: {exc}"[:500]
        traceback.clear_frames(exc.__traceback__)
    return Evaluation(
        evaluator=evaluator.name,
        version=evaluator.version,
        status=Status.ERROR,
        ms=(time.perf_counter() - started) * 1000,
        detail=detail,
    )


def evaluate_all(sample: Sample, evaluators: Sequence[Evaluator]) -> Iterator[Evaluation]:
    for evaluator in evaluators:
        yield run_evaluator(evaluator, sample)


def grade_sample(
    sample: Sample,
    evaluators: Sequence[Evaluator],
    policy: jury.JuryPolicy = jury.DEFAULT_POLICY,
) -> GradedSample:
    """Grade one sample in this process, with no sandbox."""
    kind = answer_type.classify(sample.gold)
    evaluations = tuple(evaluate_all(sample, evaluators))
    findings = detectors.detect(sample, kind, evaluations)
    return jury.decide(kind, evaluations, findings, policy)
