"""Splitting a run's review queue among annotators, blind double review and queue progress."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied

from reviewer import access, audit, selectors, services
from reviewer.models import Assignment, AuditEvent, Item, Membership, Review, Run
from reviewer.services.assignments import AssignmentError, my_queue, queue_progress, run_assign
from tests.factories import (
    AssignmentFactory,
    GradedItemFactory,
    ItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

Role = Membership.Role
Stage = Item.ReviewStage


def team(*roles: str):
    """A project owned by the test user, with one new member per role (named after it)."""
    # An unusable password: these users never log in, and hashing one takes most of a second.
    members = [
        UserFactory(username=f"{role}{n}", password="!") for n, role in enumerate(roles, start=1)
    ]
    project = ProjectFactory(members=dict(zip(members, roles, strict=True)))
    return project, members


def graded_run(project, *, flagged: int, unflagged: int = 0, **kwargs) -> Run:
    """A finished run of ``flagged`` rows the jury flagged and ``unflagged`` it did not."""
    run = RunFactory(project=project, **{"status": Run.Status.DONE, **kwargs})
    for _ in range(flagged):
        GradedItemFactory(run=run, needs_review=True)
    for _ in range(unflagged):
        GradedItemFactory(run=run, needs_review=False)
    return run


def queue_of(user, run) -> set[int]:
    return set(
        Assignment.objects.filter(item__run=run, annotator=user).values_list("item_id", flat=True)
    )


def assignees(item) -> set[str]:
    return set(item.assignments.values_list("annotator__username", flat=True))


# ---- splitting ------------------------------------------------------------------------------


def test_an_even_split_gives_each_annotator_an_equal_share_of_the_flagged_rows(user):
    # Given three annotators and a run of 10 flagged and 5 unflagged rows (no spot check)
    project, annotators = team(Role.ANNOTATOR, Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=10, unflagged=5)

    # When the owner splits the review queue evenly
    result = run_assign(run=run, shares=dict.fromkeys(annotators, 1), by=user)

    # Then every flagged row is in exactly one queue, the queues differ by at most one row,
    # and no unflagged row was handed out
    flagged = set(run.items.filter(needs_review=True).values_list("pk", flat=True))
    queues = [queue_of(a, run) for a in annotators]
    assert set().union(*queues) == flagged and sum(len(q) for q in queues) == 10
    assert max(map(len, queues)) - min(map(len, queues)) <= 1
    assert result.per_annotator == {
        a.username: len(q) for a, q in zip(annotators, queues, strict=True)
    }
    assert result.rows == 10 and result.blind_rows == 0


def test_the_queue_scope_hands_out_the_spot_check_with_the_flagged_rows(user, settings):
    # Given a spot check of half the unflagged rows
    settings.MATHJURY_SPOT_CHECK_PERCENT = 50
    project, annotators = team(Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=6, unflagged=40)
    sample = {
        item.pk
        for item in run.items.filter(needs_review=False)
        if selectors.item_queue_rank(item) == 2
    }
    assert 0 < len(sample) < 40  # the sample is a real part of the unflagged rows

    # When the queue is split evenly
    run_assign(run=run, shares=dict.fromkeys(annotators, 1), scope="queue", by=user)

    # Then the flagged rows and the sample are handed out, evenly, and nothing else
    flagged = set(run.items.filter(needs_review=True).values_list("pk", flat=True))
    first, second = (queue_of(a, run) for a in annotators)
    assert first | second == flagged | sample and not first & second
    assert abs(len(first) - len(second)) <= 1


def test_a_split_by_weights_two_to_one_gives_about_twice_the_rows(user):
    project, (heavy, light) = team(Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=30)

    result = run_assign(run=run, shares={heavy: 2, light: 1}, by=user)

    assert abs(len(queue_of(heavy, run)) - 20) <= 1
    assert abs(len(queue_of(light, run)) - 10) <= 1
    assert sum(result.per_annotator.values()) == 30


@pytest.mark.parametrize(("scope", "handed_out"), [("flagged", 3), ("all", 8)])
def test_the_scope_chooses_flagged_rows_only_or_every_graded_row(user, settings, scope, handed_out):
    # Given a run with 3 flagged rows, 5 unflagged ones (all in the spot check) and a row
    # that could not be graded
    settings.MATHJURY_SPOT_CHECK_PERCENT = 100
    project, annotators = team(Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=3, unflagged=5)
    quarantined = ItemFactory(run=run, grade_state=Item.GradeState.QUARANTINED)

    run_assign(run=run, shares=dict.fromkeys(annotators, 1), scope=scope, by=user)

    handed = set(Assignment.objects.filter(item__run=run).values_list("item_id", flat=True))
    assert len(handed) == handed_out == Assignment.objects.count()
    assert quarantined.pk not in handed
    if scope == "flagged":
        assert handed == set(run.items.filter(needs_review=True).values_list("pk", flat=True))


def test_two_reviews_per_flagged_row_send_each_flagged_row_to_two_annotators_blind(user):
    # Given three annotators and a run of 6 flagged and 3 unflagged rows
    project, annotators = team(Role.ANNOTATOR, Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=6, unflagged=3)

    # When every row is handed out with two blind reviews per flagged row
    result = run_assign(
        run=run,
        shares=dict.fromkeys(annotators, 1),
        reviews_per_flagged_row=2,
        scope="all",
        by=user,
    )

    # Then each flagged row has two different annotators and is under blind review, and each
    # unflagged row has one and stays open
    for item in run.items.all():
        if item.needs_review:
            assert len(assignees(item)) == 2 and item.review_stage == Stage.BLIND
        else:
            assert len(assignees(item)) == 1 and item.review_stage == Stage.OPEN
    assert result.blind_rows == 6
    run.refresh_from_db()
    assert run.reviews_per_flagged_row == 2


@pytest.mark.parametrize(
    ("roles", "k", "status", "message"),
    [
        ((Role.ANNOTATOR, Role.ANNOTATOR), 3, Run.Status.DONE, "at least 3 annotators"),
        ((Role.ANNOTATOR, Role.VIEWER), 1, Run.Status.DONE, "cannot review"),
        ((Role.ANNOTATOR,), 1, Run.Status.QUEUED, "still being graded"),
        ((Role.ANNOTATOR,), 1, Run.Status.GRADING, "still being graded"),
        ((), 1, Run.Status.DONE, "at least one annotator"),
    ],
    ids=["k-above-annotators", "viewer", "queued", "grading", "nobody"],
)
def test_a_split_that_cannot_be_made_is_refused_and_hands_out_nothing(
    user, roles, k, status, message
):
    project, members = team(*roles)
    run = graded_run(project, flagged=4, status=status)

    with pytest.raises(AssignmentError, match=message):
        run_assign(run=run, shares=dict.fromkeys(members, 1), reviews_per_flagged_row=k, by=user)

    assert not Assignment.objects.exists()
    assert not run.items.exclude(review_stage=Stage.OPEN).exists()


def test_annotators_with_a_share_of_zero_count_as_nobody(user):
    project, (annotator,) = team(Role.ANNOTATOR)
    run = graded_run(project, flagged=2)
    with pytest.raises(AssignmentError, match="at least one annotator"):
        run_assign(run=run, shares={annotator: 0}, by=user)


def test_splitting_again_keeps_reviewed_rows_and_hands_out_no_decided_or_conflicting_row(user):
    # Given a run whose four flagged rows were split between two annotators, plus a row whose
    # blind reviews disagree
    project, (first, second, third) = team(Role.ANNOTATOR, Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=4)
    conflict = GradedItemFactory(run=run, needs_review=True, review_stage=Stage.CONFLICT)
    run_assign(run=run, shares={first: 1, second: 1}, by=user)
    # ... the first annotator reviewed one of theirs and the owner decided one of the second's
    reviewed = first.assignments.order_by("item__row_number").first().item
    services.item_review(item=reviewed, user=first, verdict="incorrect")
    decided = second.assignments.order_by("item__row_number").first().item
    services.item_review(item=decided, user=user, verdict="correct")

    # When the queue is split again, all to a third annotator
    result = run_assign(run=run, shares={third: 1}, by=user)

    # Then the reviewed row is still in its reviewer's queue, done; the decided rows and the
    # conflict go to nobody new; the third annotator gets the two rows nobody has decided
    assert first.assignments.get().item_id == reviewed.pk
    assert first.assignments.get().done_at is not None
    assert not second.assignments.exists()  # their open rows were taken back
    undecided = set(
        run.items.filter(final_source=Item.FinalSource.AUTO, review_stage=Stage.OPEN).values_list(
            "pk", flat=True
        )
    )
    assert queue_of(third, run) == undecided and len(undecided) == 2
    assert not conflict.assignments.exists()
    assert result.per_annotator == {third.username: 2}


# ---- who may review what --------------------------------------------------------------------


def test_once_a_run_is_split_an_annotator_may_review_only_the_rows_in_their_queue(user):
    project, (annotator, adjudicator) = team(Role.ANNOTATOR, Role.ADJUDICATOR)
    run = graded_run(project, flagged=2)
    mine, other = run.items.order_by("row_number")
    AssignmentFactory(item=mine, annotator=annotator)

    with pytest.raises(PermissionDenied, match="not in yours"):
        services.item_review(item=other, user=annotator, verdict="incorrect")
    with pytest.raises(PermissionDenied):
        access.review_kind(item=other, user=annotator, role=Role.ANNOTATOR)
    assert not other.reviews.exists()

    services.item_review(item=mine, user=annotator, verdict="incorrect")
    # an adjudicator and the owner may review any row
    services.item_review(item=other, user=adjudicator, verdict="incorrect")
    services.item_review(item=other, user=user, verdict="gold_wrong")
    other.refresh_from_db()
    assert (other.final_verdict, other.final_source) == ("gold_wrong", "human")


def test_in_a_run_nobody_split_an_annotator_may_review_any_row(user):
    project, (annotator,) = team(Role.ANNOTATOR)
    run = graded_run(project, flagged=1, unflagged=1)
    AssignmentFactory(annotator=annotator, item__run=graded_run(project, flagged=0))  # other run

    for item in run.items.all():
        assert access.review_kind(item=item, user=annotator, role=Role.ANNOTATOR) == "review"
        services.item_review(item=item, user=annotator, verdict="incorrect")
    assert Review.objects.filter(annotator=annotator).count() == 2


# ---- blind double review --------------------------------------------------------------------


@pytest.fixture
def blind_row(user):
    """A flagged row (auto verdict "correct") under blind review by two annotators; also an
    adjudicator and a third annotator in the project."""
    project, members = team(Role.ANNOTATOR, Role.ANNOTATOR, Role.ADJUDICATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=1)
    run_assign(run=run, shares=dict.fromkeys(members[:2], 1), reviews_per_flagged_row=2, by=user)
    item = run.items.get()
    assert item.review_stage == Stage.BLIND
    return item, members


def test_two_agreeing_blind_verdicts_become_the_final_verdict(blind_row):
    item, (first, second, *_) = blind_row
    loaded = item.version

    services.item_review(item=item, user=first, verdict="incorrect", expected_version=loaded)
    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.review_stage) == (
        "correct",
        "auto",
        "blind",
    )

    services.item_review(item=item, user=second, verdict="incorrect", expected_version=loaded)
    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.review_stage) == ("incorrect", "human", "")
    assert set(item.reviews.values_list("kind", flat=True)) == {"blind"}


def test_a_blind_review_skips_the_version_check(blind_row):
    # Given a blind row that changed after the second annotator loaded it
    item, (first, second, *_) = blind_row
    Item.objects.filter(pk=item.pk).update(version=5)
    services.item_review(item=item, user=first, verdict="correct")

    # When the second annotator sends the version they loaded, it is accepted
    services.item_review(item=item, user=second, verdict="correct", expected_version=4)
    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.review_stage) == ("correct", "human", "")


def test_disagreeing_blind_verdicts_wait_for_an_adjudicator(blind_row):
    item, (first, second, adjudicator, _) = blind_row

    services.item_review(item=item, user=first, verdict="correct")
    services.item_review(item=item, user=second, verdict="incorrect")

    item.refresh_from_db()
    assert item.review_stage == Stage.CONFLICT
    assert (item.final_verdict, item.final_source) == ("correct", "auto")
    assert AuditEvent.objects.filter(item=item, action="conflict").count() == 1
    # an annotator, even one of the two, cannot decide it
    with pytest.raises(PermissionDenied, match="adjudicator"):
        services.item_review(item=item, user=first, verdict="incorrect")

    review = services.item_review(item=item, user=adjudicator, verdict="incorrect")
    item.refresh_from_db()
    assert review.kind == "adjudication"
    assert (item.final_verdict, item.final_source, item.review_stage) == ("incorrect", "human", "")


def test_a_blind_annotator_may_revise_their_verdict_before_the_other_arrives(blind_row):
    item, (first, second, *_) = blind_row

    services.item_review(item=item, user=first, verdict="correct")
    services.item_review(item=item, user=first, verdict="incorrect")
    services.item_review(item=item, user=second, verdict="incorrect")

    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.review_stage) == ("incorrect", "human", "")


def test_someone_not_assigned_a_blind_row_cannot_review_it_but_an_adjudicator_can(blind_row):
    item, (first, second, adjudicator, outsider) = blind_row
    with pytest.raises(PermissionDenied, match="blind"):
        services.item_review(item=item, user=outsider, verdict="incorrect")

    review = services.item_review(item=item, user=adjudicator, verdict="gold_wrong")

    item.refresh_from_db()
    assert review.kind == "adjudication"
    assert (item.final_verdict, item.review_stage) == ("gold_wrong", "")


# ---- queue progress -------------------------------------------------------------------------


def test_queue_progress_counts_rows_reviewed_and_rows_an_adjudicator_decided(user):
    # Given four flagged rows split between two annotators
    project, (first, second, adjudicator) = team(Role.ANNOTATOR, Role.ANNOTATOR, Role.ADJUDICATOR)
    run = graded_run(project, flagged=4)
    run_assign(run=run, shares={first: 1, second: 1}, by=user)
    assert (my_queue(run=run, user=first).assigned, my_queue(run=run, user=first).done) == (2, 0)
    assert my_queue(run=run, user=adjudicator) is None

    # When the first reviews one of theirs and the adjudicator decides one of the second's
    services.item_review(item=first.assignments.first().item, user=first, verdict="incorrect")
    decided = second.assignments.first().item
    services.item_review(item=decided, user=adjudicator, verdict="correct")

    # Then each has one done, one to do
    progress = {p.username: (p.assigned, p.done, p.to_do) for p in queue_progress(run=run)}
    assert progress == {first.username: (2, 1, 1), second.username: (2, 1, 1)}
    assert my_queue(run=run, user=second).percent == 50
    still = run.items.filter(selectors.still_to_review_by(second.pk))
    assert decided not in still and still.count() == 1


def test_a_blind_row_an_adjudicator_decides_counts_done_for_both_annotators(blind_row):
    item, (first, second, adjudicator, _) = blind_row
    run = item.run

    services.item_review(item=item, user=adjudicator, verdict="incorrect")

    assert [(p.assigned, p.done) for p in queue_progress(run=run)] == [(1, 1), (1, 1)]


# ---- members leaving ------------------------------------------------------------------------


def test_removing_a_member_takes_their_unreviewed_rows_out_of_their_queue(user):
    project, (leaving, staying) = team(Role.ANNOTATOR, Role.ANNOTATOR)
    run = graded_run(project, flagged=6)
    run_assign(run=run, shares={leaving: 1, staying: 1}, by=user)
    reviewed = leaving.assignments.first().item
    services.item_review(item=reviewed, user=leaving, verdict="incorrect")

    services.membership_remove(project=project, user=leaving, by=user)

    assert list(leaving.assignments.values_list("item_id", flat=True)) == [reviewed.pk]
    assert my_queue(run=run, user=staying).assigned == 3
    event = AuditEvent.objects.get(action="member_remove")
    assert "2 rows left their queue" in event.summary


def test_removing_a_member_settles_a_blind_review_that_waited_only_on_them(blind_row, user):
    # Given a blind row the second annotator has judged and the first has not
    item, (first, second, *_) = blind_row
    services.item_review(item=item, user=second, verdict="gold_wrong")

    # When the first annotator leaves the project
    services.membership_remove(project=item.run.project, user=first, by=user)

    # Then the remaining verdict decides the row
    item.refresh_from_db()
    assert (item.final_verdict, item.final_source, item.review_stage) == ("gold_wrong", "human", "")
    assert not first.assignments.exists()


def test_demoting_an_annotator_to_viewer_empties_their_queue(user):
    project, (annotator,) = team(Role.ANNOTATOR)
    run = graded_run(project, flagged=3)
    run_assign(run=run, shares={annotator: 1}, by=user)

    services.membership_set(project=project, user=annotator, role=Role.VIEWER, by=user)

    assert my_queue(run=run, user=annotator) is None


# ---- what a blind reviewer sees -------------------------------------------------------------


def test_a_blind_verdict_is_hidden_from_the_other_annotator_until_the_row_settles(blind_row):
    item, (first, second, adjudicator, _) = blind_row
    project = item.run.project
    services.item_review(item=item, user=first, verdict="incorrect")
    item.refresh_from_db()

    def blind_events_seen_by(user, role):
        on_item = audit.item_events(item=item, user=user, role=role).filter(action="blind_verdict")
        in_project = audit.project_events(project=project, user=user, role=role).filter(
            action="blind_verdict"
        )
        assert on_item.count() == in_project.count()
        return on_item.count()

    # While the row is blind: the other annotator sees nothing, the author and an
    # adjudicator see the verdict
    assert not access.sees_others_verdicts(item=item, role=Role.ANNOTATOR)
    assert access.sees_others_verdicts(item=item, role=Role.ADJUDICATOR)
    assert blind_events_seen_by(second, Role.ANNOTATOR) == 0
    assert blind_events_seen_by(first, Role.ANNOTATOR) == 1
    assert blind_events_seen_by(adjudicator, Role.ADJUDICATOR) == 1

    # Once the second verdict is in, everybody sees both
    services.item_review(item=item, user=second, verdict="correct")
    item.refresh_from_db()
    assert item.review_stage == Stage.CONFLICT
    assert access.sees_others_verdicts(item=item, role=Role.ANNOTATOR)
    assert blind_events_seen_by(second, Role.ANNOTATOR) == 2
    assert blind_events_seen_by(first, Role.ANNOTATOR) == 2
