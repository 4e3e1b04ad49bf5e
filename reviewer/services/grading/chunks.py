"""Grading chunks: splitting a run's rows into tasks, recording and sending them, and the
lease a worker holds on a chunk while it grades it (see reviewer.models.GradingChunk)."""

from __future__ import annotations

import logging
import math
import secrets
import socket
from collections.abc import Sequence
from datetime import timedelta

import psutil
from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from reviewer.celery import app as celery_app
from reviewer.models import GradingChunk, Item
from reviewer.services.batches import batches

logger = logging.getLogger(__name__)

GRADE_CHUNK_TASK = "reviewer.grade_chunk"  # reviewer.tasks.grade_chunk


def chunk_rows(count: int) -> int:
    """Rows per chunk for ``count`` rows: about MATHJURY_CHUNK_TARGET chunks, so every worker
    gets a share of a small run, of at least MATHJURY_CHUNK_MIN and at most
    MATHJURY_CHUNK_SIZE rows."""
    wanted = max(settings.MATHJURY_CHUNK_MIN, math.ceil(count / settings.MATHJURY_CHUNK_TARGET))
    return max(1, min(settings.MATHJURY_CHUNK_SIZE, wanted))


def chunks_record(
    *, run_id: int, generation: int, item_ids: Sequence[int], origin: str
) -> list[GradingChunk]:
    """Record chunks of ``item_ids`` as queued; send them with ``chunks_dispatch`` (on commit,
    if inside a transaction)."""
    now = timezone.now()
    return GradingChunk.objects.bulk_create(
        GradingChunk(
            run_id=run_id, generation=generation, item_ids=list(ids), origin=origin, sent_at=now
        )
        for ids in batches(item_ids, chunk_rows(len(item_ids)))
    )


def chunks_dispatch(chunk_ids: Sequence[int]) -> None:
    """Send one grading task per chunk, by name, so services never import reviewer.tasks.

    On a connection of its own: kombu remembers per connection that the queue was declared,
    and after Redis lost its keys (a flush, a restart without persistence) a message sent
    through a pooled connection would go to a binding that no longer exists and vanish.
    """
    with celery_app.connection_for_write() as connection:
        for chunk_id in chunk_ids:
            celery_app.send_task(GRADE_CHUNK_TASK, args=(chunk_id,), connection=connection)


def chunks_send(*, run_id: int, generation: int, item_ids: Sequence[int], origin: str) -> int:
    """Record and send chunks of ``item_ids`` (outside a transaction); returns how many."""
    chunks = chunks_record(run_id=run_id, generation=generation, item_ids=item_ids, origin=origin)
    chunks_dispatch([chunk.pk for chunk in chunks])
    return len(chunks)


def grading_enqueue(*, run_id: int, generation: int, item_ids: Sequence[int] | None = None) -> int:
    """Send the run's pending items as chunks (called after commit), or ``item_ids`` only (a
    generated run's rows as they arrive); returns how many chunks.

    A run's rows go in chunks by gold, in row order within a gold: a gold's rows then meet
    one grading process, whose caches parse the gold and its repeated answers once, however
    the file orders its samples (all of a problem's samples together, or one sample of every
    problem after another)."""
    origin = GradingChunk.Origin.GENERATED if item_ids is not None else GradingChunk.Origin.UPLOAD
    if item_ids is None:
        item_ids = list(
            Item.objects.filter(run_id=run_id, grade_state=Item.GradeState.PENDING)
            .order_by("gold", "row_number")
            .values_list("pk", flat=True)
        )
    return chunks_send(run_id=run_id, generation=generation, item_ids=item_ids, origin=origin)


def stale_before() -> timezone.datetime:
    """Heartbeats older than this mean the worker holding the chunk is gone."""
    return timezone.now() - timedelta(seconds=settings.MATHJURY_GRADING_STALE_SECONDS)


def chunk_holder() -> str:
    """A name for this delivery: host, process id and start time (so a reused id is not taken
    for the same process), and a random part (so two deliveries in one process differ)."""
    process = psutil.Process()
    return (
        f"{socket.gethostname()}:{process.pid}:{process.create_time():.3f}:{secrets.token_hex(4)}"
    )


def holder_is_gone(holder: str) -> bool:
    """Whether ``holder``'s process is known to be dead: only a process on this host can be
    checked (a worker process killed by the OOM killer, whose task is delivered again at once,
    while its heartbeat still looks fresh); others are judged by their heartbeat."""
    host, _, rest = holder.partition(":")
    pid, _, rest = rest.partition(":")
    started, _, _ = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        return f"{psutil.Process(int(pid)).create_time():.3f}" != started
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def chunk_lease_take(*, chunk_id: int, holder: str) -> bool:
    """Take or renew ``holder``'s lease on a chunk (call holding the run's lock, which the
    reconciler takes too); False when the chunk is finished, abandoned or held by another
    delivery that is alive (its heartbeat fresh and, on this host, its process running)."""
    now = timezone.now()
    open_chunk = GradingChunk.objects.filter(
        pk=chunk_id, state__in=(GradingChunk.State.QUEUED, GradingChunk.State.RUNNING)
    )
    take = {
        "state": GradingChunk.State.RUNNING,
        "holder": holder,
        "heartbeat_at": now,
        "started_at": Coalesce("started_at", now),
    }
    taken = open_chunk.filter(
        Q(state=GradingChunk.State.QUEUED)
        | Q(holder=holder)
        | Q(heartbeat_at__isnull=True)
        | Q(heartbeat_at__lt=stale_before())
    ).update(**take)
    if taken:
        return True
    current = open_chunk.values_list("holder", flat=True).first()
    if current and holder_is_gone(current):
        logger.warning("chunk %s: its holder %s is gone; taking it over", chunk_id, current)
        return bool(open_chunk.filter(holder=current).update(**take))
    return False


def chunk_heartbeat(*, chunk_id: int, holder: str) -> bool:
    """Say the chunk's holder is alive; False if the lease is no longer its own."""
    return bool(
        GradingChunk.objects.filter(
            pk=chunk_id, holder=holder, state=GradingChunk.State.RUNNING
        ).update(heartbeat_at=timezone.now())
    )


def chunk_finish(*, chunk_id: int, holder: str | None = None) -> None:
    """Mark the chunk done (by its holder, when given: a delivery that lost the lease leaves
    the chunk to the one that took it)."""
    chunks = GradingChunk.objects.filter(
        pk=chunk_id, state__in=(GradingChunk.State.QUEUED, GradingChunk.State.RUNNING)
    )
    if holder is not None:
        chunks = chunks.filter(holder=holder)
    chunks.update(state=GradingChunk.State.DONE, finished_at=timezone.now())
