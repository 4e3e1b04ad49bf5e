"""How fast an upload becomes a run: parse, validate and bulk-insert rows into PostgreSQL.

Builds a large CSV from the shared sample run (new ids, generated here), creates its own
database ``mathjury_bench`` on the server named by DATABASE_URL, times ``run_create`` several
times and prints the median rows per second, next to the parse-only rate as a baseline.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/ingest.py
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchdb import bench_database, django_setup

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE = REPO_ROOT.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench")


def build_csv(path: Path, rows: int) -> None:
    with SAMPLE.open(newline="", encoding="utf-8") as source:
        sample = list(csv.DictReader(source))
    with path.open("w", newline="", encoding="utf-8") as target:
        writer = csv.DictWriter(target, fieldnames=list(sample[0]))
        writer.writeheader()
        for n in range(rows):
            row = dict(sample[n % len(sample)])
            row["id"] = f"bench-{n}"
            writer.writerow(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    with (
        bench_database(BENCH_DB) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-") as workdir,
    ):
        run_benchmark(url=url, workdir=Path(workdir), rows=args.rows, repeats=args.repeats)


def run_benchmark(*, url: str, workdir: Path, rows: int, repeats: int) -> None:
    django_setup(url, workdir)
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from grading.reader import preview_file, read_rows
    from reviewer import services
    from reviewer.services.upload_store import upload_store_path

    user = get_user_model().objects.create(username="bench")

    source = workdir / "bench.csv"
    started = time.perf_counter()
    build_csv(source, rows)
    size_mb = source.stat().st_size / 1e6
    print(f"built {rows:,} rows ({size_mb:,.0f} MB) in {time.perf_counter() - started:.1f} s")
    mapping = preview_file(source).guessed_mapping

    parse_seconds, create_seconds = [], []
    for attempt in range(repeats):
        started = time.perf_counter()
        count = sum(
            1
            for _ in read_rows(
                source,
                mapping=mapping,
                delimiter=None,
                max_field_bytes=settings.MATHJURY_MAX_FIELD_BYTES,
            )
        )
        parse_seconds.append(time.perf_counter() - started)
        assert count == rows

        stored = upload_store_path(path=source)
        project = services.project_get_or_create(name=f"bench {attempt}", user=user)
        started = time.perf_counter()
        run = services.run_create(
            project=project, user=user, upload_token=stored.token, mapping=mapping, name="bench"
        )
        create_seconds.append(time.perf_counter() - started)
        assert run.total_rows == rows == run.items.count()

    parse, create = statistics.median(parse_seconds), statistics.median(create_seconds)
    print(f"parse + validate only : median {parse:6.2f} s  {rows / parse:10,.0f} rows/s")
    print(
        f"run_create (PostgreSQL): median {create:6.2f} s  {rows / create:10,.0f} rows/s "
        f"({size_mb / create:,.0f} MB/s; target >= 20,000 rows/s)"
    )
    print("runs:", ", ".join(f"{s:.2f} s" for s in create_seconds))


if __name__ == "__main__":
    main()
