"""Workers on more than one machine: two worker processes that share only the broker and the
database (each its own data directory) grade one run; one is killed half way, and every row is
still graded exactly once. The health report sees both, with the queues they consume."""

from __future__ import annotations

import csv
import io

import pytest
from django.conf import settings

from grading.evaluators import DEFAULT_EVALUATORS
from reviewer.health import health_check
from reviewer.models import Evaluation, Item
from tests.reviewer.test_worker import (
    SAMPLE_MAPPING,
    SAMPLE_RUN,
    evaluations_per_item,
    pending,
    upload_run,
    wait_for,
)
from tests.reviewer.test_worker_faults import freeze_with_a_batch_in_flight, resume

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROWS = 240


def test_two_machines_grade_a_run_once_though_one_dies(
    user, store_upload, celery_worker_process, tmp_path
):
    # Given two workers as on two machines: own data folders, the same broker and database,
    # tasks redelivered 50 s after their worker is lost
    with SAMPLE_RUN.open(newline="", encoding="utf-8") as source:
        reader = csv.reader(source)
        rows = [next(reader) for _ in range(ROWS + 1)]  # the header and ROWS rows
    text = io.StringIO(newline="")
    csv.writer(text).writerows(rows)
    content = text.getvalue().encode()
    env = {"MATHJURY_CHUNK_SIZE": "10", "MATHJURY_TASK_TIME_LIMIT": "20"}
    first = celery_worker_process(MATHJURY_DATA_DIR=str(tmp_path / "machine-a"), **env)
    second = celery_worker_process(MATHJURY_DATA_DIR=str(tmp_path / "machine-b"), **env)

    # The health report sees both, each consuming every queue
    health = health_check(ping_timeout=5)
    assert health.workers is not None and len(health.workers) == 2
    assert all(set(queues) == set(settings.MATHJURY_QUEUES) for queues in health.workers.values())

    # When a run is uploaded, and the first machine dies with a chunk in flight
    run = upload_run(user, store_upload, content, SAMPLE_MAPPING)
    in_flight = run.items.filter(grade_state=Item.GradeState.PENDING, grade_attempts=1)
    freeze_with_a_batch_in_flight(run, in_flight, first, second)
    first.kill()
    resume([second])
    assert pending(run) > 0

    # Then the second machine grades the rest, the lost chunk included, once each
    wait_for(lambda: pending(run) == 0, timeout=1200, what="the other worker to finish", poll=2)
    assert run.items.filter(grade_state=Item.GradeState.GRADED).count() == ROWS
    assert evaluations_per_item(run) == {len(DEFAULT_EVALUATORS)}
    assert Evaluation.objects.filter(item__run=run).count() == ROWS * len(DEFAULT_EVALUATORS)
    assert max(run.items.values_list("grade_attempts", flat=True)) <= 2
    # and the dead worker has dropped out of the report
    assert len(health_check(ping_timeout=5).workers or {}) == 1
