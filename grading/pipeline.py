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
from grading.candidates import Candidates, find_candidates
from grading.continuation import without_continuation
from grading.evaluators import ContextEvaluator, Evaluator
from grading.gold import with_option_letter
from grading.types import Evaluation, GradedSample, Sample, Status

# The detail of an evaluation that raised MemoryError; the sandbox replaces that child.
OUT_OF_MEMORY_DETAIL = "ran out of memory"
# String-only evaluators never hang, so they run first: a row stopped at its time limit
# still shows their verdicts.
STRING_EVALUATORS = frozenset({"exact", "choice"})


def run_evaluator(
    evaluator: Evaluator,
    sample: Sample,
    candidates: Candidates | None = None,
    earlier: tuple[Evaluation, ...] = (),
) -> Evaluation:
    """Run one evaluator, turning any exception into an ERROR evaluation.

    An evaluator with ``evaluate_in_context`` (the jury's own ``answer_check``) also reads the
    output's candidate answers and the evaluations that ran before it.
    """
    started = time.perf_counter()
    try:
        if _reads_context(evaluator):
            if candidates is None:
                candidates = find_candidates(sample.output, sample.problem)
            return evaluator.evaluate_in_context(sample, candidates, earlier)
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


def evaluate_all(
    sample: Sample, evaluators: Sequence[Evaluator], candidates: Candidates | None = None
) -> Iterator[Evaluation]:
    """Each evaluator's result as it finishes: string evaluators first, so a row stopped at
    its time limit still shows them, and evaluators that read the others' results last."""
    if candidates is None:
        candidates = find_candidates(sample.output, sample.problem)
    finished: list[Evaluation] = []
    for evaluator in sorted(evaluators, key=_run_order):
        evaluation = run_evaluator(evaluator, sample, candidates, tuple(finished))
        finished.append(evaluation)
        yield evaluation


def grade_sample(
    sample: Sample,
    evaluators: Sequence[Evaluator],
    policy: jury.JuryPolicy = jury.DEFAULT_POLICY,
    *,
    on_evaluation: Callable[[Evaluation], None] | None = None,
) -> GradedSample:
    """Grade one sample in this process; ``on_evaluation`` sees each evaluation as it finishes.
    The output is read up to the first turn the model invented after its reply, and a gold that
    names an option ("b", "\\textbf{(C) }12") is read as the option's letter.

    The result lists the evaluations in the order of ``evaluators``, whatever order they ran in.
    """
    sample = with_option_letter(without_continuation(sample))
    kind = answer_type.classify(sample.gold)
    candidates = find_candidates(sample.output, sample.problem)
    finished: dict[str, Evaluation] = {}
    for evaluation in evaluate_all(sample, evaluators, candidates):
        finished[evaluation.evaluator] = evaluation
        if on_evaluation is not None:
            on_evaluation(evaluation)
    evaluations = tuple(finished[e.name] for e in evaluators)
    findings = detectors.detect(sample, kind, candidates)
    return jury.decide(kind, evaluations, findings, policy)


def _reads_context(evaluator: Evaluator | ContextEvaluator) -> bool:
    # Not isinstance: a runtime-checkable Protocol check costs more than a row's regexes.
    return hasattr(evaluator, "evaluate_in_context")


def _run_order(evaluator: Evaluator) -> int:
    if _reads_context(evaluator):
        return 2
    return 0 if evaluator.name in STRING_EVALUATORS else 1
