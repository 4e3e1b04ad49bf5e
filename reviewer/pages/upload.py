"""The upload page: send a file, then confirm the column mapping and create the run."""

from __future__ import annotations

import csv

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from grading.reader import REQUIRED_FIELDS, EncodingError, IngestError
from reviewer import access, services
from reviewer.pages.forms import ENCODING_CHOICES, FIELD_LABELS, MappingForm, UploadForm

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
        try:
            # Who may upload here is settled before the file is stored or read.
            services.upload_allowed(project_name=form.cleaned_data["project"], user=request.user)
        except (services.ProjectNameTakenError, PermissionDenied) as error:
            return _refused(request, error, UploadForm(initial={"project": ""}))
        stored = services.upload_store(file=form.cleaned_data["file"])
        initial = {
            "token": stored.token,
            "project": form.cleaned_data["project"],
            "delimiter": form.cleaned_data["delimiter"],
            "encoding": form.cleaned_data["encoding"],
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
        initial = {
            key: request.POST.get(key, "") for key in ("token", "project", "delimiter", "encoding")
        }
        initial.update(
            {key: request.POST.get(key, "") for key in ("name", "model_name", "dataset")}
        )
        if request.POST.getlist("evaluators"):  # the encoding offer sends none: keep defaults
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
    encoding = (data or initial).get("encoding") or None
    try:
        preview = services.upload_preview(stored=stored, delimiter=delimiter, encoding=encoding)
    except EncodingError as error:
        # Kept, so the person can say which encoding it is: offered, never guessed.
        return _upload_page(
            request,
            upload_form=UploadForm(initial=initial),
            problems=error.problems,
            encoding_offer={
                "token": stored.token,
                "project": (data or initial).get("project", ""),
                "delimiter": delimiter or "",
                "name": (data or initial).get("name", "") or stored.filename,
                "encoding": error.suggested,
                "label": dict(ENCODING_CHOICES)[error.suggested],
            },
            status=400,
        )
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
                encoding=form.cleaned_data["encoding"] or None,
                skip_bad_lines=form.cleaned_data["skip_bad_lines"],
            )
        except IngestError as error:
            return _upload_page(request, upload_form=again, problems=error.problems, status=400)
        except (services.ProjectNameTakenError, PermissionDenied) as error:
            return _refused(request, error, again)
        if uploaded.duplicate:
            return _upload_page(request, upload_form=again, duplicate=uploaded.run)
        run = uploaded.run
        skipped = len(run.skipped_lines)
        messages.success(
            request,
            f"Run “{run.name}” created: {run.total_rows} rows to grade"
            + (f"; {skipped} bad lines skipped (listed on the run's page)." if skipped else "."),
        )
        return redirect("run_detail", run_id=run.id)
    missing = [FIELD_LABELS[f] for f in REQUIRED_FIELDS if f not in preview.guessed_mapping]
    context = {
        "missing_fields": missing,
        "mapping_form": form,
        "upload": stored,
        "preview": preview,
        "preview_delimiter": DELIMITER_LABELS.get(preview.delimiter or "", preview.delimiter),
        "preview_rows": [[row.get(c, "") for c in preview.columns] for row in preview.rows],
    }
    status = 200 if data is None or form.is_valid() else 400
    return render(request, "reviewer/upload.html", context, status=status)


def _refused(request, error, upload_form) -> HttpResponse:
    """Another team's project name (409), or a role that may not upload there (403)."""
    messages.error(request, str(error))
    status = 409 if isinstance(error, services.ProjectNameTakenError) else 403
    return _upload_page(request, upload_form=upload_form, status=status)


def _mapping_initial(preview) -> dict:
    initial = {f"map_{field}": column for field, column in preview.guessed_mapping.items()}
    if preview.delimiter:
        initial["delimiter"] = preview.delimiter
    return initial


@require_GET
def run_skipped_lines(request: HttpRequest, run_id: int) -> HttpResponse:
    """The lines an upload with "skip bad lines" left out, as CSV: line, problem."""
    run = access.run_for(request.user, run_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{run.pk}-skipped-lines.csv"'
    writer = csv.writer(response)
    writer.writerow(["line", "problem"])
    for skipped in run.skipped_lines:
        writer.writerow([skipped["line"], skipped["problem"]])
    return response
