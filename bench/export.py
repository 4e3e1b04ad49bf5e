"""How fast a run exports, and whether memory stays flat as the run grows.

Creates its own database ``mathjury_bench_export`` on the server named by DATABASE_URL, loads
a run of --rows rows (outputs from the shared sample run, six evaluations per row, one row in
twenty reviewed) and a run of a fifth of that size, then writes each format with the export
job (``reviewer.services.exports.export_write``, one REPEATABLE READ snapshot) in a fresh process per
measurement. Prints the median rows per second and the process's peak RSS for each format
and size: flat memory means the two sizes peak at about the same RSS. --formats measures only
those; --keep leaves the database (and its two runs) for a later --reuse, so two versions of the
code can be measured on the same rows back to back.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/export.py
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

from benchdb import bench_url, django_setup, kept_or_fresh_database

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = REPO_ROOT.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench_export")
FORMATS = {
    "csv": ("csv", "raw"),
    "csv-spreadsheet": ("csv", "spreadsheet"),
    "jsonl": ("jsonl", "raw"),
    "parquet": ("parquet", "raw"),
}
# The first line of the table: PostgreSQL's COPY TO csv of the export's own query.
EVALUATORS = ("math_verify", "math_verify_strict", "strict", "flex", "exact", "choice")


def build_run(*, rows: int, workdir: Path, user, name: str) -> int:
    """A graded run of ``rows`` rows with evaluations and some reviews; returns its id."""
    from django.db import connection

    from reviewer import services
    from reviewer.models import Evaluation, Item, Review
    from reviewer.services.upload_store import upload_store_path

    with SAMPLE.open(newline="", encoding="utf-8") as source:
        sample = list(csv.DictReader(source))
    path = workdir / f"{name}.csv"
    with path.open("w", newline="", encoding="utf-8") as target:
        writer = csv.DictWriter(target, fieldnames=[*sample[0], "difficulty"])
        writer.writeheader()
        for n in range(rows):
            writer.writerow({**sample[n % len(sample)], "id": f"{name}-{n}", "difficulty": n % 5})
    stored = upload_store_path(path=path)
    run = services.run_upload(stored=stored, project_name=name, user=user, name=name).run
    items, evaluations, reviews = (m._meta.db_table for m in (Item, Evaluation, Review))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {items} SET grade_state = 'graded', graded_generation = 1, "  # noqa: S608
            "graded_at = now(), answer_type = 'integer', "
            "auto_verdict = CASE WHEN row_number %% 4 = 0 THEN 'incorrect' ELSE 'correct' END, "
            "needs_review = row_number %% 10 = 0, "
            "review_reasons = CASE WHEN row_number %% 10 = 0 THEN "
            '\'[{"code": "evaluators_disagree", "message": "They disagree."}]\'::jsonb '
            "ELSE '[]'::jsonb END WHERE run_id = %s",
            [run.pk],
        )
        cursor.execute(
            f"UPDATE {items} SET final_verdict = auto_verdict, final_source = 'auto' "  # noqa: S608
            "WHERE run_id = %s",
            [run.pk],
        )
        cursor.execute(f"SELECT id FROM {items} WHERE run_id = %s", [run.pk])  # noqa: S608
        ids = [row[0] for row in cursor.fetchall()]
        with cursor.cursor.copy(
            f"COPY {evaluations} (item_id, evaluator, evaluator_version, status, verdict, "  # noqa: S608
            "extracted, extracted_latex, gold_latex, ms, signals, detail) FROM STDIN"
        ) as copy:
            for item_id in ids:
                for position, evaluator in enumerate(EVALUATORS):
                    verdict = "incorrect" if (item_id + position) % 7 == 0 else "correct"
                    copy.write_row(
                        (item_id, evaluator, "1", "ok", verdict, "42", "42", "42", 1.5, "[]", "")
                    )
        with cursor.cursor.copy(
            f"COPY {reviews} (item_id, annotator_id, verdict, kind, note, created_at, "  # noqa: S608
            "idempotency_key) FROM STDIN"
        ) as copy:
            for item_id in ids[::20]:
                copy.write_row(
                    (item_id, user.pk, "gold_wrong", "review", "=the gold is wrong", "now", "")
                )
        cursor.execute(
            f"UPDATE {items} SET final_verdict = 'gold_wrong', final_source = 'human', "  # noqa: S608
            f"version = 1 WHERE id IN (SELECT item_id FROM {reviews})"
        )
    return run.pk


def measure_one(url: str, workdir: Path, run_id: int, format: str, variant: str) -> None:
    """In a fresh process: write one export and print rows, seconds and peak RSS as JSON."""
    django_setup(url, workdir, migrate=False)
    from reviewer.models import Run
    from reviewer.selectors import ItemFilters
    from reviewer.services import exports

    run = Run.objects.get(pk=run_id)
    if format == "copy":
        measure_copy(run)
        return
    job = exports.export_start(
        run=run,
        user=None,
        format=format,
        variant=variant,
        filters=ItemFilters(),
        in_background=False,
    )
    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    job = exports.export_write(export_id=job.pk)
    seconds = time.perf_counter() - started
    size = exports.export_path(job, "data").stat().st_size
    print(
        json.dumps(
            {
                "rows": job.rows_done,
                "seconds": seconds,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "baseline_rss_mb": baseline_kb / 1024,
                "file_mb": size / 1e6,
            }
        )
    )


def measure_copy(run) -> None:
    """The baseline: PostgreSQL's own ``COPY (the export's query) TO STDOUT (FORMAT csv)``,
    bytes read and dropped, so the figures above compare with what the database alone costs."""
    from django.db import connection, transaction

    from reviewer.selectors import ItemFilters
    from reviewer.services import exports
    from reviewer.services.exports.records import export_records_sql

    schema = exports.export_schema(run=run)
    items = exports.export_items(run=run, filters=ItemFilters())
    sql, params, _types = export_records_sql(items=items, schema=schema)
    baseline_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    rows = size = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")  # as the export does
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT (FORMAT csv)", params) as copy:
            for block in copy:
                size += len(block)
                rows += bytes(block).count(b"\n")  # an estimate: quoted newlines count too
    seconds = time.perf_counter() - started
    print(
        json.dumps(
            {
                "rows": run.items.count(),
                "seconds": seconds,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "baseline_rss_mb": baseline_kb / 1024,
                "file_mb": size / 1e6,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true", help="measure the runs a --keep left")
    parser.add_argument("--measure", nargs=4, metavar=("WORKDIR", "RUN", "FORMAT", "VARIANT"))
    args = parser.parse_args()
    if args.measure:
        workdir, run_id, format, variant = args.measure
        measure_one(bench_url(BENCH_DB), Path(workdir), int(run_id), format, variant)
        return

    with (
        tempfile.TemporaryDirectory(prefix="mathjury-bench-export-") as workdir,
        kept_or_fresh_database(BENCH_DB, reuse=args.reuse, keep=args.keep) as url,
    ):
        run_benchmark(url=url, workdir=Path(workdir), args=args)


def run_benchmark(*, url: str, workdir: Path, args) -> None:
    django_setup(url, workdir)
    from django.contrib.auth import get_user_model

    from reviewer.models import Run

    sizes = (args.rows // 5, args.rows)
    if args.reuse:
        runs = {rows: Run.objects.get(name=f"bench-{rows}").pk for rows in sizes}
    else:
        user = get_user_model().objects.create(username="bench")
        runs = {}
        for rows in sizes:
            started = time.perf_counter()
            runs[rows] = build_run(rows=rows, workdir=workdir, user=user, name=f"bench-{rows}")
            print(f"loaded a run of {rows:,} rows in {time.perf_counter() - started:.0f} s")
        # What autovacuum leaves on a live database: the loading UPDATEs' dead rows gone and
        # the planner's statistics current (without, counting a run's rows took 0.6 s).
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")

    print(f"load average before: {load_average()}")
    print(
        f"\n{'format':<18}{'rows':>9}{'median s':>10}{'rows/s':>10}{'peak RSS':>11}{'file':>10}"
        f"{'× COPY':>8}"
    )
    for rows in sizes:
        baseline = None
        for format, variant in (("copy", "csv"), *(FORMATS[name] for name in args.formats)):
            results = [
                measure(workdir, runs[rows], format, variant, url) for _ in range(args.repeats)
            ]
            seconds = statistics.median(r["seconds"] for r in results)
            baseline = baseline or seconds
            peak = max(r["peak_rss_mb"] for r in results)
            label = {"copy": "COPY TO csv", "csv": f"csv {variant}"}.get(format, format)
            print(
                f"{label:<18}{rows:>9,}{seconds:>10.2f}{rows / seconds:>10,.0f}"
                f"{peak:>8,.0f} MB{results[0]['file_mb']:>7,.0f} MB{seconds / baseline:>8.2f}"
            )
    print(f"load average after: {load_average()}")
    print("(× COPY: time over PostgreSQL's own COPY TO csv of the same query, same run)")
    print(f"(peak RSS of the whole process; Django alone: {results[0]['baseline_rss_mb']:.0f} MB)")


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def measure(workdir: Path, run_id: int, format: str, variant: str, url: str) -> dict:
    output = subprocess.run(
        [sys.executable, __file__, "--measure", str(workdir), str(run_id), format, variant],
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
