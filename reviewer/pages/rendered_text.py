"""Problems and model outputs as HTML a person reads: Markdown with the math left for KaTeX,
`<think>` blocks folded with their length, the extracted answer marked, and long texts folded
around it.

This is the one module that builds HTML from user text. markdown-it-py runs with raw HTML
off, so every ``<``, ``&`` and quote of the text is escaped; links and images are off, so
nothing loads or navigates. Math spans are cut out before Markdown sees them (so ``_`` and
``*`` inside them stay LaTeX) and put back as the same ``.math[data-latex]`` elements the
gold and the extracted answers use, escaped here and drawn by static/js/math.js.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from itertools import accumulate

from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

# A text this long, or with this many lines, is folded around the answer.
LONG_TEXT_CHARS = 1500
LONG_TEXT_LINES = 25
# Characters of context kept open before and after the block holding the answer.
CONTEXT_BEFORE = 1200
CONTEXT_AFTER = 400
# No math span is longer than this; a `$` or `\[` left open does not swallow the text.
MAX_MATH_CHARS = 4000

_MARKDOWN = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    .enable(["table", "strikethrough"])
    # Indented code blocks: model outputs indent lines for layout, not for code. Setext
    # headings: a `---` under a model's line is a rule between steps, not a heading.
    .disable(["image", "link", "autolink", "code", "html_block", "html_inline", "lheading"])
)

# Private-use characters stand for math spans and the answer's bounds while Markdown runs;
# the text's own are replaced first, so it cannot forge them.
_MATH_OPEN, _MATH_CLOSE, _MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001", "\ue002", "\ue003"
_OWN_MARKERS = re.compile("[\ue000-\ue003]")
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")

_N = MAX_MATH_CHARS
_SPANS = re.compile(
    # Code is left alone: fenced blocks and inline code hold no math.
    rf"(?P<fence>^[ \t]*```[^\n]*\n.{{0,{4 * _N}}}?^[ \t]*```)"
    r"|(?P<code>`[^`\n]+`)"
    r"|(?P<dollar>\\\$)"
    rf"|\$\$(?P<dd>.{{1,{_N}}}?)\$\$"
    rf"|\\\[(?P<bracket>.{{1,{_N}}}?)\\\]"
    rf"|\\\((?P<paren>.{{1,{_N}}}?)\\\)"
    # Pandoc's rule: `$` not followed by a space opens, `$` not after a space or a backslash
    # and not before a digit closes, so "costs $5 and $10" stays text.
    rf"|\$(?P<inline>[^\s$](?:[^$\n]{{0,{_N}}}?[^\s$\\])?)\$(?!\d)"
    r"|(?P<boxed>\\boxed\s*\{)",
    re.DOTALL | re.MULTILINE,
)
_THINK = re.compile(r"<think>|</think>", re.IGNORECASE)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>")
_VOID_TAGS = frozenset({"br", "hr", "img", "input"})


@dataclass(frozen=True)
class MathSpan:
    start: int
    end: int
    latex: str
    display: bool


@dataclass(frozen=True)
class RenderedText:
    """HTML ready for a template, and whether the answer was found in it."""

    html: str
    marked: bool
    folded: bool


def render_text(text: str, *, mark: tuple[int, int] | None = None, fold: bool = False):
    """``text`` as safe HTML; ``mark`` is the (start, end) of the extracted answer in it, and
    ``fold`` folds a long text around that answer (around its end when there is none)."""
    text = _OWN_MARKERS.sub("\ufffd", text)
    if mark is not None and not 0 <= mark[0] < mark[1] <= len(text):
        mark = None
    parts: list[str] = []
    folded = False
    marked = False
    segments = _segments(text)
    focus = _focus_segment(segments, mark)
    for index, (thinking, start, end) in enumerate(segments):
        local = _local_mark(mark, start, end)
        long_text = end - start > LONG_TEXT_CHARS or text.count("\n", start, end) > LONG_TEXT_LINES
        html, found, did_fold = _render_segment(
            text[start:end], mark=local, fold=fold and index == focus and long_text
        )
        marked = marked or found
        folded = folded or did_fold
        if thinking:
            length = end - start
            parts.append(
                f'<details class="think"{" open" if found else ""} data-think>'
                f"<summary>Thinking · {length:,} characters</summary>{html}</details>"
            )
        else:
            parts.append(html)
    return RenderedText(html=mark_safe("".join(parts)), marked=marked, folded=folded)


def _segments(text: str) -> list[tuple[bool, int, int]]:
    """(thinking, start, end) of each part of ``text``: `<think>` blocks, the rest between.
    A `</think>` with no opening tag closes a block that began with the text."""
    segments: list[tuple[bool, int, int]] = []
    position = 0
    thinking = False
    for tag in _THINK.finditer(text):
        closing = tag.group().startswith("</")
        if closing and not thinking and position == 0 and not segments:
            thinking = True
        if closing == thinking:
            segments.append((thinking, position, tag.start()))
            position = tag.end()
            thinking = not closing
    segments.append((thinking, position, len(text)))
    return [s for s in segments if text[s[1] : s[2]].strip()]


def _focus_segment(segments, mark) -> int:
    """The segment to fold around: the one holding the answer, else the last one."""
    for index, (_, start, end) in enumerate(segments):
        if mark is not None and start <= mark[0] < end:
            return index
    return len(segments) - 1


def _local_mark(mark, start: int, end: int) -> tuple[int, int] | None:
    if mark is None or not start <= mark[0] < end:
        return None
    return (mark[0] - start, min(mark[1], end) - start)


def math_spans(text: str) -> list[MathSpan]:
    """The math in ``text``: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` and bare `\\boxed{…}`."""
    spans: list[MathSpan] = []
    position = 0
    while (found := _SPANS.search(text, position)) is not None:
        position = found.end()
        kind = found.lastgroup
        if kind in ("fence", "code", "dollar"):
            continue
        if kind == "boxed":
            end = _closing_brace(text, found.end())
            if end is None:
                continue
            spans.append(MathSpan(found.start(), end, text[found.start() : end], False))
            position = end
            continue
        latex = found.group(kind)
        if latex.strip():
            spans.append(MathSpan(found.start(), found.end(), latex, kind in ("dd", "bracket")))
    return spans


def _closing_brace(text: str, position: int) -> int | None:
    """The index just after the brace that closes the one opened before ``position``."""
    depth = 1
    limit = min(len(text), position + MAX_MATH_CHARS)
    while position < limit:
        char = text[position]
        if char == "\\":
            position += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return position + 1
        position += 1
    return None


def _render_segment(text: str, *, mark, fold: bool) -> tuple[str, bool, bool]:
    """(HTML, answer marked, folded) of one segment."""
    spans = math_spans(text)
    if mark is not None:
        mark = _widen_to_math(mark, spans)
    source, math_html = _protect(text, spans, mark)
    env: dict = {}
    tokens = _MARKDOWN.parse(source, env)
    blocks = _top_level_blocks(tokens)
    rendered = [_MARKDOWN.renderer.render(tokens[a:b], _MARKDOWN.options, env) for a, b in blocks]
    did_fold = False
    if fold and len(rendered) > 1:
        rendered, did_fold = _fold(rendered, _block_lengths(source, tokens, blocks))
    html = "".join(rendered)
    html = _PLACEHOLDER.sub(lambda m: math_html[int(m.group(1))], html)
    html, marked = _place_mark(html)
    return html, marked, did_fold


def _widen_to_math(mark: tuple[int, int], spans: list[MathSpan]) -> tuple[int, int]:
    """``mark`` grown to cover every math span it touches: an answer inside `$\\boxed{…}$`
    marks the whole formula, which is drawn as one piece."""
    start, end = mark
    for span in spans:
        if span.start < end and start < span.end:
            start, end = min(start, span.start), max(end, span.end)
    return start, end


def _protect(text: str, spans: list[MathSpan], mark) -> tuple[str, list[str]]:
    """``text`` with each math span replaced by a placeholder and the answer's bounds by
    markers, and the HTML each placeholder stands for."""
    cuts: list[tuple[int, int, str]] = []
    math_html: list[str] = []
    for span in spans:
        cuts.append((span.start, span.end, f"{_MATH_OPEN}{len(math_html)}{_MATH_CLOSE}"))
        latex = escape(span.latex.strip(), quote=True)
        display = ' data-display="1"' if span.display else ""
        kind = "math display" if span.display else "math"
        math_html.append(
            f'<span class="{kind}" data-latex="{latex}"{display}>'
            f'<code class="math-raw">{latex}</code></span>'
        )
    if mark is not None:
        cuts.append((mark[0], mark[0], _MARK_OPEN))
        cuts.append((mark[1], mark[1], _MARK_CLOSE))
    # At one position: the closing marker, then the opening one, then the math that follows.
    cuts.sort(key=lambda cut: (cut[0], cut[1] > cut[0], cut[2] != _MARK_CLOSE))
    pieces: list[str] = []
    position = 0
    for start, end, replacement in cuts:
        pieces.append(text[position:start])
        pieces.append(replacement)
        position = max(position, end)
    pieces.append(text[position:])
    return "".join(pieces), math_html


def _top_level_blocks(tokens) -> list[tuple[int, int]]:
    """(first, last + 1) token indices of each top-level block."""
    blocks: list[tuple[int, int]] = []
    start = 0
    depth = 0
    for index, token in enumerate(tokens):
        depth += token.nesting
        if depth == 0:
            blocks.append((start, index + 1))
            start = index + 1
    return blocks


def _block_lengths(source: str, tokens, blocks) -> list[int]:
    """Each block's length in the source, from the lines markdown-it mapped it to."""
    line_starts = [0, *accumulate(len(line) + 1 for line in source.split("\n"))]
    lengths = []
    for first, _ in blocks:
        lines = tokens[first].map
        lengths.append(line_starts[lines[1]] - line_starts[lines[0]] if lines else 0)
    return lengths


def _fold(rendered: list[str], lengths: list[int]) -> tuple[list[str], bool]:
    """The blocks with those far before and after the answer folded into `<details>`."""
    focus = next((i for i, html in enumerate(rendered) if _MARK_OPEN in html), None)
    if focus is None:
        first, last = len(rendered) - 1, len(rendered) - 1
        kept = lengths[first]
        while first > 0 and kept < LONG_TEXT_CHARS:
            first -= 1
            kept += lengths[first]
    else:
        first = last = focus
        kept = 0
        while first > 0 and kept < CONTEXT_BEFORE:
            first -= 1
            kept += lengths[first]
        kept = 0
        while last < len(rendered) - 1 and kept < CONTEXT_AFTER:
            last += 1
            kept += lengths[last]
    folded: list[str] = []
    if first > 0:
        folded.append(_fold_block(rendered[:first], sum(lengths[:first]), "before"))
    folded.extend(rendered[first : last + 1])
    if last < len(rendered) - 1:
        folded.append(_fold_block(rendered[last + 1 :], sum(lengths[last + 1 :]), "after"))
    return folded, first > 0 or last < len(rendered) - 1


def _fold_block(blocks: list[str], chars: int, where: str) -> str:
    count = len(blocks)
    noun = "paragraph" if count == 1 else "paragraphs"
    words = "earlier" if where == "before" else "later"
    return (
        f'<details class="fold" data-fold="{where}"><summary>{count} {words} {noun} · '
        f"{chars:,} characters</summary>{''.join(blocks)}</details>"
    )


def _place_mark(html: str) -> tuple[str, bool]:
    """Turn the answer's markers into a `<mark>`; where Markdown split the answer across
    elements, a marker at its start is kept instead, so the page can still scroll to it."""
    start = html.find(_MARK_OPEN)
    end = html.find(_MARK_CLOSE)
    if start < 0:
        return html.replace(_MARK_CLOSE, ""), False
    opening = '<mark class="extracted" id="extracted-answer">'
    if end > start and _balanced(html[start + 1 : end]):
        return html.replace(_MARK_OPEN, opening).replace(_MARK_CLOSE, "</mark>"), True
    html = html.replace(_MARK_CLOSE, "")
    return html.replace(_MARK_OPEN, opening + "</mark>"), True


def _balanced(fragment: str) -> bool:
    stack: list[str] = []
    for tag in _TAG.finditer(fragment):
        name = tag.group(2).lower()
        if name in _VOID_TAGS:
            continue
        if not tag.group(1):
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack
