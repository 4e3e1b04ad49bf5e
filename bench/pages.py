"""What the pages a reviewer clicks through cost on a large run: the run page, its statistics,
an item page and saving a verdict (as the run's owner and as an annotator), each with its number
of queries and its slowest queries.

Creates its own database (``mathjury_bench_pages``, or MATHJURY_BENCH_DB) on the server named
by DATABASE_URL and loads a graded run of --rows rows (bench/export.py's run: one row in ten
flagged, one in twenty reviewed); with --reuse it measures the newest run a previous --keep
(of this script or bench/million.py) left there instead, as its uploader, migrating first. Each page is requested --repeats times through Django's
test client in this process; prints the median time, the median CPU time of this process
(steadier than the time on a busy machine; the database's own work is not in it), the query
count and the three slowest queries of the last request of each; the statistics page once more with nothing cached.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/pages.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchdb import django_setup, kept_or_fresh_database

BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench_pages")
NOTHING_KEPT = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}


def main() -> None:
    os.environ["ALLOWED_HOSTS"] = "testserver"  # Django's test client
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure the run a --keep left")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="mathjury-bench-pages-") as workdir,
        kept_or_fresh_database(BENCH_DB, reuse=args.reuse, keep=args.keep) as url,
    ):
        run_benchmark(url=url, workdir=Path(workdir), args=args)


def run_benchmark(*, url: str, workdir: Path, args) -> None:
    django_setup(url, workdir)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, override_settings
    from django.urls import reverse
    from export import build_run

    from reviewer import services
    from reviewer.models import Item, Membership, Run

    users = get_user_model()
    if args.reuse:  # the newest run there (bench/million.py --keep leaves one too)
        run = Run.objects.order_by("-pk").first()
        lead = run.uploaded_by
    else:
        lead = users.objects.create(username="lead")
        started = time.perf_counter()
        run = Run.objects.get(
            pk=build_run(rows=args.rows, workdir=workdir, user=lead, name="pages")
        )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        print(
            f"loaded a graded run of {run.total_rows:,} rows in {time.perf_counter() - started:.0f} s"
        )
    call_command("collectstatic", interactive=False, verbosity=0)  # the pages need the manifest
    print(f"load average before: {_load()}")
    client = Client()
    client.force_login(lead)
    annotator, _ = users.objects.get_or_create(username="pages-annotator")
    services.membership_set(
        project=run.project, user=annotator, role=Membership.Role.ANNOTATOR, by=lead
    )
    annotator_client = Client()
    annotator_client.force_login(annotator)
    # Flagged, undecided rows from the middle of the run on: one per save.
    to_review = iter(
        Item.objects.filter(run=run, needs_review=True, row_number__gte=run.total_rows // 2)
        .exclude(final_source="human")
        .order_by("row_number")
        .values_list("pk", "version")[: 2 * args.repeats + 1]
    )
    item_id, _ = next(to_review)
    pages = (
        ("run page", lambda: client.get(reverse("run_detail", args=[run.pk]))),
        (
            "run page, table only",
            lambda: client.get(
                reverse("run_detail", args=[run.pk]),
                headers={"HX-Request": "true", "HX-Target": "items"},
            ),
        ),
        ("statistics page", lambda: client.get(reverse("run_stats", args=[run.pk]))),
        ("item page", lambda: client.get(reverse("item_detail", args=[item_id]))),
        (
            "item page, annotator",
            lambda: annotator_client.get(reverse("item_detail", args=[item_id])),
        ),
    )
    print(f"\n{run.total_rows:,} rows; median of {args.repeats}\n")
    print(f"{'page':<24}{'median ms':>10}{'CPU ms':>8}{'queries':>9}   slowest queries (ms)")
    with override_settings(DEBUG=False):
        for name, request in pages:
            _measure(name, request, args.repeats, connection, CaptureQueriesContext)
        # The statistics again with a cache that keeps nothing: what a reload costs after
        # the run changed.
        with override_settings(CACHES=NOTHING_KEPT):
            _measure(
                "statistics, computed",
                lambda: client.get(reverse("run_stats", args=[run.pk])),
                args.repeats,
                connection,
                CaptureQueriesContext,
            )

        def save(by):
            pk, version = next(to_review)
            return by.post(
                reverse("item_detail", args=[pk]),
                {"verdict": "correct", "note": "", "expected_version": version},
                headers={"HX-Request": "true", "HX-Target": "item"},  # as htmx sends it
            )

        for name, by in (("save → next row", client), ("save, annotator", annotator_client)):
            _measure(name, lambda by=by: save(by), args.repeats, connection, CaptureQueriesContext)
    print(f"\nload average after: {_load()}")


def _measure(name, request, repeats, connection, capture) -> None:
    times, cpu_times = [], []
    for _ in range(repeats):
        with capture(connection) as queries:
            started, cpu_started = time.perf_counter(), time.process_time()
            response = request()
            times.append((time.perf_counter() - started) * 1000)
            cpu_times.append((time.process_time() - cpu_started) * 1000)
        assert response.status_code == 200, (name, response.status_code)
    slowest = sorted(queries.captured_queries, key=lambda q: -float(q["time"]))[:3]
    shown = "; ".join(f"{float(q['time']) * 1000:.0f}: {q['sql'][:60]}" for q in slowest)
    print(
        f"{name:<24}{statistics.median(times):>10.0f}{statistics.median(cpu_times):>8.1f}"
        f"{len(queries):>9}   {shown}"
    )


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
