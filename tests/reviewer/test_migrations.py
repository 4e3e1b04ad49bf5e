"""Data migrations run against real rows: the schema is taken back to before the migration,
rows are written as the app wrote them then, and the migration is applied forward again."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE_SCORES = ("reviewer", "0002_export_and_review_idempotency")
WITH_SCORES = ("reviewer", "0003_item_evaluator_scores")


@pytest.fixture
def migrator(transactional_db):
    """Migrate the test database to any state; put back at the newest migrations afterwards."""
    executor = MigrationExecutor(connection)
    newest = executor.loader.graph.leaf_nodes()

    def migrate(target):
        executor.loader.build_graph()
        executor.migrate([target])
        return executor.loader.project_state([target]).apps

    yield migrate
    executor.loader.build_graph()
    executor.migrate(newest)


def test_items_graded_before_the_scores_existed_get_them_from_their_evaluations(
    migrator, monkeypatch
):
    # Given rows graded before Item.evaluator_scores existed (one with a correct verdict, no
    # answer and a time-out, one all correct) and a row still waiting to be graded; one item
    # per batch, so that the batches follow on from each other
    migration = importlib.import_module("reviewer.migrations.0003_item_evaluator_scores")
    monkeypatch.setattr(migration, "BATCH", 1)
    apps = migrator(BEFORE_SCORES)
    Project, Run = apps.get_model("reviewer", "Project"), apps.get_model("reviewer", "Run")
    Item, Evaluation = apps.get_model("reviewer", "Item"), apps.get_model("reviewer", "Evaluation")
    run = Run.objects.create(
        project=Project.objects.create(name="before"),
        name="graded before",
        source_filename="outputs.csv",
        source_sha256="0" * 64,
        evaluators=["math_verify", "strict", "exact"],
    )
    mixed, waiting, correct = (
        Item.objects.create(
            run=run, row_number=n, source_line=n + 1, gold="4", output="so \\boxed{4}"
        )
        for n in (1, 2, 3)
    )
    for item, evaluator, status, verdict in [
        (mixed, "math_verify", "ok", "correct"),
        (mixed, "strict", "no_answer", ""),
        (mixed, "exact", "timeout", ""),
        (correct, "math_verify", "ok", "correct"),
        (correct, "strict", "ok", "correct"),
        (correct, "exact", "ok", "correct"),
    ]:
        Evaluation.objects.create(
            item=item, evaluator=evaluator, evaluator_version="1", status=status, verdict=verdict
        )

    # When the migration runs
    apps = migrator(WITH_SCORES)

    # Then each graded row holds every evaluator's score and the waiting row none
    scores = dict(apps.get_model("reviewer", "Item").objects.values_list("pk", "evaluator_scores"))
    assert scores == {
        mixed.pk: "exact:x math_verify:c strict:i",
        waiting.pk: "",
        correct.pk: "exact:c math_verify:c strict:c",
    }


def test_the_creator_of_a_project_from_before_roles_becomes_its_owner(migrator):
    # Given projects made before memberships existed, one by a user and one by nobody
    apps = migrator(WITH_SCORES)
    User = apps.get_model("auth", "User")
    Project = apps.get_model("reviewer", "Project")
    alice = User.objects.create(username="alice")
    made = Project.objects.create(name="made by alice", created_by=alice)
    Project.objects.create(name="imported by an operator")

    # When the membership migration runs
    apps = migrator(("reviewer", "0004_membership"))

    # Then alice owns her project and the other has no members
    members = apps.get_model("reviewer", "Membership").objects.values_list(
        "project_id", "user_id", "role"
    )
    assert list(members) == [(made.pk, alice.pk, "owner")]
