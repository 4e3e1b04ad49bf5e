"""The conformance-case runner behind ``python -m grading cases FILE...``.

Grades each file's cases through the real engine (sandboxed, as in production) and reports,
per file, how often each evaluator agrees with the expected labels and how the jury did. The
figures are defined in docs/grading.md; in short:

- agreement: over verdict cases labelled correct or incorrect, the share where the
  evaluator's verdict equals the label (a status other than ok counts as disagreement).
  ``math_verify`` runs cases that carry a ``config`` under that config, through
  ``grading.evaluators.mathverify.agrees_with_case``; extraction cases count only there.
- jury: rows flagged for review; accuracy on decided (unflagged) rows labelled correct or
  incorrect; silent errors = unflagged wrong verdicts + unflagged ambiguous rows.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grading.batch import grade_many
from grading.types import GradedSample, Sample, Status

VERDICT_LABELS = frozenset({"correct", "incorrect"})
FOLDS = 3


class CaseFileError(ValueError):
    """A case file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Case:
    """One conformance case, as in grading-cases/README.md."""

    id: str
    kind: str  # "verdict" or "extraction"
    gold: str
    output: str
    expected: str  # "correct", "incorrect", "ambiguous"; empty for extraction cases
    config: dict
    record: dict  # the whole line, for runners that need more fields

    @property
    def sample(self) -> Sample:
        return Sample(
            gold=self.gold,
            output=self.output,
            finish_reason=str(self.record.get("finish_reason") or ""),
            problem=str(self.record.get("problem") or ""),
        )


@dataclass(frozen=True)
class Agreement:
    evaluator: str
    n: int
    agreed: int

    @property
    def share(self) -> float:
        return self.agreed / self.n if self.n else 0.0


@dataclass(frozen=True)
class JuryFigures:
    rows: int  # verdict cases, ambiguous ones included
    flagged: int
    decided: int  # unflagged rows labelled correct or incorrect
    decided_right: int
    silent_wrong: int  # unflagged rows whose verdict contradicts the label
    silent_ambiguous: int  # unflagged rows labelled ambiguous

    @property
    def flagged_share(self) -> float:
        return self.flagged / self.rows if self.rows else 0.0

    @property
    def accuracy(self) -> float:
        return self.decided_right / self.decided if self.decided else 0.0

    @property
    def silent(self) -> int:
        return self.silent_wrong + self.silent_ambiguous

    @property
    def silent_share(self) -> float:
        return self.silent / self.rows if self.rows else 0.0


@dataclass(frozen=True)
class ReasonFigures:
    """How one review reason did: rows it flagged, and how many of them needed a human (their
    verdict was wrong, or the case is ambiguous). ``precision`` is the second over the first."""

    code: str
    fired: int
    needed: int

    @property
    def precision(self) -> float:
        return self.needed / self.fired if self.fired else 0.0


@dataclass(frozen=True)
class FileReport:
    name: str
    agreements: tuple[Agreement, ...]
    jury: JuryFigures
    folds: tuple[JuryFigures, ...] = ()  # the jury on each fold of the file, fold 0 first
    reasons: tuple[ReasonFigures, ...] = ()


def read_cases(path: Path) -> list[Case]:
    """The cases in one JSONL file, in order."""
    cases = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                cases.append(
                    Case(
                        id=str(record["id"]),
                        kind=record["kind"],
                        gold=record["gold"] or "",
                        output=record["output"],
                        expected=record.get("expected") or "",
                        config=record.get("config") or {},
                        record=record,
                    )
                )
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise CaseFileError(f"{path}:{number}: not a conformance case: {exc}") from exc
    return cases


def fold_of(case_id: str, folds: int = FOLDS) -> int:
    """The fold a case belongs to: a hash of its id, so folds never change between runs or
    machines. Tune on some folds, report the others."""
    digest = hashlib.sha256(case_id.encode("utf-8")).hexdigest()
    return int(digest, 16) % folds


def run_cases(
    name: str, cases: Sequence[Case], evaluators: Sequence[str], *, folds: int = FOLDS
) -> FileReport:
    """Grade ``cases`` and measure the evaluators and the jury against their labels."""
    verdict_cases = [c for c in cases if c.kind == "verdict"]
    graded = grade_many([c.sample for c in verdict_cases], evaluators=evaluators)
    return _report(name, cases, graded, evaluators, folds)


def _report(
    name: str,
    cases: Sequence[Case],
    graded: Sequence[GradedSample],
    evaluators: Sequence[str],
    folds: int,
) -> FileReport:
    """The figures of ``cases``, whose verdict cases were graded as ``graded``, in order."""
    verdict_cases = [c for c in cases if c.kind == "verdict"]
    agreements = tuple(
        _agreement(evaluator, cases, dict(zip((c.id for c in verdict_cases), graded, strict=True)))
        for evaluator in evaluators
    )
    pairs = list(zip(verdict_cases, graded, strict=True))
    by_fold = tuple(
        _jury_figures(
            [c for c, _ in pairs if fold_of(c.id, folds) == fold],
            [g for c, g in pairs if fold_of(c.id, folds) == fold],
        )
        for fold in range(folds)
    )
    return FileReport(
        name,
        agreements,
        _jury_figures(verdict_cases, graded),
        folds=by_fold,
        reasons=_reason_figures(verdict_cases, graded),
    )


def run_file(path: Path, evaluators: Sequence[str], *, folds: int = FOLDS) -> FileReport:
    return run_cases(path.name, read_cases(path), evaluators, folds=folds)


def run_files(
    paths: Sequence[Path], evaluators: Sequence[str], *, folds: int = FOLDS
) -> list[FileReport]:
    """A report per file, their cases graded in one call: one pool of children for all of
    them, not one started for each file (a hundred files of 160 cases spent a minute starting
    pools)."""
    files = [(path.name, read_cases(path)) for path in paths]
    samples = [c.sample for _, cases in files for c in cases if c.kind == "verdict"]
    graded = iter(grade_many(samples, evaluators=evaluators))
    reports = []
    for name, cases in files:
        own = [next(graded) for c in cases if c.kind == "verdict"]
        reports.append(_report(name, cases, own, evaluators, folds))
    return reports


def format_reports(
    reports: Sequence[FileReport], *, by_fold: bool = False, reasons: bool = False
) -> str:
    """Two aligned tables: agreement per file and evaluator, then the jury per file (and per
    fold, with ``by_fold``); with ``reasons``, a third: each review reason's precision."""
    width = max([len("file"), *(len(r.name) for r in reports)])
    lines = [f"{'file':<{width}}  {'evaluator':<20} {'n':>5} {'agree':>7}"]
    for report in reports:
        for a in report.agreements:
            lines.append(f"{report.name:<{width}}  {a.evaluator:<20} {a.n:>5} {a.share:>7.1%}")
    lines.append("")
    lines.append(
        f"{'file':<{width}}  {'rows':>5} {'flagged':>14} {'decided':>8} {'accuracy':>9}"
        f" {'silent wrong':>13} {'silent ambig':>13} {'silent':>14}"
    )
    for report in reports:
        rows = [(report.name, report.jury)]
        if by_fold:
            rows += [(f"{report.name}[{k}]", j) for k, j in enumerate(report.folds)]
        for label, j in rows:
            lines.append(
                f"{label:<{width}}  {j.rows:>5} {_count_share(j.flagged, j.flagged_share):>14}"
                f" {j.decided:>8} {j.accuracy:>9.1%} {j.silent_wrong:>13}"
                f" {j.silent_ambiguous:>13} {_count_share(j.silent, j.silent_share):>14}"
            )
    if reasons:
        lines.append("")
        lines.extend(_format_reasons(reports))
    return "\n".join(lines)


def _format_reasons(reports: Sequence[FileReport]) -> list[str]:
    """Per reason, per file: rows it flagged and its precision, then all files together."""
    codes = sorted({r.code for report in reports for r in report.reasons})
    names = [report.name.removesuffix(".jsonl")[:16] for report in reports]
    lines = [f"{'reason':<24}" + "".join(f" {n:>16}" for n in names) + f" {'all files':>16}"]
    for code in codes:
        cells, fired, needed = [], 0, 0
        for report in reports:
            figures = next((r for r in report.reasons if r.code == code), None)
            if figures is None:
                cells.append(f" {'-':>16}")
                continue
            fired, needed = fired + figures.fired, needed + figures.needed
            cells.append(f" {f'{figures.fired} ({figures.precision:.0%})':>16}")
        total = ReasonFigures(code, fired, needed)
        lines.append(f"{code:<24}" + "".join(cells) + f" {f'{fired} ({total.precision:.0%})':>16}")
    return lines


def main(
    paths: Sequence[str | Path],
    evaluators: Sequence[str],
    *,
    by_fold: bool = False,
    reasons: bool = False,
) -> int:
    """Run each case file and print the tables; the figures are information, so return 0."""
    reports = run_files([Path(path) for path in paths], evaluators)
    print(format_reports(reports, by_fold=by_fold, reasons=reasons))
    return 0


def _agreement(evaluator: str, cases: Sequence[Case], graded: dict[str, GradedSample]) -> Agreement:
    agreed = n = 0
    for case in cases:
        if (
            evaluator == "math_verify"
            and case.config
            and (case.kind == "extraction" or case.expected in VERDICT_LABELS)
        ):
            # Imported here: it loads math-verify into this process, which only this needs.
            from grading.evaluators.mathverify import agrees_with_case

            n += 1
            agreed += bool(agrees_with_case(case.record))
        elif case.kind == "verdict" and case.expected in VERDICT_LABELS:
            n += 1
            evaluation = graded[case.id].evaluation(evaluator)
            agreed += bool(
                evaluation is not None
                and evaluation.status is Status.OK
                and evaluation.verdict == case.expected
            )
    return Agreement(evaluator, n, agreed)


def _jury_figures(cases: Sequence[Case], graded: Sequence[GradedSample]) -> JuryFigures:
    flagged = decided = decided_right = silent_wrong = silent_ambiguous = 0
    for case, result in zip(cases, graded, strict=True):
        if result.needs_review:
            flagged += 1
        elif case.expected == "ambiguous":
            silent_ambiguous += 1
        elif case.expected in VERDICT_LABELS:
            decided += 1
            if result.auto_verdict == case.expected:
                decided_right += 1
            else:
                silent_wrong += 1
    return JuryFigures(len(cases), flagged, decided, decided_right, silent_wrong, silent_ambiguous)


def _needed_a_human(case: Case, result: GradedSample) -> bool:
    return case.expected == "ambiguous" or (
        case.expected in VERDICT_LABELS and result.auto_verdict != case.expected
    )


def _reason_figures(
    cases: Sequence[Case], graded: Sequence[GradedSample]
) -> tuple[ReasonFigures, ...]:
    fired: Counter[str] = Counter()
    needed: Counter[str] = Counter()
    for case, result in zip(cases, graded, strict=True):
        if not result.needs_review:
            continue
        for reason in result.review_reasons:
            fired[reason.code] += 1
            needed[reason.code] += _needed_a_human(case, result)
    return tuple(ReasonFigures(code, fired[code], needed[code]) for code in sorted(fired))


def _count_share(count: int, share: float) -> str:
    return f"{count} ({share:.1%})"
