"""The sandbox: every row ends within its wall-clock limit, and a bad row costs only itself.

These start real child processes and grade through the real evaluators; no mocks.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass

import psutil
import pytest

from grading.sandbox import SandboxPool, row_deadline
from grading.sandbox_run import GradingStopped
from grading.types import Sample, Status, Verdict

LIMIT = 2.0  # seconds per row in these tests; the product default is 5
MEMORY_TEST_WALL_LIMIT = 300.0  # the out-of-memory test must never end by time
NORMAL = Sample(gold="$42$", output="Adding them gives $\\boxed{42}$.")


@pytest.fixture(scope="module")
def pool():
    with SandboxPool(1, timeout=LIMIT) as shared:
        yield shared


@dataclass(frozen=True)
class Pathological:
    name: str
    sample: Sample
    truth: Verdict | None  # the verdict a row not sent to review must have; None: either


FIVE_THOUSAND_DIGITS = "".join(str((7 * i * i + 3) % 10) for i in range(5000)).lstrip("0")

PATHOLOGICAL = [
    Pathological(
        "sine of a power tower",
        Sample("$\\sin(10^{10^{10}})$", "So $\\boxed{\\sin(10^{10^{10}} + 2\\pi)}$"),
        Verdict.CORRECT,
    ),
    Pathological(
        "huge float power",
        Sample("$1.3^{6472416997}$", "Hence $\\boxed{\\left(\\frac{13}{10}\\right)^{6472416997}}$"),
        Verdict.CORRECT,
    ),
    Pathological(
        "power tower against nested log",
        Sample("$2^{2^{2^{2^{2^5}}}}$", "The answer is $\\boxed{\\log(\\log(\\log(\\log(x))))}$"),
        Verdict.INCORRECT,
    ),
    Pathological(
        "integer power tower against its float twin",
        Sample("$10^{10^{10}}$", "The answer is $\\boxed{10.0^{10^{10}}}$"),
        Verdict.CORRECT,
    ),
    Pathological(
        "interval with a doubly tiny exponent",
        Sample("$[1,+\\infty)$", "The range is $\\boxed{[2^{1/2^{1000}},\\infty)}$"),
        None,  # 2^(1/2^1000) > 1 exactly, equal to 1 at any tolerance
    ),
    Pathological(
        "400 kB output",
        Sample("$7$", "We add: " + "1+" * 200_000 + "1"),
        Verdict.INCORRECT,
    ),
    Pathological(
        "3,000 nested braces",
        Sample("$1$", "$\\boxed{" + "{" * 3000 + "1" + "}" * 3000 + "}$"),
        Verdict.CORRECT,
    ),
    Pathological(
        "5,000-digit integer",
        Sample(f"${FIVE_THOUSAND_DIGITS}$", f"The number is $\\boxed{{{FIVE_THOUSAND_DIGITS}}}$."),
        Verdict.CORRECT,
    ),
]


@pytest.mark.parametrize("case", PATHOLOGICAL, ids=lambda case: case.name)
def test_pathological_row_ends_within_its_limit_and_the_next_row_is_graded_normally(pool, case):
    # Given a pathological row followed by an ordinary one
    started_before = pool.children_started

    # When both are graded in one call
    bad, normal = pool.grade([case.sample, NORMAL])

    # Then a time-out or crash gave no verdict and sent the row to review ...
    stopped = [e for e in bad.evaluations if e.status in (Status.TIMEOUT, Status.ERROR)]
    assert all(e.verdict is None for e in stopped)
    if stopped:
        assert bad.needs_review
    # ... so a row decided without review has the right verdict ...
    if not bad.needs_review and case.truth is not None:
        assert bad.auto_verdict is case.truth
    # ... a child that was stopped was replaced ...
    if any(e.status is Status.TIMEOUT for e in bad.evaluations):
        assert pool.children_started > started_before
    # ... and the next row was graded normally.
    assert normal.auto_verdict is Verdict.CORRECT
    assert normal.evaluation("math_verify").status is Status.OK


@pytest.mark.parametrize("case", PATHOLOGICAL[:4], ids=lambda case: case.name)
def test_rows_graded_just_before_a_row_that_hangs_keep_their_own_verdicts(pool, case):
    # Given ordinary rows sent in one batch just before a row that holds the interpreter
    # lock until its limit, so the child may never get to send their answers
    ordinary = [Sample(f"${n}$", f"So the answer is $\\boxed{{{n}}}$.") for n in range(3, 7)]

    # When they are graded together
    *before, _ = pool.grade([*ordinary, case.sample])

    # Then every ordinary row has its own verdict: none is charged with the next row's time-out
    for graded in before:
        assert graded.auto_verdict is Verdict.CORRECT
        assert not graded.needs_review
        assert all(e.status is not Status.TIMEOUT for e in graded.evaluations)


def pmatrix(size: int) -> str:
    """A ``size`` × ``size`` pmatrix of digits (300 × 300 is 360 kB of LaTeX)."""
    rows = (" & ".join(str((i * size + j) % 10) for j in range(size)) for i in range(size))
    return "\\begin{pmatrix}" + " \\\\ ".join(rows) + "\\end{pmatrix}"


def test_a_300_by_300_matrix_ends_as_a_parse_error_or_at_the_limit_never_as_a_verdict(pool):
    # Given a 300 × 300 pmatrix as a row's gold (math-verify alone needs over a minute to
    # parse it), and as working in an output that then boxes its answer
    matrix = pmatrix(300)
    as_gold = Sample(f"${matrix}$", f"The matrix is $\\boxed{{{matrix}}}$.")
    in_output = Sample("$7$", f"We compute $$A = {matrix}$$ so the answer is $\\boxed{{7}}$.")

    # When both are graded, followed by an ordinary row
    gold_row, output_row, normal = pool.grade([as_gold, in_output, NORMAL])

    # Then the matrix gold is refused as unparseable or stopped at the row's limit: math-verify
    # gives no verdict, and the row goes to a person
    math_verify = gold_row.evaluation("math_verify")
    assert math_verify.status in (Status.PARSE_ERROR, Status.TIMEOUT)
    assert math_verify.verdict is None
    assert gold_row.needs_review
    # and the output is graded on its tail, where the boxed answer is
    assert output_row.auto_verdict is Verdict.CORRECT
    assert "last 20000 characters" in output_row.evaluation("math_verify").detail
    # and the next row is graded normally
    assert normal.auto_verdict is Verdict.CORRECT


def test_a_row_stuck_in_big_integer_arithmetic_is_killed_at_the_wall_limit(pool):
    # Given a row whose comparison runs for minutes inside one big-integer operation, where
    # math-verify's SIGALRM cannot interrupt it
    stuck = Sample("$1.3^{6472416997}$", "$\\boxed{1.3^{6472416997} + 10^{-10^{9}}}$")
    pid_before = pool.child_pids()

    # When it is graded with a 2-second limit
    [graded] = pool.grade([stuck], evaluators=["math_verify"])

    # Then the parent killed the child at the limit and the row timed out, not "incorrect"
    evaluation = graded.evaluation("math_verify")
    assert evaluation.status is Status.TIMEOUT
    assert evaluation.verdict is None
    assert graded.needs_review
    assert "timeout" in {reason.code for reason in graded.review_reasons}
    assert not any(psutil.pid_exists(pid) for pid in pid_before if pid not in pool.child_pids())


def test_a_row_killed_at_its_limit_keeps_the_evaluations_that_finished_before(pool):
    # Given a stuck row graded by a string evaluator, which runs first, and math-verify
    stuck = Sample("$1.3^{6472416997}$", "$\\boxed{1.3^{6472416997} + 10^{-10^{9}}}$")

    # When it is graded and killed at its limit
    [graded] = pool.grade([stuck], evaluators=["math_verify", "exact"])

    # Then the string evaluator's verdict arrived before the kill and was kept
    assert graded.evaluation("math_verify").status is Status.TIMEOUT
    exact = graded.evaluation("exact")
    assert exact.status is Status.OK and exact.verdict is Verdict.INCORRECT
    assert [e.evaluator for e in graded.evaluations] == ["math_verify", "exact"]


def test_grading_from_a_thread_that_is_not_the_main_thread_works(pool):
    # Given a thread other than the main one (a threaded Celery pool, a web server)
    results = []

    def grade_in_thread():
        results.extend(pool.grade([NORMAL, Sample("$\\frac{1}{2}$", "It is $\\boxed{0.5}$")]))

    # When it grades rows
    thread = threading.Thread(target=grade_in_thread)
    thread.start()
    thread.join(timeout=120)

    # Then the rows are graded as in the main thread
    assert [r.auto_verdict for r in results] == [Verdict.CORRECT, Verdict.CORRECT]


def test_a_row_that_runs_out_of_memory_ends_as_an_error_and_its_child_is_replaced():
    # Given a child limited to 260 MiB of address space, of which Python, SymPy and the
    # evaluators take about 140, and a row bigger than the rest. The wall limit is far above
    # what sending and reading 200 MB takes even on a loaded machine (under load the 2 s
    # limit made it end as a time-out 3 times of 3): only memory can end this row.
    with SandboxPool(1, timeout=MEMORY_TEST_WALL_LIMIT, memory_mb=260) as small:
        small.grade([NORMAL])
        [first_pid] = small.child_pids()
        huge = Sample("$1$", "$\\boxed{1}$ " + "x" * 200_000_000)

        # When the row is graded, followed by an ordinary one
        bad, normal = small.grade([huge, NORMAL])

        # Then the row is an error, never a verdict, and the next row has a fresh child
        assert {e.status for e in bad.evaluations} == {Status.ERROR}
        assert "out of memory" in bad.evaluations[0].detail
        assert bad.needs_review
        assert normal.auto_verdict is Verdict.CORRECT
        assert small.child_pids() != [first_pid]
        assert not psutil.pid_exists(first_pid)


def test_a_child_that_dies_mid_row_is_replaced_and_the_row_is_not_retried(pool):
    # Given a child that is killed from outside while it grades a slow row
    slow = Sample("$\\sin(10^{10^{10}})$", "So $\\boxed{\\sin(10^{10^{10}} + 2\\pi)}$")
    pool.grade([NORMAL])
    [victim] = pool.child_pids()
    killer = threading.Timer(0.5, os.kill, (victim, signal.SIGSEGV))

    # When the row and an ordinary one are graded
    killer.start()
    crashed, normal = pool.grade([slow, NORMAL])
    killer.join()

    # Then the row is an error naming the crash, and the next row is graded normally
    statuses = {e.status for e in crashed.evaluations}
    assert Status.ERROR in statuses and Verdict.INCORRECT not in {
        e.verdict for e in crashed.evaluations if e.status is not Status.OK
    }
    assert any("worker crashed" in e.detail for e in crashed.evaluations)
    assert normal.auto_verdict is Verdict.CORRECT
    assert victim not in pool.child_pids()


def test_grading_stopped_from_another_thread_drops_the_row_in_progress_and_the_pool_goes_on(pool):
    # Given a call that is stopped as soon as its first row is done, its second row (a slow
    # one, sent to the same child in the same batch) still in progress
    stop = threading.Event()
    pool.grade([NORMAL])
    [child] = pool.child_pids()
    slow = PATHOLOGICAL[0].sample

    # When it grades
    with pytest.raises(GradingStopped):
        pool.grade([NORMAL, slow], progress=lambda done, total: stop.set(), stop=stop)

    # Then the child that was on the slow row was replaced, and the pool grades again
    assert child not in pool.child_pids()
    [again] = pool.grade([NORMAL])
    assert again.auto_verdict is Verdict.CORRECT


def test_children_outlive_one_call_and_are_reused(pool):
    # Given a pool that has graded once
    pool.grade([NORMAL])
    pids = pool.child_pids()
    started = pool.children_started

    # When it grades again
    pool.grade([Sample("$3$", "$\\boxed{3}$")])

    # Then the same child did the work
    assert pool.child_pids() == pids
    assert pool.children_started == started


def test_closing_the_pool_ends_its_children():
    # Given a pool with a running child
    pool = SandboxPool(1, timeout=LIMIT)
    pool.grade([NORMAL])
    [pid] = pool.child_pids()

    # When it is closed
    pool.close()

    # Then the child is gone and the pool refuses work
    assert not psutil.pid_exists(pid)
    with pytest.raises(RuntimeError):
        pool.grade([NORMAL])


def test_the_process_holding_a_pool_grades_without_importing_the_engine():
    # Given a fresh interpreter that loads the command line and grades one row through a pool
    script = "\n".join(
        (
            "import sys",
            "import grading.cli",
            "from grading.sandbox import SandboxPool",
            "from grading.types import Sample",
            "with SandboxPool(1) as pool:",
            f"    [graded] = pool.grade([Sample({NORMAL.gold!r}, {NORMAL.output!r})])",
            "engine = ('sympy', 'math_verify', 'latex2sympy2_extended', 'grading.pipeline')",
            "print(graded.auto_verdict.value, *[name for name in engine if name in sys.modules])",
        )
    )

    # When it runs
    ran = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )

    # Then the row was graded (in the children) and the engine never came into this process,
    # which the command line and every Celery worker process are
    assert ran.stdout.split() == ["correct"]


def test_a_row_slowed_only_by_a_busy_machine_is_not_stopped_before_its_cpu_time_is_used():
    # Given a row that started 4 s ago on the wall clock with a 2 s limit, but has had only
    # 0.5 s of CPU (the machine is busy)
    # When the parent asks when to stop it
    deadline = row_deadline(timeout=2.0, started=100.0, now=104.0, cpu_used=0.5)

    # Then it may run until it has used the remaining 1.5 s of CPU
    assert deadline == 105.5


def test_a_row_that_used_its_cpu_time_is_stopped_at_once():
    # Given a row that has used its 2 s of CPU
    # Then its deadline has passed
    assert row_deadline(timeout=2.0, started=100.0, now=102.5, cpu_used=2.0) <= 102.5


def test_a_row_that_gets_no_cpu_is_stopped_at_ten_times_its_limit_on_the_wall_clock():
    # Given a row that has run 19 s on the wall clock with a 2 s limit and used almost no CPU
    # (a stopped or blocked child)
    # Then it is stopped 20 s after it started, whatever CPU it has left
    assert row_deadline(timeout=2.0, started=100.0, now=119.0, cpu_used=0.1) == 120.0
    assert row_deadline(timeout=2.0, started=100.0, now=121.0, cpu_used=0.1) <= 121.0


def test_a_row_within_its_wall_limit_is_not_asked_about_cpu():
    assert row_deadline(timeout=2.0, started=100.0, now=101.0, cpu_used=0.0) == 102.0
