"""Review under load: simulated annotators reviewing a large run through the pages, as the
browser does, while a lead keeps reloading the statistics page.

Creates its own database (``mathjury_bench_load``, or MATHJURY_BENCH_DB) on the server named by
DATABASE_URL, loads a graded run of --rows rows (bench/export.py's run: one row in ten
flagged), starts gunicorn on 127.0.0.1 only, and runs --annotators threads, each starting at its
own flagged row and doing --reviews rounds of: open the row (GET, full page), read it for
--think seconds, save a verdict (htmx POST targeting #item, as htmx sends it, whose response is
the next row to review). One more thread is the lead, reloading the run's statistics page every
--stats-every seconds. Everything stops after --seconds.

--think 0 (the default) is a closed loop with no pause: each annotator sends its next request
as soon as the last is answered, the stress figure. With --think SECONDS, each pause is drawn
uniformly between half and one and a half times that mean (seeded by --seed, so two runs send
the same pauses) and the annotators start spread over one mean pause: people reading rows.

Prints, per kind of request, the count and the p50/p95/p99 of the server's own time (from
gunicorn's access log, %(D)s) and of the time the client waited (which adds queueing: the
clients share the machine's cores with the server), requests per second, the errors (5xx
counted apart), and whether every saved verdict is in the database exactly once.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/review_load.py
    DATABASE_URL=... .venv/bin/python bench/review_load.py --think 8 --reviews 15
"""

from __future__ import annotations

import argparse
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import requests
from benchdb import bench_database, django_setup

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench_load")
VERSION = re.compile(r'name="expected_version" value="(\d+)"')
CSRF = re.compile(r'"X-CSRFToken": "([^"]+)"')  # base.html's hx-headers
ITEM_PATH = re.compile(r"^/items/\d+/$")
STATS_PATH = re.compile(r"^/runs/\d+/stats/$")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--reviews", type=int, default=20, help="rows each annotator saves")
    parser.add_argument("--seconds", type=int, default=600, help="stop after this long")
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds an annotator reads a row"
    )
    parser.add_argument("--seed", type=int, default=17, help="seeds the think times")
    parser.add_argument("--stats-every", type=float, default=2.0)
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()
    with (
        bench_database(BENCH_DB, keep=args.keep) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-load-") as workdir,
    ):
        run_benchmark(url=url, workdir=Path(workdir), args=args)


def run_benchmark(*, url: str, workdir: Path, args) -> None:
    django_setup(url, workdir)
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from export import build_run

    from reviewer import services
    from reviewer.models import Item, Membership, Review, Run

    users = get_user_model()
    lead = users.objects.create(username="lead")
    started = time.perf_counter()
    run = Run.objects.get(pk=build_run(rows=args.rows, workdir=workdir, user=lead, name="load"))
    print(f"loaded a graded run of {args.rows:,} rows in {time.perf_counter() - started:.0f} s")
    annotators = []
    for n in range(args.annotators):
        annotator = users.objects.create(username=f"annotator{n}")
        services.membership_set(
            project=run.project, user=annotator, role=Membership.Role.ANNOTATOR, by=lead
        )
        annotators.append(annotator)

    def session_for(user) -> str:
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[-1]
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        return session.session_key

    # Each annotator starts at its own flagged, undecided row, spread over the run.
    flagged = list(
        Item.objects.filter(run=run, needs_review=True)
        .exclude(final_source="human")
        .order_by("row_number")
        .values_list("pk", flat=True)
    )
    step = len(flagged) // len(annotators)
    starts = [flagged[n * step] for n in range(len(annotators))]
    before = Review.objects.filter(item__run=run).count()

    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)  # the pages need the manifest
    port = _free_port()
    log_path = workdir / "access.log"
    server = _gunicorn(url, workdir, port, log_path, args.gunicorn_workers)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base)
        results = Results()
        deadline = time.monotonic() + args.seconds
        done = threading.Event()
        threads = [
            threading.Thread(
                target=annotate,
                args=(
                    base,
                    user.username,
                    session_for(user),
                    start,
                    args.reviews,
                    Reader(mean=args.think, seed=f"{args.seed}-{n}", done=done),
                    deadline,
                    results,
                ),
            )
            for n, (user, start) in enumerate(zip(annotators, starts, strict=True))
        ]
        lead_thread = threading.Thread(
            target=reload_stats,
            args=(base, session_for(lead), run.pk, args.stats_every, done, deadline, results),
        )
        print(f"load average before: {_load()}")
        began = time.perf_counter()
        lead_thread.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        lead_thread.join()
        elapsed = time.perf_counter() - began
        print(f"load average after: {_load()}")
    finally:
        server.terminate()
        server.wait(timeout=30)
        errors = (workdir / "gunicorn.log").read_text(errors="replace")
        if "Traceback" in errors:
            print(errors[-3000:])

    server_ms = _server_times(log_path)
    reading = f"reading each row {args.think:g} s on average" if args.think else "no pause"
    print(
        f"\n{args.annotators} annotators × {args.reviews} reviews on {args.rows:,} rows, "
        f"{reading}, {args.gunicorn_workers} gunicorn workers, {elapsed:.0f} s\n"
    )
    print(f"{'request':<22}{'count':>7}{'server p50/p95/p99 ms':>26}{'client p50/p95/p99 ms':>26}")
    for kind in ("item page", "save → next row", "statistics page"):
        client = results.latency_ms[kind]
        print(
            f"{kind:<22}{len(client):>7}{_percentiles(server_ms[kind]):>26}"
            f"{_percentiles(client):>26}"
        )
    answered = sum(len(times) for times in server_ms.values())
    print(f"\nrequests answered: {answered} in {elapsed:.0f} s, {answered / elapsed:.1f} a second")
    server_errors = sum(n for status, n in results.statuses.items() if status >= 500)
    print(f"errors: {dict(results.errors) or 'none'}; 5xx: {server_errors}")
    # Lost: a 200 with no review by that annotator on that row; doubled: one annotator's
    # row with two reviews (each POST is sent once). Two annotators reaching the same row is
    # counted apart: the queue order may lead one into rows another already decided.
    after = Review.objects.filter(item__run=run).count() - before
    pairs = defaultdict(int)
    for pair in Review.objects.filter(item__run=run, annotator__in=annotators).values_list(
        "annotator__username", "item_id"
    ):
        pairs[pair] += 1
    lost = [pair for pair in results.saved_items if pairs.get(pair, 0) == 0]
    doubled = [pair for pair, n in pairs.items() if n > 1]
    shared = defaultdict(set)
    for username, item_id in pairs:
        shared[item_id].add(username)
    print(
        f"verdicts saved (200): {len(results.saved_items)}; new reviews in the database: "
        f"{after}; lost: {len(lost)}; doubled: {len(doubled)}; rows saved by two annotators: "
        f"{sum(len(users) > 1 for users in shared.values())}"
    )


class Results:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency_ms: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.statuses: dict[int, int] = defaultdict(int)
        self.saved_items: list[tuple[str, int]] = []  # (annotator, item) answered 200

    def record(self, kind: str, started: float, response: requests.Response | None) -> None:
        with self.lock:
            self.latency_ms[kind].append((time.perf_counter() - started) * 1000)
            if response is None:
                self.errors[f"{kind}: no response"] += 1
                return
            self.statuses[response.status_code] += 1
            if response.status_code >= 400:
                self.errors[f"{kind}: {response.status_code}"] += 1


class Reader:
    """How long one annotator reads each row: uniform between half and one and a half times
    ``mean`` seconds, from its own seeded generator; no pause when ``mean`` is 0."""

    def __init__(self, *, mean: float, seed: str, done: threading.Event) -> None:
        self.mean = mean
        self.random = random.Random(seed)
        self.done = done

    def start(self) -> None:
        """Wait a share of one mean pause, so the annotators do not all begin at once."""
        if self.mean:
            self.done.wait(self.random.uniform(0, self.mean))

    def read(self, deadline: float) -> None:
        """Pause as a person reading the row would, never past ``deadline``."""
        if self.mean:
            pause = self.random.uniform(0.5 * self.mean, 1.5 * self.mean)
            self.done.wait(min(pause, max(0.0, deadline - time.monotonic())))


def annotate(
    base, username, session_key, item_id, reviews, reader: Reader, deadline, results: Results
) -> None:
    """Open a row, read it, save a verdict (htmx), follow to the next row; ``reviews`` times."""
    http = requests.Session()
    http.cookies.set("sessionid", session_key, domain="127.0.0.1")
    reader.start()
    for _ in range(reviews):
        if time.monotonic() > deadline:
            return
        started = time.perf_counter()
        page = _get(http, f"{base}/items/{item_id}/")
        results.record("item page", started, page)
        if page is None or page.status_code != 200:
            return
        version = VERSION.search(page.text)
        token = CSRF.search(page.text)
        data = {"verdict": "correct", "note": "", "expected_version": version.group(1)}
        reader.read(deadline)
        if time.monotonic() > deadline:
            return
        started = time.perf_counter()
        saved = _post(
            http,
            f"{base}/items/{item_id}/",
            data,
            {  # what htmx sends for the review form (hx-target="#item")
                "HX-Request": "true",
                "HX-Target": "item",
                "HX-Current-URL": f"{base}/items/{item_id}/",
                "X-CSRFToken": token.group(1) if token else "",
            },
        )
        results.record("save → next row", started, saved)
        if saved is None or saved.status_code != 200:
            return
        with results.lock:
            results.saved_items.append((username, item_id))
        pushed = saved.headers.get("HX-Push-Url", "")
        match = re.match(r"/items/(\d+)/", pushed)
        if not match or int(match.group(1)) == item_id:
            return
        item_id = int(match.group(1))


def reload_stats(base, session_key, run_id, every, done, deadline, results: Results) -> None:
    http = requests.Session()
    http.cookies.set("sessionid", session_key, domain="127.0.0.1")
    while not done.is_set() and time.monotonic() < deadline:
        started = time.perf_counter()
        results.record("statistics page", started, _get(http, f"{base}/runs/{run_id}/stats/"))
        done.wait(every)


def _get(http, url):
    try:
        return http.get(url, timeout=60, allow_redirects=False)
    except requests.RequestException:
        return None


def _post(http, url, data, headers):
    try:
        return http.post(url, data=data, headers=headers, timeout=60, allow_redirects=False)
    except requests.RequestException:
        return None


def _gunicorn(url, workdir, port, log_path, workers) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "MATHJURY_DATA_DIR": str(workdir / "data"),
        "MATHJURY_EXPORT_DIR": str(workdir / "exports"),
        "SECRET_KEY": "bench-only",
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
    }
    return subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "reviewer.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            "--access-logfile",
            str(log_path),
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(D)s",
        ],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(workdir / "gunicorn.log", "wb"),  # noqa: SIM115
    )


def _server_times(log_path: Path) -> dict[str, list[float]]:
    """Milliseconds the server spent per request kind, from the access log."""
    times: dict[str, list[float]] = defaultdict(list)
    for line in log_path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 4:
            continue
        method, path, _status, micros = parts
        if ITEM_PATH.match(path):
            kind = "save → next row" if method == "POST" else "item page"
        elif STATS_PATH.match(path):
            kind = "statistics page"
        else:
            continue
        times[kind].append(int(micros) / 1000)
    return times


def _percentiles(values: list[float]) -> str:
    if len(values) < 2:
        return "-"
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return f"{statistics.median(values):.0f} / {cuts[94]:.0f} / {cuts[98]:.0f}"


def _wait_until_up(base: str) -> None:
    for _ in range(120):
        try:
            requests.get(f"{base}/healthz", timeout=2)
            return
        except requests.RequestException:
            time.sleep(0.5)
    raise RuntimeError("gunicorn did not start; see gunicorn.log in the work folder")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
