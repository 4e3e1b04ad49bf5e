"""Reading a row as a person does, in headless Chromium: a long output rendered with its
answer in view, a run table that can be scanned and updates as rows are graded, honest
evaluator charts, personal API tokens, and error pages in the app's layout."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from reviewer.models import Item, Review, Run
from tests.e2e.conftest import save_screenshot
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "correct horse battery staple"
HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=1</script>'


def _log_in(page, url: str, user) -> None:
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    expect(page.get_by_role("heading", name="Runs", level=1)).to_be_visible()


def _long_output() -> str:
    """A chain of thought of about 30,000 characters: thinking, then 150 steps with math, the
    answer boxed two thirds of the way through, and more after it."""
    thinking = "Maybe $x^2 = 4$, so $x = \\pm 2$. " * 60
    steps = [
        f"**Step {n}.** We have $a_{{{n}}} = {n}^2$ and \\[ \\sum_{{k=1}}^{{{n}}} k = "
        f"\\frac{{{n}({n}+1)}}{{2}} \\]"
        for n in range(1, 151)
    ]
    steps[100] = "Putting it together, the answer is $\\boxed{\\frac{7}{3}}$."
    steps[20] = HOSTILE
    return f"<think>{thinking}</think>" + "\n\n".join(steps)


def test_a_long_output_reads_as_rendered_math_with_the_answer_in_view(live_server, browser):
    # Given a flagged row whose long output thinks first and boxes its answer mid-way
    reviewer = UserFactory(username="alice")
    run = RunFactory(project=ProjectFactory(created_by=reviewer), status=Run.Status.DONE)
    item = GradedItemFactory(
        run=run,
        problem="Find $r$ such that $3r = 7$. *Give a fraction.*",
        gold="\\frac{7}{3}",
        output=_long_output(),
        needs_review=True,
        review_reasons=[{"code": "hedged", "message": "The output hedges."}],
    )
    EvaluationFactory(item=item, extracted="\\frac{7}{3}", extracted_latex="\\frac{7}{3}")
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    # When they open the row
    page.goto(f"{live_server.url}/items/{item.id}/")

    # Then the problem and the output are drawn as Markdown and math
    expect(page.locator("#problem .rendered-text em")).to_have_text("Give a fraction.")
    expect(page.locator("#problem .rendered-text .katex").first).to_be_visible()
    output = page.locator("#model-output .rendered-text")
    shown = output.locator(":scope > p")  # the paragraphs around the answer, not folded
    expect(shown.locator("strong").first).to_be_visible()
    expect(shown.locator(".math.display .katex-display").first).to_be_visible()
    # and the thinking is folded, its length on the fold
    think = output.locator("details.think")
    expect(think).not_to_have_attribute("open", "")
    thinking = len(item.output.split("</think>")[0]) - len("<think>")
    expect(think.locator("summary")).to_have_text(f"Thinking · {thinking:,} characters")
    # and the answer is marked, drawn, and scrolled into view inside the output's box
    answer = output.locator("mark#extracted-answer")
    expect(answer.locator(".katex")).to_be_visible()
    box = output.bounding_box()
    mark = answer.bounding_box()
    assert box["y"] <= mark["y"] and mark["y"] + mark["height"] <= box["y"] + box["height"]
    # and the steps far from it are folded, with a way to show everything
    before = output.locator('details[data-fold="before"]')
    expect(before).not_to_have_attribute("open", "")
    page.get_by_role("button", name="Show all").click()
    expect(before).to_have_attribute("open", "")
    expect(before.locator(".katex").first).to_be_visible()
    save_screenshot(page, "item-long-output.png")

    # When they press t, the raw text is shown instead, with the answer highlighted; t again
    page.keyboard.press("t")
    raw = page.locator("#model-output pre.raw-text")
    expect(raw).to_be_visible()
    expect(output).to_be_hidden()
    expect(raw.locator("mark.extracted")).to_have_text("\\frac{7}{3}")
    page.keyboard.press("t")
    expect(output).to_be_visible()

    # and nothing in the text ran: no handler, no script, no CSP violation
    assert page.evaluate("window.pwned") is None
    expect(output).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert browser.csp_violations == []
    assert not [e for e in browser.console_errors if "Content Security Policy" in e]


def test_a_1_mb_output_is_raw_text_with_the_answer_marked_and_the_page_works(  # E6
    live_server, browser
):
    # Given a flagged row whose output is over a megabyte of steps with math, a hostile tag in
    # the middle and the boxed answer near the end
    reviewer = UserFactory(username="alice")
    run = RunFactory(project=ProjectFactory(created_by=reviewer), status=Run.Status.DONE)
    steps = "".join(
        f"Step {n}: $a_{{{n}}} = \\frac{{{n}}}{{{n + 1}}}$ and $\\sqrt{{{n}}}$.\n"
        for n in range(17_000)
    )
    half = len(steps) // 2
    output = (
        steps[:half] + HOSTILE + steps[half:] + "So the answer is $\\boxed{\\frac{7}{3}}$. Done."
    )
    assert len(output) > 1_000_000
    item = GradedItemFactory(
        run=run,
        gold="\\frac{7}{3}",
        output=output,
        auto_verdict="incorrect",
        final_verdict="incorrect",
        needs_review=True,
        review_reasons=[{"code": "hedged", "message": "The output hedges."}],
    )
    EvaluationFactory(item=item, extracted="\\frac{7}{3}", extracted_latex="\\frac{7}{3}")
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    # When they open the row
    response = page.goto(f"{live_server.url}/items/{item.id}/")

    # Then the output is raw text, said so, and none of its math is drawn
    assert response.status == 200
    expect(page.locator("[data-not-rendered]")).to_be_visible()
    raw = page.locator("#model-output pre[data-output-box]")
    expect(raw).to_be_visible()
    assert page.locator("#model-output .katex, #model-output .math").count() == 0
    # and only the extracted answer and the gold are drawn by KaTeX
    expect(page.locator("[data-math=prediction] .katex")).to_be_visible()
    expect(page.locator("[data-math=gold] .katex")).to_be_visible()
    # and the answer is marked and scrolled into view inside the output's box
    mark = raw.locator("mark.extracted")
    expect(mark).to_have_text("\\frac{7}{3}")
    box, marked = raw.bounding_box(), mark.bounding_box()
    assert box["y"] <= marked["y"] and marked["y"] + marked["height"] <= box["y"] + box["height"]
    # and the hostile tag is text
    expect(raw).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert page.evaluate("window.pwned") is None

    # When they toggle raw LaTeX and then save a verdict with the keyboard
    page.keyboard.press("t")
    expect(page.locator("[data-math=gold] .math-raw")).to_be_visible()
    page.keyboard.press("t")
    page.keyboard.press("1")

    # Then the verdict is saved
    expect(page.locator("#item .messages")).to_contain_text(f"Row {item.row_number} saved")
    review = Review.objects.get(item=item)
    assert (review.verdict, review.annotator) == ("correct", reviewer)
    assert browser.csp_violations == []


def test_the_run_table_renders_answers_names_reasons_and_updates_as_rows_are_graded(
    live_server, browser, settings
):
    # Given a run being graded: a flagged row with a fraction gold, a spot-checked row, and a
    # row not graded yet
    settings.MATHJURY_SPOT_CHECK_PERCENT = 100
    reviewer = UserFactory(username="alice")
    run = RunFactory(
        project=ProjectFactory(created_by=reviewer),
        status=Run.Status.GRADING,
        total_rows=3,
        grading_started_at=timezone.now(),
    )
    flagged = GradedItemFactory(
        run=run,
        row_number=1,
        gold="\\frac{1}{2}",
        needs_review=True,
        graded_at=timezone.now(),
        review_reasons=[{"code": "string_fallback", "message": "Only a string match."}],
    )
    EvaluationFactory(
        item=flagged, extracted="1/2", extracted_latex="\\frac{1}{2}", gold_latex="\\frac{1}{2}"
    )
    sampled = GradedItemFactory(run=run, row_number=2, graded_at=timezone.now())
    waiting = ItemFactory(run=run, row_number=3)
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    # When they open the run
    page.goto(f"{live_server.url}/runs/{run.id}/")

    # Then gold and prediction are drawn, the reason is in words with its code on hover, and
    # the sampled unflagged row says it is the spot check
    row = page.locator(f'#items tr[data-item-id="{flagged.id}"]')
    expect(row.locator("[data-cell=gold] .katex")).to_be_visible()
    expect(row.locator("[data-cell=prediction] .katex")).to_be_visible()
    reason = row.locator("[data-reason=string_fallback]")
    expect(reason).to_have_text("string fallback")
    expect(reason).to_have_attribute("title", "string_fallback: Only a string match.")
    expect(
        page.locator(f'#items tr[data-item-id="{sampled.id}"] [data-spot-check]')
    ).to_be_visible()
    waiting_row = page.locator(f'#items tr[data-item-id="{waiting.id}"]')
    expect(waiting_row).to_contain_text("pending")
    save_screenshot(page, "run-table.png")

    # When the waiting row's result is saved, while the run is still grading
    Item.objects.filter(pk=waiting.pk).update(
        grade_state=Item.GradeState.GRADED,
        auto_verdict="incorrect",
        final_verdict="incorrect",
        final_source=Item.FinalSource.AUTO,
        graded_at=timezone.now(),
    )

    # Then its row shows the verdict without a reload
    expect(waiting_row.locator(".badge.incorrect").first).to_be_visible(timeout=20_000)
    assert browser.csp_violations == []


def test_an_evaluator_that_does_not_apply_is_not_counted_as_zero(live_server, browser):
    # Given numeric rows and one letter row, graded by math_verify and choice
    reviewer = UserFactory(username="alice")
    run = RunFactory(
        project=ProjectFactory(created_by=reviewer),
        status=Run.Status.DONE,
        evaluators=["math_verify", "choice"],
    )
    for row in range(1, 5):
        letter = row == 4
        item = GradedItemFactory(
            run=run, row_number=row, answer_type="letter" if letter else "integer"
        )
        EvaluationFactory(item=item, evaluator="math_verify", verdict="correct")
        EvaluationFactory(
            item=item,
            evaluator="choice",
            status="ok" if letter else "no_answer",
            verdict="correct" if letter else "",
        )
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    # When they open the statistics
    page.goto(f"{live_server.url}/runs/{run.id}/stats/")

    # Then choice is right on the one row it applies to, a quarter of the rows
    choice = page.locator('#evaluator-coverage tr[data-evaluator="choice"]')
    expect(choice.locator("[data-accuracy]")).to_contain_text("100.0%")
    expect(choice.locator("[data-coverage]")).to_have_text("25%")
    expect(page.locator("svg.chart").first).to_contain_text("applies to 25% of rows")
    # and the abbreviations are explained on the page
    expect(page.locator("#abbreviations")).to_contain_text("percentage points")
    expect(page.locator("[data-stat=flagged] + .label")).to_contain_text(
        "0 where the evaluators disagree"
    )


def test_a_person_makes_uses_and_revokes_an_api_token(live_server, browser):
    # Given a logged-in user
    reviewer = UserFactory(username="alice")
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    # When they open API tokens from the navigation and make one
    page.get_by_role("link", name="API tokens").click()
    page.fill("input[name=name]", "nightly pipeline")
    page.get_by_role("button", name="Make token").click()
    key = page.locator("[data-new-key]").inner_text()
    assert key.startswith("mj_")
    save_screenshot(page, "api-tokens.png")

    # Then a script can call the API with it, and the page shows it was used
    headers = {"Authorization": f"Token {key}"}
    assert page.request.get(f"{live_server.url}/api/runs/", headers=headers).status == 200
    page.reload()
    expect(page.locator('tr[data-token="nightly pipeline"] [data-last-used]')).not_to_have_text(
        "never"
    )

    # When they revoke it, the API refuses it
    page.locator('[data-revoke="nightly pipeline"]').click()
    expect(page.locator(".messages")).to_contain_text("revoked")
    assert page.request.get(f"{live_server.url}/api/runs/", headers=headers).status == 401

    # and the API docs are one click away
    page.get_by_role("link", name="API docs").click()
    expect(page).to_have_url(re.compile(r"/api/docs/"))


def test_a_missing_page_is_shown_in_the_apps_layout(live_server, browser):
    reviewer = UserFactory(username="alice")
    page = browser.page
    _log_in(page, live_server.url, reviewer)

    response = page.goto(f"{live_server.url}/runs/999999/")

    assert response.status == 404
    expect(page.get_by_role("heading", name=re.compile("Page not found"))).to_be_visible()
    expect(page.get_by_role("link", name="Runs", exact=True)).to_be_visible()
    page.get_by_role("link", name="Back to the runs").click()
    expect(page.get_by_role("heading", name="Runs", level=1)).to_be_visible()
    assert browser.csp_violations == []
