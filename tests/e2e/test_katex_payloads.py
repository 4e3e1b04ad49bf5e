"""Hostile LaTeX in a real browser (RELIABILITY E1-E4, issue 12 part 7): a gold answer or an
extracted answer that tries to link to ``javascript:``, set attributes, expand without end or
draw a huge box is drawn by the app's KaTeX with its safe options, and the page stays usable:
no ``javascript:`` link, no event attribute, no hang. LaTeX that cannot be drawn is shown as
written, never with KaTeX's error message."""

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
    # Unicode superscripts are parsed as a group of their own (KaTeX before 0.16.10 gave that
    # group a fresh expansion count): macros that loop through them
    "macro through Unicode superscripts": r"\def\a{²\a}x\a",
    "blow-up after a Unicode superscript": r"\def\a{\a\a}x²\a",
    "blow-up inside Unicode superscripts": r"\def\a{⁺\a\a}x\a",
    "doubling into Unicode superscripts": r"\def\b#1{#1#1}x^{" + r"\b{" * 20 + "²³" + "}" * 21,
    "huge rule": r"\rule{100000em}{1em}",
    "deep underbrace": r"\underbrace{" * 2000 + "x" + "}" * 2000,
}

# Every element's attributes, as the browser built them, for the checks below.
ATTRIBUTES = """() => Array.from(document.querySelectorAll('*')).flatMap(el =>
  Array.from(el.attributes).map(a => [el.tagName, a.name, a.value]))"""


def rows_whose_answers_are(payloads: dict[str, str]):
    """A user and, for each payload, a graded row of theirs whose gold, extracted answer and
    output are that LaTeX."""
    user = UserFactory(username="alice")
    project = ProjectFactory(name="Payloads", created_by=user)
    run = Run.objects.create(
        project=project, name="payloads", source_filename="p.csv", source_sha256="0" * 64
    )
    items = {}
    for number, (name, latex) in enumerate(payloads.items(), 1):
        item = GradedItemFactory(run=run, row_number=number, gold=latex, output=f"${latex}$")
        EvaluationFactory(item=item, extracted=latex, extracted_latex=latex)
        items[name] = item
    return user, items


def logged_in_page(browser, live_server, user):
    """The browser's page with ``user``'s session; any script dialog fails the test."""
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
    return page


def test_hostile_latex_renders_as_text_with_no_script_link_or_hang(live_server, browser):
    # Given rows whose gold and extracted answers are each payload
    user, items = rows_whose_answers_are(PAYLOADS)
    page = logged_in_page(browser, live_server, user)

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


# LaTeX KaTeX cannot draw: its error messages quote the input and name KaTeX's internals.
UNDRAWABLE = {
    "unclosed argument": r"\frac{1}{",
    "markup in an unclosed argument": r"\frac{<img src=x onerror=alert(1)>}{2",
    "too many expansions": r"\def\a{\a\a}\a",
}
# Words of KaTeX's error messages, which must appear nowhere in the page, attributes included.
ERROR_WORDS = ("parseerror", "parse error", "too many expansions", "unexpected end of input")


def drawn_as_written(page, math: str, latex: str) -> None:
    """``[data-math=math]`` shows ``latex`` as plain text, in place of the drawing."""
    shown = page.locator(f"[data-math={math}] .math-rendered")
    expect(shown).to_have_class("math-rendered math-error")
    assert shown.evaluate("el => el.textContent") == latex
    assert shown.evaluate("el => el.children.length") == 0


def test_latex_katex_cannot_draw_is_shown_as_written_without_its_error_message(  # E4
    live_server, browser
):
    # Given rows whose gold and extracted answers KaTeX refuses to draw
    user, items = rows_whose_answers_are(UNDRAWABLE)
    page = logged_in_page(browser, live_server, user)

    for name, item in items.items():
        # When the row's page is opened
        page.goto(f"{live_server.url}/items/{item.pk}/")
        expect(page.locator("[data-math=gold].is-rendered")).to_have_count(1)

        # Then each answer reads as the LaTeX that was written, as text
        latex = UNDRAWABLE[name]
        drawn_as_written(page, "gold", latex)
        drawn_as_written(page, "prediction", latex)
        # and no error message is in the page, not even in a tooltip, and no markup ran
        html = page.content().lower()
        assert [word for word in ERROR_WORDS if word in html] == [], name
        assert page.locator(".katex-error").count() == 0, name
        assert page.locator(".math img").count() == 0, name
    assert browser.csp_violations == []


def test_when_katex_itself_fails_the_latex_is_shown_as_written_not_the_failure(  # E4
    live_server, browser
):
    # Given a KaTeX that throws an error of its own (not a parse error) on every call, whose
    # message holds markup
    def failing_katex(route) -> None:
        vendored = route.fetch()
        route.fulfill(
            response=vendored,
            body=vendored.text()
            + "\nwindow.katex.render = function () {"
            + ' throw new TypeError("internal failure near <b>x</b>"); };\n',
        )

    user, items = rows_whose_answers_are({"half": r"\frac{1}{2}"})
    page = logged_in_page(browser, live_server, user)
    page.route("**/katex.min.js", failing_katex)

    # When a row's page is opened
    page.goto(f"{live_server.url}/items/{items['half'].pk}/")

    # Then its answers read as the LaTeX that was written, and the failure is not shown
    drawn_as_written(page, "gold", r"\frac{1}{2}")
    drawn_as_written(page, "prediction", r"\frac{1}{2}")
    html = page.content()
    assert "internal failure" not in html and "cannot render" not in html
    assert page.locator(".math b").count() == 0
