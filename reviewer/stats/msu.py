"""MSU reads (docs/msu.md): one row's score with both keyword lists, and a run's mean MSU per
model, subject and level with bootstrap intervals, and MSU against correctness.

Means and row counts come from SQL aggregates. The bootstrap resamples rows through a
histogram of scores in steps of 0.01, grouped in SQL too: a multinomial draw over the bins is
a resample of the rows, so the interval costs the same for 100 rows or 100,000 (the mean
itself is exact; the interval's ends are within 0.005 of a bootstrap over the raw scores).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from django.db.models import Avg, Count, F, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Round

from grading.msu.embedding import HASHED_NAME
from reviewer.item_filters import MSU_HIGH, MSU_LOW
from reviewer.models import Item, ItemMsu, Run, Verdict
from reviewer.stats.measures import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED

LEVEL_COLUMNS = ("level", "difficulty")  # the file's column MSU is broken down by as "level"
EXAMPLES_SHOWN = 5
NO_SOLUTION_COLUMN = (
    "This run's file has no human solution column (solution, human_solution or "
    "reference_solution), so there is nothing to compare the model's solutions with."
)


@dataclass(frozen=True)
class MeanMsu:
    """A group's mean MSU with a 95% bootstrap interval, and the rows it rests on."""

    label: str
    value: float | None
    n: int
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class ItemMsuView:
    """One row's MSU as the item page shows it."""

    state: str
    score: float | None
    overlap: float | None
    note: str
    model_notions: tuple[tuple[str, bool], ...]  # (notion, shared with the other list)
    human_notions: tuple[tuple[str, bool], ...]
    shared: int
    extractor: str
    embedding: str


@dataclass(frozen=True)
class RunMsu:
    """A run's MSU: why there is none, or its progress, means and the rows worth a look."""

    unavailable: str  # why the run has no MSU; "" when it has
    pending: int = 0
    scored: int = 0
    no_score: int = 0
    errors: int = 0
    error_example: str = ""
    methods: tuple[tuple[str, str], ...] = ()  # (extractor label, embedding label)
    overall: MeanMsu | None = None
    by_model: tuple[MeanMsu, ...] = ()
    by_subject: tuple[MeanMsu, ...] = ()
    by_level: tuple[MeanMsu, ...] = ()
    level_column: str = ""
    # (final verdict, band) -> rows; band "low", "middle", "high"
    against_verdict: tuple[tuple[str, tuple[int, int, int]], ...] = ()
    right_low: tuple[tuple[int, int, float], ...] = ()  # (item id, row number, score)
    wrong_high: tuple[tuple[int, int, float], ...] = ()


def extractor_label(extractor: str, version: str) -> str:
    """How pages and exports name an extractor; the lexical one says it is not the method."""
    if extractor == "lexical":
        return "lexical (read from the text, not the LLM method)"
    return f"{extractor} (prompt {version})"


def embedding_label(model: str) -> str:
    if model.startswith(HASHED_NAME):
        return f"{model} (hashed bag of notions, not a semantic embedding)"
    return model


def item_msu(*, item: Item) -> ItemMsuView | str:
    """The row's MSU, or a sentence saying why it has none."""
    if not item.run.column_mapping.get("solution"):
        return NO_SOLUTION_COLUMN
    msu = ItemMsu.objects.filter(item=item).first()
    if msu is None:
        return "MSU has not been queued for this row."
    shared = set(msu.model_notions) & set(msu.human_notions)
    return ItemMsuView(
        state=msu.state,
        score=msu.score,
        overlap=msu.overlap,
        note=msu.note,
        model_notions=tuple((n, n in shared) for n in msu.model_notions),
        human_notions=tuple((n, n in shared) for n in msu.human_notions),
        shared=len(shared),
        extractor=extractor_label(msu.extractor, msu.extractor_version) if msu.extractor else "",
        embedding=embedding_label(msu.embedding_model),
    )


def run_msu(*, run: Run) -> RunMsu:
    """The run's MSU figures (a few aggregate queries, whatever the run's size)."""
    if not run.column_mapping.get("solution"):
        return RunMsu(unavailable=NO_SOLUTION_COLUMN)
    rows = ItemMsu.objects.filter(item__run=run)
    states = dict(rows.values_list("state").annotate(n=Count("pk")).order_by())
    if not states:
        return RunMsu(unavailable="MSU has not been queued for this run's rows yet.")
    error = rows.filter(state=ItemMsu.State.ERROR).values_list("note", flat=True).first()
    methods = (
        rows.filter(state=ItemMsu.State.SCORED)
        .values_list("extractor", "extractor_version", "embedding_model")
        .distinct()
        .order_by()
    )
    level_column = _level_column(run)
    level = KeyTextTransform(level_column, "item__extra") if level_column else F("item__subject")
    bins = (
        rows.filter(state=ItemMsu.State.SCORED)
        .values_list(
            "item__model_name",
            "item__subject",
            level,
            Round(F("score") * 100),
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    groups: dict[str, dict[str, dict[int, int]]] = {
        "all": defaultdict(lambda: defaultdict(int)),
        "model": defaultdict(lambda: defaultdict(int)),
        "subject": defaultdict(lambda: defaultdict(int)),
        "level": defaultdict(lambda: defaultdict(int)),
    }
    for model, subject, level_value, bin_, n in bins:
        bin_ = int(bin_)
        groups["all"][""][bin_] += n
        groups["model"][model or "(none)"][bin_] += n
        groups["subject"][subject or "(none)"][bin_] += n
        if level_column:
            groups["level"][level_value or "(none)"][bin_] += n
    means = _exact_means(rows, level_column)
    band = {
        "low": Q(score__lt=MSU_LOW),
        "middle": Q(score__gte=MSU_LOW, score__lt=MSU_HIGH),
        "high": Q(score__gte=MSU_HIGH),
    }
    verdicts = (
        rows.filter(state=ItemMsu.State.SCORED, item__final_verdict__in=Verdict.values)
        .values_list("item__final_verdict")
        .annotate(**{name: Count("pk", filter=q) for name, q in band.items()})
        .order_by()
    )
    against = {verdict: (low, middle, high) for verdict, low, middle, high in verdicts}
    examples = rows.filter(state=ItemMsu.State.SCORED).values_list(
        "item_id", "item__row_number", "score"
    )
    return RunMsu(
        unavailable="",
        pending=states.get(ItemMsu.State.PENDING, 0),
        scored=states.get(ItemMsu.State.SCORED, 0),
        no_score=states.get(ItemMsu.State.NO_SCORE, 0),
        errors=states.get(ItemMsu.State.ERROR, 0),
        error_example=error or "",
        methods=tuple(
            (extractor_label(extractor, version), embedding_label(model))
            for extractor, version, model in methods
        ),
        overall=_estimate("all rows", groups["all"].get("", {}), means[("all", "")]),
        by_model=_estimates(groups["model"], means, "model"),
        by_subject=_estimates(groups["subject"], means, "subject"),
        by_level=_estimates(groups["level"], means, "level"),
        level_column=level_column,
        against_verdict=tuple(
            (verdict, against.get(verdict, (0, 0, 0))) for verdict in Verdict.values
        ),
        right_low=tuple(
            examples.filter(item__final_verdict=Verdict.CORRECT, score__lt=MSU_LOW).order_by(
                "score", "item__row_number"
            )[:EXAMPLES_SHOWN]
        ),
        wrong_high=tuple(
            examples.filter(item__final_verdict=Verdict.INCORRECT, score__gte=MSU_HIGH).order_by(
                "-score", "item__row_number"
            )[:EXAMPLES_SHOWN]
        ),
    )


def _level_column(run: Run) -> str:
    """The file's level column (``level`` or ``difficulty``, any case), or ""."""
    extra = Item.objects.filter(run=run).values_list("extra", flat=True).first() or {}
    by_name = {key.strip().lower(): key for key in extra}
    return next((by_name[name] for name in LEVEL_COLUMNS if name in by_name), "")


def _exact_means(rows, level_column: str) -> dict[tuple[str, str], float]:
    """Mean MSU per group, computed in SQL from the scores themselves (not the bins)."""
    scored = rows.filter(state=ItemMsu.State.SCORED)
    means = {("all", ""): scored.aggregate(mean=Avg("score"))["mean"]}
    fields = {"model": "item__model_name", "subject": "item__subject"}
    for name, field in fields.items():
        for value, mean in scored.values_list(field).annotate(mean=Avg("score")).order_by():
            means[(name, value or "(none)")] = mean
    if level_column:
        level = KeyTextTransform(level_column, "item__extra")
        for value, mean in (
            scored.annotate(level=level).values_list("level").annotate(mean=Avg("score")).order_by()
        ):
            means[("level", value or "(none)")] = mean
    return means


def _estimates(groups: dict, means: dict, kind: str) -> tuple[MeanMsu, ...]:
    return tuple(
        _estimate(label, groups[label], means.get((kind, label)))
        for label in sorted(groups, key=lambda g: (g == "(none)", g))
    )


def _estimate(label: str, bins: dict[int, int], mean: float | None) -> MeanMsu:
    """The group's mean with a percentile bootstrap over its histogram of scores."""
    n = sum(bins.values())
    if n == 0 or mean is None:
        return MeanMsu(label=label, value=None, n=0)
    centres = np.array(list(bins), dtype=float) / 100
    counts = np.array(list(bins.values()), dtype=float)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    draws = rng.multinomial(n, counts / n, size=BOOTSTRAP_RESAMPLES) @ centres / n
    # The bins move the resampled means by at most 0.005; centre them on the exact mean.
    draws += mean - float(centres @ counts / n)
    low, high = np.percentile(draws, [2.5, 97.5])
    return MeanMsu(label=label, value=float(mean), n=n, low=float(low), high=float(high))
