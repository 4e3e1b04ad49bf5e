"""The audit trail: what each change writes, and the database refusing to rewrite it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import DatabaseError, connection, transaction

from grading.evaluators import build_evaluators
from grading.pipeline import grade_sample
from grading.types import Sample
from reviewer import services
from reviewer.models import AuditEvent, Membership, Project
from tests.factories import GradedItemFactory, ItemFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

REPO_ROOT = Path(__file__).resolve().parents[2]
REFUSAL = "append-only"
CSV = (
    b'id,problem,gold,output\na,What is 2+2?,4,"so \\boxed{4}"\nb,What is 3*3?,9,"so \\boxed{6}"\n'
)
MAPPING = {"id": "id", "problem": "problem", "gold": "gold", "output": "output"}


def graded(gold: str, output: str, evaluators: list[str]):
    """The real engine's result for one sample (unsandboxed, in this process)."""
    return grade_sample(Sample(gold=gold, output=output), build_evaluators(evaluators))


def only_event(action: str) -> AuditEvent:
    return AuditEvent.objects.get(action=action)


# ---- what is written ------------------------------------------------------------------------


def test_an_upload_and_a_regrade_are_recorded_with_who_and_what(user, store_upload):
    project = ProjectFactory()
    stored = store_upload(CSV, "maths.csv")

    run = services.run_create(
        project=project,
        user=user,
        upload_token=stored.token,
        mapping=MAPPING,
        name="baseline",
        evaluators=["math_verify", "exact"],
    )
    services.run_regrade(run=run, evaluators=["strict"], user=user)

    upload = only_event("upload")
    assert (upload.actor, upload.actor_name, upload.project, upload.run) == (
        user,
        user.username,
        project,
        run,
    )
    assert upload.project_name == project.name
    assert "“baseline”" in upload.summary and "maths.csv" in upload.summary
    assert "2 rows" in upload.summary and upload.data["rows"] == 2
    regrade = only_event("regrade")
    assert (regrade.actor, regrade.run) == (user, run)
    assert "re-graded with strict" in regrade.summary
    assert regrade.data == {"evaluators": ["strict"], "generation": 2}


def test_a_review_is_recorded_with_the_verdict_before_and_after(user):
    item = GradedItemFactory(auto_verdict="correct", final_verdict="correct")

    services.item_review(item=item, user=user, verdict="incorrect", note="sign error")

    event = only_event("verdict")
    assert (event.actor, event.item_id, event.run_id) == (user, item.pk, item.run_id)
    assert event.summary == f"Row {item.row_number}: reviewed as “Incorrect”"
    assert (event.data["before"], event.data["after"], event.data["source"]) == (
        "correct",
        "incorrect",
        "human",
    )
    assert event.data["note"] == "sign error"


def test_membership_changes_are_recorded(user):
    project = ProjectFactory()
    member = UserFactory(username="alice", password="!")

    services.membership_set(project=project, user=member, role="annotator", by=user)
    services.membership_set(project=project, user=member, role="annotator", by=user)  # no change
    services.membership_set(project=project, user=member, role="adjudicator", by=user)
    services.membership_remove(project=project, user=member, by=user)

    events = AuditEvent.objects.filter(project=project).order_by("id")
    assert [(e.action, e.actor, e.summary) for e in events] == [
        ("member_set", user, "alice is now annotator (added)"),
        ("member_set", user, "alice is now adjudicator (was annotator)"),
        ("member_remove", user, "alice removed (was adjudicator)"),
    ]
    assert events[1].data == {"user": "alice", "before": "annotator", "after": "adjudicator"}


def test_the_record_of_a_project_deletion_outlives_the_project(user):
    project = ProjectFactory(name="Old experiments")
    run = RunFactory(project=project)
    item = GradedItemFactory(run=run)
    services.item_review(item=item, user=user, verdict="incorrect")
    pk = project.pk

    services.project_delete(project=project, by=user)

    assert not Project.objects.filter(pk=pk).exists()
    deleted = only_event("project_delete")
    assert (deleted.actor, deleted.project_id, deleted.project_name) == (
        user,
        pk,
        "Old experiments",
    )
    assert deleted.summary == "Project “Old experiments” deleted with its 1 runs"
    # the project's earlier events are kept too, still naming it
    review = only_event("verdict")
    assert (review.project_id, review.project_name, review.item_id) == (
        pk,
        "Old experiments",
        item.pk,
    )


def test_a_regrade_that_changes_an_automatic_verdict_records_the_new_verdict(user):
    # Given a run graded once by math_verify: one row it calls correct that exact will not,
    # one all agree on, and one a person reviewed
    run = RunFactory(evaluators=["math_verify"], status="grading", total_rows=3)
    rows = {
        "changes": ("x^2+2x", "so \\boxed{2x+x^2}"),
        "stays": ("4", "so \\boxed{4}"),
        "reviewed": ("x^2+2x", "so \\boxed{x(x+2)}"),
    }
    items = {name: ItemFactory(run=run, gold=g, output=o) for name, (g, o) in rows.items()}

    def grade(generation: int, evaluators: list[str]) -> None:
        results = [(items[n].pk, graded(g, o, evaluators)) for n, (g, o) in rows.items()]
        services.grading_results_save(run_id=run.pk, generation=generation, results=results)
        services.run_finish_if_done(run_id=run.pk, generation=generation)

    # When it is first graded
    grade(1, ["math_verify"])

    # Then no row gets a verdict event, but the run gets one "graded" event
    assert not AuditEvent.objects.filter(action="verdict").exists()
    finished = only_event("graded")
    assert (finished.actor, finished.run_id, finished.data["generation"]) == (None, run.pk, 1)
    assert finished.summary.startswith(f"Run “{run.name}” graded: 3 rows")

    # When a person reviews one row and the run is re-graded by exact
    services.item_review(item=items["reviewed"], user=user, verdict="correct")
    run = services.run_regrade(run=run, evaluators=["exact"], user=user)
    grade(2, ["exact"])

    # Then only the row whose automatic verdict changed has a system event, whose "after" is
    # the row's final verdict now
    changed = AuditEvent.objects.get(action="verdict", actor=None)
    items["changes"].refresh_from_db()
    assert changed.item_id == items["changes"].pk
    assert (changed.data["before"], changed.data["after"]) == ("correct", "incorrect")
    assert changed.data["after"] == items["changes"].final_verdict
    assert changed.data["source"] == "auto" == items["changes"].final_source
    assert f"Row {items['changes'].row_number}" in changed.summary
    assert AuditEvent.objects.filter(action="graded").count() == 2


def test_deleting_a_user_keeps_their_events_and_name(user):
    actor = UserFactory(username="bob", password="!")
    project = ProjectFactory(members={actor: Membership.Role.OWNER})
    services.membership_set(
        project=project, user=UserFactory(password="!"), role="viewer", by=actor
    )

    pk = actor.pk
    actor.delete()

    event = only_event("member_set")
    assert (event.actor_id, event.actor_name) == (pk, "bob")


# ---- the database refuses rewrites ----------------------------------------------------------


@pytest.fixture
def recorded_event(user) -> AuditEvent:
    item = GradedItemFactory()
    services.item_review(item=item, user=user, verdict="incorrect")
    return only_event("verdict")


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE reviewer_auditevent SET summary = 'nothing happened' WHERE id = %s",
        "DELETE FROM reviewer_auditevent WHERE id = %s",
    ],
    ids=["update", "delete"],
)
def test_postgresql_refuses_raw_sql_that_rewrites_the_trail(recorded_event, sql):
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL trigger; SQLite's is tested below")
    with pytest.raises(DatabaseError, match=REFUSAL), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql, [recorded_event.pk])
    recorded_event.refresh_from_db()
    assert recorded_event.summary.endswith("reviewed as “Incorrect”")


def test_the_orm_cannot_update_or_delete_audit_events(recorded_event):
    events = AuditEvent.objects.filter(pk=recorded_event.pk)
    with pytest.raises(DatabaseError, match=REFUSAL), transaction.atomic():
        events.update(summary="nothing happened")
    with pytest.raises(DatabaseError, match=REFUSAL), transaction.atomic():
        events.delete()
    with pytest.raises(DatabaseError, match=REFUSAL), transaction.atomic():
        recorded_event.summary = "nothing happened"
        recorded_event.save()
    assert AuditEvent.objects.get(pk=recorded_event.pk).summary.endswith("“Incorrect”")


def test_sqlite_refuses_updates_and_deletes_of_audit_events(tmp_path):
    # Given a SQLite database migrated by manage.py, as bin/start makes one
    database = tmp_path / "db.sqlite3"
    env = {
        "PATH": os.environ["PATH"],
        "SECRET_KEY": "insecure-key-for-tests-only",
        "DATABASE_URL": f"sqlite:///{database}",
        "MATHJURY_DATA_DIR": str(tmp_path / "data"),
    }
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert migrated.returncode == 0, migrated.stderr

    # ... holding one audit event
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO reviewer_auditevent (at, actor_name, action, project_name, summary, data)"
            " VALUES ('2026-01-01 00:00:00', 'alice', 'upload', 'P', 'Run uploaded', '{}')"
        )
    db = sqlite3.connect(database)
    try:
        # Then changing or deleting it is refused, and it stays as written
        with pytest.raises(sqlite3.DatabaseError, match=REFUSAL):
            db.execute("UPDATE reviewer_auditevent SET summary = 'nothing happened'")
        with pytest.raises(sqlite3.DatabaseError, match=REFUSAL):
            db.execute("DELETE FROM reviewer_auditevent")
        db.rollback()
        assert db.execute("SELECT summary FROM reviewer_auditevent").fetchall() == [
            ("Run uploaded",)
        ]
    finally:
        db.close()
