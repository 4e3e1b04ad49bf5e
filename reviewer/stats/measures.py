"""Rates, kappas and bootstrap intervals from counts alone: no query, no row."""

from __future__ import annotations

import math

import numpy as np

from reviewer.stats.results import Estimate

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20240601  # fixed, so a page shows the same interval every time


def proportion(successes: int, n: int) -> Estimate:
    """successes / n with a percentile bootstrap interval: resampling n rows of 0/1 values is
    a binomial draw, so no row is needed, only the two counts."""
    if n == 0:
        return Estimate(value=None, n=0)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.binomial(n, successes / n, size=BOOTSTRAP_RESAMPLES) / n
    low, high = np.percentile(draws, [2.5, 97.5])
    return Estimate(value=successes / n, n=n, low=float(low), high=float(high))


def paired_difference(*, both: int, before_only: int, after_only: int, neither: int) -> Estimate:
    """Accuracy after minus before on the same rows, from the 2x2 table (before correct?,
    after correct?); the bootstrap resamples rows, i.e. the four cells together."""
    cells = np.array([both, before_only, after_only, neither], dtype=float)
    n = int(cells.sum())
    if n == 0:
        return Estimate(value=None, n=0)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.multinomial(n, cells / n, size=BOOTSTRAP_RESAMPLES)
    differences = (draws[:, 2] - draws[:, 1]) / n
    low, high = np.percentile(differences, [2.5, 97.5])
    return Estimate(value=(after_only - before_only) / n, n=n, low=float(low), high=float(high))


def cohen_kappa(table: np.ndarray) -> float | None:
    """Cohen's kappa of a square table of counts (rows: rater one, columns: rater two); None
    when chance agreement is total and kappa is undefined."""
    n = table.sum()
    if n == 0:
        return None
    observed = np.trace(table) / n
    expected = float(table.sum(axis=1) @ table.sum(axis=0)) / n**2
    if math.isclose(expected, 1.0):
        return None
    return float((observed - expected) / (1 - expected))


def krippendorff_alpha(coincidences: np.ndarray) -> float | None:
    """Krippendorff's alpha for nominal data from its coincidence matrix; None when every
    value is the same (no disagreement is possible)."""
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    off_diagonal = ~np.eye(len(totals), dtype=bool)
    expected = (np.outer(totals, totals)[off_diagonal]).sum()
    if n <= 1 or expected == 0:
        return None
    return float(1 - (n - 1) * coincidences[off_diagonal].sum() / expected)
