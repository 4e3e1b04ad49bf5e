"""The upload page: send a file, then confirm the column mapping and create the run."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from grading.reader import IngestError
from reviewer import access, services
from reviewer.pages.forms import MappingForm, UploadForm

DELIMITER_LABELS = {",": ",", ";": ";", "\t": "tab", "|": "|"}


@require_http_methods(["GET", "POST"])
def upload(request: HttpRequest) -> HttpResponse:
    """Two steps on one page: send the file, then confirm the column mapping and create the run.

    The file is stored once, in the first step; the second step refers to it by its token.
    """
    step = request.POST.get("step", "")
    if request.method == "GET":
        return _upload_page(request, upload_form=UploadForm())
    if step == "upload":
        form = UploadForm(request.POST, request.FILES)
        if not form.is_valid():
            return _upload_page(request, upload_form=form, status=400)
        stored = services.upload_store(file=form.cleaned_data["file"])
        initial = {
            "token": stored.token,
            "project": form.cleaned_data["project"],
            "delimiter": form.cleaned_data["delimiter"],
            "name": stored.filename,
        }
        return _mapping_page(request, stored=stored, data=None, initial=initial)

    try:
        stored = services.upload_get(token=request.POST.get("token", ""))
    except services.UnknownUploadError:
        messages.error(request, "That upload has expired or does not exist. Upload the file again.")
        return redirect("upload")
    if step == "preview":
        # The user changed the delimiter: read the file again and guess the mapping afresh.
        initial = {key: request.POST.get(key, "") for key in ("token", "project", "delimiter")}
        initial.update(
            {key: request.POST.get(key, "") for key in ("name", "model_name", "dataset")}
        )
        initial["evaluators"] = request.POST.getlist("evaluators")
        return _mapping_page(request, stored=stored, data=None, initial=initial)
    return _mapping_page(request, stored=stored, data=request.POST, initial=None, create=True)


def _upload_page(request, *, upload_form, status=200, **context) -> HttpResponse:
    context |= {
        "upload_form": upload_form,
        "projects": access.projects_for(request.user, access.UPLOAD),
        "max_upload_bytes": settings.MATHJURY_UPLOAD_MAX_BYTES,
    }
    return render(request, "reviewer/upload.html", context, status=status)


def _mapping_page(request, *, stored, data, initial, create=False) -> HttpResponse:
    """Preview the stored file and show the mapping form; with ``create``, try to create the run.

    A file that cannot be previewed or is refused is gone (the service deletes it), so those
    answers start again at the first step.
    """
    delimiter = (data or initial).get("delimiter") or None
    try:
        preview = services.upload_preview(stored=stored, delimiter=delimiter)
    except IngestError as error:
        services.upload_discard(stored=stored)
        return _upload_page(
            request, upload_form=UploadForm(initial=initial), problems=error.problems, status=400
        )
    if initial is not None:
        initial = {**_mapping_initial(preview), **initial}
    form = MappingForm(
        data,
        initial=initial,
        columns=list(preview.columns),
        needs_confirmation=list(preview.needs_confirmation),
    )
    if create and form.is_valid():
        again = UploadForm(initial={"project": form.cleaned_data["project"]})
        try:
            uploaded = services.run_upload(
                stored=stored,
                project_name=form.cleaned_data["project"],
                user=request.user,
                mapping=form.mapping(),
                name=form.cleaned_data["name"],
                model_name=form.cleaned_data["model_name"],
                dataset=form.cleaned_data["dataset"],
                evaluators=form.cleaned_data["evaluators"],
                delimiter=form.cleaned_data["delimiter"] or None,
            )
        except IngestError as error:
            return _upload_page(request, upload_form=again, problems=error.problems, status=400)
        except (services.ProjectNameTakenError, PermissionDenied) as error:
            # Another's project name (409), or a role that may not upload (403).
            messages.error(request, str(error))
            status = 409 if isinstance(error, services.ProjectNameTakenError) else 403
            return _upload_page(request, upload_form=again, status=status)
        if uploaded.duplicate:
            return _upload_page(request, upload_form=again, duplicate=uploaded.run)
        run = uploaded.run
        messages.success(request, f"Run “{run.name}” created: {run.total_rows} rows to grade.")
        return redirect("run_detail", run_id=run.id)
    context = {
        "mapping_form": form,
        "upload": stored,
        "preview": preview,
        "preview_delimiter": DELIMITER_LABELS.get(preview.delimiter or "", preview.delimiter),
        "preview_rows": [[row.get(c, "") for c in preview.columns] for row in preview.rows],
    }
    status = 200 if data is None or form.is_valid() else 400
    return render(request, "reviewer/upload.html", context, status=status)


def _mapping_initial(preview) -> dict:
    initial = {f"map_{field}": column for field, column in preview.guessed_mapping.items()}
    if preview.delimiter:
        initial["delimiter"] = preview.delimiter
    return initial
