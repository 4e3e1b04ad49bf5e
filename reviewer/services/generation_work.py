"""The workers' side of generating a run: one slice of requests per task.

Each ``reviewer.generate_run`` task takes the job's lease (a heartbeat), computes the missing
(problem, sample) pairs, asks for them with grading.llm.complete_many up to the job's
concurrency, stores each outcome in its own transaction the moment it lands, and sends grading
tasks for what arrived, chunk by chunk. After MATHJURY_GENERATION_SLICE_SECONDS it stops
sending, stores what is in flight and queues the next slice, so no task outlives its time
limit. A task of an earlier dispatch (before a resume) or one redelivered while another holds
a fresh lease does nothing; a pair already stored is skipped by the unique constraints.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from grading.llm import (
    ChatOutcome,
    ChatRequest,
    EndpointClient,
    ErrorKind,
    PromptTemplate,
    RetryPolicy,
    SamplingParams,
    chat_messages,
    complete_many_batched,
)
from reviewer.celery import app as celery_app
from reviewer.models import GeneratedOutput, GenerationJob, Item, Problem, Run
from reviewer.services.endpoints import EndpointSetupError, endpoint_config
from reviewer.services.generation_store import pairs_store
from reviewer.services.grading import grading_enqueue, run_finish_if_done

logger = logging.getLogger(__name__)

GENERATE_TASK = "reviewer.generate_run"  # reviewer.tasks.generate_run
Status = GenerationJob.Status
LEASE_SECONDS = 30  # a task whose heartbeat is older than this is taken to be dead


def generation_send(job: GenerationJob) -> None:
    """Send the job's next slice (after commit), by name; CELERY_TASK_ROUTES puts it on the
    generation queue."""
    slice_s = settings.MATHJURY_GENERATION_SLICE_SECONDS
    # The slice stops sending at its deadline; what is in flight may still retry a few times.
    hard = int(slice_s + 4 * job.timeout_s + 120)
    celery_app.send_task(
        GENERATE_TASK,
        args=(job.run_id, job.dispatch),
        time_limit=hard,
        soft_time_limit=hard - 30,
    )


def grading_recover(run_id: int) -> None:
    """Send grading for rows stored by a task that died before it sent them (after a killed
    worker). A row whose task is merely still queued is sent twice, which grades it once."""
    item_ids = list(
        Item.objects.filter(run_id=run_id, grade_state=Item.GradeState.PENDING, grade_attempts=0)
        .order_by("row_number")
        .values_list("pk", flat=True)
    )
    if item_ids:
        generation = Run.objects.filter(pk=run_id).values_list("grading_generation", flat=True)[0]
        grading_enqueue(run_id=run_id, generation=generation, item_ids=item_ids)


def grading_finish(run_id: int) -> None:
    run = Run.objects.only("grading_generation").get(pk=run_id)
    run_finish_if_done(run_id=run_id, generation=run.grading_generation)


def missing_pairs(*, job: GenerationJob) -> Iterator[tuple[Problem, tuple[int, ...]]]:
    """Each problem with the samples of it not stored yet, in the file's order."""
    stored: dict[int, set[int]] = {}
    for problem_id, sample in GeneratedOutput.objects.filter(run_id=job.run_id).values_list(
        "problem_id", "sample_index"
    ):
        stored.setdefault(problem_id, set()).add(sample)
    # Pages by position, not a server-side cursor: the caller commits between items.
    problems = Problem.objects.filter(problem_set_id=job.problem_set_id).order_by("position")
    last = -1
    while page := list(problems.filter(position__gt=last)[:2000]):
        last = page[-1].position
        for problem in page:
            have = stored.get(problem.pk, set())
            samples = tuple(s for s in range(job.samples) if s not in have)
            if samples:
                yield problem, samples


@dataclass
class _Slice:
    """One task's share of the work, and what it has seen."""

    job: GenerationJob
    deadline: float
    stop_reason: str = ""  # why it stopped sending early: "dispatch", "cancelled", "failed", ...
    message: str = ""
    consecutive_failures: int = 0
    stored_any: bool = False
    checked_at: float = 0.0
    to_grade: list[int] = field(default_factory=list)
    graded_sent_at: float = field(default_factory=time.monotonic)

    def cancelled(self) -> bool:
        """Checked by complete_many before it sends more: a resume, a cancel, the deadline."""
        if self.stop_reason:
            return True
        if time.monotonic() >= self.deadline:
            self.stop_reason = "deadline"
            return True
        if time.monotonic() - self.checked_at >= 0.5:
            self.checked_at = time.monotonic()
            current = GenerationJob.objects.filter(pk=self.job.pk).values("dispatch", "status")[0]
            if current["dispatch"] != self.job.dispatch:
                self.stop_reason = "dispatch"
            elif current["status"] == Status.CANCELLED:
                self.stop_reason = "cancelled"
            else:
                GenerationJob.objects.filter(pk=self.job.pk).update(heartbeat_at=timezone.now())
        return bool(self.stop_reason)


def generation_work(*, run_id: int, dispatch: int) -> int:
    """One slice of a run's generation (the task's work); returns how many outputs it stored.

    A task of an earlier dispatch, or one redelivered while another still holds the job's
    lease (a heartbeat under LEASE_SECONDS old), does nothing.
    """
    job = _lease(run_id=run_id, dispatch=dispatch)
    if job is None:
        return 0
    work = _Slice(
        job=job,
        deadline=time.monotonic() + settings.MATHJURY_GENERATION_SLICE_SECONDS,
    )
    try:
        config = endpoint_config(
            endpoint=job.endpoint, model=job.run.model_name, timeout_s=job.timeout_s
        )
    except EndpointSetupError as error:
        _end(job, Status.FAILED, str(error))
        return 0
    template = PromptTemplate(name=job.template_name, text=job.template_text)
    requests = (
        ChatRequest(
            key=problem,
            messages=chat_messages(template, problem.problem, job.system_prompt),
            samples=samples,
        )
        for problem, samples in missing_pairs(job=job)
    )
    sampling = SamplingParams(
        temperature=job.temperature,
        top_p=job.top_p,
        max_tokens=job.max_tokens,
        seed=job.seed,
        stop=tuple(job.stop),
    )
    stored = 0
    retry = RetryPolicy(max_attempts=settings.MATHJURY_GENERATION_RETRY_ATTEMPTS)
    with EndpointClient(config, retry) as client:
        for landed in complete_many_batched(
            client,
            requests,
            concurrency=job.concurrency,
            sampling=sampling,
            cancelled=work.cancelled,
        ):
            stored += _outcomes_store(work, landed)
            _grade_arrived(work, force=False)
    _grade_arrived(work, force=True)
    _slice_end(work)
    return stored


def _lease(*, run_id: int, dispatch: int) -> GenerationJob | None:
    with transaction.atomic():
        job = (
            GenerationJob.objects.select_for_update(of=("self",))
            .select_related("run", "endpoint")
            .filter(run_id=run_id)
            .first()
        )
        if job is None or job.dispatch != dispatch or not job.active:
            return None
        now = timezone.now()
        if job.heartbeat_at and now - job.heartbeat_at < timedelta(seconds=LEASE_SECONDS):
            if job.status == Status.GENERATING:
                logger.info("run %s: another task holds the generation", run_id)
                return None
        elif job.heartbeat_at and job.status == Status.GENERATING:
            # The task that held the lease died: rows it stored may never have been sent
            # to grading.
            transaction.on_commit(partial(grading_recover, run_id))
        job.status = Status.GENERATING
        job.started_at = job.started_at or now
        job.heartbeat_at = now
        job.save(update_fields=["status", "started_at", "heartbeat_at"])
    return job


def _outcomes_store(work: _Slice, landed: list[ChatOutcome]) -> int:
    """Store what the requests that landed together brought, in one transaction (one request
    when the caller keeps up, more while it was busy); returns how many pairs were new."""
    job = work.job
    errors = Counter(str(o.error.kind) for o in landed if o.error is not None)
    answered = [o for o in landed if o.error is None]
    pairs = [(o.request.key, c) for o in answered for c in o.completions]
    try:
        with transaction.atomic():
            new_ids = pairs_store(job, pairs, one_by_one=False)
            _counters_add(job, landed, answered, errors)
    except IntegrityError:
        # Another task stored one of these pairs meanwhile: each on its own, skipping those.
        with transaction.atomic():
            new_ids = pairs_store(job, pairs, one_by_one=True)
            _counters_add(job, landed, answered, errors)
    work.to_grade.extend(new_ids)
    for outcome in landed:
        if outcome.error is not None:
            problem: Problem = outcome.request.key
            logger.warning("run %s, problem %s: %s", job.run_id, problem.position, outcome.error)
            _judge_failure(work, outcome.error)
        else:
            work.consecutive_failures = 0
    work.stored_any = work.stored_any or bool(new_ids)
    return len(new_ids)


def _counters_add(job: GenerationJob, landed: list, answered: list, errors: Counter) -> None:
    if errors:
        locked = GenerationJob.objects.select_for_update().get(pk=job.pk)
        locked.errors = dict(Counter(locked.errors) + errors)
        locked.save(update_fields=["errors"])
    GenerationJob.objects.filter(pk=job.pk).update(
        requests_sent=F("requests_sent") + len(landed),
        requests_failed=F("requests_failed") + errors.total(),
        retries=F("retries") + sum(c.attempts - 1 for o in answered for c in o.completions),
        heartbeat_at=timezone.now(),
    )


def _judge_failure(work: _Slice, error) -> None:
    """Stop sending when more requests would fail the same way: a refused key, a request the
    server refuses before anything succeeded (unknown model), or an outage."""
    work.consecutive_failures += 1
    if error.kind == ErrorKind.AUTHENTICATION or (
        error.kind == ErrorKind.BAD_REQUEST and not work.stored_any
    ):
        work.stop_reason, work.message = "failed", str(error)
    elif work.consecutive_failures >= max(3, work.job.concurrency):
        work.stop_reason = "outage"
        work.message = (
            f"{work.consecutive_failures} requests in a row failed for good ({error.kind}); "
            f"the last: {error}. Nothing received is lost: resume when the server is back."
        )


def _grade_arrived(work: _Slice, *, force: bool) -> None:
    """Send grading tasks for the items stored since the last call, a chunk at a time."""
    due = len(work.to_grade) >= settings.MATHJURY_CHUNK_SIZE or (
        work.to_grade and time.monotonic() - work.graded_sent_at >= 2.0
    )
    if not work.to_grade or not (force or due):
        return
    generation = Run.objects.filter(pk=work.job.run_id).values_list(
        "grading_generation", flat=True
    )[0]
    grading_enqueue(run_id=work.job.run_id, generation=generation, item_ids=work.to_grade)
    work.to_grade = []
    work.graded_sent_at = time.monotonic()


def _slice_end(work: _Slice) -> None:
    """Decide what follows the slice: the next slice, or the end of the generation."""
    job = work.job
    if work.stop_reason in ("dispatch", "cancelled"):
        return  # a newer task, or the cancel, owns what follows
    if work.stop_reason == "failed":
        _end(job, Status.FAILED, work.message)
    elif work.stop_reason == "outage":
        _end(job, Status.INCOMPLETE, work.message)
    elif work.stop_reason == "deadline":
        with transaction.atomic():
            current = GenerationJob.objects.select_for_update().get(pk=job.pk)
            if current.dispatch == job.dispatch and current.active:
                current.heartbeat_at = None  # the next slice may take the lease at once
                current.save(update_fields=["heartbeat_at"])
                transaction.on_commit(partial(generation_send, current))
    else:
        missing = sum(len(samples) for _, samples in missing_pairs(job=job))
        if missing:
            failed = GenerationJob.objects.get(pk=job.pk).errors
            kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(failed.items()))
            _end(
                job,
                Status.INCOMPLETE,
                f"{missing} pairs are missing after requests failed for good ({kinds}); "
                "resume to ask for them again",
            )
        else:
            _end(job, Status.DONE, "")


def _end(job: GenerationJob, status: str, message: str) -> None:
    with transaction.atomic():
        current = GenerationJob.objects.select_for_update().get(pk=job.pk)
        if current.dispatch != job.dispatch or not current.active:
            return
        current.status = status
        current.error_message = message
        current.finished_at = timezone.now()
        current.heartbeat_at = None
        current.save(update_fields=["status", "error_message", "finished_at", "heartbeat_at"])
        transaction.on_commit(partial(grading_finish, job.run_id))
    logger.info("run %s: generation %s %s", job.run_id, status, message)
