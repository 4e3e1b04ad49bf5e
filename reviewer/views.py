"""The reviewer's pages. Each view parses the request, calls selectors or one service, and
renders its page, or, for an htmx request, the partial of that page the request targets.

Access checks live in reviewer.access; login is required by middleware for every view not
marked ``login_not_required``.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url, trigger_client_event

from grading.pairs import shown_prediction
from reviewer import access, assignments, audit, rulings, selectors, services, uploads
from reviewer.api.errors import error_body
from reviewer.forms import (
    ItemFilterForm,
    MappingForm,
    RegradeForm,
    ReviewForm,
    UploadForm,
)
from reviewer.ingest import IngestError, preview_file
from reviewer.models import Item, Review, ReviewVerdict, Run
from reviewer.selectors import ItemFilters

RUN_PAGE_SIZE = 50
# Outputs longer than this start collapsed on the item page.
LONG_OUTPUT_CHARS = 1500
LONG_OUTPUT_LINES = 25
# Keys 1-4 on the item page, in this order.
VERDICT_KEYS = (
    ReviewVerdict.CORRECT,
    ReviewVerdict.INCORRECT,
    ReviewVerdict.GOLD_WRONG,
    ReviewVerdict.UNCLEAR,
)
# The session key of the row whose verdict the next item page offers to apply as a ruling.
RULING_OFFER_KEY = "ruling_offer"
DELIMITER_LABELS = {",": ",", ";": ";", "\t": "tab", "|": "|"}


def _template(request: HttpRequest, page: str, partials: tuple[str, ...]) -> str:
    """The page, or ``page#partial`` when an htmx request targets the element of that name."""
    htmx = request.htmx
    if htmx and not htmx.history_restore_request and htmx.target in partials:
        return f"{page}#{htmx.target}"
    return page


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and compose health checks: answers without a database query."""
    return JsonResponse({"status": "ok"})


def login_locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """django-axes' lockout response: the login page (or an API error) saying why and for how
    long, with status 429."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = (
        f"Too many failed logins: this account is locked on this computer for {minutes} "
        "minutes. Try again later, or ask an administrator to unlock it."
    )
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("locked_out", message), status=429)
    # Unbound: validating the posted form would try the password once more.
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    context = {"form": form, "locked_out": message, "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=429)


@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    context = {
        "runs": selectors.run_list(user=request.user),
        "projects": selectors.project_list(user=request.user),
    }
    return render(request, "reviewer/run_list.html", context)


# ---- upload -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    """Two steps on one page: send the file, then confirm the column mapping and create the run.

    The file is stored once, in the first step; the second step refers to it by its token.
    """
    step = request.POST.get("step", "")
    if request.method == "GET":
        return _upload_page(request, upload_form=UploadForm())
    if step == "upload":
        form = UploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return _upload_page(request, upload_form=form, status=400)
        stored = uploads.upload_store(file=form.cleaned_data["file"])
        initial = {
            "token": stored.token,
            "project": form.cleaned_data["project"],
            "delimiter": form.cleaned_data["delimiter"],
            "name": stored.filename,
        }
        return _mapping_page(request, stored=stored, data=None, initial=initial)

    try:
        stored = uploads.upload_get(token=request.POST.get("token", ""))
    except uploads.UnknownUploadError:
        messages.error(request, "That upload has expired or does not exist. Upload the file again.")
        return redirect("upload")
    if step == "preview":
        # The user changed the delimiter: read the file again and guess the mapping afresh.
        initial = {key: request.POST.get(key, "") for key in ("token", "project", "delimiter")}
        initial.update(
            {key: request.POST.get(key, "") for key in ("name", "model_name", "dataset")}
        )
        initial["evaluators"] = request.POST.getlist("evaluators")
        return _mapping_page(request, stored=stored, data=None, initial=initial)
    return _mapping_page(request, stored=stored, data=request.POST, initial=None, create=True)


def _upload_page(request, *, upload_form, status=200, **context) -> HttpResponse:
    context |= {
        "upload_form": upload_form,
        "projects": access.projects_for(request.user, access.UPLOAD),
        "max_upload_bytes": settings.MATHJURY_UPLOAD_MAX_BYTES,
    }
    return render(request, "reviewer/upload.html", context, status=status)


def _mapping_page(request, *, stored, data, initial, create=False) -> HttpResponse:
    """Preview the stored file and show the mapping form; with ``create``, try to create the run."""
    delimiter = (data or initial).get("delimiter") or None
    try:
        preview = preview_file(stored.path, delimiter=delimiter)
    except IngestError as error:
        return _upload_page(
            request, upload_form=UploadForm(initial=initial), problems=error.problems, status=400
        )
    if initial is not None:
        initial = {**_mapping_initial(preview), **initial}
    form = MappingForm(
        data,
        initial=initial,
        columns=list(preview.columns),
        needs_confirmation=list(preview.needs_confirmation),
    )
    context = {"problems": None, "duplicate": None}
    refused = None  # the status of a refusal: another's project name, or the wrong role
    if create and form.is_valid():
        try:
            project = services.project_get_or_create(
                name=form.cleaned_data["project"], user=request.user
            )
            access.require(request.user, project, access.UPLOAD)
        except services.ProjectNameTakenError as error:
            form.add_error(None, str(error))
            refused = 409
        except PermissionDenied as error:
            form.add_error(None, str(error))
            refused = 403
    if create and form.is_valid():
        try:
            run = services.run_create(
                project=project,
                user=request.user,
                upload_token=stored.token,
                mapping=form.mapping(),
                name=form.cleaned_data["name"],
                model_name=form.cleaned_data["model_name"],
                dataset=form.cleaned_data["dataset"],
                evaluators=form.cleaned_data["evaluators"],
                delimiter=form.cleaned_data["delimiter"] or None,
            )
        except IngestError as error:
            context["problems"] = error.problems
        except services.DuplicateRunError as error:
            context["duplicate"] = error.run
        else:
            messages.success(request, f"Run “{run.name}” created: {run.total_rows} rows to grade.")
            return redirect("run_detail", run_id=run.id)
    context |= {
        "mapping_form": form,
        "upload": stored,
        "preview": preview,
        "preview_delimiter": DELIMITER_LABELS.get(preview.delimiter or "", preview.delimiter),
        "preview_rows": [[row.get(c, "") for c in preview.columns] for row in preview.rows],
    }
    status = 200 if data is None or form.is_valid() and not context["problems"] else 400
    status = refused or status
    return render(request, "reviewer/upload.html", context, status=status)


def _mapping_initial(preview) -> dict:
    initial = {f"map_{field}": column for field, column in preview.guessed_mapping.items()}
    if preview.delimiter:
        initial["delimiter"] = preview.delimiter
    return initial


# ---- run ----------------------------------------------------------------------------------


def _item_filters(request: HttpRequest) -> tuple[ItemFilterForm, ItemFilters, str]:
    """The filters in the query string, as a form (to redisplay), values and a query string."""
    form = ItemFilterForm(request.GET)
    form.is_valid()  # invalid values are dropped, never an error page
    values = {name: value for name, value in form.cleaned_data.items() if value}
    yes_no = {"yes": True, "no": False}
    filters = ItemFilters(
        needs_review=yes_no.get(values.get("needs_review")),
        disagree=yes_no.get(values.get("disagree")),
        verdict=values.get("verdict", ""),
        answer_type=values.get("answer_type", ""),
        reviewed=yes_no.get(values.get("reviewed")),
        q=values.get("q", ""),
        order=values.get("order", "flagged"),
        evaluator=values.get("evaluator", ""),
        evaluator_verdict=values.get("evaluator_verdict", ""),
        human_verdict=values.get("human_verdict", ""),
        reason=values.get("reason", ""),
        queue=values.get("queue", ""),
        user_id=request.user.pk,
    )
    return form, filters, urlencode(values)


@vary_on_headers("HX-Request", "HX-Target")
@require_GET
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = access.run_for(request.user, run_id, access.VIEW)
    filter_form, filters, filter_query = _item_filters(request)
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
        "filter_form": filter_form,
        "filter_query": filter_query,
        "page": page,
        "regrade_form": RegradeForm(initial={"evaluators": run.evaluators}),
        "allowed": access.actions_of(run.role),
        "my_queue": assignments.my_queue(run=run, user=request.user),
        "conflicts": assignments.conflict_count(run=run),
    }
    template = _template(request, "reviewer/run_detail.html", ("summary", "items"))
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


# ---- item ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class HighlightedOutput:
    """The model output split around the extracted answer, each part escaped on its own."""

    before: str
    match: str
    after: str
    collapsed: bool


def _highlight(output: str, evaluations) -> HighlightedOutput:
    """Find the last place an evaluator's extraction appears verbatim in the output."""
    collapsed = len(output) > LONG_OUTPUT_CHARS or output.count("\n") > LONG_OUTPUT_LINES
    for evaluation in evaluations:
        needle = evaluation.extracted.strip()
        at = output.rfind(needle) if needle else -1
        if at >= 0:
            end = at + len(needle)
            return HighlightedOutput(output[:at], output[at:end], output[end:], collapsed)
    return HighlightedOutput(output, "", "", collapsed)


def _shown_answer(item: Item, evaluations) -> tuple[str, str, str]:
    """(prediction LaTeX, prediction text, gold LaTeX) to show: from the first evaluator that
    parsed an answer, else the first that extracted anything; the gold falls back to its text."""
    chosen = shown_prediction(evaluations)
    prediction_latex = chosen.extracted_latex if chosen else ""
    prediction_text = chosen.extracted if chosen else ""
    gold_latex = (chosen.gold_latex if chosen else "") or next(
        (e.gold_latex for e in evaluations if e.gold_latex), item.gold.strip()
    )
    return prediction_latex, prediction_text, gold_latex


def _review_refusal(item: Item, user) -> str:
    """Why ``user`` cannot review ``item`` now, or "" when they can."""
    try:
        access.review_kind(item=item, user=user, role=item.role)
    except PermissionDenied as refusal:
        return str(refusal)
    return ""


def _ruling_offer(item: Item | None, user) -> dict | None:
    """The offer to apply ``item``'s human verdict to the undecided rows of its project with
    the same gold and prediction, if there are any and ``user`` may."""
    if item is None or not access.allows(item.role, access.RULE):
        return None
    if item.final_source != Item.FinalSource.HUMAN or item.review_stage:
        return None
    count = rulings.ruling_candidates(item=item).count()
    if not count:
        return None
    return {"item": item, "count": count, "verdict": ReviewVerdict(item.final_verdict).label}


def _item_context(*, item: Item, user, filters: ItemFilters, filter_query: str) -> dict:
    evaluations = list(item.evaluations.all())
    reviews = item.reviews.select_related("annotator")
    sees_others = access.sees_others_verdicts(item=item, role=item.role)
    if not sees_others:
        reviews = reviews.filter(annotator=user)
    prediction_latex, prediction_text, gold_latex = _shown_answer(item, evaluations)
    current = item.final_verdict or item.auto_verdict
    return {
        "item": item,
        "run": item.run,
        "counts": selectors.run_counts(run=item.run),
        "neighbours": selectors.item_neighbours(item=item, filters=filters),
        "filter_query": filter_query,
        "evaluations": evaluations,
        "reviews": reviews,
        "output": _highlight(item.output, evaluations),
        "prediction_latex": prediction_latex,
        "prediction_text": prediction_text,
        "gold_latex": gold_latex,
        "verdict_buttons": [
            (str(index), verdict, verdict.label, verdict == current)
            for index, verdict in enumerate(VERDICT_KEYS, start=1)
        ],
        "review_form": ReviewForm(initial={"expected_version": item.version}),
        "allowed": access.actions_of(item.role),
        "sees_others": sees_others,
        "blind_progress": _blind_progress(item) if item.review_stage else None,
        "review_refusal": _review_refusal(item, user),
        "events": audit.item_events(item=item, user=user, role=item.role)[:50],
    }


def _blind_progress(item: Item) -> dict:
    """How many of a double review's verdicts are in: the count, never the verdicts."""
    return item.assignments.aggregate(
        assigned=Count("pk"), given=Count("pk", filter=Q(done_at__isnull=False))
    )


def _item_url(item_id: int, filter_query: str) -> str:
    url = reverse("item_detail", args=[item_id])
    return f"{url}?{filter_query}" if filter_query else url


@vary_on_headers("HX-Request", "HX-Target")
@require_http_methods(["GET", "POST"])
def item_detail(request: HttpRequest, item_id: int) -> HttpResponse:
    """One row to review. A POST saves a verdict and moves to the next row of the filter."""
    action = access.REVIEW if request.method == "POST" else access.VIEW
    item = access.item_for(request.user, item_id, action)
    _, filters, filter_query = _item_filters(request)
    template = _template(request, "reviewer/item_detail.html", ("item",))

    def page(shown: Item, status: int = 200) -> HttpResponse:
        context = _item_context(
            item=shown, user=request.user, filters=filters, filter_query=filter_query
        )
        offered_id = request.session.pop(RULING_OFFER_KEY, None)
        offered = shown if offered_id == shown.pk else None
        if offered_id and offered is None:
            offered = Item.objects.select_related("run").filter(pk=offered_id).first()
            if offered is not None and offered.run.project_id == shown.run.project_id:
                offered.role = shown.role
            else:
                offered = None
        context["ruling_offer"] = _ruling_offer(offered or shown, request.user)
        return render(request, template, context, status=status)

    if request.method == "GET":
        return page(item)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a verdict: correct, incorrect, gold is wrong or unclear.")
        return page(item, status=400)
    # Where to go next is decided before saving: the saved row may leave the filter.
    next_id = selectors.item_neighbours(item=item, filters=filters).next_id
    try:
        review = services.item_review(
            item=item,
            user=request.user,
            verdict=form.cleaned_data["verdict"],
            note=form.cleaned_data["note"],
            expected_version=form.cleaned_data["expected_version"],
            role=item.role,
        )
    except services.StaleVersionError as error:
        messages.error(
            request,
            "Someone else reviewed this row while you were looking at it; "
            "this is its current state. Your verdict was not saved.",
        )
        error.item.role = item.role
        return page(error.item, status=409)
    except PermissionDenied as refusal:
        messages.error(request, f"Your verdict was not saved: {refusal}")
        return page(access.item_for(request.user, item_id), status=403)
    if review.kind == Review.Kind.BLIND:
        messages.success(
            request,
            f"Row {item.row_number}: your blind verdict “{review.get_verdict_display()}” is "
            "saved; the row is decided once every assigned annotator has given theirs.",
        )
    else:
        messages.success(
            request, f"Row {item.row_number} saved as “{review.get_verdict_display()}”."
        )
        request.session[RULING_OFFER_KEY] = item.pk
    if next_id is None:
        messages.info(request, "That was the last row of this filter.")
        next_id = item.id
    next_url = _item_url(next_id, filter_query)
    if not request.htmx:
        return redirect(next_url)
    return push_url(page(access.item_for(request.user, next_id)), next_url)
