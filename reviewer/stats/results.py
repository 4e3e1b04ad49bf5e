"""What the statistics return: frozen values the stats page renders and the API serialises
with ``as_dict()``."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Estimate:
    """A rate with the number of rows it rests on and its bootstrap 95% interval."""

    value: float | None
    n: int
    low: float | None = None
    high: float | None = None

    @property
    def percent(self) -> float | None:
        return None if self.value is None else 100 * self.value

    @property
    def low_percent(self) -> float | None:
        return None if self.low is None else 100 * self.low

    @property
    def high_percent(self) -> float | None:
        return None if self.high is None else 100 * self.high


@dataclass(frozen=True)
class Summary:
    total: int
    graded: int
    pending: int
    quarantined: int
    flagged: int
    evaluators_disagree: int
    reviewed: int
    final_gold_wrong: int
    final_unclear: int
    auto: Estimate  # jury accuracy
    final: Estimate  # accuracy after adjudication
    difference: Estimate  # final minus jury, paired
    spot_check_percent: int
    spot_check_rows: int  # unflagged rows in the spot check
    consensus_error: Estimate  # spot-check rows whose human verdict differs from the jury's


@dataclass(frozen=True)
class ReasonCount:
    code: str
    message: str
    rows: int
    share: float | None  # of graded rows
    flagged: int
    jury_overturned: Estimate  # on reviewed rows with this reason: the human changed the verdict


@dataclass(frozen=True)
class EvaluatorAccuracy:
    evaluator: str
    accuracy: Estimate  # over the rows it applies to, time-outs and crashes left out
    unknown: int  # rows it applies to and timed out or crashed on
    applies: int  # graded rows whose answer type it applies to (the jury's panels)
    graded: int  # graded rows of the run

    @property
    def coverage(self) -> float | None:
        """The share of graded rows the evaluator applies to."""
        return self.applies / self.graded if self.graded else None

    @property
    def coverage_percent(self) -> float | None:
        return None if self.coverage is None else 100 * self.coverage


@dataclass(frozen=True)
class PairAgreement:
    a: str
    b: str
    n: int  # rows both scored
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class HumanComparison:
    """One evaluator against the final verdict of human-reviewed rows ("positive" = correct)."""

    evaluator: str
    true_positive: int  # evaluator correct, human correct
    false_positive: int  # evaluator correct, human incorrect: the reward-hacking risk
    false_negative: int  # evaluator incorrect, human correct
    true_negative: int
    left_out: int  # human said gold wrong or unclear, or the evaluator's score is unknown
    precision: float | None
    recall: float | None
    kappa: float | None
    false_positive_rate: float | None

    @property
    def n(self) -> int:
        return self.true_positive + self.false_positive + self.false_negative + self.true_negative


@dataclass(frozen=True)
class BreakdownRow:
    value: str
    rows: int
    flagged: int
    auto: Estimate
    final: Estimate
    reviewed: int
    jury_overturned: Estimate
    evaluators: tuple[Estimate, ...]  # in the order of RunStats.evaluators; empty by reason


@dataclass(frozen=True)
class Breakdown:
    key: str
    label: str
    options: tuple[tuple[str, str], ...]  # (key, label) of every breakdown of this run
    rows: tuple[BreakdownRow, ...]


@dataclass(frozen=True)
class AnnotatorPair:
    a: str
    b: str
    n: int  # rows both reviewed
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class AnnotatorAgreement:
    """Between people, on their newest verdict per row (four categories, nominal)."""

    units: int  # rows reviewed by two or more people
    alpha: float | None  # Krippendorff's alpha over all of them
    pairs: tuple[AnnotatorPair, ...]  # Cohen's kappa per pair of people


@dataclass(frozen=True)
class RunStats:
    run_id: int
    evaluators: tuple[str, ...]
    summary: Summary
    reasons: tuple[ReasonCount, ...]
    evaluator_accuracy: tuple[EvaluatorAccuracy, ...]
    agreement: tuple[PairAgreement, ...]
    humans: tuple[HumanComparison, ...]
    breakdown: Breakdown
    annotators: AnnotatorAgreement

    def as_dict(self) -> dict:
        """Plain, JSON-serialisable values (tuples become lists when dumped)."""
        return asdict(self)


@dataclass(frozen=True)
class Flip:
    key: str  # the problem id both runs share (or "row N" when the file had none)
    item_a: int
    item_b: int
    verdict_a: str
    verdict_b: str


@dataclass(frozen=True)
class RunComparison:
    run_a: int
    run_b: int
    accuracy_a: Estimate  # accuracy after adjudication, all rows of run a
    accuracy_b: Estimate
    matched: int  # problem ids found once in each run, both with a correct/incorrect verdict
    both_correct: int
    correct_to_incorrect: int
    incorrect_to_correct: int
    both_incorrect: int
    difference: Estimate  # b minus a on matched rows, paired
    only_a: int  # ids of run a with no single match in run b (missing, repeated, undecided)
    only_b: int
    flips: tuple[Flip, ...]  # the first COMPARE_FLIPS_SHOWN flipped rows, in run a's order

    def as_dict(self) -> dict:
        return asdict(self)
