"""Time per 1,000 rows of each MSU path: notion extraction, embedding and the score.

Rows are the 800 Qwen2.5-Math outputs of ../shared/samples/qwen25_math_cot_100x8.csv. That file
has no human solutions, so each problem's sample 0 stands in for the human solution of its eight
rows; human notions are extracted once per distinct text and reused, as the cache will do.

Paths: the lexical extractor or a chat endpoint, times the hashed bag of notions, a model2vec
model (a 32,000-word, 256-dimension model written by tests/msu_tiny_model.py, the size of
potion-base-8M), or an /embeddings endpoint. The endpoints are tests/msu_fake_endpoint.py's
local server with a fixed latency per request. Baselines, measured in the same run: for the
offline paths, math-verify's ``parse`` of the same outputs (what grading already pays per row);
for the endpoint paths, bare requests to the same server, as many as the path makes. As a sanity
check of the offline paths, "MSU own" is the mean score of each output against its own problem's
stand-in, and "other" against another problem's.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from grading.msu import (  # noqa: E402
    ChatNotionExtractor,
    EndpointEmbedder,
    HashedNotionEmbedder,
    LexicalExtractor,
    load_local_embedder,
    msu_score,
)
from grading.msu.word_list import WORD, default_word_list  # noqa: E402
from tests.msu_fake_endpoint import fake_openai_server, http_chat, http_embed  # noqa: E402
from tests.msu_tiny_model import write_tiny_model2vec  # noqa: E402

SAMPLES = REPO_ROOT.parent / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
CANNED_NOTIONS = json.dumps(
    ["quadratic equation", "vieta's formulas", "factoring", "discriminant", "complex number",
     "modular arithmetic", "binomial coefficient", "probability", "right triangle", "area"]
)  # fmt: skip


def load_rows() -> list[tuple[str, str]]:
    """(model output, stand-in human solution) per row."""
    with open(SAMPLES, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    human = {r["id"].split("-")[0]: r["output"] for r in rows if r["sample_index"] == "0"}
    return [(r["output"], human[r["id"].split("-")[0]]) for r in rows]


def score_rows(rows, extractor, embedder) -> None:
    """MSU of every row; human notions are extracted once per distinct text."""
    human_cache: dict[str, object] = {}
    for output, human in rows:
        if human not in human_cache:
            human_cache[human] = extractor.extract(human)
        msu_score(extractor.extract(output), human_cache[human], embedder)


def separation(rows, extractor, embedder) -> tuple[float, float]:
    """Mean MSU of each output against its own problem's stand-in and against another problem's."""
    cache: dict[str, object] = {}
    humans = sorted({human for _, human in rows})
    same, other = [], []
    for number, (output, human) in enumerate(rows):
        if output == human:
            continue
        stranger = humans[(humans.index(human) + 1 + number % 7) % len(humans)]
        notions = [cache.setdefault(t, extractor.extract(t)) for t in (output, human, stranger)]
        same.append(msu_score(notions[0], notions[1], embedder).score)
        other.append(msu_score(notions[0], notions[2], embedder).score)
    return (
        statistics.mean(s for s in same if s is not None),
        statistics.mean(s for s in other if s is not None),
    )


def parse_outputs(rows) -> None:
    """The baseline of the offline paths: math-verify's parse of every output."""
    from math_verify import parse

    for output, _ in rows:
        parse(output)


def bare_requests(chat, count: int) -> None:
    """The baseline of the endpoint paths: as many requests, with nothing done around them."""
    for _ in range(count):
        chat([])


def timed(repeat: int, work: Callable[..., object], *args: object) -> float:
    """Median seconds of ``repeat`` runs of ``work(*args)``."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        work(*args)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def tiny_model2vec(folder: Path) -> Path:
    """A 32,000-word, 256-dimension word-level model: the word list's words, then filler."""
    words = sorted(
        {w for t in default_word_list().terms for p in t.phrases for w in WORD.findall(p)}
    )
    words += [str(n) for n in range(1000)]
    words += [f"filler{n:05d}" for n in range(32_000 - len(words))]
    write_tiny_model2vec(folder, words, dimensions=256, seed=0)
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per offline path (median)")
    parser.add_argument("--endpoint-rows", type=int, default=200, help="rows per endpoint path")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="fake endpoint latency")
    args = parser.parse_args()
    if not SAMPLES.exists():
        sys.exit(f"{SAMPLES} is missing: the benchmark reads the shared sample run")

    rows = load_rows()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start")
    print(f"{len(rows)} rows; {len({h for _, h in rows})} distinct human solutions")

    baseline = timed(args.repeat, parse_outputs, rows)
    per_k = 1000 / len(rows)
    print(
        f"\nbaseline: math-verify parse of each output  {baseline * per_k * 1000:9.0f} ms / 1,000 rows"
    )

    lexical = LexicalExtractor()
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        model2vec = load_local_embedder(tiny_model2vec(Path(scratch) / "potion-sized"))
        load_seconds = time.perf_counter() - start
    print(f"model2vec model written and loaded in {load_seconds:.2f} s ({model2vec.name})")

    print(f"\n{'path':<36}{'ms / 1,000 rows':>16}{'x baseline':>12}{'MSU own':>9}{'other':>7}")
    for label, embedder in (
        ("lexical + hashed", HashedNotionEmbedder()),
        ("lexical + model2vec", model2vec),
    ):
        seconds = timed(args.repeat, score_rows, rows, lexical, embedder)
        own, other = separation(rows, lexical, embedder)
        print(f"{label:<36}{seconds * per_k * 1000:>16.0f}{seconds / baseline:>12.2f}"
              f"{own:>9.2f}{other:>7.2f}")  # fmt: skip

    long_solution = (rows[0][0] + "\n") * (100_000 // len(rows[0][0]) + 1)
    seconds = timed(args.repeat, lexical.extract, long_solution[:100_000])
    short = timed(args.repeat, lexical.extract, long_solution[:10_000])
    print(f"lexical extraction of one 100,000-character text: {seconds * 1000:.1f} ms "
          f"({seconds / short:.1f}x the first 10,000 characters)")  # fmt: skip

    endpoint_rows = rows[: args.endpoint_rows]
    latency = args.latency_ms / 1000
    print(
        f"\nendpoints: {len(endpoint_rows)} rows against a local fake with {args.latency_ms:.0f} ms per request"
    )
    print(
        f"{'path':<36}{'ms / 1,000 rows':>16}{'requests':>10}{'bare ms / 1,000':>17}{'x bare':>8}"
    )
    with fake_openai_server(
        lambda messages: CANNED_NOTIONS, latency=latency, dimensions=256
    ) as fake:
        chat = ChatNotionExtractor(http_chat(fake.base_url, "fake-chat"), "fake-chat")
        remote = EndpointEmbedder(http_embed(fake.base_url, "fake-embed"), "fake-embed")
        bare = http_chat(fake.base_url, "fake-chat")
        for label, extractor, embedder in (
            ("chat + hashed", chat, HashedNotionEmbedder()),
            ("chat + model2vec", chat, model2vec),
            ("lexical + /embeddings", lexical, remote),
            ("chat + /embeddings", chat, remote),
        ):
            before = len(fake.requests)
            seconds = timed(1, score_rows, endpoint_rows, extractor, embedder)
            requests = len(fake.requests) - before
            bare_seconds = timed(1, bare_requests, bare, requests)
            scale = 1000 / len(endpoint_rows) * 1000
            print(f"{label:<36}{seconds * scale:>16.0f}{requests:>10}{bare_seconds * scale:>17.0f}"
                  f"{seconds / bare_seconds:>8.2f}")  # fmt: skip
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
