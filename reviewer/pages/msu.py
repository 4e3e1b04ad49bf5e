"""MSU on the run, stats and item pages (docs/msu.md): the context their MSU partials read,
the chart comparing models placed on the server, and computing a run's MSU again."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from reviewer import access, services
from reviewer.item_filters import MSU_HIGH, MSU_LOW
from reviewer.models import Item, Run
from reviewer.stats.msu import MeanMsu, RunMsu, item_msu, run_msu

CHART_LEFT = 170  # room for the model names
CHART_WIDTH = 420  # MSU 0 to 1
BAR_HEIGHT = 22


@dataclass(frozen=True)
class MsuBar:
    label: str
    estimate: MeanMsu
    y: int
    width: float
    low_x: float
    high_x: float


def run_msu_context(*, run: Run) -> dict:
    """What the MSU partial of the run and stats pages shows."""
    figures = run_msu(run=run)
    bars = [_bar(estimate, index) for index, estimate in enumerate(figures.by_model)]
    height = 10 + len(bars) * (BAR_HEIGHT + 8) + 24
    return {
        "msu": figures,
        "msu_bars": bars,
        "msu_chart": {
            "left": CHART_LEFT,
            "width": CHART_LEFT + CHART_WIDTH + 170,
            "height": height,
            "bar_height": BAR_HEIGHT,
            "axis_y": height - 20,
            "ticks": [(CHART_LEFT + CHART_WIDTH * t // 100, t / 100) for t in (0, 25, 50, 75, 100)],
            "value_x": CHART_LEFT + CHART_WIDTH + 8,
        },
        "msu_against": _against_links(run, figures),
        "msu_low": MSU_LOW,
        "msu_high": MSU_HIGH,
    }


def item_msu_context(*, item: Item) -> dict:
    """What the item page's MSU partial shows: the view, or why there is none."""
    view = item_msu(item=item)
    return {"msu_item": None, "msu_reason": view} if isinstance(view, str) else {"msu_item": view}


@require_POST
def run_msu_recompute(request: HttpRequest, run_id: int) -> HttpResponse:
    run = access.run_for(request.user, run_id, access.REGRADE)
    if not run.column_mapping.get("solution"):
        messages.error(request, "This run has no human solutions to compute MSU against.")
    else:
        services.msu_recompute(run=run)
        messages.success(request, "Computing MSU again with the extractor and model set now.")
    return redirect(reverse("run_detail", args=[run.pk]) + "#msu")


def _bar(estimate: MeanMsu, index: int) -> MsuBar:
    def x(value: float | None) -> float:
        return round(CHART_LEFT + CHART_WIDTH * min(max(value or 0.0, 0.0), 1.0), 1)

    return MsuBar(
        label=estimate.label if len(estimate.label) <= 20 else f"{estimate.label[:19]}…",
        estimate=estimate,
        y=10 + index * (BAR_HEIGHT + 8),
        width=round(x(estimate.value) - CHART_LEFT, 1),
        low_x=x(estimate.low),
        high_x=x(estimate.high),
    )


def _against_links(run: Run, figures: RunMsu) -> list[tuple[str, list[tuple[int, str, bool]]]]:
    """Per final verdict, each MSU band's count and the run page listing those rows; the
    cells where reasoning and verdict disagree (right and low, wrong and high) are marked."""
    base = reverse("run_detail", args=[run.pk])
    rows = []
    for verdict, counts in figures.against_verdict:
        cells = []
        for band, count in zip(("low", "middle", "high"), counts, strict=True):
            query = urlencode({"verdict": verdict, "msu": band, "order": "row"})
            odd = (verdict, band) in (("correct", "low"), ("incorrect", "high"))
            cells.append((count, f"{base}?{query}", odd))
        rows.append((verdict, cells))
    return rows
