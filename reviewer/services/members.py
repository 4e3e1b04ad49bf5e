"""Projects and their members: creating and deleting projects, adding, changing and removing
members. Who may do what is decided in reviewer.access."""

from __future__ import annotations

import logging

from django.db import transaction

from reviewer import access
from reviewer.audit import Action, audit_record
from reviewer.models import Assignment, Item, Membership, Project
from reviewer.services.reviews import blind_review_settle

logger = logging.getLogger(__name__)


class ProjectNameTakenError(Exception):
    """A project of this name exists and the user is not one of its members."""

    def __init__(self, *, name: str):
        self.name = name
        super().__init__(
            f"a project named “{name}” already exists and you are not a member of it; "
            "choose another name, or ask one of its owners to add you"
        )


class LastOwnerError(Exception):
    """The change would leave the project without an owner."""

    def __init__(self):
        super().__init__("a project needs at least one owner; make someone else owner first")


def project_get_or_create(*, name: str, user) -> Project:
    """The project of this name; a new one has ``user`` as its owner.

    Names are unique across the site, so an existing project the user is not a member of
    raises ProjectNameTakenError. ``user`` None is the command line, run by an operator.
    """
    with transaction.atomic():
        project, created = Project.objects.get_or_create(
            name=name.strip(), defaults={"created_by": user}
        )
        if created:
            audit_record(
                Action.PROJECT_CREATE,
                actor=user,
                project=project,
                summary=f"Project “{project.name}” created",
            )
        if created and user is not None:
            Membership.objects.create(project=project, user=user, role=Membership.Role.OWNER)
    if not created and user is not None and access.role_in(user, project) is None:
        raise ProjectNameTakenError(name=project.name)
    return project


def project_delete(*, project: Project, by) -> None:
    """Delete the project with its runs, items, reviews and exports; its audit trail stays."""
    name, pk = project.name, project.pk
    with transaction.atomic():
        audit_record(
            Action.PROJECT_DELETE,
            actor=by,
            project=project,
            summary=f"Project “{name}” deleted with its {project.runs.count()} runs",
        )
        project.delete()
    logger.info("project %s (%s) deleted by %s", pk, name, by)


def membership_set(*, project: Project, user, role: str, by) -> Membership:
    """Add ``user`` to the project with ``role``, or change their role. Raises LastOwnerError
    when that would leave the project without an owner."""
    if role not in Membership.Role.values:
        raise ValueError(f"unknown role {role!r}; choose one of {Membership.Role.values}")
    with transaction.atomic():
        _owners_locked(project)
        membership = Membership.objects.filter(project=project, user=user).first()
        before = membership.role if membership else ""
        if membership is None:
            membership = Membership.objects.create(project=project, user=user, role=role)
        elif membership.role != role:
            if membership.role == Membership.Role.OWNER and _owner_count(project) == 1:
                raise LastOwnerError()
            membership.role = role
            membership.save(update_fields=["role"])
        if before != role:
            audit_record(
                Action.MEMBER_SET,
                actor=by,
                project=project,
                summary=f"{user.get_username()} is now {role}"
                + (f" (was {before})" if before else " (added)"),
                data={"user": user.get_username(), "before": before, "after": role},
            )
        if not access.allows(role, access.REVIEW):
            _open_assignments_drop(project=project, user=user)
    logger.info("%s is %s of project %s (set by %s)", user, role, project.pk, by)
    return membership


def membership_remove(*, project: Project, user, by) -> bool:
    """Take ``user`` out of the project; False if they were not a member. Raises
    LastOwnerError for the project's last owner."""
    with transaction.atomic():
        _owners_locked(project)
        membership = Membership.objects.filter(project=project, user=user).first()
        if membership is None:
            return False
        if membership.role == Membership.Role.OWNER and _owner_count(project) == 1:
            raise LastOwnerError()
        membership.delete()
        dropped = _open_assignments_drop(project=project, user=user)
        audit_record(
            Action.MEMBER_REMOVE,
            actor=by,
            project=project,
            summary=f"{user.get_username()} removed (was {membership.role})"
            + (f"; {dropped} rows left their queue" if dropped else ""),
            data={"user": user.get_username(), "before": membership.role, "open_rows": dropped},
        )
    logger.info("%s removed from project %s by %s", user, project.pk, by)
    return True


def _open_assignments_drop(*, project: Project, user) -> int:
    """Take the rows ``user`` has not reviewed out of their queues in ``project`` (they can no
    longer review them); a blind double review left waiting only for them is settled."""
    open_assignments = Assignment.objects.filter(
        item__run__project=project, annotator=user, done_at=None
    )
    item_ids = list(open_assignments.values_list("item_id", flat=True))
    open_assignments.delete()
    for item in (
        Item.objects.select_for_update(of=("self",))
        .select_related("run__project")
        .filter(pk__in=item_ids, review_stage=Item.ReviewStage.BLIND)
        .order_by("pk")
    ):
        blind_review_settle(item=item)
    return len(item_ids)


def _owners_locked(project: Project) -> None:
    """Lock the project row, so two owners demoting each other cannot both succeed."""
    Project.objects.select_for_update().filter(pk=project.pk).first()


def _owner_count(project: Project) -> int:
    return Membership.objects.filter(project=project, role=Membership.Role.OWNER).count()
