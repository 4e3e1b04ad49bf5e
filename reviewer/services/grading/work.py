"""One grading task's work: grade a chunk's rows in batches of about a second, saving each
batch as it is graded, and never leave a row behind.

- A batch's attempt is counted, and the chunk's lease renewed, before it is graded; the
  batch's results are saved while the next one grades (in a thread of the worker process,
  so the grading processes never wait for the database), so a chunk that fails or is killed
  keeps what it did and the run page's rows fill in as they are graded.
- The chunk stops starting batches before its time limit and sends the rest on as a new
  chunk; if the soft limit interrupts a batch anyway, or the task fails, its unfinished rows
  are sent on too (their attempts counted, so a row that keeps failing is quarantined).
- A database connection lost mid-chunk is opened again and the step retried.
- The grading processes are one long-lived pool per worker process (``grading_pool``),
  started when the worker process starts, so no chunk pays for their start-up.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections
from django.db import connection as db_connection

from grading.types import Sample
from reviewer.models import GradingChunk, Item, Run
from reviewer.services.grading.chunks import (
    chunk_finish,
    chunk_heartbeat,
    chunk_holder,
    chunks_send,
)
from reviewer.services.grading.results import (
    grading_attempt_start,
    grading_results_save,
    run_finish_if_done,
)

if TYPE_CHECKING:
    from grading.sandbox import SandboxPool

logger = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_BATCH_ROWS = 16
MAX_BATCH_ROWS = 250
BATCH_SECONDS = 1.0  # the work a batch aims at: what a killed or interrupted task redoes
# Batches attempted and queued for the grading thread at once: the next one is queued before
# the one grading ends, so the grading processes never wait for this thread's database work.
BATCHES_IN_FLIGHT = 2
# How long a chunk that stops early (its time limit, an error) waits for the batch grading to
# end: it is stopped within a tenth of a second, and its grading processes replaced.
STOP_WAIT_SECONDS = 3.0
DATABASE_RETRIES = 3
# Where a worker process's time goes, for ``bench/app_grading.py --profile`` (grading
# .stage_profile; off unless MATHJURY_STAGE_PROFILE names a directory).
PROFILED_STAGES = (
    ("reviewer.services.grading.work", "chunk_grade", "task: load chunk and run"),
    ("reviewer.services.grading.work", "_ChunkGrading._pending", "task: load chunk and run"),
    ("reviewer.services.grading.work", "grading_attempt_start", "attempt: lease, count"),
    ("reviewer.services.grading.work", "chunk_heartbeat", "lease: heartbeat, finish"),
    ("reviewer.services.grading.work", "chunk_finish", "lease: heartbeat, finish"),
    ("reviewer.services.grading.work", "run_finish_if_done", "run finished?"),
    ("concurrent.futures", "Future.result", "waiting for the grading thread"),
    ("grading.batch", "grade_many", "grading thread: waiting for the children"),
    ("grading.sandbox_run", "GradingRun._dispatch", "grading thread: send rows"),
    ("grading.sandbox_run", "GradingRun._on_lines", "grading thread: receive results"),
    ("reviewer.services.grading.work", "grading_results_save", "save: build rows"),
    ("reviewer.services.grading.results", "items_results_write", "save: build statements"),
    ("reviewer.services.grading.results", "evaluations_write", "save: build statements"),
    ("django.db.backends.utils", "CursorWrapper._execute", "database: statements"),
    ("django.db.backends.utils", "CursorWrapper._executemany", "database: statements"),
    ("psycopg", "Cursor.execute", "database: statements"),  # writes' JSON documents
    ("django.db.backends.base.base", "BaseDatabaseWrapper._commit", "database: commit"),
    ("django.db.backends.base.base", "BaseDatabaseWrapper.connect", "database: connect"),
)


def grading_pool() -> SandboxPool:
    """This worker process's grading pool (started on first use, kept across chunks).

    The engine is imported here, not with this module, so the web server and commands that
    only send work never import SymPy."""
    from grading.batch import shared_pool

    return shared_pool(
        settings.MATHJURY_GRADING_WORKERS,
        timeout=settings.MATHJURY_GRADING_TIMEOUT,
        memory_mb=settings.MATHJURY_GRADING_MEMORY_MB,
    )


def chunk_grade(*, chunk_id: int) -> int:
    """Grade one chunk's pending rows (the grading task's work); a re-delivered, stale or
    abandoned chunk writes nothing twice. Returns how many results were saved."""
    chunk = _with_database_retry(lambda: GradingChunk.objects.filter(pk=chunk_id).first())
    if chunk is None or chunk.state in (GradingChunk.State.DONE, GradingChunk.State.ABANDONED):
        return 0
    run = _with_database_retry(
        lambda: Run.objects.filter(pk=chunk.run_id).only("grading_generation", "evaluators").first()
    )
    if run is None or run.grading_generation != chunk.generation:
        _with_database_retry(lambda: chunk_finish(chunk_id=chunk_id))
        return 0
    return _ChunkGrading(chunk, run.evaluators).run()


class _ChunkGrading:
    """The state of one delivery of a chunk while it grades.

    Fresh rows are graded in a pipeline once the first batch has shown how fast they go: the
    grading thread grades one batch, with the next queued behind it, while this thread saves
    the batch before it, so the grading processes do not wait for the database. A batch's
    attempt is counted before it goes to the thread.
    Rows an earlier delivery already attempted go one at a time and alone (nothing graded or
    saved beside them), so a row that kills its worker costs attempts to no other row.
    """

    def __init__(self, chunk: GradingChunk, evaluators: list[str]) -> None:
        self.chunk = chunk
        self.evaluators = evaluators
        self.holder = chunk_holder()
        self.started = time.monotonic()
        soft_limit = settings.CELERY_TASK_SOFT_TIME_LIMIT
        self.budget = soft_limit - min(15.0, soft_limit / 5)
        # The longest one row can take: its limit, and again if it is graded alone once more.
        self.worst_row = 2 * settings.MATHJURY_GRADING_TIMEOUT + 1
        self.seconds_per_row: float | None = None
        self.beat_every = max(1.0, settings.MATHJURY_GRADING_STALE_SECONDS / 6)
        self.last_beat = time.monotonic()
        self.saved = 0
        self.batches = 0  # graded so far by this delivery
        self.in_flight: deque[_Batch] = deque()  # attempted and sent to the grading thread
        self.stop = threading.Event()  # set to stop the grading thread's work on this chunk

    def run(self) -> int:
        chunk = self.chunk
        try:
            pending = _with_database_retry(self._pending)
            retried = deque([pk] for pk, attempts in pending if attempts)
            fresh = deque(pk for pk, attempts in pending if not attempts)
            while retried or fresh:
                alone = bool(retried)
                # The first batch is saved before the next starts: until the chunk has seen
                # how fast its rows go, it cannot tell whether another batch fits its time.
                if (
                    alone
                    or self.seconds_per_row is None
                    or len(self.in_flight) >= BATCHES_IN_FLIGHT
                ):
                    self._save_oldest(everything=alone)
                batch = retried.popleft() if alone else self._take(fresh)
                if self._past_budget(len(batch)):
                    self._save_oldest(everything=True)
                    self._send_on(GradingChunk.Origin.SPLIT)
                    return self.saved
                if not self._start(batch):
                    self._save_oldest(everything=True)
                    return self.saved  # the lease went to another delivery, or the reconciler
                if alone:
                    self._save_oldest(everything=True)
            self._save_oldest(everything=True)
        except SoftTimeLimitExceeded:
            logger.warning("chunk %s reached its soft time limit; sending the rest on", chunk.pk)
            self._drop_in_flight()
            db_connection.close()  # it may have been interrupted mid-statement
            self._send_on(GradingChunk.Origin.SPLIT)
            return self.saved
        except Exception:
            logger.exception("chunk %s failed; sending its unfinished rows on", chunk.pk)
            self._drop_in_flight()
            db_connection.close()
            try:
                self._send_on(GradingChunk.Origin.RETRY)
            except Exception:  # the database or broker is gone: manage.py reconcile sends them
                logger.exception("chunk %s: could not send its unfinished rows on", chunk.pk)
            raise
        _with_database_retry(lambda: chunk_finish(chunk_id=chunk.pk, holder=self.holder))
        _with_database_retry(
            lambda: run_finish_if_done(run_id=chunk.run_id, generation=chunk.generation)
        )
        return self.saved

    def _pending(self) -> list[tuple[int, int]]:
        return list(
            Item.objects.filter(pk__in=self.chunk.item_ids, grade_state=Item.GradeState.PENDING)
            .order_by("row_number")
            .values_list("pk", "grade_attempts")
        )

    def _take(self, fresh: deque) -> list[int]:
        """The next batch: about BATCH_SECONDS of work at the speed seen so far."""
        if self.seconds_per_row is None:
            size = FIRST_BATCH_ROWS
        else:
            size = int(BATCH_SECONDS / max(self.seconds_per_row, 1e-4))
        size = max(1, min(size, MAX_BATCH_ROWS, len(fresh)))
        return [fresh.popleft() for _ in range(size)]

    def _past_budget(self, rows: int) -> bool:
        """Whether a batch of ``rows``, graded after the batch in flight, could run past the
        chunk's budget if one row is as slow as a row can be and the others as fast as rows
        were so far."""
        rows += sum(len(batch.items) for batch in self.in_flight)
        expected = rows * (self.seconds_per_row or 0.05) + self.worst_row
        return self.batches > 0 and time.monotonic() - self.started + expected > self.budget

    def _start(self, item_ids: list[int]) -> bool:
        """Count an attempt on the batch and send it to the grading thread; False if the
        lease is lost."""
        chunk = self.chunk
        items = _with_database_retry(
            lambda: grading_attempt_start(
                run_id=chunk.run_id,
                generation=chunk.generation,
                item_ids=item_ids,
                chunk_id=chunk.pk,
                holder=self.holder,
            )
        )
        if items is None:
            logger.info("chunk %s is held elsewhere or was re-sent; stopping", chunk.pk)
            return False
        self.last_beat = time.monotonic()
        if not items:
            return True
        samples = [Sample(i.gold, i.output, i.finish_reason, i.problem) for i in items]
        future = _grading_thread().submit(_grade_batch, samples, self.evaluators, self.stop)
        self.in_flight.append(_Batch(items, future))
        return True

    def _save_oldest(self, *, everything: bool = False) -> None:
        """Wait for the oldest batch in flight (renewing the lease meanwhile) and save its
        results; with ``everything``, every batch in flight."""
        while self.in_flight:
            self._save(self.in_flight.popleft())
            if not everything:
                return

    def _save(self, batch: _Batch) -> None:
        while True:
            try:
                graded, seconds = batch.future.result(timeout=self._until_next_beat())
                break
            except TimeoutError:
                self._beat()
        self.seconds_per_row = seconds / len(batch.items)
        chunk = self.chunk
        results = [(item.pk, result) for item, result in zip(batch.items, graded, strict=True)]
        self.saved += _with_database_retry(
            lambda: grading_results_save(
                run_id=chunk.run_id, generation=chunk.generation, results=results
            )
        )
        self.batches += 1
        self._beat()

    def _drop_in_flight(self) -> None:
        """Stop grading the batches in flight (their rows are still pending, and are sent
        on), so the next chunk finds the grading processes free."""
        self.stop.set()
        batches, self.in_flight = self.in_flight, deque()
        for batch in batches:
            batch.future.cancel()
        futures = [batch.future for batch in batches if not batch.future.cancelled()]
        wait(futures, timeout=STOP_WAIT_SECONDS)

    def _until_next_beat(self) -> float:
        return max(0.0, self.last_beat + self.beat_every - time.monotonic())

    def _beat(self) -> None:
        """Renew the heartbeat if it is due."""
        if self._until_next_beat() > 0:
            return
        self.last_beat = time.monotonic()
        try:
            chunk_heartbeat(chunk_id=self.chunk.pk, holder=self.holder)
        except DatabaseError:
            db_connection.close()  # the next step opens a new one, and retries
            logger.warning("chunk %s: heartbeat not written", self.chunk.pk, exc_info=True)

    def _send_on(self, origin: str) -> None:
        """Send the chunk's rows still pending on as a new chunk, and finish this one."""
        chunk = self.chunk
        rest = [pk for pk, _ in _with_database_retry(self._pending)]
        if rest:
            _with_database_retry(
                lambda: chunks_send(
                    run_id=chunk.run_id, generation=chunk.generation, item_ids=rest, origin=origin
                )
            )
        _with_database_retry(lambda: chunk_finish(chunk_id=chunk.pk, holder=self.holder))
        logger.info("chunk %s: %s rows sent on (%s)", chunk.pk, len(rest), origin)


@dataclass(frozen=True)
class _Batch:
    items: list[Item]
    future: Future


def _grade_batch(
    samples: list[Sample], evaluators: list[str], stop: threading.Event
) -> tuple[list, float]:
    """In the grading thread: grade ``samples`` in this process's pool; the results and the
    seconds it took."""
    from grading.batch import grade_many

    started = time.monotonic()
    graded = grade_many(
        samples,
        evaluators=evaluators,
        timeout=settings.MATHJURY_GRADING_TIMEOUT,
        pool=grading_pool(),
        stop=stop,
    )
    return graded, time.monotonic() - started


_grading_threads: dict[int, ThreadPoolExecutor] = {}


def _grading_thread() -> ThreadPoolExecutor:
    """This process's grading thread, which runs one batch at a time, in order (keyed by
    process id: a thread does not survive a fork)."""
    pid = os.getpid()
    if pid not in _grading_threads:
        _grading_threads[pid] = ThreadPoolExecutor(1, thread_name_prefix="grading")
    return _grading_threads[pid]


def _with_database_retry(step: Callable[[], T]) -> T:
    """Run ``step``; if the database connection was lost, open a new one and run it again."""
    for attempt in range(1, DATABASE_RETRIES + 1):
        try:
            return step()
        except (OperationalError, InterfaceError):
            if attempt == DATABASE_RETRIES:
                raise
            logger.warning("database error; retrying (%s)", attempt, exc_info=True)
            db_connection.close()
            close_old_connections()
            time.sleep(0.5 * attempt)
    raise AssertionError("unreachable")
