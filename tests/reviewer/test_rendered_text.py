"""Problems and model outputs rendered as Markdown with math: what a reviewer reads, and that
nothing in the text becomes markup or script."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from reviewer.pages.rendered_text import math_spans, render_text

HOSTILE_TEXTS = [
    '</script><script>alert("pwned")</script><img src=x onerror=alert(1)>',
    "[click](javascript:alert(1)) ![x](http://example.com/x.png) <http://example.com>",
    '$"><img src=x onerror=alert(1)>$ and \\(</span><script>alert(1)</script>\\)',
    "```\n<script>alert(1)</script>\n```",
    "<think><b onclick=alert(1)>x</b></think> \ue002 \ue000 0 \ue001",
    '\\boxed{"><svg onload=alert(1)>}',
]


class Elements(HTMLParser):
    """Every element of an HTML fragment with its attribute names."""

    def __init__(self):
        super().__init__()
        self.elements: list[tuple[str, set[str]]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {name for name, _ in attrs}))


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_no_tag_attribute_or_link_from_the_text_reaches_the_html(text):
    # When a text that tries to break out is rendered, with a mark somewhere in it
    html = str(render_text(text, mark=(1, 5), fold=True).html)

    # Then the only tags and attributes are the renderer's own: no handler, script or link
    parsed = Elements()
    parsed.feed(html)
    assert {tag for tag, _ in parsed.elements} <= {
        "p", "span", "code", "pre", "mark", "details", "summary", "em", "strong", "ul", "li",
    }  # fmt: skip
    assert {name for _, names in parsed.elements for name in names} <= {
        "class", "id", "data-latex", "data-display", "data-think", "data-fold", "open",
    }  # fmt: skip
    # and the math placeholders the text tried to forge are not turned into markup
    assert "\ue000" not in html and "\ue002" not in html


def test_every_math_delimiter_is_cut_out_and_money_is_not():
    text = (
        "Inline $a_1 * b_2$ and \\(x<y\\), display $$\\sum_i i$$ and \\[\\int f\\], "
        "it costs $5 and $10, escaped \\$3, code `$x$`.\n\\boxed{\\frac{1}{2}}"
    )

    spans = [(span.latex, span.display) for span in math_spans(text)]

    assert spans == [
        ("a_1 * b_2", False),
        ("x<y", False),
        ("\\sum_i i", True),
        ("\\int f", True),
        ("\\boxed{\\frac{1}{2}}", False),
    ]


def test_markdown_inside_math_stays_latex_and_outside_becomes_markup():
    html = str(render_text("**Bold** then $a_1 * b_2 * c$ and *em*.").html)

    assert "<strong>Bold</strong>" in html and "<em>em</em>" in html
    assert 'data-latex="a_1 * b_2 * c"' in html


def test_the_mark_covers_the_formula_the_answer_stands_in():
    text = "Thus $x = \\boxed{7}$."
    at = text.index("7")

    result = render_text(text, mark=(at, at + 1))

    assert result.marked
    assert '<mark class="extracted" id="extracted-answer"><span class="math"' in str(result.html)


def test_a_mark_across_paragraphs_becomes_an_anchor_at_its_start():
    text = "First part of the answer\n\nsecond part."

    result = render_text(text, mark=(6, 30))

    html = str(result.html)
    assert result.marked
    assert '<p>First <mark class="extracted" id="extracted-answer"></mark>part' in html


def test_an_unclosed_dollar_or_bracket_does_not_swallow_the_text():
    text = "Price: $5.\n\n\\[ never closed\n\n**still bold**"

    html = str(render_text(text).html)

    assert "<strong>still bold</strong>" in html
    assert math_spans(text) == []


def test_a_think_block_without_its_opening_tag_is_folded_too():
    html = str(render_text("thinking hard</think>The answer is 3.").html)

    assert '<details class="think" data-think><summary>Thinking · 13 characters' in html
    assert html.endswith("<p>The answer is 3.</p>\n")


def test_the_thinking_opens_when_the_answer_is_in_it():
    text = "<think>it is 5</think>I give up."

    html = str(render_text(text, mark=(13, 14)).html)

    assert '<details class="think" open data-think>' in html


def test_a_rule_under_a_line_is_a_rule_not_a_heading():
    html = str(render_text("Step one done.\n---\nStep two.").html)

    assert html == "<p>Step one done.</p>\n<hr />\n<p>Step two.</p>\n"
