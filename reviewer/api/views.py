"""API views: each parses its input with a serializer, calls one service or selector through
reviewer.access, and returns JSON. Objects a user may not see are 404, as on the pages."""

from __future__ import annotations

import json

from axes.exceptions import AxesBackendPermissionDenied
from django.contrib.auth.decorators import login_not_required
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Prefetch, prefetch_related_objects
from django.http import FileResponse, Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access, audit, selectors, services, stats
from reviewer.api import serializers as s
from reviewer.api.errors import error_body
from reviewer.api.pagination import (
    NewestFirstPagination,
    OldestFirstPagination,
    RowOrderPagination,
)
from reviewer.models import Membership, Review, Ruling, Run
from reviewer.services import assignments, exports, rulings
from reviewer.services.exports import CONTENT_TYPES

ERROR = OpenApiResponse(description='{"error": {"code", "message", "fields"?}}')


class ApiView(generics.GenericAPIView):
    """Base of every endpoint: DRF authenticates (token or session) instead of the login
    middleware, which would redirect a token-only client to the login page."""

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))


class TokenView(ObtainAuthToken):
    """POST a username and password, get the API token for them."""

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))

    def post(self, request: Request, *args, **kwargs) -> Response:
        """The token; 429 while django-axes has this username locked out. Axes flags DRF's
        request, which its middleware never sees, so the flag is read here."""
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            if getattr(request, "axes_locked_out", False):
                raise AxesBackendPermissionDenied("locked out") from None
            raise


# ---- projects -----------------------------------------------------------------------------


class ProjectList(ApiView):
    serializer_class = s.ProjectSerializer
    pagination_class = NewestFirstPagination

    def get_queryset(self):
        return access.projects_with_role(self.request.user)

    @extend_schema(operation_id="projects_list")
    def get(self, request: Request) -> Response:
        """The projects you can see, newest first."""
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        request=s.ProjectCreateSerializer,
        responses={201: s.ProjectSerializer, 200: s.ProjectSerializer, 400: ERROR},
    )
    def post(self, request: Request) -> Response:
        """Create a project (or get the one with this name: 200)."""
        serializer = s.ProjectCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        name = serializer.validated_data["name"]
        existed = access.projects_for(request.user).filter(name=name.strip()).exists()
        project = services.project_get_or_create(name=name, user=request.user)
        return Response(
            s.ProjectSerializer(access.project_for(request.user, project.pk)).data,
            status=status.HTTP_200_OK if existed else status.HTTP_201_CREATED,
        )


class ProjectDetail(ApiView):
    serializer_class = s.ProjectSerializer

    @extend_schema(responses={200: s.ProjectSerializer, 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """One project, with your role in it."""
        return Response(s.ProjectSerializer(access.project_for(request.user, project_id)).data)

    @extend_schema(responses={204: None, 403: ERROR, 404: ERROR})
    def delete(self, request: Request, project_id: int) -> Response:
        """Delete the project with its runs, reviews and exports (owners only)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        services.project_delete(project=project, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ProjectMembers(ApiView):
    serializer_class = s.MembershipSerializer
    pagination_class = None

    @extend_schema(responses={200: s.MembershipSerializer(many=True), 404: ERROR})
    def get(self, request: Request, project_id: int) -> Response:
        """The project's members and their roles."""
        project = access.project_for(request.user, project_id)
        members = Membership.objects.filter(project=project).select_related("user")
        return Response(self.get_serializer(members, many=True).data)

    @extend_schema(
        request=s.MembershipSerializer,
        responses={200: s.MembershipSerializer, 400: ERROR, 403: ERROR, 404: ERROR, 409: ERROR},
    )
    def post(self, request: Request, project_id: int) -> Response:
        """Add a member with a role, or change a member's role (owners only)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        membership = services.membership_set(
            project=project,
            user=serializer.validated_data["user"],
            role=serializer.validated_data["role"],
            by=request.user,
        )
        return Response(self.get_serializer(membership).data)


class ProjectMember(ApiView):
    serializer_class = s.MembershipSerializer

    @extend_schema(responses={204: None, 403: ERROR, 404: ERROR, 409: ERROR})
    def delete(self, request: Request, project_id: int, username: str) -> Response:
        """Take a member out of the project (owners only; never its last owner)."""
        project = access.project_for(request.user, project_id, access.MANAGE)
        member = Membership.objects.filter(project=project, user__username=username).first()
        if member is None:
            raise Http404(f"{username} is not a member of this project.")
        services.membership_remove(project=project, user=member.user, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ---- runs ---------------------------------------------------------------------------------


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
        if multipart:
            stored = services.upload_store(file=data["file"])
        else:
            stored = services.upload_store(file=_rows_as_jsonl(data["rows"], data["name"]))
        project = services.project_get_or_create(name=data["project"], user=request.user)
        access.require(request.user, project, access.UPLOAD)
        try:
            run = services.run_create(
                project=project,
                user=request.user,
                upload_token=stored.token,
                mapping=data.get("mapping"),
                name=data["name"],
                model_name=data["model_name"],
                dataset=data["dataset"],
                evaluators=data.get("evaluators"),
                delimiter=data.get("delimiter"),
            )
        except services.DuplicateRunError as duplicate:
            stored.path.unlink(missing_ok=True)
            return Response(_run_detail(duplicate.run), status=status.HTTP_200_OK)
        return Response(_run_detail(run), status=status.HTTP_201_CREATED)


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


# ---- items and reviews --------------------------------------------------------------------


class ItemList(ApiView):
    serializer_class = s.ItemSerializer
    pagination_class = RowOrderPagination

    @extend_schema(
        parameters=[s.ItemFilterSerializer], responses={200: s.ItemSerializer(many=True)}
    )
    def get(self, request: Request, run_id: int) -> Response:
        """The run's items that match the filters (the run page's), in row order."""
        run = access.run_for(request.user, run_id)
        filters = s.ItemFilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        items = selectors.item_filter(run=run, filters=filters.filters(user_id=request.user.pk))
        page = self.paginate_queryset(items)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


def _item_detail(item_id: int, user) -> dict:
    item = access.item_for(user, item_id)
    prefetch_related_objects(
        [item],
        "evaluations",
        Prefetch("reviews", queryset=_visible_reviews(item, user).select_related("annotator")),
    )
    return s.ItemDetailSerializer(item).data


def _visible_reviews(item, user):
    """The item's reviews ``user`` may see: during a blind double review, those who do not
    adjudicate see only their own."""
    reviews = Review.objects.filter(item=item)
    if not access.sees_others_verdicts(item=item, role=item.role):
        reviews = reviews.filter(annotator=user)
    return reviews


class ItemDetail(ApiView):
    serializer_class = s.ItemDetailSerializer

    @extend_schema(responses={200: s.ItemDetailSerializer, 404: ERROR})
    def get(self, request: Request, item_id: int) -> Response:
        """One item with every evaluator's result and its review history (newest first)."""
        return Response(_item_detail(item_id, request.user))


class ItemReviews(ApiView):
    serializer_class = s.ReviewSerializer
    pagination_class = OldestFirstPagination

    @extend_schema(responses={200: s.ReviewSerializer(many=True), 404: ERROR})
    def get(self, request: Request, item_id: int) -> Response:
        """The item's review history, oldest first."""
        item = access.item_for(request.user, item_id)
        page = self.paginate_queryset(
            _visible_reviews(item, request.user).select_related("annotator")
        )
        return self.get_paginated_response(s.ReviewSerializer(page, many=True).data)

    @extend_schema(
        request=s.ReviewCreateSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Send the same key again when retrying: the decision is kept once.",
            )
        ],
        responses={
            201: s.ReviewResultSerializer,
            400: ERROR,
            404: ERROR,
            409: OpenApiResponse(
                description='Someone saved first: {"error": {"code": "stale_version", '
                '"message", "current": <the item as it is now>}}'
            ),
        },
    )
    def post(self, request: Request, item_id: int) -> Response:
        """Decide an item. Send ``expected_version`` (the item's version you saw) to get 409
        with the item's current state instead of overwriting someone else's decision.

        Once a run's queue is split, annotators decide the rows assigned to them; a row under
        blind double review takes its assignees' verdicts (``kind`` "blind"), and a conflict is
        decided by an adjudicator (403 for others, with the reason)."""
        item = access.item_for(request.user, item_id, access.REVIEW)
        serializer = s.ReviewCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key", "").strip()
        if len(key) > 100:
            return Response(
                error_body("invalid", "The Idempotency-Key header is longer than 100 characters."),
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            review = services.item_review(
                item=item,
                user=request.user,
                idempotency_key=key,
                role=item.role,
                **serializer.validated_data,
            )
        except services.StaleVersionError as stale:
            message = (
                f"Someone else decided this item since you loaded it (you sent version "
                f"{serializer.validated_data['expected_version']}, it is now version "
                f"{stale.item.version}). Your verdict was not saved; look at the current "
                "state and send it again with the new version if you still disagree."
            )
            body = error_body("stale_version", message, current=_item_detail(item_id, request.user))
            return Response(body, status=status.HTTP_409_CONFLICT)
        current = access.item_for(request.user, item_id)
        return Response(
            {"review": s.ReviewSerializer(review).data, "item": s.ItemSerializer(current).data},
            status=status.HTTP_201_CREATED,
        )


# ---- team review --------------------------------------------------------------------------


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


# ---- exports ------------------------------------------------------------------------------


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


# ---- statistics ---------------------------------------------------------------------------


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
