"""The stats and comparison pages in headless Chromium: a confusion-matrix cell opens its rows."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from reviewer.models import Evaluation, Item, Run
from tests.e2e.conftest import save_screenshot
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ProjectFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "correct horse battery staple"
# evaluator -> (chance of a wrong verdict, chance of finding no answer)
EVALUATORS = {
    "math_verify": (0.08, 0.02),
    "math_verify_strict": (0.06, 0.12),
    "strict": (0.05, 0.25),
    "flex": (0.12, 0.02),
    "exact": (0.2, 0.03),
    "choice": (0.02, 0.85),
}
TYPES = ("integer", "integer", "fraction", "expression", "decimal")


def _graded_run(project, name: str, annotators, *, seed: int, rows: int = 80) -> Run:
    """A run graded by six evaluators with a seeded hidden truth, reviewed by two people."""
    rng = random.Random(seed)
    run = RunFactory(project=project, name=name, status=Run.Status.DONE, total_rows=rows,
                     evaluators=list(EVALUATORS))  # fmt: skip
    first, second = annotators
    for row in range(1, rows + 1):
        truth = rng.random() < 0.7
        scores = {}
        for evaluator, (wrong, missing) in EVALUATORS.items():
            said_correct = truth != (rng.random() < wrong)
            scores[evaluator] = None if rng.random() < missing else said_correct
        decided = [s for s in scores.values() if s is not None]
        auto = "correct" if sum(decided) * 2 > len(decided) else "incorrect"
        disagree = 0 < sum(decided) < len(decided)
        item = GradedItemFactory(
            run=run,
            row_number=row,
            external_id=f"p{row}",
            answer_type=TYPES[row % len(TYPES)],
            subject=("Algebra", "Geometry", "Number Theory")[row % 3],
            auto_verdict=auto,
            final_verdict=auto,
            needs_review=disagree,
            evaluators_disagree=disagree,
            review_reasons=[{"code": "evaluators_disagree", "message": "They disagree."}]
            if disagree
            else [],
        )
        for evaluator, score in scores.items():
            EvaluationFactory(
                item=item,
                evaluator=evaluator,
                status="no_answer" if score is None else "ok",
                verdict="" if score is None else ("correct" if score else "incorrect"),
            )
        if disagree or rng.random() < 0.15:
            human = "correct" if truth else "incorrect"
            if rng.random() < 0.4:
                other = human if rng.random() < 0.8 else "unclear"
                ReviewFactory(item=item, annotator=second, verdict=other)
            ReviewFactory(item=item, annotator=first, verdict=human)
            Item.objects.filter(pk=item.pk).update(final_verdict=human, final_source="human")
    return run


def test_reviewer_opens_the_rows_behind_a_confusion_matrix_cell(live_server, browser):
    # Given a graded run reviewed by two people, and the same problems graded again
    reviewer = UserFactory(username="alice")
    annotators = (reviewer, UserFactory(username="bob"))
    project = ProjectFactory(name="Stats browser test", created_by=reviewer)
    run = _graded_run(project, "qwen sample", annotators, seed=4)
    after = _graded_run(project, "qwen sample, new prompt", annotators, seed=5)
    expected = set(
        Item.objects.filter(
            run=run,
            final_source="human",
            final_verdict="incorrect",
            evaluations__in=Evaluation.objects.filter(evaluator="flex", verdict="correct"),
        ).values_list("pk", flat=True)
    )
    assert expected, "the seeded run must hold rows flex rewarded and a human rejected"
    page = browser.page

    # When they log in and open the run's statistics from the run page
    page.goto(f"{live_server.url}/runs/{run.id}/")
    page.fill("input[name=username]", reviewer.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.get_by_role("link", name="Agreement statistics").click()

    # Then the figures and the charts are there
    expect(page.get_by_role("heading", name="Agreement statistics")).to_be_visible()
    expect(page.locator("[data-stat=graded]")).to_have_text("80")
    expect(page.locator("svg.heat-map g")).to_have_count(30)  # 6 x 6 minus the diagonal
    expect(page.locator("[data-stat=alpha]")).to_be_visible()
    save_screenshot(page, "stats.png")

    # When they click "flex said correct, a human said incorrect"
    cell = page.locator('[data-evaluator="flex"] a[data-cell="correct-incorrect"]')
    expect(cell).to_have_text(str(len(expected)))
    cell.click()

    # Then the row list shows exactly those rows, with the filter shown in the form
    expect(page).to_have_url(re.compile(rf"/runs/{run.id}/\?.*evaluator=flex"))
    expect(page.locator("select[name=evaluator]")).to_have_value("flex")
    expect(page.locator("select[name=human_verdict]")).to_have_value("incorrect")
    rows = page.locator("#items tbody tr[data-item-id]")
    expect(rows).to_have_count(len(expected))
    shown = {int(i) for i in rows.evaluate_all("rows => rows.map(r => r.dataset.itemId)")}
    assert shown == expected

    # When they compare the run with the second grading of the same problems
    page.goto(f"{live_server.url}/runs/{run.id}/stats/")
    page.get_by_role("link", name="Compare with another run").click()
    page.select_option("select[name=b]", str(after.id))
    page.get_by_role("button", name="Compare").click()

    # Then both accuracies and the rows whose verdict flips are listed
    expect(page.locator("[data-stat=accuracy_a]")).to_contain_text("%")
    flips = page.locator("#flips tbody tr")
    expect(flips.first).to_be_visible()
    save_screenshot(page, "compare.png")

    # and nothing was blocked by the Content-Security-Policy
    assert browser.csp_violations == []
    assert not [e for e in browser.console_errors if "Content Security Policy" in e]
