"""The generation page (a project's problem sets and endpoints, and the form that generates a
run), "test connection", and the generation section of a run's page with cancel, resume and
the LLM judge."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from grading.llm import EndpointError
from grading.reader import IngestError
from reviewer import access
from reviewer.generation_report import generation_report
from reviewer.models import Endpoint, GenerationJob
from reviewer.pages.generation_forms import EndpointForm, GenerateForm, JudgeForm, ProblemSetForm
from reviewer.services import endpoints, generation, judging, problem_sets
from reviewer.services.members import ProjectNameTakenError
from reviewer.services.upload_store import upload_store


@require_http_methods(["GET", "POST"])
def generate(request: HttpRequest) -> HttpResponse:
    """One page per project: upload a problem set, save an endpoint, generate a run."""
    projects = access.projects_for(request.user, access.UPLOAD).order_by("name")
    chosen = request.POST.get("project") or request.GET.get("project")
    project = None
    if chosen and chosen.isdigit():
        project = access.project_for(request.user, int(chosen), access.UPLOAD)
    elif projects:
        project = projects[0]
    forms = {
        "problem_set_form": ProblemSetForm(),
        "endpoint_form": EndpointForm(),
        "generate_form": GenerateForm(project=project) if project else None,
    }
    status = 200
    step = request.POST.get("step", "")
    if request.method == "POST" and (project is not None or step == "problem_set"):
        response, status = _post(request, project, step, forms)
        if response is not None:
            return response
    context = {
        "projects": projects,
        "project": project,
        "problem_sets": project.problem_sets.all() if project else [],
        "endpoints": project.endpoints.all() if project else [],
        **forms,
    }
    return render(request, "reviewer/generate.html", context, status=status)


def _post(request, project, step: str, forms: dict) -> tuple[HttpResponse | None, int]:
    """Handle one of the page's forms: a redirect when it worked, else the form with errors."""
    if step == "problem_set":
        form = forms["problem_set_form"] = ProblemSetForm(request.POST, request.FILES)
        if not form.is_valid():
            return None, 400
        stored = upload_store(file=form.cleaned_data["file"])
        try:
            uploaded = problem_sets.problem_set_upload(
                stored=stored,
                project_name=project.name if project else request.POST.get("new_project", ""),
                user=request.user,
                name=form.cleaned_data["name"],
            )
        except IngestError as error:
            for problem in error.problems:
                form.add_error("file", problem)
            return None, 400
        except (ProjectNameTakenError, PermissionDenied) as error:
            form.add_error(None, str(error))
            return None, 400
        done = uploaded.problem_set
        verb = "was already" if uploaded.duplicate else "is now"
        messages.success(
            request, f"“{done.name}” {verb} a problem set: {done.problem_count} problems."
        )
        return redirect(f"{request.path}?project={done.project_id}"), 302
    again = redirect(f"{request.path}?project={project.pk}")
    if step == "endpoint":
        form = forms["endpoint_form"] = EndpointForm(request.POST)
        if not form.is_valid():
            return None, 400
        try:
            saved = endpoints.endpoint_create(
                project=project, user=request.user, **form.cleaned_data
            )
        except endpoints.EndpointSetupError as error:
            form.add_error(None, str(error))
            return None, 400
        messages.success(request, f"Endpoint “{saved.name}” saved.")
        return again, 302
    if step == "generate":
        form = forms["generate_form"] = GenerateForm(request.POST, project=project)
        if not form.is_valid():
            return None, 400
        try:
            run = generation.generation_start(
                problem_set=form.cleaned_data["problem_set"],
                endpoint=form.cleaned_data["endpoint"],
                user=request.user,
                options=form.options(),
                name=form.cleaned_data["name"],
                model=form.cleaned_data["model"],
            )
        except generation.GenerationSetupError as error:
            form.add_error(None, str(error))
            return None, 400
        messages.success(request, f"Run “{run.name}” is being generated: {run.total_rows} pairs.")
        return redirect("run_detail", run_id=run.pk), 302
    return None, 400


@require_POST
def endpoint_test(request: HttpRequest, endpoint_id: int) -> HttpResponse:
    """List the server's models; for htmx, only the line under the endpoint."""
    endpoint = get_object_or_404(Endpoint.objects.select_related("project"), pk=endpoint_id)
    access.require(request.user, endpoint.project, access.UPLOAD)
    try:
        models, error = endpoints.endpoint_test(endpoint=endpoint), ""
    except (EndpointError, endpoints.EndpointSetupError) as failed:
        models, error = (), str(failed)
    if request.htmx:
        context = {"endpoint": endpoint, "models": models, "error": error}
        return render(request, "reviewer/generate.html#endpoint_test", context)
    if error:
        messages.error(request, f"{endpoint.name}: {error}")
    else:
        messages.success(request, f"{endpoint.name} answers; its models: {', '.join(models)}")
    return redirect(f"{reverse('generate')}?project={endpoint.project_id}")


@require_GET
def run_generation(request: HttpRequest, run_id: int) -> HttpResponse:
    """The run page's generation section (polled while it runs); empty for uploaded runs."""
    run = access.run_for(request.user, run_id, access.VIEW)
    report = generation_report(run=run)
    if report is None:
        return HttpResponse(status=204)
    job = GenerationJob.objects.select_related("endpoint", "problem_set").get(run=run)
    context = {
        "run": run,
        "job": job,
        "report": report,
        "allowed": access.actions_of(run.role),
        "judge_form": JudgeForm(project=run.project, initial={"endpoint": job.endpoint_id}),
    }
    return render(request, "reviewer/run_generation.html", context)


@require_POST
def run_generation_action(request: HttpRequest, run_id: int, action: str) -> HttpResponse:
    """Cancel or resume a run's generation, or ask the LLM judge about its rows."""
    run = access.run_for(request.user, run_id, access.REGRADE)
    if action in ("cancel", "resume"):
        try:
            if action == "cancel":
                generation.generation_cancel(run=run, user=request.user)
                messages.success(request, "Generation cancelled: answers in flight are stored.")
            else:
                generation.generation_resume(run=run, user=request.user)
                messages.success(request, "Generation resumed: only missing pairs are asked for.")
        except generation.GenerationSetupError as error:
            messages.error(request, str(error))
    elif action == "judge":
        form = JudgeForm(request.POST, project=run.project)
        if not form.is_valid():
            messages.error(request, "Choose an endpoint and which rows the judge sees.")
        else:
            count = judging.judge_enqueue(
                run=run,
                endpoint=form.cleaned_data["endpoint"],
                scope=form.cleaned_data["scope"],
                user=request.user,
            )
            messages.success(request, f"The LLM judge is asked about {count} rows.")
    else:
        raise PermissionDenied(f"unknown action {action!r}")
    return redirect("run_detail", run_id=run.pk)
