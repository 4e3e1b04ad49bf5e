"""Faults around real Celery workers, each on a redis-server of its own that the test starts,
flushes, kills and restarts: no row may be left pending or graded twice (issue 12).

Every wait is on a condition with a generous bound; nothing asserts a duration. Recovery
times are printed (``pytest -s``) for docs/benchmarks.md.
"""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import redis
from django.db import connection
from django.db.models import Count

from grading.evaluators import DEFAULT_EVALUATORS
from reviewer import services
from reviewer.celery import app as celery_app
from reviewer.models import Evaluation, GradingChunk, Item, Run
from tests.reviewer.test_worker import SAMPLE_MAPPING, SAMPLE_RUN, upload_run, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

STALE = 5  # seconds without a heartbeat before the reconciler re-sends a chunk's rows
WORKER_ENV = {"MATHJURY_CHUNK_SIZE": "40", "MATHJURY_GRADING_STALE_SECONDS": str(STALE)}


class RedisServer:
    """A redis-server on 127.0.0.1 that keeps nothing on disk, like a restart without AOF."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        wait_for(lambda: _answers(client), timeout=30, what="redis-server to start", poll=0.1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    server.start()
    yield server
    if server.process.poll() is None:
        server.process.terminate()
        server.process.wait(timeout=30)


@pytest.fixture
def celery_broker(redis_server: RedisServer) -> Iterator[redis.Redis]:
    """Overrides conftest's: this module's workers and tasks use the test's own redis-server."""
    previous = (celery_app.conf.broker_url, celery_app.conf.broker_transport_options)
    _forget_connections()
    celery_app.conf.broker_url = redis_server.url
    celery_app.conf.broker_transport_options = {"visibility_timeout": 3600}
    yield redis.Redis.from_url(redis_server.url)
    _forget_connections()
    celery_app.conf.broker_url, celery_app.conf.broker_transport_options = previous


def _forget_connections() -> None:
    """Drop the app's pooled connections, including the producer pool that control messages
    (ping) use, which close() keeps: it would still point at the last test's server."""
    celery_app.close()
    celery_app.amqp._producer_pool = None


@pytest.fixture
def fast_reconcile(settings):
    settings.MATHJURY_GRADING_STALE_SECONDS = STALE


def sample_rows(count: int) -> bytes:
    """The header and the first ``count`` rows of the 800-row sample (outputs span lines)."""
    with SAMPLE_RUN.open(newline="", encoding="utf-8") as file:
        records = list(itertools.islice(csv.reader(file), count + 1))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(records)
    return out.getvalue().encode()


def freeze_with_a_batch_in_flight(run: Run, in_flight, *workers) -> set[int]:
    """Stop (SIGSTOP) the workers' processes at a moment when some rows are graded and a batch
    is counted but not saved; returns that batch's rows. A frozen worker saves nothing more, so
    the rows are exactly the ones a death will interrupt, however fast the machine grades.
    ``resume(workers)`` lets the ones left alive go on."""
    while True:
        wait_for(
            lambda: run.items.filter(grade_state="graded").exists() and in_flight.exists(),
            timeout=600,
            what="a batch in flight after some rows were graded",
            poll=0.05,
        )
        for process in (p for worker in workers for p in worker.tree()):
            with contextlib.suppress(psutil.NoSuchProcess):
                process.suspend()
        time.sleep(0.5)  # a commit a worker had already sent reaches the database
        rows = set(in_flight.values_list("pk", flat=True))
        if rows:
            return rows
        resume(workers)  # that batch was saved just before the stop: go on


def resume(workers) -> None:
    for process in (p for worker in workers for p in worker.tree()):
        with contextlib.suppress(psutil.NoSuchProcess):
            process.resume()


def pending(run: Run) -> int:
    return run.items.filter(grade_state=Item.GradeState.PENDING).count()


def reconcile_until_graded(run: Run, *, timeout: float) -> float:
    """Run the reconciler every two seconds until no row of the run waits; returns seconds."""
    started = time.monotonic()
    deadline = started + timeout
    while pending(run):
        if time.monotonic() > deadline:
            pytest.fail(f"{pending(run)} rows still pending after {timeout:.0f} s")
        services.grading_reconcile()
        time.sleep(2)
    return time.monotonic() - started


def assert_graded_once(run: Run, rows: int) -> None:
    """Every row has a result and one evaluation per evaluator: none lost, none doubled."""
    assert pending(run) == 0
    assert run.items.count() == rows
    per_item = Item.objects.filter(run=run).annotate(n=Count("evaluations"))
    graded = per_item.filter(grade_state=Item.GradeState.GRADED)
    assert set(graded.values_list("n", flat=True)) == {len(DEFAULT_EVALUATORS)}
    assert Evaluation.objects.filter(item__run=run).count() == graded.count() * len(
        DEFAULT_EVALUATORS
    )


def chunk_running(run: Run) -> bool:
    return GradingChunk.objects.filter(run=run, state=GradingChunk.State.RUNNING).exists()


def test_a_flushed_broker_loses_no_row_once_reconciled(  # A7
    user, store_upload, celery_worker_process, celery_broker, fast_reconcile
):
    # given a worker grading a 240-row run in chunks of 40
    celery_worker_process(**WORKER_ENV)
    run = upload_run(user, store_upload, sample_rows(240), SAMPLE_MAPPING)
    wait_for(
        lambda: run.items.filter(grade_state=Item.GradeState.GRADED).exists(),
        timeout=600,
        what="the first rows to be graded",
        poll=0.2,
    )
    # when Redis loses every message (FLUSHALL) while most chunks wait in it
    celery_broker.flushall()
    flushed_at = time.monotonic()
    assert pending(run) > 0
    # then the reconciler re-sends what no live task holds, and every row is graded once
    reconcile_until_graded(run, timeout=900)
    print(f"\nFLUSHALL -> all rows graded: {time.monotonic() - flushed_at:.1f} s")
    assert_graded_once(run, 240)
    assert GradingChunk.objects.filter(run=run, origin=GradingChunk.Origin.NO_MESSAGE).exists()
    assert max(run.items.values_list("grade_attempts", flat=True)) == 1
    wait_for(lambda: Run.objects.get(pk=run.pk).status == Run.Status.DONE, timeout=60, what="done")


SLOW_ROWS_CSV = "\n".join(
    ["id,gold,output"]
    + [f'slow{n},1,"so \\boxed{{\\sin(10^{{10^{{{10 + n}}}}})}}"' for n in range(16)]
    + [f'r{n},{n},"{n} apples, so \\boxed{{{n}}}"' for n in range(1, 5)]
).encode()


def test_a_chunk_that_reaches_its_time_limit_leaves_no_row_pending(
    user, store_upload, celery_worker_process
):
    # given a worker whose tasks may run 12 s (soft limit 7 s) with one grading process, and a
    # chunk of 20 rows, 16 of which time out after 1 s of CPU each: more than the chunk's time
    # allows however fast the machine
    celery_worker_process(
        MATHJURY_TASK_TIME_LIMIT="12", MATHJURY_GRADING_TIMEOUT="1", MATHJURY_GRADING_WORKERS="1"
    )
    run = upload_run(
        user, store_upload, SLOW_ROWS_CSV, {"id": "id", "gold": "gold", "output": "output"}
    )
    assert GradingChunk.objects.filter(run=run).count() == 1
    # when the chunk is graded, then it sends what it could not finish on, and nothing waits
    wait_for(lambda: pending(run) == 0, timeout=900, what="every row to be graded", poll=1)
    assert GradingChunk.objects.filter(run=run, origin=GradingChunk.Origin.SPLIT).exists()
    slow = run.items.filter(external_id__startswith="slow")
    assert set(slow.values_list("grade_state", flat=True)) <= {"graded", "quarantined"}
    assert slow.filter(grade_state="graded").exists()
    assert set(run.items.exclude(pk__in=slow).values_list("auto_verdict", flat=True)) == {"correct"}
    per_item = run.items.annotate(n=Count("evaluations")).values_list("n", flat=True)
    assert set(per_item) <= {0, len(DEFAULT_EVALUATORS)}


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="PostgreSQL only"
)
def test_a_database_connection_killed_mid_chunk_is_retried(
    user, store_upload, celery_worker_process
):
    # given a worker grading a 240-row run
    celery_worker_process(**WORKER_ENV)
    run = upload_run(user, store_upload, sample_rows(240), SAMPLE_MAPPING)
    wait_for(lambda: chunk_running(run), timeout=600, what="a chunk to start", poll=0.1)
    # when the worker's database connections are terminated, several times while it grades
    terminated = 0
    while pending(run) and terminated < 5:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
            terminated += cursor.fetchone()[0]
        time.sleep(0.3)
    assert terminated
    # then every row is still graded, once
    wait_for(lambda: pending(run) == 0, timeout=900, what="every row to be graded", poll=1)
    assert_graded_once(run, 240)


def test_sigterm_during_a_chunk_finishes_it_and_loses_nothing(  # A8
    user, store_upload, celery_worker_process
):
    # given a worker in the middle of a chunk
    worker = celery_worker_process(**WORKER_ENV)
    run = upload_run(user, store_upload, sample_rows(240), SAMPLE_MAPPING)
    # the chunk is taken by the same query that sees it running: a fast chunk may be done
    # before a second query (CI once found none left running there)
    seen: list[GradingChunk] = []

    def a_chunk_running() -> bool:
        seen[:] = GradingChunk.objects.filter(run=run, state=GradingChunk.State.RUNNING)[:1]
        return bool(seen)

    wait_for(a_chunk_running, timeout=600, what="a chunk to start", poll=0.1)
    (running,) = seen
    # when it is told to stop (a deploy), then it finishes the chunk before it exits
    worker.process.send_signal(signal.SIGTERM)
    worker.process.wait(timeout=600)
    running.refresh_from_db()
    assert running.state == GradingChunk.State.DONE
    assert not run.items.filter(pk__in=running.item_ids, grade_state="pending").exists()
    # and the next worker grades the rest, each row once, none attempted twice
    celery_worker_process(**WORKER_ENV)
    wait_for(lambda: pending(run) == 0, timeout=900, what="every row to be graded", poll=1)
    assert_graded_once(run, 240)
    assert set(run.items.values_list("grade_attempts", flat=True)) == {1}


def test_a_broker_killed_mid_task_and_restarted_loses_no_row(  # A9
    user, store_upload, celery_worker_process, redis_server, fast_reconcile
):
    # given a worker in the middle of a chunk
    celery_worker_process(**WORKER_ENV)
    run = upload_run(user, store_upload, sample_rows(240), SAMPLE_MAPPING)
    wait_for(lambda: chunk_running(run), timeout=600, what="a chunk to start", poll=0.1)
    # when Redis is killed and comes back empty (no persistence)
    redis_server.kill()
    time.sleep(1)
    redis_server.start()
    restarted_at = time.monotonic()
    # then the worker reconnects, the reconciler re-sends what was lost, and every row is
    # graded once
    reconcile_until_graded(run, timeout=900)
    print(
        f"\nbroker killed and restarted -> all rows graded: {time.monotonic() - restarted_at:.1f} s"
    )
    assert_graded_once(run, 240)


def test_a_killed_worker_s_chunk_is_re_sent_by_the_reconciler(  # A2
    user, store_upload, celery_worker_process, fast_reconcile
):
    # given a worker half way through a chunk (a batch attempted and not saved)
    worker = celery_worker_process(**WORKER_ENV)
    run = upload_run(user, store_upload, sample_rows(240), SAMPLE_MAPPING)
    in_flight = run.items.filter(grade_state=Item.GradeState.PENDING, grade_attempts=1)
    interrupted = freeze_with_a_batch_in_flight(run, in_flight, worker)
    # when the whole worker is SIGKILLed and a new one starts
    worker.kill()
    killed_at = time.monotonic()
    celery_worker_process(**WORKER_ENV)
    # then the reconciler sees the lost worker's silence and re-sends its chunk's rows long
    # before Redis would deliver the message again (visibility time-out: 240 s)
    reconcile_until_graded(run, timeout=900)
    print(f"\nworker SIGKILL -> all rows graded: {time.monotonic() - killed_at:.1f} s")
    assert GradingChunk.objects.filter(run=run, origin=GradingChunk.Origin.WORKER_LOST).exists()
    assert_graded_once(run, 240)
    attempts = dict(run.items.values_list("pk", "grade_attempts"))
    assert all(attempts[pk] == 2 for pk in interrupted)
    assert max(attempts.values()) == 2
