"""The same input gives the same output, whatever the worker count, row order and chunks.

Every conformance file in ../shared/grading-cases and the real run in ../shared/samples are
graded four ways through the sandboxed engine: all cores, one worker, shuffled with a fixed
seed, and in chunks of 20 through one long-lived pool, as Celery tasks grade a run. Every
row must come out the same each way: verdict, flags, reasons, extractions; everything but
the milliseconds. Rows with undefined values (``4 0/0`` against ``0``), whose grading used to
depend on what the process had graded before, are among them. Since the speed work changed
how rows travel, this also shows it changed no verdict between runs.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from grading.batch import grade_many
from grading.cases import read_cases
from grading.sandbox import SandboxPool
from grading.types import GradedSample, Sample

SHARED = Path(__file__).resolve().parents[3] / "shared"
CASES = SHARED / "grading-cases"
REAL_RUN = SHARED / "samples" / "qwen25_math_cot_100x8.csv"
SHUFFLE_SEED = 20261121
CHUNK_ROWS = 20

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CASES.is_dir() or not REAL_RUN.is_file(), reason=f"{SHARED} not found"),
]

# Undefined values against golds they might be taken for, written the ways outputs write them.
UNDEFINED = [
    Sample(gold, output)
    for gold in ("0", "4", "-4", "\\text{undefined}")
    for output in (
        "$4 0/0$",
        "$-4 0/0$",
        "So the answer is $\\boxed{4 0/0}$.",
        "$\\boxed{-4\\cdot 0/0}$",
        "$\\frac{0}{0}$",
        "$\\boxed{\\frac{1}{0}}$",
        "$\\boxed{0 \\cdot \\infty}$",
        "$\\boxed{\\infty - \\infty}$",
    )
]


def labelled_samples() -> list[tuple[str, Sample]]:
    """Every row to grade, named by where it comes from."""
    rows = [
        (f"{path.name}:{case.id}", case.sample)
        for path in sorted(CASES.glob("*.jsonl"))
        for case in read_cases(path)
    ]
    with REAL_RUN.open(newline="", encoding="utf-8-sig") as file:
        rows += [
            (f"{REAL_RUN.name}:{row['id']}", Sample(row["gold"], row["output"], "", row["problem"]))
            for row in csv.DictReader(file)
        ]
    rows += [(f"undefined:{n}", sample) for n, sample in enumerate(UNDEFINED)]
    return rows


def comparable(graded: GradedSample) -> dict:
    """Everything the engine decided about a row, without the milliseconds it took."""
    result = graded.to_dict()
    for evaluation in result["evaluations"].values():
        evaluation.pop("ms")
    return result


def all_cores(samples: list[Sample]) -> list[GradedSample]:
    return grade_many(samples)


def one_worker(samples: list[Sample]) -> list[GradedSample]:
    return grade_many(samples, workers=1)


def shuffled(samples: list[Sample]) -> list[GradedSample]:
    order = list(range(len(samples)))
    random.Random(SHUFFLE_SEED).shuffle(order)
    graded = grade_many([samples[i] for i in order])
    results: list[GradedSample | None] = [None] * len(samples)
    for position, index in enumerate(order):
        results[index] = graded[position]
    return results  # type: ignore[return-value]


def in_chunks_through_one_pool(samples: list[Sample]) -> list[GradedSample]:
    """Chunks in reverse order through long-lived children, as a Celery worker grades a run."""
    chunks = [samples[i : i + CHUNK_ROWS] for i in range(0, len(samples), CHUNK_ROWS)]
    with SandboxPool() as pool:
        graded = [grade_many(chunk, pool=pool) for chunk in reversed(chunks)]
    return [result for chunk in reversed(graded) for result in chunk]


@pytest.fixture(scope="module")
def rows() -> list[tuple[str, Sample]]:
    return labelled_samples()


@pytest.fixture(scope="module")
def reference(rows) -> list[dict]:
    return [comparable(g) for g in all_cores([sample for _, sample in rows])]


@pytest.mark.parametrize(
    "grade", [all_cores, one_worker, shuffled, in_chunks_through_one_pool], ids=lambda f: f.__name__
)
def test_every_row_is_graded_the_same_whatever_the_workers_order_and_chunks(
    rows, reference, grade: Callable[[list[Sample]], list[GradedSample]]
):
    # Given the case files and the real run, graded once with all cores
    # When they are graded again another way
    again = [comparable(g) for g in grade([sample for _, sample in rows])]

    # Then every row came out exactly the same
    differing = [
        f"{label}: {before['auto_verdict']} -> {after['auto_verdict']}"
        for (label, _), before, after in zip(rows, reference, again, strict=True)
        if before != after
    ]
    assert not differing, f"{len(differing)} rows differ:\n" + "\n".join(differing[:20])
