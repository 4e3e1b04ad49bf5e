"""The event loop of one ``SandboxPool.grade`` call: send batches, read answers, enforce limits.

Rows are sharded by an affinity key (the gold) across the pool's children, a child gets its
next batch while still on the current one, an idle child steals from the longest queue, and
each child's row in progress is timed from when the row before it ended. A row past its
limit, or a child that dies, costs that row only: the child's process group is killed, the
jury decides the row from the evaluations that arrived, and the rest of the child's rows go
to its replacement.
"""

from __future__ import annotations

import re
import selectors
import signal
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING

from grading import answer_type, jury
from grading.protocol import EXIT_OUT_OF_MEMORY, decode, evaluator_set_key
from grading.types import Evaluation, GradedSample, Sample, Status

if TYPE_CHECKING:
    from grading.sandbox import SandboxPool, _Child

# Rows sent to a child in one message; small enough that a kill resends little. A child gets
# its next batch while still on the current one, so it never waits for the parent.
ROWS_PER_BATCH = 8
# How often a call that can be stopped from another thread looks whether it was, in seconds.
STOP_POLL = 0.1
# What a grading of an undefined value looks like in the evaluations' text and LaTeX: NaN,
# complex infinity, a zero denominator, a division by zero, arithmetic on infinities. SymPy
# answers questions about such values (is 0*(1/0) zero?) differently depending on what the
# process computed before, so these rows are graded again, each in a fresh child.
_UNDEFINED = re.compile(
    r"\\text\{NaN\}|\\tilde\{\\infty\}|\}\{0\}|\bzoo\b|\bnan\b|/\s*0(?![\d.])"
    r"|0 \\infty|\\infty [+-] \\infty|\\frac\{\\infty\}"
)


class GradingStopped(RuntimeError):
    """The caller stopped the grading from another thread; rows in progress were dropped."""


class GradingRun:
    """The event loop of one ``SandboxPool.grade`` call.

    Rows whose grading met an undefined value are graded again at the end, each alone in a
    child freshly forked from the fork server (``one_row_per_child``), whose state is the same
    in every run: their result then depends on the row alone, not on which rows the child
    graded before (see ``_UNDEFINED``).
    """

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
        one_row_per_child: bool = False,
        stop: threading.Event | None = None,
    ) -> None:
        self.pool = pool
        self.stop = stop
        self.one_row_per_child = one_row_per_child
        self.undefined_rows: list[int] = []
        self.samples = samples
        self.evaluators = evaluators
        self.options = options
        self.config_key = evaluator_set_key(evaluators, options)
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
        self._run_loop()
        if self.undefined_rows:
            self._grade_alone(self.undefined_rows)
        return self.results  # type: ignore[return-value]

    def _grade_alone(self, rows: list[int]) -> None:
        again = GradingRun(
            self.pool,
            [self.samples[row] for row in rows],
            evaluators=self.evaluators,
            options=self.options,
            timeout=self.timeout,
            affinity=None,
            weights=None,
            progress=None,
            one_row_per_child=True,
            stop=self.stop,
        )
        for row, graded in zip(rows, again.run(), strict=True):
            self.results[row] = graded

    def _run_loop(self) -> None:
        try:
            for slot, child in enumerate(self.pool._children):
                if child is not None:
                    if child.alive():
                        self._watch(child)
                    else:  # died while idle between calls: no row to blame
                        self.pool._retire(slot)
            while self.finished < len(self.samples):
                if self.stop is not None and self.stop.is_set():
                    raise GradingStopped("grading was stopped")
                self._dispatch()
                self._wait_and_handle()
        except BaseException:
            # Interrupted (Ctrl-C), stopped or a bug: children in mid-row would answer the
            # next call with this call's rows, so they go.
            for slot, child in enumerate(self.pool._children):
                if child is not None and child.busy:
                    self.pool._retire(slot)
            raise
        finally:
            self.selector.close()

    # --- sending work -------------------------------------------------------------------

    def _dispatch(self) -> None:
        unsent = sum(len(q) for q in self.queues)
        for slot in range(self.pool.workers):
            child = self.pool._children[slot]
            if child is not None and len(child.inflight) > ROWS_PER_BATCH:
                continue
            if self.one_row_per_child and child is not None and child.busy:
                continue
            size = max(1, min(ROWS_PER_BATCH, -(-unsent // self.pool.workers)))
            rows = self._take(slot, 1 if self.one_row_per_child else size)
            if not rows:
                continue
            if self.one_row_per_child and child is not None:  # it has graded: not fresh
                self._unwatch(child)
                self.pool._retire(slot)
                child = None
            if child is None:
                child = self.pool._start_child(slot)
            if not child.busy:
                child.waiting_since = child.resumed_at = time.monotonic()
            child.inflight.extend(rows)
            samples = self.samples
            batch = [
                [
                    row,
                    samples[row].gold,
                    samples[row].output,
                    samples[row].finish_reason,
                    samples[row].problem,
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
        """Listen to the child's output, and to its input while a batch waits to be written."""
        registered = self.selector.get_map()
        if child.output_fd not in registered:
            self.selector.register(child.output_fd, selectors.EVENT_READ, child)
        waiting = child.input_fd in registered
        if child.outbox and not waiting:
            self.selector.register(child.input_fd, selectors.EVENT_WRITE, child)
        elif waiting and not child.outbox:
            self.selector.unregister(child.input_fd)

    # --- receiving results ----------------------------------------------------------------

    def _wait_and_handle(self) -> None:
        now = time.monotonic()
        deadlines = [
            d for c in self.pool._children if c is not None and (d := c.deadline(self.timeout))
        ]
        wait = max(0.0, min(deadlines) - now) if deadlines else None
        if self.stop is not None:
            wait = STOP_POLL if wait is None else min(wait, STOP_POLL)
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
                self._on_lines(child, lines)
        now = time.monotonic()
        for slot, child in enumerate(self.pool._children):
            deadline = child.deadline(self.timeout) if child is not None else None
            if deadline is not None and now >= deadline:
                self._on_deadline(slot, child)

    def _slot(self, child: _Child) -> int:
        return next(i for i, c in enumerate(self.pool._children) if c is child)

    def _on_lines(self, child: _Child, lines: list[bytes]) -> None:
        for line in lines:
            if not any(c is child for c in self.pool._children):
                return  # recycled after its last row
            if line:
                self._on_message(child, decode(line))

    def _on_message(self, child: _Child, message: dict) -> None:
        kind = message["t"]
        if kind == "done":
            graded = GradedSample.from_dict(message["graded"])
            row = self._finish(child, graded, message["at"])
            if not self.one_row_per_child and _involves_undefined(graded):
                self.undefined_rows.append(row)
            child.recycle = child.recycle or message["recycle"]
            if not child.busy:
                self._maybe_recycle(child)
        elif kind == "ready":
            child.ready = True
            child.waiting_since = max(child.waiting_since, time.monotonic())
            self.pool._startup_failures = 0
        elif kind == "config":
            self.pool._versions[self.config_key] = dict(
                zip(message["names"], message["versions"], strict=True)
            )
        elif kind == "config_error":
            raise ValueError(f"cannot build the evaluators: {message['detail']}")
        elif kind == "fail":
            child.exiting = message["detail"] == "out of memory"
            finished = (message["evaluations"], message["at"])
            graded = self._decide_unfinished(child, Status.ERROR, message["detail"], finished)
            self._finish(child, graded, message["at"])

    def _finish(self, child: _Child, graded: GradedSample, ended: float | None = None) -> int:
        row = child.inflight.popleft()
        # The next row started when this one ended (the child's clock is the same clock),
        # unless the child was idle until work reached it after that.
        child.waiting_since = max(ended or time.monotonic(), child.resumed_at)
        child.rows_graded += 1
        self.pool.rows_graded += 1
        self.results[row] = graded
        self.finished += 1
        self.weight_done += self.weights[row]
        if self.progress is not None:
            self.progress(self.weight_done, self.weight_total)
        return row

    def _maybe_recycle(self, child: _Child) -> None:
        if (
            child.recycle
            or self.one_row_per_child
            or child.rows_graded >= self.pool.max_rows_per_child
            or child.rss_mb() > self.pool.recycle_rss_mb
        ):
            self._unwatch(child)
            self.pool._retire(self._slot(child))

    def _on_deadline(self, slot: int, child: _Child) -> None:
        unsent = child.take_answered_unsent() if child.ready else []
        self._unwatch(child)
        self.pool._retire(slot)
        if child.ready:
            detail = f"the row passed its {self.timeout:g} s limit"
            self._finish(child, self._decide_unfinished(child, Status.TIMEOUT, detail))
        else:
            self.pool._count_startup_failure(child.last_words)
        self._requeue(slot, child, unsent)

    def _on_death(self, child: _Child) -> None:
        slot = self._slot(child)
        unsent = child.take_answered_unsent() if child.ready and child.inflight else []
        self._unwatch(child)
        returncode = self.pool._retire(slot)
        if not child.ready:
            self.pool._count_startup_failure(child.last_words)
        elif child.inflight and not child.exiting:
            # Died in a row, or reading the batch (a huge row): the first unfinished row is
            # the one it was on, and it is not retried, so no row can kill children forever.
            if returncode in (EXIT_OUT_OF_MEMORY, -signal.SIGKILL):  # SIGKILL: the OOM killer
                detail = "out of memory"
            elif returncode is None:
                detail = "worker crashed (exit status unknown: the fork server is gone)"
            else:
                detail = f"worker crashed (exit status {returncode})"
            self._finish(child, self._decide_unfinished(child, Status.ERROR, detail))
        self._requeue(slot, child, unsent)

    def _requeue(self, slot: int, child: _Child, unsent: Sequence[int] = ()) -> None:
        """Give the rows the dead child had not finished, and those it finished without
        sending their answers, to its replacement, first in line."""
        self.queues[slot].extendleft(reversed([*unsent, *child.inflight]))
        child.inflight.clear()

    def _unwatch(self, child: _Child) -> None:
        registered = self.selector.get_map()
        for fd in (child.output_fd, child.input_fd):
            if fd in registered:
                self.selector.unregister(fd)

    def _decide_unfinished(
        self,
        child: _Child,
        status: Status,
        detail: str,
        finished: tuple[list[dict], float] | None = None,
    ) -> GradedSample:
        """The jury's decision on a row whose child stopped before every evaluator answered.

        ``finished`` is what the child said it finished, and when; without it, what its row
        record held when it was killed.
        """
        row = child.inflight[0]
        if finished is None:
            lines, updated = child.last_row
            finished = ([decode(line) for line in lines], updated or child.waiting_since)
        received = [Evaluation.from_dict(data) for data in finished[0]]
        done = {e.evaluator for e in received}
        versions = self.pool._versions.get(self.config_key, {})
        missing = [name for name in self.evaluators if name not in done]
        now = time.monotonic()
        for position, name in enumerate(missing):
            running_ms = (now - finished[1]) * 1000 if position == 0 else 0
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
        kind = answer_type.classify(self.samples[row].gold)
        finding = "timeout" if status is Status.TIMEOUT else "evaluator_error"
        return jury.decide(kind, tuple(received), (finding,))


def _involves_undefined(graded: GradedSample) -> bool:
    # One search over all the texts, kept apart by a character no pattern crosses: a search
    # per text cost the parent more than decoding the row.
    texts = "\x00".join(
        f"{e.extracted}\x00{e.extracted_latex}\x00{e.gold_latex}" for e in graded.evaluations
    )
    return _UNDEFINED.search(texts) is not None


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
