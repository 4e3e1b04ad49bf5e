"""Uploads are bounded before they cost anything (issue 12 part 3, RELIABILITY C1, C2, C7,
C12) and forgiving where a person can say what the file is (issue 15 part 3): the same
rules on the page, the API and ``manage.py import_run``."""

from __future__ import annotations

import csv
import io
import os
import re
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from reviewer.models import Run
from tests.factories import ProjectFactory, UserFactory
from tests.reviewer.test_uploads import (  # noqa: F401 - fixtures used by name
    _static_urls_without_manifest,
    stored_files,
)
from tests.reviewer.test_uploads import api as api  # noqa: F401
from tests.reviewer.test_uploads import browser as browser  # noqa: F401

pytestmark = pytest.mark.django_db

GOOD = b'id,gold,output\na,4,"so \\boxed{4}"\nb,9,"so \\boxed{6}"\n'
WIDE = (",".join(f"c{i}" for i in range(100_000)) + "\n" + "1," * 99_999 + "1\n").encode()
CP1252 = "id,gold,output\na,é,“déjà vu” \\boxed{é}\n".encode("cp1252")


def send(browser, content: bytes, name: str = "o.csv", project: str = "Fresh", **fields):
    return browser.post(
        reverse("upload"),
        {"step": "upload", "project": project, "file": SimpleUploadedFile(name, content), **fields},
    )


def token_of(response) -> str:
    return re.search(r'name="token" value="([^"]+)"', response.content.decode()).group(1)


# ---- who may send a file, checked first ----------------------------------------------------


def test_a_viewer_is_refused_by_the_api_before_the_file_is_stored(settings):
    viewer = UserFactory(username="viewer")
    ProjectFactory(name="Shared", members={viewer: "viewer"})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=viewer).key}")

    response = client.post(
        "/api/runs/",
        {"project": "Shared", "file": SimpleUploadedFile("o.csv", b"\xff" * 10)},
        format="multipart",
    )

    # The file would be refused as unreadable if it were read: the role is checked first
    assert response.status_code == 403, response.json()
    assert stored_files(settings) == []


def test_another_teams_project_name_is_refused_before_the_file_is_stored(browser, settings):
    ProjectFactory(name="Theirs", created_by=UserFactory(username="stranger"))
    response = send(browser, WIDE, project="Theirs")
    assert response.status_code == 409
    assert stored_files(settings) == []


@pytest.mark.parametrize("path", ["/runs/new/", "/api/runs/"])
def test_an_anonymous_multipart_body_is_refused_before_it_is_read(client, settings, path):
    # Given a body far over the size limit, sent by nobody logged in
    settings.MATHJURY_UPLOAD_MAX_BYTES = settings.MATHJURY_API_UPLOAD_MAX_BYTES = 1000
    response = client.post(
        path, {"step": "upload", "project": "x", "file": SimpleUploadedFile("o.csv", b"x" * 5000)}
    )
    # Then it is refused for who sent it, not for its size: the body was never parsed
    if path.startswith("/api/"):
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "not_authenticated"
    else:
        assert response.status_code == 302
        assert response["Location"].startswith("/login/")
    assert stored_files(settings) == []


# ---- size, files, columns and fields ---------------------------------------------------------


def test_the_web_forms_default_cap_is_50_mib_and_the_apis_may_be_larger():
    from django.conf import settings

    assert settings.MATHJURY_UPLOAD_MAX_BYTES == 50 * 1024 * 1024
    assert settings.MATHJURY_API_UPLOAD_MAX_BYTES >= settings.MATHJURY_UPLOAD_MAX_BYTES


def test_an_api_upload_over_the_cap_gets_a_json_413(api, settings):  # C1
    settings.MATHJURY_API_UPLOAD_MAX_BYTES = 10_000
    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("o.csv", b"x" * 20_000)},
        format="multipart",
    )
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "too_large"
    assert stored_files(settings) == []


def test_more_than_100_files_in_one_request_get_a_400(api, browser, settings):  # C2
    files = {f"file{i}": SimpleUploadedFile(f"{i}.csv", GOOD) for i in range(101)}
    response = api.post("/api/runs/", {"project": "Fresh", **files}, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert "Too many files" in response.json()["error"]["message"]
    page = browser.post(reverse("upload"), {"step": "upload", "project": "Fresh", **files})
    assert page.status_code == 400
    assert stored_files(settings) == []


def test_a_header_of_100_000_columns_is_refused_at_once_and_not_kept(browser, settings):
    # (it held a web worker for 74 s and answered with 37 MB of HTML)
    settings.MATHJURY_UPLOAD_MAX_HEADER_BYTES = 2 * 1024 * 1024
    response = send(browser, WIDE)
    assert response.status_code == 400
    assert "the header has 100,000 columns; the limit is 1,000" in response.content.decode()
    assert len(response.content) < 100_000
    assert stored_files(settings) == []


def test_a_field_over_the_limit_is_refused_with_its_line(api, settings):  # C7
    settings.MATHJURY_MAX_FIELD_BYTES = 1000
    content = b"gold,output\n1,short\n2," + b"y" * 5000 + b"\n"
    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("o.csv", content)},
        format="multipart",
    )
    assert response.status_code == 400
    assert response.json()["error"]["problems"] == [
        "line 3, column 'output': field is 5,000 bytes, more than the limit of 1,000"
    ]
    assert stored_files(settings) == []


@pytest.mark.parametrize(
    ("name", "content", "named"),
    [
        ("outputs.csv.gz", b"\x1f\x8b\x08\x00" + b"\x00" * 64, "a gzip-compressed file"),
        ("outputs.csv", b"PK\x03\x04" + b"\x00" * 64, "a zip archive"),
        ("outputs.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "(.xls)"),
    ],
)
def test_compressed_files_are_refused_by_what_they_are(browser, settings, name, content, named):
    response = send(browser, content, name=name)
    assert response.status_code == 400
    assert named in response.content.decode()
    assert stored_files(settings) == []


# ---- stored files: deleted once used, refused or abandoned ---------------------------------


def test_a_created_run_keeps_no_copy_of_its_file(api, settings):
    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("o.csv", GOOD)},
        format="multipart",
    )
    assert response.status_code == 201
    assert stored_files(settings) == []


def test_purge_uploads_deletes_stored_files_older_than_a_day_and_keeps_the_rest(browser, settings):
    # Given two uploads left at the mapping step, one of them two days ago
    send(browser, GOOD)
    old = send(browser, GOOD.replace(b"a,4", b"c,4"))
    two_days_ago = time.time() - 48 * 3600
    for path in settings.UPLOAD_DIR.glob(f"{token_of(old)}.*"):
        os.utime(path, (two_days_ago, two_days_ago))
    assert len(stored_files(settings)) == 4

    # When the periodic command runs
    out = io.StringIO()
    call_command("purge_uploads", stdout=out)

    # Then the old one is gone and the recent one kept
    assert out.getvalue().strip() == "1 stored uploads deleted"
    assert not any(token_of(old) in name for name in stored_files(settings))
    assert len(stored_files(settings)) == 2


# ---- encodings, workbooks, bad lines and the model (issue 15) -------------------------------


def test_a_windows_1252_file_is_offered_that_encoding_and_read_as_written(browser, settings):
    # When a file Excel on Windows saved is sent
    refused = send(browser, CP1252)

    # Then the page names the byte and offers the encoding, keeping the file for it
    assert refused.status_code == 400
    body = refused.content.decode()
    assert "byte 0xE9 is not valid UTF-8" in body
    assert "Read it as Windows-1252 (Excel on Windows)" in body
    offer = re.search(r"<form[^>]*data-encoding-offer.*?</form>", body, re.S).group()
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', offer))
    assert fields["encoding"] == "cp1252"

    # When the person accepts it, the preview reads it in that encoding
    preview = browser.post(reverse("upload"), fields)
    assert preview.status_code == 200
    assert "Windows-1252" in preview.content.decode()

    # and the run keeps every character as written
    created = browser.post(
        reverse("upload"),
        {
            **fields,
            "step": "create",
            "name": "cp1252",
            "map_gold": "gold",
            "map_output": "output",
            "evaluators": ["exact"],
        },
    )
    assert created.status_code == 302, created.content.decode()[:2000]
    item = Run.objects.get().items.get()
    assert (item.gold, item.output) == ("é", "“déjà vu” \\boxed{é}")


def test_the_api_and_the_command_name_the_encoding_and_read_it_when_asked(api, tmp_path):
    refused = api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("o.csv", CP1252)},
        format="multipart",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["suggested_encoding"] == "cp1252"
    path = tmp_path / "o.csv"
    path.write_bytes(CP1252)
    with pytest.raises(CommandError, match="--encoding cp1252"):
        call_command("import_run", str(path), "--project", "Cmd")
    call_command("import_run", str(path), "--project", "Cmd", "--encoding", "cp1252")
    assert Run.objects.get().items.get().gold == "é"


def test_an_xlsx_workbook_becomes_a_run(api):
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["id", "gold", "output", "model"])
    book.active.append(["a", -4, "so \\boxed{-4}", "qwen"])
    book.active.append(["b", 0.5, "so \\boxed{1/2}", "qwen"])
    body = io.BytesIO()
    book.save(body)

    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("outputs.xlsx", body.getvalue())},
        format="multipart",
    )

    assert response.status_code == 201, response.json()
    run = Run.objects.get()
    assert list(run.items.order_by("row_number").values_list("gold", flat=True)) == ["-4", "0.5"]
    # and a model column that names one model names the run's model
    assert run.model_name == "qwen"


def test_skipping_bad_lines_keeps_the_good_rows_and_lists_the_others(browser, user):
    content = b"gold,output\n1,\\boxed{1}\n,\\boxed{2}\n3,\\boxed{3},extra\n4,\\boxed{4}\n"
    preview = send(browser, content)
    fields = {
        "step": "create",
        "token": token_of(preview),
        "project": "Fresh",
        "name": "skip",
        "map_gold": "gold",
        "map_output": "output",
        "evaluators": ["exact"],
    }
    # Without the choice the file is refused, naming both lines
    refused = browser.post(reverse("upload"), fields)
    assert refused.status_code == 400
    assert "line 3" in refused.content.decode() and "line 4" in refused.content.decode()

    # With it, the good rows are a run and the bad lines are on the run's page for download
    created = browser.post(
        reverse("upload"),
        {**fields, "token": token_of(send(browser, content)), "skip_bad_lines": "on"},
    )
    assert created.status_code == 302
    run = Run.objects.get()
    assert run.total_rows == 2
    assert [s["line"] for s in run.skipped_lines] == [3, 4]
    page = browser.get(reverse("run_detail", args=[run.pk])).content.decode()
    assert "2 bad lines skipped" in page
    download = browser.get(reverse("run_skipped_lines", args=[run.pk])).content.decode()
    assert list(csv.reader(io.StringIO(download))) == [
        ["line", "problem"],
        ["3", "line 3: the gold answer is empty"],
        ["4", "line 4: expected 2 fields, found 3"],
    ]


def test_a_file_without_a_gold_column_is_explained_in_words_at_the_mapping_step(browser):
    preview = send(browser, b"question,response\nq,\\boxed{1}\n")
    body = preview.content.decode()
    assert preview.status_code == 200
    assert "No column of this file looks like the gold answer" in body
    assert "columns found: question, response" in body
    # and the select carries no browser-only "required" that would speak instead of the page
    assert not re.search(r'<select name="map_gold"[^>]*required', body)
    refused = browser.post(
        reverse("upload"),
        {
            "step": "create",
            "token": token_of(preview),
            "project": "Fresh",
            "name": "x",
            "map_output": "response",
            "evaluators": ["exact"],
        },
    )
    assert refused.status_code == 400
    assert "Choose the column that holds the gold answer" in refused.content.decode()


def test_the_mapping_step_has_one_field_labelled_model(browser):
    body = send(browser, GOOD).content.decode()
    labels = re.findall(r"<label[^>]*>\s*([^<*]+?)\s*\*?\s*</label>", body)
    assert labels.count("Model") == 1, labels
