"""The fork server: children start warm from one process, and its faults never hang a batch.

These start real processes (the fork server, its children, a daemonic multiprocessing child)
and grade through the real evaluators; no mocks.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from grading import forkserver
from grading.sandbox import SandboxError, SandboxPool
from grading.types import Sample, Status, Verdict

REPO = Path(__file__).resolve().parents[2]
LIMIT = 2.0
NORMAL = Sample(gold="$42$", output="Adding them gives $\\boxed{42}$.")
STUCK = Sample("$1.3^{6472416997}$", "$\\boxed{1.3^{6472416997} + 10^{-10^{9}}}$")


def gone_within(pids: list[int], seconds: float) -> bool:
    """Whether every process in ``pids`` has ended (and been reaped) before the deadline."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_running(pid) for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_children_are_forked_by_one_server_and_replacements_do_not_restart_it():
    # Given a pool of two children that has graded
    with SandboxPool(2, timeout=LIMIT) as pool:
        pool.grade([NORMAL, Sample("$3$", "$\\boxed{3}$")] * 4)
        server = pool.server_pid

        # When a row times out, so its child is killed, and the next rows need two children
        [stuck] = pool.grade([STUCK], evaluators=["math_verify"])
        graded = pool.grade([NORMAL, Sample("$3$", "$\\boxed{3}$")])

        # Then the replacement was forked by the same server, which was started once
        assert stuck.evaluation("math_verify").status is Status.TIMEOUT
        assert [g.auto_verdict for g in graded] == [Verdict.CORRECT, Verdict.CORRECT]
        assert pool.servers_started == 1
        assert pool.server_pid == server
        assert pool.children_started >= 3
        assert all(psutil.Process(pid).ppid() == server for pid in pool.child_pids())


def test_a_fork_server_that_crashed_is_restarted_and_the_batch_finishes():
    # Given a pool whose fork server is killed after its child started
    with SandboxPool(1, timeout=LIMIT) as pool:
        pool.grade([NORMAL])
        crashed = pool.server_pid
        os.kill(crashed, signal.SIGKILL)

        # When a batch needs a new child (its first row times out) and goes on
        graded = pool.grade([STUCK, NORMAL, Sample("$5$", "$\\boxed{6}$")])

        # Then a new server forked the replacement and every row was graded
        assert graded[0].evaluation("math_verify").status is Status.TIMEOUT
        assert [g.auto_verdict for g in graded[1:]] == [Verdict.CORRECT, Verdict.INCORRECT]
        assert pool.servers_started == 2
        assert pool.server_pid != crashed
        assert gone_within([crashed], 10)


def test_a_child_outlives_its_crashed_fork_server_and_is_still_ended_by_the_pool():
    # Given a pool whose fork server died while its child was idle
    pool = SandboxPool(1, timeout=LIMIT)
    pool.grade([NORMAL])
    [child] = pool.child_pids()
    os.kill(pool.server_pid, signal.SIGKILL)

    # When the pool grades again and is closed
    [graded] = pool.grade([Sample("$7$", "$\\boxed{7}$")])
    pool.close()

    # Then the same child did the work, and closing ended it
    assert graded.auto_verdict is Verdict.CORRECT
    assert pool.children_started == 1
    assert gone_within([child], 10)


def test_a_fork_server_that_cannot_start_is_reported_not_waited_for(monkeypatch):
    # Given an environment in which no Python process can start
    monkeypatch.setenv("PYTHONHOME", "/nonexistent")

    # When a pool tries to grade
    started = time.monotonic()
    with pytest.raises(SandboxError, match="keep failing") as raised:
        with SandboxPool(1, timeout=LIMIT) as pool:
            pool.grade([NORMAL])

    # Then it gives up after a few attempts, quickly, with the server's own words
    assert time.monotonic() - started < 60
    assert "exited with status" in str(raised.value)


def test_children_that_die_before_they_are_ready_are_reported_not_retried_forever():
    # Given a memory limit far below what a child already holds when it is forked
    started = time.monotonic()
    with pytest.raises(SandboxError, match="keep failing"):
        with SandboxPool(1, timeout=LIMIT, memory_mb=8) as pool:
            pool.grade([NORMAL])

    # Then the pool gave up
    assert time.monotonic() - started < 60


def _grade_in_a_daemonic_process(results) -> None:
    with SandboxPool(1, timeout=5) as pool:
        [graded] = pool.grade([NORMAL])
    results.put(graded.auto_verdict.value)


def test_a_pool_works_inside_a_daemonic_process_like_a_celery_prefork_child():
    # Given a daemonic multiprocessing process, where multiprocessing cannot start children
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    process = context.Process(target=_grade_in_a_daemonic_process, args=(results,), daemon=True)

    # When it grades a row through a pool
    process.start()
    verdict = results.get(timeout=120)
    process.join(timeout=60)

    # Then the row was graded
    assert verdict == "correct"
    assert process.exitcode == 0


def test_when_the_pools_process_is_killed_its_fork_server_and_children_end():
    # Given a process that holds a pool with a child busy on a row that never ends
    script = textwrap.dedent(
        """
        import sys, threading
        from grading.sandbox import SandboxPool
        from grading.types import Sample
        pool = SandboxPool(2, timeout=600)
        pool.grade([Sample("$1$", "$\\\\boxed{1}$")] * 4)
        print(pool.server_pid, *pool.child_pids(), flush=True)
        stuck = Sample("$1.3^{6472416997}$", "$\\\\boxed{1.3^{6472416997} + 10^{-10^{9}}}$")
        pool.grade([stuck])
        """
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    pids = [int(pid) for pid in holder.stdout.readline().split()]
    time.sleep(1)  # the stuck row is running

    # When that process is killed outright
    holder.kill()
    holder.wait()

    # Then the fork server and every child end soon after
    assert len(pids) == 3
    assert gone_within(pids, 30)


def test_the_command_line_warms_its_fork_server_before_its_own_imports_and_leaves_none_behind():
    # Given a server started early, as `python -m grading grade` does before importing the CLI,
    # and a process started after it, whose start time marks "later" on the kernel's clock
    forkserver.start_early()
    time.sleep(0.1)
    with subprocess.Popen(["sleep", "30"]) as marker:
        later = psutil.Process(marker.pid).create_time()
        marker.kill()

    # When two pools are made and grade
    with SandboxPool(1, timeout=LIMIT) as first, SandboxPool(1, timeout=LIMIT) as second:
        graded = first.grade([NORMAL]) + second.grade([NORMAL])
        servers = [first.server_pid, second.server_pid]

        # Then the first took the early server and the second started its own
        assert [g.auto_verdict for g in graded] == [Verdict.CORRECT, Verdict.CORRECT]
        assert psutil.Process(servers[0]).create_time() < later
        assert psutil.Process(servers[1]).create_time() >= later

    # And both are gone once the pools close
    assert gone_within(servers, 10)
