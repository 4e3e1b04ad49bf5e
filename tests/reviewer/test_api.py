"""The REST API, endpoint by endpoint: what a pipeline sends, what it gets back, and the errors
it can act on."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from reviewer.models import Export, Item, Membership, Review, Run
from reviewer.services import exports
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ItemFactory,
    ProjectFactory,
    ReviewFactory,
    RunFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

CSV = b'id,gold,output\na,4,"so \\boxed{4}"\nb,9,"so \\boxed{6}"\n'
MISSING = 987654


@pytest.fixture
def api(user) -> APIClient:
    """A client that authenticates like a pipeline: with the user's token."""
    client = APIClient()
    token = Token.objects.create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def export_dir(settings, tmp_path):
    settings.MATHJURY_EXPORT_DIR = tmp_path / "exports"
    return settings.MATHJURY_EXPORT_DIR


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["message"], body
    return body["error"]


def graded_run(**fields) -> Run:
    run = RunFactory(status=Run.Status.DONE, total_rows=3, **fields)
    GradedItemFactory(run=run, row_number=1, external_id="plain")
    flagged = GradedItemFactory(
        run=run,
        row_number=2,
        external_id="flagged",
        auto_verdict="incorrect",
        final_verdict="incorrect",
        needs_review=True,
        evaluators_disagree=True,
        review_reasons=[{"code": "evaluators_disagree", "message": "They disagree."}],
    )
    EvaluationFactory(item=flagged, evaluator="math_verify", verdict="correct")
    EvaluationFactory(item=flagged, evaluator="exact", verdict="incorrect")
    GradedItemFactory(run=run, row_number=3, external_id="other", answer_type="fraction")
    return run


# ---- authentication -------------------------------------------------------------------------

ENDPOINTS = [
    ("get", "/api/projects/"),
    ("post", "/api/projects/"),
    ("get", "/api/runs/"),
    ("post", "/api/runs/"),
    ("get", "/api/runs/1/"),
    ("post", "/api/runs/1/regrade/"),
    ("get", "/api/runs/1/items/"),
    ("get", "/api/runs/1/stats/"),
    ("get", "/api/runs/compare/?run_a=1&run_b=2"),
    ("get", "/api/runs/1/exports/"),
    ("post", "/api/runs/1/exports/"),
    ("get", "/api/runs/1/export/?format=csv"),
    ("get", "/api/items/1/"),
    ("get", "/api/items/1/reviews/"),
    ("post", "/api/items/1/reviews/"),
    ("get", "/api/exports/1/"),
    ("get", "/api/exports/1/download/"),
]


@pytest.mark.parametrize("method, url", ENDPOINTS)
def test_every_endpoint_refuses_a_request_without_credentials(method, url):
    # Given a run that exists, so the refusal is not a 404
    graded_run()

    response = getattr(APIClient(), method)(url)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    error = error_of(response)
    assert error["code"] == "not_authenticated"
    assert "Authorization: Token" in error["message"]


def test_a_wrong_token_is_refused_with_a_hint():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    response = client.get("/api/runs/")

    assert response.status_code == 401
    assert error_of(response)["code"] == "authentication_failed"


def test_a_token_is_issued_for_a_username_and_password():
    user = UserFactory(username="pipeline")

    response = APIClient().post(
        "/api/token/", {"username": "pipeline", "password": "correct horse battery staple"}
    )
    wrong = APIClient().post("/api/token/", {"username": "pipeline", "password": "nope"})

    assert response.status_code == 200
    assert response.json() == {"token": Token.objects.get(user=user).key}
    assert wrong.status_code == 400
    assert "non_field_errors" in error_of(wrong)["fields"]


def test_a_logged_in_browser_session_can_read_but_must_send_its_csrf_token(user):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)

    assert client.get("/api/projects/").status_code == 200
    refused = client.post("/api/projects/", {"name": "from the browser"}, format="json")
    assert refused.status_code == 403
    assert "CSRF" in error_of(refused)["message"]


def test_an_unknown_api_url_answers_json_404(api):
    response = api.get("/api/nothing/here/")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


@pytest.mark.parametrize(
    "url",
    [
        f"/api/projects/{MISSING}/",
        f"/api/runs/{MISSING}/",
        f"/api/runs/{MISSING}/items/",
        f"/api/runs/{MISSING}/stats/",
        f"/api/runs/{MISSING}/exports/",
        f"/api/runs/{MISSING}/export/?format=csv",
        f"/api/runs/compare/?run_a={MISSING}&run_b={MISSING}",
        f"/api/items/{MISSING}/",
        f"/api/items/{MISSING}/reviews/",
        f"/api/exports/{MISSING}/",
        f"/api/exports/{MISSING}/download/",
    ],
)
def test_an_object_you_cannot_see_is_404_and_tells_nothing(api, url):
    response = api.get(url)

    assert response.status_code == 404
    error = error_of(response)
    assert error["code"] == "not_found"
    assert str(MISSING) not in error["message"]


def test_an_inactive_users_token_sees_nothing(user, api):
    run = graded_run()
    user.is_active = False
    user.save()

    response = api.get(f"/api/runs/{run.pk}/")

    assert response.status_code == 401


# ---- projects -------------------------------------------------------------------------------


def test_projects_are_created_once_and_listed(api):
    created = api.post("/api/projects/", {"name": "GSM8K"}, format="json")
    again = api.post("/api/projects/", {"name": "GSM8K"}, format="json")
    listed = api.get("/api/projects/")
    detail = api.get(f"/api/projects/{created.json()['id']}/")

    assert (created.status_code, again.status_code) == (201, 200)
    assert created.json()["id"] == again.json()["id"]
    assert [p["name"] for p in listed.json()["results"]] == ["GSM8K"]
    assert detail.json()["name"] == "GSM8K"


def test_a_project_without_a_name_is_refused_naming_the_field(api):
    response = api.post("/api/projects/", {"name": ""}, format="json")

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and "name" in error["fields"]
    assert error["message"].startswith("The request is not valid: name:")


# ---- runs -----------------------------------------------------------------------------------


def test_a_run_is_created_from_an_uploaded_file_and_a_retry_returns_it(
    api, django_capture_on_commit_callbacks
):
    # Given a CSV file of outputs
    def upload():
        return api.post(
            "/api/runs/",
            {
                "project": "API",
                "file": _file(CSV, "outputs.csv"),
                "name": "first",
                "evaluators": ["exact", "math_verify"],
            },
            format="multipart",
        )

    # When it is uploaded, and uploaded again by a retrying client
    with django_capture_on_commit_callbacks() as callbacks:
        created = upload()
    retried = upload()

    # Then one run exists, queued for grading, and the retry got the same run back
    assert created.status_code == 201, created.json()
    assert retried.status_code == 200
    body = created.json()
    assert retried.json()["id"] == body["id"]
    assert Run.objects.count() == 1
    assert len(callbacks) == 1
    assert body["total_rows"] == 2 and body["status"] == "queued"
    assert body["evaluators"] == ["exact", "math_verify"]
    assert body["column_mapping"] == {"gold": "gold", "output": "output", "id": "id"}
    assert body["progress"] == {
        "graded": 0,
        "total": 2,
        "percent": 0,
        "done": False,
        "rows_per_second": None,
        "seconds_left": None,
        "stalled": False,
    }
    assert body["counts"]["total"] == 2


def _file(content: bytes, name: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content)


def test_a_run_is_created_from_json_rows_with_a_mapping(api):
    response = api.post(
        "/api/runs/",
        {
            "project": "API",
            "name": "rows",
            "rows": [
                {"qid": "q1", "reference": "2", "completion": "so 2", "seed": 1},
                {"qid": "q2", "reference": "3", "completion": "so 4", "seed": 2},
            ],
            "mapping": {"id": "qid", "gold": "reference", "output": "completion"},
        },
        format="json",
    )

    assert response.status_code == 201, response.json()
    run = Run.objects.get(pk=response.json()["id"])
    items = list(run.items.order_by("row_number").values("external_id", "gold", "extra"))
    assert items == [
        {"external_id": "q1", "gold": "2", "extra": {"seed": "1"}},
        {"external_id": "q2", "gold": "3", "extra": {"seed": "2"}},
    ]


def test_bad_rows_are_refused_with_the_line_and_nothing_is_stored(api):
    response = api.post(
        "/api/runs/",
        {"project": "API", "rows": [{"gold": "1", "output": "1"}, {"gold": "2"}]},
        format="json",
    )

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid_file"
    assert "line 2" in error["message"] and "'output'" in error["message"]
    assert not Run.objects.exists()


def test_rows_whose_columns_cannot_be_guessed_ask_for_a_mapping(api):
    response = api.post(
        "/api/runs/", {"project": "API", "rows": [{"x": "1", "y": "2"}]}, format="json"
    )

    assert response.status_code == 400
    message = error_of(response)["message"]
    assert "no column looks like the gold" in message and "columns found: x, y" in message


@pytest.mark.parametrize(
    "body, field",
    [
        ({"rows": [{"gold": "1", "output": "1"}]}, "project"),
        ({"project": "P"}, "rows"),
        ({"project": "P", "rows": []}, "rows"),
        ({"project": "P", "rows": ["not an object"]}, "rows"),
        (
            {"project": "P", "rows": [{"gold": "1", "output": "1"}], "evaluators": ["x"]},
            "evaluators",
        ),
        (
            {"project": "P", "rows": [{"gold": "1", "output": "1"}], "mapping": {"answer": "a"}},
            "mapping",
        ),
        ({"project": "P", "rows": [{"gold": "1", "output": "1"}], "delimiter": "#"}, "delimiter"),
    ],
)
def test_bad_run_input_names_the_field(api, body, field):
    response = api.post("/api/runs/", body, format="json")

    assert response.status_code == 400
    assert field in error_of(response)["fields"]
    assert not Run.objects.exists()


def test_malformed_json_is_a_400_that_says_so(api):
    response = api.generic("POST", "/api/runs/", "{not json", content_type="application/json")

    assert response.status_code == 400
    assert error_of(response)["code"] == "parse_error"


def test_run_list_pages_with_a_cursor_and_filters_by_project(api):
    project = ProjectFactory()
    runs = [RunFactory(project=project) for _ in range(3)]
    RunFactory()  # another project's

    first = api.get("/api/runs/", {"project": project.pk, "page_size": 2}).json()
    second = api.get(first["next"]).json()

    ids = [r["id"] for r in first["results"] + second["results"]]
    assert ids == [r.pk for r in reversed(runs)]
    assert second["next"] is None


def test_run_detail_has_counts_and_progress(api, django_assert_max_num_queries):
    run = graded_run()

    with django_assert_max_num_queries(6):
        body = api.get(f"/api/runs/{run.pk}/").json()

    assert body["counts"]["flagged"] == 1 and body["counts"]["total"] == 3
    assert body["progress"]["done"] is True and body["progress"]["percent"] == 100


def test_regrade_queues_the_run_again_and_refuses_unknown_evaluators(api):
    run = graded_run()

    accepted = api.post(f"/api/runs/{run.pk}/regrade/", {"evaluators": ["exact"]}, format="json")
    refused = api.post(f"/api/runs/{run.pk}/regrade/", {"evaluators": ["nope"]}, format="json")

    assert accepted.status_code == 202
    assert accepted.json()["status"] == "queued" and accepted.json()["evaluators"] == ["exact"]
    assert refused.status_code == 400 and "evaluators" in error_of(refused)["fields"]


# ---- items and reviews ----------------------------------------------------------------------


def test_items_use_the_run_pages_filters(api):
    run = graded_run()

    flagged = api.get(f"/api/runs/{run.pk}/items/", {"needs_review": "true"}).json()
    fractions = api.get(f"/api/runs/{run.pk}/items/", {"answer_type": "fraction"}).json()
    everything = api.get(f"/api/runs/{run.pk}/items/").json()

    assert [i["external_id"] for i in flagged["results"]] == ["flagged"]
    assert [i["external_id"] for i in fractions["results"]] == ["other"]
    assert [i["external_id"] for i in everything["results"]] == ["plain", "flagged", "other"]


@pytest.mark.parametrize(
    "query, field",
    [({"verdict": "maybe"}, "verdict"), ({"needs_review": "perhaps"}, "needs_review")],
)
def test_a_bad_item_filter_is_refused(api, query, field):
    run = graded_run()
    response = api.get(f"/api/runs/{run.pk}/items/", query)
    assert response.status_code == 400 and field in error_of(response)["fields"]


def test_item_detail_has_evaluations_and_reviews(api, django_assert_max_num_queries):
    run = graded_run()
    item = run.items.get(external_id="flagged")
    ReviewFactory(item=item, verdict="correct", note="the boxed answer is right")

    with django_assert_max_num_queries(5):
        body = api.get(f"/api/items/{item.pk}/").json()

    assert [e["evaluator"] for e in body["evaluations"]] == ["exact", "math_verify"]
    assert [(r["verdict"], r["note"]) for r in body["reviews"]] == [
        ("correct", "the boxed answer is right")
    ]


def test_a_review_becomes_the_final_verdict_and_bumps_the_version(api, user):
    item = graded_run().items.get(external_id="flagged")

    response = api.post(
        f"/api/items/{item.pk}/reviews/",
        {"verdict": "correct", "note": "fine", "expected_version": 0},
        format="json",
    )

    assert response.status_code == 201
    body = response.json()
    assert body["review"]["annotator"] == user.username
    assert (body["item"]["final_verdict"], body["item"]["final_source"]) == ("correct", "human")
    assert body["item"]["version"] == 1
    history = api.get(f"/api/items/{item.pk}/reviews/").json()["results"]
    assert [r["verdict"] for r in history] == ["correct"]


def test_a_review_on_a_stale_version_gets_409_with_the_current_state(api):  # F1
    # Given someone else decided the item after this client loaded it (version 0)
    item = graded_run().items.get(external_id="flagged")
    colleague = UserFactory(username="colleague")
    item.run.project.memberships.create(user=colleague, role=Membership.Role.ANNOTATOR)
    other = APIClient()
    other.force_authenticate(colleague)
    other.post(f"/api/items/{item.pk}/reviews/", {"verdict": "gold_wrong"}, format="json")

    # When this client saves its verdict for version 0
    response = api.post(
        f"/api/items/{item.pk}/reviews/",
        {"verdict": "incorrect", "expected_version": 0},
        format="json",
    )

    # Then it is refused with the item as it is now, and nothing of it is saved
    assert response.status_code == 409
    error = error_of(response)
    assert error["code"] == "stale_version"
    assert "now version 1" in error["message"]
    assert error["current"]["final_verdict"] == "gold_wrong"
    assert error["current"]["reviews"][0]["annotator"] == "colleague"
    assert Review.objects.filter(item=item).count() == 1


def test_a_retried_review_with_the_same_idempotency_key_is_saved_once(api):  # F2
    item = graded_run().items.get(external_id="flagged")

    def send():
        return api.post(
            f"/api/items/{item.pk}/reviews/",
            {"verdict": "correct", "expected_version": 0},
            format="json",
            HTTP_IDEMPOTENCY_KEY="review-42-attempt",
        )

    first, retry = send(), send()

    assert (first.status_code, retry.status_code) == (201, 201)
    assert first.json()["review"] == retry.json()["review"]
    assert Review.objects.filter(item=item).count() == 1
    assert Item.objects.get(pk=item.pk).version == 1


@pytest.mark.parametrize(
    "body, field",
    [
        ({"verdict": "perhaps"}, "verdict"),
        ({}, "verdict"),
        ({"verdict": "correct", "expected_version": -1}, "expected_version"),
        ({"verdict": "correct", "note": "x" * 5001}, "note"),
    ],
)
def test_a_bad_review_is_refused_naming_the_field(api, body, field):
    item = graded_run().items.get(external_id="flagged")

    response = api.post(f"/api/items/{item.pk}/reviews/", body, format="json")

    assert response.status_code == 400 and field in error_of(response)["fields"]
    assert not Review.objects.exists()


def test_a_review_with_a_misspelt_field_is_refused_naming_it(api):
    # Given a client that sends `version` where the API expects `expected_version`
    item = graded_run().items.get(external_id="flagged")

    # When it posts a review
    response = api.post(
        f"/api/items/{item.pk}/reviews/", {"verdict": "correct", "version": 0}, format="json"
    )

    # Then it is refused naming the field and the fields the endpoint accepts; nothing saved
    assert response.status_code == 400
    error = error_of(response)
    assert list(error["fields"]) == ["version"]
    assert "expected_version" in error["fields"]["version"][0]
    assert not Review.objects.exists()


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/projects/", {"name": "P", "colour": "red"}),
        ("/api/runs/{run}/regrade/", {"evaluators": ["math_verify"], "evaluator": "x"}),
        ("/api/runs/{run}/exports/", {"format": "csv", "varient": "raw"}),
    ],
)
def test_unknown_fields_are_refused_on_every_write(api, path, body):
    run = graded_run()

    response = api.post(path.format(run=run.pk), body, format="json")

    assert response.status_code == 400
    assert set(error_of(response)["fields"]) == set(body) - {"name", "evaluators", "format"}


# ---- statistics -----------------------------------------------------------------------------


def test_stats_are_the_stats_pages_numbers_as_json(api):
    run = graded_run()

    body = api.get(f"/api/runs/{run.pk}/stats/").json()
    by_subject = api.get(f"/api/runs/{run.pk}/stats/", {"breakdown": "subject"})
    unknown = api.get(f"/api/runs/{run.pk}/stats/", {"breakdown": "shoe size"})

    assert body["run_id"] == run.pk
    assert body["summary"]["total"] == 3 and body["summary"]["flagged"] == 1
    assert body["breakdown"]["key"] == "answer_type"
    assert by_subject.status_code == 200 and by_subject.json()["breakdown"]["key"] == "subject"
    assert unknown.status_code == 400 and "breakdown" in error_of(unknown)["fields"]


def test_two_runs_compare_by_problem_id(api):
    run_a, run_b = graded_run(), graded_run()

    response = api.get("/api/runs/compare/", {"run_a": run_a.pk, "run_b": run_b.pk})
    missing = api.get("/api/runs/compare/", {"run_a": run_a.pk})

    assert response.status_code == 200
    assert response.json()["matched"] == 3
    assert missing.status_code == 400 and "run_b" in error_of(missing)["fields"]


# ---- exports --------------------------------------------------------------------------------


def test_an_export_is_started_polled_and_downloaded(
    api, export_dir, django_capture_on_commit_callbacks
):
    # Given a graded run with one row whose gold is wrong
    run = graded_run()
    Item.objects.filter(run=run, external_id="other").update(
        final_verdict="gold_wrong", final_source="human"
    )

    # When a pipeline starts a JSONL export of it
    with django_capture_on_commit_callbacks() as callbacks:
        started = api.post(f"/api/runs/{run.pk}/exports/", {"format": "jsonl"}, format="json")

    # Then it is queued, with a link to poll, and the task is sent on commit
    assert started.status_code == 202
    job = started.json()
    assert job["status"] == "queued" and job["downloads"] is None
    assert started["Location"].endswith(f"/api/exports/{job['id']}/")
    assert len(callbacks) == 1
    early = api.get(f"/api/exports/{job['id']}/download/")
    assert early.status_code == 409 and error_of(early)["code"] == "not_ready"

    # And once written, polling shows the card and the links, which download the files
    exports.export_write(export_id=job["id"])
    polled = api.get(f"/api/exports/{job['id']}/").json()
    assert polled["status"] == "done" and polled["rows_done"] == 3
    assert polled["card"]["counts"]["gold_errata"] == 1
    data = api.get(polled["downloads"]["data"])
    rows = [json.loads(line) for line in b"".join(data.streaming_content).splitlines()]
    assert [r["id"] for r in rows] == ["plain", "flagged", "other"]
    errata = api.get(polled["downloads"]["gold_errata"])
    assert len(b"".join(errata.streaming_content).splitlines()) == 1
    card = api.get(polled["downloads"]["card_markdown"])
    assert card["Content-Type"].startswith("text/markdown")
    listed = api.get(f"/api/runs/{run.pk}/exports/").json()["results"]
    assert [e["id"] for e in listed] == [job["id"]]


@pytest.mark.parametrize(
    "body, field",
    [
        ({}, "format"),
        ({"format": "xlsx"}, "format"),
        ({"format": "csv", "variant": "pretty"}, "variant"),
        ({"format": "csv", "verdict": "great"}, "verdict"),
    ],
)
def test_a_bad_export_request_names_the_field(api, body, field):
    run = graded_run()

    response = api.post(f"/api/runs/{run.pk}/exports/", body, format="json")

    assert response.status_code == 400 and field in error_of(response)["fields"]
    assert not Export.objects.exists()


def test_a_bad_download_part_is_refused(api, export_dir):
    job = Export.objects.create(run=graded_run(), format="csv", status="done", file_name="x.csv")
    response = api.get(f"/api/exports/{job.pk}/download/", {"part": "secrets.txt"})
    assert response.status_code == 400 and "part" in error_of(response)["fields"]


def test_a_small_export_streams_directly(api):
    run = graded_run()

    response = api.get(
        f"/api/runs/{run.pk}/export/",
        {"format": "csv", "variant": "spreadsheet", "needs_review": "true"},
    )

    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    lines = b"".join(response.streaming_content).decode("utf-8-sig").splitlines()
    assert len(lines) == 2 and '"flagged"' in lines[1]


def test_a_large_export_asks_for_a_job_instead_of_streaming(api, settings):
    settings.MATHJURY_EXPORT_STREAM_MAX_ROWS = 2
    run = graded_run()

    response = api.get(f"/api/runs/{run.pk}/export/", {"format": "jsonl"})

    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "too_large_to_stream" and (error["rows"], error["limit"]) == (3, 2)
    assert "POST /api/runs/<id>/exports/" in error["message"]


# ---- schema and docs ------------------------------------------------------------------------


def test_the_openapi_schema_describes_every_endpoint():
    response = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")

    assert response.status_code == 200
    paths = json.loads(response.content)["paths"]
    for _, url in ENDPOINTS:
        template = url.split("?")[0].replace("/1/", "/{id}/")
        assert any(_same_shape(template, path) for path in paths), template


def _same_shape(template: str, path: str) -> bool:
    parts, others = template.strip("/").split("/"), path.strip("/").split("/")
    return len(parts) == len(others) and all(
        a == b or (a == "{id}" and b.startswith("{")) for a, b in zip(parts, others, strict=True)
    )


def test_the_docs_page_loads_swagger_from_our_own_static_files(client, settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }

    page = client.get(reverse("api:docs"))
    script = client.get(reverse("api:docs") + "?script=")

    assert page.status_code == 200
    body = page.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in body
    assert "<script>" not in body  # the init script is a file, so script-src 'self' holds
    policy = page["Content-Security-Policy"]
    assert "script-src 'self';" in policy or policy.endswith("script-src 'self'")
    # the one relaxation, for Swagger UI's inline <style> element, is on this page only
    assert "style-src-elem 'self' 'unsafe-inline'" in policy
    assert "unsafe-inline" not in client.get("/login/")["Content-Security-Policy"].replace(
        "style-src-attr 'unsafe-inline'", ""
    )
    assert script.status_code == 200 and b"/api/schema/" in script.content


def test_item_list_is_not_affected_by_other_runs(api):
    run, other = graded_run(), graded_run()
    ItemFactory(run=other, row_number=99)

    body = api.get(f"/api/runs/{run.pk}/items/").json()

    assert {i["run"] for i in body["results"]} == {run.pk}


def test_a_failed_export_says_why_when_polled_and_downloaded(api, settings, tmp_path):
    # Given the export folder cannot be created (a file is in its way)
    settings.MATHJURY_EXPORT_DIR = tmp_path / "not-a-folder"
    settings.MATHJURY_EXPORT_DIR.write_text("")
    run = graded_run()
    job = api.post(f"/api/runs/{run.pk}/exports/", {"format": "csv"}, format="json").json()

    # When the worker tries to write it
    with pytest.raises(OSError):
        exports.export_write(export_id=job["id"])

    # Then polling shows it failed and why, and a download says so instead of a file
    polled = api.get(f"/api/exports/{job['id']}/").json()
    assert polled["status"] == "failed" and "not-a-folder" in polled["error_message"]
    download = api.get(f"/api/exports/{job['id']}/download/")
    assert download.status_code == 409
    assert error_of(download)["message"].startswith(f"export {job['id']} failed:")


def test_a_username_with_a_nul_byte_is_refused_not_a_server_error(api):
    project = ProjectFactory()

    member = api.post(
        f"/api/projects/{project.pk}/members/", {"username": "\x00", "role": "viewer"}
    )

    assert member.status_code == 400
    assert "username" in error_of(member)["fields"]
