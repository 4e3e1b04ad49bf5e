"""Plain values that go in and out of the grading engine.

Everything here is frozen and JSON-friendly (see ``to_dict``), because results cross a
process boundary (the sandbox) and are stored by callers that know nothing of SymPy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum


class Verdict(StrEnum):
    CORRECT = "correct"
    INCORRECT = "incorrect"


class Status(StrEnum):
    """How an evaluation ended. Only ``OK`` carries a verdict."""

    OK = "ok"
    NO_ANSWER = "no_answer"  # nothing to extract from the output
    PARSE_ERROR = "parse_error"  # something was extracted but it does not parse
    TIMEOUT = "timeout"  # the row ran past its wall-clock limit: never "incorrect"
    ERROR = "error"  # the evaluator crashed or ran out of memory


class AnswerType(StrEnum):
    INTEGER = "integer"
    DECIMAL = "decimal"
    FRACTION = "fraction"
    EXPRESSION = "expression"
    INTERVAL_OR_SET = "interval_or_set"
    TUPLE = "tuple"
    MATRIX = "matrix"
    EQUATION = "equation"
    TEXT = "text"
    LETTER = "letter"
    YES_NO = "yes_no"
    OPTION_LIST = "option_list"  # several options: "A, C, D", "TFTF", "1-C, 2-A"


CHOICE_ANSWER_TYPES = frozenset({AnswerType.LETTER, AnswerType.YES_NO})
# Golds that name options rather than values: the choice panel judges them.
OPTION_ANSWER_TYPES = CHOICE_ANSWER_TYPES | {AnswerType.OPTION_LIST}
# Golds that are one value, where an answer listing several hedges.
SINGLE_VALUE_TYPES = frozenset(
    {AnswerType.INTEGER, AnswerType.DECIMAL, AnswerType.FRACTION, AnswerType.EXPRESSION}
)


@dataclass(frozen=True)
class Sample:
    """One model output to grade against its gold answer."""

    gold: str
    output: str
    finish_reason: str = ""  # "length" means the generation was cut off
    problem: str = ""  # read by detectors for what the question demands ("exact value")


@dataclass(frozen=True)
class Evaluation:
    """What one evaluator concluded about one sample."""

    evaluator: str
    version: str
    status: Status
    verdict: Verdict | None = None  # set exactly when status is OK
    extracted: str = ""  # the prediction as the evaluator understood it
    extracted_latex: str = ""
    gold_latex: str = ""
    ms: float = 0.0
    # Doubt signals only this evaluator can see (codes from grading.reasons), e.g. a match
    # reached only through math-verify's string fallback.
    signals: tuple[str, ...] = ()
    detail: str = ""  # why it failed, for a human
    # Set by answer_check, so the jury can tell a real disagreement from an explained one:
    # evaluators that extracted its answer itself (equal in value; their comparison failed),
    # and evaluators that read a value the output never states as an answer.
    same_reading: tuple[str, ...] = ()
    misread: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """Every field, enums as their strings; written out field by field, because
        ``dataclasses.asdict`` deep-copies and costs several times more per row."""
        return {
            "evaluator": self.evaluator,
            "version": self.version,
            "status": self.status.value,
            "verdict": self.verdict.value if self.verdict else None,
            "extracted": self.extracted,
            "extracted_latex": self.extracted_latex,
            "gold_latex": self.gold_latex,
            "ms": self.ms,
            "signals": list(self.signals),
            "detail": self.detail,
            "same_reading": list(self.same_reading),
            "misread": list(self.misread),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Evaluation:
        verdict = data.get("verdict")
        return cls(
            evaluator=data["evaluator"],
            version=data["version"],
            status=_STATUSES[data["status"]],
            verdict=_VERDICTS[verdict] if verdict else None,
            extracted=data.get("extracted", ""),
            extracted_latex=data.get("extracted_latex", ""),
            gold_latex=data.get("gold_latex", ""),
            ms=data.get("ms", 0.0),
            signals=tuple(data.get("signals", ())),
            detail=data.get("detail", ""),
            same_reading=tuple(data.get("same_reading", ())),
            misread=tuple(data.get("misread", ())),
        )


@dataclass(frozen=True)
class ReviewReason:
    """Why a row goes to a human: a stable code and a sentence a reviewer understands."""

    code: str
    message: str

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class GradedSample:
    """The jury's result for one sample."""

    answer_type: AnswerType
    auto_verdict: Verdict
    needs_review: bool
    review_reasons: tuple[ReviewReason, ...]
    evaluations: tuple[Evaluation, ...] = field(default_factory=tuple)
    primary_evaluator: str = ""

    def evaluation(self, name: str) -> Evaluation | None:
        return next((e for e in self.evaluations if e.evaluator == name), None)

    def to_dict(self, evaluation_as: Callable[[Evaluation], object] = Evaluation.to_dict) -> dict:
        """JSON-ready values; ``evaluation_as`` lets a caller that already serialised the
        evaluations (the sandbox child) put them in as they are."""
        return {
            "auto_verdict": self.auto_verdict.value,
            "needs_review": self.needs_review,
            "review_reasons": [r.to_dict() for r in self.review_reasons],
            "answer_type": self.answer_type.value,
            "primary_evaluator": self.primary_evaluator,
            "evaluations": {e.evaluator: evaluation_as(e) for e in self.evaluations},
        }

    @classmethod
    def from_dict(cls, data: dict) -> GradedSample:
        return cls(
            answer_type=_ANSWER_TYPES[data["answer_type"]],
            auto_verdict=_VERDICTS[data["auto_verdict"]],
            needs_review=data["needs_review"],
            review_reasons=tuple(
                ReviewReason(r["code"], r["message"]) for r in data["review_reasons"]
            ),
            evaluations=tuple(Evaluation.from_dict(e) for e in data["evaluations"].values()),
            primary_evaluator=data.get("primary_evaluator", ""),
        )


# Enum members by value: a dictionary lookup is several times faster than calling the enum.
_STATUSES = {member.value: member for member in Status}
_VERDICTS = {member.value: member for member in Verdict}
_ANSWER_TYPES = {member.value: member for member in AnswerType}
