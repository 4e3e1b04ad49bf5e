"""Storing what a model server answered: each (problem, sample) pair as a run's item and its
GeneratedOutput, in bulk or one by one, never twice (the unique row number and pair)."""

from __future__ import annotations

from django.db import IntegrityError, connection, transaction

from grading.llm import Completion
from reviewer.models import GeneratedOutput, GenerationJob, Item, Problem


def pairs_store(
    job: GenerationJob, pairs: list[tuple[Problem, Completion]], *, one_by_one: bool
) -> list[int]:
    """Insert the items and outputs of pairs not stored yet; the new items' ids.

    In bulk (a handful of statements for any number of pairs: with 64 request threads in the
    process, each statement waits for the GIL after its round trip), or one by one, each in a
    savepoint, when a concurrent task may have stored some of them.
    """
    if not pairs:
        return []
    _commit_without_waiting_for_disk()
    if one_by_one:
        ids = []
        for problem, completion in pairs:
            try:
                with transaction.atomic():
                    item = _item(job, problem, completion)
                    item.save()
                    _output(job, item, problem, completion).save()
                ids.append(item.pk)
            except IntegrityError:
                pass
        return ids
    stored = set(
        GeneratedOutput.objects.filter(
            run_id=job.run_id, problem_id__in={problem.pk for problem, _ in pairs}
        ).values_list("problem_id", "sample_index")
    )
    fresh = [(p, c) for p, c in pairs if (p.pk, c.sample) not in stored]
    items = Item.objects.bulk_create([_item(job, p, c) for p, c in fresh])
    GeneratedOutput.objects.bulk_create(
        [_output(job, item, p, c) for item, (p, c) in zip(items, fresh, strict=True)]
    )
    return [item.pk for item in items]


def _commit_without_waiting_for_disk() -> None:
    """One commit per answer would otherwise wait for a disk flush each (tens of ms on a busy
    disk). A killed worker still loses nothing committed; a PostgreSQL crash can lose the
    last fraction of a second of answers, which are then missing pairs that resume asks
    for again, never half-stored ones."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _item(job: GenerationJob, problem: Problem, completion: Completion) -> Item:
    """The row of one (problem, sample) pair: row ``position × samples + sample + 1``."""
    extra: dict[str, object] = {
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "latency_s": round(completion.latency_s, 3),
    }
    if problem.level:
        extra["level"] = problem.level
    if completion.reasoning:
        extra["reasoning"] = completion.reasoning.replace("\x00", "")
    return Item(
        run_id=job.run_id,
        row_number=problem.position * job.samples + completion.sample + 1,
        source_line=problem.source_line,
        external_id=problem.external_id,
        problem=problem.problem,
        gold=problem.gold,
        output=completion.text.replace("\x00", ""),
        model_name=(completion.model or job.run.model_name)[:200],
        subject=problem.subject,
        sample_index=completion.sample,
        finish_reason=(completion.finish_reason or "")[:200],
        extra=extra,
    )


def _output(job: GenerationJob, item: Item, problem: Problem, completion: Completion):
    return GeneratedOutput(
        run_id=job.run_id,
        item=item,
        problem=problem,
        sample_index=completion.sample,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        usage_shared_by=completion.usage_shared_by,
        latency_s=completion.latency_s,
        attempts=completion.attempts,
        reasoning=completion.reasoning.replace("\x00", ""),
    )
