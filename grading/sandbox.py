"""Long-lived child processes that grade rows under a wall-clock and an address-space limit.

Children are plain ``subprocess`` processes (``python -m grading.child``), never
``multiprocessing``, so a pool works from any thread and inside a daemonic Celery worker.
math-verify's own time-out is ``signal.alarm``, which cannot interrupt big-integer arithmetic,
so the bound that always holds is the parent's: it kills the child's process group when the
row in progress passes its limit, starts a fresh child and lets the jury decide the row from
the evaluations it already received. See the protocol in grading/child.py.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from grading import answer_type, jury
from grading.child import EXIT_OUT_OF_MEMORY
from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS, UnknownEvaluatorError
from grading.types import (
    AnswerType,
    Evaluation,
    GradedSample,
    ReviewReason,
    Sample,
    Status,
    Verdict,
)

DEFAULT_TIMEOUT = 5.0
DEFAULT_MEMORY_MB = 1024
# Rows sent to a child in one message; small enough that a kill resends little. A child gets
# its next batch while still on the current one, so it never waits for the parent.
ROWS_PER_BATCH = 8
_EVAL_LINE = b'{"t": "eval"'
# How long a child may take to import the engine and build its evaluators before a row starts.
STARTUP_TIMEOUT = 60.0
# Fresh children that die or hang before grading anything, in a row, before we give up.
MAX_STARTUP_FAILURES = 3
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)


class SandboxError(RuntimeError):
    """The grading children cannot start: the environment is broken, not a row."""


@dataclass
class _RowInProgress:
    """What arrived of the row a child is on: its evaluations, still as protocol lines.

    They are decoded only if the row never finishes; a finished row's "done" message repeats
    them, so decoding them here would double the parent's work on every row.
    """

    evaluation_lines: list[bytes] = field(default_factory=list)
    last_message: float = 0.0

    def evaluations(self) -> list[Evaluation]:
        return [
            Evaluation.from_dict(json.loads(line)["evaluation"]) for line in self.evaluation_lines
        ]


class _Child:
    """One grading child process and what the parent knows about the batch it is running."""

    def __init__(self, memory_mb: int) -> None:
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grading.child", "--memory-mb", str(memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            start_new_session=True,  # its own process group, so a kill takes any grandchild
            env=env,
        )
        self.pid = self.proc.pid
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.inbox = bytearray()
        self.outbox = bytearray()
        self.ready = False
        self.inflight: deque[int] = deque()  # rows sent and not finished, in order
        self.current: _RowInProgress | None = None
        # When the row in progress started, as far as the parent can tell: rows run back to
        # back, so it is when the previous row finished or work reached an idle child.
        self.waiting_since = 0.0
        self.rows_graded = 0
        self.recycle = False
        self.exiting = False  # it said it will exit (out of memory between evaluators)
        self.last_words = ""  # the end of its stderr, kept when it is killed

    @property
    def busy(self) -> bool:
        return bool(self.inflight)

    def deadline(self, timeout: float) -> float | None:
        if not self.inflight:
            return None
        return self.waiting_since + (timeout if self.ready else STARTUP_TIMEOUT)

    def send(self, message: dict) -> None:
        self.outbox += json.dumps(message).encode("ascii") + b"\n"
        self.flush()

    def flush(self) -> None:
        """Write what the pipe takes now; the rest waits for the selector to say writable."""
        try:
            while self.outbox:
                written = os.write(self.proc.stdin.fileno(), self.outbox)
                del self.outbox[:written]
        except BlockingIOError:
            pass
        except (BrokenPipeError, ValueError):  # it died; its stdout EOF reports that
            self.outbox.clear()

    def read_lines(self) -> list[bytes] | None:
        """Protocol lines now complete on stdout, or None at end of file (the child is gone)."""
        chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not chunk:
            return None
        self.inbox += chunk
        *lines, rest = self.inbox.split(b"\n")
        self.inbox = bytearray(rest)
        return [bytes(line) for line in lines if line]

    def kill(self) -> int:
        """Kill the whole process group, reap it and return its exit status."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        returncode = self.proc.wait()
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 2000))
        self.last_words = self.stderr.read().decode("utf-8", "replace")
        for stream in (self.proc.stdin, self.proc.stdout, self.stderr):
            stream.close()
        return returncode

    def rss_mb(self) -> float:
        try:
            return psutil.Process(self.pid).memory_info().rss / 2**20
        except psutil.Error:
            return 0.0


class SandboxPool:
    """Long-lived grading children, reused across calls; one ``grade`` call runs at a time.

    A child is replaced when it is killed or dies, after ``max_rows_per_child`` rows, when its
    resident memory passes ``recycle_rss_mb``, and after an evaluator ran out of memory in it.
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
        self._children: list[_Child | None] = [None] * self.workers
        self._versions: dict[str, dict[str, str]] = {}
        self._lock = threading.Lock()
        self._startup_failures = 0
        self._closed = False

    def __enter__(self) -> SandboxPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every child; the pool cannot be used afterwards."""
        with self._lock:
            self._closed = True
            for slot, child in enumerate(self._children):
                if child is not None:
                    child.kill()
                    self._children[slot] = None

    def child_pids(self) -> list[int]:
        """Process ids of the children alive now, by slot."""
        return [c.pid for c in self._children if c is not None]

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
    ) -> list[GradedSample]:
        """Grade ``samples`` in the children, in input order.

        Rows with equal ``affinity`` keys (the gold, say) go to the same child where the work
        allows, so its caches see each key once; an idle child takes rows from the longest queue.
        ``progress(done, total)`` counts each finished row as its weight (the input rows it
        stands for), 1 by default.
        """
        unknown = [name for name in evaluators if name not in AVAILABLE]
        if unknown:
            raise UnknownEvaluatorError(
                f"unknown evaluator(s) {', '.join(unknown)}; available: {', '.join(AVAILABLE)}"
            )
        with self._lock:
            if self._closed:
                raise RuntimeError("the sandbox pool is closed")
            run = _GradingRun(
                self,
                samples,
                evaluators=list(evaluators),
                options=evaluator_options or {},
                timeout=self.timeout if timeout is None else timeout,
                affinity=affinity,
                weights=weights,
                progress=progress,
            )
            return run.run()

    def _start_child(self, slot: int) -> _Child:
        child = _Child(self.memory_mb)
        self._children[slot] = child
        self.children_started += 1
        return child

    def _retire(self, slot: int) -> int:
        child = self._children[slot]
        self._children[slot] = None
        return child.kill()


class _GradingRun:
    """The event loop of one ``SandboxPool.grade`` call."""

    def __init__(
        self,
        pool: SandboxPool,
        samples: Sequence[Sample],
        *,
        evaluators: list[str],
        options: dict,
        timeout: float,
        affinity: Sequence[Hashable] | None,
        weights: Sequence[int] | None,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.pool = pool
        self.samples = samples
        self.evaluators = evaluators
        self.options = options
        self.config_key = json.dumps([evaluators, options], sort_keys=True)
        self.timeout = timeout
        self.progress = progress
        self.weights = weights or [1] * len(samples)
        self.weight_done = 0
        self.weight_total = sum(self.weights)
        self.results: list[GradedSample | None] = [None] * len(samples)
        self.finished = 0
        self.queues = _shard(len(samples), affinity, pool.workers)
        self.selector = selectors.DefaultSelector()

    def run(self) -> list[GradedSample]:
        try:
            for slot, child in enumerate(self.pool._children):
                if child is not None:
                    if child.proc.poll() is None:
                        self._watch(child)
                    else:  # died while idle between calls: no row to blame
                        self.pool._retire(slot)
            while self.finished < len(self.samples):
                self._dispatch()
                self._wait_and_handle()
        except BaseException:
            # Interrupted (Ctrl-C) or a bug: children in mid-row would answer the next call
            # with this call's rows, so they go.
            for slot, child in enumerate(self.pool._children):
                if child is not None and child.busy:
                    self.pool._retire(slot)
            raise
        finally:
            self.selector.close()
        return self.results  # type: ignore[return-value]

    # --- sending work -------------------------------------------------------------------

    def _dispatch(self) -> None:
        unsent = sum(len(q) for q in self.queues)
        for slot in range(self.pool.workers):
            child = self.pool._children[slot]
            if child is not None and len(child.inflight) > ROWS_PER_BATCH:
                continue
            size = max(1, min(ROWS_PER_BATCH, -(-unsent // self.pool.workers)))
            rows = self._take(slot, size)
            if not rows:
                continue
            if child is None:
                child = self.pool._start_child(slot)
                self._watch(child)
            if not child.busy:
                child.waiting_since = time.monotonic()
            child.inflight.extend(rows)
            batch = [
                [
                    row,
                    self.samples[row].gold,
                    self.samples[row].output,
                    self.samples[row].finish_reason,
                    self.samples[row].problem,
                ]
                for row in rows
            ]
            child.send({"evaluators": self.evaluators, "options": self.options, "rows": batch})
            self._watch(child)

    def _take(self, slot: int, size: int) -> list[int]:
        queue = self.queues[slot]
        if queue:
            return [queue.popleft() for _ in range(min(size, len(queue)))]
        victim = max(self.queues, key=len)
        # Steal from the far end, where the victim's own child will arrive last.
        return [victim.pop() for _ in range(min(size, len(victim) // 2 or len(victim)))][::-1]

    def _watch(self, child: _Child) -> None:
        """Listen to the child's stdout, and to its stdin while a batch waits to be written."""
        if child.proc.stdout not in self.selector.get_map():
            self.selector.register(child.proc.stdout, selectors.EVENT_READ, child)
        waiting = child.proc.stdin in self.selector.get_map()
        if child.outbox and not waiting:
            self.selector.register(child.proc.stdin, selectors.EVENT_WRITE, child)
        elif waiting and not child.outbox:
            self.selector.unregister(child.proc.stdin)

    # --- receiving results ----------------------------------------------------------------

    def _wait_and_handle(self) -> None:
        now = time.monotonic()
        deadlines = [
            d for c in self.pool._children if c is not None and (d := c.deadline(self.timeout))
        ]
        wait = max(0.0, min(deadlines) - now) if deadlines else None
        for key, events in self.selector.select(wait):
            child: _Child = key.data
            if not any(c is child for c in self.pool._children):
                continue  # killed earlier in this loop
            if events & selectors.EVENT_WRITE:
                child.flush()
                self._watch(child)
            if events & selectors.EVENT_READ:
                lines = child.read_lines()
                if lines is None:
                    self._on_death(child)
                    continue
                for line in lines:
                    if any(c is child for c in self.pool._children):
                        self._on_line(child, line)
        now = time.monotonic()
        for slot, child in enumerate(self.pool._children):
            deadline = child.deadline(self.timeout) if child is not None else None
            if deadline is not None and now >= deadline:
                self._on_deadline(slot, child)

    def _slot(self, child: _Child) -> int:
        return next(i for i, c in enumerate(self.pool._children) if c is child)

    def _on_line(self, child: _Child, line: bytes) -> None:
        now = time.monotonic()
        if line.startswith(_EVAL_LINE):
            if child.current is None:
                child.current = _RowInProgress()
            child.current.evaluation_lines.append(line)
            child.current.last_message = now
            return
        message = json.loads(line)
        kind = message["t"]
        if kind == "ready":
            child.ready = True
            child.waiting_since = now
            self.pool._startup_failures = 0
        elif kind == "config":
            self.pool._versions[self.config_key] = dict(
                zip(message["names"], message["versions"], strict=True)
            )
        elif kind == "done":
            self._finish(child, _graded_from_dict(message["graded"]))
            child.recycle = child.recycle or message["recycle"]
            if not child.busy:
                self._maybe_recycle(child)
        elif kind == "config_error":
            raise ValueError(f"cannot build the evaluators: {message['detail']}")
        elif kind == "fail":
            child.exiting = message["detail"] == "out of memory"
            self._finish(child, self._decide_unfinished(child, Status.ERROR, message["detail"]))

    def _finish(self, child: _Child, graded: GradedSample) -> None:
        row = child.inflight.popleft()
        child.current = None
        child.waiting_since = time.monotonic()
        child.rows_graded += 1
        self.pool.rows_graded += 1
        self.results[row] = graded
        self.finished += 1
        self.weight_done += self.weights[row]
        if self.progress is not None:
            self.progress(self.weight_done, self.weight_total)

    def _maybe_recycle(self, child: _Child) -> None:
        if (
            child.recycle
            or child.rows_graded >= self.pool.max_rows_per_child
            or child.rss_mb() > self.pool.recycle_rss_mb
        ):
            self._unwatch(child)
            self.pool._retire(self._slot(child))

    def _on_deadline(self, slot: int, child: _Child) -> None:
        self._unwatch(child)
        self.pool._retire(slot)
        if child.ready:
            detail = f"the row passed its {self.timeout:g} s limit"
            self._finish(child, self._decide_unfinished(child, Status.TIMEOUT, detail))
        else:
            self._count_startup_failure(child)
        self._requeue(slot, child)

    def _on_death(self, child: _Child) -> None:
        slot = self._slot(child)
        self._unwatch(child)
        returncode = self.pool._retire(slot)
        if not child.ready:
            self._count_startup_failure(child)
        elif child.inflight and not child.exiting:
            # Died in a row, or reading the batch (a huge row): the first unfinished row is
            # the one it was on, and it is not retried, so no row can kill children forever.
            if returncode in (EXIT_OUT_OF_MEMORY, -signal.SIGKILL):  # SIGKILL: the OOM killer
                detail = "out of memory"
            else:
                detail = f"worker crashed (exit status {returncode})"
            self._finish(child, self._decide_unfinished(child, Status.ERROR, detail))
        self._requeue(slot, child)

    def _count_startup_failure(self, child: _Child) -> None:
        """Give up when fresh children keep dying or hanging before they are ready."""
        self.pool._startup_failures += 1
        if self.pool._startup_failures >= MAX_STARTUP_FAILURES:
            raise SandboxError(
                f"grading children keep failing before grading a row; last one said:\n"
                f"{child.last_words}"
            )

    def _requeue(self, slot: int, child: _Child) -> None:
        """Give the rows the dead child had not finished to its replacement, first in line."""
        self.queues[slot].extendleft(reversed(child.inflight))
        child.inflight.clear()

    def _unwatch(self, child: _Child) -> None:
        for stream in (child.proc.stdout, child.proc.stdin):
            if stream in self.selector.get_map():
                self.selector.unregister(stream)

    def _decide_unfinished(self, child: _Child, status: Status, detail: str) -> GradedSample:
        """The jury's decision on a row whose child stopped before every evaluator answered."""
        progress = child.current
        now = time.monotonic()
        received = progress.evaluations() if progress else []
        done = {e.evaluator for e in received}
        versions = self.pool._versions.get(self.config_key, {})
        missing = [name for name in self.evaluators if name not in done]
        for position, name in enumerate(missing):
            since = progress.last_message if progress else child.waiting_since
            running_ms = (now - since) * 1000 if position == 0 else 0
            received.append(
                Evaluation(
                    evaluator=name,
                    version=versions.get(name, ""),
                    status=status,
                    ms=running_ms,
                    detail=detail if position == 0 else f"not run: {detail}",
                )
            )
        order = {name: i for i, name in enumerate(self.evaluators)}
        received.sort(key=lambda e: order.get(e.evaluator, len(order)))
        # classify is regular expressions only, safe to run here on any input
        kind = answer_type.classify(self.samples[child.inflight[0]].gold)
        finding = "timeout" if status is Status.TIMEOUT else "evaluator_error"
        return jury.decide(kind, tuple(received), (finding,))


def _shard(count: int, affinity: Sequence[Hashable] | None, workers: int) -> list[deque[int]]:
    """Queues of row indices per child: equal keys together, keys spread by a stable hash."""
    queues: list[deque[int]] = [deque() for _ in range(workers)]
    if affinity is None:
        for row in range(count):
            queues[row % workers].append(row)
        return queues
    groups: dict[Hashable, list[int]] = {}
    for row, key in enumerate(affinity):
        groups.setdefault(key, []).append(row)
    for key, rows in groups.items():
        queues[zlib.crc32(repr(key).encode("utf-8", "surrogatepass")) % workers].extend(rows)
    return queues


def _graded_from_dict(data: dict) -> GradedSample:
    return GradedSample(
        answer_type=AnswerType(data["answer_type"]),
        auto_verdict=Verdict(data["auto_verdict"]),
        needs_review=data["needs_review"],
        review_reasons=tuple(ReviewReason(**r) for r in data["review_reasons"]),
        evaluations=tuple(Evaluation.from_dict(e) for e in data["evaluations"].values()),
        primary_evaluator=data.get("primary_evaluator", ""),
    )
