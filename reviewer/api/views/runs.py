"""Runs: create from a file or JSON rows, read with counts and progress, re-grade, statistics and comparison."""

from __future__ import annotations

import json

from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access, selectors, services, stats
from reviewer.api import serializers as s
from reviewer.api.pagination import (
    NewestFirstPagination,
)
from reviewer.api.views.base import ERROR, ApiView
from reviewer.models import Run


class RunList(ApiView):
    serializer_class = s.RunSerializer
    pagination_class = NewestFirstPagination
    parser_classes = [JSONParser, MultiPartParser]

    def get_queryset(self):
        runs = Run.objects.filter(project__in=access.projects_for(self.request.user))
        project = self.request.query_params.get("project", "")
        if project:
            runs = runs.filter(project_id=int(project)) if project.isdigit() else runs.none()
        return runs.select_related("project", "uploaded_by")

    @extend_schema(
        operation_id="runs_list",
        parameters=[OpenApiParameter("project", int, description="only this project's runs")],
    )
    def get(self, request: Request) -> Response:
        """The runs you can see, newest first."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request={
            "multipart/form-data": s.RunUploadSerializer,
            "application/json": s.RunRowsSerializer,
        },
        responses={201: s.RunDetailSerializer, 200: s.RunDetailSerializer, 400: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a run from an uploaded file (multipart) or from JSON rows, and grade it.

        The same file (or the same rows) sent again to the same project returns the existing
        run with 200, so a retried request never makes a second run.
        """
        multipart = request.content_type.startswith("multipart/")
        serializer_class = s.RunUploadSerializer if multipart else s.RunRowsSerializer
        serializer = serializer_class(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # Who may upload here is settled before the file is stored or read.
        services.upload_allowed(project_name=data["project"], user=request.user)
        if multipart:
            stored = services.upload_store(file=data["file"])
        else:
            stored = services.upload_store(file=_rows_as_jsonl(data["rows"], data["name"]))
        uploaded = services.run_upload(
            stored=stored,
            project_name=data["project"],
            user=request.user,
            mapping=data.get("mapping"),
            name=data["name"],
            model_name=data["model_name"],
            dataset=data["dataset"],
            evaluators=data.get("evaluators"),
            delimiter=data.get("delimiter"),
            encoding=data.get("encoding") or None,
            skip_bad_lines=data["skip_bad_lines"],
        )
        return Response(
            _run_detail(uploaded.run),
            status=status.HTTP_200_OK if uploaded.duplicate else status.HTTP_201_CREATED,
        )


def _rows_as_jsonl(rows: list[dict], name: str) -> SimpleUploadedFile:
    """JSON rows as the JSONL file an upload would have been, so they take the same path."""
    body = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    return SimpleUploadedFile(f"{name.strip() or 'rows'}.jsonl", body)


def _run_detail(run: Run) -> dict:
    context = {
        "counts": selectors.run_counts(run=run),
        "progress": selectors.run_progress(run=run),
    }
    return s.RunDetailSerializer(run, context=context).data


class RunDetail(ApiView):
    serializer_class = s.RunDetailSerializer

    @extend_schema(responses={200: s.RunDetailSerializer, 404: ERROR})
    def get(self, request: Request, run_id: int) -> Response:
        """A run with its counts and grading progress; poll it until ``progress.done``."""
        return Response(_run_detail(access.run_for(request.user, run_id)))


class RunRegrade(ApiView):
    serializer_class = s.RegradeSerializer

    @extend_schema(responses={202: s.RunDetailSerializer, 400: ERROR, 404: ERROR})
    def post(self, request: Request, run_id: int) -> Response:
        """Grade the run again with these evaluators; human reviews are kept."""
        run = access.run_for(request.user, run_id, access.REGRADE)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        run = services.run_regrade(
            run=run, evaluators=serializer.validated_data["evaluators"], user=request.user
        )
        return Response(_run_detail(run), status=status.HTTP_202_ACCEPTED)


class RunStatsView(ApiView):
    serializer_class = s.StatsQuerySerializer

    @extend_schema(
        parameters=[s.StatsQuerySerializer], responses={200: OpenApiTypes.OBJECT, 404: ERROR}
    )
    def get(self, request: Request, run_id: int) -> Response:
        """Everything on the run's statistics page: accuracy before and after review,
        evaluator accuracy and agreement, review reasons, a breakdown, annotator agreement."""
        run = access.run_for(request.user, run_id)
        query = s.StatsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        breakdown = query.validated_data.get("breakdown") or None
        return Response(stats.run_stats(run=run, breakdown=breakdown).as_dict())


class RunCompareView(ApiView):
    serializer_class = s.CompareQuerySerializer

    @extend_schema(
        parameters=[s.CompareQuerySerializer], responses={200: OpenApiTypes.OBJECT, 404: ERROR}
    )
    def get(self, request: Request) -> Response:
        """Two runs side by side, rows matched by problem id."""
        query = s.CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        run_a = access.run_for(request.user, query.validated_data["run_a"])
        run_b = access.run_for(request.user, query.validated_data["run_b"])
        return Response(stats.runs_compare(run_a=run_a, run_b=run_b).as_dict())
