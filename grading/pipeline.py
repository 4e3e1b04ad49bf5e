"""One sample through the engine: classify the gold, run the evaluators, detect doubt, decide.

``grade_sample`` is the one definition of these steps: the sandbox child calls it for every
row (streaming each evaluation to its parent through ``on_evaluation``), and callers that need
no time or memory bound (tests) call it directly.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterator, Sequence

from grading import answer_type, detectors, jury
from grading.evaluators import Evaluator
from grading.types import Evaluation, GradedSample, Sample, Status

# The detail of an evaluation that raised MemoryError; the sandbox replaces that child.
OUT_OF_MEMORY_DETAIL = "ran out of memory"
# String-only evaluators never hang, so they run first: a row stopped at its time limit
# still shows their verdicts.
STRING_EVALUATORS = frozenset({"exact", "choice"})


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
    """Each evaluator's result as it finishes, string evaluators first."""
    for evaluator in sorted(evaluators, key=lambda e: e.name not in STRING_EVALUATORS):
        yield run_evaluator(evaluator, sample)


def grade_sample(
    sample: Sample,
    evaluators: Sequence[Evaluator],
    policy: jury.JuryPolicy = jury.DEFAULT_POLICY,
    *,
    on_evaluation: Callable[[Evaluation], None] | None = None,
) -> GradedSample:
    """Grade one sample in this process; ``on_evaluation`` sees each evaluation as it finishes.

    The result lists the evaluations in the order of ``evaluators``, whatever order they ran in.
    """
    kind = answer_type.classify(sample.gold)
    finished: dict[str, Evaluation] = {}
    for evaluation in evaluate_all(sample, evaluators):
        finished[evaluation.evaluator] = evaluation
        if on_evaluation is not None:
            on_evaluation(evaluation)
    evaluations = tuple(finished[e.name] for e in evaluators)
    findings = detectors.detect(sample, kind, evaluations)
    return jury.decide(kind, evaluations, findings, policy)
