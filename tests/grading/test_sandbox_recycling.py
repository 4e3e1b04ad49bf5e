"""Grading children do not live for ever (RELIABILITY B9): a child is replaced once it has
graded its allowance of rows or its memory passes the recycling mark, so a worker that grades
for days keeps a bounded footprint. Real children, real evaluators; memory, not time, decides.
"""

from __future__ import annotations

import psutil
import pytest

from grading.sandbox import SandboxPool
from grading.types import Sample, Verdict

LIMIT = 5.0


def ordinary_row(n: int) -> Sample:
    """Row ``n`` of an endless supply of distinct, ordinary rows (fractions, factorisations,
    surds and plain integers), as a long run feeds a worker."""
    a, b = n % 97 + 2, n % 13 + 3
    gold, output = [
        (f"\\frac{{{a}}}{{{b}}}", f"So the answer is $\\boxed{{\\frac{{{2 * a}}}{{{2 * b}}}}}$."),
        (f"x^2-{a * a}", f"Thus $\\boxed{{(x-{a})(x+{a})}}$."),
        (f"\\sqrt{{{a * a * b}}}", f"We get $\\boxed{{{a}\\sqrt{{{b}}}}}$."),
        (f"{a * b}", f"The product is {a} \\times {b} = {a * b}. The answer is {a * b}."),
    ][n % 4]
    return Sample(gold, output)


def rss_mb(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / 2**20


def test_a_child_is_replaced_once_it_has_graded_its_allowance_of_rows():
    with SandboxPool(1, timeout=LIMIT, max_rows_per_child=3) as pool:
        # Given a child that has graded two rows, one call each
        pool.grade([ordinary_row(0)])
        [first] = pool.child_pids()
        pool.grade([ordinary_row(1)])
        assert pool.child_pids() == [first]

        # When it grades its third row
        [third] = pool.grade([ordinary_row(2)])

        # Then the row is graded, and the child is ended as soon as it is idle
        assert third.auto_verdict is Verdict.CORRECT
        assert pool.child_pids() == []
        assert not psutil.pid_exists(first)

        # and the next row is graded by a fresh child
        [fourth] = pool.grade([ordinary_row(3)])
        assert fourth.auto_verdict is Verdict.CORRECT
        [second] = pool.child_pids()
        assert second != first and pool.children_started == 2


def test_a_child_past_its_allowance_in_mid_call_finishes_the_call_and_is_then_replaced():
    # Given a pool whose children may grade 3 rows
    with SandboxPool(1, timeout=LIMIT, max_rows_per_child=3) as pool:
        # When one call sends a child 7 rows (it never goes idle in between)
        graded = pool.grade([ordinary_row(n) for n in range(7)])

        # Then every row is graded, and the child is replaced once the call is over
        assert [g.auto_verdict for g in graded] == [Verdict.CORRECT] * 7
        assert pool.child_pids() == [] and pool.children_started == 1


def test_a_child_whose_memory_passes_the_recycling_mark_is_replaced():
    # Given a pool whose recycling mark is below what any grading child holds
    with SandboxPool(1, timeout=LIMIT, recycle_rss_mb=1) as pool:
        # When it grades two calls
        first = pool.grade([ordinary_row(0)])
        second = pool.grade([ordinary_row(1)])

        # Then each call's child was replaced when it went idle (the default mark keeps the
        # same child: tests/grading/test_sandbox.py::test_children_outlive_one_call_and_are_reused)
        assert [first[0].auto_verdict, second[0].auto_verdict] == [Verdict.CORRECT] * 2
        assert pool.child_pids() == [] and pool.children_started == 2


def test_the_default_recycling_mark_is_60_percent_of_the_memory_limit():
    with SandboxPool(1, memory_mb=1000) as pool:
        assert pool.recycle_rss_mb == 600


@pytest.mark.slow
def test_grading_children_s_memory_stays_under_the_recycling_mark_over_a_thousand_rows():
    # A soak: 1,000 distinct rows in calls of 25 (a chunk's batches), the children's resident
    # memory sampled after every call. Each row leaves a little behind in SymPy's caches (about
    # 7 MB per 1,000 rows here), so a child that were never replaced would pass a mark set a
    # few MB above a fresh child's footprint.
    with SandboxPool(1, timeout=LIMIT, max_rows_per_child=10**9) as pool:
        # Given a recycling mark 3 MB above what a fresh child holds after its first call
        pool.grade([ordinary_row(n) for n in range(25)])
        [fresh] = pool.child_pids()
        pool.recycle_rss_mb = rss_mb(fresh) + 3

        # When the pool grades a thousand more rows
        samples = []
        for call in range(1, 41):
            graded = pool.grade([ordinary_row(call * 25 + n) for n in range(25)])
            assert all(g.auto_verdict is Verdict.CORRECT for g in graded)
            samples += [rss_mb(pid) for pid in pool.child_pids()]

        # Then no child was ever found above the mark, because children that passed it were
        # replaced (by memory: the row allowance is out of reach)
        assert samples and max(samples) <= pool.recycle_rss_mb
        assert pool.children_started >= 2
