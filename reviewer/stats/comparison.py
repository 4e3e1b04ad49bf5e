"""Two runs of the same problems side by side: which rows flipped, and the paired difference."""

from __future__ import annotations

from django.db.models import Count, F, Q

from reviewer.models import Run, Verdict
from reviewer.stats import queries
from reviewer.stats.measures import paired_difference, proportion
from reviewer.stats.queries import DECIDED
from reviewer.stats.results import Flip, RunComparison

COMPARE_FLIPS_SHOWN = 200


def runs_compare(*, run_a: Run, run_b: Run) -> RunComparison:
    """Two runs side by side, rows matched by problem id (by row number when a file had none)."""
    per_key = queries.verdicts_by_problem(run_a=run_a, run_b=run_b)
    matched = per_key.filter(rows_a=1, rows_b=1, verdict_a__in=DECIDED, verdict_b__in=DECIDED)
    correct, incorrect = Verdict.CORRECT, Verdict.INCORRECT
    table = matched.aggregate(
        cc=Count("key", filter=Q(verdict_a=correct, verdict_b=correct)),
        ci=Count("key", filter=Q(verdict_a=correct, verdict_b=incorrect)),
        ic=Count("key", filter=Q(verdict_a=incorrect, verdict_b=correct)),
        ii=Count("key", filter=Q(verdict_a=incorrect, verdict_b=incorrect)),
    )
    flipped = (
        matched.exclude(verdict_a=F("verdict_b"))
        .order_by("item_a")
        .values_list("key", "item_a", "item_b", "verdict_a", "verdict_b")[:COMPARE_FLIPS_SHOWN]
    )
    per_run = queries.final_verdict_counts(runs=[run_a, run_b])
    empty = {"rows": 0, "correct": 0, "incorrect": 0}
    a, b = per_run.get(run_a.pk, empty), per_run.get(run_b.pk, empty)
    n = sum(table.values())
    return RunComparison(
        run_a=run_a.pk,
        run_b=run_b.pk,
        accuracy_a=proportion(a["correct"], a["correct"] + a["incorrect"]),
        accuracy_b=proportion(b["correct"], b["correct"] + b["incorrect"]),
        matched=n,
        both_correct=table["cc"],
        correct_to_incorrect=table["ci"],
        incorrect_to_correct=table["ic"],
        both_incorrect=table["ii"],
        difference=paired_difference(
            both=table["cc"], before_only=table["ci"], after_only=table["ic"], neither=table["ii"]
        ),
        only_a=a["rows"] - n,
        only_b=b["rows"] - n,
        flips=tuple(Flip(*row) for row in flipped),
    )
