"""The run table's filters read from a page's query string."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest

from reviewer.item_filters import ItemFilters
from reviewer.item_filters import item_filters_from as item_filters_from_values
from reviewer.pages.forms import ItemFilterForm


def item_filters_from(request: HttpRequest) -> tuple[ItemFilterForm, ItemFilters, str]:
    """The filters in the query string, as a form (to redisplay), values and a query string."""
    form = ItemFilterForm(request.GET)
    form.is_valid()  # invalid values are dropped, never an error page
    values = {name: value for name, value in form.cleaned_data.items() if value}
    filters = item_filters_from_values(values, user_id=request.user.pk)
    return form, filters, urlencode(values)
