"""A reviewer's whole session in headless Chromium: a live server and a real Celery worker."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from reviewer.models import Item, Review
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "correct horse battery staple"

# Written for this test: agreement, a wrong answer, two answers at once, and no answer at all.
OUTPUTS_CSV = (
    "id,problem,gold,output\n"
    'half,"What is 1/2 of 1?",\\frac{1}{2},"Half of one is $\\boxed{\\frac{1}{2}}$."\n'
    "three,What is 1+2?,3,The sum is $\\boxed{4}$.\n"
    'root,"Solve x^2=2, x>0.",\\sqrt{2},"It is $\\boxed{\\sqrt{2}}$ or maybe $\\boxed{2}$."\n'
    'silent,"What is 2+2?",4,"I am not sure how to do this."\n'
    'five,What is 2+3?,5,"Adding, we get $\\boxed{5}$."\n'
)


def test_reviewer_uploads_watches_grading_and_overrides_a_flagged_row_by_keyboard(
    live_server, celery_worker_process, browser, tmp_path: Path
):
    # Given a reviewer, a running Celery worker and a CSV of model outputs
    reviewer = UserFactory(username="alice")
    celery_worker_process()
    csv_path = tmp_path / "outputs.csv"
    csv_path.write_text(OUTPUTS_CSV, encoding="utf-8")
    page = browser.page

    # When they log in
    page.goto(f"{live_server.url}/")
    expect(page).to_have_url(re.compile(r"/login/"))
    page.fill("input[name=username]", reviewer.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page.get_by_role("heading", name="Runs")).to_be_visible()

    # and upload the file, keeping the guessed column mapping
    page.get_by_role("link", name="Upload a run").click()
    page.fill("input[name=project]", "Browser test")
    page.set_input_files("input[name=file]", str(csv_path))
    page.get_by_role("button", name="Upload and preview").click()
    expect(page.locator("table.preview-table")).to_contain_text("Half of one is")
    expect(page.locator("select[name=map_gold]")).to_have_value("gold")
    expect(page.locator("select[name=map_output]")).to_have_value("output")
    page.get_by_role("button", name="Create run and grade").click()

    # Then the progress bar fills and the table shows the graded rows, flagged ones first
    summary = page.locator("#summary")
    expect(summary).to_have_attribute("data-run-status", "done", timeout=180_000)
    expect(page.locator("[data-count=total]")).to_have_text("5")
    expect(page.locator("[data-count=reviewed]")).to_have_text("0")
    first_row = page.locator("#items tbody tr").first
    expect(first_row).to_have_class(re.compile(r"\brow-flagged\b"))
    flagged_before = int(page.locator("[data-count=flagged]").inner_text())
    assert flagged_before >= 1

    # When they open the first flagged row
    first_row.locator("a").click()
    item_panel = page.locator("#item")
    expect(item_panel).to_be_visible()
    item_id = int(item_panel.get_attribute("data-item-id"))
    item = Item.objects.get(pk=item_id)
    assert item.needs_review

    # Then the gold (and any extracted answer) is drawn by KaTeX, with the raw text on demand
    expect(page.locator("[data-math=gold] .katex").first).to_be_visible()
    page.keyboard.press("t")
    expect(page.locator("[data-math=gold] .math-raw")).to_be_visible()
    page.keyboard.press("t")
    expect(page.locator("[data-math=gold] .katex").first).to_be_visible()

    # When they override the automatic verdict with the keyboard, with a note
    override_key, override = (
        ("2", "incorrect") if item.auto_verdict == "correct" else ("1", "correct")
    )
    page.keyboard.press("c")
    page.keyboard.type("checked by hand")
    page.keyboard.press("Escape")
    page.keyboard.press(override_key)

    # Then the verdict is saved, the page moves on to the next row and the counts change
    expect(page.locator("#item .messages")).to_contain_text(f"Row {item.row_number} saved")
    expect(page.locator("#item [data-count=reviewed]")).to_have_text("1")
    expect(page).not_to_have_url(re.compile(rf"/items/{item_id}/"))
    review = Review.objects.get(item=item)
    assert (review.verdict, review.note, review.annotator) == (
        override,
        "checked by hand",
        reviewer,
    )

    # and k goes back to the reviewed row, whose history now holds the note
    page.keyboard.press("k")
    expect(page.locator("#item")).to_have_attribute("data-item-id", str(item_id))
    expect(page.locator("#review-history .history")).to_contain_text("checked by hand")
    expect(page).to_have_url(re.compile(rf"/items/{item_id}/"))

    # and the run page counts the review and shows the new final verdict
    page.goto(f"{live_server.url}/runs/{item.run_id}/")
    expect(page.locator("[data-count=reviewed]")).to_have_text("1")
    reviewed_row = page.locator(f'#items tr[data-item-id="{item_id}"]')
    expect(reviewed_row).to_contain_text("reviewed")

    # and nothing the pages did was blocked by the Content-Security-Policy
    assert browser.csp_violations == []
    assert not [e for e in browser.console_errors if "Content Security Policy" in e]
