"""Pages for reviewing as a team: splitting a run's queue, equivalence rulings and the
project's audit trail. Assignment-aware review itself happens on the item page."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from reviewer import access, audit
from reviewer.models import AuditEvent, Membership
from reviewer.pages.forms import AssignForm
from reviewer.services import assignments, rulings

AUDIT_PAGE_SIZE = 100


def _reviewers(project) -> list[tuple]:
    """(user, role) of the project's members who may review, by name."""
    members = Membership.objects.filter(
        project=project, role__in=access.ROLES_FOR[access.REVIEW]
    ).select_related("user")
    return [(m.user, m.role) for m in members.order_by("user__username")]


@require_http_methods(["GET", "POST"])
def run_assignments(request: HttpRequest, run_id: int) -> HttpResponse:
    """Each annotator's queue in the run, and the form that splits it again."""
    action = access.ASSIGN if request.method == "POST" else access.VIEW
    run = access.run_for(request.user, run_id, action)
    reviewers = _reviewers(run.project)
    form = AssignForm(
        request.POST or None,
        reviewers=reviewers,
        initial={"reviews_per_flagged_row": run.reviews_per_flagged_row},
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                result = assignments.run_assign(
                    run=run,
                    shares=form.shares(),
                    reviews_per_flagged_row=form.cleaned_data["reviews_per_flagged_row"],
                    scope=form.cleaned_data["scope"],
                    by=request.user,
                )
            except assignments.AssignmentError as error:
                form.add_error(None, str(error))
            else:
                handed = ", ".join(f"{n} {c}" for n, c in result.per_annotator.items())
                messages.success(
                    request,
                    f"Queue split: {result.rows} rows ({handed})"
                    + (
                        f"; {result.blind_rows} under blind double review."
                        if result.blind_rows
                        else "."
                    ),
                )
                return redirect("run_assignments", run_id=run.pk)
        status = 400
    context = {
        "run": run,
        "form": form,
        "share_fields": [form[AssignForm.share_field(user)] for user, _ in reviewers],
        "progress": assignments.queue_progress(run=run),
        "conflicts": assignments.conflict_count(run=run),
        "allowed": access.actions_of(run.role),
    }
    return render(request, "reviewer/run_assignments.html", context, status=status)


@require_POST
def ruling_apply(request: HttpRequest, item_id: int) -> HttpResponse:
    """Apply the row's human verdict to the other undecided rows with its gold and prediction."""
    item = access.item_for(request.user, item_id, access.RULE)
    try:
        ruling = rulings.ruling_apply(item=item, user=request.user)
    except rulings.RulingError as error:
        messages.error(request, f"No ruling made: {error}.")
    else:
        messages.success(
            request,
            f"Ruling {ruling.pk}: “{ruling.get_verdict_display()}” applied to "
            f"{ruling.rows_applied} rows. Undo it from the audit trail if that was wrong.",
        )
    return redirect(_next_url(request, fallback=reverse("item_detail", args=[item.pk])))


@require_POST
def ruling_undo(request: HttpRequest, ruling_id: int) -> HttpResponse:
    """Undo a ruling: its rows go back to what they were, unless someone changed them since."""
    ruling = access.ruling_for(request.user, ruling_id)
    try:
        ruling = rulings.ruling_undo(ruling=ruling, user=request.user)
    except rulings.RulingError as error:
        messages.error(request, f"Nothing undone: {error}.")
    else:
        kept = ruling.rows_applied - ruling.rows_restored
        messages.success(
            request,
            f"Ruling {ruling.pk} undone: {ruling.rows_restored} rows put back"
            + (f"; {kept} kept, as someone changed them since." if kept else "."),
        )
    return redirect(_next_url(request, fallback=reverse("project_audit", args=[ruling.project_id])))


@require_GET
def project_audit(request: HttpRequest, project_id: int) -> HttpResponse:
    """The project's audit trail, newest first, optionally of one run or one kind of event."""
    project = access.project_for(request.user, project_id, access.VIEW)
    run_id = request.GET.get("run", "")
    action = request.GET.get("action", "")
    events = audit.project_events(
        project=project,
        user=request.user,
        role=project.role,
        run_id=int(run_id) if run_id.isdigit() else None,
        action=action if action in AuditEvent.Action.values else "",
    )
    # The names only: an item's columns hold whole model outputs.
    events = events.annotate(run_name=F("run__name"), row_number=F("item__row_number"))
    page = Paginator(events, AUDIT_PAGE_SIZE).get_page(request.GET.get("page"))
    ruling_ids = [e.data.get("ruling") for e in page if e.action == AuditEvent.Action.RULING]
    context = {
        "project": project,
        "page": page,
        "actions": AuditEvent.Action.choices,
        "chosen_action": action,
        "run_id": run_id if run_id.isdigit() else "",
        "undoable": rulings.rulings_undoable_by(
            user=request.user, role=project.role, ruling_ids=ruling_ids
        ),
        "runs": project.runs.order_by("-created_at").values("pk", "name"),
    }
    return render(request, "reviewer/project_audit.html", context)


def _next_url(request: HttpRequest, *, fallback: str) -> str:
    """The form's ``next`` if it is a path on this site, else ``fallback``."""
    target = request.POST.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return fallback
