"""The engine's CPU per row by stage, in one process, with no sandbox, parent or pipes.

    .venv/bin/python bench/engine_rows.py [--copies 10] [--wrong] [--engine DIR ...]

What each part of ``pipeline.grade_sample`` costs on the distinct-output workload of
bench/grading.py (ten copies of ../shared/samples/qwen25_math_cot_100x8.csv, each output
opened by ``Attempt k.``): cutting the reply at turns the model invented, classifying the
gold, finding the candidate answers, each evaluator, the detectors and the jury, in
microseconds of this process's CPU a row, after a warm-up on the first 100 rows. With
``--wrong`` each output is graded against the gold of the next problem in the file, so almost
every row is wrong, as in a weak model's run, and the checks that run only on wrong answers
(near misses, doubts about the gold) run on each. Each ``--engine DIR`` (another checkout, say before a change)
is measured in a process of its own, in turn with this tree, so both see the same machine.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
WARM_UP_ROWS = 100
_SAMPLES = 8  # outputs of each problem in the file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--engine", type=Path, action="append", default=[], metavar="DIR")
    parser.add_argument("--wrong", action="store_true", help="grade against another's gold")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # one tree, as JSON
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.copies, wrong=args.wrong)))
        return
    trees = [("this tree", REPO)] + [(str(engine), engine) for engine in args.engine]
    results = {}
    for label, tree in trees:
        command = [sys.executable, __file__, "--measure", str(tree), "--copies", str(args.copies)]
        command += ["--wrong"] if args.wrong else []
        results[label] = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
    stages = sorted(results[trees[0][0]], key=lambda stage: -results[trees[0][0]][stage])
    golds = ", each against another problem's gold" if args.wrong else ""
    print(f"CPU microseconds a row, {args.copies * 800} rows{golds}, one process")
    print(f"{'stage':24s}" + "".join(f"{label[-22:]:>24s}" for label, _ in trees))
    for stage in stages:
        cells = "".join(f"{results[label].get(stage, 0):24.1f}" for label, _ in trees)
        print(f"{stage:24s}{cells}")


def measure(tree: Path, copies: int, *, wrong: bool = False) -> dict[str, float]:
    """CPU per row by stage for the engine in ``tree``; "total" is the whole row."""
    sys.path.insert(0, str(tree))
    from grading import answer_type, detectors, jury, pipeline
    from grading.candidates import find_candidates
    from grading.evaluators import DEFAULT_EVALUATORS, build_evaluators
    from grading.types import Sample

    # None in a tree from before the reply was cut at invented turns
    without_continuation = getattr(pipeline, "without_continuation", None)

    with DATA.open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    # the gold of the problem after this one: a problem's samples are consecutive rows
    golds = [
        rows[(index + _SAMPLES) % len(rows)]["gold"] if wrong else row["gold"]
        for index, row in enumerate(rows)
    ]
    samples = [
        Sample(gold, f"Attempt {copy + 1}.\n{row['output']}", "", row["problem"])
        for copy in range(copies)
        for row, gold in zip(rows, golds, strict=True)
    ]
    evaluators = build_evaluators(DEFAULT_EVALUATORS)
    order = {evaluator.name: index for index, evaluator in enumerate(evaluators)}
    spent: defaultdict[str, float] = defaultdict(float)
    clock = time.process_time

    def grade(sample: Sample) -> None:
        if without_continuation is not None:
            started = clock()
            sample = without_continuation(sample)
            spent["own reply"] += clock() - started
        started = clock()
        kind = answer_type.classify(sample.gold)
        spent["classify gold"] += clock() - started
        started = clock()
        candidates = find_candidates(sample.output, sample.problem)
        spent["candidates"] += clock() - started
        finished = []
        started = clock()
        for evaluation in pipeline.evaluate_all(sample, evaluators, candidates):
            now = clock()  # the time since the last evaluation is this evaluator's
            spent[evaluation.evaluator] += now - started
            finished.append(evaluation)
            started = now
        finished.sort(key=lambda evaluation: order[evaluation.evaluator])
        started = clock()
        findings = detectors.detect(sample, kind, candidates)
        spent["detectors"] += clock() - started
        started = clock()
        jury.decide(kind, tuple(finished), findings)
        spent["jury"] += clock() - started

    for sample in samples[:WARM_UP_ROWS]:
        grade(sample)
    spent.clear()
    started = clock()
    for sample in samples:
        grade(sample)
    spent["total"] = clock() - started
    return {stage: seconds / len(samples) * 1e6 for stage, seconds in spent.items()}


if __name__ == "__main__":
    main()
