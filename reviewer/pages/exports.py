"""The export pages: the run page's export form, an export's progress (polled by htmx) and its
files. They call the same services as the API (reviewer.services.exports)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from reviewer import access
from reviewer.models import Export, ReviewVerdict
from reviewer.pages.htmx import page_or_partial
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from reviewer.services.exports import CONTENT_TYPES

ROWS_CHOICES = [
    ("all", "every row"),
    ("reviewed", "reviewed by a person"),
    ("flagged", "flagged for review"),
]


class ExportForm(forms.Form):
    format = forms.ChoiceField(choices=Export.Format.choices, initial=Export.Format.CSV)
    variant = forms.ChoiceField(
        choices=Export.Variant.choices, initial=Export.Variant.SPREADSHEET, label="CSV for"
    )
    rows = forms.ChoiceField(choices=ROWS_CHOICES, initial="all")
    verdict = forms.ChoiceField(
        choices=[("", "any final verdict"), *ReviewVerdict.choices], required=False
    )
    # "download": stream small exports at once; "job": always write files with a dataset card
    how = forms.ChoiceField(choices=[("download", "download"), ("job", "job")], initial="job")

    def filters(self) -> ItemFilters:
        rows = self.cleaned_data["rows"]
        return ItemFilters(
            reviewed=True if rows == "reviewed" else None,
            needs_review=True if rows == "flagged" else None,
            verdict=self.cleaned_data["verdict"],
            order="row",
        )


@require_POST
def export_create(request: HttpRequest, run_id: int) -> HttpResponse:
    """Stream a small export straight away, or start a job and show its progress."""
    run = access.run_for(request.user, run_id, access.EXPORT)
    form = ExportForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a format, which rows, and CSV's variant to export.")
        return redirect("run_detail", run_id=run.pk)
    choice = form.cleaned_data
    if choice["how"] == "download":
        try:
            streamed = exports.export_stream(
                user=request.user,
                run=run,
                format=choice["format"],
                variant=choice["variant"],
                filters=form.filters(),
            )
        except exports.ExportTooLargeToStreamError as error:
            messages.info(request, f"{error}. It is being written now.")
        else:
            response = StreamingHttpResponse(streamed.chunks, content_type=streamed.content_type)
            response["Content-Disposition"] = f'attachment; filename="{streamed.filename}"'
            return response
    job = exports.export_start(
        run=run,
        user=request.user,
        format=choice["format"],
        variant=choice["variant"],
        filters=form.filters(),
    )
    return redirect("export_detail", export_id=job.pk)


@vary_on_headers("HX-Request", "HX-Target")
@require_GET
def export_detail(request: HttpRequest, export_id: int) -> HttpResponse:
    """An export's progress, then its files and dataset card; htmx polls the status part."""
    job = access.export_for(request.user, export_id)
    template = page_or_partial(request, "reviewer/export_detail.html", ("export-status",))
    context = {
        "export": job,
        "run": job.run,
        "working": job.status in (Export.Status.QUEUED, Export.Status.RUNNING),
        "percent": int(100 * job.rows_done / job.rows_total) if job.rows_total else 0,
        "filters_text": exports.export_filters_text(job.filters),
        "earlier": exports.export_list(run=job.run).exclude(pk=job.pk)[:10],
    }
    return render(request, template, context)


@require_GET
def export_file(request: HttpRequest, export_id: int, part: str) -> FileResponse:
    job = access.export_for(request.user, export_id)
    if part not in exports.PARTS:
        raise Http404("No such file.")
    try:
        path = exports.export_path(job, part)
        handle = path.open("rb")
    except (
        exports.ExportNotReadyError,
        exports.ExportPartMissingError,
        FileNotFoundError,
    ) as error:
        raise Http404(str(error)) from None
    content_type = {
        "card.md": "text/markdown; charset=utf-8",
        "card.json": "application/json",
    }.get(part, CONTENT_TYPES[job.format])
    return FileResponse(handle, as_attachment=True, filename=path.name, content_type=content_type)
