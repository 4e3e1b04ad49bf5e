"""Cursor pagination: stable while rows are added, and no COUNT over a large run."""

from rest_framework.pagination import CursorPagination


class NewestFirstPagination(CursorPagination):
    """Projects, runs and exports: newest first, by id (unique and never reused)."""

    ordering = "-id"
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class RowOrderPagination(CursorPagination):
    """A run's items in the order of the source file."""

    ordering = "row_number"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class ReviewQueuePagination(CursorPagination):
    """A run's items in the order of the review queue (``order=flagged``): one number per row,
    its place in the queue then its row, so the cursor never ties."""

    ordering = "queue_position"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class OldestFirstPagination(CursorPagination):
    """An item's reviews in the order they were made."""

    ordering = "id"
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000
