"""The run list and a run's page: counts, grading progress, the filtered table, re-grading."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event

from reviewer import access, selectors, services
from reviewer.models import Run
from reviewer.pages.forms import RegradeForm
from reviewer.pages.htmx import page_or_partial
from reviewer.pages.item_filters import item_filters_from

RUN_PAGE_SIZE = 50


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
    page = Paginator(selectors.item_filter(run=run, filters=filters), RUN_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "run": run,
        "counts": selectors.run_counts(run=run),
        "progress": progress,
        "grading": grading,
        "health": selectors.run_grading_health(run=run) if grading else None,
        "filter_form": filter_form,
        "filter_query": filter_query,
        "page": page,
        "regrade_form": RegradeForm(initial={"evaluators": run.evaluators}),
        "allowed": access.actions_of(run.role),
        "my_queue": services.my_queue(run=run, user=request.user),
        "conflicts": services.conflict_count(run=run),
    }
    template = page_or_partial(request, "reviewer/run_detail.html", ("summary", "items"))
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
