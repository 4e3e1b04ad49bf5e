"""Team review: splitting a run's queue, equivalence rulings, the audit trail."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access, audit
from reviewer.api import serializers as s
from reviewer.api.errors import error_body
from reviewer.api.pagination import (
    NewestFirstPagination,
)
from reviewer.api.views.base import ERROR, ApiView
from reviewer.models import Ruling, Run
from reviewer.services import assignments, rulings


def _assignments(run: Run) -> dict:
    return {
        "reviews_per_flagged_row": run.reviews_per_flagged_row,
        "conflicts": assignments.conflict_count(run=run),
        "queues": s.QueueProgressSerializer(assignments.queue_progress(run=run), many=True).data,
    }


class RunAssignments(ApiView):
    serializer_class = s.AssignmentsSerializer

    @extend_schema(responses={200: s.AssignmentsSerializer, 404: ERROR})
    def get(self, request: Request, run_id: int) -> Response:
        """Each annotator's queue in the run: rows assigned, done and still to do."""
        return Response(_assignments(access.run_for(request.user, run_id)))

    @extend_schema(
        request=s.AssignmentSplitSerializer,
        responses={200: s.AssignmentsSerializer, 400: ERROR, 403: ERROR, 404: ERROR},
    )
    def post(self, request: Request, run_id: int) -> Response:
        """Split the run's review queue among annotators by share (owners and adjudicators).
        Splitting again replaces open assignments; reviewed rows stay with their reviewer."""
        run = access.run_for(request.user, run_id, access.ASSIGN)
        serializer = s.AssignmentSplitSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            assignments.run_assign(
                run=run,
                shares=data["annotators"],
                reviews_per_flagged_row=data["reviews_per_flagged_row"],
                scope=data["scope"],
                by=request.user,
            )
        except assignments.AssignmentError as error:
            return Response(error_body("invalid", str(error)), status=status.HTTP_400_BAD_REQUEST)
        return Response(_assignments(access.run_for(request.user, run_id)))


class ItemRuling(ApiView):
    serializer_class = s.RulingSerializer

    @extend_schema(request=None, responses={201: s.RulingSerializer, 403: ERROR, 409: ERROR})
    def post(self, request: Request, item_id: int) -> Response:
        """Apply the item's human verdict to every other undecided row of the project with the
        same normalised gold and prediction; 409 if the item has no human verdict or no such
        row exists."""
        item = access.item_for(request.user, item_id, access.RULE)
        try:
            ruling = rulings.ruling_apply(item=item, user=request.user)
        except rulings.RulingError as error:
            return Response(
                error_body("ruling_refused", str(error)), status=status.HTTP_409_CONFLICT
            )
        return Response(s.RulingSerializer(ruling).data, status=status.HTTP_201_CREATED)


class RulingUndo(ApiView):
    serializer_class = s.RulingSerializer

    @extend_schema(request=None, responses={200: s.RulingSerializer, 403: ERROR, 409: ERROR})
    def post(self, request: Request, ruling_id: int) -> Response:
        """Undo a ruling: its rows go back to what they were, except rows someone changed
        since (``rows_applied`` - ``rows_restored`` of them). Its maker, an adjudicator or an
        owner may."""
        ruling = access.ruling_for(request.user, ruling_id)
        try:
            ruling = rulings.ruling_undo(ruling=ruling, user=request.user)
        except rulings.RulingError as error:
            return Response(
                error_body("ruling_refused", str(error)), status=status.HTTP_409_CONFLICT
            )
        return Response(s.RulingSerializer(ruling).data)


class ProjectRulings(ApiView):
    serializer_class = s.RulingSerializer
    pagination_class = NewestFirstPagination

    @extend_schema(responses={200: s.RulingSerializer(many=True), 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """The project's equivalence rulings, newest first."""
        project = access.project_for(request.user, project_id)
        found = Ruling.objects.filter(project=project).select_related("user", "undone_by")
        return self.get_paginated_response(
            self.get_serializer(self.paginate_queryset(found), many=True).data
        )


class ProjectAudit(ApiView):
    serializer_class = s.AuditEventSerializer
    pagination_class = NewestFirstPagination

    @extend_schema(
        parameters=[s.AuditFilterSerializer],
        responses={200: s.AuditEventSerializer(many=True), 404: ERROR},
    )
    def get(self, request: Request, project_id: int) -> Response:
        """The project's audit trail, newest first; ``run`` and ``action`` narrow it."""
        project = access.project_for(request.user, project_id)
        filters = s.AuditFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        events = audit.project_events(
            project=project,
            user=request.user,
            role=project.role,
            run_id=filters.validated_data.get("run"),
            action=filters.validated_data.get("action", ""),
        )
        return self.get_paginated_response(
            self.get_serializer(self.paginate_queryset(events), many=True).data
        )
