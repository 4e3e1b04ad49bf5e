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

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grading.batch import grade_many
from grading.types import GradedSample, Sample, Status

VERDICT_LABELS = frozenset({"correct", "incorrect"})


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
class FileReport:
    name: str
    agreements: tuple[Agreement, ...]
    jury: JuryFigures


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


def run_cases(name: str, cases: Sequence[Case], evaluators: Sequence[str]) -> FileReport:
    """Grade ``cases`` and measure the evaluators and the jury against their labels."""
    verdict_cases = [c for c in cases if c.kind == "verdict"]
    graded = grade_many([c.sample for c in verdict_cases], evaluators=evaluators)
    agreements = tuple(
        _agreement(evaluator, cases, dict(zip((c.id for c in verdict_cases), graded, strict=True)))
        for evaluator in evaluators
    )
    return FileReport(name, agreements, _jury_figures(verdict_cases, graded))


def run_file(path: Path, evaluators: Sequence[str]) -> FileReport:
    return run_cases(path.name, read_cases(path), evaluators)


def format_reports(reports: Sequence[FileReport]) -> str:
    """Two aligned tables: agreement per file and evaluator, then the jury per file."""
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
        j = report.jury
        lines.append(
            f"{report.name:<{width}}  {j.rows:>5} {_count_share(j.flagged, j.flagged_share):>14}"
            f" {j.decided:>8} {j.accuracy:>9.1%} {j.silent_wrong:>13} {j.silent_ambiguous:>13}"
            f" {_count_share(j.silent, j.silent_share):>14}"
        )
    return "\n".join(lines)


def main(paths: Sequence[str | Path], evaluators: Sequence[str]) -> int:
    """Run each case file and print the tables; the figures are information, so return 0."""
    reports = [run_file(Path(path), evaluators) for path in paths]
    print(format_reports(reports))
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


def _count_share(count: int, share: float) -> str:
    return f"{count} ({share:.1%})"
