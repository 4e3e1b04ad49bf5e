"""Splitting an iterable into tuples of a fixed size."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice


def batches(values: Iterable, size: int) -> Iterable[tuple]:
    """itertools.batched, which arrives only in Python 3.12."""
    iterator = iter(values)
    while batch := tuple(islice(iterator, size)):
        yield batch
