"""The run list and a run's page: counts, grading progress, the filtered table, re-grading."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.functional import cached_property
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event

from reviewer import access, selectors, services
from reviewer.item_filters import ITEM_FILTERS
from reviewer.models import Evaluation, Item, Run
from reviewer.pages.forms import RegradeForm
from reviewer.pages.htmx import page_or_partial
from reviewer.pages.item_filters import item_filters_from
from reviewer.pages.items import shown_answer
from reviewer.pages.msu import run_msu_context

RUN_PAGE_SIZE = 50

# The words the run table shows for each review reason: the reason filter's labels.
REASON_WORDS = dict(next(f for f in ITEM_FILTERS if f.name == "reason").choices)
# What the run table needs of each evaluation to show the prediction.
_SHOWN_EVALUATION_FIELDS = (
    "item_id", "evaluator", "status", "extracted", "extracted_latex", "gold_latex",
)  # fmt: skip


@dataclass(frozen=True)
class TableRow:
    """One row of the run table: the item, its gold and prediction to render, its reasons in
    words, and whether it is in the spot check of unflagged rows."""

    item: Item
    gold_latex: str
    prediction_latex: str
    prediction_text: str
    reasons: list[tuple[str, str, str]]  # (words, code, sentence)
    spot_check: bool


class _CountedPaginator(Paginator):
    """A paginator given its row count (the run's tally) instead of counting the rows."""

    def __init__(self, object_list, per_page: int, *, count: int):
        super().__init__(object_list, per_page)
        self._known_count = count

    @cached_property
    def count(self) -> int:
        return self._known_count


def _table_row(item: Item) -> TableRow:
    prediction_latex, prediction_text, gold_latex = shown_answer(item, item.evaluations.all())
    return TableRow(
        item=item,
        gold_latex=gold_latex,
        prediction_latex=prediction_latex,
        prediction_text=prediction_text,
        reasons=[
            (REASON_WORDS.get(r["code"], r["code"]), r["code"], r.get("message", ""))
            for r in item.review_reasons
        ],
        spot_check=selectors.item_queue_rank(item) == 2,
    )


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    context = {
        "runs": selectors.run_list(user=request.user),
        "projects": selectors.project_list(user=request.user),
    }
    return render(request, "reviewer/run_list.html", context)


@vary_on_headers("HX-Request", "HX-Target")
@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = access.run_for(request.user, run_id, access.VIEW)
    filter_form, filters, filter_query = item_filters_from(request)
    progress = selectors.run_progress(run=run)
    grading = run.status in (Run.Status.QUEUED, Run.Status.GRADING)
    items = (
        selectors.item_filter(run=run, filters=filters)
        .defer("output", "problem")
        .prefetch_related(
            Prefetch("evaluations", Evaluation.objects.only(*_SHOWN_EVALUATION_FIELDS))
        )
    )
    counts = selectors.run_counts(run=run)
    if filters.every_row:  # no need to count the rows: the tally has
        paginator = _CountedPaginator(items, RUN_PAGE_SIZE, count=counts.total)
    else:
        paginator = Paginator(items, RUN_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    rows = [_table_row(item) for item in page]
    context = {
        "run": run,
        "counts": counts,
        "progress": progress,
        "grading": grading,
        "health": selectors.run_grading_health(run=run) if grading else None,
        "filter_form": filter_form,
        "filter_query": filter_query,
        "page": page,
        "rows": rows,
        "spot_check_percent": settings.MATHJURY_SPOT_CHECK_PERCENT,
        # Rows not graded yet poll for their state while the run grades.
        "rows_pending": grading
        and any(r.item.grade_state == Item.GradeState.PENDING for r in rows),
        "regrade_form": RegradeForm(initial={"evaluators": run.evaluators}),
        "allowed": access.actions_of(run.role),
        "my_queue": services.my_queue(run=run, user=request.user),
        "conflicts": services.conflict_count(run=run),
    }
    template = page_or_partial(request, "reviewer/run_detail.html", ("summary", "items"))
    if "#" not in template:  # the whole page: the summary's polls and the table do not show MSU
        context.update(run_msu_context(run=run))
    response = render(request, template, context)
    if request.htmx.target == "summary" and not grading:
        # The last poll: tell the table to reload now that every row has a verdict.
        trigger_client_event(response, "run-graded")
    return response


@require_POST
def run_regrade(request: HttpRequest, run_id: int) -> HttpResponse:
    run = access.run_for(request.user, run_id, access.REGRADE)
    form = RegradeForm(request.POST)
    if form.is_valid():
        services.run_regrade(run=run, evaluators=form.cleaned_data["evaluators"], user=request.user)
        messages.success(
            request,
            f"Re-grading with {', '.join(form.cleaned_data['evaluators'])}. "
            "Human reviews are kept.",
        )
    else:
        messages.error(request, "Choose at least one evaluator to re-grade with.")
    return redirect("run_detail", run_id=run.id)
