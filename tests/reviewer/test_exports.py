"""Export jobs from one snapshot, round trips through upload, and the export pages and
commands."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from reviewer import services
from reviewer.models import Export, Item, Review, Run
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from reviewer.services.exports import formats
from reviewer.services.exports import rows as export_rows_module
from tests.factories import (
    GradedItemFactory,
    ProjectFactory,
    ReviewFactory,
    RunFactory,
    grade_in_process,
)
from tests.reviewer.test_export_formats import parse_csv, strict_json

# SQLite (development) has no snapshot isolation: its exports read committed rows as they go.
_SNAPSHOTS_ARE_POSTGRESQLS = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="an export's snapshot is PostgreSQL's"
)

# Hugging Face datasets must only read the local files it is given.
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

# Text a spreadsheet must see as text, and code must get back byte for byte.
HOSTILE_CSV = (
    "id,problem,gold,output,difficulty\r\n"
    'h1,"Half of $-1$?",-1/2,"so the answer is $\\boxed{-\\frac{1}{2}}$",easy\r\n'
    'h2,"line one\r\nline two\rbare CR",=1+2,"@SUM(1+1) and \u2028 then ""quoted""",hard\r\n'
    'h3,Emoji \U0001f600 and tab\there,+7,"-7",\r\n'
).encode()


@pytest.fixture
def graded_demo_run(user) -> Run:
    """The demo run graded in this process, with three human decisions."""
    run = services.demo_load(user=user)
    grade_in_process(run)
    items = list(run.items.order_by("row_number"))
    services.item_review(item=items[3], user=user, verdict="gold_wrong", note="gold is 12")
    services.item_review(item=items[0], user=user, verdict="incorrect", note="misread")
    services.item_review(item=items[5], user=user, verdict="unclear")
    run.refresh_from_db()
    return run


def export_now(run: Run, user, format: str, variant: str = "raw", **filters) -> Export:
    job = exports.export_start(
        run=run,
        user=user,
        format=format,
        variant=variant,
        filters=ItemFilters(**filters),
        in_background=False,
    )
    return exports.export_write(export_id=job.pk)


@pytest.fixture
def export_dir(settings, tmp_path) -> Path:
    settings.MATHJURY_EXPORT_DIR = tmp_path / "exports"
    return settings.MATHJURY_EXPORT_DIR


def jsonl_rows(path: Path) -> list[dict]:
    return [strict_json(line) for line in path.read_text("ascii").splitlines()]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "variant"),
    [("csv", "raw"), ("csv", "spreadsheet"), ("jsonl", "raw"), ("parquet", "raw")],
)
def test_gold_errata_are_the_bytes_of_an_export_of_the_gold_wrong_rows_alone(
    graded_demo_run, user, export_dir, monkeypatch, format, variant
):
    # Given gold-wrong rows here and there (and Parquet row groups of two rows)
    monkeypatch.setattr(formats, "ROWS_PER_GROUP", 2)
    run = graded_demo_run
    for item in run.items.order_by("row_number")[6:12:2]:
        services.item_review(item=item, user=user, verdict="gold_wrong", note='"=wrong",\n')

    # When the export job writes the run (the errata picked from the same rows as they pass)
    job = export_now(run, user, format, variant)

    # Then the errata file is what exporting only the gold-wrong rows writes, byte for byte
    schema = exports.export_schema(run=run)
    gold_wrong = exports.export_items(run=run, filters=ItemFilters()).filter(
        final_verdict="gold_wrong"
    )
    safe = variant == "spreadsheet"
    alone = formats.encode_records(
        exports.export_records(
            items=gold_wrong, schema=schema, format=format, spreadsheet_safe=safe
        ),
        schema,
        format=format,
        spreadsheet_safe=safe,
    )
    assert exports.export_path(job, "errata").read_bytes() == b"".join(alone)
    assert job.errata_rows == gold_wrong.count() == 4


@pytest.mark.django_db
def test_export_job_writes_the_rows_gold_errata_and_card(graded_demo_run, user, export_dir):
    run = graded_demo_run

    job = export_now(run, user, "jsonl")

    # Then every row is there with every evaluator's verdict, the jury's and the final one
    rows = jsonl_rows(exports.export_path(job, "data"))
    assert job.status == Export.Status.DONE and job.rows_done == len(rows) == run.total_rows
    by_id = {row["id"]: row for row in rows}
    first = by_id["demo-01"]
    for name in run.evaluators:
        assert first[f"eval_{name}_status"] in {"ok", "no_answer", "parse_error", "timeout"}
    assert (first["final_verdict"], first["final_source"]) == ("incorrect", "human")
    assert (first["reviewed_by"], first["review_note"]) == (user.username, "misread")
    assert first["jury_verdict"] == "correct"
    # and the gold errata file holds exactly the row marked gold-wrong
    errata = jsonl_rows(exports.export_path(job, "errata"))
    assert [row["id"] for row in errata] == ["demo-04"]
    assert errata[0]["review_note"] == "gold is 12"
    # and the card's numbers are the run's
    card = json.loads(exports.export_path(job, "card.json").read_text())
    jury_correct = sum(row["jury_verdict"] == "correct" for row in rows)
    jury_decided = sum(row["jury_verdict"] in ("correct", "incorrect") for row in rows)
    final_correct = sum(row["final_verdict"] == "correct" for row in rows)
    final_decided = sum(row["final_verdict"] in ("correct", "incorrect") for row in rows)
    assert card["counts"]["rows"] == run.total_rows
    assert card["counts"]["reviewed_by_a_person"] == 3
    assert card["counts"]["gold_errata"] == 1
    assert card["accuracy"]["before_adjudication"] == round(jury_correct / jury_decided, 6)
    assert card["accuracy"]["after_adjudication"] == round(final_correct / final_decided, 6)
    assert card["review"]["reviewers"] == {user.username: 3}
    assert set(card["evaluator_versions"]) == set(run.evaluators)
    markdown = exports.export_path(job, "card.md").read_text()
    assert "## Accuracy" in markdown and run.name in markdown


@pytest.mark.django_db
def test_export_of_reviewed_rows_only_holds_just_those(graded_demo_run, user, export_dir):
    job = export_now(graded_demo_run, user, "csv", reviewed=True)

    rows = parse_csv(exports.export_path(job, "data").read_bytes())

    header = rows[0]
    ids = sorted(row[header.index("id")] for row in rows[1:])
    assert ids == ["demo-01", "demo-04", "demo-06"]
    assert job.card["export"]["filters"] == {"reviewed": True}


@pytest.mark.django_db
def test_demo_exports_open_in_pandas_and_hugging_face_datasets(
    graded_demo_run, user, export_dir, tmp_path
):
    import datasets
    import pandas as pd

    jsonl = exports.export_path(export_now(graded_demo_run, user, "jsonl"), "data")
    parquet = exports.export_path(export_now(graded_demo_run, user, "parquet"), "data")

    frames = [pd.read_json(jsonl, lines=True, dtype=False), pd.read_parquet(parquet)]
    for frame in frames:
        assert len(frame) == graded_demo_run.total_rows
        assert frame.loc[frame["id"] == "demo-04", "final_verdict"].item() == "gold_wrong"
        assert frame["jury_needs_review"].dtype == bool
    loaded = [
        datasets.load_dataset("json", data_files=str(jsonl), split="train", cache_dir=tmp_path),
        datasets.load_dataset(
            "parquet", data_files=str(parquet), split="train", cache_dir=tmp_path
        ),
    ]
    for dataset in loaded:
        assert dataset.num_rows == graded_demo_run.total_rows
        assert dataset.filter(lambda row: row["id"] == "demo-01")[0]["review_note"] == "misread"
        assert dataset.features["jury_reasons"].feature.dtype == "string"


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["jsonl", "csv"])
def test_an_export_uploads_again_as_a_run_with_the_same_content(
    format, user, store_upload, export_dir
):
    # Given a run made from a file full of formula-looking text, CRs and Unicode
    stored = store_upload(HOSTILE_CSV, "hostile.csv")
    project = ProjectFactory()
    run = services.run_upload(
        stored=stored, project_name=project.name, user=user, name="hostile"
    ).run

    # When it is exported (raw) and the export is uploaded again with the guessed mapping
    data = exports.export_path(export_now(run, user, format), "data").read_bytes()
    again = store_upload(data, f"again.{format}")
    copy = services.run_upload(stored=again, project_name=project.name, user=user, name="again").run

    # Then every row's problem, gold, output, id and other columns are the same
    fields = ["row_number", "external_id", "problem", "gold", "output", "sample_index"]
    original = list(run.items.order_by("row_number").values(*fields, "extra"))
    copied = list(copy.items.order_by("row_number").values(*fields, "extra"))
    assert [{f: r[f] for f in fields} for r in copied] == [
        {f: r[f] for f in fields} for r in original
    ]
    assert original[1]["problem"] == "line one\r\nline two\rbare CR"
    for before, after in zip(original, copied, strict=True):
        assert before["extra"].items() <= after["extra"].items()


@pytest.mark.django_db
def test_raw_csv_keeps_quoted_crlf_and_bare_cr_bytes(user, store_upload, export_dir):  # C6
    stored = store_upload(HOSTILE_CSV, "hostile.csv")
    run = services.run_upload(
        stored=stored, project_name=ProjectFactory().name, user=user, name="h"
    ).run

    data = exports.export_path(export_now(run, user, "csv"), "data").read_bytes()

    assert b'"line one\r\nline two\rbare CR"' in data
    assert b",-1/2," in data and b",=1+2," in data


@pytest.mark.django_db
def test_streaming_rows_takes_the_same_queries_for_5_or_50_items(django_assert_num_queries):
    def queries_for(count: int) -> None:
        run = RunFactory()
        for n in range(count):
            item = GradedItemFactory(run=run, row_number=n + 1)
            ReviewFactory(item=item)
        schema = formats.dataset_schema(evaluators=run.evaluators, extra_keys=[])
        items = exports.export_items(run=run, filters=ItemFilters())
        # one query for the items, one for their evaluations, one for their reviews
        with django_assert_num_queries(3):
            rows = list(exports.export_rows(items=items, schema=schema))
        assert len(rows) == count

    queries_for(5)
    queries_for(50)


def graded_rows(run: Run, count: int) -> None:
    """``count`` rows graded correct by the jury, inserted at once."""
    Item.objects.bulk_create(
        Item(
            run=run,
            row_number=n,
            source_line=n + 1,
            gold="1",
            output="1",
            grade_state=Item.GradeState.GRADED,
            auto_verdict="correct",
            final_verdict="correct",
            final_source=Item.FinalSource.AUTO,
        )
        for n in range(1, count + 1)
    )


@pytest.mark.django_db(transaction=True)
@_SNAPSHOTS_ARE_POSTGRESQLS
def test_an_export_is_one_snapshot_while_reviewers_keep_saving(user, export_dir, monkeypatch):
    # D4. Given a run of 3000 rows, read 100 at a time
    monkeypatch.setattr(export_rows_module, "ROWS_PER_QUERY", 100)
    run = RunFactory(status=Run.Status.DONE, total_rows=3000)
    graded_rows(run, 3000)
    job = exports.export_start(
        run=run,
        user=user,
        format="jsonl",
        variant="raw",
        filters=ItemFilters(),
        in_background=False,
    )
    # and a reviewer marking rows "gold is wrong", first rows first, until the export ends
    finished = threading.Event()

    def reviewer() -> None:
        try:
            for item in Item.objects.filter(run=run).order_by("row_number"):
                if finished.is_set():
                    break
                services.item_review(item=item, user=user, verdict="gold_wrong")
        finally:
            connection.close()

    thread = threading.Thread(target=reviewer)
    thread.start()
    try:
        while not Review.objects.filter(item__run=run).exists():
            pass
        # When the export is written meanwhile
        job = exports.export_write(export_id=job.pk)
    finally:
        finished.set()
        thread.join()

    # Then reviews were saved during the export, which saw none of them half-way: the data,
    # the gold errata and the card agree row for row
    saved_during = Review.objects.filter(
        item__run=run, created_at__gt=job.started_at, created_at__lt=job.finished_at
    )
    assert saved_during.exists()
    rows = jsonl_rows(exports.export_path(job, "data"))
    gold_wrong = {r["item_id"] for r in rows if r["final_verdict"] == "gold_wrong"}
    assert all((r["final_source"] == "human") == (r["review_count"] > 0) for r in rows)
    errata = {r["item_id"] for r in jsonl_rows(exports.export_path(job, "errata"))}
    assert errata == gold_wrong
    assert job.card["counts"]["gold_errata"] == len(gold_wrong) == job.errata_rows


@pytest.mark.django_db(transaction=True)
@_SNAPSHOTS_ARE_POSTGRESQLS
def test_a_direct_download_is_one_snapshot_while_a_reviewer_saves(user, monkeypatch):
    # D4 for exports streamed without a job. Given 300 rows, read and sent 100 at a time
    monkeypatch.setattr(export_rows_module, "ROWS_PER_QUERY", 100)
    monkeypatch.setattr(formats, "ROWS_PER_CHUNK", 100)
    run = RunFactory(status=Run.Status.DONE, total_rows=300)
    graded_rows(run, 300)
    late = Item.objects.get(run=run, row_number=250)

    # When the download has sent its first rows, and a reviewer then decides row 250
    streamed = exports.export_stream(
        run=run, user=user, format="jsonl", variant="raw", filters=ItemFilters()
    )
    first = next(streamed.chunks)

    def reviewer() -> None:
        try:
            services.item_review(item=late, user=user, verdict="gold_wrong")
        finally:
            connection.close()

    thread = threading.Thread(target=reviewer)
    thread.start()
    thread.join()
    body = first + b"".join(streamed.chunks)

    # Then the file shows every row as it was when the download began: row 250 as graded,
    # with no review, never its new review beside its old verdict
    assert Review.objects.filter(item=late).exists()
    rows = {r["row_number"]: r for r in map(json.loads, body.decode().splitlines())}
    assert len(rows) == 300
    assert (rows[250]["final_source"], rows[250]["review_count"]) == ("auto", 0), rows[250]


# ---- pages ----------------------------------------------------------------------------------


@pytest.fixture
def reviewer_client(client, user):
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.mark.django_db
def test_run_page_offers_the_export_form(reviewer_client):
    run = RunFactory()
    body = reviewer_client.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert f'action="{reverse("export_create", args=[run.pk])}"' in body
    assert 'value="parquet"' in body and 'value="spreadsheet"' in body


@pytest.mark.django_db
def test_a_small_export_downloads_at_once(reviewer_client, export_dir):
    # Given a run of two rows
    run = RunFactory(name="Tiny run")
    GradedItemFactory(run=run, row_number=1, gold="=1+2")
    GradedItemFactory(run=run, row_number=2)

    # When the reviewer asks for a spreadsheet CSV download
    response = reviewer_client.post(
        reverse("export_create", args=[run.pk]),
        {"format": "csv", "variant": "spreadsheet", "rows": "all", "how": "download"},
    )

    # Then the file streams back with its name, formulas neutralised, and no job is recorded
    assert response.status_code == 200 and response.streaming
    assert f"run-{run.pk}-tiny-run-spreadsheet.csv" in response["Content-Disposition"]
    rows = parse_csv(b"".join(response.streaming_content))
    assert len(rows) == 3 and "'=1+2" in rows[1]
    assert not Export.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "suffix"),
    [("csv", "-spreadsheet.csv"), ("jsonl", ".jsonl"), ("parquet", ".parquet")],
)
def test_only_csv_downloads_are_named_for_the_spreadsheet_variant(
    reviewer_client, export_dir, format, suffix
):  # issue 15, part 5
    # Given a run, and the form's default variant (spreadsheet) left as it is
    run = RunFactory(name="Tiny run")
    GradedItemFactory(run=run, row_number=1, gold="-4")

    # When the reviewer downloads each format
    response = reviewer_client.post(
        reverse("export_create", args=[run.pk]),
        {"format": format, "variant": "spreadsheet", "rows": "all", "how": "download"},
    )

    # Then only the CSV's name says "spreadsheet", since the variant changes only CSV files
    assert response["Content-Disposition"].endswith(f'run-{run.pk}-tiny-run{suffix}"')
    if format == "csv":  # and a plain negative number stays a number
        assert parse_csv(b"".join(response.streaming_content))[1][5] == "-4"


@pytest.mark.django_db
def test_a_large_export_runs_as_a_job_with_progress_and_links(
    reviewer_client, user, settings, export_dir, django_capture_on_commit_callbacks
):
    # Given streaming stops at one row, and a run of two
    settings.MATHJURY_EXPORT_STREAM_MAX_ROWS = 1
    run = RunFactory()
    GradedItemFactory(run=run, row_number=1)
    GradedItemFactory(run=run, row_number=2)

    # When the reviewer asks for a download, the export is queued and its page polls
    with django_capture_on_commit_callbacks() as callbacks:
        response = reviewer_client.post(
            reverse("export_create", args=[run.pk]),
            {"format": "jsonl", "variant": "raw", "rows": "all", "how": "download"},
        )
    job = Export.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("export_detail", args=[job.pk])
    assert len(callbacks) == 1  # the task is sent on commit
    page = reviewer_client.get(response["Location"]).content.decode()
    assert 'data-export-status="queued"' in page and "every 1s" in page

    # And once a worker has written it, the poll shows the download links
    exports.export_write(export_id=job.pk)
    poll = reviewer_client.get(
        response["Location"], HTTP_HX_REQUEST="true", HTTP_HX_TARGET="export-status"
    ).content.decode()
    assert poll.lstrip().startswith('<section id="export-status"')
    assert "every 1s" not in poll
    link = reverse("export_file", args=[job.pk, "data"])
    assert link in poll
    download = reviewer_client.get(link)
    assert len(b"".join(download.streaming_content).splitlines()) == 2
    assert reviewer_client.get(reverse("export_file", args=[job.pk, "errata"])).status_code == 404


# ---- command line ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_run_and_export_run_commands_round_trip(tmp_path, export_dir, capsys):
    # Given a JSONL file of outputs
    source = tmp_path / "outputs.jsonl"
    source.write_text(
        '{"id": "q1", "question": "1+1?", "answer_gt": "2", "response": "so 2"}\n'
        '{"id": "q2", "question": "2+2?", "answer_gt": "4", "response": "so 5"}\n'
    )

    # When it is imported with one column named by hand, and exported again
    call_command("import_run", str(source), "--project", "Pipelines", "--map", "gold=answer_gt")
    run_id = int(capsys.readouterr().out.strip())
    target = tmp_path / "out" / "adjudicated.jsonl"
    call_command("export_run", str(run_id), "--format", "jsonl", "-o", str(target))

    # Then the run holds both rows, and the export and its card are beside each other
    run = Run.objects.get(pk=run_id)
    assert run.project.name == "Pipelines" and run.total_rows == 2
    rows = jsonl_rows(target)
    assert [(r["id"], r["gold"], r["output"]) for r in rows] == [
        ("q1", "2", "so 2"),
        ("q2", "4", "so 5"),
    ]
    assert (
        json.loads((tmp_path / "out" / "adjudicated.card.json").read_text())["counts"]["rows"] == 2
    )
    assert (tmp_path / "out" / "adjudicated.card.md").exists()


@pytest.mark.django_db
def test_import_run_refuses_a_file_without_a_gold_column(tmp_path):
    source = tmp_path / "bad.csv"
    source.write_text("question,response\n1+1?,2\n")

    with pytest.raises(Exception, match="no column looks like the gold"):
        call_command("import_run", str(source), "--project", "P")

    assert not Run.objects.exists()
