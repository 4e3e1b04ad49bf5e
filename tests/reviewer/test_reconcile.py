"""The reconciler and the chunk lease, in this process (the engine and sandbox are real; the
broker is the test's Redis database). Real workers and broker faults: test_worker_faults.py."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from reviewer import selectors, services
from reviewer.models import Evaluation, GradingChunk, Item, Run
from reviewer.tasks import grade_chunk
from tests.reviewer.test_tasks import create_run

pytestmark = pytest.mark.django_db(transaction=True)


def queued(broker) -> int:
    return broker.llen("grading")  # reviewer.settings.CELERY_TASK_ROUTES


def test_rows_whose_message_the_broker_lost_are_sent_again_once(  # A7
    user, store_upload, celery_broker, settings
):
    # given a run whose chunk was sent a while ago, and a broker that lost it (FLUSHALL)
    settings.MATHJURY_GRADING_STALE_SECONDS = 30
    run = create_run(user, store_upload)
    (lost,) = GradingChunk.objects.filter(run=run)
    GradingChunk.objects.filter(pk=lost.pk).update(sent_at=timezone.now() - timedelta(minutes=5))
    celery_broker.flushdb()
    # when the reconciler runs (as a command, as bin/start runs it)
    call_command("reconcile")
    # then the rows are sent again in a new chunk, and the lost one is abandoned
    lost.refresh_from_db()
    resent = GradingChunk.objects.get(run=run, origin=GradingChunk.Origin.NO_MESSAGE)
    assert lost.state == GradingChunk.State.ABANDONED
    assert sorted(resent.item_ids) == sorted(run.items.values_list("pk", flat=True))
    assert queued(celery_broker) == 1
    # and a second pass sends nothing more: the new chunk's message waits in the broker
    assert services.grading_reconcile().rows_resent == {}
    assert queued(celery_broker) == 1
    # and the lost chunk's message, should it turn up, does nothing
    assert grade_chunk(lost.pk) == 0 and not Evaluation.objects.exists()
    assert grade_chunk(resent.pk) == 4
    assert Run.objects.get(pk=run.pk).status == Run.Status.DONE


def test_rows_a_live_worker_holds_are_left_alone(user, store_upload, celery_broker, settings):
    run = create_run(user, store_upload)
    GradingChunk.objects.filter(run=run).update(
        state=GradingChunk.State.RUNNING, holder="elsewhere", heartbeat_at=timezone.now()
    )
    celery_broker.flushdb()
    report = services.grading_reconcile()
    assert report.rows_resent == {} and queued(celery_broker) == 0
    # and a second delivery of that chunk leaves it to its holder: nothing counted or graded
    (chunk,) = GradingChunk.objects.filter(run=run)
    assert grade_chunk(chunk.pk) == 0
    assert set(run.items.values_list("grade_attempts", flat=True)) == {0}


def test_rows_of_a_worker_that_stopped_reporting_are_sent_again(
    user, store_upload, celery_broker, settings
):
    # given a chunk whose worker last reported two minutes ago, with one batch attempted
    settings.MATHJURY_GRADING_STALE_SECONDS = 60
    run = create_run(user, store_upload)
    (silent,) = GradingChunk.objects.filter(run=run)
    GradingChunk.objects.filter(pk=silent.pk).update(
        state=GradingChunk.State.RUNNING,
        holder="lost",
        heartbeat_at=timezone.now() - timedelta(minutes=2),
    )
    first = run.items.order_by("row_number").first()
    Item.objects.filter(pk=first.pk).update(grade_attempts=1)
    celery_broker.flushdb()
    # when the reconciler runs, then its rows are sent again
    report = services.grading_reconcile()
    assert report.rows_resent == {run.pk: 4}
    resent = GradingChunk.objects.get(run=run, origin=GradingChunk.Origin.WORKER_LOST)
    # and the page says so while the rows wait
    health = selectors.run_grading_health(run=Run.objects.get(pk=run.pk))
    assert health.resent_rows == 4 and "stopped reporting" in health.resent_reason
    # and grading it counts the lost attempt: the attempted row has had two
    assert grade_chunk(resent.pk) == 4
    attempts = dict(run.items.values_list("pk", "grade_attempts"))
    assert attempts.pop(first.pk) == 2 and set(attempts.values()) == {1}


def test_a_run_with_no_row_left_is_finished(user, store_upload, celery_broker):
    run = create_run(user, store_upload)
    run.items.update(grade_state=Item.GradeState.QUARANTINED)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.GRADING)
    assert services.grading_reconcile().runs_finished == [run.pk]
    assert Run.objects.get(pk=run.pk).status == Run.Status.DONE


def test_the_page_says_when_no_worker_was_seen(user, store_upload, celery_broker):
    run = create_run(user, store_upload)
    health = selectors.run_grading_health(run=run)
    assert (health.problem, health.heartbeat_age, health.worker_age) == ("no_worker", None, None)
    GradingChunk.objects.filter(run=run).update(
        state=GradingChunk.State.RUNNING, heartbeat_at=timezone.now() - timedelta(seconds=3)
    )
    health = selectors.run_grading_health(run=run)
    assert health.problem == "" and health.heartbeat_age >= 3


def test_the_run_page_shows_the_heartbeat_and_a_worker_that_stopped_reporting(
    client, user, store_upload, celery_broker, settings
):
    # given a run whose chunk's worker last reported two minutes ago
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    run = create_run(user, store_upload)
    two_minutes_ago = timezone.now() - timedelta(minutes=2)
    GradingChunk.objects.filter(run=run).update(
        state=GradingChunk.State.RUNNING, heartbeat_at=two_minutes_ago
    )
    Run.objects.filter(pk=run.pk).update(grading_queued_at=two_minutes_ago)
    client.force_login(user)
    url = reverse("run_detail", args=[run.pk])

    def summary() -> str:
        return client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="summary").content.decode()

    # when its page polls the summary, then it gives the heartbeat's age, and with no other
    # worker reporting either, says no worker is running
    body = summary()
    assert "Last heartbeat from a worker on this run 1" in body  # 120 s and counting
    assert 'data-stalled="no_worker"' in body and "Is a Celery worker running?" in body
    # and when a worker reports on another run, that this run's worker stopped reporting
    other = create_run(user, store_upload, content=b"id,gold,output\nx,1,1\n")
    GradingChunk.objects.filter(run=other).update(
        state=GradingChunk.State.RUNNING, heartbeat_at=timezone.now()
    )
    body = summary()
    assert 'data-stalled="worker_silent"' in body and "stopped reporting" in body


def test_a_reconcile_pass_deletes_uploads_never_confirmed_and_keeps_fresh_ones(
    store_upload, celery_broker, settings
):
    # given an upload left at the mapping step two days ago, and one stored just now
    settings.MATHJURY_UPLOAD_KEEP_HOURS = 24
    abandoned = store_upload(b"gold,output\n1,1\n", "old.csv")
    fresh = store_upload(b"gold,output\n2,2\n", "new.csv")
    two_days_ago = time.time() - 48 * 3600
    abandoned_files = list(settings.UPLOAD_DIR.glob(f"{abandoned.token}*"))
    for path in abandoned_files:
        os.utime(path, (two_days_ago, two_days_ago))
    # when the reconciler makes its pass (bin/start and docker-compose run it every minute)
    call_command("reconcile")
    # then the abandoned upload is gone and the fresh one is kept
    assert abandoned_files and not any(path.exists() for path in abandoned_files)
    assert list(settings.UPLOAD_DIR.glob(f"{fresh.token}*"))
