"""Hostile LaTeX in a real browser (RELIABILITY E1-E3, issue 12 part 7): a gold answer or an
extracted answer that tries to link to ``javascript:``, set attributes, expand without end or
draw a huge box is drawn by the app's KaTeX with its safe options, and the page stays usable:
no ``javascript:`` link, no event attribute, no hang."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from reviewer.models import Run
from tests.factories import EvaluationFactory, GradedItemFactory, ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAYLOADS = {
    "href": r"\href{javascript:alert(1)}{click}",
    "href mixed case": r"\href{JaVaScRiPt:alert(1)}{click}",
    "url": r"\url{javascript:alert(1)}",
    "html data": r"\htmlData{onerror=alert(1)}{x}",
    "html attributes": r"\htmlClass{x\" onmouseover=\"alert(1)}{x}",
    "includegraphics": r"\includegraphics{javascript:alert(1)}",
    "macro blow-up": r"\def\a{\a\a}\a",
    "edef blow-up": r"\edef\b{\b\b}\b",
    "huge rule": r"\rule{100000em}{1em}",
    "deep underbrace": r"\underbrace{" * 2000 + "x" + "}" * 2000,
}

# Every element's attributes, as the browser built them, for the checks below.
ATTRIBUTES = """() => Array.from(document.querySelectorAll('*')).flatMap(el =>
  Array.from(el.attributes).map(a => [el.tagName, a.name, a.value]))"""


def test_hostile_latex_renders_as_text_with_no_script_link_or_hang(live_server, browser):
    # Given rows whose gold and extracted answers are each payload
    user = UserFactory(username="alice")
    project = ProjectFactory(name="Payloads", created_by=user)
    run = Run.objects.create(
        project=project, name="payloads", source_filename="p.csv", source_sha256="0" * 64
    )
    items = {}
    for number, (name, latex) in enumerate(PAYLOADS.items(), 1):
        item = GradedItemFactory(run=run, row_number=number, gold=latex, output=f"${latex}$")
        EvaluationFactory(item=item, extracted=latex, extracted_latex=latex)
        items[name] = item
    client = Client()
    client.force_login(user)
    page = browser.page
    page.context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    page.on("dialog", lambda dialog: pytest.fail(f"a script ran: {dialog.message}"))

    for name, item in items.items():
        # When the row's page is opened and KaTeX has drawn its math
        page.goto(f"{live_server.url}/items/{item.pk}/")
        expect(page.locator("[data-math=gold].is-rendered")).to_have_count(1)

        # Then no link or attribute can run script
        attributes = page.evaluate(ATTRIBUTES)
        scripted = [
            (tag, attr, value)
            for tag, attr, value in attributes
            if attr.startswith("on") or "javascript:" in value.lower().replace(" ", "")
        ]
        # the raw LaTeX is kept as the element's data (text, never markup): that is allowed
        scripted = [s for s in scripted if s[1] != "data-latex"]
        assert scripted == [], (name, scripted)
        assert (
            page.locator("a[href]").evaluate_all(
                "links => links.filter(a => a.protocol === 'javascript:').length"
            )
            == 0
        ), name
        # a huge rule is capped at maxSize (10em), not 100,000em wide
        widths = page.locator(".math-rendered .rule").evaluate_all(
            "rules => rules.map(r => r.getBoundingClientRect().width)"
        )
        assert all(width < 1000 for width in widths), (name, widths)
        # and the page still answers: the keyboard toggle to raw LaTeX works
        page.keyboard.press("t")
        expect(page.locator("body.show-raw-math")).to_have_count(1)
        page.keyboard.press("t")
    assert browser.csp_violations == []
