"""Reviewing as a team, as people see it: the queue-split page, the run page's queues, blind
double review and conflicts on the item page, the ruling offer, the project's audit trail,
and the same through the API. The services underneath are pinned by test_assignments.py and
test_rulings.py; these tests pin what the pages and the API make of them."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.pairs import pair_key
from reviewer import services
from reviewer.models import Assignment, AuditEvent, Item, Membership, Review, Ruling, Run
from reviewer.services.assignments import run_assign
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

Role = Membership.Role
Stage = Item.ReviewStage
HALF = "\\frac{1}{2}"


@pytest.fixture(autouse=True)
def _fast_passwords(settings) -> None:
    """Hashing a password properly takes most of a second; nobody here logs in with one."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


# ---- given ----------------------------------------------------------------------------------


def team(**roles: str):
    """A project owned by the test user, with a member of each given role by name:
    ``team(ann=Role.ANNOTATOR)`` returns (project, {"ann": <User ann>})."""
    members = {name: UserFactory(username=name, password="!") for name in roles}
    project = ProjectFactory(members={members[name]: role for name, role in roles.items()})
    return project, members


def graded_run(project, *, flagged: int, unflagged: int = 0) -> Run:
    """A finished run: ``flagged`` rows the jury flagged first, then ``unflagged``."""
    run = RunFactory(project=project, status=Run.Status.DONE, total_rows=flagged + unflagged)
    for number in range(1, flagged + unflagged + 1):
        GradedItemFactory(run=run, row_number=number, needs_review=number <= flagged)
    return run


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_as(user) -> APIClient:
    """A client that authenticates like a pipeline: with ``user``'s token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["message"], body
    return body["error"]


def queue_ids(user, run) -> set[int]:
    """The rows of ``user``'s queue in ``run``."""
    return set(
        Assignment.objects.filter(item__run=run, annotator=user).values_list("item_id", flat=True)
    )


def item_ids_on(response) -> list[int]:
    return [int(pk) for pk in re.findall(r'data-item-id="(\d+)"', response.content.decode())]


def queue_rows(response) -> dict[str, tuple[int, int, int]]:
    """Each annotator on the queue page: (assigned, done, to do)."""
    rows = re.findall(
        r'<tr data-annotator="([^"]+)">\s*<td>[^<]*</td>\s*<td class="num">(\d+)</td>\s*'
        r'<td class="num" data-done>(\d+)</td>\s*<td class="num">(\d+)</td>',
        response.content.decode(),
    )
    return {name: (int(a), int(d), int(t)) for name, a, d, t in rows}


def audit_rows(response) -> list[tuple[str, int | None]]:
    """Each entry of the audit page: (action, run id or None)."""
    rows = []
    for action, cells in re.findall(
        r'<tr data-audit-action="(\w+)">(.*?)</tr>', response.content.decode(), re.S
    ):
        run = re.search(r'<a href="/runs/(\d+)/">', cells)
        rows.append((action, int(run.group(1)) if run else None))
    return rows


def review_kinds_on(response) -> list[str]:
    return re.findall(r'data-review-kind="(\w+)"', response.content.decode())


def audit_actions_on(response) -> list[str]:
    return re.findall(r'data-audit-action="(\w+)"', response.content.decode())


def paired_row(run, prediction: str, *, row_number: int, gold: str = HALF) -> Item:
    """A graded row the jury called "incorrect", whose shown prediction is ``prediction``,
    with the pair key grading gives it."""
    item = GradedItemFactory(
        run=run,
        row_number=row_number,
        gold=gold,
        output=f"so \\boxed{{{prediction}}}",
        auto_verdict="incorrect",
        final_verdict="incorrect",
        final_source=Item.FinalSource.AUTO,
        pair_key=pair_key(gold, prediction),
    )
    EvaluationFactory(item=item, verdict="incorrect", extracted=prediction)
    return item


@pytest.fixture
def blind_row(user):
    """A run whose one flagged row ann and bea review blind (and one unflagged row nobody
    was given); judy adjudicates."""
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR, judy=Role.ADJUDICATOR)
    run = graded_run(project, flagged=1, unflagged=1)
    run_assign(
        run=run,
        shares={members["ann"]: 1, members["bea"]: 1},
        reviews_per_flagged_row=2,
        scope="flagged",
        by=user,
    )
    item = run.items.get(needs_review=True)
    assert item.review_stage == Stage.BLIND
    return item, members


@pytest.fixture
def conflict_row(blind_row):
    """The blind row after ann said "correct" and bea "incorrect"."""
    item, members = blind_row
    services.item_review(item=item, user=members["ann"], verdict="correct", note="ann's working")
    services.item_review(item=item, user=members["bea"], verdict="incorrect")
    item.refresh_from_db()
    assert item.review_stage == Stage.CONFLICT
    return item, members


# ---- the queue-split page -------------------------------------------------------------------


def test_the_lead_splits_the_queue_and_sees_each_annotators_share_and_progress(user):
    # Given two annotators and a run of four flagged rows and one unflagged
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=4, unflagged=1)
    url = reverse("run_assignments", args=[run.id])

    # When the owner splits the flagged rows evenly between them (leaving themself out)
    response = browser(user).post(
        url,
        {
            f"share_{members['ann'].pk}": 1,
            f"share_{members['bea'].pk}": 1,
            f"share_{user.pk}": 0,
            "reviews_per_flagged_row": 1,
            "scope": "flagged",
        },
        follow=True,
    )

    # Then they are back on the page, which says what was handed out and lists each
    # annotator with two rows assigned, none done
    assert response.redirect_chain == [(url, 302)]
    assert "Queue split: 4 rows (ann 2, bea 2)." in response.content.decode()
    assert queue_rows(response) == {"ann": (2, 0, 2), "bea": (2, 0, 2)}
    assert Assignment.objects.filter(item__run=run).count() == 4


def test_a_split_the_page_cannot_make_answers_400_with_the_reason_and_hands_out_nothing(user):
    # Given two annotators
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=3)

    # When the owner asks for three blind reviews per flagged row
    response = browser(user).post(
        reverse("run_assignments", args=[run.id]),
        {
            f"share_{members['ann'].pk}": 1,
            f"share_{members['bea'].pk}": 1,
            f"share_{user.pk}": 0,
            "reviews_per_flagged_row": 3,
            "scope": "flagged",
        },
    )

    # Then the form comes back with why, and nobody has a queue
    assert response.status_code == 400
    body = response.content.decode()
    assert "3 blind reviews per flagged row need at least 3 annotators; 2 chosen" in body
    assert 'id="assign-form"' in body
    assert not Assignment.objects.exists()
    assert not run.items.exclude(review_stage=Stage.OPEN).exists()


def test_an_annotator_sees_the_queue_progress_but_no_split_form(user):
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=4)
    run_assign(run=run, shares={members["ann"]: 1, members["bea"]: 1}, by=user)
    services.item_review(
        item=Item.objects.get(pk=min(queue_ids(members["ann"], run))),
        user=members["ann"],
        verdict="incorrect",
    )

    response = browser(members["ann"]).get(reverse("run_assignments", args=[run.id]))

    assert response.status_code == 200
    assert queue_rows(response) == {"ann": (2, 1, 1), "bea": (2, 0, 2)}
    body = response.content.decode()
    assert 'id="assign-form"' not in body
    assert "Split the queue" not in body


# ---- the run page's queues ------------------------------------------------------------------


def test_an_annotator_sees_their_queue_on_the_run_page_and_opens_only_their_open_rows(user):
    # Given four flagged rows split between ann and bea, and one unflagged row
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    ann = members["ann"]
    run = graded_run(project, flagged=4, unflagged=1)
    run_assign(run=run, shares={ann: 1, members["bea"]: 1}, scope="flagged", by=user)
    mine = queue_ids(ann, run)
    assert len(mine) == 2
    client = browser(ann)

    # When ann opens the run
    page = client.get(reverse("run_detail", args=[run.id])).content.decode()

    # Then it shows how far their queue is, with a link that opens it
    assert re.search(r"Your queue:</strong> <span data-queue-done>0</span> of 2 rows done", page)
    assert (
        f'href="{reverse("run_detail", args=[run.id])}?queue=mine" data-open-queue>'
        "Open my queue (2 to do)</a>" in page
    )
    assert "data-conflicts" not in page

    # And the queue lists their rows only; once they review one, only the other
    queue = client.get(reverse("run_detail", args=[run.id]), {"queue": "mine"})
    assert set(item_ids_on(queue)) == mine
    done = min(mine)
    services.item_review(item=Item.objects.get(pk=done), user=ann, verdict="incorrect")
    queue = client.get(reverse("run_detail", args=[run.id]), {"queue": "mine"})
    assert item_ids_on(queue) == [max(mine)]
    page = client.get(reverse("run_detail", args=[run.id])).content.decode()
    assert re.search(r"<span data-queue-done>1</span> of 2 rows done", page)


def test_the_run_list_tells_an_annotator_how_many_rows_they_have_to_do(user):
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=5)
    other = graded_run(project, flagged=2)  # not split: nothing for anyone to do
    run_assign(run=run, shares={members["ann"]: 2, members["bea"]: 3}, by=user)

    page = browser(members["ann"]).get(reverse("run_list")).content.decode()

    to_do = re.findall(r'href="/runs/(\d+)/\?queue=mine" data-my-to-do>(\d+) to do</a>', page)
    assert to_do == [(str(run.id), "2")]
    assert reverse("run_detail", args=[other.id]) in page
    # the owner, who has no queue, sees no count at all
    assert "data-my-to-do" not in browser(user).get(reverse("run_list")).content.decode()


def test_an_adjudicator_sees_the_conflicts_on_the_run_page_and_opens_them(conflict_row):
    item, members = conflict_row
    run = item.run
    client = browser(members["judy"])

    page = client.get(reverse("run_detail", args=[run.id])).content.decode()

    assert re.search(r"<strong>Conflicts:</strong> 1 row whose blind reviews disagree", page)
    assert f'href="{reverse("run_detail", args=[run.id])}?queue=conflicts"' in page
    conflicts = client.get(reverse("run_detail", args=[run.id]), {"queue": "conflicts"})
    assert item_ids_on(conflicts) == [item.pk]
    # an annotator is not offered what they cannot decide
    annotators_page = browser(members["ann"]).get(reverse("run_detail", args=[run.id]))
    assert "data-conflicts" not in annotators_page.content.decode()


# ---- blind review and conflicts on the item page --------------------------------------------


def test_on_a_blind_row_the_other_annotator_sees_neither_the_verdict_nor_its_audit_entry(
    blind_row,
):
    # Given ann's blind verdict on the row, with a note
    item, members = blind_row
    services.item_review(item=item, user=members["ann"], verdict="correct", note="ann's working")
    url = reverse("item_detail", args=[item.id])

    # When bea opens the row
    page = browser(members["bea"]).get(url)

    # Then she sees that one of two verdicts is in, but not whose or which
    body = page.content.decode()
    assert "data-blind-note" in body
    assert "blind double review: 1 of 2 verdicts in" in body
    assert review_kinds_on(page) == []
    assert "blind_verdict" not in audit_actions_on(page)
    assert "ann&#x27;s working" not in body
    assert "blind verdict “Correct”" not in body
    # ... while ann sees her own and the adjudicator sees it too
    for who in ("ann", "judy"):
        seen = browser(members[who]).get(url)
        assert review_kinds_on(seen) == ["blind"]
        assert audit_actions_on(seen).count("blind_verdict") == 1
        assert "ann&#x27;s working" in seen.content.decode()
        assert "blind verdict “Correct”" in seen.content.decode()

    # When bea gives hers (they disagree), the adjudicator sees both verdicts and both entries
    saved = browser(members["bea"]).post(
        url, {"verdict": "incorrect", "expected_version": item.version}
    )
    assert saved.status_code == 302
    judge = browser(members["judy"]).get(url)
    assert review_kinds_on(judge) == ["blind", "blind"]
    assert audit_actions_on(judge).count("blind_verdict") == 2
    assert "data-blind-note" not in judge.content.decode()


def test_on_a_conflict_an_annotator_is_told_who_decides_and_cannot_save_a_verdict(conflict_row):
    item, members = conflict_row
    url = reverse("item_detail", args=[item.id])
    refusal = "The blind reviews of this row disagree; an adjudicator or owner decides it now."
    ann = browser(members["ann"])

    # The page says why there is nothing to press
    body = ann.get(url).content.decode()
    assert f'<p class="muted" data-review-refusal>{refusal}</p>' in body
    assert "data-verdict-key" not in body

    # and a verdict sent anyway is refused with that reason, and saves nothing
    refused = ann.post(url, {"verdict": "incorrect", "expected_version": item.version})
    assert refused.status_code == 403
    assert f"Your verdict was not saved: {refusal}" in refused.content.decode()
    assert item.reviews.count() == 2
    item.refresh_from_db()
    assert (item.review_stage, item.final_source) == (Stage.CONFLICT, Item.FinalSource.AUTO)

    # while the adjudicator gets the verdict buttons
    assert "data-verdict-key" in browser(members["judy"]).get(url).content.decode()


# ---- rulings --------------------------------------------------------------------------------


def test_a_verdict_offers_a_ruling_on_the_next_page_which_applies_and_is_undone_from_the_trail(
    user,
):
    # Given a run where rows 1 to 3 answer 0.5 for gold 1/2 (row 3 as \dfrac{1}{2}) and row 4
    # answers 0.25, none decided by a person
    run = RunFactory(status=Run.Status.DONE, total_rows=4)
    source = paired_row(run, "0.5", row_number=1)
    alike = [paired_row(run, "0.5", row_number=2), paired_row(run, "\\dfrac{1}{2}", row_number=3)]
    different = paired_row(run, "0.25", row_number=4)
    client = browser(user)

    # When the owner saves "correct" on row 1
    saved = client.post(
        reverse("item_detail", args=[source.id]),
        {"verdict": "correct", "expected_version": source.version},
    )

    # Then the next page offers to apply it to the two other rows with that answer
    next_url = saved["Location"]
    assert next_url == reverse("item_detail", args=[alike[0].id])
    page = client.get(next_url).content.decode()
    offer = re.search(
        r'<section class="panel ruling-offer" id="ruling-offer">(.*?)</section>', page, re.S
    )
    assert offer, "no ruling offer on the page after the verdict"
    assert "<span data-ruling-count>2</span> other undecided rows" in offer.group(1)
    assert f'action="{reverse("ruling_apply", args=[source.id])}"' in offer.group(1)
    assert "Apply “Correct” to them" in offer.group(1)

    # When they apply it, they come back to the same page and both rows are decided
    applied = client.post(
        reverse("ruling_apply", args=[source.id]), {"next": next_url}, follow=True
    )
    assert applied.redirect_chain == [(next_url, 302)]
    ruling = Ruling.objects.get()
    assert f"Ruling {ruling.pk}: “Correct” applied to 2 rows." in applied.content.decode()
    assert 'id="ruling-offer"' not in applied.content.decode()
    for row in alike:
        row.refresh_from_db()
        assert (row.final_verdict, row.final_source) == ("correct", Item.FinalSource.HUMAN)
    different.refresh_from_db()
    assert (different.final_verdict, different.final_source) == ("incorrect", "auto")

    # And the project's audit trail lists the ruling with a button to undo it
    audit_url = reverse("project_audit", args=[run.project_id])
    trail = client.get(audit_url).content.decode()
    assert ("ruling", run.id) in audit_rows(client.get(audit_url))
    assert f'data-ruling-undo="{ruling.pk}">Undo ruling {ruling.pk}</button>' in trail

    # When they undo it, the page says how many rows went back, and they did
    undone = client.post(reverse("ruling_undo", args=[ruling.pk]), {"next": audit_url}, follow=True)
    assert undone.redirect_chain == [(audit_url, 302)]
    body = undone.content.decode()
    assert f"Ruling {ruling.pk} undone: 2 rows put back." in body
    assert f"Undo ruling {ruling.pk}" not in body
    for row in alike:
        row.refresh_from_db()
        assert (row.final_verdict, row.final_source) == ("incorrect", Item.FinalSource.AUTO)
        assert not row.reviews.exists()


def test_the_ruling_offer_is_shown_once(user):
    run = RunFactory(status=Run.Status.DONE, total_rows=3)
    source = paired_row(run, "0.5", row_number=1)
    paired_row(run, "0.5", row_number=2)
    paired_row(run, "0.5", row_number=3)
    client = browser(user)

    saved = client.post(reverse("item_detail", args=[source.id]), {"verdict": "correct"})

    assert 'id="ruling-offer"' in client.get(saved["Location"]).content.decode()
    assert 'id="ruling-offer"' not in client.get(saved["Location"]).content.decode()


# ---- the project's audit page ---------------------------------------------------------------


def test_the_audit_page_narrows_to_one_run_and_one_kind_of_event(user):
    # Given a project whose first run's queue was split and one row reviewed, and a row of
    # its second run reviewed
    project, members = team(ann=Role.ANNOTATOR)
    first, second = graded_run(project, flagged=2), graded_run(project, flagged=1)
    run_assign(run=first, shares={members["ann"]: 1}, by=user)
    services.item_review(item=first.items.first(), user=members["ann"], verdict="incorrect")
    services.item_review(item=second.items.get(), user=user, verdict="gold_wrong")
    url = reverse("project_audit", args=[project.id])
    client = browser(user)

    everything = audit_rows(client.get(url))
    of_first = audit_rows(client.get(url, {"run": first.id}))
    verdicts = audit_rows(client.get(url, {"action": "verdict"}))
    both = audit_rows(client.get(url, {"run": first.id, "action": "verdict"}))

    assert {("assignment", first.id), ("verdict", first.id), ("verdict", second.id)} <= set(
        everything
    )
    assert of_first and {run for _, run in of_first} == {first.id}
    assert sorted(of_first) == sorted(row for row in everything if row[1] == first.id)
    assert sorted(verdicts) == sorted([("verdict", first.id), ("verdict", second.id)])
    assert both == [("verdict", first.id)]
    assert (
        "Nothing recorded for this choice."
        in client.get(url, {"run": second.id, "action": "assignment"}).content.decode()
    )


def test_the_audit_page_hides_an_annotators_blind_verdict_from_the_other_while_blind(blind_row):
    item, members = blind_row
    services.item_review(item=item, user=members["ann"], verdict="correct")
    url = reverse("project_audit", args=[item.run.project_id])

    def blind_verdicts_seen_by(who: str) -> int:
        rows = audit_rows(browser(members[who]).get(url))
        return [action for action, _ in rows].count("blind_verdict")

    assert blind_verdicts_seen_by("bea") == 0
    assert blind_verdicts_seen_by("ann") == 1
    assert blind_verdicts_seen_by("judy") == 1

    # once bea's verdict is in, the row is no longer blind and both see both
    services.item_review(item=item, user=members["bea"], verdict="correct")
    assert blind_verdicts_seen_by("bea") == 2
    assert blind_verdicts_seen_by("ann") == 2


# ---- the API: splitting and queues ----------------------------------------------------------


def test_api_splits_the_queue_and_answers_with_each_annotators_queue(user):
    # Given three flagged rows and one unflagged, and two annotators
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=3, unflagged=1)

    # When the owner asks for two blind reviews per flagged row
    response = api_as(user).post(
        f"/api/runs/{run.id}/assignments/",
        {"annotators": {"ann": 1, "bea": 1}, "reviews_per_flagged_row": 2, "scope": "flagged"},
        format="json",
    )

    # Then each annotator has every flagged row, to review blind
    assert response.status_code == 200, response.content
    assert response.json() == {
        "reviews_per_flagged_row": 2,
        "conflicts": 0,
        "queues": [
            {"username": "ann", "assigned": 3, "done": 0, "to_do": 3},
            {"username": "bea", "assigned": 3, "done": 0, "to_do": 3},
        ],
    }
    assert run.items.filter(review_stage=Stage.BLIND).count() == 3
    assert api_as(members["ann"]).get(f"/api/runs/{run.id}/assignments/").json() == (
        response.json()
    )


def test_api_refuses_a_split_naming_a_user_who_does_not_exist(user):
    project, _ = team(ann=Role.ANNOTATOR)
    run = graded_run(project, flagged=2)

    response = api_as(user).post(
        f"/api/runs/{run.id}/assignments/",
        {"annotators": {"ann": 1, "nobody": 1}},
        format="json",
    )

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert error["fields"] == {"annotators": ["no such user: nobody"]}
    assert not Assignment.objects.exists()


def test_api_refuses_more_blind_reviews_than_annotators_and_hands_out_nothing(user):
    project, _ = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=2)

    response = api_as(user).post(
        f"/api/runs/{run.id}/assignments/",
        {"annotators": {"ann": 1, "bea": 1}, "reviews_per_flagged_row": 3},
        format="json",
    )

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid"
    assert "need at least 3 annotators; 2 chosen" in error["message"]
    assert not Assignment.objects.exists()


def test_api_refuses_a_split_from_an_annotator(user):
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    run = graded_run(project, flagged=2)

    response = api_as(members["ann"]).post(
        f"/api/runs/{run.id}/assignments/", {"annotators": {"ann": 1, "bea": 1}}, format="json"
    )

    assert response.status_code == 403
    assert error_of(response)["code"] == "permission_denied"
    assert not Assignment.objects.exists()


def test_api_lists_only_the_callers_open_rows_as_their_queue(user):
    project, members = team(ann=Role.ANNOTATOR, bea=Role.ANNOTATOR)
    ann = members["ann"]
    run = graded_run(project, flagged=4, unflagged=2)
    run_assign(run=run, shares={ann: 1, members["bea"]: 1}, scope="flagged", by=user)
    mine = sorted(queue_ids(ann, run))
    api = api_as(ann)

    def queue() -> list[int]:
        response = api.get(f"/api/runs/{run.id}/items/", {"queue": "mine"})
        assert response.status_code == 200
        return [row["id"] for row in response.json()["results"]]

    assert queue() == mine
    services.item_review(item=Item.objects.get(pk=mine[0]), user=ann, verdict="incorrect")
    assert queue() == mine[1:]
    # the owner has no queue
    owners = api_as(user).get(f"/api/runs/{run.id}/items/", {"queue": "mine"}).json()
    assert owners["results"] == []


# ---- the API: blind reviews -----------------------------------------------------------------


def test_api_hides_the_other_annotators_blind_review_but_not_from_an_adjudicator(blind_row):
    # Given ann's blind verdict on the row
    item, members = blind_row
    services.item_review(item=item, user=members["ann"], verdict="correct")

    def seen_by(who: str) -> tuple[str, list, list]:
        api = api_as(members[who])
        detail = api.get(f"/api/items/{item.id}/").json()
        history = api.get(f"/api/items/{item.id}/reviews/").json()["results"]
        as_seen = [(r["annotator"], r["kind"]) for r in detail["reviews"]]
        return detail["review_stage"], as_seen, [(r["annotator"], r["kind"]) for r in history]

    # Then bea sees the row is under blind review but not ann's verdict; ann and the
    # adjudicator see it
    assert seen_by("bea") == ("blind", [], [])
    assert seen_by("ann") == ("blind", [("ann", "blind")], [("ann", "blind")])
    assert seen_by("judy") == ("blind", [("ann", "blind")], [("ann", "blind")])

    # Once bea disagrees, the row is a conflict and both see both verdicts
    services.item_review(item=item, user=members["bea"], verdict="incorrect")
    stage, reviews, history = seen_by("bea")
    assert stage == "conflict"
    assert sorted(reviews) == sorted(history) == [("ann", "blind"), ("bea", "blind")]


def test_api_refuses_an_annotators_verdict_on_a_conflict_with_the_reason(conflict_row):
    item, members = conflict_row

    response = api_as(members["ann"]).post(
        f"/api/items/{item.id}/reviews/", {"verdict": "incorrect"}, format="json"
    )

    assert response.status_code == 403
    error = error_of(response)
    assert error["code"] == "permission_denied"
    assert "an adjudicator or owner decides it now" in error["message"]
    assert item.reviews.count() == 2
    decided = api_as(members["judy"]).post(
        f"/api/items/{item.id}/reviews/", {"verdict": "incorrect"}, format="json"
    )
    assert decided.status_code == 201
    assert decided.json()["review"]["kind"] == "adjudication"
    assert decided.json()["item"]["review_stage"] == ""


# ---- the API: rulings and the audit trail ---------------------------------------------------


def test_api_applies_a_ruling_undoes_it_and_lists_it_with_its_audit_event(user):
    # Given row 1 decided "correct" by the owner and two other rows with the same answer
    run = RunFactory(status=Run.Status.DONE, total_rows=3)
    source = paired_row(run, "0.5", row_number=1)
    alike = [paired_row(run, "0.5", row_number=2), paired_row(run, "0.5", row_number=3)]
    services.item_review(item=source, user=user, verdict="correct")
    api = api_as(user)
    project_id = run.project_id

    # When the owner applies a ruling
    made = api.post(f"/api/items/{source.id}/ruling/")

    # Then both rows are decided by it
    assert made.status_code == 201, made.content
    ruling = made.json()
    assert (ruling["rows_applied"], ruling["verdict"], ruling["user"]) == (2, "correct", "reviewer")
    assert (ruling["source_item"], ruling["prediction"], ruling["undone_at"]) == (
        source.id,
        "0.5",
        None,
    )
    assert set(
        Item.objects.filter(pk__in=[r.pk for r in alike]).values_list("final_source", flat=True)
    ) == {Item.FinalSource.HUMAN}
    assert [r["kind"] for r in api.get(f"/api/items/{alike[0].id}/").json()["reviews"]] == [
        "ruling"
    ]

    # and there is nothing left for a second ruling to decide
    again = api.post(f"/api/items/{source.id}/ruling/")
    assert again.status_code == 409
    assert error_of(again)["code"] == "ruling_refused"
    assert Ruling.objects.count() == 1

    # The audit trail has the ruling, who made it and what it did
    events = api.get(f"/api/projects/{project_id}/audit/", {"action": "ruling"}).json()
    assert [(e["action"], e["actor"], e["item"], e["run"]) for e in events["results"]] == [
        ("ruling", "reviewer", source.id, run.id)
    ]
    assert "applied to 2 other rows" in events["results"][0]["summary"]

    # When it is undone, both rows go back; undoing it twice is refused
    undone = api.post(f"/api/rulings/{ruling['id']}/undo/")
    assert undone.status_code == 200, undone.content
    assert (undone.json()["rows_restored"], undone.json()["undone_by"]) == (2, "reviewer")
    assert set(
        Item.objects.filter(pk__in=[r.pk for r in alike]).values_list("final_source", flat=True)
    ) == {Item.FinalSource.AUTO}
    twice = api.post(f"/api/rulings/{ruling['id']}/undo/")
    assert twice.status_code == 409
    assert error_of(twice)["code"] == "ruling_refused"
    assert "already undone" in error_of(twice)["message"]

    # The project's rulings list it, undone
    listed = api.get(f"/api/projects/{project_id}/rulings/").json()["results"]
    assert [(r["id"], r["rows_applied"], r["rows_restored"]) for r in listed] == [
        (ruling["id"], 2, 2)
    ]
    assert listed[0]["undone_at"] is not None
    assert AuditEvent.objects.filter(action="ruling_undo").count() == 1


def test_api_refuses_a_ruling_on_a_row_no_person_decided(user):
    run = RunFactory(status=Run.Status.DONE, total_rows=2)
    source = paired_row(run, "0.5", row_number=1)
    paired_row(run, "0.5", row_number=2)

    response = api_as(user).post(f"/api/items/{source.id}/ruling/")

    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "ruling_refused"
    assert "decide this row first" in error["message"]
    assert not Review.objects.exists()
