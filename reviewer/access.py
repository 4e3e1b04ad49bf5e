"""The one place that decides who may see what. Roles (issue 6) will be added here only."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from reviewer.models import Item, Project, Run


def projects_for(user) -> QuerySet[Project]:
    """Projects ``user`` may see: for now every logged-in user sees every project."""
    if not user.is_authenticated or not user.is_active:
        return Project.objects.none()
    return Project.objects.all()


def run_for(user, run_id: int) -> Run:
    """The run, or Http404 when it does not exist or ``user`` may not see it."""
    run = (
        Run.objects.select_related("project")
        .filter(pk=run_id, project__in=projects_for(user))
        .first()
    )
    if run is None:
        raise Http404("No such run.")
    return run


def item_for(user, item_id: int) -> Item:
    """The item with its run and project, or Http404 when ``user`` may not see it."""
    item = (
        Item.objects.select_related("run__project")
        .filter(pk=item_id, run__project__in=projects_for(user))
        .first()
    )
    if item is None:
        raise Http404("No such item.")
    return item
