"""PostgreSQL writing the export's rows itself (COPY's CSV writer, JSON built in SQL) gives the
bytes and the dataset card of the portable path, on hostile rows and on any text, number or
time a row can hold."""

from __future__ import annotations

from datetime import UTC

import pytest
from django.db import connection
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from reviewer.models import Item, ItemMsu, Review
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from reviewer.services.exports import dataset_card, formats
from reviewer.services.exports.records import postgresql_records
from reviewer.services.exports.row_text import postgresql_written
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)
from tests.reviewer.test_export_records import hostile_run  # noqa: F401 (a fixture, below)

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL writes these rows"),
]
FILES = [("csv", False), ("csv", True), ("jsonl", False), ("parquet", False)]


@pytest.fixture
def hostile(request):
    """test_export_records' hostile run: hostile text, an extra column, missing evaluations,
    several reviews on a row (the newest by a deleted user)."""
    return request.getfixturevalue("hostile_run")


def portable(run, format: str, safe: bool) -> bytes:
    schema = exports.export_schema(run=run)
    items = exports.export_items(run=run, filters=ItemFilters())
    rows = exports.export_rows(items=items, schema=schema)
    return b"".join(formats.encode(rows, schema, format=format, spreadsheet_safe=safe))


def written(run, format: str, safe: bool) -> bytes:
    schema = exports.export_schema(run=run)
    items = exports.export_items(run=run, filters=ItemFilters())
    rows = postgresql_written(items=items, schema=schema, format=format, spreadsheet_safe=safe)
    return b"".join(formats.encode_records(rows, schema, format=format, spreadsheet_safe=safe))


@pytest.mark.django_db
@pytest.mark.parametrize(("format", "safe"), FILES)
def test_written_rows_have_the_bytes_of_the_portable_path(hostile, format, safe, monkeypatch):
    # Given hostile rows, in chunks and Parquet row groups of two rows
    monkeypatch.setattr(formats, "ROWS_PER_CHUNK", 2)
    monkeypatch.setattr(formats, "ROWS_PER_GROUP", 2)

    # When PostgreSQL writes them, and Python writes them from the ORM's dicts
    # Then the files are the same bytes
    assert written(hostile, format, safe) == portable(hostile, format, safe)


@pytest.mark.django_db
def test_an_empty_selection_is_written_as_the_portable_path_writes_it():
    run = RunFactory()
    for format, safe in FILES:
        assert written(run, format, safe) == portable(run, format, safe)


@pytest.mark.django_db
def test_the_card_counts_written_rows_as_it_counts_records(hostile):
    # Given reviews by two people on a run with more rows and verdicts
    ann, bob = UserFactory(username="ann"), UserFactory(username="bob")
    for n in range(6):
        item = GradedItemFactory(run=hostile, row_number=10 + n, needs_review=n % 2 == 0)
        EvaluationFactory(item=item, evaluator=hostile.evaluators[0], verdict="incorrect")
        if n % 3:
            ReviewFactory(item=item, annotator=ann if n % 2 else bob, verdict="correct")
            Item.objects.filter(pk=item.pk).update(final_source="human", final_verdict="correct")
    schema = exports.export_schema(run=hostile)
    items = exports.export_items(run=hostile, filters=ItemFilters())

    # When the card counts the records, and the rows PostgreSQL wrote
    def card(records) -> bytes:
        tally = dataset_card.CardTally(evaluators=schema.evaluators)
        for _ in tally.counted_records(records, schema.columns):
            pass
        return dataset_card.card_json(tally.card(about={}, evaluator_versions={}))

    by_records = card(postgresql_records(items=items, schema=schema))
    by_written = card(
        postgresql_written(items=items, schema=schema, format="csv", spreadsheet_safe=False)
    )

    # Then the cards are the same, review times and the reviewers' order included
    assert by_written == by_records
    assert Review.objects.filter(item__run=hostile).count() == 8


# Anything a PostgreSQL text can hold: no NUL, no lone surrogate.
stored_text = st.text(
    alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=30
)


@pytest.fixture
def one_row():
    run = RunFactory(evaluators=["math_verify"])
    return GradedItemFactory(run=run, row_number=1)


@pytest.mark.django_db
@hypothesis_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(stored_text, min_size=3, max_size=3),
    notions=st.lists(stored_text, max_size=3),
    extra=st.dictionaries(stored_text, stored_text, max_size=2),
    number=st.integers(min_value=-(2**31), max_value=2**31 - 1),
    scores=st.lists(st.floats() | st.none(), min_size=2, max_size=2),
    at=st.datetimes(timezones=st.just(UTC)) | st.none(),
    flag=st.booleans(),
)
def test_any_value_is_written_as_python_writes_it(
    one_row, texts, notions, extra, number, scores, at, flag
):
    # Given a row holding these texts, numbers, floats (NaN and infinities too) and times
    problem, output, note = texts
    Item.objects.filter(pk=one_row.pk).update(
        problem=problem,
        output=output,
        gold=note,
        extra=extra,
        sample_index=number,
        graded_at=at,
        needs_review=flag,
    )
    ItemMsu.objects.update_or_create(
        item=one_row,
        defaults={
            "score": scores[0],
            "overlap": scores[1],
            "model_notions": notions,
            "human_notions": notions[::-1],
            "extractor": note,
        },
    )

    # When PostgreSQL writes it in every format
    # Then each file is what Python writes from the same row
    for format, safe in FILES:
        assert written(one_row.run, format, safe) == portable(one_row.run, format, safe), format
