"""Grading throughput: a plain math-verify loop against the sandboxed engine.

    .venv/bin/python bench/grading.py [--repeat 3] [--evaluators a,b,...]

Data: ../shared/samples/qwen25_math_cot_100x8.csv (800 real outputs, 100 problems x 8) and a
10x copy with new ids. Methods: (a) one process calling math-verify ``parse`` + ``verify`` on
every row; (b) ``grade_many`` with one child; (c) ``grade_many`` with a child per core. Each
repetition runs in a fresh process, so no cache survives between them. Engine times include
starting the children (the pool is created inside the timed region). Per-row milliseconds
are the loop's time per row for (a) and, for the engine, the time the child spent on each
distinct row (duplicates cost nothing). Peak memory is the highest sampled RSS of the measured
process plus all its children.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on the path and its name would hide the
# grading package.
sys.path[0] = str(REPO)
DATA = REPO.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
METHODS = {
    "a": "(a) math-verify loop",
    "b": "(b) engine, 1 worker",
    "c": f"(c) engine, {os.cpu_count()} workers",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per measurement")
    parser.add_argument("--copies", type=int, default=10, help="size of the larger run, x800")
    parser.add_argument(
        "--evaluators", default="", help="engine evaluators (default: math_verify, then all)"
    )
    parser.add_argument("--measure", nargs=2, metavar=("METHOD", "COPIES"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        method, copies = args.measure
        print(json.dumps(measure(method, int(copies), args.evaluators)))
        return

    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
    print("engine rows/s include starting the children; 'warm' excludes it (children ready)")
    print(
        f"{'run':<12}{'method':<40}{'rows/s':>9}{'x (a)':>7}{'warm':>9}{'x (a)':>7}"
        f"{'p50 ms':>8}{'p99 ms':>8}{'peak MB':>9}"
    )
    # The engine runs twice: with math_verify alone, the same work as (a), which shows what
    # the sandbox, the caches and the cores add; and with the full default jury, which shows
    # what the product costs per row.
    evaluator_sets = [args.evaluators] if args.evaluators else ["math_verify", ""]
    for copies in (1, args.copies):
        baseline = None
        for method, evaluators in [("a", ""), *[(m, e) for e in evaluator_sets for m in "bc"]]:
            runs = [run_in_fresh_process(method, copies, evaluators) for _ in range(args.repeat)]
            rate = statistics.median(r["rows"] / r["seconds"] for r in runs)
            baseline = baseline or rate
            warm = statistics.median(r["rows"] / r.get("warm_seconds", r["seconds"]) for r in runs)
            label = METHODS[method] + (f" [{evaluators or 'all'}]" if method != "a" else "")
            print(
                f"{copies * 800:>5} rows   {label:<40}{rate:>9.1f}{rate / baseline:>7.2f}"
                f"{warm:>9.1f}{warm / baseline:>7.2f}"
                f"{statistics.median(r['p50_ms'] for r in runs):>8.1f}"
                f"{statistics.median(r['p99_ms'] for r in runs):>8.1f}"
                f"{max(r['peak_mb'] for r in runs):>9.0f}",
                flush=True,
            )


def run_in_fresh_process(method: str, copies: int, evaluators: str) -> dict:
    """Run one measurement in a new interpreter, sampling the RSS of its whole process tree."""
    command = [sys.executable, __file__, "--measure", method, str(copies)]
    if evaluators:
        command += ["--evaluators", evaluators]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(process.pid)
        while not done.wait(0.05):
            try:
                tree = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
            except psutil.Error:
                continue

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = process.communicate()
    done.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"measurement {method} x{copies} failed with status {process.returncode}")
    return {**json.loads(output), "peak_mb": peak / 2**20}


def load_samples(copies: int) -> list[dict]:
    with DATA.open(newline="", encoding="utf-8-sig") as file:
        rows = list(csv.DictReader(file))
    return [{**row, "id": f"{row['id']}-{copy}"} for copy in range(copies) for row in rows]


def measure(method: str, copies: int, evaluators: str) -> dict:
    rows = load_samples(copies)
    if method == "a":
        return measure_math_verify_loop(rows)
    return measure_engine(rows, workers=1 if method == "b" else os.cpu_count(), names=evaluators)


def measure_math_verify_loop(rows: list[dict]) -> dict:
    from math_verify import parse, verify

    parse("$1$")  # the import of SymPy and the grammar is not the loop's cost
    per_row = []
    started = time.perf_counter()
    for row in rows:
        row_started = time.perf_counter()
        verify(parse(row["gold"]), parse(row["output"]))
        per_row.append((time.perf_counter() - row_started) * 1000)
    seconds = time.perf_counter() - started
    return summary(len(rows), seconds, per_row)


def measure_engine(rows: list[dict], workers: int, names: str) -> dict:
    from grading.batch import grade_many
    from grading.evaluators import DEFAULT_EVALUATORS
    from grading.sandbox import SandboxPool
    from grading.types import Sample

    evaluators = tuple(names.split(",")) if names else DEFAULT_EVALUATORS
    samples = [Sample(row["gold"], row["output"]) for row in rows]
    # Golds that are not in the data, one per child: they start every child and build its
    # evaluators without warming any cache the measured rows could hit.
    warm_up = [Sample(f"${n}{n}{n}$", f"$\\boxed{{{n}}}$") for n in range(workers)]
    started = time.perf_counter()
    with SandboxPool(workers) as pool:
        pool.grade(warm_up, evaluators=evaluators)
        ready = time.perf_counter()
        graded = grade_many(samples, evaluators=evaluators, pool=pool)
        finished = time.perf_counter()
    distinct = {id(g): g for g in graded}.values()
    per_row = [sum(e.ms for e in g.evaluations) for g in distinct]
    return {
        **summary(len(rows), finished - started, per_row),
        "warm_seconds": finished - ready,
    }


def summary(rows: int, seconds: float, per_row_ms: list[float]) -> dict:
    ordered = sorted(per_row_ms)
    return {
        "rows": rows,
        "seconds": seconds,
        "p50_ms": ordered[len(ordered) // 2],
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
    }


if __name__ == "__main__":
    main()
