"""How long the stats page takes on a large run: 100,000 rows graded by 6 evaluators.

Creates its own database ``mathjury_bench_stats`` on the server named by DATABASE_URL, fills
it with a synthetic graded run (seeded: a hidden truth per row, evaluators with their own
error and no-answer rates, a jury majority, flags, and human reviews by up to three people on
flagged and audit rows), then requests the stats page several times and prints the median
server time and the number of queries, first with nothing cached (every request computes the
page from the run's items), then as reloads of the unchanged run (reviewer.stats.cache).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/stats.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from benchdb import bench_database, django_setup

BENCH_DB = os.environ.get("MATHJURY_BENCH_DB", "mathjury_bench_stats")
# evaluator -> (chance of a wrong verdict, chance of finding no answer)
EVALUATORS = {
    "math_verify": (0.03, 0.01),
    "math_verify_strict": (0.04, 0.06),
    "strict": (0.05, 0.15),
    "flex": (0.06, 0.01),
    "exact": (0.12, 0.02),
    "choice": (0.02, 0.92),
}
SUBJECTS = ("Algebra", "Geometry", "Number Theory", "Counting & Probability", "Precalculus")
ANSWER_TYPES = ("integer", "fraction", "expression", "decimal", "interval_or_set", "yes_no")
DETECTOR_REASONS = ("truncated", "hedged", "multiple_answers", "string_fallback")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    with (
        bench_database(BENCH_DB, keep=args.keep) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-stats-") as workdir,
    ):
        run_benchmark(url=url, workdir=Path(workdir), rows=args.rows, repeats=args.repeats)


def run_benchmark(*, url: str, workdir: Path, rows: int, repeats: int) -> None:
    django_setup(url, workdir)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import override_settings

    from reviewer.models import Run
    from reviewer.stats import run_stats

    started = time.perf_counter()
    run_id, user_id = build_run(connection, rows=rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(
        f"built a run of {rows:,} rows x {len(EVALUATORS)} evaluators in "
        f"{time.perf_counter() - started:.1f} s"
    )

    client = Client()
    client.force_login(get_user_model().objects.get(pk=user_id))
    url = f"/runs/{run_id}/stats/"
    static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    # Computed on every request (a cache that keeps nothing), then as a reload of a run
    # nobody changed meanwhile (the figures kept under the run's change count).
    nothing_kept = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    with override_settings(
        ALLOWED_HOSTS=["testserver"],
        STORAGES={**settings.STORAGES, "staticfiles": static},
        CACHES=nothing_kept,
    ):
        seconds, queries = _measure(client, url, repeats=repeats)
    print(
        f"stats page: median {statistics.median(seconds) * 1000:.0f} ms (fastest "
        f"{min(seconds) * 1000:.0f}, slowest {max(seconds) * 1000:.0f}) over {repeats} "
        f"requests, {len(queries)} queries (target < 300 ms)"
    )
    print("queries, ms:", ", ".join(f"{float(q['time']) * 1000:.0f}" for q in queries))
    with override_settings(
        ALLOWED_HOSTS=["testserver"], STORAGES={**settings.STORAGES, "staticfiles": static}
    ):
        seconds, queries = _measure(client, url, repeats=repeats + 1)
    kept = seconds[1:]  # the first request computes and keeps the figures
    print(
        f"stats page reloaded, run unchanged: median {statistics.median(kept) * 1000:.0f} ms "
        f"over {len(kept)} requests, {len(queries)} queries"
    )
    result = run_stats(run=Run.objects.get(pk=run_id))
    summary = result.summary
    print(
        f"rows {summary.graded:,}, jury accuracy {summary.auto.value:.3f}, final accuracy "
        f"{summary.final.value:.3f}, reviewed {summary.reviewed:,}, "
        f"consensus error {summary.consensus_error.value:.3f} (n {summary.consensus_error.n})"
    )


def _measure(client, url: str, *, repeats: int) -> tuple[list[float], list[dict]]:
    """Server time of each request (the test client runs the whole Django stack in-process)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    seconds = []
    for _ in range(repeats):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.get(url)
            seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
    return seconds, queries.captured_queries


def build_run(connection, *, rows: int) -> tuple[int, int]:
    """COPY a graded run with evaluations and reviews; returns (run id, first annotator id)."""
    from django.contrib.auth import get_user_model

    from reviewer import services
    from reviewer.models import Run

    annotators = [get_user_model().objects.create(username=f"annotator{n}") for n in range(3)]
    project = services.project_get_or_create(name="bench", user=annotators[0])
    run = Run.objects.create(
        project=project,
        name="bench: 100k rows",
        source_filename="bench.csv",
        source_sha256="0" * 64,
        evaluators=list(EVALUATORS),
        status=Run.Status.DONE,
        total_rows=rows,
    )
    rng = np.random.default_rng(20240601)
    truth = rng.random(rows) < 0.72
    answer_type = rng.choice(len(ANSWER_TYPES), size=rows, p=[0.5, 0.15, 0.15, 0.08, 0.07, 0.05])
    states = {}  # evaluator -> 2 correct, 1 incorrect, 0 no answer
    for name, (wrong, missing) in EVALUATORS.items():
        said_correct = np.where(rng.random(rows) < wrong, ~truth, truth)
        state = np.where(said_correct, 2, 1)
        states[name] = np.where(rng.random(rows) < missing, 0, state)
    verdicts = np.stack([states[name] for name in EVALUATORS])
    with_verdict = (verdicts > 0).sum(axis=0)
    correct_votes = (verdicts == 2).sum(axis=0)
    auto_correct = correct_votes * 2 > with_verdict
    disagree = (correct_votes > 0) & (correct_votes < with_verdict)
    detector = rng.random(rows) < 0.04
    needs_review = disagree | detector
    detector_reason = rng.integers(0, len(DETECTOR_REASONS), size=rows)
    informational = rng.random(rows) < 0.02

    item_ids = _copy_items(
        connection,
        run_id=run.pk,
        rows=rows,
        evaluator_scores=_evaluator_scores(states),
        answer_type=answer_type,
        auto_correct=auto_correct,
        disagree=disagree,
        needs_review=needs_review,
        detector=detector,
        detector_reason=detector_reason,
        informational=informational,
    )
    _copy_evaluations(connection, item_ids=item_ids, states=states)
    audit = ((item_ids * 2654435761) % 2**32) * 100 // 2**32 < 5
    reviewed = (needs_review & (rng.random(rows) < 0.4)) | (
        ~needs_review & audit & (rng.random(rows) < 0.6)
    )
    _copy_reviews(
        connection,
        rng=rng,
        item_ids=item_ids,
        truth=truth,
        reviewed=reviewed,
        annotator_ids=[a.pk for a in annotators],
    )
    return run.pk, annotators[0].pk


def _evaluator_scores(states: dict) -> list[str]:
    """Item.evaluator_scores of each row, as grading writes it: no answer scores incorrect."""
    from reviewer.models import EvaluatorScore, evaluator_scores_text

    by_state = {2: EvaluatorScore.CORRECT, 1: EvaluatorScore.INCORRECT, 0: EvaluatorScore.INCORRECT}
    rows = zip(*(states[name].tolist() for name in EVALUATORS), strict=True)
    return [
        evaluator_scores_text(
            {name: by_state[state] for name, state in zip(EVALUATORS, row, strict=True)}
        )
        for row in rows
    ]


def _copy_items(
    connection,
    *,
    run_id,
    rows,
    evaluator_scores,
    answer_type,
    auto_correct,
    disagree,
    needs_review,
    detector,
    detector_reason,
    informational,
) -> np.ndarray:
    from psycopg.types.json import Jsonb

    columns = (
        "run_id, row_number, source_line, external_id, problem, gold, output, model_name, "
        "subject, sample_index, finish_reason, extra, grade_state, grade_attempts, "
        "graded_generation, graded_at, answer_type, auto_verdict, needs_review, "
        "evaluators_disagree, review_reasons, evaluator_scores, final_verdict, final_source, "
        "version, review_stage, pair_key"
    )
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY reviewer_item ({columns}) FROM STDIN") as copy:
            for n in range(rows):
                reasons = []
                if disagree[n]:
                    reasons.append({"code": "evaluators_disagree", "message": "They disagree."})
                if detector[n]:
                    code = DETECTOR_REASONS[detector_reason[n]]
                    reasons.append({"code": code, "message": "A detector found it."})
                if informational[n]:
                    reasons.append({"code": "form_differs", "message": "Not simplified."})
                verdict = "correct" if auto_correct[n] else "incorrect"
                copy.write_row(
                    (
                        run_id,
                        n + 1,
                        n + 2,
                        f"p{n // 8}-{n % 8}",
                        "What is it?",
                        "42",
                        "The answer is 42.",
                        "bench-model",
                        SUBJECTS[n % len(SUBJECTS)],
                        n % 8,
                        "",
                        Jsonb({"level": f"Level {1 + n % 5}"}),
                        "graded",
                        1,
                        1,
                        "2024-06-01T00:00:00Z",
                        ANSWER_TYPES[answer_type[n]],
                        verdict,
                        bool(needs_review[n]),
                        bool(disagree[n]),
                        Jsonb(reasons),
                        evaluator_scores[n],
                        verdict,
                        "auto",
                        0,
                        "",
                        "",
                    )
                )
        cursor.execute(
            "SELECT id FROM reviewer_item WHERE run_id = %s ORDER BY row_number", [run_id]
        )
        return np.array([row[0] for row in cursor.fetchall()], dtype=np.int64)


def _copy_evaluations(connection, *, item_ids: np.ndarray, states: dict) -> None:
    columns = (
        "item_id, evaluator, evaluator_version, status, verdict, extracted, extracted_latex, "
        "gold_latex, ms, signals, detail"
    )
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY reviewer_evaluation ({columns}) FROM STDIN") as copy:
            for name, state in states.items():
                for item_id, value in zip(item_ids.tolist(), state.tolist(), strict=True):
                    status = "ok" if value else "no_answer"
                    verdict = ("", "incorrect", "correct")[value]
                    copy.write_row(
                        (item_id, name, "1", status, verdict, "42", "42", "42", 1.0, "[]", "")
                    )


def _copy_reviews(connection, *, rng, item_ids, truth, reviewed, annotator_ids) -> None:
    """The first annotator reviews each chosen row; a second (and third) re-review some."""
    from reviewer.models import Review

    reviews, finals = [], {}
    for index in np.flatnonzero(reviewed).tolist():
        correct = "correct" if truth[index] else "incorrect"
        people = 1 + int(rng.random() < 0.3) + int(rng.random() < 0.1)
        for annotator in annotator_ids[:people]:
            roll = rng.random()
            if roll < 0.03:
                verdict = "unclear"
            elif roll < 0.04:
                verdict = "gold_wrong"
            elif roll < 0.12:
                verdict = "incorrect" if correct == "correct" else "correct"
            else:
                verdict = correct
            item_id = int(item_ids[index])
            reviews.append(Review(item_id=item_id, annotator_id=annotator, verdict=verdict))
            finals[item_id] = verdict  # the newest review decides
    Review.objects.bulk_create(reviews, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE bench_final (item_id bigint PRIMARY KEY, verdict text)")
        with cursor.cursor.copy("COPY bench_final (item_id, verdict) FROM STDIN") as copy:
            for item_id, verdict in finals.items():
                copy.write_row((item_id, verdict))
        cursor.execute(
            "UPDATE reviewer_item SET final_verdict = f.verdict, final_source = 'human', "
            "version = 1 FROM bench_final f WHERE reviewer_item.id = f.item_id"
        )


if __name__ == "__main__":
    main()
