"""A project's members page (owners only): add a member, change a role, remove a member, and
delete the project. The API's member endpoints call the same services."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from reviewer import access, services
from reviewer.models import Membership
from reviewer.pages.forms import MemberForm


@require_http_methods(["GET", "POST"])
def project_members(request: HttpRequest, project_id: int) -> HttpResponse:
    """The member list; a POST sets a member's role (``username``, ``role``), or with
    ``remove`` takes the member out."""
    project = access.project_for(request.user, project_id, access.MANAGE)
    form = MemberForm()
    status = 200
    if request.method == "POST" and "remove" in request.POST:
        member = get_user_model().objects.filter(username=request.POST["remove"]).first()
        try:
            if member and services.membership_remove(project=project, user=member, by=request.user):
                messages.success(request, f"{member.username} is no longer a member.")
        except services.LastOwnerError as error:
            messages.error(request, f"{member.username} was not removed: {error}.")
        return redirect("project_members", project_id=project.pk)
    if request.method == "POST":
        form = MemberForm(request.POST)
        if form.is_valid():
            member, role = form.cleaned_data["username"], form.cleaned_data["role"]
            try:
                services.membership_set(project=project, user=member, role=role, by=request.user)
            except services.LastOwnerError as error:
                messages.error(request, f"{member.username} stays owner: {error}.")
            else:
                messages.success(request, f"{member.username} is now {role} of {project.name}.")
            return redirect("project_members", project_id=project.pk)
        status = 400
    context = {
        "project": project,
        "members": Membership.objects.filter(project=project).select_related("user"),
        "form": form,
        "roles": Membership.Role.choices,
        "permissions": [
            (action, [role in roles for role in Membership.Role.values])
            for action, roles in access.ROLES_FOR.items()
        ],
    }
    return render(request, "reviewer/project_members.html", context, status=status)


@require_POST
def project_delete(request: HttpRequest, project_id: int) -> HttpResponse:
    """Delete the project with all its runs; the form asks for its name to confirm."""
    project = access.project_for(request.user, project_id, access.MANAGE)
    if request.POST.get("confirm_name", "").strip() != project.name:
        messages.error(request, "Type the project's name exactly to delete it.")
        return redirect("project_members", project_id=project.pk)
    services.project_delete(project=project, by=request.user)
    messages.success(request, f"Project “{project.name}” and its runs were deleted.")
    return redirect("run_list")
