"""One list of item filters for the run page and the API, and one list of item columns for
uploads, the API and exports."""

from __future__ import annotations

from dataclasses import fields

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.reader import CANONICAL_FIELDS
from reviewer.api.serializers import ItemFilterSerializer, ItemSerializer
from reviewer.item_filters import ITEM_FILTERS, ItemFilters
from reviewer.models import Item
from reviewer.models.items import RESULT_COLUMNS, UPLOAD_FIELD_COLUMNS
from reviewer.pages.forms import ItemFilterForm
from reviewer.services.exports import formats
from tests.factories import EvaluationFactory, GradedItemFactory, ReviewFactory, RunFactory


def test_the_page_the_api_and_the_selector_know_the_same_filters():
    names = {spec.name for spec in ITEM_FILTERS}
    assert set(ItemFilterForm().fields) == names
    assert set(ItemFilterSerializer().fields) == names
    assert {f.name for f in fields(ItemFilters)} - {"user_id"} == names


def test_every_upload_field_has_an_item_column_that_exports_and_the_api_show():
    assert set(UPLOAD_FIELD_COLUMNS) == set(CANONICAL_FIELDS)
    item_fields = {f.name for f in Item._meta.get_fields()}
    assert set(UPLOAD_FIELD_COLUMNS.values()) <= item_fields
    assert set(RESULT_COLUMNS) <= item_fields
    assert [c.name for c in formats.SOURCE_COLUMNS][3:] == list(UPLOAD_FIELD_COLUMNS)
    assert set(UPLOAD_FIELD_COLUMNS.values()) | set(RESULT_COLUMNS) <= set(
        ItemSerializer.Meta.fields
    )


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def judged_run(db):
    """Row 1: exact said correct, a human said incorrect; row 2: flagged for no answer."""
    run = RunFactory(status="done", total_rows=3)
    overturned = GradedItemFactory(
        run=run, row_number=1, final_verdict="incorrect", final_source="human"
    )
    EvaluationFactory(item=overturned, evaluator="exact", verdict="correct")
    ReviewFactory(item=overturned, verdict="incorrect")
    GradedItemFactory(
        run=run,
        row_number=2,
        needs_review=True,
        review_reasons=[{"code": "no_answer", "message": "No answer."}],
    )
    GradedItemFactory(run=run, row_number=3)
    return run


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, rows",
    [
        ({"evaluator": "exact", "evaluator_verdict": "correct"}, [1]),
        ({"human_verdict": "incorrect"}, [1]),
        ({"reason": "no_answer"}, [2]),
        ({"order": "flagged"}, [2, 1, 3]),
    ],
)
def test_the_api_filters_and_orders_items_as_the_run_page_does(
    api, client, user, judged_run, query, rows, settings
):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    # When the same filters are asked of the API and of the run page
    listed = api.get(f"/api/runs/{judged_run.pk}/items/", query).json()
    client.force_login(user)
    page = client.get(reverse("run_detail", args=[judged_run.pk]), query)

    # Then both hold the same rows, in the same order
    assert [item["row_number"] for item in listed["results"]] == rows
    assert [item.row_number for item in page.context["page"]] == rows
