"""Grading through the app: from ``manage.py import_run`` to the last graded row, through a
real Celery worker, beside a plain math-verify loop and the command line measured in the
same run.

    .venv/bin/python bench/app_grading.py [--backend sqlite|postgres|both] [--rows 8000 ...]
        [--concurrency 2] [--redis redis://127.0.0.1:6379/2] [--repeat 1]

Data: ../shared/samples/qwen25_math_cot_100x8.csv copied to the requested number of rows
with new ids and a first line ``Attempt k.`` added to each output, so no two outputs are
equal (bench/grading.py's distinct workload; 8,000 rows are ten copies).

For each backend a worker is started on a fresh store: the embedded default (SQLite and
kombu's filesystem broker in a temporary folder, what bin/start uses) and PostgreSQL and
Redis (a database of its own through bench/benchdb.py, and the Redis database ``--redis``
names, flushed before and after). The worker is ``celery -A reviewer worker --concurrency
N`` as bin/start runs it; the clock starts when ``import_run`` is launched, once the worker
is ready and idle, and stops at the last row's ``graded_at``. Printed: seconds, rows/s and
the ratio to the plain loop (math-verify ``parse`` + ``verify`` in one process, timed over
the loop alone) and the command line (``python -m grading grade``, all cores), both measured
in the same run, and when the import ended and the first row was graded.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path[0] = str(REPO)
PYTHON = sys.executable


def _bench_module(name: str):
    """bench/<name>.py by path: its bare name would clash with the grading package."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--rows", type=int, nargs="+", default=[8000], help="multiples of 800")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="app runs per backend and size")
    parser.add_argument(
        "--redis",
        default=os.environ.get("MATHJURY_TEST_BROKER_URL", "redis://127.0.0.1:6379/2"),
        help="Redis database for the PostgreSQL + Redis runs (flushed before and after)",
    )
    parser.add_argument("--worker-env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    bench_grading = _bench_module("grading")
    extra_env = dict(pair.split("=", 1) for pair in args.worker_env)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    print(
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start; worker "
        f"--concurrency {args.concurrency}; {' '.join(args.worker_env) or 'default settings'}",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="bench-app-grading-") as tmp:
        for rows in args.rows:
            path = bench_grading.write_run(
                Path(tmp) / f"distinct{rows}.csv", rows // 800, distinct=True
            )
            measurements = {
                "plain math-verify loop, 1 process": lambda p=path: bench_grading.run_loop(p),
                "python -m grading grade, all cores": lambda p=path: bench_grading.run_cli(
                    p, tmp, REPO
                ),
            }
            for backend in backends:
                label = "SQLite + filesystem" if backend == "sqlite" else "PostgreSQL + Redis"
                measurements[f"app, {label}"] = lambda b=backend, p=path, n=rows: app_run(
                    b, p, n, Path(tmp), args, extra_env
                )
            results: dict[str, list[dict]] = {name: [] for name in measurements}
            for _ in range(args.repeat):  # interleaved, so load on the machine hits all alike
                for name, measure in measurements.items():
                    results[name].append(measure())
            loop = statistics.median(r["seconds"] for r in results[next(iter(results))])
            cli = statistics.median(r["seconds"] for r in list(results.values())[1])
            print(f"\n{rows} distinct rows, median of {args.repeat}")
            print(f"  {'measurement':<46}{'seconds':>9}{'rows/s':>9}{'x loop':>8}{'x CLI':>7}")
            for name, runs in results.items():
                line(name, rows, statistics.median(r["seconds"] for r in runs), loop, cli)
                for r in runs:
                    if "imported" in r:
                        print(
                            f"    {r['seconds']:.1f} s: import_run exited at {r['imported']:.1f}"
                            f" s, first row graded at {r['first']:.1f} s; worker CPU "
                            f"{r['worker_cpu']:.1f} s"
                        )
            spread = "; ".join(
                f"{name}: {[round(r['seconds'], 2) for r in runs]}"
                for name, runs in results.items()
            )
            print(f"  runs (s): {spread}", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def line(name: str, rows: int, seconds: float, loop: float, cli: float) -> None:
    print(
        f"  {name:<46}{seconds:>9.2f}{rows / seconds:>9.0f}{loop / seconds:>8.2f}"
        f"{cli / seconds:>7.2f}",
        flush=True,
    )


def app_run(backend: str, path: Path, rows: int, tmp: Path, args, extra_env: dict) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix=f"{backend}-", dir=tmp))
    env = {
        **os.environ,
        "MATHJURY_DATA_DIR": str(workdir / "data"),
        "SECRET_KEY": "bench-only",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "reviewer.settings",
        **extra_env,
    }
    env.pop("CELERY_BROKER_URL", None)
    if backend == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
        return _measure(env, path, rows, workdir, args)
    import redis

    benchdb = _bench_module("benchdb")
    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    env["CELERY_BROKER_URL"] = args.redis
    try:
        with benchdb.bench_database("bench_app_grading") as url:
            env["DATABASE_URL"] = url
            return _measure(env, path, rows, workdir, args)
    finally:
        broker.flushdb()


def _measure(env: dict, path: Path, rows: int, workdir: Path, args) -> dict:
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
    log = workdir / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [PYTHON, "-m", "celery", "-A", "reviewer", "worker", "--loglevel", "INFO",
             "--concurrency", str(args.concurrency), "--without-gossip", "--without-mingle"],
            cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        _wait_ready(worker, log)
        cpu_before = _tree_cpu(worker.pid)
        started = time.time()
        imported = subprocess.run(
            [PYTHON, "manage.py", "import_run", str(path), "--project", "bench"],
            cwd=REPO, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        imported_at = time.time() - started
        run_id = int(imported.stdout.strip())
        first, last = _wait_graded(env["DATABASE_URL"], run_id, rows, worker, log)
        return {
            "seconds": last - started,
            "first": first - started,
            "imported": imported_at,
            "worker_cpu": _tree_cpu(worker.pid) - cpu_before,
        }
    finally:
        _stop(worker)


def _tree_cpu(pid: int) -> float:
    """User and system seconds of a process and its descendants alive now."""
    total = 0.0
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return total
    for process in tree:
        try:
            times = process.cpu_times()
            total += times.user + times.system
        except psutil.Error:
            pass
    return total


def _wait_ready(worker: subprocess.Popen, log: Path) -> None:
    """Until the worker says it is ready and its process tree has been idle for a second."""
    deadline = time.monotonic() + 180
    while b" ready." not in log.read_bytes():
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    root = psutil.Process(worker.pid)
    previous, quiet_since = -1.0, time.monotonic()
    while time.monotonic() < deadline:
        cpu = 0.0
        for process in [root, *root.children(recursive=True)]:
            try:
                times = process.cpu_times()
                cpu += times.user + times.system
            except psutil.Error:
                pass
        if cpu - previous > 0.05:
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since > 1.0:
            return
        previous = cpu
        time.sleep(0.25)


def _wait_graded(url: str, run_id: int, rows: int, worker, log: Path) -> tuple[float, float]:
    """Poll until no row of the run is pending; the first and last ``graded_at`` (epoch s)."""
    query = (
        "SELECT SUM(CASE WHEN grade_state = 'pending' THEN 1 ELSE 0 END), COUNT(*), "
        "MIN(graded_at), MAX(graded_at) FROM reviewer_item WHERE run_id = %s"
    )
    deadline = time.monotonic() + 3600
    while True:
        if url.startswith("sqlite"):
            with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30) as db:
                row = db.execute(query.replace("%s", "?"), (run_id,)).fetchone()
            row = (*row[:2], *(_sqlite_time(t) for t in row[2:]))
        else:
            import psycopg

            with psycopg.connect(url) as db:
                row = db.execute(query, (run_id,)).fetchone()
            row = (*row[:2], *(t.timestamp() if t else None for t in row[2:]))
        pending, total, first, last = row
        if total == rows and pending == 0:
            return first, last
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{pending} rows left; worker log:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)


def _sqlite_time(text: str | None) -> float | None:
    if text is None:
        return None
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def _stop(worker: subprocess.Popen) -> None:
    tree = psutil.Process(worker.pid).children(recursive=True) if worker.poll() is None else []
    worker.send_signal(signal.SIGTERM)
    try:
        worker.wait(timeout=60)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
    for process in tree:
        try:
            process.kill()
        except psutil.Error:
            pass


if __name__ == "__main__":
    main()
