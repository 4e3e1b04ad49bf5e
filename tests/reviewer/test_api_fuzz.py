"""Schema-driven fuzzing of the API: whatever schemathesis sends, no answer is a 500."""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token

from reviewer.models import Run
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from tests.factories import EvaluationFactory, GradedItemFactory, ReviewFactory, RunFactory

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


# The live schema, read from the app the way a client would (in this process, over WSGI).
with override_settings(ALLOWED_HOSTS=["localhost"]):
    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; a body Django itself refuses (a multipart body with no
    boundary) gets the 400 page of the app's layout, whose static URLs must not need
    collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def wsgi_requests(settings):
    """Requests over WSGI as Django's test client sends them: they keep the test's database
    connection open, since closing it after each request would end the test's transaction."""
    settings.ALLOWED_HOSTS = ["localhost"]
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def fuzz_objects(user, settings, tmp_path) -> dict[str, int]:
    """A graded run with a reviewed item and a finished export, for the ids in the paths."""
    settings.MATHJURY_EXPORT_DIR = tmp_path / "exports"
    run = RunFactory(status=Run.Status.DONE, total_rows=2)
    item = GradedItemFactory(run=run, row_number=1, needs_review=True)
    GradedItemFactory(run=run, row_number=2, auto_verdict="incorrect", final_verdict="gold_wrong")
    EvaluationFactory(item=item)
    ReviewFactory(item=item, annotator=user)
    job = exports.export_start(
        run=run, user=user, format="csv", variant="raw", filters=ItemFilters(), in_background=False
    )
    exports.export_write(export_id=job.pk)
    return {
        "project_id": run.project_id,
        "run_id": run.pk,
        "item_id": item.pk,
        "export_id": job.pk,
    }


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
    ],
)
def test_no_input_makes_the_api_fail_with_a_server_error(case, user, fuzz_objects, wsgi_requests):
    # Given real objects behind the ids in the path, and a valid token
    token, _ = Token.objects.get_or_create(user=user)
    for name, value in fuzz_objects.items():
        if case.path_parameters and name in case.path_parameters:
            case.path_parameters[name] = value

    # When schemathesis sends whatever the schema allows (and some it does not)
    response = case.call(headers={"Authorization": f"Token {token.key}"})

    # Then the answer is never a server error
    assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text[:500]}"
