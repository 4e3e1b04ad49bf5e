"""The run table's filters read from a page's query string."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest

from reviewer.pages.forms import ItemFilterForm
from reviewer.selectors import ItemFilters


def item_filters_from(request: HttpRequest) -> tuple[ItemFilterForm, ItemFilters, str]:
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
