"""Grade many samples at once: dedup, shard by gold across sandboxed children, keep order.

Runs with several samples per problem repeat answers a lot, so each distinct sample is graded
once, and all rows of a gold go to one child where its evaluators' caches parse that gold once.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections import Counter
from collections.abc import Callable, Sequence

from grading.evaluators import DEFAULT_EVALUATORS
from grading.sandbox import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, SandboxPool
from grading.types import GradedSample, Sample


def grade_many(
    samples: Sequence[Sample],
    *,
    evaluators: Sequence[str] = DEFAULT_EVALUATORS,
    evaluator_options: dict[str, dict] | None = None,
    workers: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    progress: Callable[[int, int], None] | None = None,
    pool: SandboxPool | None = None,
    stop: threading.Event | None = None,
) -> list[GradedSample]:
    """Grade ``samples`` under a per-row time and memory limit; results are in input order.

    With ``pool`` (see ``shared_pool``) its children are reused and ``workers``/``memory_mb``
    are the pool's; otherwise a pool is started for this call and closed at its end.
    ``progress(done, total)`` counts input rows, duplicates included. Setting ``stop`` from
    another thread ends the call with grading.sandbox_run.GradingStopped.
    """
    index_of: dict[Sample, int] = {}
    slots = [index_of.setdefault(sample, len(index_of)) for sample in samples]
    distinct = list(index_of)
    copies = Counter(slots)
    own_pool = pool is None
    if own_pool:
        workers = min(workers or os.cpu_count() or 1, max(1, len(distinct)))
        pool = SandboxPool(workers, timeout=timeout, memory_mb=memory_mb)
    try:
        graded = pool.grade(
            distinct,
            evaluators=evaluators,
            evaluator_options=evaluator_options,
            timeout=timeout,
            affinity=[sample.gold for sample in distinct],
            weights=[copies[index] for index in range(len(distinct))],
            progress=progress,
            stop=stop,
        )
    finally:
        if own_pool:
            pool.close()
    return [graded[slot] for slot in slots]


_shared_pools: dict[tuple, SandboxPool] = {}
_shared_pools_lock = threading.Lock()


def shared_pool(
    workers: int | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
) -> SandboxPool:
    """One pool per setting for this process, so repeated calls (Celery tasks) skip start-up.

    Keyed by the process id too: a pool inherited through ``fork`` belongs to the parent, whose
    children this process must neither use nor kill. Closed when the interpreter exits.
    """
    key = (os.getpid(), workers or os.cpu_count() or 1, timeout, memory_mb)
    with _shared_pools_lock:
        if key not in _shared_pools:
            if not _shared_pools:
                atexit.register(_close_shared_pools)
            _shared_pools[key] = SandboxPool(key[1], timeout=timeout, memory_mb=memory_mb)
        return _shared_pools[key]


def _close_shared_pools() -> None:
    with _shared_pools_lock:
        for (pid, *_), pool in list(_shared_pools.items()):
            if pid == os.getpid():
                pool.close()
        _shared_pools.clear()
