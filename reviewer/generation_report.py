"""Reads about a generated run, as MSQA's score file reports them: progress, tokens, request
rate, errors by kind, answer coverage, truncation, mean completion tokens, score and cost."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Avg, Count, Exists, F, FloatField, Max, OuterRef, Q, Sum
from django.db.models.functions import Cast
from django.utils import timezone

from reviewer.models import Evaluation, GeneratedOutput, GenerationJob, Item, Run


@dataclass(frozen=True)
class GenerationReport:
    status: str
    status_label: str
    active: bool
    error_message: str
    pairs_done: int
    pairs_total: int
    requests: int
    requests_failed: int
    retries: int
    requests_per_second: float | None
    errors: dict[str, int]
    prompt_tokens: int  # billed once per response, however many samples it carried
    completion_tokens: int
    mean_completion_tokens: float | None
    graded: int
    with_answer: int  # graded rows where some evaluator extracted an answer
    truncated: int  # finish_reason = length
    auto_correct: int
    cost: Decimal | None

    @property
    def percent(self) -> int:
        return int(100 * self.pairs_done / self.pairs_total) if self.pairs_total else 100

    @property
    def coverage(self) -> float | None:
        return self.with_answer / self.graded if self.graded else None

    @property
    def score(self) -> float | None:
        return self.auto_correct / self.graded if self.graded else None


def generation_report(*, run: Run) -> GenerationReport | None:
    """The generation figures of ``run``, or None for an uploaded run. Three queries."""
    job = GenerationJob.objects.filter(run=run).select_related("endpoint", "problem_set").first()
    if job is None:
        return None
    outputs = GeneratedOutput.objects.filter(run=run).aggregate(
        done=Count("pk"),
        prompt=Sum(Cast(F("prompt_tokens"), FloatField()) / F("usage_shared_by")),
        completion=Sum("completion_tokens"),
        mean_completion=Avg("completion_tokens"),
        last=Max("created_at"),
    )
    extracted = Evaluation.objects.filter(item=OuterRef("pk")).exclude(extracted="")
    items = Item.objects.filter(run=run).aggregate(
        graded=Count("pk", filter=Q(grade_state=Item.GradeState.GRADED)),
        with_answer=Count(
            "pk", filter=Q(grade_state=Item.GradeState.GRADED) & Q(Exists(extracted))
        ),
        truncated=Count("pk", filter=Q(finish_reason="length")),
        auto_correct=Count(
            "pk", filter=Q(grade_state=Item.GradeState.GRADED, auto_verdict="correct")
        ),
    )
    rate = None
    if job.started_at and job.requests_sent:
        end = job.finished_at or (outputs["last"] if not job.active else timezone.now())
        elapsed = ((end or timezone.now()) - job.started_at).total_seconds()
        rate = job.requests_sent / elapsed if elapsed > 0 else None
    prompt_tokens = round(outputs["prompt"] or 0)
    completion_tokens = outputs["completion"] or 0
    endpoint = job.endpoint
    cost = None
    if endpoint.price_input is not None or endpoint.price_output is not None:
        cost = (
            Decimal(prompt_tokens) * (endpoint.price_input or 0)
            + Decimal(completion_tokens) * (endpoint.price_output or 0)
        ) / Decimal(1_000_000)
    return GenerationReport(
        status=job.status,
        status_label=job.get_status_display(),
        active=job.active,
        error_message=job.error_message,
        pairs_done=outputs["done"],
        pairs_total=job.problem_set.problem_count * job.samples,
        requests=job.requests_sent,
        requests_failed=job.requests_failed,
        retries=job.retries,
        requests_per_second=rate,
        errors=dict(sorted(job.errors.items())),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        mean_completion_tokens=outputs["mean_completion"],
        graded=items["graded"],
        with_answer=items["with_answer"],
        truncated=items["truncated"],
        auto_correct=items["auto_correct"],
        cost=cost,
    )
