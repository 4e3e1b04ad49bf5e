"""Server time to render a long model output on the item page: Markdown with math, the answer
marked, folded around it. Prints the median of several runs beside a baseline measured in the
same run: escaping the same text into a <pre>, which is all the page did before.

    .venv/bin/python bench/render_text.py [--chars 100000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from html import escape

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")
os.environ.setdefault("SECRET_KEY", "bench-only")

import django  # noqa: E402

django.setup()

from reviewer.pages.rendered_text import math_spans, render_text  # noqa: E402

# One paragraph of chain of thought as models write it: inline and display math, a list,
# bold, and a `$` that is money, not math.
PARAGRAPH = (
    "Let $f(x) = x^2 - 3x + 2$. We factor: $f(x) = (x-1)(x-2)$, so the roots are "
    "\\(x = 1\\) and \\(x = 2\\). **Check:**\n\n"
    "\\[ \\sum_{k=1}^{n} k = \\frac{n(n+1)}{2} \\]\n\n"
    "- the first case costs $5 and the second $10;\n"
    "- then $$\\int_0^1 x^2\\,dx = \\frac{1}{3}$$ as expected.\n\n"
)


def long_output(chars: int) -> tuple[str, tuple[int, int]]:
    """A `<think>` block and an answer, about ``chars`` long, and the answer's span."""
    body = PARAGRAPH * (chars // len(PARAGRAPH) + 1)
    thinking = body[: chars * 2 // 3]
    answer = body[: chars - len(thinking) - 40] + "Final answer: \\boxed{\\frac{1}{3}}"
    text = f"<think>{thinking}</think>{answer}"
    at = text.rfind("\\frac{1}{3}")
    return text, (at, at + len("\\frac{1}{3}"))


def median_ms(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    text, mark = long_output(args.chars)
    baseline = median_ms(lambda: escape(text), args.repeat)
    rendered = median_ms(lambda: render_text(text, mark=mark, fold=True), args.repeat)
    result = render_text(text, mark=mark, fold=True)
    print(f"output: {len(text):,} characters, {len(math_spans(text)):,} math spans")
    print(f"escape into <pre> (before): {baseline:8.2f} ms (median of {args.repeat})")
    print(f"render_text (now):          {rendered:8.2f} ms (median of {args.repeat})")
    print(
        f"ratio: {rendered / baseline:,.0f}x; answer marked: {result.marked}; "
        f"folded: {result.folded}; HTML {len(result.html):,} characters"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
