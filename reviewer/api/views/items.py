"""Items and their reviews: the filtered list, one item, its history, a verdict."""

from __future__ import annotations

from django.db.models import Prefetch, prefetch_related_objects
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from reviewer import access, selectors, services
from reviewer.api import serializers as s
from reviewer.api.errors import error_body
from reviewer.api.pagination import (
    OldestFirstPagination,
    ReviewQueuePagination,
    RowOrderPagination,
)
from reviewer.api.views.base import ERROR, ApiView
from reviewer.models import Review


class ItemList(ApiView):
    serializer_class = s.ItemSerializer
    pagination_class = RowOrderPagination

    @extend_schema(
        parameters=[s.ItemFilterSerializer], responses={200: s.ItemSerializer(many=True)}
    )
    def get(self, request: Request, run_id: int) -> Response:
        """The run's items that match the filters (the run page's), in row order, or with
        ``order=flagged`` in the order of the review queue."""
        run = access.run_for(request.user, run_id)
        query = s.ItemFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        filters = query.filters(user_id=request.user.pk)
        items = selectors.item_filter(run=run, filters=filters)
        if filters.order != "row":
            self.pagination_class = ReviewQueuePagination
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
