"""Problem sets, saved endpoints and generated runs, driven in this process against the fake
OpenAI-compatible server (tests/fakes/openai_server.py)."""

from __future__ import annotations

import logging
import time

import pytest
from django.db import connection

from grading.llm import EndpointError
from grading.reader import IngestError
from reviewer.generation_report import generation_report
from reviewer.models import Endpoint, GeneratedOutput, GenerationJob, Item, Run
from reviewer.services import endpoints, generation, problem_sets
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

PROBLEMS = (
    b"unique_id,problem,solution,answer,subject,level\n"
    b"p1,What is 2 + 3?,Add them.,5,Algebra,Level 1\n"
    b"p2,What is 10 + 20?,Add them.,30,Algebra,Level 2\n"
    b"p3,What is 1 + 1?,Add them.,3,Algebra,Level 1\n"
)


@pytest.fixture
def project(user):
    return ProjectFactory(name="gen")


@pytest.fixture
def problem_set(project, user, store_upload):
    return problem_sets.problem_set_upload(
        stored=store_upload(PROBLEMS, "problems.csv"), project_name=project.name, user=user
    ).problem_set


@pytest.fixture
def endpoint(project, user, openai_server):
    return endpoints.endpoint_create(
        project=project,
        user=user,
        name="fake",
        base_url=openai_server.base_url,
        model="fake-model",
    )


def start(problem_set, endpoint, user, **options) -> Run:
    return generation.generation_start(
        problem_set=problem_set,
        endpoint=endpoint,
        user=user,
        options=generation.GenerationOptions(**{"evaluators": ["math_verify"], **options}),
    )


def work(run: Run) -> int:
    job = GenerationJob.objects.get(run=run)
    return generation.generation_work(run_id=run.pk, dispatch=job.dispatch)


def test_a_problem_file_becomes_a_problem_set_with_every_field(problem_set):
    problems = list(problem_set.problems.order_by("position"))
    assert problem_set.problem_count == 3
    assert [p.external_id for p in problems] == ["p1", "p2", "p3"]
    assert problems[0].gold == "5" and problems[0].solution == "Add them."
    assert problems[1].subject == "Algebra" and problems[1].level == "Level 2"
    assert problems[2].source_line == 4


def test_the_same_problem_file_twice_is_one_problem_set(project, user, store_upload, problem_set):
    again = problem_sets.problem_set_upload(
        stored=store_upload(PROBLEMS, "again.csv"), project_name=project.name, user=user
    )
    assert again.duplicate and again.problem_set == problem_set


def test_a_bad_problem_file_lists_its_lines_and_stores_nothing(project, user, store_upload):
    bad = b"problem,answer\nWhat is 1+1?,2\nWhat is 2+2?,\n,7\n"
    with pytest.raises(IngestError) as refused:
        problem_sets.problem_set_upload(
            stored=store_upload(bad, "bad.csv"), project_name=project.name, user=user
        )
    assert refused.value.problems == ["line 3: the gold is empty", "line 4: the problem is empty"]
    assert not project.problem_sets.exists()


def test_a_problem_file_without_a_gold_column_is_refused(project, user, store_upload):
    with pytest.raises(IngestError, match="no column looks like the gold"):
        problem_sets.problem_set_upload(
            stored=store_upload(b"question,notes\nWhat?,none\n", "p.csv"),
            project_name=project.name,
            user=user,
        )


def test_jsonl_problem_files_read_like_math(project, user, store_upload):
    content = b'{"problem": "What is 4 + 4?", "answer": "8", "level": "Level 3"}\n'
    problem_set = problem_sets.problem_set_upload(
        stored=store_upload(content, "math.jsonl"), project_name=project.name, user=user
    ).problem_set
    problem = problem_set.problems.get()
    assert (problem.gold, problem.level) == ("8", "Level 3")


def test_an_api_key_is_stored_encrypted_and_read_back_only_by_the_workers(project, user):
    saved = endpoints.endpoint_create(
        project=project,
        user=user,
        name="hosted",
        base_url="https://api.example.com/v1",
        model="m",
        api_key="sk-very-secret-123",
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM reviewer_endpoint WHERE id = %s", [saved.pk])
        dumped = repr(cursor.fetchall())
    assert "sk-very-secret-123" not in dumped
    assert endpoints.endpoint_config(endpoint=saved).api_key == "sk-very-secret-123"
    assert "sk-very-secret-123" not in repr(endpoints.endpoint_config(endpoint=saved))


def test_a_key_saved_under_another_secret_key_is_a_clear_error(project, user, settings):
    saved = endpoints.endpoint_create(
        project=project,
        user=user,
        name="hosted",
        base_url="https://api.example.com/v1",
        model="m",
        api_key="sk-very-secret-123",
    )
    settings.SECRET_KEY = "another-secret-key"
    with pytest.raises(endpoints.EndpointSetupError, match="save the endpoint's key again"):
        endpoints.endpoint_config(endpoint=saved)


def test_a_key_in_an_environment_variable_is_read_where_the_work_runs(project, user, monkeypatch):
    saved = endpoints.endpoint_create(
        project=project,
        user=user,
        name="env",
        base_url="http://127.0.0.1:1/v1",
        model="m",
        api_key_env="MJ_TEST_KEY",
    )
    assert saved.api_key_encrypted == ""
    with pytest.raises(endpoints.EndpointSetupError, match="MJ_TEST_KEY .* is not set"):
        endpoints.endpoint_config(endpoint=saved)
    monkeypatch.setenv("MJ_TEST_KEY", "sk-env")
    assert endpoints.endpoint_config(endpoint=saved).api_key == "sk-env"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"base_url": "ftp://x/v1"}, "not an http"),
        ({"base_url": "http://me:pw@127.0.0.1/v1"}, "user name or password"),
        ({"api_key": "k", "api_key_env": "K"}, "not both"),
        ({"api_key_env": "not a name"}, "must be a name"),
    ],
)
def test_an_endpoint_that_cannot_work_is_refused(project, user, fields, message):
    with pytest.raises(endpoints.EndpointSetupError, match=message):
        endpoints.endpoint_create(
            project=project,
            user=user,
            name="x",
            **{"base_url": "http://127.0.0.1:1/v1", "model": "m", **fields},
        )
    assert not Endpoint.objects.exists()


def test_test_connection_lists_the_servers_models(endpoint, openai_server):
    openai_server.configure(models=["fake-model", "other"])
    assert endpoints.endpoint_test(endpoint=endpoint) == ("fake-model", "other")


def test_a_wrong_key_is_never_in_the_error(project, user, openai_server):
    openai_server.configure(api_key="the-right-key")
    saved = endpoints.endpoint_create(
        project=project,
        user=user,
        name="wrong",
        base_url=openai_server.base_url,
        model="fake-model",
        api_key="sk-wrong-key-456",
    )
    with pytest.raises(Exception) as failed:
        endpoints.endpoint_test(endpoint=saved)
    assert "401" in str(failed.value) or "authentication" in str(failed.value).lower()
    assert "sk-wrong-key-456" not in str(failed.value)


def test_a_generated_run_stores_every_pair_once_with_its_tokens(
    problem_set, endpoint, user, openai_server
):
    run = start(problem_set, endpoint, user, samples=2, concurrency=4, temperature=0.7, seed=1)
    assert run.total_rows == 6
    assert work(run) == 6
    items = list(Item.objects.filter(run=run).order_by("row_number"))
    assert [(i.external_id, i.sample_index, i.row_number) for i in items] == [
        ("p1", 0, 1),
        ("p1", 1, 2),
        ("p2", 0, 3),
        ("p2", 1, 4),
        ("p3", 0, 5),
        ("p3", 1, 6),
    ]
    assert "\\boxed{5}" in items[0].output and items[0].gold == "5"
    assert items[0].finish_reason == "stop" and items[0].model_name == "fake-model"
    assert items[0].extra["completion_tokens"] > 0 and items[0].extra["level"] == "Level 1"
    assert all(i.grade_state == Item.GradeState.PENDING for i in items)
    job = GenerationJob.objects.get(run=run)
    assert job.status == GenerationJob.Status.DONE
    report = generation_report(run=run)
    assert (report.pairs_done, report.pairs_total) == (6, 6)
    assert report.prompt_tokens > 0 and report.completion_tokens > 0


def test_servers_that_ignore_n_still_give_every_sample(problem_set, endpoint, user, openai_server):
    openai_server.configure(ignore_n=True)
    run = start(problem_set, endpoint, user, samples=3)
    assert work(run) == 9
    assert GeneratedOutput.objects.filter(run=run).count() == 9


def test_resume_asks_only_for_missing_pairs(problem_set, endpoint, user, openai_server):
    run = start(problem_set, endpoint, user, samples=2, concurrency=1)
    work(run)
    # Given a run whose last problem's outputs were never received
    Item.objects.filter(run=run, external_id="p3").delete()
    openai_server.reset()
    generation.generation_resume(run=run, user=user)
    work(run)
    assert openai_server.state()["requests"] == {"/v1/chat/completions": 1}
    assert sum(openai_server.answered().values()) == 2  # n=2, for the missing problem only
    assert Item.objects.filter(run=run).count() == 6
    assert GeneratedOutput.objects.filter(run=run).count() == 6


def test_a_refused_key_fails_the_generation_with_a_message(
    problem_set, project, user, openai_server
):
    openai_server.configure(api_key="right")
    wrong = endpoints.endpoint_create(
        project=project,
        user=user,
        name="w",
        base_url=openai_server.base_url,
        model="fake-model",
        api_key="sk-not-right-789",
    )
    run = start(problem_set, wrong, user, concurrency=1)
    work(run)
    job = GenerationJob.objects.get(run=run)
    assert job.status == GenerationJob.Status.FAILED
    assert "401" in job.error_message and "sk-not-right-789" not in job.error_message
    # The first refusal stops the generation; the one request sent while it was being stored
    # (complete_many_batched refills a freed slot at once) is the only other one.
    assert job.errors == {"authentication": 2}


def test_429_and_500_are_retried_and_nothing_is_lost(
    problem_set, endpoint, user, openai_server, caplog
):
    openai_server.fail_next(
        {"status": 429, "retry_after": 0.1}, {"status": 500, "message": "CUDA out of memory"}
    )
    caplog.set_level(logging.DEBUG)
    run = start(problem_set, endpoint, user, concurrency=1)
    work(run)
    job = GenerationJob.objects.get(run=run)
    assert job.status == GenerationJob.Status.DONE
    assert job.retries == 2 and job.requests_failed == 0
    assert Item.objects.filter(run=run).count() == 3


def test_an_outage_stops_the_generation_and_resume_completes_it(
    problem_set, endpoint, user, openai_server, settings
):
    run = start(problem_set, endpoint, user, samples=2, concurrency=1)
    job = GenerationJob.objects.get(run=run)
    openai_server.outage(seconds=5, after_requests=1)
    # Quick retries, so the outage outlasts them.
    GenerationJob.objects.filter(pk=job.pk).update(timeout_s=1)
    settings.MATHJURY_GENERATION_RETRY_ATTEMPTS = 2
    work(run)
    job.refresh_from_db()
    assert job.status == GenerationJob.Status.INCOMPLETE
    assert "4 pairs are missing" in job.error_message and "resume" in job.error_message
    assert job.errors == {"connection": 2}
    assert Item.objects.filter(run=run).count() == 2
    wait_until_up(endpoint)
    openai_server.reset()
    generation.generation_resume(run=run, user=user)
    work(run)
    job.refresh_from_db()
    assert job.status == GenerationJob.Status.DONE
    assert Item.objects.filter(run=run).count() == 6
    assert list(openai_server.answered().values()) == [1] * 4  # the 2 missing problems × 2


def wait_until_up(endpoint) -> None:
    """Until the fake server's outage is over (a condition, not a duration)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            endpoints.endpoint_test(endpoint=endpoint)
            return
        except EndpointError:
            assert time.monotonic() < deadline, "the fake server stayed down"


def test_cancel_stops_new_requests(problem_set, endpoint, user, openai_server):
    run = start(problem_set, endpoint, user)
    generation.generation_cancel(run=run, user=user)
    assert work(run) == 0
    assert GenerationJob.objects.get(run=run).status == GenerationJob.Status.CANCELLED
    assert openai_server.state()["requests"] == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"template": "Answer: {question}"}, "unknown placeholder"),
        ({"template": "nonsense"}, "no ready-made template"),
        ({"temperature": 5.0}, "temperature"),
        ({"samples": 0}, "samples per problem"),
        ({"concurrency": 1000}, "concurrency"),
        ({"evaluators": ["nope"]}, "unknown evaluator"),
    ],
)
def test_bad_generation_settings_are_refused_before_anything_is_stored(
    problem_set, endpoint, user, options, message
):
    with pytest.raises(generation.GenerationSetupError, match=message):
        start(problem_set, endpoint, user, **options)
    assert not Run.objects.exists()
