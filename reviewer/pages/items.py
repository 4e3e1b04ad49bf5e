"""The item page: one row with the evaluators' results and its history, reviewed from the
keyboard; saving moves to the next row of the filter."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from grading.pairs import shown_prediction
from reviewer import access, audit, selectors, services
from reviewer.models import Item, Review, ReviewVerdict
from reviewer.pages.forms import ReviewForm
from reviewer.pages.htmx import page_or_partial
from reviewer.pages.item_filters import item_filters_from
from reviewer.pages.msu import item_msu_context
from reviewer.pages.rendered_text import RenderedText, render_text
from reviewer.selectors import ItemFilters

# Longer outputs are shown as raw text only: rendering takes about 2.5 ms per 1,000
# characters (bench/render_text.py), and a megabyte would hold the page for seconds.
MAX_RENDERED_CHARS = 200_000

# Keys 1-4 on the item page, in this order.
VERDICT_KEYS = (
    ReviewVerdict.CORRECT,
    ReviewVerdict.INCORRECT,
    ReviewVerdict.GOLD_WRONG,
    ReviewVerdict.UNCLEAR,
)


# The session key of the row whose verdict the next item page offers to apply as a ruling.
RULING_OFFER_KEY = "ruling_offer"


@dataclass(frozen=True)
class HighlightedOutput:
    """The model output split around the extracted answer, each part escaped on its own (the
    raw view), and rendered as Markdown with math, folded around the answer."""

    before: str
    match: str
    after: str
    rendered: RenderedText | None  # None past MAX_RENDERED_CHARS: the raw text only


def _answer_span(output: str, evaluations) -> tuple[int, int] | None:
    """Where an evaluator's extraction stands in the output: the last `\\boxed{…}` holding
    it, else its last occurrence that is not part of a longer word or number ("42" in
    "Step 142"), else its last occurrence."""
    for evaluation in evaluations:
        needle = evaluation.extracted.strip()
        if not needle:
            continue
        boxed = output.rfind(f"\\boxed{{{needle}}}")
        if boxed >= 0:
            return boxed + 7, boxed + 7 + len(needle)
        alone = [m.span() for m in re.finditer(rf"(?<![\w.]){re.escape(needle)}(?!\w)", output)]
        if alone:
            return alone[-1]
        at = output.rfind(needle)
        if at >= 0:
            return at, at + len(needle)
    return None


def _highlight(output: str, evaluations) -> HighlightedOutput:
    span = _answer_span(output, evaluations)
    rendered = (
        render_text(output, mark=span, fold=True) if len(output) <= MAX_RENDERED_CHARS else None
    )
    if span is None:
        return HighlightedOutput(output, "", "", rendered)
    start, end = span
    return HighlightedOutput(output[:start], output[start:end], output[end:], rendered)


def shown_answer(item: Item, evaluations) -> tuple[str, str, str]:
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
    count = services.ruling_candidates(item=item).count()
    if not count:
        return None
    return {"item": item, "count": count, "verdict": ReviewVerdict(item.final_verdict).label}


def _saved_before_redirect(request: HttpRequest, shown: Item) -> Item | None:
    """The row whose verdict was saved just before the redirect to ``shown`` (its id kept in
    the session), if it is of the same project; taken from the session either way."""
    offered_id = request.session.pop(RULING_OFFER_KEY, None)
    if offered_id is None:
        return None
    if offered_id == shown.pk:
        return shown
    offered = Item.objects.select_related("run").filter(pk=offered_id).first()
    if offered is None or offered.run.project_id != shown.run.project_id:
        return None
    offered.role = shown.role
    return offered


def _item_context(*, item: Item, user, filters: ItemFilters, filter_query: str) -> dict:
    evaluations = list(item.evaluations.all())
    reviews = item.reviews.select_related("annotator")
    sees_others = access.sees_others_verdicts(item=item, role=item.role)
    if not sees_others:
        reviews = reviews.filter(annotator=user)
    prediction_latex, prediction_text, gold_latex = shown_answer(item, evaluations)
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
        "problem": render_text(item.problem) if item.problem else None,
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
        **item_msu_context(item=item),
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
    _, filters, filter_query = item_filters_from(request)
    template = page_or_partial(request, "reviewer/item_detail.html", ("item",))

    def page(shown: Item, status: int = 200, saved: Item | None = None) -> HttpResponse:
        """``shown``'s page, offering ``saved``'s verdict (the row this request decided) as a
        ruling, else that of the row saved before a redirect here, else ``shown``'s own."""
        context = _item_context(
            item=shown, user=request.user, filters=filters, filter_query=filter_query
        )
        offered = _saved_before_redirect(request, shown)
        context["ruling_offer"] = _ruling_offer(saved or offered or shown, request.user)
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
    decided = None  # the row as this save left it, when the verdict is final
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
        decided = review.item
        decided.role = item.role
    if next_id is None:
        messages.info(request, "That was the last row of this filter.")
        next_id = item.id
    next_url = _item_url(next_id, filter_query)
    if not request.htmx:
        if decided is not None:
            request.session[RULING_OFFER_KEY] = item.pk  # offered on the page redirected to
        return redirect(next_url)
    return push_url(page(access.item_for(request.user, next_id), saved=decided), next_url)
