"""The stats and comparison pages: access check, one call into reviewer.stats, render.

The charts are SVG drawn by the templates; this module only places them (coordinates and
colour levels), so the templates hold no arithmetic and the pages need no script.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from reviewer import access, selectors, stats
from reviewer.pages.msu import run_msu_context
from reviewer.stats import Estimate

BAR_LEFT = 170  # room for the labels
BAR_WIDTH = 420  # 0 to 100 %
BAR_HEIGHT = 22
HEAT_LEFT = 150
HEAT_TOP = 110
HEAT_CELL = (96, 46)


@dataclass(frozen=True)
class Bar:
    label: str
    estimate: Estimate
    y: int
    width: float
    low_x: float
    high_x: float
    css_class: str = ""
    note: str = ""  # beside the value: an evaluator's coverage


@dataclass(frozen=True)
class HeatCell:
    x: int
    y: int
    center_x: int
    kappa: float | None
    agreement: float | None
    n: int
    level: str  # a CSS class: heat-0 (kappa <= 0) to heat-10 (kappa 1), or heat-none


@dataclass(frozen=True)
class ConfusionCell:
    count: int
    url: str
    evaluator_said: str
    human_said: str


@require_GET
def run_stats(request: HttpRequest, run_id: int) -> HttpResponse:
    run = access.run_for(request.user, run_id)
    breakdown = request.GET.get("by") or stats.DEFAULT_BREAKDOWN
    try:
        result = stats.run_stats_cached(run=run, breakdown=breakdown)
    except stats.UnknownBreakdownError:
        messages.error(request, f"This run has no column “{breakdown}” to break it down by.")
        result = stats.run_stats_cached(run=run)
    context = {
        "run": run,
        "stats": result,
        "bars": _accuracy_bars(result),
        "heat_map": _heat_map(result),
        "confusion": [(h, _confusion_cells(run.pk, h.evaluator, h)) for h in result.humans],
        "list_url": reverse("run_detail", args=[run.pk]),
        "bar_geometry": _bar_geometry(rows=2 + len(result.evaluators)),
        **run_msu_context(run=run),
    }
    return render(request, "reviewer/run_stats.html", context)


@require_GET
def runs_compare(request: HttpRequest) -> HttpResponse:
    """Pick two runs; with both chosen, show them side by side."""
    chosen = [request.GET.get(key, "") for key in ("a", "b")]
    runs = [access.run_for(request.user, int(i)) if i.isdigit() else None for i in chosen]
    comparison = None
    if all(runs):
        comparison = stats.runs_compare(run_a=runs[0], run_b=runs[1])
    context = {
        "runs": selectors.run_list(user=request.user),
        "run_a": runs[0],
        "run_b": runs[1],
        "comparison": comparison,
        "bars": _comparison_bars(comparison, runs) if comparison else [],
        "bar_geometry": _bar_geometry(rows=3),
    }
    return render(request, "reviewer/run_compare.html", context)


def _bar(label: str, estimate: Estimate, index: int, css_class: str = "", note: str = "") -> Bar:
    def x(value: float | None) -> float:
        return round(BAR_LEFT + BAR_WIDTH * (value or 0), 1)

    return Bar(
        label=label,
        estimate=estimate,
        y=10 + index * (BAR_HEIGHT + 8),
        width=round(BAR_WIDTH * (estimate.value or 0), 1),
        low_x=x(estimate.low),
        high_x=x(estimate.high),
        css_class=css_class,
        note=note,
    )


def _bar_geometry(*, rows: int) -> dict:
    height = 10 + rows * (BAR_HEIGHT + 8) + 24
    ticks = [(BAR_LEFT + BAR_WIDTH * p // 100, p) for p in (0, 25, 50, 75, 100)]
    return {
        "left": BAR_LEFT,
        "width": BAR_LEFT + BAR_WIDTH + 260,
        "height": height,
        "bar_height": BAR_HEIGHT,
        "axis_y": height - 20,
        "ticks": ticks,
        "value_x": BAR_LEFT + BAR_WIDTH + 8,
    }


def _accuracy_bars(result: stats.RunStats) -> list[Bar]:
    rows = [
        ("jury (automatic)", result.summary.auto, ""),
        ("after review", result.summary.final, ""),
    ]
    rows += [(e.evaluator, e.accuracy, _coverage(e)) for e in result.evaluator_accuracy]
    return [
        _bar(label, estimate, index, "bar-main" if index < 2 else "", note)
        for index, (label, estimate, note) in enumerate(rows)
    ]


def _coverage(accuracy: stats.EvaluatorAccuracy) -> str:
    """ "applies to 52%": the share of graded rows the evaluator's accuracy is measured on."""
    if accuracy.coverage is None:
        return ""
    if accuracy.applies == 0:
        return "applies to no row"
    return f"applies to {accuracy.coverage_percent:.0f}% of rows"


def _comparison_bars(comparison: stats.RunComparison, runs) -> list[Bar]:
    rows = [
        (f"A: {_short(runs[0].name)}", comparison.accuracy_a),
        (f"B: {_short(runs[1].name)}", comparison.accuracy_b),
    ]
    return [
        _bar(label, estimate, index, f"bar-run-{index + 1}")
        for index, (label, estimate) in enumerate(rows)
    ]


def _short(name: str, limit: int = 20) -> str:
    """A run name that fits left of the bars."""
    return name if len(name) <= limit else f"{name[: limit - 1]}…"


def _heat_map(result: stats.RunStats) -> dict:
    """Pairwise kappa between evaluators as a symmetric grid; the diagonal is left blank."""
    names = result.evaluators
    by_pair = {}
    for pair in result.agreement:
        by_pair[pair.a, pair.b] = by_pair[pair.b, pair.a] = pair
    width, height = HEAT_CELL
    cells = []
    for row, a in enumerate(names):
        for column, b in enumerate(names):
            pair = by_pair.get((a, b))
            if pair is None:
                continue
            cells.append(
                HeatCell(
                    x=HEAT_LEFT + column * width,
                    center_x=HEAT_LEFT + column * width + width // 2,
                    y=HEAT_TOP + row * height,
                    kappa=pair.kappa,
                    agreement=pair.agreement,
                    n=pair.n,
                    level=_heat_level(pair.kappa),
                )
            )
    return {
        "cells": cells,
        "cell_width": width,
        "cell_height": height,
        "rows": [(name, HEAT_TOP + i * height + height // 2) for i, name in enumerate(names)],
        "columns": [(name, HEAT_LEFT + i * width + width // 2) for i, name in enumerate(names)],
        "label_x": HEAT_LEFT - 8,
        "label_y": HEAT_TOP - 8,
        "width": HEAT_LEFT + len(names) * width + 10,
        "height": HEAT_TOP + len(names) * height + 10,
    }


def _heat_level(kappa: float | None) -> str:
    if kappa is None:
        return "heat-none"
    return f"heat-{round(min(max(kappa, 0.0), 1.0) * 10)}"


def _confusion_cells(run_id: int, evaluator: str, human) -> list[list[ConfusionCell]]:
    """[[TP, FP], [FN, TN]], each linked to the run's rows in that cell."""
    counts = {
        ("correct", "correct"): human.true_positive,
        ("correct", "incorrect"): human.false_positive,
        ("incorrect", "correct"): human.false_negative,
        ("incorrect", "incorrect"): human.true_negative,
    }
    base = reverse("run_detail", args=[run_id])
    return [
        [
            ConfusionCell(
                count=counts[said, human_said],
                url=base
                + "?"
                + urlencode(
                    {"evaluator": evaluator, "evaluator_verdict": said, "human_verdict": human_said}
                ),
                evaluator_said=said,
                human_said=human_said,
            )
            for human_said in ("correct", "incorrect")
        ]
        for said in ("correct", "incorrect")
    ]
