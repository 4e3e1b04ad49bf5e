"""Agreement statistics of a run: how far the automatic score is from the humans, and which
evaluator to trust. Every count comes from an SQL aggregate over the run's items
(``queries``); Python only turns the counts (a few thousand cells at most) into rates, kappas
and bootstrap intervals (``measures``).

Definitions used throughout:

- An evaluator *scores* a row 1 when its verdict is correct and 0 when it is incorrect or it
  found no answer or could not parse one (what the benchmark script it stands in for would
  report); a time-out or a crash is *unknown* and the row is left out for that evaluator
  (``EvaluatorScore``, stored per item in ``Item.evaluator_scores`` when the row is graded).
- *Jury accuracy* is auto correct / rows with an automatic verdict.
- *Accuracy after adjudication* is final correct / rows whose final verdict is correct or
  incorrect. The final verdict is the newest human review, else the jury's; rows a human
  marked "gold is wrong" or "unclear" are left out of numerator and denominator alike and
  counted on their own.
- The *difference* is paired: on rows with both a jury verdict and a correct/incorrect final
  verdict, final accuracy minus jury accuracy.
"""

from reviewer.stats.cache import run_stats_cached
from reviewer.stats.comparison import COMPARE_FLIPS_SHOWN, runs_compare
from reviewer.stats.measures import cohen_kappa, krippendorff_alpha, paired_difference, proportion
from reviewer.stats.queries import DEFAULT_BREAKDOWN, breakdown_options
from reviewer.stats.results import (
    AnnotatorAgreement,
    AnnotatorPair,
    Breakdown,
    BreakdownRow,
    Estimate,
    EvaluatorAccuracy,
    Flip,
    HumanComparison,
    PairAgreement,
    ReasonCount,
    RunComparison,
    RunStats,
    Summary,
)
from reviewer.stats.single_run import UnknownBreakdownError, run_stats

__all__ = [
    "COMPARE_FLIPS_SHOWN",
    "DEFAULT_BREAKDOWN",
    "AnnotatorAgreement",
    "AnnotatorPair",
    "Breakdown",
    "BreakdownRow",
    "Estimate",
    "EvaluatorAccuracy",
    "Flip",
    "HumanComparison",
    "PairAgreement",
    "ReasonCount",
    "RunComparison",
    "RunStats",
    "Summary",
    "UnknownBreakdownError",
    "breakdown_options",
    "cohen_kappa",
    "krippendorff_alpha",
    "paired_difference",
    "proportion",
    "run_stats",
    "run_stats_cached",
    "runs_compare",
]
