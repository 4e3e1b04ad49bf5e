"""Long-lived child processes that grade rows under a wall-clock and an address-space limit.

Children are forked by a warm fork server (grading.forkserver), itself started with
``subprocess``, never ``multiprocessing``, so a pool works from any thread and inside a
daemonic Celery worker, and a child starts in milliseconds. math-verify's own time-out is
``signal.alarm``, which cannot interrupt big-integer arithmetic, so the bound that always
holds is the parent's: it kills the child's process group when the row in progress passes
its limit, forks a fresh child and lets the jury decide the row from the evaluations it
already received. See the protocol in grading/child.py.
"""

from __future__ import annotations

import math
import os
import select
import selectors
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Sequence

import psutil

from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS, UnknownEvaluatorError
from grading.forkserver import (
    STARTUP_TIMEOUT,
    ForkedChild,
    ForkServer,
    ForkServerError,
    take_early_or_start,
)
from grading.protocol import encode
from grading.sandbox_run import GradingRun
from grading.types import GradedSample, Sample

DEFAULT_TIMEOUT = 5.0
DEFAULT_MEMORY_MB = 1024
# Fresh children or fork servers that die or hang before grading anything, in a row, before
# we give up.
MAX_STARTUP_FAILURES = 3
# A row's limit is CPU time (see _Child.deadline); on the wall clock it may take this many
# times as long, which a row gets only on a machine busy enough to give it a tenth of a core.
WALL_LIMIT_FACTOR = 10
# How long a closing pool lets idle children finish on their own before killing them.
CLOSE_GRACE = 1.0


def row_deadline(*, timeout: float, started: float, now: float, cpu_used: float) -> float:
    """When a row that started at ``started`` (wall clock) and has used ``cpu_used`` seconds
    of CPU is stopped: a time at or before ``now`` means at once."""
    wall_deadline = started + timeout
    cpu_left = timeout - cpu_used
    if now < wall_deadline or cpu_left <= 0:
        return wall_deadline
    return min(started + timeout * WALL_LIMIT_FACTOR, now + cpu_left)


class SandboxError(RuntimeError):
    """The grading children cannot start: the environment is broken, not a row."""


class _Child:
    """One grading child process and what the parent knows about the batch it is running."""

    def __init__(self, forked: ForkedChild, server: ForkServer) -> None:
        self.pid = forked.pid
        self.input_fd = forked.input_fd
        self.output_fd = forked.output_fd
        self.stderr = forked.stderr
        self.record = forked.record
        self.server = server  # the fork server that reaps it and knows its exit status
        os.set_blocking(self.input_fd, False)
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.ready = False
        self.started = time.monotonic()
        self.inflight: deque[int] = deque()  # rows sent and not finished, in order
        # When the row in progress started, as far as the parent can tell: rows run back to
        # back, so it is when the previous row ended or when work reached an idle child.
        self.waiting_since = self.started
        self.resumed_at = self.started  # when work last reached it idle
        self.rows_graded = 0
        self.recycle = False
        self.exiting = False  # it said it will exit (out of memory between evaluators)
        self.last_words = ""  # the end of its stderr, kept when it is killed
        # The evaluation lines its row in progress had finished, and when, kept when it is killed.
        self.last_row: tuple[list[bytes], float | None] = ([], None)
        self.closed = False

    @property
    def busy(self) -> bool:
        return bool(self.inflight)

    def deadline(self, timeout: float) -> float | None:
        """When the row in progress is stopped: once it has used ``timeout`` seconds of the
        child's CPU time, or run ``WALL_LIMIT_FACTOR`` times that on the wall clock.

        The limit is CPU time so that a verdict does not depend on how busy the machine is:
        on a loaded machine a row that needs 3 s of CPU takes 10 s on the wall clock, and a
        wall-clock limit would turn it into a time-out on one run and not on the next.
        """
        if not self.inflight:
            return None
        if not self.ready:
            return self.waiting_since + STARTUP_TIMEOUT
        starts = self.record.row_started(self.row_in_progress())  # exact, once it started
        if starts is None:
            return self.waiting_since + timeout
        started, cpu_started = starts
        now = time.monotonic()
        if now < started + timeout:
            return started + timeout  # no row uses more CPU than wall time: nothing to ask yet
        cpu_used = self.cpu_seconds() - cpu_started
        return row_deadline(timeout=timeout, started=started, now=now, cpu_used=cpu_used)

    def row_in_progress(self) -> int:
        """The row the child is on: the first unfinished one, or a later one its row record
        names, when the answers before it wait in the child's buffer (a row that holds the
        interpreter lock keeps the child's writer thread from sending them)."""
        current = self.record.current_row()
        return current if current in self.inflight else self.inflight[0]

    def take_answered_unsent(self) -> list[int]:
        """Take off the rows before the one in progress: the child graded them, but their
        answers never reached the parent, so they must be graded again."""
        row = self.row_in_progress()
        taken = []
        while self.inflight[0] != row:
            taken.append(self.inflight.popleft())
        return taken

    def cpu_seconds(self) -> float:
        """The child's CPU time so far (user and system, as its ``time.process_time``)."""
        try:
            times = psutil.Process(self.pid).cpu_times()
        except psutil.Error:
            return math.inf  # gone: its end of file is on the way
        return times.user + times.system

    def send(self, message: dict) -> None:
        self.outbox += encode(message)
        self.flush()

    def flush(self) -> None:
        """Write what the pipe takes now; the rest waits for the selector to say writable."""
        try:
            while self.outbox:
                written = os.write(self.input_fd, self.outbox)
                del self.outbox[:written]
        except BlockingIOError:
            pass
        except (BrokenPipeError, OSError):  # it died; its output's end of file reports that
            self.outbox.clear()

    def read_lines(self) -> list[bytes] | None:
        """Protocol lines now complete on its output, or None at end of file (it is gone)."""
        chunk = os.read(self.output_fd, 1 << 16)
        if not chunk:
            return None
        self.inbox += chunk
        end = self.inbox.rfind(b"\n")
        if end < 0:
            return []
        lines = bytes(self.inbox[:end]).split(b"\n")
        del self.inbox[: end + 1]
        return lines

    def alive(self) -> bool:
        """Whether it is still there: a child that died while idle has closed its output."""
        readable, _, _ = select.select([self.output_fd], [], [], 0)
        if not readable:
            return True
        chunk = os.read(self.output_fd, 1 << 16)
        self.inbox += chunk
        return bool(chunk)

    def kill(self) -> int | None:
        """Kill the whole process group and return its exit status once it is reaped; what
        its row record held for the row in progress is kept in ``last_row``."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        returncode = self.server.exit_status(self.pid)
        if self.inflight and not self.closed:
            lines, updated = self.record.finished(self.inflight[0])
            starts = self.record.row_started(self.inflight[0])
            self.last_row = (lines, updated or (starts[0] if starts else None))
        self.close()
        return returncode

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 2000))
        self.last_words = self.stderr.read().decode("utf-8", "replace")
        self.stderr.close()
        self.record.close()
        for fd in (self.input_fd, self.output_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def rss_mb(self) -> float:
        try:
            return psutil.Process(self.pid).memory_info().rss / 2**20
        except psutil.Error:
            return 0.0


class SandboxPool:
    """Long-lived grading children, reused across calls; one ``grade`` call runs at a time.

    The fork server starts when the pool is made, so it imports the engine while the caller
    reads its input. A child is replaced when it is killed or dies, after
    ``max_rows_per_child`` rows, when its resident memory passes ``recycle_rss_mb``, and
    after an evaluator ran out of memory in it; a fork server that dies is restarted.
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        memory_mb: int = DEFAULT_MEMORY_MB,
        max_rows_per_child: int = 5000,
        recycle_rss_mb: float | None = None,
    ) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.max_rows_per_child = max_rows_per_child
        self.recycle_rss_mb = recycle_rss_mb if recycle_rss_mb else memory_mb * 0.6
        self.rows_graded = 0  # rows that reached a child and were finished, over the pool's life
        self.children_started = 0
        self.servers_started = 0
        self._children: list[_Child | None] = [None] * self.workers
        self._versions: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._startup_failures = 0
        self._closed = False
        self._server = self._start_server()

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """End every child and the fork server; the pool cannot be used afterwards.

        Idle children exit on their own when their input closes (so their last figures are
        written); any still running after CLOSE_GRACE are killed.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            children = [c for c in self._children if c is not None]
            self._children = [None] * self.workers
            for child in children:
                os.close(child.input_fd)
                child.input_fd = -1
            _wait_for_end_of_output(children, time.monotonic() + CLOSE_GRACE)
            for child in children:
                child.kill()
            self._server.close()

    def child_pids(self) -> list[int]:
        """Process ids of the children alive now, by slot."""
        return [c.pid for c in self._children if c is not None]

    def rows_finished(self) -> int:
        """Rows the children finished over the pool's life: those whose answers arrived
        (``rows_graded``) and those whose answers still wait in a child's buffer, behind a row
        that holds the interpreter lock. Safe to read from another thread."""
        waiting = 0
        for child in list(self._children):
            if child is None or child.closed:
                continue
            inflight = list(child.inflight)
            try:
                current = child.record.current_row()
            except ValueError:  # closed by the grading thread meanwhile
                continue
            if current in inflight:
                waiting += inflight.index(current)
        return self.rows_graded + waiting

    @property
    def server_pid(self) -> int:
        """The fork server's process id (it is restarted if it dies)."""
        return self._server.pid

    def grade(
        self,
        samples: Sequence[Sample],
        *,
        evaluators: Sequence[str] = DEFAULT_EVALUATORS,
        evaluator_options: dict[str, dict] | None = None,
        timeout: float | None = None,
        affinity: Sequence[Hashable] | None = None,
        weights: Sequence[int] | None = None,
        progress: Callable[[int, int], None] | None = None,
        stop: threading.Event | None = None,
    ) -> list[GradedSample]:
        """Grade ``samples`` in the children, in input order.

        Rows with equal ``affinity`` keys (the gold, say) go to the same child where the work
        allows, so its caches see each key once; an idle child takes rows from the longest queue.
        ``progress(done, total)`` counts each finished row as its weight (the input rows it
        stands for), 1 by default. Setting ``stop`` (from another thread) ends the call within
        a tenth of a second with grading.sandbox_run.GradingStopped; the children that were
        grading its rows are replaced.
        """
        unknown = [name for name in evaluators if name not in AVAILABLE]
        if unknown:
            raise UnknownEvaluatorError(
                f"unknown evaluator(s) {', '.join(unknown)}; available: {', '.join(AVAILABLE)}"
            )
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox pool is closed")
            run = GradingRun(
                self,
                samples,
                evaluators=list(evaluators),
                options=evaluator_options or {},
                timeout=self.timeout if timeout is None else timeout,
                affinity=affinity,
                weights=weights,
                progress=progress,
                stop=stop,
            )
            return run.run()

    def _start_server(self) -> ForkServer:
        self.servers_started += 1
        return take_early_or_start()

    def _start_child(self, slot: int) -> _Child:
        """Fork a child for ``slot``, restarting a fork server that died or hangs."""
        while True:
            try:
                forked = self._server.fork(self.memory_mb)
                break
            except ForkServerError as exc:
                self._server.kill()
                self._count_startup_failure(str(exc))
                self._server = self._start_server()
        child = _Child(forked, self._server)
        self._children[slot] = child
        self.children_started += 1
        return child

    def _retire(self, slot: int) -> int | None:
        child = self._children[slot]
        self._children[slot] = None
        return child.kill()

    def _count_startup_failure(self, last_words: str) -> None:
        """Give up when fresh children or fork servers keep failing before they are ready."""
        self._startup_failures += 1
        if self._startup_failures >= MAX_STARTUP_FAILURES:
            raise SandboxError(
                f"grading children keep failing before grading a row; last one said:\n{last_words}"
            )


def _wait_for_end_of_output(children: list[_Child], deadline: float) -> None:
    """Read children's output until each reaches its end or the deadline passes."""
    waiting = {c.output_fd: c for c in children}
    with selectors.DefaultSelector() as selector:
        for fd in waiting:
            selector.register(fd, selectors.EVENT_READ)
        while waiting and (remaining := deadline - time.monotonic()) > 0:
            for key, _ in selector.select(remaining):
                if not os.read(key.fd, 1 << 16):
                    selector.unregister(key.fd)
                    del waiting[key.fd]
