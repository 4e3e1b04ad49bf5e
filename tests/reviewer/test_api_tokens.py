"""Personal API tokens: made and revoked on a page, accepted by the API beside the older
one-per-user token."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from reviewer.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def _make(client, name: str):
    return client.post(reverse("api_tokens"), {"name": name})


def _key_of(response) -> str:
    return re.search(r"data-new-key>(mj_[\w-]+)<", response.content.decode()).group(1)


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def test_a_token_made_on_the_page_works_in_the_api_until_revoked(client, user):
    # Given a logged-in user who makes a named token
    client.force_login(user)
    made = _make(client, "nightly pipeline")
    key = _key_of(made)

    # Then its key is shown once, and only its hash is stored
    assert made.status_code == 200
    token = ApiToken.objects.get(user=user)
    assert token.name == "nightly pipeline" and key not in token.key_hash
    assert key not in client.get(reverse("api_tokens")).content.decode()

    # When a script calls the API with it
    response = _api(key).get("/api/runs/")

    # Then it acts as the user, and the page shows when it was last used
    assert response.status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    page = client.get(reverse("api_tokens")).content.decode()
    assert "never" not in page.split('data-token="nightly pipeline"', 1)[1].split("</tr>")[0]

    # When the user revokes it
    client.post(reverse("api_token_revoke", args=[token.pk]))

    # Then the API refuses it
    refused = _api(key).get("/api/runs/")
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "authentication_failed"


def test_several_named_tokens_each_revoked_alone(client, user):
    client.force_login(user)
    first, second = _key_of(_make(client, "ci")), _key_of(_make(client, "laptop"))

    client.post(reverse("api_token_revoke", args=[ApiToken.objects.get(name="ci").pk]))

    assert _api(first).get("/api/runs/").status_code == 401
    assert _api(second).get("/api/runs/").status_code == 200


def test_a_second_active_token_of_the_same_name_is_refused_with_a_message(client, user):
    client.force_login(user)
    _make(client, "ci")

    again = _make(client, "ci")

    assert again.status_code == 400
    assert "You already have a token named “ci”." in again.content.decode()
    assert ApiToken.objects.filter(user=user).count() == 1


def test_nobody_revokes_another_persons_token(client, user):
    client.force_login(user)
    _make(client, "mine")
    token = ApiToken.objects.get(user=user)
    client.force_login(UserFactory(username="mallory"))

    response = client.post(reverse("api_token_revoke", args=[token.pk]))

    assert response.status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


def test_an_unknown_personal_key_is_refused(client):
    response = _api("mj_not-a-real-key").get("/api/runs/")

    assert response.status_code == 401
