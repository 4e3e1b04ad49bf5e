"""Concurrent decisions on PostgreSQL (RELIABILITY F1, F2, F4): real threads, each with its own
database connection, released together by a barrier, so the row lock and the version check
are what keeps decisions from being lost or recorded twice."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from grading.pairs import pair_key
from reviewer import access, services
from reviewer.models import Assignment, AuditEvent, Item, Membership, Project, Review, Run
from reviewer.services import assignments, rulings
from tests.factories import GradedItemFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

Role = Membership.Role
VERDICT = AuditEvent.Action.VERDICT
CONFLICT = AuditEvent.Action.CONFLICT


def at_once(*calls: Callable[[], object]) -> list[object]:
    """Run each call in its own thread, all released together by a barrier; returns what each
    returned or raised. Each thread closes its own database connection when it is done."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=30)
            outcomes[index] = call()
        except BaseException as error:  # noqa: BLE001 - handed back to the test to judge
            outcomes[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a concurrent call never finished"
    return outcomes


def each_at_once(calls: dict[str, Callable[[], object]]) -> dict[str, object]:
    """``at_once`` for named calls: {name: what that call returned or raised}."""
    return dict(zip(calls, at_once(*calls.values()), strict=True))


def two_members(role: str):
    """A graded row (automatic verdict "incorrect", version 0) of a run nobody split, and two
    members of its project with ``role``."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    project = ProjectFactory(members={alice: role, bob: role})
    run = RunFactory(project=project, status=Run.Status.DONE)
    item = GradedItemFactory(
        run=run, auto_verdict="incorrect", final_verdict="incorrect", needs_review=True
    )
    return item, alice, bob


def verdict_events(item: Item):
    return AuditEvent.objects.filter(item_id=item.pk, action=VERDICT)


# ---- F1: two people decide the same row at the same moment ---------------------------------


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.ADJUDICATOR, Role.OWNER])
def test_two_verdicts_saved_at_once_keep_one_and_refuse_the_other(role):  # F1
    # Given two members who both loaded the row at version 0
    item, alice, bob = two_members(role)

    # When both save a different verdict at the same moment
    outcomes = at_once(
        lambda: services.item_review(item=item, user=alice, verdict="correct", expected_version=0),
        lambda: services.item_review(item=item, user=bob, verdict="gold_wrong", expected_version=0),
    )

    # Then exactly one is saved, and the other is told what the winner decided
    saved = [o for o in outcomes if isinstance(o, Review)]
    stale = [o for o in outcomes if isinstance(o, services.StaleVersionError)]
    assert (len(saved), len(stale)) == (1, 1), outcomes
    (winner,) = saved
    assert (stale[0].item.final_verdict, stale[0].item.version) == (winner.verdict, 1)
    assert stale[0].item.final_source == Item.FinalSource.HUMAN
    item.refresh_from_db()
    assert (item.final_verdict, item.version) == (winner.verdict, 1)
    # and the row has one review and one audit entry, the winner's
    assert list(Review.objects.filter(item=item)) == [winner]
    (event,) = verdict_events(item)
    assert (event.actor_id, event.data["before"], event.data["after"]) == (
        winner.annotator_id,
        "incorrect",
        winner.verdict,
    )


def test_two_verdicts_posted_at_once_on_the_item_page_get_a_redirect_and_a_409(settings):  # F1
    settings.STORAGES = {  # static URLs without collectstatic's manifest, as in test_views
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # Given two annotators with the row's page open at version 0
    item, alice, bob = two_members(Role.ANNOTATOR)
    clients = {}
    for user in (alice, bob):
        clients[user.username] = Client()
        clients[user.username].force_login(user)
    url = reverse("item_detail", args=[item.id])
    sent = {"alice": "correct", "bob": "gold_wrong"}

    # When both press a verdict at the same moment, without JavaScript
    responses = each_at_once(
        {
            name: lambda name=name: clients[name].post(
                url, {"verdict": sent[name], "expected_version": 0}
            )
            for name in sent
        }
    )

    # Then one is saved and moves on, the other sees the row as the winner left it
    codes = sorted(response.status_code for response in responses.values())
    assert codes == [302, 409], responses
    (winner,) = [name for name, response in responses.items() if response.status_code == 302]
    (loser,) = [name for name, response in responses.items() if response.status_code == 409]
    body = responses[loser].content.decode()
    assert "Someone else reviewed this row while you were looking at it" in body
    assert "Your verdict was not saved" in body
    assert f'data-final-verdict="{sent[winner]}"' in body
    review = Review.objects.get(item=item)
    assert (review.annotator.username, review.verdict) == (winner, sent[winner])
    assert verdict_events(item).count() == 1


def test_two_verdicts_posted_at_once_to_the_api_get_201_and_409_with_the_current_state():  # F1
    # Given two pipelines' clients, both holding version 0 of the row
    item, alice, bob = two_members(Role.ANNOTATOR)
    clients = {}
    for user in (alice, bob):
        clients[user.username] = APIClient()
        clients[user.username].force_authenticate(user)
    sent = {"alice": "correct", "bob": "incorrect"}

    # When both post a review at the same moment
    responses = each_at_once(
        {
            name: lambda name=name: clients[name].post(
                f"/api/items/{item.pk}/reviews/",
                {"verdict": sent[name], "expected_version": 0},
                format="json",
            )
            for name in sent
        }
    )

    # Then one is created and the other gets 409 with the row as it is now
    assert sorted(r.status_code for r in responses.values()) == [201, 409], responses
    (winner,) = [name for name, r in responses.items() if r.status_code == 201]
    (loser,) = [name for name, r in responses.items() if r.status_code == 409]
    created = responses[winner].json()
    assert (created["item"]["final_verdict"], created["item"]["version"]) == (sent[winner], 1)
    error = responses[loser].json()["error"]
    assert error["code"] == "stale_version"
    assert "now version 1" in error["message"]
    current = error["current"]
    assert (current["final_verdict"], current["version"]) == (sent[winner], 1)
    assert [r["annotator"] for r in current["reviews"]] == [winner]
    assert Review.objects.filter(item=item).count() == 1
    assert verdict_events(item).count() == 1


# ---- F2: the same decision sent twice at once ----------------------------------------------


def test_the_same_review_sent_twice_at_once_with_one_key_is_saved_once():  # F2
    item, alice, _ = two_members(Role.ANNOTATOR)

    def send():
        return services.item_review(
            item=item,
            user=alice,
            verdict="correct",
            expected_version=0,
            idempotency_key="review-7-attempt",
        )

    first, second = at_once(send, send)

    assert isinstance(first, Review) and isinstance(second, Review), (first, second)
    assert first.pk == second.pk
    assert Review.objects.filter(item=item).count() == 1
    assert verdict_events(item).count() == 1
    assert Item.objects.get(pk=item.pk).version == 1


def test_the_same_api_review_posted_twice_at_once_with_one_key_is_saved_once():  # F2
    item, alice, _ = two_members(Role.ANNOTATOR)
    clients = [APIClient(), APIClient()]  # a client and its retry, on two connections
    for client in clients:
        client.force_authenticate(alice)

    responses = at_once(
        *(
            lambda client=client: client.post(
                f"/api/items/{item.pk}/reviews/",
                {"verdict": "correct", "expected_version": 0},
                format="json",
                HTTP_IDEMPOTENCY_KEY="pipeline-run-3-row-1",
            )
            for client in clients
        )
    )

    assert [r.status_code for r in responses] == [201, 201], responses
    first, retry = (r.json() for r in responses)
    assert first["review"]["id"] == retry["review"]["id"]
    assert first["review"] == retry["review"]
    assert Review.objects.filter(item=item).count() == 1
    assert verdict_events(item).count() == 1
    assert Item.objects.get(pk=item.pk).version == 1


# ---- blind double review: both assignees at once -------------------------------------------


@pytest.mark.parametrize(
    "verdicts, stage, event",
    [
        (("correct", "correct"), Item.ReviewStage.OPEN, VERDICT),
        (("correct", "incorrect"), Item.ReviewStage.CONFLICT, CONFLICT),
    ],
)
def test_both_blind_verdicts_at_once_settle_the_row_exactly_once(verdicts, stage, event):
    # Given a flagged row split for blind double review between two annotators
    owner = UserFactory(username="owner")
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    project = ProjectFactory(created_by=owner, members={alice: Role.ANNOTATOR, bob: Role.ANNOTATOR})
    run = RunFactory(project=project, status=Run.Status.DONE)
    item = GradedItemFactory(
        run=run, needs_review=True, auto_verdict="incorrect", final_verdict="incorrect"
    )
    split = assignments.run_assign(
        run=run, shares={alice: 1, bob: 1}, reviews_per_flagged_row=2, by=owner
    )
    assert split.blind_rows == 1

    # When both give their verdict at the same moment
    outcomes = at_once(
        *(
            lambda user=user, verdict=verdict: services.item_review(
                item=item, user=user, verdict=verdict, expected_version=0
            )
            for user, verdict in zip((alice, bob), verdicts, strict=True)
        )
    )

    # Then both blind verdicts are recorded, and the row is settled once
    assert all(isinstance(o, Review) for o in outcomes), outcomes
    assert sorted(Review.objects.filter(item=item).values_list("kind", "verdict")) == sorted(
        (Review.Kind.BLIND, v) for v in verdicts
    )
    assert not Assignment.objects.filter(item=item, done_at=None).exists()
    item.refresh_from_db()
    assert item.review_stage == stage
    settled = AuditEvent.objects.filter(item_id=item.pk, action__in=[VERDICT, CONFLICT])
    assert [e.action for e in settled] == [event]
    assert (
        AuditEvent.objects.filter(item_id=item.pk, action=AuditEvent.Action.BLIND_VERDICT).count()
        == 2
    )
    if stage == Item.ReviewStage.OPEN:
        assert (item.final_verdict, item.final_source) == (verdicts[0], Item.FinalSource.HUMAN)
        assert settled[0].data["after"] == verdicts[0]
    else:
        assert (item.final_verdict, item.final_source) == ("incorrect", Item.FinalSource.AUTO)
        assert settled[0].data["verdicts"] == dict(zip(("alice", "bob"), verdicts, strict=True))


# ---- F4: the trail's last word always matches the row --------------------------------------

EXPECTED = (services.StaleVersionError, rulings.RulingError, PermissionDenied)


@dataclass
class Workload:
    """What the threads share: the rows, the people, the rulings made so far and the tally."""

    flagged: list[int]  # rows people review
    unflagged: list[int]  # rows rulings decide, and people now and then
    users: list
    project_id: int
    lock: threading.Lock
    rulings_made: list[int]
    created: Counter  # reviews each row got from calls that created one
    outcomes: Counter
    surprises: list[str]

    def count(self, outcome: str) -> None:
        with self.lock:
            self.outcomes[outcome] += 1


def _worker(work: Workload, index: int, seed: int, operations: int) -> None:
    """One person's session: reviews (some on a stale version), retries of earlier requests
    with their idempotency key, and rulings made and undone."""
    rng = random.Random(seed * 1000 + index)
    done_keys: dict[str, int] = {}  # idempotency key -> the review its first success made
    keyed: list[dict] = []  # requests sent with a key, which this client may retry

    def review(request: dict) -> None:
        try:
            made = services.item_review(item=Item(pk=request["item_id"]), **request["fields"])
        except EXPECTED as error:
            work.count(type(error).__name__)
            return
        key = request["fields"]["idempotency_key"]
        earlier = done_keys.get(key) if key else None
        if earlier is not None:
            work.count("retry answered")
            if made.pk != earlier:
                work.surprises.append(f"retry of {key} made review {made.pk}, not {earlier}")
            return
        if key:
            done_keys[key] = made.pk
        with work.lock:
            work.created[request["item_id"]] += 1
        work.count("review saved")

    for step in range(operations):
        user = rng.choice(work.users)
        item_id = rng.choice(work.flagged if rng.random() < 0.85 else work.unflagged)
        kind = rng.choices(["review", "retry", "rule", "undo"], weights=[10, 3, 4, 3])[0]
        try:
            if kind == "retry" and keyed:
                review(rng.choice(keyed))
            elif kind in ("review", "retry"):
                seen = Item.objects.values_list("version", flat=True).get(pk=item_id)
                request = {
                    "item_id": item_id,
                    "fields": {
                        "user": user,
                        "verdict": rng.choice(["correct", "incorrect", "gold_wrong", "unclear"]),
                        "expected_version": rng.choice([seen, max(seen - 1, 0), None]),
                        "idempotency_key": f"t{index}-s{step}" if rng.random() < 0.5 else "",
                    },
                }
                if request["fields"]["idempotency_key"]:
                    keyed.append(request)
                review(request)
            elif kind == "rule":
                access.require(user, Project(pk=work.project_id), access.RULE)
                source = Item.objects.select_related("run__project").get(pk=item_id)
                ruling = rulings.ruling_apply(item=source, user=user)
                with work.lock:
                    work.rulings_made.append(ruling.pk)
                work.count("ruling applied")
            elif work.rulings_made:
                ruling = access.ruling_for(user, rng.choice(list(work.rulings_made)))
                rulings.ruling_undo(ruling=ruling, user=user)
                work.count("ruling undone")
        except EXPECTED as error:
            work.count(type(error).__name__)
        except Exception as error:  # noqa: BLE001 - anything else is what the test reports
            work.surprises.append(f"thread {index} step {step} ({kind}): {error!r}")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_after_a_random_concurrent_workload_every_row_matches_its_last_audit_entry(seed):  # F4
    # Given six rows of two runs sharing one (gold, prediction) pair, decided automatically,
    # and members of every role (the viewer is refused everything)
    owner = UserFactory(username="owner")
    people = {
        UserFactory(username="adjudicator"): Role.ADJUDICATOR,
        UserFactory(username="annotator1"): Role.ANNOTATOR,
        UserFactory(username="annotator2"): Role.ANNOTATOR,
        UserFactory(username="viewer"): Role.VIEWER,
    }
    project = ProjectFactory(created_by=owner, members=people)
    key = pair_key("\\frac{1}{2}", "0.5")
    items = [
        GradedItemFactory(
            run=run,
            gold="\\frac{1}{2}",
            output="so $\\boxed{0.5}$",
            pair_key=key,
            auto_verdict="incorrect",
            final_verdict="incorrect",
            final_source=Item.FinalSource.AUTO,
            grade_state=Item.GradeState.GRADED,
        )
        for run in (
            RunFactory(project=project, status=Run.Status.DONE),
            RunFactory(project=project, status=Run.Status.DONE),
        )
        for _ in range(3)
    ]
    work = Workload(
        flagged=[item.pk for item in items[::2]],
        unflagged=[item.pk for item in items[1::2]],
        users=[owner, *people],
        project_id=project.pk,
        lock=threading.Lock(),
        rulings_made=[],
        created=Counter(),
        outcomes=Counter(),
        surprises=[],
    )

    # When four people review, retry, rule and undo rulings on them at the same time
    at_once(*(lambda index=index: _worker(work, index, seed, operations=25) for index in range(4)))

    # Then nothing but the expected refusals happened, and each kind of outcome occurred
    assert work.surprises == []
    assert work.outcomes["review saved"] and work.outcomes["StaleVersionError"], work.outcomes
    assert work.outcomes["ruling applied"] and work.outcomes["PermissionDenied"], work.outcomes
    for item in items:
        item.refresh_from_db()
        events = verdict_events(item).order_by("-at", "-id")
        # the newest verdict event says what the row's final verdict is
        if events:
            assert (events[0].data["after"], events[0].data["source"]) == (
                item.final_verdict,
                item.final_source,
            ), (item.pk, list(events.values_list("data", flat=True)))
        # every change of the final verdict bumped the version and wrote its event
        assert events.count() == item.version, item.pk
        # and every review a call reported as made is there, once
        reviews = Review.objects.filter(item=item).exclude(kind=Review.Kind.RULING)
        assert reviews.count() == work.created[item.pk], item.pk


# ---- one lock order: rulings, reviews and splits at once never deadlock ---------------------


def _stress_worker(work: Workload, index: int, run_ids: list[int], rng: random.Random) -> None:
    """Rulings from different source rows of one pair, reviews that decide rows, undos, and
    splits of the review queue, as fast as one session can send them."""
    owner = work.users[0]
    for step in range(40):
        item_id = rng.choice(work.flagged + work.unflagged)
        kind = rng.choices(["review", "rule", "undo", "split"], weights=[3, 6, 5, 2])[0]
        try:
            if kind == "review":
                services.item_review(
                    item=Item(pk=item_id), user=owner, verdict=rng.choice(["correct", "incorrect"])
                )
            elif kind == "rule":
                source = Item.objects.select_related("run__project").get(pk=item_id)
                ruling = rulings.ruling_apply(item=source, user=owner)
                with work.lock:
                    work.rulings_made.append(ruling.pk)
            elif kind == "undo" and work.rulings_made:
                ruling = access.ruling_for(owner, rng.choice(list(work.rulings_made)))
                rulings.ruling_undo(ruling=ruling, user=owner)
            elif kind == "split":
                assignments.run_assign(
                    run=Run.objects.get(pk=rng.choice(run_ids)), shares={owner: 1}, by=owner
                )
            work.count(kind)
        except EXPECTED as error:
            work.count(type(error).__name__)
        except Exception as error:  # noqa: BLE001 - a deadlock is what the test reports
            work.surprises.append(f"thread {index} step {step} ({kind}): {error!r}")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_concurrent_rulings_reviews_and_splits_on_one_pair_never_deadlock(seed):
    # Given 24 rows of three runs sharing one (gold, prediction) pair, decided automatically
    owner = UserFactory(username="owner")
    project = ProjectFactory(created_by=owner)
    key = pair_key("7", "7.0")
    runs = [RunFactory(project=project, status=Run.Status.DONE) for _ in range(3)]
    items = [
        GradedItemFactory(
            run=run,
            gold="7",
            output="so $\\boxed{7.0}$",
            pair_key=key,
            auto_verdict="incorrect",
            final_verdict="incorrect",
            final_source=Item.FinalSource.AUTO,
            grade_state=Item.GradeState.GRADED,
            needs_review=True,
        )
        for run in runs
        for _ in range(8)
    ]
    work = Workload(
        flagged=[item.pk for item in items[::2]],
        unflagged=[item.pk for item in items[1::2]],
        users=[owner],
        project_id=project.pk,
        lock=threading.Lock(),
        rulings_made=[],
        created=Counter(),
        outcomes=Counter(),
        surprises=[],
    )
    run_ids = [run.pk for run in runs]

    # When six sessions review, rule from different rows, undo and split at the same time
    at_once(
        *(
            lambda index=index: _stress_worker(
                work, index, run_ids, random.Random(seed * 100 + index)
            )
            for index in range(6)
        )
    )

    # Then no call failed with a deadlock (or anything else unexpected)
    assert work.surprises == [], work.surprises
    assert work.outcomes["rule"] and work.outcomes["review"], work.outcomes
