"""MSU in headless Chromium: the demo run, scored by a real worker, shows both keyword lists."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from reviewer import services
from reviewer.models import ItemMsu
from tests.e2e.conftest import save_screenshot
from tests.factories import UserFactory
from tests.reviewer.test_worker import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PASSWORD = "correct horse battery staple"


def test_the_item_page_shows_both_keyword_lists_of_the_demo_run(
    live_server, celery_worker_process, browser
):
    # Given the demo run, loaded with its human solutions, and a worker that scores it
    reviewer = UserFactory(username="alice")
    celery_worker_process()
    run = services.demo_load(user=reviewer)
    rows = ItemMsu.objects.filter(item__run=run)
    wait_for(
        lambda: rows.exists() and not rows.filter(state="pending").exists(),
        timeout=300,
        what="MSU on the demo run",
    )
    item = run.items.get(external_id="demo-42")  # the Pythagorean theorem, both sides
    page = browser.page

    # When the reviewer opens that row
    page.goto(f"{live_server.url}/items/{item.pk}/")
    page.fill("input[name=username]", reviewer.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")

    # Then both keyword lists are side by side, the shared notions highlighted
    model_list = page.locator("#msu-keywords-model")
    human_list = page.locator("#msu-keywords-human")
    expect(model_list).to_be_visible()
    expect(human_list).to_be_visible()
    expect(model_list.locator("mark.msu-shared", has_text="pythagorean theorem")).to_be_visible()
    expect(human_list.locator("mark.msu-shared", has_text="pythagorean theorem")).to_be_visible()
    expect(human_list).to_contain_text("hypotenuse")
    model_box, human_box = model_list.bounding_box(), human_list.bounding_box()
    assert model_box["x"] < human_box["x"] and abs(model_box["y"] - human_box["y"]) < 5
    expect(page.locator("#msu")).to_contain_text("not the LLM method")
    expect(page.locator("[data-msu-score]")).to_have_text(f"{rows.get(item=item).score:.3f}")
    save_screenshot(page, "item-msu.png")

    # and the run page compares the models with a bar per model
    page.goto(f"{live_server.url}/runs/{run.pk}/#msu")
    expect(page.locator(".msu-chart [data-model]")).to_have_count(2)
    expect(page.locator("#msu-by-level")).to_contain_text("Level 1")
    if os.environ.get("MATHJURY_SCREENSHOTS"):  # the MSU section alone, not the whole table
        folder = Path(os.environ["MATHJURY_SCREENSHOTS"])
        page.locator("#msu").screenshot(path=str(folder / "run-msu.png"))
