"""The one place that decides who may see and do what.

A user sees the projects they are a member of; anything else is 404, so a non-member cannot
tell it exists. A member whose role does not allow an action gets 403 (PermissionDenied).
Superusers, who can change everything in the Django admin anyway, act as owners everywhere.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, QuerySet, Subquery, Value
from django.http import Http404

from reviewer.models import Assignment, Export, Item, Membership, Project, Review, Ruling, Run
from reviewer.tallies import run_queue_split

Role = Membership.Role
Stage = Item.ReviewStage

VIEW = "view"  # pages, items, statistics, the API's reads
REVIEW = "review"  # save a verdict on an item (which items: review_kind)
RULE = "rule"  # apply an equivalence ruling to the rows sharing a gold and prediction
ADJUDICATE = "adjudicate"  # decide rows whose blind reviews disagree; see others' blind verdicts
ASSIGN = "assign"  # split a run's review queue among annotators
UPLOAD = "upload"  # create a run in the project
REGRADE = "regrade"
EXPORT = "export"  # export jobs, streamed exports and their files
MANAGE = "manage"  # members, and deleting the project

ROLES_FOR: dict[str, frozenset[str]] = {
    VIEW: frozenset(Role.values),
    REVIEW: frozenset({Role.OWNER, Role.ADJUDICATOR, Role.ANNOTATOR}),
    RULE: frozenset({Role.OWNER, Role.ADJUDICATOR, Role.ANNOTATOR}),
    ADJUDICATE: frozenset({Role.OWNER, Role.ADJUDICATOR}),
    ASSIGN: frozenset({Role.OWNER, Role.ADJUDICATOR}),
    UPLOAD: frozenset({Role.OWNER, Role.ADJUDICATOR}),
    REGRADE: frozenset({Role.OWNER, Role.ADJUDICATOR}),
    EXPORT: frozenset({Role.OWNER, Role.ADJUDICATOR}),
    MANAGE: frozenset({Role.OWNER}),
}


def _signed_in(user) -> bool:
    return bool(user and user.is_authenticated and user.is_active)


def allows(role: str | None, action: str) -> bool:
    """Whether ``role`` (None: not a member) may do ``action``."""
    return role in ROLES_FOR[action]


def actions_of(role: str | None) -> frozenset[str]:
    """Every action ``role`` may do: pages use it to offer only what will be accepted."""
    return frozenset(action for action in ROLES_FOR if allows(role, action))


def role_in(user, project: Project) -> str | None:
    """``user``'s role in ``project``, or None when they are not a member."""
    if not _signed_in(user):
        return None
    if user.is_superuser:
        return Role.OWNER
    return (
        Membership.objects.filter(project=project, user=user).values_list("role", flat=True).first()
    )


def projects_for(user, action: str = VIEW) -> QuerySet[Project]:
    """Projects in which ``user`` may do ``action`` (by default: see them)."""
    if not _signed_in(user):
        return Project.objects.none()
    if user.is_superuser:
        return Project.objects.all()
    return Project.objects.filter(
        memberships__user=user, memberships__role__in=ROLES_FOR[action]
    ).distinct()


def projects_with_role(user) -> QuerySet[Project]:
    """``projects_for(user)``, each with ``role`` set to the user's role in it."""
    if _signed_in(user) and user.is_superuser:
        return Project.objects.annotate(role=Value(Role.OWNER.value))
    return projects_for(user).annotate(role=_role_of_user(user, "pk"))


def _role_of_user(user, project_field: str) -> Subquery:
    """The user's role in the row's project, as an annotation, so the check costs no query."""
    return Subquery(
        Membership.objects.filter(project=OuterRef(project_field), user=user).values("role")[:1]
    )


def _checked(found, user, action: str, what: str):
    """``found`` (annotated with ``role``) if ``user`` may do ``action``; 404 for non-members,
    403 for members whose role does not allow it."""
    if found is None or not _signed_in(user):
        raise Http404(f"No such {what}.")
    if user.is_superuser:
        found.role = Role.OWNER
    if found.role is None:
        raise Http404(f"No such {what}.")
    require_role(found.role, action)
    return found


def require_role(role: str | None, action: str) -> None:
    """Raise PermissionDenied (403) with a message naming the roles that may."""
    if not allows(role, action):
        allowed = ", ".join(r for r in Role.values if r in ROLES_FOR[action])
        raise PermissionDenied(
            f"Your role in this project ({role}) cannot {action}; {allowed} can."
        )


def require(user, project: Project, action: str) -> str:
    """``user``'s role in ``project`` if it allows ``action``; Http404 for non-members, else
    PermissionDenied."""
    role = role_in(user, project)
    if role is None:
        raise Http404("No such project.")
    require_role(role, action)
    return role


def project_for(user, project_id: int, action: str = VIEW) -> Project:
    """The project, with ``role`` set to ``user``'s, if they may do ``action`` in it."""
    project = (
        Project.objects.annotate(role=_role_of_user(user, "pk")).filter(pk=project_id).first()
        if _signed_in(user)
        else None
    )
    return _checked(project, user, action, "project")


def run_for(user, run_id: int, action: str = VIEW) -> Run:
    """The run with its project, ``role`` set to ``user``'s, if they may do ``action`` in it."""
    run = (
        Run.objects.select_related("project")
        .annotate(role=_role_of_user(user, "project_id"))
        .filter(pk=run_id)
        .first()
        if _signed_in(user)
        else None
    )
    return _checked(run, user, action, "run")


def item_for(user, item_id: int, action: str = VIEW) -> Item:
    """The item with its run and project, ``role`` set to ``user``'s, if they may do
    ``action`` in the project."""
    item = (
        Item.objects.select_related("run__project")
        .annotate(role=_role_of_user(user, "run__project_id"))
        .filter(pk=item_id)
        .first()
        if _signed_in(user)
        else None
    )
    return _checked(item, user, action, "item")


def export_for(user, export_id: int, action: str = EXPORT) -> Export:
    """The export with its run and project, ``role`` set to ``user``'s, if they may do
    ``action`` (by default: export) in the project."""
    found = (
        Export.objects.select_related("run__project", "user")
        .annotate(role=_role_of_user(user, "run__project_id"))
        .filter(pk=export_id)
        .first()
        if _signed_in(user)
        else None
    )
    return _checked(found, user, action, "export")


def review_kind(*, item: Item, user, role: str | None) -> str:
    """The kind of review ``user`` would make on ``item`` now (a Review.Kind), or
    PermissionDenied saying who may decide it.

    Annotators review the rows assigned to them (any row of a run nobody split); a row under
    blind double review takes its assignees' blind verdicts; a conflict is the adjudicators'.
    Adjudicators and owners may decide any row, and their decision ends a double review.
    """
    require_role(role, REVIEW)
    adjudicates = allows(role, ADJUDICATE)
    if item.review_stage == Stage.CONFLICT:
        if adjudicates:
            return Review.Kind.ADJUDICATION
        raise PermissionDenied(
            "The blind reviews of this row disagree; an adjudicator or owner decides it now."
        )
    if adjudicates and item.review_stage != Stage.BLIND:
        return Review.Kind.REVIEW
    assigned = Assignment.objects.filter(item=item, annotator=user)
    if item.review_stage == Stage.BLIND:
        if assigned.exists():
            return Review.Kind.BLIND
        if adjudicates:
            return Review.Kind.ADJUDICATION
        raise PermissionDenied(
            "This row is under blind double review by the annotators it is assigned to."
        )
    # The split first: on a run nobody split (the usual case) the assignment is not asked.
    if run_queue_split(run_id=item.run_id) and not assigned.exists():
        raise PermissionDenied(
            "This run's review queue is split among annotators and this row is not in yours; "
            "an adjudicator or owner can review it."
        )
    return Review.Kind.REVIEW


def sees_others_verdicts(*, item: Item, role: str | None) -> bool:
    """Whether ``role`` may see other people's verdicts on ``item``: not while its blind double
    review is open, unless they adjudicate."""
    return item.review_stage != Stage.BLIND or allows(role, ADJUDICATE)


def ruling_for(user, ruling_id: int) -> Ruling:
    """The ruling, if ``user`` may undo it: whoever made it while they may still make rulings,
    or an adjudicator or owner of its project."""
    ruling = (
        Ruling.objects.select_related("project", "user")
        .annotate(role=_role_of_user(user, "project_id"))
        .filter(pk=ruling_id)
        .first()
        if _signed_in(user)
        else None
    )
    ruling = _checked(ruling, user, RULE, "ruling")
    if ruling.user_id != user.pk and not allows(ruling.role, ADJUDICATE):
        raise PermissionDenied(
            "Only whoever made a ruling, or an adjudicator or owner, can undo it."
        )
    return ruling
