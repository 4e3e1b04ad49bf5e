"""Choosing what an htmx request gets: the whole page, or the partial of it that it targets."""

from __future__ import annotations

from django.http import HttpRequest


def page_or_partial(request: HttpRequest, page: str, partials: tuple[str, ...]) -> str:
    """The page, or ``page#partial`` when an htmx request targets the element of that name."""
    htmx = request.htmx
    if htmx and not htmx.history_restore_request and htmx.target in partials:
        return f"{page}#{htmx.target}"
    return page
