"""A golden file of hard equivalences (RELIABILITY B8): any change in the engine's decision on
one of them fails, in either direction.

``data/hard_equivalences.jsonl`` was written for MathJury (not taken from a case set): answers
equal to the gold only after work a string match cannot do (nested radicals such as
``\\sqrt{2+\\sqrt3}`` = ``(\\sqrt6+\\sqrt2)/2``, factorisations, trigonometric and logarithmic
identities, repeating decimals, intervals written as inequalities), with a few near misses
that are really wrong, so an engine that called everything correct would fail too. Each line:

- ``truth``: ``correct`` or ``incorrect``, by mathematics;
- ``engine``: what the engine decided when the file was written, through the sandbox with
  every evaluator: the jury's ``verdict`` and whether the row is ``flagged`` for review;
- ``note``: why the engine's decision differs from the truth, where it does.

Where the engine is wrong today the file records its decision and says so in ``note``: grading
logic is changed on purpose, and the change then updates this file. A pair the engine starts
getting right fails here too: update its ``engine`` and drop its note.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grading.batch import grade_many
from grading.evaluators import DEFAULT_EVALUATORS
from grading.types import GradedSample, Sample

GOLDEN = Path(__file__).resolve().parent / "data" / "hard_equivalences.jsonl"
PAIRS = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def decided() -> dict[str, GradedSample]:
    graded = grade_many(
        [Sample(pair["gold"], pair["output"]) for pair in PAIRS],
        evaluators=DEFAULT_EVALUATORS,
        workers=2,
    )
    return {pair["id"]: result for pair, result in zip(PAIRS, graded, strict=True)}


@pytest.mark.parametrize("pair", PAIRS, ids=[pair["id"] for pair in PAIRS])
def test_the_engine_decides_each_hard_equivalence_as_the_golden_file_records(decided, pair):
    graded = decided[pair["id"]]
    now = {"verdict": graded.auto_verdict.value, "flagged": graded.needs_review}
    assert now == pair["engine"], (
        f"{pair['id']}: {pair['gold']!r} against {pair['output']!r} is now {now}, the file "
        f"says {pair['engine']} (truth: {pair['truth']}). If the change is intended, update "
        f"{GOLDEN.name}."
    )


def test_every_decision_that_differs_from_the_truth_is_explained():
    unexplained = [
        pair["id"]
        for pair in PAIRS
        if (pair["engine"]["verdict"] != pair["truth"] or pair["engine"]["flagged"])
        and not pair.get("note")
    ]
    assert unexplained == []
    assert {pair["truth"] for pair in PAIRS} == {"correct", "incorrect"}
    assert len({pair["id"] for pair in PAIRS}) == len(PAIRS)
