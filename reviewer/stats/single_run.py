"""The statistics of one run, assembled from the grouped counts of reviewer.stats.queries."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable

import numpy as np
from django.conf import settings

from grading.jury import DEFAULT_POLICY
from grading.llm import JUDGE_EVALUATOR
from grading.reasons import MESSAGES as REASON_MESSAGES
from grading.types import AnswerType
from reviewer.models import EvaluatorScore, Item, ReviewVerdict, Run, Verdict
from reviewer.models import evaluator_scores_parse as parse_scores
from reviewer.stats import queries
from reviewer.stats.measures import cohen_kappa, krippendorff_alpha, paired_difference, proportion
from reviewer.stats.queries import DECIDED, DEFAULT_BREAKDOWN, REASON_BREAKDOWN, ItemCell
from reviewer.stats.results import (
    AnnotatorAgreement,
    AnnotatorPair,
    Breakdown,
    BreakdownRow,
    Estimate,
    EvaluatorAccuracy,
    HumanComparison,
    PairAgreement,
    ReasonCount,
    RunStats,
    Summary,
)

CORRECT, INCORRECT = EvaluatorScore.CORRECT.value, EvaluatorScore.INCORRECT.value
UNKNOWN = EvaluatorScore.UNKNOWN.value
# Not a stored score: the evaluator does not apply to the row's answer type (choice on a
# numeric gold), so the row counts neither for nor against it.
NOT_APPLICABLE = "n/a"
# An evaluator's score as an index of a 2x2 table: incorrect 0, correct 1 (unknown: no index).
_INDEX = {INCORRECT: 0, CORRECT: 1}


class UnknownBreakdownError(ValueError):
    """The breakdown asked for is not one this run can be grouped by."""


def _graded_cells(
    cells: Iterable[ItemCell], evaluators: tuple[str, ...]
) -> list[tuple[ItemCell, tuple[str, ...]]]:
    """(cell, its evaluators' scores in the run's order) of every cell with graded rows; the
    figures of evaluators and breakdowns count ``cell.graded``."""
    parsed: dict[tuple[str, str], tuple[str, ...]] = {}
    graded = []
    for cell in cells:
        if not cell.graded:
            continue
        key = (cell.scores, cell.answer_type)
        if key not in parsed:
            by_name = parse_scores(cell.scores)
            applies = applicable_evaluators(cell.answer_type, evaluators)
            parsed[key] = tuple(
                by_name.get(name, UNKNOWN) if name in applies else NOT_APPLICABLE
                for name in evaluators
            )
        graded.append((cell, parsed[key]))
    return graded


def applicable_evaluators(answer_type: str, evaluators: tuple[str, ...]) -> frozenset[str]:
    """The run's evaluators that apply to rows of ``answer_type``, as the jury decides: those
    in its panel for the type, or all of them when the run has none of that panel; an
    evaluator outside both panels (the LLM judge) applies everywhere."""
    try:
        panel = set(DEFAULT_POLICY.panel(AnswerType(answer_type)))
    except ValueError:
        return frozenset(evaluators)
    paneled = set(DEFAULT_POLICY.math_panel) | set(DEFAULT_POLICY.choice_panel)
    if not panel & set(evaluators):
        return frozenset(evaluators)
    return frozenset(name for name in evaluators if name in panel or name not in paneled)


def run_stats(*, run: Run, breakdown: str | None = None) -> RunStats:
    """Everything the stats page shows. Raises UnknownBreakdownError for a breakdown the run
    has no column for."""
    breakdown = breakdown or DEFAULT_BREAKDOWN
    options = queries.breakdown_options(run=run)
    labels = dict(options)
    if breakdown not in labels:
        raise UnknownBreakdownError(
            f"cannot break run {run.pk} down by {breakdown!r}; choose one of " + ", ".join(labels)
        )
    evaluators = tuple(run.evaluators)
    cells = queries.item_cells(run=run, breakdown=breakdown)
    if any(f"{JUDGE_EVALUATOR}:" in cell.scores for cell in cells):
        evaluators += (JUDGE_EVALUATOR,)  # the LLM judge, asked about some rows
    graded = _graded_cells(cells, evaluators)
    rows_by_scores = _rows_by_scores(graded)
    summary = _summary(cells)
    reasons = _reasons(queries.reason_groups(run=run), graded=summary.graded)
    if breakdown == REASON_BREAKDOWN:
        rows = tuple(_reason_breakdown_row(reason) for reason in reasons)
    else:
        rows = _breakdown_rows(graded, evaluators)
    return RunStats(
        run_id=run.pk,
        evaluators=evaluators,
        summary=summary,
        reasons=tuple(reasons),
        evaluator_accuracy=tuple(
            EvaluatorAccuracy(
                name,
                _evaluator_accuracy(rows_by_scores, k),
                unknown=sum(n for scores, n in rows_by_scores.items() if scores[k] == UNKNOWN),
                applies=sum(
                    n for scores, n in rows_by_scores.items() if scores[k] != NOT_APPLICABLE
                ),
                graded=summary.graded,
            )
            for k, name in enumerate(evaluators)
        ),
        agreement=tuple(
            _pair_agreement(rows_by_scores, evaluators, a, b)
            for a, b in itertools.combinations(range(len(evaluators)), 2)
        ),
        humans=tuple(_human_comparison(graded, k, name) for k, name in enumerate(evaluators)),
        breakdown=Breakdown(key=breakdown, label=labels[breakdown], options=options, rows=rows),
        annotators=_annotator_agreement(queries.annotator_pairs(run=run)),
    )


def _summary(cells: list[ItemCell]) -> Summary:
    def rows(predicate) -> int:
        return sum(cell.rows for cell in cells if predicate(cell))

    correct, incorrect = Verdict.CORRECT, Verdict.INCORRECT
    spot_checked = [c for c in cells if c.human and c.final in DECIDED]
    return Summary(
        total=rows(lambda c: True),
        graded=sum(c.graded for c in cells),
        pending=sum(c.pending for c in cells),
        quarantined=sum(c.quarantined for c in cells),
        flagged=sum(c.graded for c in cells if c.flagged),
        evaluators_disagree=sum(c.disagree for c in cells),
        reviewed=rows(lambda c: c.human),
        final_gold_wrong=rows(lambda c: c.final == ReviewVerdict.GOLD_WRONG),
        final_unclear=rows(lambda c: c.final == ReviewVerdict.UNCLEAR),
        auto=proportion(rows(lambda c: c.auto == correct), rows(lambda c: c.auto in DECIDED)),
        final=proportion(rows(lambda c: c.final == correct), rows(lambda c: c.final in DECIDED)),
        difference=paired_difference(
            both=rows(lambda c: c.auto == correct and c.final == correct),
            before_only=rows(lambda c: c.auto == correct and c.final == incorrect),
            after_only=rows(lambda c: c.auto == incorrect and c.final == correct),
            neither=rows(lambda c: c.auto == incorrect and c.final == incorrect),
        ),
        spot_check_percent=settings.MATHJURY_SPOT_CHECK_PERCENT,
        spot_check_rows=sum(c.spot_check for c in cells),
        consensus_error=proportion(
            sum(c.spot_check for c in spot_checked if c.final != c.auto),
            sum(c.spot_check for c in spot_checked),
        ),
    )


def _reasons(groups: list[dict], *, graded: int) -> list[ReasonCount]:
    tally: dict[str, dict[str, int]] = {}
    for group in groups:
        reviewed = (
            group["final_source"] == Item.FinalSource.HUMAN
            and group["final_verdict"] in DECIDED
            and group["auto_verdict"] in DECIDED
        )
        for code in {reason["code"] for reason in group["review_reasons"]}:
            counts = tally.setdefault(
                code, dict.fromkeys(("rows", "flagged", "reviewed", "over"), 0)
            )
            counts["rows"] += group["rows"]
            counts["flagged"] += group["rows"] if group["needs_review"] else 0
            counts["reviewed"] += group["rows"] if reviewed else 0
            overturned = reviewed and group["final_verdict"] != group["auto_verdict"]
            counts["over"] += group["rows"] if overturned else 0
    reasons = [
        ReasonCount(
            code=code,
            message=REASON_MESSAGES.get(code, ""),
            rows=counts["rows"],
            share=counts["rows"] / graded if graded else None,
            flagged=counts["flagged"],
            jury_overturned=proportion(counts["over"], counts["reviewed"]),
        )
        for code, counts in tally.items()
    ]
    return sorted(reasons, key=lambda reason: (-reason.rows, reason.code))


def _reason_breakdown_row(reason: ReasonCount) -> BreakdownRow:
    """By reason only the flag and review figures are kept: one row can carry several reasons."""
    return BreakdownRow(
        value=reason.code,
        rows=reason.rows,
        flagged=reason.flagged,
        auto=Estimate(value=None, n=0),
        final=Estimate(value=None, n=0),
        reviewed=reason.jury_overturned.n,
        jury_overturned=reason.jury_overturned,
        evaluators=(),
    )


def _rows_by_scores(cells) -> Counter[tuple[str, ...]]:
    """Graded rows per combination of the evaluators' scores: a few dozen, whatever else the
    cells split on."""
    rows: Counter[tuple[str, ...]] = Counter()
    for cell, scores in cells:
        rows[scores] += cell.graded
    return rows


def _evaluator_accuracy(rows_by_scores: Counter, position: int) -> Estimate:
    correct = sum(n for scores, n in rows_by_scores.items() if scores[position] == CORRECT)
    incorrect = sum(n for scores, n in rows_by_scores.items() if scores[position] == INCORRECT)
    return proportion(correct, correct + incorrect)


def _pair_agreement(
    rows_by_scores: Counter, evaluators: tuple[str, ...], a: int, b: int
) -> PairAgreement:
    table = np.zeros((2, 2), dtype=np.int64)
    for scores, n in rows_by_scores.items():
        if scores[a] in _INDEX and scores[b] in _INDEX:
            table[_INDEX[scores[a]], _INDEX[scores[b]]] += n
    n = int(table.sum())
    return PairAgreement(
        a=evaluators[a],
        b=evaluators[b],
        n=n,
        agreement=float(np.trace(table) / n) if n else None,
        kappa=cohen_kappa(table),
    )


def _human_comparison(cells, position: int, name: str) -> HumanComparison:
    # table[evaluator said correct?][human said correct?], index 0 = correct
    table = np.zeros((2, 2), dtype=np.int64)
    left_out = 0
    for cell, scores in cells:
        if not cell.human or scores[position] == NOT_APPLICABLE:
            continue
        if scores[position] in _INDEX and cell.final in DECIDED:
            table[int(scores[position] != CORRECT), int(cell.final != Verdict.CORRECT)] += (
                cell.graded
            )
        else:
            left_out += cell.graded
    (tp, fp), (fn, tn) = (int(v) for v in table[0]), (int(v) for v in table[1])
    return HumanComparison(
        evaluator=name,
        true_positive=tp,
        false_positive=fp,
        false_negative=fn,
        true_negative=tn,
        left_out=left_out,
        precision=tp / (tp + fp) if tp + fp else None,
        recall=tp / (tp + fn) if tp + fn else None,
        kappa=cohen_kappa(table),
        false_positive_rate=fp / (fp + tn) if fp + tn else None,
    )


def _breakdown_rows(cells, evaluators: tuple[str, ...]) -> tuple[BreakdownRow, ...]:
    groups: dict[str, list] = {}
    for cell, scores in cells:
        groups.setdefault(cell.group, []).append((cell, scores))
    rows = []
    for value, group in groups.items():
        auto_correct = sum(c.graded for c, _ in group if c.auto == Verdict.CORRECT)
        auto_decided = sum(c.graded for c, _ in group if c.auto in DECIDED)
        final_correct = sum(c.graded for c, _ in group if c.final == Verdict.CORRECT)
        final_decided = sum(c.graded for c, _ in group if c.final in DECIDED)
        reviewed = [c for c, _ in group if c.human and c.final in DECIDED and c.auto in DECIDED]
        by_scores = _rows_by_scores(group)
        rows.append(
            BreakdownRow(
                value=value,
                rows=sum(c.graded for c, _ in group),
                flagged=sum(c.graded for c, _ in group if c.flagged),
                auto=proportion(auto_correct, auto_decided),
                final=proportion(final_correct, final_decided),
                reviewed=sum(c.graded for c, _ in group if c.human),
                jury_overturned=proportion(
                    sum(c.graded for c in reviewed if c.final != c.auto),
                    sum(c.graded for c in reviewed),
                ),
                evaluators=tuple(_evaluator_accuracy(by_scores, k) for k in range(len(evaluators))),
            )
        )
    return tuple(sorted(rows, key=lambda row: (-row.rows, row.value)))


def _annotator_agreement(pairs: list[dict]) -> AnnotatorAgreement:
    categories = {verdict: index for index, verdict in enumerate(ReviewVerdict.values)}
    coincidences = np.zeros((len(categories), len(categories)))
    tables: dict[tuple[str, str], np.ndarray] = {}
    units = 0.0
    for row in pairs:
        first, second = categories[row["verdict"]], categories[row["item__reviews__verdict"]]
        weight = row["rows"] / (row["people"] - 1)
        coincidences[first, second] += weight
        coincidences[second, first] += weight
        # a row reviewed by m people holds m(m-1)/2 pairs
        units += row["rows"] * 2 / (row["people"] * (row["people"] - 1))
        people = (row["annotator__username"], row["item__reviews__annotator__username"])
        table = tables.setdefault(people, np.zeros_like(coincidences, dtype=np.int64))
        table[first, second] += row["rows"]
    return AnnotatorAgreement(
        units=round(units),
        alpha=krippendorff_alpha(coincidences),
        pairs=tuple(
            AnnotatorPair(
                a=a,
                b=b,
                n=int(table.sum()),
                agreement=float(np.trace(table) / table.sum()),
                kappa=cohen_kappa(table),
            )
            for (a, b), table in sorted(tables.items())
        ),
    )
