"""The PostgreSQL export path (one COPY query) gives the same records and the same file bytes
as the portable path (ORM dicts) that SQLite uses, on rows chosen to differ where they could."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from reviewer import services
from reviewer.models import Export, Item, Review
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from reviewer.services.exports import formats
from reviewer.services.exports.records import postgresql_records
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ProjectFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)
from tests.reviewer.test_exports import HOSTILE_CSV

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the COPY path is PostgreSQL's"),
]


@pytest.fixture
def hostile_run(user, store_upload):
    """Hostile text, an extra column, evaluations on some rows (one evaluator missing), many
    reviews on one row (the newest by a deleted user), reasons in a given order."""
    stored = store_upload(HOSTILE_CSV, "hostile.csv")
    run = services.run_upload(
        stored=stored, project_name=ProjectFactory().name, user=user, name="h"
    ).run
    first, second, third = run.items.order_by("row_number")
    Item.objects.filter(pk=first.pk).update(
        grade_state="graded",
        graded_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        needs_review=True,
        review_reasons=[{"code": "b_second", "message": "x"}, {"code": "a_first", "message": "y"}],
        final_verdict="gold_wrong",
        final_source="human",
    )
    Item.objects.filter(pk=second.pk).update(
        graded_at=datetime(2026, 1, 2, 3, 4, 5, 120, tzinfo=UTC), sample_index=-3
    )
    for evaluator in run.evaluators[:-1]:
        EvaluationFactory(item=first, evaluator=evaluator, verdict="incorrect", extracted="=1+2")
    EvaluationFactory(item=third, evaluator=run.evaluators[0], verdict="", status="timeout")
    at = datetime(2026, 3, 1, tzinfo=UTC)
    for n in range(3):
        ReviewFactory(item=first, note=f"-{n}", verdict="gold_wrong")
    Review.objects.filter(item=first).update(created_at=at)  # ties broken by id
    gone = UserFactory()
    ReviewFactory(item=second, annotator=gone, note="\u2028")
    Review.objects.filter(item=second).update(created_at=at + timedelta(microseconds=1))
    gone.delete()
    return run


@pytest.mark.django_db
@pytest.mark.parametrize("filters", [ItemFilters(), ItemFilters(reviewed=True)])
def test_copy_records_equal_the_portable_records(hostile_run, filters):
    schema = exports.export_schema(run=hostile_run)
    items = exports.export_items(run=hostile_run, filters=filters)

    copied = list(postgresql_records(items=items, schema=schema))
    portable = list(
        formats.records(exports.export_rows(items=items, schema=schema), schema.columns)
    )

    assert copied == portable
    assert len(copied) == (3 if filters.reviewed is None else 1)  # only the first is decided


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("format", "safe"), [("csv", False), ("csv", True), ("jsonl", False), ("parquet", False)]
)
def test_copy_path_writes_the_same_bytes_as_the_portable_path(
    hostile_run, format, safe, monkeypatch
):
    monkeypatch.setattr(formats, "ROWS_PER_CHUNK", 2)  # the rows span several chunks
    schema = exports.export_schema(run=hostile_run)
    items = exports.export_items(run=hostile_run, filters=ItemFilters())

    def encoded(records) -> bytes:
        return b"".join(
            formats.encode_records(records, schema, format=format, spreadsheet_safe=safe)
        )

    copied = encoded(postgresql_records(items=items, schema=schema))
    portable = b"".join(
        formats.encode(
            exports.export_rows(items=items, schema=schema),
            schema,
            format=format,
            spreadsheet_safe=safe,
        )
    )

    assert copied == portable


@pytest.mark.django_db(transaction=True)
def test_an_export_that_fails_half_way_is_marked_failed(user, tmp_path, settings, monkeypatch):
    # Given a run of 30 rows, and a disk that fills up after the first chunk of the file
    settings.MATHJURY_EXPORT_DIR = tmp_path
    run = RunFactory()
    for n in range(30):
        GradedItemFactory(run=run, row_number=n + 1)
    encode_records = formats.encode_records

    def disk_fills(*args, **kwargs):
        chunks = encode_records(*args, **kwargs)
        yield next(chunks)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(formats, "ROWS_PER_CHUNK", 5)
    monkeypatch.setattr(formats, "encode_records", disk_fills)
    job = exports.export_start(
        run=run, user=user, format="csv", variant="raw", filters=ItemFilters(), in_background=False
    )

    # When the export is written, the COPY it was reading is given up with the snapshot
    with pytest.raises(OSError, match="No space left"):
        exports.export_write(export_id=job.pk)

    # Then the job says why it failed, no half file is offered, and the connection still works
    job.refresh_from_db()
    assert job.status == Export.Status.FAILED and "No space left" in job.error_message
    assert not any(path.suffix == ".csv" for path in tmp_path.rglob("*"))
    assert Item.objects.filter(run=run).count() == 30
