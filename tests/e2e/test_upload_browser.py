"""The upload page in headless Chromium (issue 15 part 3): a file Excel on Windows saved is
offered its encoding with one click, and a file with no gold column is explained in words by
the page, not stopped by the browser's "Please select an item in the list."."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from reviewer.models import Run
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def logged_in(page, live_server, user) -> None:
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


def send(page, live_server, tmp_path, name: str, content: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    page.goto(f"{live_server.url}/runs/new/")
    page.fill("input[name=project]", "Browser uploads")
    page.set_input_files("input[name=file]", str(path))
    page.get_by_role("button", name="Upload and preview").click()


def test_a_windows_1252_file_is_read_with_the_offered_encoding(live_server, browser, tmp_path):
    page = browser.page
    logged_in(page, live_server, UserFactory(username="alice"))

    # When a Windows-1252 file is sent
    content = "id,gold,output\na,é,“déjà vu” \\boxed{é}\n".encode("cp1252")
    send(page, live_server, tmp_path, "excel.csv", content)

    # Then the page names the byte and offers the encoding; one click reads it that way
    expect(page.get_by_text("byte 0xE9 is not valid UTF-8", exact=False)).to_be_visible()
    page.get_by_role("button", name="Read it as Windows-1252 (Excel on Windows)").click()
    expect(page.get_by_text("Windows-1252").first).to_be_visible()
    expect(page.locator(".preview-table")).to_contain_text("“déjà vu”")
    page.get_by_role("button", name="Create run and grade").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+/$"))
    assert Run.objects.get().items.get().gold == "é"
    assert browser.csp_violations == []


def test_a_file_with_no_gold_column_is_explained_in_words(live_server, browser, tmp_path):
    page = browser.page
    logged_in(page, live_server, UserFactory(username="alice"))

    send(page, live_server, tmp_path, "nogold.csv", b"question,response\nq,\\boxed{1}\n")

    # The mapping step says what is missing, and "Create" reaches the server, which says it
    expect(page.locator("[data-missing-columns]")).to_contain_text(
        "No column of this file looks like the gold answer"
    )
    page.get_by_role("button", name="Create run and grade").click()
    expect(page.get_by_text("Choose the column that holds the gold answer")).to_be_visible()
    assert not Run.objects.exists()
    # and one field is labelled "Model"
    expect(page.get_by_text("Model", exact=True)).to_have_count(1)
