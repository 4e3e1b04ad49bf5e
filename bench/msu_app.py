"""MSU through the app: the demo run's figures, and the time per 1,000 rows of each path
through ``reviewer.services.msu.msu_chunk`` (database reads, the cache, the writes).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/msu_app.py

Creates its own database ``mathjury_bench_msu`` on that server (dropped at the end). Part 1
loads the demo run as ``manage.py demo`` does, grades it and scores it in this process, and
prints what the run page's MSU section shows. Part 2 uploads the 800 Qwen2.5-Math outputs of
../shared/samples/qwen25_math_cot_100x8.csv with each problem's sample 0 standing in for its
human solution (the file has none; as in bench/msu.py), then times each path cold (empty
cache) and warm (computed again: every notion list and vector from the cache). The baseline,
measured in the same run, is the same path through grading.msu alone (bench/msu.py's loop),
so the ratio is what the database and the cache add. Endpoint paths run against
tests/msu_fake_endpoint.py's local server with 20 ms per request, on the first 200 rows.
"""

from __future__ import annotations

import csv
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from benchdb import REPO_ROOT, bench_database, django_setup

BENCH_DB = "mathjury_bench_msu"
SAMPLES = REPO_ROOT.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
LATENCY = 0.02
ENDPOINT_ROWS = 200


def main() -> None:
    if not SAMPLES.exists():
        sys.exit(f"{SAMPLES} is missing: the benchmark reads the shared sample run")
    with (
        bench_database(BENCH_DB) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-msu-") as workdir,
    ):
        django_setup(url, Path(workdir))
        print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
        demo_figures()
        path_timings(Path(workdir))
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


def demo_figures() -> None:
    from django.contrib.auth import get_user_model

    from reviewer import services
    from reviewer.models import Item
    from reviewer.stats.msu import run_msu

    user = get_user_model().objects.create_user("bench", password="bench-only-password")
    run = services.demo_load(user=user)
    ids = list(Item.objects.filter(run=run).values_list("pk", flat=True))
    services.chunk_grade(run_id=run.pk, generation=1, item_ids=ids)
    services.msu_chunk(run_id=run.pk, item_ids=services.msu_rows_queue(run_id=run.pk))
    figures = run_msu(run=run)
    print(f"\ndemo run ({run.total_rows} rows): {figures.scored} scored, "
          f"{figures.no_score} without a score, {figures.errors} errors")  # fmt: skip
    for extractor, embedding in figures.methods:
        print(f"  notions: {extractor}; embedding: {embedding}")
    for title, estimates in (
        ("all rows", [figures.overall]),
        ("per model", figures.by_model),
        (f"per level ({figures.level_column})", figures.by_level),
    ):
        print(f"  {title}")
        for e in estimates:
            print(f"    {e.label:<24} mean MSU {e.value:.3f}  [{e.low:.3f}, {e.high:.3f}]  n {e.n}")
    print("  rows by final verdict and MSU band (low < 0.4, high >= 0.7): low / middle / high")
    for verdict, counts in figures.against_verdict:
        print(f"    {verdict:<10} {' / '.join(str(c) for c in counts)}")
    for title, examples in (
        ("right answers, lowest MSU", figures.right_low),
        ("wrong answers, highest MSU", figures.wrong_high),
    ):
        listed = ", ".join(f"row {row} ({score:.2f})" for _, row, score in examples)
        print(f"  {title}: {listed or 'none'}")


def sample_csv(rows: int | None = None) -> bytes:
    """The sample run with a ``solution`` column: each problem's sample 0 as its stand-in."""
    with open(SAMPLES, newline="", encoding="utf-8") as handle:
        records = list(csv.DictReader(handle))[:rows]
    human = {r["id"].split("-")[0]: r["output"] for r in records if r["sample_index"] == "0"}
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(["id", "gold", "output", "model", "solution"])
    for r in records:
        writer.writerow([r["id"], r["gold"], r["output"], r["model"], human[r["id"].split("-")[0]]])
    return out.getvalue().encode()


def path_timings(workdir: Path) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test.utils import override_settings
    from msu import CANNED_NOTIONS, score_rows, tiny_model2vec

    from grading.msu import HashedNotionEmbedder, LexicalExtractor, load_local_embedder
    from reviewer import services
    from reviewer.models import ItemMsu, Project
    from tests.msu_fake_endpoint import fake_openai_server

    user = get_user_model().objects.get(username="bench")
    project = Project.objects.create(name="bench", created_by=user)

    def upload(rows: int | None):
        path = workdir / f"sample-{rows}.csv"
        path.write_bytes(sample_csv(rows))
        stored = services.upload_store_path(path=path)
        return services.run_create(
            project=project, user=user, upload_token=stored.token, name=path.name,
            mapping={"id": "id", "gold": "gold", "output": "output", "model": "model",
                     "solution": "solution"},
        )  # fmt: skip

    def compute(run) -> float:
        ItemMsu.objects.filter(item__run=run).update(state="pending", attempts=0)
        ids = services.msu_rows_queue(run_id=run.pk)
        start = time.perf_counter()
        for offset in range(0, len(ids), settings.MATHJURY_CHUNK_SIZE):
            services.msu_chunk(
                run_id=run.pk, item_ids=ids[offset : offset + settings.MATHJURY_CHUNK_SIZE]
            )
        return time.perf_counter() - start

    def core_rows(run):
        return [
            (o, h)
            for o, h in run.items.order_by("row_number").values_list("output", "human_solution")
        ]

    full, endpoint_run = upload(None), upload(ENDPOINT_ROWS)
    model_dir = tiny_model2vec(workdir / "potion-sized")
    print(
        f"\nthe app's path, chunks of {settings.MATHJURY_CHUNK_SIZE} rows; baseline: grading.msu alone"
    )
    print(
        f"{'path':<26}{'rows':>6}{'cold ms/1k':>12}{'warm ms/1k':>12}{'core ms/1k':>12}{'cold/core':>10}"
    )

    def report(label, run, core_extractor, core_embedder, **overrides):
        with override_settings(**overrides):
            cold = compute(run)
            warm = compute(run)
        rows = core_rows(run)
        start = time.perf_counter()
        score_rows(rows, core_extractor, core_embedder)
        core = time.perf_counter() - start
        k = 1000 / len(rows) * 1000
        print(f"{label:<26}{len(rows):>6}{cold * k:>12.0f}{warm * k:>12.0f}{core * k:>12.0f}"
              f"{cold / core:>10.2f}")  # fmt: skip

    lexical = LexicalExtractor()
    report("lexical + hashed", full, lexical, HashedNotionEmbedder())
    report("lexical + model2vec", full, lexical, load_local_embedder(model_dir),
           MATHJURY_EMBEDDING_MODEL=str(model_dir))  # fmt: skip
    with fake_openai_server(
        lambda messages: CANNED_NOTIONS, latency=LATENCY, dimensions=256
    ) as fake:
        from grading.msu import ChatNotionExtractor, EndpointEmbedder
        from tests.msu_fake_endpoint import http_chat, http_embed

        chat = ChatNotionExtractor(http_chat(fake.base_url, "fake-chat"), "fake-chat")
        remote = EndpointEmbedder(http_embed(fake.base_url, "fake-embed"), "fake-embed")
        report("chat + hashed", endpoint_run, chat, HashedNotionEmbedder(),
               MATHJURY_MSU_BASE_URL=fake.base_url, MATHJURY_MSU_MODEL="fake-chat")  # fmt: skip
        report("lexical + /embeddings", endpoint_run, lexical, remote,
               MATHJURY_EMBEDDING_BASE_URL=fake.base_url,
               MATHJURY_EMBEDDING_ENDPOINT_MODEL="fake-embed")  # fmt: skip


if __name__ == "__main__":
    main()
