"""Error pages in the app's layout: a person who hits one still sees MathJury, what happened
and a way back."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.views.defaults import bad_request, server_error

from reviewer.models import Membership
from tests.factories import GradedItemFactory, ProjectFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def _in_layout(body: str) -> bool:
    return 'class="topbar"' in body and "css/app.css" in body


def test_a_missing_page_is_a_404_in_the_layout_naming_the_path(client, user):
    client.force_login(user)

    response = client.get("/runs/999999/")

    body = response.content.decode()
    assert response.status_code == 404
    assert _in_layout(body) and 'data-error="404"' in body
    assert "/runs/999999/" in body
    assert "Log out" in body  # the navigation of a logged-in user is there


def test_a_refused_action_is_a_403_in_the_layout_saying_why(client):
    # Given a viewer of a project, who may read but not re-grade
    viewer = UserFactory(username="vera")
    run = RunFactory(project=ProjectFactory(members={viewer: Membership.Role.VIEWER}))
    GradedItemFactory(run=run)
    client.force_login(viewer)

    # When they try to re-grade its run
    response = client.post(reverse("run_regrade", args=[run.id]), {"evaluators": ["strict"]})

    # Then the refusal is a page of the app
    body = response.content.decode()
    assert response.status_code == 403
    assert _in_layout(body) and 'data-error="403"' in body


@pytest.mark.parametrize("view, status", [(server_error, 500), (bad_request, 400)])
def test_server_errors_and_bad_requests_render_in_the_layout_without_a_context(view, status):
    # Django renders these with no request context: the layout must not need one
    request = RequestFactory().get("/")

    response = view(request) if view is server_error else view(request, exception=None)

    body = response.content.decode()
    assert response.status_code == status
    assert _in_layout(body) and f'data-error="{status}"' in body
    assert "Log out" not in body
