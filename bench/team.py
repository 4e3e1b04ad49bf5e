"""How the team-review features hold up on a large project: splitting the queue, blind
reviews, an equivalence ruling on many rows and its undo, and the audit trail's pages.

Creates its own database ``mathjury_bench_team`` on the server named by DATABASE_URL and
COPYs a graded run of --rows rows into a project with four annotators and an adjudicator:
about one row in ten flagged, and one (gold, prediction) pair shared by a tenth of the rows,
none of them flagged or decided. Then it times, in this order: ``run_assign`` splitting the
queue among the four with two blind reviews per flagged row; 200 ``item_review`` calls (blind
verdicts, each written with its audit event) and 200 item-page requests on blind rows;
``ruling_apply`` on the shared pair and ``ruling_undo`` of it; and, with the audit table
filled to about 1.3 events per row, the project's audit page and its API.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python bench/team.py
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from benchdb import bench_database, django_setup

BENCH_DB = "mathjury_bench_team"
EVALUATORS = ("exact", "math_verify", "strict")
ANNOTATORS = 4
REVIEWS = 200
PAGE_REPEATS = 5
SHARED_GOLD, SHARED_PREDICTION = "0.5", "\\frac{1}{2}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    with (
        bench_database(BENCH_DB, keep=args.keep) as url,
        tempfile.TemporaryDirectory(prefix="mathjury-bench-team-") as workdir,
    ):
        run_benchmark(url=url, workdir=Path(workdir), rows=args.rows)


def run_benchmark(*, url: str, workdir: Path, rows: int) -> None:
    django_setup(url, workdir)
    from django.conf import settings
    from django.test.utils import override_settings

    from reviewer.models import AuditEvent

    started = time.perf_counter()
    team = build_project(rows=rows)
    print(
        f"built a run of {rows:,} rows ({team.flagged:,} flagged, {team.shared:,} sharing one "
        f"pair) in {time.perf_counter() - started:.1f} s"
    )

    static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    with override_settings(
        ALLOWED_HOSTS=["testserver"], STORAGES={**settings.STORAGES, "staticfiles": static}
    ):
        lines = [
            measure_assign(team),
            *measure_reviews(team),
            *measure_ruling(team),
        ]
        events = audit_fill(team, total=round(rows * 1.3))
        lines += measure_audit(team)

    print(f"\naudit events in the table: {AuditEvent.objects.count():,} (filled to {events:,})")
    print(f"{'what':<44}{'median':>10}{'p95':>10}{'queries':>9}  notes")
    for what, median, p95, queries, notes in lines:
        p95_text = f"{p95 * 1000:>7.0f} ms" if p95 is not None else f"{'':>10}"
        print(f"{what:<44}{median * 1000:>7.0f} ms{p95_text}{queries:>9}  {notes}")


@dataclass(frozen=True)
class Team:
    """The project under test, its run and the people in it."""

    project: object
    run: object
    owner: object
    annotators: list
    adjudicator: object
    flagged: int  # rows with needs_review
    shared: int  # rows with the shared (gold, prediction) pair


def build_project(*, rows: int) -> Team:
    """A project with one graded run COPYed in, four annotators and an adjudicator."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from reviewer import services
    from reviewer.models import Membership, Run

    users = get_user_model().objects
    owner = users.create(username="owner")
    project = services.project_get_or_create(name="bench team", user=owner)
    annotators = [users.create(username=f"annotator{n}") for n in range(1, ANNOTATORS + 1)]
    adjudicator = users.create(username="adjudicator")
    for user in annotators:
        services.membership_set(
            project=project, user=user, role=Membership.Role.ANNOTATOR, by=owner
        )
    services.membership_set(
        project=project, user=adjudicator, role=Membership.Role.ADJUDICATOR, by=owner
    )
    run = Run.objects.create(
        project=project,
        name="bench: team review",
        source_filename="bench.csv",
        source_sha256="0" * 64,
        evaluators=list(EVALUATORS),
        status=Run.Status.DONE,
        total_rows=rows,
    )
    flagged, shared = _copy_items(connection, run_id=run.pk, rows=rows)
    _copy_evaluations(connection, run_id=run.pk)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return Team(
        project=project,
        run=run,
        owner=owner,
        annotators=annotators,
        adjudicator=adjudicator,
        flagged=flagged,
        shared=shared,
    )


def _row_pair(n: int) -> tuple[str, str]:
    """Row n's (gold, prediction): every tenth row (n % 10 == 5) has the shared pair, the rest
    eight samples of a problem, each with its own answer."""
    if n % 10 == 5:
        return SHARED_GOLD, SHARED_PREDICTION
    return str(n // 8), str(n // 8 + n % 8)


def _copy_items(connection, *, run_id: int, rows: int) -> tuple[int, int]:
    """COPY graded rows: one in ten flagged (n % 10 == 0), never a row of the shared pair.
    Returns (flagged rows, rows with the shared pair)."""
    from psycopg.types.json import Jsonb

    from grading.pairs import pair_key

    columns = (
        "run_id, row_number, source_line, external_id, problem, gold, output, model_name, "
        "subject, sample_index, finish_reason, extra, grade_state, grade_attempts, "
        "graded_generation, graded_at, answer_type, auto_verdict, needs_review, "
        "evaluators_disagree, review_reasons, evaluator_scores, final_verdict, final_source, "
        "version, review_stage, pair_key"
    )
    disagree = [{"code": "evaluators_disagree", "message": "They disagree."}]
    flagged = shared = 0
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY reviewer_item ({columns}) FROM STDIN") as copy:
            for n in range(rows):
                gold, prediction = _row_pair(n)
                needs_review = n % 10 == 0
                flagged += needs_review
                shared += gold == SHARED_GOLD
                verdict = "correct" if n % 4 else "incorrect"
                copy.write_row(
                    (
                        run_id,
                        n + 1,
                        n + 2,
                        f"p{n // 8}-{n % 8}",
                        f"What is {gold}?",
                        gold,
                        f"The answer is $\\boxed{{{prediction}}}$.",
                        "bench-model",
                        "Algebra",
                        n % 8,
                        "",
                        Jsonb({}),
                        "graded",
                        1,
                        1,
                        "2026-11-01T00:00:00Z",
                        "fraction",
                        verdict,
                        needs_review,
                        needs_review,
                        Jsonb(disagree if needs_review else []),
                        " ".join(f"{name}:{verdict[0]}" for name in EVALUATORS),
                        verdict,
                        "auto",
                        0,
                        "",
                        pair_key(gold, prediction),
                    )
                )
    return flagged, shared


def _copy_evaluations(connection, *, run_id: int) -> None:
    """Every evaluator extracted the row's prediction (so ``pair_key`` matches what is shown)."""
    columns = (
        "item_id, evaluator, evaluator_version, status, verdict, extracted, extracted_latex, "
        "gold_latex, ms, signals, detail"
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, gold, auto_verdict, row_number FROM reviewer_item WHERE run_id = %s",
            [run_id],
        )
        items = cursor.fetchall()
        with cursor.cursor.copy(f"COPY reviewer_evaluation ({columns}) FROM STDIN") as copy:
            for item_id, gold, verdict, row_number in items:
                _, prediction = _row_pair(row_number - 1)
                for name in EVALUATORS:
                    copy.write_row(
                        (item_id, name, "1", "ok", verdict, prediction, prediction, gold, 1.0)
                        + ("[]", "")
                    )


def measure_assign(team: Team) -> tuple:
    """run_assign: the review queue split four ways, flagged rows to two annotators each."""
    from reviewer.services.assignments import run_assign

    with timed_queries() as queries:
        started = time.perf_counter()
        result = run_assign(
            run=team.run,
            shares=dict.fromkeys(team.annotators, 1),
            reviews_per_flagged_row=2,
            by=team.owner,
        )
        seconds = time.perf_counter() - started
    handed = sum(result.per_annotator.values())
    return (
        "run_assign (4 annotators, 2 per flagged row)",
        seconds,
        None,
        len(queries),
        f"{result.rows:,} rows, {handed:,} assignments, {result.blind_rows:,} blind",
    )


def measure_reviews(team: Team) -> list[tuple]:
    """item_review by each assignee of the first blind rows (nine in ten agree), then the item
    page of other blind rows as one of their assignees would open it."""
    from django.test import Client

    from reviewer import access
    from reviewer.models import Assignment, Item
    from reviewer.services import item_review

    by_item: dict[int, list] = {}
    for assignment in (
        Assignment.objects.filter(item__run=team.run, item__review_stage=Item.ReviewStage.BLIND)
        .select_related("annotator")
        .order_by("item_id", "annotator__username")[: 4 * REVIEWS]
    ):
        by_item.setdefault(assignment.item_id, []).append(assignment.annotator)
    blind_rows = list(by_item.items())
    to_review, to_open = blind_rows[: REVIEWS // 2], blind_rows[REVIEWS // 2 :][:REVIEWS]

    review_seconds, review_queries = [], []
    for position, (item_id, assignees) in enumerate(to_review):
        for who, user in enumerate(assignees):
            verdict = "incorrect" if who and position % 10 == 0 else "correct"
            item = Item.objects.get(pk=item_id)
            role = access.role_in(user, team.project)
            with timed_queries() as queries:
                started = time.perf_counter()
                item_review(item=item, user=user, verdict=verdict, role=role)
                review_seconds.append(time.perf_counter() - started)
            review_queries.append(len(queries))
    conflicts = Item.objects.filter(review_stage=Item.ReviewStage.CONFLICT).count()

    clients = {}
    for user in team.annotators:
        clients[user.pk] = Client()
        clients[user.pk].force_login(user)
    page_seconds, page_queries = [], []
    for item_id, assignees in to_open:
        with timed_queries() as queries:
            started = time.perf_counter()
            response = clients[assignees[0].pk].get(f"/items/{item_id}/")
            page_seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
        page_queries.append(len(queries))
    return [
        (
            f"item_review, blind ({len(review_seconds)} calls)",
            statistics.median(review_seconds),
            _p95(review_seconds),
            int(statistics.median(review_queries)),
            f"{len(to_review)} rows settled, {conflicts} in conflict",
        ),
        (
            f"GET /items/<id>/, blind row ({len(page_seconds)})",
            statistics.median(page_seconds),
            _p95(page_seconds),
            int(statistics.median(page_queries)),
            "as an assignee, before their verdict",
        ),
    ]


def measure_ruling(team: Team) -> list[tuple]:
    """The adjudicator decides one row of the shared pair, rules on the pair, then undoes it."""
    from reviewer.models import Item, Membership
    from reviewer.services import item_review
    from reviewer.services.rulings import ruling_apply, ruling_undo

    source = Item.objects.filter(run=team.run, gold=SHARED_GOLD).order_by("row_number").first()
    item_review(
        item=source,
        user=team.adjudicator,
        verdict="correct",
        role=Membership.Role.ADJUDICATOR,
    )
    with timed_queries() as apply_queries:
        started = time.perf_counter()
        ruling = ruling_apply(item=source, user=team.adjudicator)
        apply_seconds = time.perf_counter() - started
    with timed_queries() as undo_queries:
        started = time.perf_counter()
        ruling = ruling_undo(ruling=ruling, user=team.adjudicator)
        undo_seconds = time.perf_counter() - started
    return [
        (
            "ruling_apply",
            apply_seconds,
            None,
            len(apply_queries),
            f"{ruling.rows_applied:,} rows, {ruling.rows_applied / apply_seconds:,.0f} rows/s",
        ),
        (
            "ruling_undo",
            undo_seconds,
            None,
            len(undo_queries),
            f"{ruling.rows_restored:,} rows, {ruling.rows_restored / undo_seconds:,.0f} rows/s",
        ),
    ]


def audit_fill(team: Team, *, total: int) -> int:
    """COPY older events until the table holds ``total``: per row, verdicts and blind verdicts
    by the annotators, as months of reviewing would leave. Returns the count."""
    from django.db import connection
    from psycopg.types.json import Jsonb

    from reviewer.models import AuditEvent, Item

    missing = total - AuditEvent.objects.count()
    items = list(
        Item.objects.filter(run=team.run).order_by("row_number").values_list("pk", "row_number")
    )
    columns = (
        "at, actor_id, actor_name, action, project_id, project_name, run_id, item_id, summary, data"
    )
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY reviewer_auditevent ({columns}) FROM STDIN") as copy:
            for n in range(max(0, missing)):
                item_id, row_number = items[n % len(items)]
                user = team.annotators[n % len(team.annotators)]
                blind = n % 3 == 0
                copy.write_row(
                    (
                        "2026-10-01T00:00:00Z",
                        user.pk,
                        user.username,
                        "blind_verdict" if blind else "verdict",
                        team.project.pk,
                        team.project.name,
                        team.run.pk,
                        item_id,
                        f"Row {row_number}: reviewed as “Correct”",
                        Jsonb({"verdict": "correct"} if blind else {"after": "correct"}),
                    )
                )
        cursor.execute("ANALYZE")  # the split changed 10% of the rows' review_stage
    return total


def measure_audit(team: Team) -> list[tuple]:
    """The first page of the project's audit trail, on the site and in the API, as an
    annotator (others' blind verdicts on still-blind rows filtered out) and an adjudicator."""
    from django.test import Client

    lines = []
    for who, user in (("annotator", team.annotators[0]), ("adjudicator", team.adjudicator)):
        client = Client()
        client.force_login(user)
        for url in (
            f"/projects/{team.project.pk}/audit/",
            f"/api/projects/{team.project.pk}/audit/",
        ):
            seconds = []
            for _ in range(PAGE_REPEATS):
                with timed_queries() as queries:
                    started = time.perf_counter()
                    response = client.get(url)
                    seconds.append(time.perf_counter() - started)
                assert response.status_code == 200, (url, response.status_code)
            slowest = max(queries)
            lines.append(
                (
                    f"GET {url.replace(str(team.project.pk), '<id>')} ({who})",
                    statistics.median(seconds),
                    None,
                    len(queries),
                    f"median of {PAGE_REPEATS}; slowest query {slowest:.0f} ms",
                )
            )
    return lines


@contextmanager
def timed_queries() -> Iterator[list[float]]:
    """Milliseconds of each query run inside; unlike CaptureQueriesContext, not limited to
    Django's last 9,000 queries."""
    from django.db import connection

    times: list[float] = []

    def timed(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            times.append((time.perf_counter() - started) * 1000)

    with connection.execute_wrapper(timed):
        yield times


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


if __name__ == "__main__":
    main()
