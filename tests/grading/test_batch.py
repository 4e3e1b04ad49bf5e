"""grade_many: input order, each distinct sample graded once, progress, a reusable pool."""

from __future__ import annotations

import threading

import pytest

from grading.batch import grade_many, shared_pool
from grading.evaluators import UnknownEvaluatorError
from grading.sandbox import SandboxPool
from grading.types import Sample, Status, Verdict

EVALUATORS = ("math_verify", "exact")


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(2, timeout=5) as shared:
        yield shared


# Three problems, eight outputs each, many of them the same answer, as in a real run.
PROBLEMS = [
    ("$12$", ["12", "12", "13", "12", "12", "12.0", "12", "13"]),
    ("$\\frac{1}{2}$", ["0.5", "\\frac12", "0.5", "1/2", "0.5", "2", "0.5", "0.5"]),
    ("$x^2-1$", ["(x-1)(x+1)", "x^2-1", "x^2-1", "x^2+1", "x^2-1", "x^2-1", "x^2-1", "1"]),
]
WRONG_ANSWERS = {"13", "2", "x^2+1", "1"}


def eight_samples_per_problem() -> list[Sample]:
    return [
        Sample(gold, f"So the answer is $\\boxed{{{answer}}}$.")
        for gold, answers in PROBLEMS
        for answer in answers
    ]


def expected_verdicts() -> list[Verdict]:
    return [
        Verdict.INCORRECT if answer in WRONG_ANSWERS else Verdict.CORRECT
        for _, answers in PROBLEMS
        for answer in answers
    ]


def test_results_come_back_in_input_order_with_the_right_verdicts(pool):
    # Given rows of several problems, in reverse order so that golds interleave in the children
    samples = eight_samples_per_problem()[::-1]

    # When they are graded in two children
    graded = grade_many(samples, evaluators=EVALUATORS, pool=pool)

    # Then each result belongs to its own row
    assert [g.evaluation("math_verify").verdict for g in graded] == expected_verdicts()[::-1]


def test_each_distinct_sample_is_graded_once(pool):
    # Given 24 rows of which 11 are distinct
    samples = eight_samples_per_problem()
    before = pool.rows_graded

    # When they are graded
    graded = grade_many(samples, evaluators=EVALUATORS, pool=pool)

    # Then only the distinct rows reached the children, and duplicates share their result
    assert pool.rows_graded - before == len(set(samples)) == 11
    assert graded[0] == graded[1]
    assert len(graded) == 24


def test_a_different_finish_reason_is_a_different_sample(pool):
    # Given the same output twice, once cut off by the length limit
    complete = Sample("$12$", "So $\\boxed{12}$", finish_reason="stop")
    cut_off = Sample("$12$", "So $\\boxed{12}$", finish_reason="length")
    before = pool.rows_graded

    # When both are graded
    grade_many([complete, cut_off], evaluators=EVALUATORS, pool=pool)

    # Then both reached a child
    assert pool.rows_graded - before == 2


def test_progress_counts_every_input_row_up_to_the_total(pool):
    # Given rows with duplicates and a progress callback
    samples = eight_samples_per_problem()
    calls = []

    # When they are graded
    grade_many(
        samples, evaluators=EVALUATORS, pool=pool, progress=lambda d, t: calls.append((d, t))
    )

    # Then progress rose to the number of input rows, duplicates included
    assert calls[-1] == (24, 24)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert {total for _, total in calls} == {24}


def test_a_slow_row_costs_only_itself_in_a_batch(pool):
    # Given a batch in which one row never finishes within its limit
    samples = eight_samples_per_problem()[:8]
    samples.insert(3, Sample("$1.3^{6472416997}$", "$\\boxed{1.3^{6472416997} + 10^{-10^{9}}}$"))

    # When the batch is graded with a 2-second limit
    graded = grade_many(samples, evaluators=EVALUATORS, pool=pool, timeout=2)

    # Then that row timed out and every other row was graded
    assert graded[3].evaluation("math_verify").status is Status.TIMEOUT
    assert graded[3].needs_review
    others = graded[:3] + graded[4:]
    assert all(g.evaluation("math_verify").status is Status.OK for g in others)


def test_without_a_pool_grade_many_starts_and_closes_its_own_children():
    # Given no pool
    samples = [Sample("$12$", "$\\boxed{12}$"), Sample("$3$", "$\\boxed{4}$")]

    # When rows are graded
    graded = grade_many(samples, evaluators=EVALUATORS, workers=1, timeout=5)

    # Then they are graded
    assert [g.auto_verdict for g in graded] == [Verdict.CORRECT, Verdict.INCORRECT]


def test_an_unknown_evaluator_is_refused_before_any_work():
    with pytest.raises(UnknownEvaluatorError, match="available: answer_check, math_verify"):
        grade_many([Sample("$1$", "$1$")], evaluators=["math_verify", "telepathy"])


def test_the_shared_pool_is_reused_across_calls_and_threads():
    # Given the process-wide pool, as a Celery task would use it
    pool = shared_pool(1, timeout=5)
    grade_many([Sample("$1$", "$\\boxed{1}$")], evaluators=EVALUATORS, pool=pool)
    started = pool.children_started
    results = []

    # When another call, from another thread, asks for the same pool
    def task():
        same = shared_pool(1, timeout=5)
        results.extend(
            grade_many([Sample("$2$", "$\\boxed{2}$")], evaluators=EVALUATORS, pool=same)
        )

    thread = threading.Thread(target=task)
    thread.start()
    thread.join(timeout=120)

    # Then no child was started for it
    assert shared_pool(1, timeout=5) is pool
    assert pool.children_started == started
    assert results[0].auto_verdict is Verdict.CORRECT


def test_text_with_a_lone_surrogate_is_graded_and_comes_back_intact(pool):
    # Given outputs holding a lone surrogate, as undecodable bytes read with surrogateescape
    around = Sample("$7$", "Bytes \udc80 then $\\boxed{7}$ and \udcff here")
    inside = Sample("$7$", "So the answer is \\boxed{7\udc80}")

    # When they are graded in a child
    graded = grade_many([around, inside], evaluators=EVALUATORS, pool=pool)

    # Then they are graded like any other row, and the extracted text keeps the surrogate
    assert graded[0].auto_verdict is Verdict.CORRECT
    assert graded[0].evaluation("math_verify").status is Status.OK
    assert "\udc80" in graded[1].evaluation("exact").extracted
