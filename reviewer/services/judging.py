"""The LLM judge in the app: one more juror (evaluator ``llm_judge``) asked through a saved
endpoint about graded rows, on the flagged rows by default, or every row, or the spot check.

Its verdict is stored as an Evaluation and in ``Item.evaluator_scores`` (so the statistics
treat it like any evaluator); when it differs from the jury's verdict the row gets the review
reason ``judge_disagrees`` and is flagged. It never changes a verdict, least of all a person's.
Answers are cached per (problem, gold, extracted answer, model, prompt version)
(grading.llm.judge_cache_key), so a pair already judged is never asked again.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction

from grading import reasons
from grading.jury import DEFAULT_POLICY
from grading.llm import (
    JUDGE_EVALUATOR,
    JUDGE_PROMPT_VERSION,
    EndpointClient,
    judge,
    judge_cache_key,
)
from grading.pairs import shown_prediction
from grading.types import Status
from reviewer.audit import Action, audit_record
from reviewer.celery import app as celery_app
from reviewer.models import (
    Endpoint,
    Evaluation,
    EvaluatorScore,
    Item,
    JudgeVerdict,
    Run,
    evaluator_scores_parse,
    evaluator_scores_text,
)
from reviewer.selectors import spot_check
from reviewer.services.batches import batches
from reviewer.services.endpoints import endpoint_config

logger = logging.getLogger(__name__)

JUDGE_TASK = "reviewer.judge_chunk"  # reviewer.tasks.judge_chunk
JUDGE_SCOPES = [("flagged", "flagged rows"), ("all", "every row"), ("spot", "the spot check")]
JUDGE_CONCURRENCY = 8
REASON = "judge_disagrees"


def judge_enqueue(*, run: Run, endpoint: Endpoint, scope: str = "flagged", user) -> int:
    """Queue the judge on the run's graded rows in ``scope``; returns how many rows."""
    if endpoint.project_id != run.project_id:
        raise ValueError("the endpoint belongs to another project")
    graded = Item.objects.filter(run=run, grade_state=Item.GradeState.GRADED)
    if scope == "flagged":
        graded = graded.filter(needs_review=True)
    elif scope == "spot":
        graded = graded.filter(spot_check())
    elif scope != "all":
        raise ValueError(f"unknown scope {scope!r}; choose one of flagged, all, spot")
    item_ids = list(graded.order_by("row_number").values_list("pk", flat=True))
    with transaction.atomic():
        audit_record(
            Action.REGRADE,
            actor=user,
            project=run.project,
            run=run,
            summary=f"Run “{run.name}”: the LLM judge ({endpoint.model}) asked about "
            f"{len(item_ids)} {dict(JUDGE_SCOPES)[scope]}",
            data={"endpoint": endpoint.pk, "scope": scope, "rows": len(item_ids)},
        )
        transaction.on_commit(partial(_send, run.pk, endpoint.pk, item_ids))
    return len(item_ids)


def _send(run_id: int, endpoint_id: int, item_ids: list[int]) -> None:
    with celery_app.producer_or_acquire() as producer:
        for chunk in batches(item_ids, settings.MATHJURY_JUDGE_CHUNK_SIZE):
            celery_app.send_task(
                JUDGE_TASK, args=(run_id, endpoint_id, list(chunk)), producer=producer
            )


def judge_chunk(*, run_id: int, endpoint_id: int, item_ids: list[int]) -> int:
    """Judge one chunk of rows (the task's work); returns how many verdicts were saved.
    A redelivered chunk asks nothing twice: verdicts come from the cache."""
    endpoint = Endpoint.objects.get(pk=endpoint_id)
    items = list(
        Item.objects.filter(run_id=run_id, pk__in=item_ids, grade_state=Item.GradeState.GRADED)
        .only("pk", "problem", "gold", "output")
        .prefetch_related("evaluations")
    )
    asks = {}
    for item in items:
        shown = shown_prediction(
            [e for e in item.evaluations.all() if e.evaluator != JUDGE_EVALUATOR]
        )
        extracted = (shown.extracted if shown else "") or ""
        key = judge_cache_key(
            problem=item.problem,
            gold=item.gold,
            extracted=extracted,
            model=endpoint.model,
            output=item.output,
        )
        asks[item.pk] = (item, extracted, key)
    cached = {
        v.key: v for v in JudgeVerdict.objects.filter(key__in=[k for _, _, k in asks.values()])
    }
    missing = {
        key: (item, extracted) for item, extracted, key in asks.values() if key not in cached
    }
    if missing:
        with EndpointClient(endpoint_config(endpoint=endpoint)) as client:
            with ThreadPoolExecutor(max_workers=JUDGE_CONCURRENCY) as pool:
                futures = {
                    key: pool.submit(
                        judge,
                        client,
                        problem=item.problem,
                        gold=item.gold,
                        output=item.output,
                        extracted=extracted,
                    )
                    for key, (item, extracted) in missing.items()
                }
                for key, future in futures.items():
                    cached[key] = _cache(key, endpoint.model, future.result())
    saved = 0
    for item, extracted, key in asks.values():
        saved += _verdict_save(item_id=item.pk, extracted=extracted, verdict=cached[key])
    return saved


def _cache(key: str, model: str, evaluation) -> JudgeVerdict:
    verdict = JudgeVerdict(
        key=key,
        model=model,
        prompt_version=JUDGE_PROMPT_VERSION,
        status=str(evaluation.status),
        verdict=str(evaluation.verdict) if evaluation.verdict else "",
        detail=evaluation.detail,
        ms=evaluation.ms,
    )
    if evaluation.status == Status.ERROR:
        return verdict  # not cached: the next run asks again
    try:
        with transaction.atomic():
            verdict.save()
    except IntegrityError:  # another task cached the same pair meanwhile
        return JudgeVerdict.objects.get(key=key)
    return verdict


def _verdict_save(*, item_id: int, extracted: str, verdict: JudgeVerdict) -> int:
    """Store the judge's evaluation on the row and flag it when the judge disagrees."""
    with transaction.atomic():
        item = Item.objects.select_for_update().get(pk=item_id)
        Evaluation.objects.update_or_create(
            item=item,
            evaluator=JUDGE_EVALUATOR,
            defaults={
                "evaluator_version": verdict.prompt_version,
                "status": verdict.status,
                "verdict": verdict.verdict,
                "extracted": extracted,
                "detail": verdict.detail,
                "ms": verdict.ms,
            },
        )
        scores = evaluator_scores_parse(item.evaluator_scores)
        scores[JUDGE_EVALUATOR] = EvaluatorScore.of_result(
            status=verdict.status, verdict=verdict.verdict
        ).value
        item.evaluator_scores = evaluator_scores_text(scores)
        codes = [r["code"] for r in item.review_reasons]
        disagrees = (
            verdict.status == Status.OK
            and verdict.verdict
            and item.auto_verdict
            and verdict.verdict != item.auto_verdict
        )
        if disagrees and REASON not in codes:
            item.review_reasons = [*item.review_reasons, reasons.reason(REASON).to_dict()]
            item.needs_review = item.needs_review or REASON in DEFAULT_POLICY.flagging_reasons
        elif not disagrees and REASON in codes:
            item.review_reasons = [r for r in item.review_reasons if r["code"] != REASON]
        item.save(update_fields=["evaluator_scores", "review_reasons", "needs_review"])
    return 1
