"""A million-row run, step by step: each step's time and the peak memory of the process that
does it in production (the web server for upload, ingest and pages; a worker for grading and
exports).

Creates its own database (``mathjury_bench_million``, or MATHJURY_BENCH_DB) on the server
named by DATABASE_URL. Steps, each in a fresh process so its peak RSS is its own:

1. write a --rows-row CSV to disk from the shared sample run (streamed; never in memory);
2. upload: ``upload_store_path`` copies it into the upload store (hashing as it streams);
3. ingest: ``run_upload`` reads, checks and inserts every row, and queues the grading chunks
   (to an in-memory broker here: no worker is running);
4. grade: ``chunk_grade`` on --grade-slice rows, as one worker process does, extrapolated to
   the whole run and two workers (the full grading would take hours on 2 shared cores); the
   rest of the run is then marked graded by SQL with six evaluations per row, as
   bench/export.py does, so the later steps see a graded run;
5. pages: the run page, its statistics and an item page (Django's test client, median of 3
   each), and the statistics once more with nothing cached (they are kept until the run
   changes);
6. export: a raw CSV export job (``export_write``), and PostgreSQL's own COPY TO of the same
   query as the baseline.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/million.py

With --steps, only those steps run (the file is always written); with --keep the database
stays, and ``--step pages DIR`` (DIR an empty folder) measures the pages of the kept run again.
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
import time
from pathlib import Path

from benchdb import bench_database, bench_url, django_setup

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = REPO_ROOT.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench_million")
STEPS = ("upload", "ingest", "grade", "pages", "export", "copy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--grade-slice", type=int, default=400)
    parser.add_argument("--step", nargs=2, metavar=("STEP", "WORKDIR"))
    parser.add_argument(
        "--steps",
        default=",".join(STEPS),
        help="the steps to run, in order (each needs the ones before it): e.g. "
        "upload,ingest,grade,pages",
    )
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the database, so that `--step pages DIR` can measure the pages again",
    )
    args = parser.parse_args()
    if args.step:
        step, workdir = args.step
        os.environ["CELERY_BROKER_URL"] = "memory://"
        os.environ["ALLOWED_HOSTS"] = "testserver"  # the pages step uses the test client
        django_setup(bench_url(BENCH_DB), Path(workdir), migrate=False)
        started = time.perf_counter()
        facts = globals()[f"step_{step}"](Path(workdir), args)
        facts["seconds"] = time.perf_counter() - started
        if "rows" in facts:
            facts["rows_per_s"] = round(facts["rows"] / facts["seconds"])
        facts["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(facts))
        return
    steps = [step for step in args.steps.split(",") if step]
    unknown = set(steps) - set(STEPS)
    if unknown:
        parser.error(f"unknown steps {sorted(unknown)}; choose from {', '.join(STEPS)}")
    with (
        bench_database(BENCH_DB, keep=args.keep) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-million-") as workdir,
    ):
        django_setup(url, Path(workdir))
        print(f"load average before: {_load()}")
        started = time.perf_counter()
        path = write_file(Path(workdir) / "million.csv", args.rows)
        print(
            f"{'write file':<10}{time.perf_counter() - started:>9.1f} s"
            f"  ({path.stat().st_size / 1e6:,.0f} MB, {args.rows:,} rows)"
        )
        for step in steps:
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--rows",
                    str(args.rows),
                    "--grade-slice",
                    str(args.grade_slice),
                    "--step",
                    step,
                    workdir,
                ],
                env={**os.environ, "DATABASE_URL": url},
                capture_output=True,
                text=True,
            )
            if done.returncode:
                print(done.stderr[-3000:])
                raise SystemExit(f"step {step} failed")
            facts = json.loads(done.stdout.strip().splitlines()[-1])
            extra = "  ".join(f"{k}: {v}" for k, v in facts.items() if k not in _SHOWN)
            print(
                f"{step:<10}{facts['seconds']:>9.1f} s{facts['peak_rss_mb']:>8.0f} MB peak  {extra}"
            )
        print(f"load average after: {_load()}")


_SHOWN = ("seconds", "peak_rss_mb")


def write_file(path: Path, rows: int) -> Path:
    with SAMPLE.open(newline="", encoding="utf-8") as source:
        sample = list(csv.DictReader(source))
    with path.open("w", newline="", encoding="utf-8") as target:
        writer = csv.DictWriter(target, fieldnames=[*sample[0], "difficulty"])
        writer.writeheader()
        for n in range(rows):
            writer.writerow({**sample[n % len(sample)], "id": f"m-{n}", "difficulty": n % 5})
    return path


def step_upload(workdir: Path, args) -> dict:
    from reviewer.services.upload_store import upload_store_path

    stored = upload_store_path(path=workdir / "million.csv")
    (workdir / "token").write_text(stored.token)
    return {}


def step_ingest(workdir: Path, args) -> dict:
    from django.contrib.auth import get_user_model

    from reviewer import services
    from reviewer.services.upload_store import upload_get

    user = get_user_model().objects.create(username="bench")
    stored = upload_get(token=(workdir / "token").read_text())
    run = services.run_upload(stored=stored, project_name="million", user=user, name="m").run
    return {"rows": run.total_rows}


def step_grade(workdir: Path, args) -> dict:
    from django.db import connection

    from reviewer.models import Evaluation, GradingChunk, Item, Run
    from reviewer.services.grading import chunk_grade
    from reviewer.services.grading.chunks import chunks_record

    run = Run.objects.get()
    ids = list(
        Item.objects.filter(run=run)
        .order_by("row_number")
        .values_list("pk", flat=True)[: args.grade_slice]
    )
    # The slice as chunks of its own, graded here as a worker grades the chunks it is sent
    chunks = chunks_record(
        run_id=run.pk,
        generation=run.grading_generation,
        item_ids=ids,
        origin=GradingChunk.Origin.UPLOAD,
    )
    started = time.perf_counter()
    for chunk in chunks:
        chunk_grade(chunk_id=chunk.pk)
    per_row = (time.perf_counter() - started) / len(ids)
    items, evaluations = Item._meta.db_table, Evaluation._meta.db_table
    with connection.cursor() as cursor:  # the rest, as bench/export.py grades it
        cursor.execute(
            f"UPDATE {items} SET grade_state = 'graded', graded_at = now(), "  # noqa: S608
            "answer_type = 'integer', auto_verdict = 'correct', final_verdict = 'correct', "
            "final_source = 'auto', needs_review = row_number %% 10 = 0 "
            "WHERE run_id = %s AND grade_state = 'pending'",
            [run.pk],
        )
        cursor.execute(
            f"INSERT INTO {evaluations} (item_id, evaluator, evaluator_version, status, "  # noqa: S608
            "verdict, extracted, extracted_latex, gold_latex, ms, signals, detail) "
            "SELECT i.id, e.name, '1', 'ok', 'correct', '42', '42', '42', 1.5, '[]', '' "
            f"FROM {items} i CROSS JOIN unnest(%s::text[]) AS e (name) "
            "WHERE i.run_id = %s ON CONFLICT DO NOTHING",
            [list(run.evaluators), run.pk],
        )
        cursor.execute("UPDATE reviewer_run SET status = 'done' WHERE id = %s", [run.pk])  # noqa: S608
        cursor.execute("ANALYZE")
    return {
        "graded_rows": len(ids),
        "ms_per_row": round(per_row * 1000, 1),
        "two_workers_whole_run_h": round(per_row * run.total_rows / 2 / 3600, 1),
    }


def step_pages(workdir: Path, args) -> dict:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings
    from django.urls import reverse

    from reviewer.models import Item, Run

    call_command("collectstatic", interactive=False, verbosity=0)  # the pages need the manifest
    run = Run.objects.get()
    middle = Item.objects.filter(run=run, needs_review=True, row_number__gte=run.total_rows // 2)
    item = middle.order_by("row_number").first()
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    facts = {}
    stats_url = reverse("run_stats", args=[run.pk])
    for name, url in (
        ("run_page_ms", reverse("run_detail", args=[run.pk])),
        ("stats_ms", stats_url),
        ("item_ms", reverse("item_detail", args=[item.pk])),
    ):
        facts[name] = _median_ms(client, url)
    # The statistics are kept until the run changes (reviewer.stats.cache): what computing
    # them costs, with a cache that keeps nothing
    dummy = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    with override_settings(CACHES=dummy):
        facts["stats_computed_ms"] = _median_ms(client, stats_url)
    return facts


def _median_ms(client, url: str) -> int:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
    return round(statistics.median(times))


def step_export(workdir: Path, args) -> dict:
    from reviewer.models import Run
    from reviewer.selectors import ItemFilters
    from reviewer.services import exports

    job = exports.export_start(
        run=Run.objects.get(),
        user=None,
        format="csv",
        variant="raw",
        filters=ItemFilters(),
        in_background=False,
    )
    job = exports.export_write(export_id=job.pk)
    return {"rows": job.rows_done}


def step_copy(workdir: Path, args) -> dict:
    from django.db import connection, transaction

    from reviewer.models import Run
    from reviewer.selectors import ItemFilters
    from reviewer.services import exports
    from reviewer.services.exports.records import export_records_sql

    run = Run.objects.get()
    schema = exports.export_schema(run=run)
    items = exports.export_items(run=run, filters=ItemFilters())
    sql, params, _types = export_records_sql(items=items, schema=schema)
    size = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)", params) as copy:
            for block in copy:
                size += len(block)
    return {"rows": run.total_rows, "mb": round(size / 1e6)}


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
