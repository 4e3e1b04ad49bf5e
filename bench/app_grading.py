"""Grading through the app: from ``manage.py import_run`` to the last graded row, through a
real Celery worker, beside a plain math-verify loop and the command line measured in the
same run.

    .venv/bin/python bench/app_grading.py [--backend sqlite|postgres|both] [--rows 8000 ...]
        [--concurrency 2] [--redis redis://127.0.0.1:6379/2] [--repeat 1] [--engine DIR]
        [--profile]

Data: ../shared/samples/qwen25_math_cot_100x8.csv copied to the requested number of rows
with new ids and a first line ``Attempt k.`` added to each output, so no two outputs are
equal (bench/grading.py's distinct workload; 8,000 rows are ten copies).

For each backend a worker is started on a fresh store: the embedded default (SQLite and
kombu's filesystem broker in a temporary folder, what bin/start uses) and PostgreSQL and
Redis (a database of its own through bench/benchdb.py, and the Redis database ``--redis``
names, flushed before and after; the database is ``bench_app_grading``, or
MATHJURY_BENCH_DB). The worker is ``celery -A reviewer worker --concurrency N`` as bin/start
runs it; the clock starts when ``import_run`` is launched, once the worker is ready and idle,
and stops at the last row's ``graded_at``. Printed: seconds, rows/s and the ratio to the plain
loop (math-verify ``parse`` + ``verify`` in one process, timed over the loop alone) and the
command line (``python -m grading grade``, all cores), both measured in the same run, and the
CPU time (user and system) of each: the loop's process, the command's process tree, and for
the app ``import_run`` and the worker's process tree over the run (a database server's is
not counted). Then, for each app run, the time to the first graded row by step (from the
run's, its chunks' and its rows' timestamps), when ``import_run`` exited, and the CPU time of
``import_run``, of the worker's Celery processes and of their grading processes (fork
servers and children, reaped ones included).

``--engine DIR`` also measures the app of another checkout (say, ``git archive`` of the code
before a change), interleaved with this one's. ``--profile`` runs each app once more with the
stage timers of grading.stage_profile on, and prints where the worker processes, their fork
servers and their grading children spend their time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path[0] = str(REPO)
PYTHON = sys.executable
BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "bench_app_grading")
PROFILE_VARIABLE = "MATHJURY_STAGE_PROFILE"
LABELS = {"sqlite": "SQLite + filesystem", "postgres": "PostgreSQL + Redis"}


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
    parser.add_argument(
        "--engine",
        type=Path,
        metavar="DIR",
        help="also measure the app of another checkout (say, before a change)",
    )
    parser.add_argument("--profile", action="store_true", help="also print the stage profile")
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
            engines = {"": REPO, **({f"{args.engine.name}: ": args.engine} if args.engine else {})}
            for prefix, engine in engines.items():
                for backend in backends:
                    measurements[f"{prefix}app, {LABELS[backend]}"] = partial(
                        app_run, backend, path, rows, Path(tmp), args, extra_env, engine
                    )
            results: dict[str, list[dict]] = {name: [] for name in measurements}
            for _ in range(args.repeat):  # interleaved, so load on the machine hits all alike
                for name, measure in measurements.items():
                    results[name].append(measure())
            loop = statistics.median(r["seconds"] for r in results[next(iter(results))])
            cli = statistics.median(r["seconds"] for r in list(results.values())[1])
            print(f"\n{rows} distinct rows, median of {args.repeat}")
            print(
                f"  {'measurement':<46}{'seconds':>9}{'rows/s':>9}{'x loop':>8}{'x CLI':>7}"
                f"{'CPU s':>8}"
            )
            for name, runs in results.items():
                seconds = statistics.median(r["seconds"] for r in runs)
                cpu = statistics.median(r["cpu"] for r in runs)
                line(name, rows, seconds, loop, cli, cpu)
                for r in runs:
                    if "first" in r:
                        print_app_run(r, rows)
            spread = "; ".join(
                f"{name}: {[round(r['seconds'], 2) for r in runs]}"
                for name, runs in results.items()
            )
            print(f"  runs (s): {spread}", flush=True)
            if args.profile:
                for prefix, engine in engines.items():
                    for backend in backends:
                        profile = app_run(
                            backend, path, rows, Path(tmp), args, extra_env, engine, profile=True
                        )
                        print_app_profile(f"{prefix}app, {LABELS[backend]}", rows, profile)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def line(name: str, rows: int, seconds: float, loop: float, cli: float, cpu: float) -> None:
    print(
        f"  {name:<46}{seconds:>9.2f}{rows / seconds:>9.0f}{loop / seconds:>8.2f}"
        f"{cli / seconds:>7.2f}{cpu:>8.2f}",
        flush=True,
    )


def print_app_run(r: dict, rows: int) -> None:
    """The run's time to its first graded row by step, and the worker's CPU."""
    steps = " + ".join(f"{name} {seconds:.2f}" for name, seconds in r["steps"].items())
    print(
        f"    {r['seconds']:.2f} s; first row graded at {r['first']:.2f} s = {steps}; "
        f"import_run exited at {r['imported']:.2f} s"
    )
    celery, grading = r["worker_cpu"]
    print(
        f"    CPU: import_run {r['import_cpu']:.2f} s; worker {celery + grading:.2f} s: "
        f"Celery processes {celery:.2f} s "
        f"({celery / rows * 1e6:.0f} us/row), grading processes {grading:.2f} s "
        f"({grading / rows * 1e6:.0f} us/row)"
    )


def print_app_profile(label: str, rows: int, profile: dict) -> None:
    """The stage profile of one app run's worker: its Celery processes (both threads of
    each: the task and the grading thread), fork servers and grading children, summed."""
    print(
        f"\nstage profile, {label}: {rows} rows, last graded at {profile['seconds']:.2f} s"
        f" (first at {profile['first']:.2f} s)"
    )
    print(f"  {'':<44}{'wall s':>8}{'CPU s':>8}{'CPU us/row':>12}")
    by_role: dict[str, list[dict]] = {}
    for process in profile["processes"]:
        by_role.setdefault(process["role"], []).append(process)
    bench_grading = _bench_module("grading")
    titles = {
        "worker": "worker processes (threads' stages)",
        "forkserver": "fork servers (imports, warm-up)",
        "child": "grading children",
    }
    for role, title in titles.items():
        if by_role.get(role):
            count = len(by_role[role])
            bench_grading.print_stages(f"{title}, {count} summed", by_role[role], rows, {})


def app_run(
    backend: str,
    path: Path,
    rows: int,
    tmp: Path,
    args,
    extra_env: dict,
    engine: Path = REPO,
    *,
    profile: bool = False,
) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix=f"{backend}-", dir=tmp))
    env = {
        **os.environ,
        "MATHJURY_DATA_DIR": str(workdir / "data"),
        "SECRET_KEY": "bench-only",
        "LOG_LEVEL": "WARNING",
        "DJANGO_SETTINGS_MODULE": "reviewer.settings",
        "PYTHONPATH": str(engine),
        **extra_env,
    }
    env.pop("CELERY_BROKER_URL", None)
    env.pop(PROFILE_VARIABLE, None)
    if profile:
        env[PROFILE_VARIABLE] = str(workdir / "profile")
    if backend == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
        return _measure(env, path, rows, workdir, args, engine)
    import redis

    benchdb = _bench_module("benchdb")
    broker = redis.Redis.from_url(args.redis)
    broker.flushdb()
    env["CELERY_BROKER_URL"] = args.redis
    try:
        with benchdb.bench_database(BENCH_DB) as url:
            env["DATABASE_URL"] = url
            return _measure(env, path, rows, workdir, args, engine)
    finally:
        broker.flushdb()


def _measure(env: dict, path: Path, rows: int, workdir: Path, args, engine: Path) -> dict:
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=engine, env=env, check=True)
    log = workdir / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen(
            [PYTHON, "-m", "celery", "-A", "reviewer", "worker", "--loglevel", "INFO",
             "--concurrency", str(args.concurrency), "--without-gossip", "--without-mingle"],
            cwd=engine, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        _wait_ready(worker, log)
        cpu_before = _tree_cpu(worker.pid)
        import_cpu = _children_cpu()
        started = time.time()
        imported = subprocess.run(
            [PYTHON, "manage.py", "import_run", str(path), "--project", "bench"],
            cwd=engine, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        imported_at = time.time() - started
        import_cpu = _children_cpu() - import_cpu
        run_id = int(imported.stdout.strip())
        first, last = _wait_graded(env["DATABASE_URL"], run_id, rows, worker, log)
        cpu_after = _tree_cpu(worker.pid)
        worker_cpu = tuple(
            after - before for before, after in zip(cpu_before, cpu_after, strict=True)
        )
        result = {
            "seconds": last - started,
            "cpu": import_cpu + sum(worker_cpu),
            "first": first - started,
            "imported": imported_at,
            "import_cpu": import_cpu,
            "steps": _first_row_steps(env["DATABASE_URL"], run_id, started, first),
            "worker_cpu": worker_cpu,
        }
    finally:
        _stop(worker)
    if PROFILE_VARIABLE in env:
        directory = Path(env[PROFILE_VARIABLE])
        result["processes"] = [json.loads(p.read_text()) for p in directory.glob("*.json")]
    return result


def _first_row_steps(url: str, run_id: int, started: float, first: float) -> dict[str, float]:
    """Seconds from launching import_run to its run's row being created (start-up: the
    interpreter, Django, imports), to its first chunk recorded (reading, inserting and
    committing the rows), to the first chunk a worker took (sending, and the worker's pickup)
    and to the first row graded (the first batch: counting its attempt, grading, saving)."""
    marks = _query(
        url,
        "SELECT r.created_at, MIN(c.sent_at), MIN(c.started_at) FROM reviewer_run r "
        "JOIN reviewer_gradingchunk c ON c.run_id = r.id WHERE r.id = %s GROUP BY r.created_at",
        run_id,
    )
    times = [started, *marks, first]
    steps = ("start-up", "read and insert", "send and pickup", "first batch")
    return {
        step: after - before
        for step, before, after in zip(steps, times[:-1], times[1:], strict=True)
    }


def _query(url: str, sql: str, *params) -> tuple:
    """One row of ``sql``, dates and times as epoch seconds."""
    if url.startswith("sqlite"):
        with sqlite3.connect(url.removeprefix("sqlite:///"), timeout=30) as db:
            row = db.execute(sql.replace("%s", "?"), params).fetchone()
        return tuple(_sqlite_time(v) if isinstance(v, str) else v for v in row)
    import psycopg

    with psycopg.connect(url) as db:
        row = db.execute(sql, params).fetchone()
    return tuple(v.timestamp() if isinstance(v, datetime) else v for v in row)


def _children_cpu() -> float:
    """User and system seconds of this process's children that ended and were waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tree_cpu(pid: int) -> tuple[float, float]:
    """User and system seconds of a worker's Celery processes and of its grading processes
    (its fork servers and their children), each with the children it reaped."""
    celery = grading = 0.0
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.Error:
        return celery, grading
    known = []
    for process in tree:
        try:
            known.append((process, process.cpu_times(), process.ppid(), process.cmdline()))
        except psutil.Error:
            pass
    servers = {process.pid for process, _, _, command in known if "grading.forkserver" in command}
    for process, times, parent, _ in known:
        own = times.user + times.system
        if process.pid in servers:
            grading += own + times.children_user + times.children_system
        elif parent in servers:
            grading += own
        else:
            celery += own
    return celery, grading


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
        pending, total, first, last = _query(url, query, run_id)
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
