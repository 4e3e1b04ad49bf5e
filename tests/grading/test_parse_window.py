"""Math-verify parsed on the window that holds the boxes gives what it gives on the whole
output: compared on every conformance case, the realistic sets and the real run."""

import csv
import json
from pathlib import Path

import pytest

from grading.evaluators.mathverify import MathVerify, boxed_window

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUR_CASES = Path(__file__).resolve().parent / "data"


def outputs_and_golds() -> list[tuple[str, str]]:
    pairs = []
    # Our realistic full outputs, where the window matters; the peer pairs are answer strings
    # that only the sandbox may parse (one is 2^{1/2^{1000}}, which takes gigabytes in-process).
    ours = sorted(OUR_CASES.glob("*realistic*.jsonl"))
    for path in [*sorted((SHARED / "grading-cases").glob("*.jsonl")), *ours]:
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if case.get("kind") == "verdict":
                pairs.append((case["gold"] or "", case["output"]))
    sample = SHARED / "samples" / "qwen25_math_cot_100x8.csv"
    if sample.exists():
        with sample.open(newline="", encoding="utf-8") as handle:
            pairs += [(row["gold"], row["output"]) for row in csv.DictReader(handle)]
    return pairs


# Differences found and explained, by gold. A general solution whose answer says "k \in
# \mathbb{R}" is no number, and math-verify reads one either way (2 from the window, 2\pi from
# the whole text); its verdict is wrong both ways, and the jury decides the row by answer_check's
# comparison of the families (docs/grading.md, round twenty-four).
EXPLAINED = {
    "x = \\frac{\\pi}{3} + 2k\\pi \\text{ or } x = \\frac{2\\pi}{3} + 2k\\pi,\\ k \\in \\mathbb{Z}",
}


class WholeText(MathVerify):
    """The evaluator as it was: the whole output parsed every time."""

    def _parse_prediction(self, text, window):
        return super()._parse_prediction(text, None)


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared cases not found at {SHARED}")
def test_parsing_the_boxed_window_changes_no_verdict_and_no_extraction():
    windowed, whole = MathVerify(), WholeText()
    differences = []
    for gold, output in outputs_and_golds():
        fast, slow = windowed.evaluate(gold, output), whole.evaluate(gold, output)
        if gold not in EXPLAINED and (fast.status, fast.verdict, fast.extracted) != (
            slow.status,
            slow.verdict,
            slow.extracted,
        ):
            differences.append((gold, output[-120:], fast.extracted, slow.extracted))

    assert differences == []


def test_the_window_starts_at_the_line_or_open_display_block_of_the_first_box():
    assert boxed_window("no box here") is None
    assert boxed_window("Work.\nSo $x = \\boxed{3}$.") == len("Work.\n")
    display = "Work.\n$$\nx = \\boxed{3}\n$$"
    assert boxed_window(display) == display.index("$$")
    closed = "$$a$$ then\n\\boxed{3}"
    assert boxed_window(closed) == closed.index("\\boxed")
