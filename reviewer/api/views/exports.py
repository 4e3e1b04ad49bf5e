"""Exports: jobs, their progress and files, and small exports streamed at once."""

from __future__ import annotations

from django.http import FileResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access
from reviewer.api import serializers as s
from reviewer.api.errors import error_body
from reviewer.api.pagination import (
    NewestFirstPagination,
)
from reviewer.api.views.base import ERROR, ApiView
from reviewer.services import exports
from reviewer.services.exports import CONTENT_TYPES


class RunExports(ApiView):
    serializer_class = s.ExportSerializer
    pagination_class = NewestFirstPagination

    @extend_schema(responses={200: s.ExportSerializer(many=True), 404: ERROR})
    def get(self, request: Request, run_id: int) -> Response:
        """The run's exports, newest first."""
        run = access.run_for(request.user, run_id, access.EXPORT)
        page = self.paginate_queryset(exports.export_list(run=run))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=s.ExportStartSerializer,
        responses={202: s.ExportSerializer, 400: ERROR, 404: ERROR},
    )
    def post(self, request: Request, run_id: int) -> Response:
        """Start an export in the background; poll ``/api/exports/<id>/`` for its progress."""
        run = access.run_for(request.user, run_id, access.EXPORT)
        serializer = s.ExportStartSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        job = exports.export_start(
            run=run,
            user=request.user,
            format=serializer.validated_data["format"],
            variant=serializer.validated_data["variant"],
            filters=serializer.filters(),
        )
        response = Response(self.get_serializer(job).data, status=status.HTTP_202_ACCEPTED)
        response["Location"] = request.build_absolute_uri(f"/api/exports/{job.pk}/")
        return response


class RunExportStream(ApiView):
    serializer_class = s.ExportStartSerializer

    @extend_schema(
        parameters=[s.ExportStartSerializer],
        responses={
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/x-ndjson"): OpenApiTypes.BINARY,
            (200, "application/vnd.apache.parquet"): OpenApiTypes.BINARY,
            400: ERROR,
            404: ERROR,
        },
    )
    def get(self, request: Request, run_id: int) -> StreamingHttpResponse:
        """Download a small export directly (no dataset card); larger ones answer 400 and
        ask for an export job."""
        run = access.run_for(request.user, run_id, access.EXPORT)
        serializer = s.ExportStartSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        streamed = exports.export_stream(
            user=request.user,
            run=run,
            format=serializer.validated_data["format"],
            variant=serializer.validated_data["variant"],
            filters=serializer.filters(),
        )
        response = StreamingHttpResponse(streamed.chunks, content_type=streamed.content_type)
        response["Content-Disposition"] = f'attachment; filename="{streamed.filename}"'
        return response


class ExportDetail(ApiView):
    serializer_class = s.ExportSerializer

    @extend_schema(responses={200: s.ExportSerializer, 404: ERROR})
    def get(self, request: Request, export_id: int) -> Response:
        """An export's status and progress; ``downloads`` has its links once it is done."""
        return Response(self.get_serializer(access.export_for(request.user, export_id)).data)


_PART_TYPES = {"card.md": "text/markdown; charset=utf-8", "card.json": "application/json"}


class ExportDownload(ApiView):
    serializer_class = s.ExportPartSerializer

    @extend_schema(
        parameters=[s.ExportPartSerializer],
        responses={(200, "application/octet-stream"): OpenApiTypes.BINARY, 404: ERROR, 409: ERROR},
    )
    def get(self, request: Request, export_id: int) -> FileResponse:
        """A finished export's data file, its gold errata, or its dataset card."""
        job = access.export_for(request.user, export_id)
        serializer = s.ExportPartSerializer(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        part = serializer.validated_data["part"]
        path = exports.export_path(job, part)
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            return Response(
                error_body(
                    "not_found",
                    f"The file of export {job.pk} is not on this server's disk; its folder "
                    "(MATHJURY_EXPORT_DIR) must be shared by the web server and the workers.",
                ),
                status=status.HTTP_404_NOT_FOUND,
            )
        return FileResponse(
            handle,
            as_attachment=True,
            filename=path.name,
            content_type=_PART_TYPES.get(part, CONTENT_TYPES[job.format]),
        )
