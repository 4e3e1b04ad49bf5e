"""Real Celery worker processes on Redis: a full run, a lost worker, and a row that kills its worker."""

from __future__ import annotations

import time
from collections.abc import Callable

import psutil
import pytest
from django.db import connection
from django.db.models import Count

from grading.evaluators import DEFAULT_EVALUATORS
from reviewer import services
from reviewer.models import Evaluation, Item, Run
from tests.conftest import SAMPLES, each_process
from tests.factories import ProjectFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SAMPLE_RUN = SAMPLES / "qwen25_math_cot_100x8.csv"
SAMPLE_MAPPING = {
    "id": "id",
    "problem": "problem",
    "gold": "gold",
    "output": "output",
    "model": "model",
    "sample_index": "sample_index",
}


def wait_for(
    condition: Callable[[], bool], *, timeout: float, what: str, poll: float = 0.5
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(poll)


def upload_run(user, store_upload, content: bytes, mapping: dict[str, str]) -> Run:
    stored = store_upload(content)
    return services.run_create(
        project=ProjectFactory(), user=user, upload_token=stored.token, mapping=mapping, name="run"
    )


def pending(run: Run) -> int:
    return run.items.filter(grade_state=Item.GradeState.PENDING).count()


def evaluations_per_item(run: Run) -> set[int]:
    counts = (
        Item.objects.filter(run=run).annotate(n=Count("evaluations")).values_list("n", flat=True)
    )
    return set(counts)


def database_idle() -> bool:
    """No other session is running a statement, so a commit sent before a freeze has landed."""
    if connection.vendor != "postgresql":
        return True  # SQLite commits inside the frozen process: what it has not done, it won't
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            " AND state = 'active'"
        )
        return cursor.fetchone()[0] == 0


def freeze_with_a_chunk_in_flight(worker, run: Run) -> set[int]:
    """Freeze the worker at a moment when a chunk's rows are attempted but not saved.

    Waiting for such rows and then killing would race the worker, which may save the chunk in
    between; frozen, it cannot, so the rows read here are the ones the kill interrupts.
    """
    in_flight = run.items.filter(grade_state=Item.GradeState.PENDING, grade_attempts=1)
    while True:
        wait_for(
            lambda: (
                run.items.filter(grade_state=Item.GradeState.GRADED).count() >= 40
                and in_flight.exists()
            ),
            timeout=600,
            what="a chunk in flight after some rows were graded",
            poll=0.2,
        )
        worker.freeze()
        wait_for(database_idle, timeout=60, what="the frozen worker's last statement", poll=0.1)
        interrupted = set(in_flight.values_list("pk", flat=True))
        if interrupted:
            return interrupted
        worker.thaw()


def test_a_worker_grades_all_800_sample_rows(user, store_upload, celery_worker_process):
    # given a worker and the 800-row sample run
    celery_worker_process(MATHJURY_CHUNK_SIZE="50")
    run = upload_run(user, store_upload, SAMPLE_RUN.read_bytes(), SAMPLE_MAPPING)
    # when the tasks sent on commit are worked through
    wait_for(lambda: pending(run) == 0, timeout=1200, what="all 800 rows to be graded", poll=2)
    # then every row has a verdict and one evaluation per evaluator, and the run is done
    wait_for(lambda: Run.objects.get(pk=run.pk).status == Run.Status.DONE, timeout=30, what="done")
    assert run.items.filter(grade_state=Item.GradeState.GRADED).count() == 800
    assert run.items.exclude(auto_verdict__in=["correct", "incorrect"]).count() == 0
    assert evaluations_per_item(run) == {len(DEFAULT_EVALUATORS)}
    assert run.items.filter(auto_verdict="correct").count() > 600  # the sample is mostly right


def test_a_killed_worker_loses_no_row_and_grades_none_twice(
    user, store_upload, celery_worker_process
):
    # given a run being graded by a worker whose tasks Redis delivers again 80 s after it is
    # lost (visibility time-out: the 20 s task limit + 60 s; no reconciler runs here)
    worker_env = {"MATHJURY_CHUNK_SIZE": "20", "MATHJURY_TASK_TIME_LIMIT": "20"}
    worker = celery_worker_process(**worker_env)
    run = upload_run(user, store_upload, SAMPLE_RUN.read_bytes(), SAMPLE_MAPPING)
    # when the whole worker is SIGKILLed while a chunk is half way (attempted, not saved)
    interrupted = freeze_with_a_chunk_in_flight(worker, run)
    worker.kill()
    assert interrupted and pending(run) > 0
    # and a new worker starts
    celery_worker_process(**worker_env)
    wait_for(lambda: pending(run) == 0, timeout=1200, what="the new worker to finish", poll=2)
    # then every row is graded once: one evaluation per evaluator, and the lost attempt counted
    assert run.items.filter(grade_state=Item.GradeState.GRADED).count() == 800
    assert evaluations_per_item(run) == {len(DEFAULT_EVALUATORS)}
    assert Evaluation.objects.filter(item__run=run).count() == 800 * len(DEFAULT_EVALUATORS)
    attempts = dict(run.items.values_list("pk", "grade_attempts"))
    assert all(attempts[pk] == 2 for pk in interrupted)
    assert max(attempts.values()) == 2


SLOW_ROW_CSV = "\n".join(
    ["id,gold,output"]
    + [f'r{n},{n},"{n} apples, so \\boxed{{{n}}}"' for n in range(1, 6)]
    + ['poison,1,"so \\boxed{\\sin(10^{10^{10}})}"']
    + [f'r{n},{n},"so \\boxed{{{n + 1}}}"' for n in range(7, 13)]
).encode()


def kill_pool_child(worker) -> bool:
    """SIGKILL the worker's task process and the grading processes under it, like the OOM killer."""
    children = worker.pool_children()
    for child in children:
        each_process([*child.children(recursive=True), child], psutil.Process.kill)
    return bool(children)


def test_a_row_that_keeps_killing_its_worker_is_quarantined(
    user, store_upload, celery_worker_process
):
    """No input can crash the task process itself (grading runs in sandboxes), so the crash
    comes from outside: every time the slow row's attempt starts, its task process is killed,
    as the kernel's OOM killer would."""
    worker = celery_worker_process(MATHJURY_CHUNK_SIZE="4")
    run = upload_run(
        user, store_upload, SLOW_ROW_CSV, {"id": "id", "gold": "gold", "output": "output"}
    )
    poison = run.items.get(external_id="poison")
    kills = 0
    deadline = time.monotonic() + 600
    while pending(run) and time.monotonic() < deadline:
        poison.refresh_from_db()
        if poison.grade_state == Item.GradeState.PENDING and poison.grade_attempts > kills:
            assert kill_pool_child(worker)
            kills += 1
        time.sleep(0.05)
    assert pending(run) == 0, "the run did not finish"
    poison.refresh_from_db()
    assert kills == 3
    assert (poison.grade_state, poison.grade_attempts) == (Item.GradeState.QUARANTINED, 3)
    others = run.items.exclude(pk=poison.pk)
    assert others.filter(grade_state=Item.GradeState.GRADED).count() == 11
    assert evaluations_per_item(run) == {0, len(DEFAULT_EVALUATORS)}
    wait_for(lambda: Run.objects.get(pk=run.pk).status == Run.Status.DONE, timeout=30, what="done")
