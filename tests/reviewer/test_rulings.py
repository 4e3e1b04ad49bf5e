"""Equivalence rulings: one human verdict on a (gold, prediction) pair applied to the project's
other undecided rows with that pair, and undone."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404

from grading.evaluators import build_evaluators
from grading.pairs import pair_key
from grading.pipeline import grade_sample
from grading.types import Sample
from reviewer import access, services
from reviewer.models import AuditEvent, Item, Membership, Review, Ruling
from reviewer.services.rulings import RulingError, ruling_apply, ruling_candidates, ruling_undo
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

Role = Membership.Role
HALF = "\\frac{1}{2}"


def paired_row(run, prediction: str, gold: str = HALF, **kwargs) -> Item:
    """A graded row whose shown prediction is ``prediction``, with its pair key, as grading
    leaves it (auto verdict "incorrect" unless told)."""
    fields = {"auto_verdict": "incorrect", "final_verdict": "incorrect", **kwargs}
    item = GradedItemFactory(
        run=run,
        gold=gold,
        output=f"so \\boxed{{{prediction}}}",
        pair_key=pair_key(gold, prediction),
        **fields,
    )
    EvaluationFactory(item=item, verdict=fields["auto_verdict"], extracted=prediction)
    return item


@pytest.fixture
def project_rows(user):
    """A row of a project reviewed "correct" by the owner, and the rows around it: same pair
    in the same run and in another run, same pair but decided, under blind review or in
    conflict, a different pair, and the same pair in another project."""
    project = ProjectFactory()
    run, other_run = RunFactory(project=project), RunFactory(project=project)
    source = paired_row(run, "0.5")
    services.item_review(item=source, user=user, verdict="correct")
    rows = {
        "source": source,
        "same_run": paired_row(run, "\\dfrac{1}{2}"),
        "other_run": paired_row(other_run, "0.5"),
        "decided": paired_row(run, "1/2", final_verdict="gold_wrong", final_source="human"),
        "blind": paired_row(run, "0.5", review_stage=Item.ReviewStage.BLIND),
        "conflict": paired_row(run, "0.5", review_stage=Item.ReviewStage.CONFLICT),
        "different": paired_row(run, "0.25"),
        "other_project": paired_row(RunFactory(), "0.5"),
    }
    for item in rows.values():
        item.refresh_from_db()
    return rows


def test_candidates_are_the_projects_undecided_rows_with_the_same_gold_and_prediction(
    project_rows,
):
    candidates = ruling_candidates(item=project_rows["source"])
    assert set(candidates) == {project_rows["same_run"], project_rows["other_run"]}


def test_a_row_without_a_prediction_has_no_candidates(user):
    run = RunFactory()
    source = GradedItemFactory(run=run, pair_key="")
    GradedItemFactory(run=run, pair_key="")
    services.item_review(item=source, user=user, verdict="incorrect")
    assert not ruling_candidates(item=source).exists()


def test_grading_writes_the_pair_key_that_groups_rows_for_a_ruling(user):
    # Given three rows with gold 1/2 graded by the real engine: two answers that normalise
    # alike ("0.5" and "\dfrac{1}{2}") and one that does not
    run = RunFactory(evaluators=["math_verify", "exact"])
    outputs = ["so \\boxed{0.5}", "so \\boxed{\\dfrac{1}{2}}", "so \\boxed{0.25}"]
    items = [ItemFactory(run=run, gold=HALF, output=output) for output in outputs]
    evaluators = build_evaluators(run.evaluators)
    results = [
        (i.pk, grade_sample(Sample(gold=i.gold, output=i.output), evaluators)) for i in items
    ]

    # When the results are saved
    services.grading_results_save(run_id=run.pk, generation=1, results=results)

    # Then the two alike share a pair key, the third has its own, and a ruling on the first
    # would decide the second only
    half, dfrac, quarter = (Item.objects.get(pk=i.pk) for i in items)
    assert half.pair_key and half.pair_key == dfrac.pair_key != quarter.pair_key
    services.item_review(item=half, user=user, verdict="correct")
    assert list(ruling_candidates(item=half)) == [dfrac]


def test_applying_a_ruling_decides_every_candidate_and_records_it(project_rows, user):
    source = project_rows["source"]
    same_run, other_run = project_rows["same_run"], project_rows["other_run"]

    ruling = ruling_apply(item=source, user=user)

    # Every candidate now has the human verdict "correct", by the ruling
    for item in (same_run, other_run):
        item.refresh_from_db()
        assert (item.final_verdict, item.final_source, item.version) == ("correct", "human", 1)
        review = item.reviews.get()
        assert (review.kind, review.ruling, review.annotator) == ("ruling", ruling, user)
    assert (ruling.rows_applied, ruling.verdict, ruling.source_item) == (2, "correct", source)
    assert (ruling.gold, ruling.prediction) == (HALF, "0.5")
    # rows outside the ruling are untouched
    for name in ("decided", "blind", "conflict", "different", "other_project"):
        row = project_rows[name]
        assert not row.reviews.exists()
        assert Item.objects.get(pk=row.pk).final_verdict == row.final_verdict

    # One project-level event for the ruling, one verdict event per row it decided
    made = AuditEvent.objects.get(action="ruling")
    assert (made.actor, made.project_id, made.item_id) == (user, source.run.project_id, source.pk)
    assert "applied to 2 other rows" in made.summary
    verdicts = AuditEvent.objects.filter(action="verdict", data__ruling=ruling.pk)
    assert {e.item_id for e in verdicts} == {same_run.pk, other_run.pk}
    assert {(e.data["before"], e.data["after"]) for e in verdicts} == {("incorrect", "correct")}


def test_a_ruling_needs_a_human_verdict_on_its_row(project_rows, user):
    with pytest.raises(RulingError, match="decide this row first"):
        ruling_apply(item=project_rows["same_run"], user=user)
    assert not Ruling.objects.exists()


def test_a_ruling_with_no_rows_to_decide_is_refused(user):
    source = paired_row(RunFactory(), "0.5")
    services.item_review(item=source, user=user, verdict="correct")

    with pytest.raises(RulingError, match="no other row"):
        ruling_apply(item=source, user=user)
    assert not Ruling.objects.exists()


def test_undoing_a_ruling_puts_rows_back_except_those_reviewed_since(project_rows, user):
    # Given a ruling on two rows, one of which someone reviewed afterwards
    same_run, other_run = project_rows["same_run"], project_rows["other_run"]
    ruling = ruling_apply(item=project_rows["source"], user=user)
    services.item_review(item=other_run, user=user, verdict="gold_wrong")

    # When the ruling is undone
    ruling = ruling_undo(ruling=ruling, user=user)

    # Then the untouched row is back to its automatic verdict without the ruling's review, and
    # the reviewed one keeps its reviewer's verdict
    same_run.refresh_from_db()
    assert (same_run.final_verdict, same_run.final_source) == ("incorrect", "auto")
    assert not same_run.reviews.exists()
    other_run.refresh_from_db()
    assert (other_run.final_verdict, other_run.final_source) == ("gold_wrong", "human")
    assert ruling.rows_restored == 1 and ruling.undone_by == user and ruling.undone_at
    undone = AuditEvent.objects.get(action="ruling_undo")
    assert undone.data == {"ruling": ruling.pk, "restored": 1, "kept": 1}
    assert "1 kept" in undone.summary

    # and it cannot be undone twice
    with pytest.raises(RulingError, match="already undone"):
        ruling_undo(ruling=ruling, user=user)


def test_undoing_a_ruling_makes_its_rows_candidates_again(project_rows, user):
    source = project_rows["source"]
    ruling = ruling_undo(ruling=ruling_apply(item=source, user=user), user=user)

    assert ruling.rows_restored == 2
    assert ruling_candidates(item=source).count() == 2
    assert ruling_apply(item=source, user=user).rows_applied == 2


def test_who_may_undo_a_ruling(user):
    # Given a ruling an annotator made in a run nobody split
    maker, other, adjudicator, viewer = (UserFactory(password="!") for _ in range(4))
    project = ProjectFactory(
        members={
            maker: Role.ANNOTATOR,
            other: Role.ANNOTATOR,
            adjudicator: Role.ADJUDICATOR,
            viewer: Role.VIEWER,
        }
    )
    run = RunFactory(project=project)
    source = paired_row(run, "0.5")
    paired_row(run, "0.5")
    services.item_review(item=source, user=maker, verdict="correct")
    ruling = ruling_apply(item=source, user=maker)

    # Then its maker, an adjudicator and the owner may undo it; nobody else
    for allowed in (maker, adjudicator, user):
        assert access.ruling_for(allowed, ruling.pk) == ruling
    for refused in (other, viewer):
        with pytest.raises(PermissionDenied):
            access.ruling_for(refused, ruling.pk)
    with pytest.raises(Http404):
        access.ruling_for(UserFactory(password="!"), ruling.pk)


def test_an_annotator_who_may_no_longer_make_rulings_cannot_undo_theirs(user):
    maker = UserFactory(password="!")
    project = ProjectFactory(members={maker: Role.ANNOTATOR})
    run = RunFactory(project=project)
    source = paired_row(run, "0.5")
    paired_row(run, "0.5")
    services.item_review(item=source, user=maker, verdict="correct")
    ruling = ruling_apply(item=source, user=maker)

    services.membership_set(project=project, user=maker, role=Role.VIEWER, by=user)

    with pytest.raises(PermissionDenied):
        access.ruling_for(maker, ruling.pk)
    assert Review.objects.filter(ruling=ruling).count() == 1
