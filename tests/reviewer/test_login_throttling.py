"""Login throttling (RELIABILITY G3): five wrong passwords lock the account out for the
cool-off, on the login page and on the API's token endpoint alike."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import UserFactory

PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def test_six_wrong_passwords_lock_the_login_page_even_for_the_right_password(client, db):
    # Given a user, and someone guessing their password six times
    UserFactory(username="alice")
    login = reverse("login")
    answers = [
        client.post(login, {"username": "alice", "password": f"guess {n}"}).status_code
        for n in range(6)
    ]

    # Then four are ordinary failures; the fifth locks the account, and the sixth is refused
    assert answers == [200, 200, 200, 200, 429, 429]

    # When the right password is sent during the cool-off
    response = client.post(login, {"username": "alice", "password": PASSWORD})

    # Then it is refused too, with a page that says why and for how long
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "15 minutes" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_token_endpoint_is_locked_out_the_same_way(client, db):
    # Given six wrong passwords sent to the API's token endpoint
    UserFactory(username="bob")
    token = reverse("api:token")
    answers = [
        client.post(token, {"username": "bob", "password": f"guess {n}"}).status_code
        for n in range(6)
    ]

    # Then four are ordinary failures, the fifth locks the account, the sixth is refused, and
    # so is the right password during the cool-off, in the API's error shape
    assert answers == [400, 400, 400, 400, 429, 429]
    response = client.post(token, {"username": "bob", "password": PASSWORD})
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "locked_out"


def test_the_right_password_before_the_limit_logs_in_and_clears_the_failures(client, db):
    # Given four wrong passwords, then the right one
    UserFactory(username="carol")
    login = reverse("login")
    for n in range(4):
        client.post(login, {"username": "carol", "password": f"guess {n}"})
    assert client.post(login, {"username": "carol", "password": PASSWORD}).status_code == 302
    client.logout()

    # When four more wrong passwords follow, the count started again: the right one still works
    for n in range(4):
        client.post(login, {"username": "carol", "password": f"guess {n}"})
    assert client.post(login, {"username": "carol", "password": PASSWORD}).status_code == 302
