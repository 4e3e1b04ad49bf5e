"""The statistics of a run computed once per state of the run: reloading the page of a run
nobody has changed since reads them from Django's cache instead of aggregating every row
again.

The key holds the run's change count (reviewer.tallies: database triggers add to it in the
same statement as any write to the run's items or reviews), so a change is seen by the next
request; and whatever else the figures depend on: the breakdown, the run's evaluators and the
spot check share. The count is read before the figures are computed, so figures stored under
a key are never older than the state the key names.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache

from reviewer.models import Run
from reviewer.stats.queries import DEFAULT_BREAKDOWN
from reviewer.stats.results import RunStats
from reviewer.stats.single_run import run_stats
from reviewer.tallies import run_tally

# Long enough to outlast a reviewing session; a changed run has a new key anyway.
STATS_CACHE_SECONDS = 6 * 3600


def run_stats_cached(*, run: Run, breakdown: str | None = None) -> RunStats:
    """run_stats, from the cache when the run has not changed since it was computed. Raises
    UnknownBreakdownError as run_stats does (nothing is cached then)."""
    changes = run_tally(run=run).changes
    key = _key(run, breakdown or DEFAULT_BREAKDOWN, changes)
    result = cache.get(key)
    if result is None:
        result = run_stats(run=run, breakdown=breakdown)
        cache.set(key, result, STATS_CACHE_SECONDS)
    return result


def _key(run: Run, breakdown: str, changes: int) -> str:
    # created_at too: a database that reuses ids (SQLite after a rollback) gives a new run a
    # new key
    depends = repr(
        (run.created_at, breakdown, run.evaluators, settings.MATHJURY_SPOT_CHECK_PERCENT)
    )
    digest = hashlib.sha256(depends.encode()).hexdigest()[:16]  # a key of bounded length
    return f"mathjury:run-stats:{run.pk}:{changes}:{digest}"
