"""Three people review one run at once in headless Chromium: a lead splits the queue, two
annotators review the flagged rows blind, the lead adjudicates the row they disagree on, and
the audit trail tells the whole story."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from reviewer.models import AuditEvent, Item, Membership, Review, Run
from tests.e2e.conftest import save_screenshot
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"
DISAGREE = [{"code": "evaluators_disagree", "message": "The evaluators disagree."}]


def _run_with_two_flagged_rows(project) -> tuple[Run, Item, Item]:
    """A graded run of four rows; rows 1 and 3 are flagged because the evaluators split."""
    run = RunFactory(project=project, name="qwen sample", status=Run.Status.DONE, total_rows=4)
    rows = {}
    for number, gold, flagged in (
        (1, "42", True),
        (2, "7", False),
        (3, "12", True),
        (4, "9", False),
    ):
        item = GradedItemFactory(
            run=run,
            row_number=number,
            gold=gold,
            output=f"Working it out, the answer is $\\boxed{{{gold}}}$.",
            needs_review=flagged,
            evaluators_disagree=flagged,
            review_reasons=DISAGREE if flagged else [],
        )
        EvaluationFactory(item=item, evaluator="math_verify", verdict="correct", extracted=gold)
        EvaluationFactory(
            item=item,
            evaluator="exact",
            verdict="incorrect" if flagged else "correct",
            extracted=gold,
        )
        rows[number] = item
    return run, rows[1], rows[3]


def _log_in(page: Page, url: str, username: str) -> None:
    page.goto(url)
    expect(page).to_have_url(re.compile(r"/login/"))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page).not_to_have_url(re.compile(r"/login/"))


def _open_my_queue(page: Page) -> None:
    """From the run page, open the first row still to do in the user's queue."""
    page.locator("[data-open-queue]").click()
    expect(page).to_have_url(re.compile(r"queue=mine"))
    page.locator("#items tbody tr[data-item-id] a").first.click()
    _wait_for_keys(page)


def _wait_for_keys(page: Page) -> None:
    """Wait until the item page has loaded review.js (deferred), so keys are heard."""
    expect(page.locator("#item")).to_be_visible()
    page.wait_for_load_state("load")


def test_two_annotators_review_blind_and_a_lead_adjudicates_their_conflict(live_server, browsers):
    # Given a lead who adjudicates, two annotators and a graded run with two flagged rows
    lead = UserFactory(username="lead")
    ann = UserFactory(username="ann")
    bea = UserFactory(username="bea")
    project = ProjectFactory(
        name="Team review",
        created_by=UserFactory(username="olga"),
        members={
            lead: Membership.Role.ADJUDICATOR,
            ann: Membership.Role.ANNOTATOR,
            bea: Membership.Role.ANNOTATOR,
        },
    )
    run, agreed, disputed = _run_with_two_flagged_rows(project)
    run_url = f"{live_server.url}/runs/{run.id}/"
    # and three people at their own browsers
    lead_browser, ann_browser, bea_browser = browsers(), browsers(), browsers()
    lead_page, ann_page, bea_page = lead_browser.page, ann_browser.page, bea_browser.page

    # When the lead opens the run and splits its queue: ann and bea one share each, the lead
    # none, two blind reviews per flagged row, flagged rows only
    _log_in(lead_page, run_url, "lead")
    expect(lead_page.get_by_role("heading", name="qwen sample")).to_be_visible()
    lead_page.get_by_role("link", name="Split the review queue").click()
    expect(lead_page.get_by_role("heading", name="Review queue of qwen sample")).to_be_visible()
    expect(lead_page.locator(".panel").first).to_contain_text("The queue is not split yet")
    lead_page.get_by_label("ann (annotator)").fill("1")
    lead_page.get_by_label("bea (annotator)").fill("1")
    lead_page.get_by_label("lead (adjudicator)").fill("0")
    lead_page.get_by_label("olga (owner)").fill("0")
    lead_page.get_by_label("Reviews per flagged row").select_option("2")
    lead_page.get_by_label("Rows").select_option(label="flagged rows only")
    lead_page.get_by_role("button", name="Split the queue").click()

    # Then each annotator has both flagged rows, to be reviewed blind
    expect(lead_page.locator(".messages")).to_contain_text(
        "Queue split: 2 rows (ann 2, bea 2); 2 under blind double review."
    )
    queues = lead_page.locator(".queue-table tbody tr")
    expect(queues).to_have_count(2)
    for name in ("ann", "bea"):
        row = lead_page.locator(f'.queue-table tr[data-annotator="{name}"]')
        expect(row.locator("td").nth(1)).to_have_text("2")
        expect(row.locator("[data-done]")).to_have_text("0")
    expect(lead_page.locator("body")).to_contain_text("Flagged rows get 2 reviews, blind.")
    save_screenshot(lead_page, "assignments.png")

    # When ann logs in, opens her queue and gives row 1 "correct" with the keyboard
    _log_in(ann_page, run_url, "ann")
    expect(ann_page.locator("[data-my-queue]")).to_contain_text("Your queue: 0 of 2 rows done")
    _open_my_queue(ann_page)
    expect(ann_page.locator("#item")).to_have_attribute("data-item-id", str(agreed.id))
    expect(ann_page.locator("[data-stage=blind]")).to_contain_text("0 of 2 verdicts in")
    ann_page.keyboard.press("1")

    # Then her blind verdict is saved and her queue moves on to row 3
    expect(ann_page.locator("#item .messages")).to_contain_text(
        "Row 1: your blind verdict “Correct” is saved"
    )
    expect(ann_page.locator("#item")).to_have_attribute("data-item-id", str(disputed.id))

    # When bea opens her queue, while ann has given her verdict on row 1
    _log_in(bea_page, run_url, "bea")
    expect(bea_page.locator("[data-my-queue]")).to_contain_text("Your queue: 0 of 2 rows done")
    _open_my_queue(bea_page)
    expect(bea_page.locator("#item")).to_have_attribute("data-item-id", str(agreed.id))

    # Then she learns that one verdict is in, but not whose or which
    _expect_blind(bea_page, given=1, hidden="ann")
    save_screenshot(bea_page, "item-blind.png")

    # When she agrees with "1" and moves on to row 3, where ann has now said "correct"
    bea_page.keyboard.press("1")
    expect(bea_page.locator("#item .messages")).to_contain_text(
        "Row 1: your blind verdict “Correct” is saved"
    )
    expect(bea_page.locator("#item")).to_have_attribute("data-item-id", str(disputed.id))
    ann_page.keyboard.press("1")
    expect(ann_page.locator("#item .messages")).to_contain_text(
        "Row 3: your blind verdict “Correct” is saved"
    )
    expect(ann_page.locator("#item .messages")).to_contain_text("That was the last row")
    bea_page.reload()
    _expect_blind(bea_page, given=1, hidden="ann")
    # and she says "incorrect" with "2"
    bea_page.keyboard.press("2")

    # Then row 3 waits for an adjudicator, and bea may no longer give a verdict on it
    expect(bea_page.locator("#item .messages")).to_contain_text(
        "Row 3: your blind verdict “Incorrect” is saved"
    )
    expect(bea_page.locator("#item")).to_have_attribute("data-item-id", str(disputed.id))
    expect(bea_page.locator("[data-stage=conflict]")).to_have_text(
        "blind reviews disagree: an adjudicator decides"
    )
    # and ann, looking at row 3 again, sees why she cannot review it instead of the buttons
    ann_page.reload()
    expect(ann_page.locator("[data-stage=conflict]")).to_be_visible()
    expect(ann_page.locator("[data-review-refusal]")).to_have_text(
        "The blind reviews of this row disagree; an adjudicator or owner decides it now."
    )
    expect(ann_page.locator("[data-review-form]")).to_have_count(0)
    # and both blind verdicts are shown now that both are in
    expect(ann_page.locator("#review-history li[data-review-kind=blind]")).to_have_count(2)
    # and row 1, where they agreed, has the human verdict "correct"
    ann_page.goto(f"{live_server.url}/items/{agreed.id}/")
    expect(ann_page.locator("[data-final-verdict]")).to_have_attribute(
        "data-final-verdict", "correct"
    )
    expect(ann_page.locator("#item")).to_contain_text("(human)")
    expect(ann_page.locator("[data-stage]")).to_have_count(0)
    expect(ann_page.locator("#item-audit")).to_contain_text(
        "Row 1: the 2 blind verdicts agree: “Correct”"
    )
    # and her queue is done
    ann_page.goto(run_url)
    expect(ann_page.locator("[data-my-queue]")).to_contain_text("Your queue: 2 of 2 rows done")
    expect(ann_page.locator("[data-my-queue]")).to_contain_text("all done")

    # When the lead looks at the run again
    lead_page.goto(run_url)
    conflicts = lead_page.locator("[data-conflicts]")
    expect(conflicts).to_contain_text("Conflicts: 1 row whose blind reviews disagree")
    expect(lead_page.locator("[data-my-queue]")).to_have_count(0)
    lead_page.locator("[data-open-conflicts]").click()
    expect(lead_page).to_have_url(re.compile(r"queue=conflicts"))
    conflict_rows = lead_page.locator("#items tbody tr[data-item-id]")
    expect(conflict_rows).to_have_count(1)
    expect(conflict_rows.first).to_have_attribute("data-item-id", str(disputed.id))
    conflict_rows.first.locator("a").click()
    _wait_for_keys(lead_page)

    # Then he sees the conflict and both blind verdicts, with who gave them
    expect(lead_page.locator("#item")).to_have_attribute("data-item-id", str(disputed.id))
    expect(lead_page.locator("[data-stage=conflict]")).to_be_visible()
    history = lead_page.locator("#review-history li[data-review-kind=blind]")
    expect(history).to_have_count(2)
    expect(history.filter(has_text="by ann")).to_contain_text("Correct")
    expect(history.filter(has_text="by bea")).to_contain_text("Incorrect")
    expect(lead_page.locator("#item-audit li[data-audit-action=conflict]")).to_contain_text(
        "Row 3: blind verdicts disagree (ann: Correct, bea: Incorrect); an adjudicator decides"
    )
    expect(lead_page.locator("[data-review-refusal]")).to_have_count(0)
    save_screenshot(lead_page, "item-conflict.png")

    # When he decides "incorrect" with "2"
    lead_page.keyboard.press("2")

    # Then the row is decided and his adjudication is in its history
    expect(lead_page.locator("#item .messages")).to_contain_text("Row 3 saved as “Incorrect”.")
    expect(lead_page.locator("#item")).to_have_attribute("data-item-id", str(disputed.id))
    expect(lead_page.locator("[data-final-verdict]")).to_have_attribute(
        "data-final-verdict", "incorrect"
    )
    expect(lead_page.locator("[data-stage]")).to_have_count(0)
    expect(lead_page.locator("#review-history li[data-review-kind=adjudication]")).to_contain_text(
        "by lead"
    )
    # and the run has no conflict left
    lead_page.goto(run_url)
    expect(lead_page.locator("[data-conflicts]")).to_have_count(0)
    expect(lead_page.locator("[data-count=reviewed]")).to_have_text("2")

    # When he opens the audit trail from the run page
    lead_page.get_by_role("link", name="Audit trail").click()

    # Then it tells the story, newest first: the split, four blind verdicts, the agreement,
    # the conflict and the adjudication
    expect(lead_page.get_by_role("heading", name="Audit trail of Team review")).to_be_visible()
    events = lead_page.locator("table.audit-table tbody tr")
    story = [
        ("assignment", "lead", "Review queue of “qwen sample” split: ann 2 rows, bea 2 rows; "
         "flagged rows reviewed blind by 2"),
        ("blind_verdict", "ann", "Row 1: blind verdict “Correct”"),
        ("blind_verdict", "bea", "Row 1: blind verdict “Correct”"),
        ("verdict", "system", "Row 1: the 2 blind verdicts agree: “Correct”"),
        ("blind_verdict", "ann", "Row 3: blind verdict “Correct”"),
        ("blind_verdict", "bea", "Row 3: blind verdict “Incorrect”"),
        ("conflict", "system", "Row 3: blind verdicts disagree (ann: Correct, bea: Incorrect); "
         "an adjudicator decides"),
        ("verdict", "lead", "Row 3: adjudicated as “Incorrect”"),
    ]  # fmt: skip
    expect(events).to_have_count(len(story))
    shown = [
        (row["action"], row["who"], row["what"])
        for row in events.evaluate_all(
            """rows => rows.map(r => ({action: r.dataset.auditAction,
                who: r.cells[1].textContent.trim(), what: r.cells[2].textContent.trim()}))"""
        )
    ]
    assert shown[::-1] == story
    save_screenshot(lead_page, "audit.png")

    # and the database agrees: both rows decided by humans, no double review left open
    for item, verdict in ((agreed, "correct"), (disputed, "incorrect")):
        item.refresh_from_db()
        assert (item.final_verdict, item.final_source, item.review_stage) == (
            verdict,
            Item.FinalSource.HUMAN,
            Item.ReviewStage.OPEN,
        )
    assert sorted(
        Review.objects.filter(item__run=run).values_list(
            "item__row_number", "annotator__username", "kind", "verdict"
        )
    ) == [
        (1, "ann", "blind", "correct"),
        (1, "bea", "blind", "correct"),
        (3, "ann", "blind", "correct"),
        (3, "bea", "blind", "incorrect"),
        (3, "lead", "adjudication", "incorrect"),
    ]
    assert AuditEvent.objects.filter(run=run).count() == len(story)

    # and nothing in any of the three sessions was blocked or failed in the console
    for session in (lead_browser, ann_browser, bea_browser):
        assert session.csp_violations == []
        assert session.console_errors == []


def _expect_blind(page: Page, *, given: int, hidden: str) -> None:
    """The item page of a row under blind review, with ``hidden``'s verdict nowhere on it."""
    expect(page.locator("[data-stage=blind]")).to_contain_text(f"{given} of 2 verdicts in")
    expect(page.locator("[data-blind-note]")).to_be_visible()
    expect(page.locator("#review-history li")).to_have_count(0)
    expect(page.locator("#review-history")).to_contain_text(
        "You have not given a verdict yet; others' stay hidden."
    )
    expect(page.locator("#item-audit li[data-audit-action=blind_verdict]")).to_have_count(0)
    expect(page.locator("#item-audit")).not_to_contain_text(hidden)
    expect(page.locator("[data-review-form]")).to_be_visible()
