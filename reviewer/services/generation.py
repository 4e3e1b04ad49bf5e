"""Generating a run from a model server: starting it, resuming it, cancelling it.

A run made this way gets one item per (problem, sample) pair, stored the moment the server's
answer lands with ``row_number = position × samples + sample + 1``, so the run's unique row
constraint (and GeneratedOutput's on (run, problem, sample)) make a pair impossible to store
twice. The work itself is reviewer.services.generation_work, one task slice at a time. Resume
bumps ``dispatch`` so an older task stops, and asks only for what is missing; cancel stops new
requests while the ones in flight are still stored.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from django.db import transaction
from django.utils import timezone

from grading.llm import PromptTemplate, SamplingParams, TemplateError, template_named
from reviewer.audit import Action, audit_record
from reviewer.models import Endpoint, GenerationJob, ProblemSet, Run
from reviewer.services.generation_work import (
    GENERATE_TASK,
    generation_send,
    generation_work,
    grading_finish,
    grading_recover,
    missing_pairs,
)
from reviewer.services.runs import UnknownEvaluatorsError, checked_evaluators

logger = logging.getLogger(__name__)

Status = GenerationJob.Status
MAX_SAMPLES = 64
MAX_CONCURRENCY = 256


class GenerationSetupError(ValueError):
    """A generation cannot start or resume as asked; the message says why."""


@dataclass(frozen=True)
class GenerationOptions:
    """What a person chooses for a generated run (page, API and command alike)."""

    template: str = "math"  # a ready-made template's name, or a custom one's text
    system_prompt: str = ""
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    samples: int = 1
    timeout_s: float = 120.0
    concurrency: int = 8
    evaluators: Sequence[str] | None = None

    def prompt_template(self) -> PromptTemplate:
        text = self.template or "math"
        if "{" not in text:
            return template_named(text.strip())
        return PromptTemplate(name="custom", text=text)

    def sampling(self) -> SamplingParams:
        return SamplingParams(
            temperature=self.temperature,
            top_p=self.top_p,
            max_tokens=self.max_tokens,
            seed=self.seed,
            stop=tuple(self.stop),
        )


def generation_start(
    *,
    problem_set: ProblemSet,
    endpoint: Endpoint,
    user,
    options: GenerationOptions,
    name: str = "",
    model: str = "",
) -> Run:
    """Create a run of ``problem_set`` answered by ``endpoint`` and queue its generation.

    ``user`` None is an operator at the command line; anyone else needs the upload role
    (checked by the caller). Raises GenerationSetupError with what is wrong, nothing written.
    """
    if endpoint.project_id != problem_set.project_id:
        raise GenerationSetupError("the endpoint and the problem set belong to other projects")
    template, sampling = _checked(options)
    try:
        evaluators = checked_evaluators(options.evaluators)
    except UnknownEvaluatorsError as error:
        raise GenerationSetupError(str(error)) from None
    model = (model or endpoint.model).strip()
    with transaction.atomic():
        run = Run.objects.create(
            project_id=problem_set.project_id,
            name=(name.strip() or f"{problem_set.name} × {model}")[:200],
            model_name=model[:200],
            dataset=problem_set.name,
            uploaded_by=user,
            source_filename=problem_set.source_filename,
            source_sha256=f"generated-{uuid.uuid4().hex}",
            evaluators=evaluators,
            total_rows=problem_set.problem_count * options.samples,
            grading_queued_at=timezone.now(),
        )
        job = GenerationJob.objects.create(
            run=run,
            problem_set=problem_set,
            endpoint=endpoint,
            template_name=template.name,
            template_text=template.text,
            system_prompt=options.system_prompt,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            max_tokens=sampling.max_tokens,
            seed=sampling.seed,
            stop=list(sampling.stop),
            samples=options.samples,
            timeout_s=options.timeout_s,
            concurrency=options.concurrency,
        )
        audit_record(
            Action.UPLOAD,
            actor=user,
            project=problem_set.project,
            run=run,
            summary=f"Run “{run.name}” generated from problem set “{problem_set.name}” by "
            f"{model}: {problem_set.problem_count} problems × {options.samples} samples, "
            f"graded by {', '.join(evaluators)}",
            data={
                "problem_set": problem_set.pk,
                "endpoint": endpoint.pk,
                "model": model,
                "samples": options.samples,
                "evaluators": evaluators,
            },
        )
        transaction.on_commit(partial(generation_send, job))
    logger.info("run %s: generation queued (%s pairs)", run.pk, run.total_rows)
    return run


def _checked(options: GenerationOptions) -> tuple[PromptTemplate, SamplingParams]:
    try:
        template = options.prompt_template()
        sampling = options.sampling()
    except (TemplateError, ValueError) as error:
        raise GenerationSetupError(str(error)) from None
    if not 1 <= options.samples <= MAX_SAMPLES:
        raise GenerationSetupError(f"samples per problem must be from 1 to {MAX_SAMPLES}")
    if not 1 <= options.concurrency <= MAX_CONCURRENCY:
        raise GenerationSetupError(f"the concurrency limit must be from 1 to {MAX_CONCURRENCY}")
    if not 0 < options.timeout_s <= 3600:
        raise GenerationSetupError("the per-request time-out must be from 0 to 3600 seconds")
    return template, sampling


def _job_locked(run: Run) -> GenerationJob:
    job = GenerationJob.objects.select_for_update().select_related("run").filter(run=run).first()
    if job is None:
        raise GenerationSetupError(f"run {run.pk} was uploaded, not generated")
    return job


def generation_resume(*, run: Run, user) -> GenerationJob:
    """Ask again for every pair still missing; a task of an earlier dispatch stops sending."""
    with transaction.atomic():
        job = _job_locked(run)
        job.dispatch += 1
        job.status = Status.QUEUED
        job.error_message = ""
        job.finished_at = None
        job.heartbeat_at = None
        job.save()
        Run.objects.filter(pk=run.pk, status=Run.Status.DONE).update(
            status=Run.Status.GRADING, grading_finished_at=None
        )
        audit_record(
            Action.REGRADE,
            actor=user,
            project=job.run.project,
            run=job.run,
            summary=f"Run “{job.run.name}”: generation resumed (missing pairs only)",
            data={"dispatch": job.dispatch},
        )
        transaction.on_commit(partial(grading_recover, job.run_id))
        transaction.on_commit(partial(generation_send, job))
    return job


def generation_cancel(*, run: Run, user) -> GenerationJob:
    """Stop sending requests; answers already in flight are still stored when they land."""
    with transaction.atomic():
        job = _job_locked(run)
        if job.active:
            job.status = Status.CANCELLED
            job.finished_at = timezone.now()
            job.save(update_fields=["status", "finished_at"])
            audit_record(
                Action.REGRADE,
                actor=user,
                project=job.run.project,
                run=job.run,
                summary=f"Run “{job.run.name}”: generation cancelled",
                data={"dispatch": job.dispatch},
            )
            transaction.on_commit(partial(grading_finish, job.run_id))
    return job


__all__ = [
    "GENERATE_TASK",
    "GenerationOptions",
    "GenerationSetupError",
    "generation_cancel",
    "generation_resume",
    "generation_start",
    "generation_work",
    "missing_pairs",
]
