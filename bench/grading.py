"""Grading throughput from the command line, against a plain math-verify loop in the same run.

    .venv/bin/python bench/grading.py [--repeat 3] [--copies 10] [--profile]

Data: ../shared/samples/qwen25_math_cot_100x8.csv (800 real outputs, 100 problems x 8).
The headline run is ten copies with new ids and a first line ``Attempt k.`` added to each
output, so no two of the 8,000 outputs are equal, as in a real run; the identical ten-fold
copy (which the engine grades once per distinct row) is a secondary line.

Each measurement runs in a fresh process, repetitions interleaved:
- the baseline: one process calling math-verify ``parse(gold)``, ``parse(output)`` and
  ``verify`` on every row; its time is the loop alone, after importing math-verify;
- the same loop split across one process per core, each on its share of the rows, started
  together; its time is the slowest share's loop. Its ``x loop`` is what this machine gives
  perfectly parallel work on all cores (2.0 on two idle cores; less where they share a
  physical core or the host is busy), the ceiling for the engine's own all-cores figure;
- ``python -m grading grade`` with all default evaluators, with all cores and with
  ``--workers 1``, timed from launching the command to its exit (start-up included).

Per row: the loop's time per row, and for the engine the evaluators' milliseconds per row as
written in the output. Peak memory is the largest sampled sum of the proportional set size
(PSS: shared pages divided among the processes sharing them) over the whole process tree.
CPU is the user and system time of the whole process tree (the loop's includes its imports),
which other work on the machine changes far less than the wall clock.
``--profile`` runs both command lines once more with per-stage timers (grading.stage_profile)
and prints where the parent and the children spend their time.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on the path and its name would hide the
# grading package.
sys.path[0] = str(REPO)
DATA = REPO.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
PROFILE_VARIABLE = "MATHJURY_STAGE_PROFILE"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions per measurement")
    parser.add_argument("--copies", type=int, default=10, help="copies of the 800 rows")
    parser.add_argument("--profile", action="store_true", help="also print the stage profile")
    parser.add_argument(
        "--engine",
        type=Path,
        metavar="DIR",
        help="also measure the command line of another checkout (say, before a change)",
    )
    parser.add_argument("--loop", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--share", default="0/1", help=argparse.SUPPRESS)  # this loop's rows
    args = parser.parse_args()
    if args.loop:
        share, shares = map(int, args.share.split("/"))
        print(json.dumps(math_verify_loop(args.loop, share, shares)))
        return

    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        distinct = write_run(Path(tmp) / "distinct.csv", args.copies, distinct=True)
        identical = write_run(Path(tmp) / "identical.csv", args.copies, distinct=False)
        rows = args.copies * 800
        engines = {"": REPO, **({f"{args.engine.name}: ": args.engine} if args.engine else {})}
        cores = os.cpu_count() or 1
        measurements = {
            "plain math-verify loop, 1 process": lambda: run_loop(distinct),
            f"plain math-verify loop, {cores} processes": lambda: run_loops(distinct, cores),
        }
        for label, engine in engines.items():
            measurements |= {
                f"{label}grading grade, all cores": partial(run_cli, distinct, tmp, engine),
                f"{label}grading grade, --workers 1": partial(
                    run_cli, distinct, tmp, engine, "--workers", "1"
                ),
                f"{label}grading grade, identical copy": partial(run_cli, identical, tmp, engine),
            }
        print(
            f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start; "
            f"{rows} rows; median of {args.repeat}"
        )
        results: dict[str, list[dict]] = defaultdict(list)
        for _ in range(args.repeat):
            for name, measure in measurements.items():
                results[name].append(measure())
        print_table(rows, results)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
        if args.profile:
            for label, engine in engines.items():
                for workers, extra in (("all cores", ()), ("--workers 1", ("--workers", "1"))):
                    profile = profile_cli(distinct, tmp, engine, *extra)
                    print_profile(f"{label}{workers}", rows, profile)


def write_run(path: Path, copies: int, *, distinct: bool) -> Path:
    """The sample run repeated ``copies`` times with new ids; ``distinct`` makes every output
    differ by a first line ``Attempt k.``."""
    with DATA.open(newline="", encoding="utf-8-sig") as file:
        reader = csv.DictReader(file)
        columns = reader.fieldnames
        rows = list(reader)
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.DictWriter(file, columns)
        writer.writeheader()
        for copy in range(copies):
            for row in rows:
                output = f"Attempt {copy + 1}.\n{row['output']}" if distinct else row["output"]
                writer.writerow({**row, "id": f"{row['id']}-{copy}", "output": output})
    return path


def math_verify_loop(path: Path, share: int = 0, shares: int = 1) -> dict:
    """The baseline, in this process: math-verify on every row (every ``shares``-th row from
    ``share`` on), as a script would call it."""
    from math_verify import parse, verify

    with path.open(newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))[share::shares]
    parse("$1$")  # importing SymPy and the grammar is not the loop's cost
    per_row = []
    started = time.perf_counter()
    for row in rows:
        row_started = time.perf_counter()
        verify(parse(row["gold"]), parse(row["output"]))
        per_row.append((time.perf_counter() - row_started) * 1000)
    return {"seconds": time.perf_counter() - started, "per_row_ms": per_row}


def run_loop(path: Path) -> dict:
    command = [sys.executable, __file__, "--loop", str(path)]
    result = run_measured(command)
    loop = json.loads(result["stdout"])
    return {**result, "seconds": loop["seconds"], "p99_ms": p99(loop["per_row_ms"])}


def run_loops(path: Path, processes: int) -> dict:
    """The loop split across ``processes`` processes started together; timed by the slowest
    share's loop, memory summed over them (CPU is counted around them all: each process's
    own count would include the others' that ended meanwhile)."""
    commands = [
        [sys.executable, __file__, "--loop", str(path), "--share", f"{share}/{processes}"]
        for share in range(processes)
    ]
    cpu_before = children_cpu()
    with ThreadPoolExecutor(processes) as pool:
        results = list(pool.map(run_measured, commands))
    loops = [json.loads(result["stdout"]) for result in results]
    return {
        "seconds": max(loop["seconds"] for loop in loops),
        "cpu": children_cpu() - cpu_before,
        "peak_mb": sum(result["peak_mb"] for result in results),
        "p99_ms": p99([ms for loop in loops for ms in loop["per_row_ms"]]),
    }


def run_cli(
    path: Path, tmp: str, engine: Path, *extra: str, environment: dict | None = None
) -> dict:
    output = Path(tmp) / "graded.jsonl"
    command = [sys.executable, "-m", "grading", "grade", str(path), "-o", str(output), *extra]
    result = run_measured(command, engine, environment)
    per_row = []
    with output.open(encoding="utf-8") as file:
        for line in file:
            evaluations = json.loads(line)["evaluations"].values()
            per_row.append(sum(evaluation["ms"] for evaluation in evaluations))
    output.unlink()
    return {**result, "p99_ms": p99(per_row)}


def run_measured(command: list[str], cwd: Path = REPO, environment: dict | None = None) -> dict:
    """Run ``command`` to its end, timing it and sampling the PSS of its process tree."""
    env = {**os.environ, **(environment or {}), "PYTHONPATH": str(cwd)}
    cpu_before = children_cpu()
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True, env=env)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        root = psutil.Process(process.pid)
        while not done.wait(0.05):
            total = 0
            try:
                for member in [root, *root.children(recursive=True)]:
                    total += member.memory_full_info().pss
            except psutil.Error:
                continue
            peak = max(peak, total)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed with status {process.returncode}")
    # Every process of the tree was waited for by its parent, so its CPU time is counted here.
    cpu = children_cpu() - cpu_before
    return {"seconds": seconds, "cpu": cpu, "peak_mb": peak / 2**20, "stdout": stdout}


def children_cpu() -> float:
    """User and system time of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def print_table(rows: int, results: dict[str, list[dict]]) -> None:
    baseline = statistics.median(r["seconds"] for r in next(iter(results.values())))
    print(
        f"{'measurement':<44}{'seconds':>9}{'rows/s':>9}{'x loop':>8}{'p99 ms':>8}"
        f"{'peak MB':>9}{'CPU s':>8}"
    )
    for name, runs in results.items():
        seconds = statistics.median(r["seconds"] for r in runs)
        print(
            f"{name:<44}{seconds:>9.2f}{rows / seconds:>9.0f}{baseline / seconds:>8.2f}"
            f"{statistics.median(r['p99_ms'] for r in runs):>8.1f}"
            f"{max(r['peak_mb'] for r in runs):>9.0f}"
            f"{statistics.median(r['cpu'] for r in runs):>8.2f}",
            flush=True,
        )
    spread = {name: [round(r["seconds"], 2) for r in runs] for name, runs in results.items()}
    print("runs (s):", "; ".join(f"{name}: {times}" for name, times in spread.items()))


def profile_cli(path: Path, tmp: str, engine: Path, *extra: str) -> dict:
    """One command-line run with stage timers on; the figures of every process it started."""
    directory = Path(tempfile.mkdtemp(prefix="profile-", dir=tmp))
    environment = {PROFILE_VARIABLE: str(directory)}
    result = run_cli(path, tmp, engine, *extra, environment=environment)
    processes = [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
    return {"seconds": result["seconds"], "processes": processes}


def print_profile(label: str, rows: int, profile: dict) -> None:
    print(f"\nstage profile, {label}: {rows} rows in {profile['seconds']:.2f} s end to end")
    print(f"  {'':<44}{'wall s':>8}{'CPU s':>8}{'CPU us/row':>12}")
    by_role = defaultdict(list)
    for process in profile["processes"]:
        by_role[process["role"]].append(process)
    for parent in by_role["parent"][:1]:
        unseen = {"exit, and start-up the kernel clock missed": profile["seconds"] - parent["wall"]}
        print_stages("the command (parent)", [parent], rows, unseen)
    if by_role["forkserver"]:
        print_stages("fork server (imports, warm-up)", by_role["forkserver"], rows, {})
    if by_role["child"]:
        title = f"children ({len(by_role['child'])} processes, summed)"
        print_stages(title, by_role["child"], rows, {})


def print_stages(title: str, processes: list[dict], rows: int, extra: dict[str, float]) -> None:
    """Stages summed over ``processes``, largest first; what no stage covers is listed too."""
    stages: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for process in processes:
        for name, figures in process["stages"].items():
            stages[name][0] += figures.get("wall", figures.get("seconds", 0.0))
            stages[name][1] += figures.get("cpu", 0.0)
    wall = sum(p["wall"] for p in processes)
    cpu = sum(p.get("cpu", 0.0) for p in processes)
    stages["not in any stage"] = [
        max(0.0, wall - sum(w for w, _ in stages.values())),
        max(0.0, cpu - sum(c for _, c in stages.values())),
    ]
    for name, seconds in extra.items():
        stages[name] = [max(0.0, seconds), 0.0]
    print(f"  {title}: {wall + sum(extra.values()):.2f} s wall, {cpu:.2f} s CPU")
    for name, (stage_wall, stage_cpu) in sorted(stages.items(), key=lambda item: -item[1][0]):
        print(f"    {name:<42}{stage_wall:>8.3f}{stage_cpu:>8.3f}{stage_cpu / rows * 1e6:>12.0f}")


if __name__ == "__main__":
    main()
