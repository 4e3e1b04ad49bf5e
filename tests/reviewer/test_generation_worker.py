"""A generated run with real Celery workers and the fake OpenAI-compatible server: the worker is
SIGKILLed mid-generation, and resume completes every (problem, sample) pair exactly once."""

from __future__ import annotations

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from reviewer.models import GeneratedOutput, GenerationJob, Item, Run
from reviewer.services import endpoints, generation, problem_sets
from tests.factories import ProjectFactory
from tests.reviewer.test_worker import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PROBLEMS = 100
SAMPLES = 4
CONCURRENCY = 2
WORKER_ENV = {
    "MATHJURY_CHUNK_SIZE": "20",
    "MATHJURY_TASK_TIME_LIMIT": "20",  # grading tasks of a lost worker come back after 50 s
    "MATHJURY_GENERATION_SLICE_SECONDS": "3",
}


def problem_file() -> bytes:
    lines = ["id,problem,answer"]
    for n in range(PROBLEMS):
        a, b = n, 2 * n + 1
        # Every fifth gold is wrong, so some rows are graded incorrect and flagged.
        gold = a + b + (1 if n % 5 == 0 else 0)
        lines.append(f"q{n},What is {a} + {b}?,{gold}")
    return "\n".join(lines).encode()


def test_a_killed_worker_loses_nothing_and_resume_stores_every_pair_once(
    user, store_upload, celery_worker_process, openai_server, capsys
):
    # given a 100 × 4 generation against a server answering in 0.3 s, two requests at a time
    openai_server.configure(latency_s=0.3)
    project = ProjectFactory(name="killed")
    problem_set = problem_sets.problem_set_upload(
        stored=store_upload(problem_file(), "problems.csv"), project_name=project.name, user=user
    ).problem_set
    endpoint = endpoints.endpoint_create(
        project=project, user=user, name="fake", base_url=openai_server.base_url, model="m"
    )
    worker = celery_worker_process(**WORKER_ENV)
    run = generation.generation_start(
        problem_set=problem_set,
        endpoint=endpoint,
        user=user,
        options=generation.GenerationOptions(
            samples=SAMPLES, concurrency=CONCURRENCY, evaluators=["math_verify"]
        ),
    )
    stored = GeneratedOutput.objects.filter(run=run)
    # when the whole worker is SIGKILLed half way through
    wait_for(lambda: stored.count() >= 160, timeout=300, what="160 outputs", poll=0.1)
    worker.kill()
    before_kill = stored.count()
    assert before_kill < PROBLEMS * SAMPLES
    # and the run is resumed with a new worker
    call_command("generate_run", "--resume", str(run.pk))
    celery_worker_process(**WORKER_ENV)
    job = GenerationJob.objects.filter(run=run)
    wait_for(
        lambda: job.get().status == GenerationJob.Status.DONE,
        timeout=300,
        what="generation to finish",
    )
    wait_for(
        lambda: Run.objects.get(pk=run.pk).status == Run.Status.DONE,
        timeout=300,
        what="grading to finish",
    )
    # then every pair is stored exactly once, graded, and nothing received was lost
    pairs = Counter(stored.values_list("problem_id", "sample_index"))
    assert len(pairs) == PROBLEMS * SAMPLES and set(pairs.values()) == {1}
    items = Item.objects.filter(run=run)
    assert items.count() == PROBLEMS * SAMPLES
    assert items.filter(grade_state=Item.GradeState.GRADED).count() == PROBLEMS * SAMPLES
    assert items.filter(auto_verdict="incorrect").count() == (PROBLEMS // 5) * SAMPLES
    # and the server answered each pair at least once; a pair answered twice was lost with
    # the worker: in flight (at most the concurrency's worth of requests) or landed in the
    # batch it was storing, which the requests sent meanwhile bound by the concurrency again
    answered = openai_server.answered()
    assert len(answered) == PROBLEMS * SAMPLES
    repeated = sum(answered.values()) - PROBLEMS * SAMPLES
    assert repeated <= 2 * CONCURRENCY * SAMPLES
    with capsys.disabled():
        print(
            f"\nkilled after {before_kill} of {PROBLEMS * SAMPLES} outputs; "
            f"pairs answered twice: {repeated}"
        )


def test_the_command_waits_until_the_run_is_generated_and_graded(
    celery_worker_process, openai_server, tmp_path
):
    # given a worker and a file of 10 problems
    celery_worker_process(**WORKER_ENV)
    problems = tmp_path / "problems.csv"
    problems.write_text(
        "id,problem,answer\n" + "".join(f"q{n},What is {n} + 1?,{n + 1}\n" for n in range(10))
    )
    out, err = StringIO(), StringIO()
    # when generate_run is called with --wait
    call_command(
        "generate_run",
        str(problems),
        "--project",
        "waited",
        "--base-url",
        openai_server.base_url,
        "--model",
        "fake",
        "--samples",
        "2",
        "--evaluators",
        "math_verify",
        "--wait",
        stdout=out,
        stderr=err,
    )
    # then it printed the run, and returned once every pair was generated and graded
    run = Run.objects.get(project__name="waited")
    assert out.getvalue() == f"run {run.pk}\n"
    assert run.status == Run.Status.DONE
    assert (
        run.items.filter(grade_state=Item.GradeState.GRADED, auto_verdict="correct").count() == 20
    )
    assert "20/20 generated, 20 graded" in err.getvalue()
