"""Generation through the page, the API and ``manage.py generate_run``; the LLM judge; what a
generated run's statistics and exports carry. Against the fake OpenAI-compatible server."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from grading.llm import JUDGE_EVALUATOR
from reviewer import stats
from reviewer.models import (
    Endpoint,
    Evaluation,
    GenerationJob,
    Item,
    JudgeVerdict,
    ProblemSet,
    Run,
)
from reviewer.selectors import ItemFilters
from reviewer.services import endpoints, exports, generation, judging, problem_sets, reviews
from tests.factories import ProjectFactory, grade_in_process

pytestmark = pytest.mark.django_db

PROBLEMS = b"id,problem,answer\np1,What is 2 + 3?,5\np2,What is 10 + 20?,31\n"
SECRET = "sk-secret-do-not-show-42"


@pytest.fixture(autouse=True)
def _static_urls_without_manifest(settings) -> None:
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def project(user):
    return ProjectFactory(name="web")


@pytest.fixture
def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def problem_set(project, user, store_upload):
    return problem_sets.problem_set_upload(
        stored=store_upload(PROBLEMS, "p.csv"), project_name=project.name, user=user
    ).problem_set


@pytest.fixture
def endpoint(project, user, openai_server):
    return endpoints.endpoint_create(
        project=project, user=user, name="fake", base_url=openai_server.base_url, model="fake"
    )


def generated_and_graded(problem_set, endpoint, user, **options) -> Run:
    """A run generated in this process and graded (the workers' work, done here)."""
    run = generation.generation_start(
        problem_set=problem_set,
        endpoint=endpoint,
        user=user,
        options=generation.GenerationOptions(evaluators=["math_verify"], **options),
    )
    job = GenerationJob.objects.get(run=run)
    generation.generation_work(run_id=run.pk, dispatch=job.dispatch)
    grade_in_process(run)
    return Run.objects.get(pk=run.pk)


# The page


def test_the_page_uploads_problems_saves_an_endpoint_and_generates(
    client, user, project, openai_server
):
    client.force_login(user)
    url = reverse("generate")
    uploaded = client.post(
        url,
        {
            "step": "problem_set",
            "project": project.pk,
            "file": SimpleUploadedFile("p.csv", PROBLEMS),
        },
    )
    assert uploaded.status_code == 302
    problem_set = ProblemSet.objects.get(project=project)
    saved = client.post(
        url,
        {
            "step": "endpoint",
            "project": project.pk,
            "name": "local",
            "base_url": openai_server.base_url,
            "model": "fake",
            "api_key": SECRET,
        },
    )
    assert saved.status_code == 302
    endpoint = Endpoint.objects.get(project=project)
    page = client.get(f"{url}?project={project.pk}")
    assert page.status_code == 200
    assert SECRET not in page.content.decode() and "saved (encrypted)" in page.content.decode()
    generated = client.post(
        url,
        {
            "step": "generate",
            "project": project.pk,
            "problem_set": problem_set.pk,
            "endpoint": endpoint.pk,
            "template": "math",
            "samples": 2,
            "timeout_s": 30,
            "concurrency": 4,
            "stop": "</answer>\n\n",
            "evaluators": ["math_verify"],
        },
    )
    run = Run.objects.get(project=project)
    assert generated.status_code == 302 and generated["Location"] == f"/runs/{run.pk}/"
    job = GenerationJob.objects.get(run=run)
    assert (job.samples, job.concurrency, job.stop) == (2, 4, ["</answer>"])


def test_a_bad_problem_file_on_the_page_lists_its_lines(client, user, project):
    client.force_login(user)
    refused = client.post(
        reverse("generate"),
        {
            "step": "problem_set",
            "project": project.pk,
            "file": SimpleUploadedFile("p.csv", b"problem,answer\n1+1,\n"),
        },
    )
    assert refused.status_code == 400
    assert "line 2: the gold is empty" in refused.content.decode()


def test_test_connection_shows_the_models_or_the_error(client, user, endpoint, openai_server):
    client.force_login(user)
    url = reverse("endpoint_test", args=[endpoint.pk])
    shown = client.post(url, headers={"HX-Request": "true"})
    assert "Models: fake-model" in shown.content.decode()
    openai_server.configure(api_key="another")
    refused = client.post(url, headers={"HX-Request": "true"})
    assert "401" in refused.content.decode()


def test_the_run_page_section_reports_the_generation(
    client, user, problem_set, endpoint, openai_server
):
    Endpoint.objects.filter(pk=endpoint.pk).update(price_input=1, price_output=2)
    run = generated_and_graded(problem_set, endpoint, user, samples=2)
    client.force_login(user)
    section = client.get(reverse("run_generation", args=[run.pk]))
    body = section.content.decode()
    assert section.status_code == 200
    assert "4 / 4 generated" in body
    assert 'data-gen="coverage">100%' in body  # every output has a boxed answer
    assert 'data-gen="score">50%' in body  # p2's gold (31) is wrong
    assert 'data-gen="cost">' in body
    page = client.get(reverse("run_detail", args=[run.pk]))
    assert reverse("run_generation", args=[run.pk]) in page.content.decode()


def test_an_uploaded_run_has_no_generation_section(client, user, project, store_upload):
    run = Run.objects.create(project=project, name="up", source_filename="f", source_sha256="x")
    client.force_login(user)
    assert client.get(reverse("run_generation", args=[run.pk])).status_code == 204


# The API


def test_the_api_never_returns_a_key(api, project, openai_server):
    created = api.post(
        f"/api/projects/{project.pk}/endpoints/",
        {"base_url": openai_server.base_url, "model": "fake", "api_key": SECRET},
        format="json",
    )
    assert created.status_code == 201 and created.json()["has_key"] is True
    listed = api.get(f"/api/projects/{project.pk}/endpoints/")
    assert SECRET not in created.content.decode() + listed.content.decode()
    tested = api.post(f"/api/endpoints/{created.json()['id']}/test/")
    assert tested.json() == {"ok": True, "models": ["fake-model"]}


def test_the_api_generates_reports_cancels_and_resumes(api, project, openai_server):
    uploaded = api.post(
        f"/api/projects/{project.pk}/problem-sets/",
        {"file": SimpleUploadedFile("p.csv", PROBLEMS)},
        format="multipart",
    )
    assert uploaded.status_code == 201 and uploaded.json()["problem_count"] == 2
    endpoint = api.post(
        f"/api/projects/{project.pk}/endpoints/",
        {"base_url": openai_server.base_url, "model": "fake"},
        format="json",
    ).json()
    started = api.post(
        "/api/runs/generate/",
        {
            "problem_set": uploaded.json()["id"],
            "endpoint": endpoint["id"],
            "samples": 3,
            "template": "yesno",
        },
        format="json",
    )
    assert started.status_code == 201, started.json()
    run_id = started.json()["run"]
    assert started.json()["pairs_total"] == 6 and started.json()["status"] == "queued"
    cancelled = api.post(f"/api/runs/{run_id}/generation/cancel/")
    assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelled"
    resumed = api.post(f"/api/runs/{run_id}/generation/resume/")
    assert resumed.json()["status"] == "queued"
    assert GenerationJob.objects.get(run_id=run_id).dispatch == 2


def test_the_api_refuses_bad_generation_settings(api, problem_set, endpoint):
    refused = api.post(
        "/api/runs/generate/",
        {"problem_set": problem_set.pk, "endpoint": endpoint.pk, "template": "Q: {question}"},
        format="json",
    )
    assert refused.status_code == 400
    assert "unknown placeholder {question}" in refused.json()["error"]["message"]


def test_the_api_hides_other_projects_problem_sets(api, store_upload, openai_server):
    other = ProjectFactory(name="theirs", created_by=None)
    assert api.get(f"/api/projects/{other.pk}/problem-sets/").status_code == 404


# The command


def test_the_command_prints_the_run_and_resume_reuses_it(store_upload, tmp_path, openai_server):
    problems = tmp_path / "problems.csv"
    problems.write_bytes(PROBLEMS)
    out = StringIO()
    call_command(
        "generate_run",
        str(problems),
        "--project",
        "cli",
        "--base-url",
        openai_server.base_url,
        "--model",
        "fake",
        "--samples",
        "4",
        "--concurrency",
        "2",
        "--template",
        "yesno",
        "--max-tokens",
        "64",
        "--temperature",
        "0.6",
        "--api-key-env",
        "MJ_CLI_KEY",
        stdout=out,
    )
    run = Run.objects.get(project__name="cli")
    assert out.getvalue() == f"run {run.pk}\n"
    job = GenerationJob.objects.get(run=run)
    assert (job.samples, job.max_tokens, job.temperature) == (4, 64, 0.6)
    assert job.endpoint.api_key_env == "MJ_CLI_KEY" and job.template_name == "yesno"
    again = StringIO()
    call_command("generate_run", "--resume", str(run.pk), stdout=again)
    assert again.getvalue() == f"run {run.pk}\n"


def test_the_command_says_what_is_missing():
    with pytest.raises(CommandError, match="missing: PROBLEMS_FILE, --project"):
        call_command("generate_run", "--base-url", "http://127.0.0.1:1/v1", "--model", "m")
    with pytest.raises(CommandError, match="run 999 does not exist"):
        call_command("generate_run", "--resume", "999")


# The LLM judge


def judge_says(openai_server, verdict: str) -> None:
    reply = json.dumps({"verdict": verdict, "reason": "compared the values"})
    openai_server.script("<output>", reply)


def test_the_judge_flags_a_disagreement_and_never_changes_a_verdict(
    user, problem_set, endpoint, openai_server
):
    run = generated_and_graded(problem_set, endpoint, user)
    right, wrong = run.items.order_by("row_number")
    assert (right.auto_verdict, wrong.auto_verdict) == ("correct", "incorrect")
    reviews.item_review(item=wrong, user=user, verdict="incorrect", role="owner")
    judge_says(openai_server, "correct")
    judging.judge_chunk(run_id=run.pk, endpoint_id=endpoint.pk, item_ids=[right.pk, wrong.pk])
    right.refresh_from_db()
    wrong.refresh_from_db()
    assert "judge_disagrees" not in [r["code"] for r in right.review_reasons]
    assert "judge_disagrees" in [r["code"] for r in wrong.review_reasons]
    assert wrong.needs_review and wrong.final_verdict == "incorrect"
    assert wrong.final_source == Item.FinalSource.HUMAN
    judged = Evaluation.objects.get(item=wrong, evaluator=JUDGE_EVALUATOR)
    assert (judged.status, judged.verdict, judged.detail) == (
        "ok",
        "correct",
        "compared the values",
    )
    # and it appears in the statistics like any evaluator
    assert JUDGE_EVALUATOR in stats.run_stats(run=run).evaluators


def test_the_judge_asks_each_pair_once(user, problem_set, endpoint, openai_server):
    run = generated_and_graded(problem_set, endpoint, user)
    ids = list(run.items.values_list("pk", flat=True))
    judge_says(openai_server, "incorrect")
    openai_server.reset()
    judge_says(openai_server, "incorrect")
    judging.judge_chunk(run_id=run.pk, endpoint_id=endpoint.pk, item_ids=ids)
    judging.judge_chunk(run_id=run.pk, endpoint_id=endpoint.pk, item_ids=ids)
    assert openai_server.state()["requests"] == {"/v1/chat/completions": 2}
    assert JudgeVerdict.objects.count() == 2


def test_the_judge_runs_on_flagged_rows_by_default(
    user, problem_set, endpoint, openai_server, django_capture_on_commit_callbacks
):
    run = generated_and_graded(problem_set, endpoint, user)
    flagged = run.items.filter(needs_review=True).count()
    with django_capture_on_commit_callbacks(execute=False):
        assert judging.judge_enqueue(run=run, endpoint=endpoint, user=user) == flagged
        assert judging.judge_enqueue(run=run, endpoint=endpoint, scope="all", user=user) == 2


# Exports


def test_exports_of_generated_runs_carry_the_generation_columns(
    user, problem_set, endpoint, openai_server
):
    run = generated_and_graded(problem_set, endpoint, user, samples=2)
    streamed = exports.export_stream(
        run=run, user=user, format="jsonl", variant="raw", filters=ItemFilters()
    )
    rows = [json.loads(line) for line in b"".join(streamed.chunks).decode().splitlines()]
    first = rows[0]
    assert (first["id"], first["gold"], first["sample_index"]) == ("p1", "5", 0)
    assert first["problem"] == "What is 2 + 3?" and "\\boxed{5}" in first["output"]
    assert first["finish_reason"] == "stop" and first["model"] == "fake"
    assert int(first["prompt_tokens"]) > 0 and int(first["completion_tokens"]) > 0
    assert first["eval_math_verify_verdict"] == "correct" and first["final_verdict"] == "correct"
    assert [(r["id"], r["sample_index"]) for r in rows] == [
        ("p1", 0),
        ("p1", 1),
        ("p2", 0),
        ("p2", 1),
    ]
