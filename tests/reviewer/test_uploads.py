"""One upload path for the page, the API and ``manage.py import_run``: a refused file leaves
nothing behind (no project, no audit event, no stored file), and a file the project already
has returns its run and keeps no second copy."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from reviewer.models import AuditEvent, Project, Run
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

GOOD = b'id,gold,output\na,4,"so \\boxed{4}"\nb,9,"so \\boxed{6}"\n'
# Line 3 has one field too many: the whole file is refused.
BAD = b'id,gold,output\na,4,"so \\boxed{4}"\nb,9,"so \\boxed{6}",surplus\n'


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    """Tests run with DEBUG off; static URLs must not need collectstatic's manifest."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def stored_files(settings) -> list[str]:
    return sorted(path.name for path in settings.UPLOAD_DIR.iterdir())


def nothing_left(settings) -> bool:
    """No project, run or audit event was written, and no uploaded file is kept."""
    return (
        not Project.objects.exists()
        and not Run.objects.exists()
        and not AuditEvent.objects.exists()
        and stored_files(settings) == []
    )


# ---- the page -------------------------------------------------------------------------------


@pytest.fixture
def browser(client, user):
    client.force_login(user)
    return client


def page_upload(browser, content: bytes, project: str = "Fresh"):
    """Both steps of the upload page, keeping the guessed mapping."""
    preview = browser.post(
        reverse("upload"),
        {"step": "upload", "project": project, "file": SimpleUploadedFile("o.csv", content)},
    )
    assert preview.status_code == 200, preview.content.decode()[:500]
    token = re.search(r'name="token" value="([^"]+)"', preview.content.decode()).group(1)
    return browser.post(
        reverse("upload"),
        {
            "step": "create",
            "token": token,
            "project": project,
            "name": "run",
            "map_gold": "gold",
            "map_output": "output",
            "evaluators": ["exact"],
        },
    )


def test_a_file_the_page_refuses_leaves_nothing_behind(browser, settings):
    # When a file whose third line is broken is uploaded to a new project
    response = page_upload(browser, BAD)

    # Then the page names the line, and neither the project nor the file is kept
    assert response.status_code == 400
    assert re.search(r"line 3\b", response.content.decode())
    assert nothing_left(settings)


def test_a_file_the_page_cannot_preview_is_not_kept(browser, settings):
    response = browser.post(
        reverse("upload"),
        {"step": "upload", "project": "Fresh", "file": SimpleUploadedFile("e.csv", b"")},
    )

    assert response.status_code == 400
    assert nothing_left(settings)


def test_a_duplicate_on_the_page_offers_the_existing_run_and_keeps_one_file(browser, settings):
    # Given a run made from a file on the page
    first = page_upload(browser, GOOD)
    run = Run.objects.get()
    kept = stored_files(settings)

    # When the same file is uploaded to the same project again
    again = page_upload(browser, GOOD)

    # Then the page links to the first run, and only the first upload's file is kept
    assert first.status_code == 302 and again.status_code == 200
    assert "already uploaded" in again.content.decode()
    assert reverse("run_detail", args=[run.id]) in again.content.decode()
    assert Run.objects.count() == 1
    assert stored_files(settings) == kept


def test_a_viewers_upload_is_refused_and_its_file_deleted(client, settings):
    # Given a viewer of an existing project
    viewer = UserFactory(username="viewer")
    ProjectFactory(name="Shared", members={viewer: "viewer"})
    client.force_login(viewer)

    # When they send a file to it
    response = client.post(
        reverse("upload"),
        {"step": "upload", "project": "Shared", "file": SimpleUploadedFile("o.csv", GOOD)},
    )

    # Then they are refused at once, before the file is stored or previewed
    assert response.status_code == 403
    assert "First rows" not in response.content.decode()
    assert not Run.objects.exists()
    assert stored_files(settings) == []


# ---- the API --------------------------------------------------------------------------------


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def api_upload(api, content: bytes):
    return api.post(
        "/api/runs/",
        {"project": "Fresh", "file": SimpleUploadedFile("o.csv", content)},
        format="multipart",
    )


def test_a_file_the_api_refuses_leaves_nothing_behind(api, settings):
    response = api_upload(api, BAD)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_file"
    assert "line 3" in response.json()["error"]["message"]
    assert nothing_left(settings)


def test_json_rows_the_api_refuses_leave_nothing_behind(api, settings):
    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "rows": [{"gold": "1", "output": "1"}, {"gold": "2"}]},
        format="json",
    )

    assert response.status_code == 400
    assert nothing_left(settings)


def test_a_duplicate_through_the_api_returns_the_run_and_keeps_one_file(api, settings):
    created = api_upload(api, GOOD)
    kept = stored_files(settings)

    retried = api_upload(api, GOOD)

    assert (created.status_code, retried.status_code) == (201, 200)
    assert retried.json()["id"] == created.json()["id"]
    assert stored_files(settings) == kept


# ---- the command ----------------------------------------------------------------------------


def test_a_file_the_command_refuses_leaves_nothing_behind(tmp_path, settings):
    source = tmp_path / "bad.csv"
    source.write_bytes(BAD)

    with pytest.raises(CommandError, match="line 3"):
        call_command("import_run", str(source), "--project", "Fresh")

    assert nothing_left(settings)


def test_an_unknown_evaluator_at_the_command_line_leaves_nothing_behind(tmp_path, settings):
    source = tmp_path / "good.csv"
    source.write_bytes(GOOD)

    with pytest.raises(CommandError, match="nonsense"):
        call_command("import_run", str(source), "--project", "Fresh", "--evaluators", "nonsense")

    assert nothing_left(settings)


def test_a_duplicate_at_the_command_line_prints_the_run_and_keeps_one_file(
    tmp_path, settings, capsys
):
    source = tmp_path / "good.csv"
    source.write_bytes(GOOD)
    call_command("import_run", str(source), "--project", "Fresh")
    first = capsys.readouterr().out.strip()
    kept = stored_files(settings)

    call_command("import_run", str(source), "--project", "Fresh")
    again = capsys.readouterr()

    assert again.out.strip() == first
    assert f"is already run {first}" in again.err
    assert Run.objects.count() == 1
    assert stored_files(settings) == kept


def test_the_api_reads_an_answer_column_by_the_engines_rule(api):
    # Given rows laid out as Math-Verify's example: the model's answer in "answer"
    response = api.post(
        "/api/runs/",
        {"project": "Fresh", "rows": [{"answer": "so $\\boxed{2}$", "gold": "2"}]},
        format="json",
    )

    # Then no mapping is needed: "answer" is the output, as the command line reads it
    assert response.status_code == 201, response.json()
    assert response.json()["column_mapping"] == {"gold": "gold", "output": "answer"}
