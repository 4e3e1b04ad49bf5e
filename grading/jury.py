"""The jury: turns the evaluators' results and the detectors' findings into one decision.

``decide`` is pure and cheap (no SymPy, no regular expressions), because the sandbox parent
also calls it for rows whose child timed out or died, with the missing evaluations marked
TIMEOUT or ERROR. The policy and its knobs are documented for users in docs/grading.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from grading import reasons
from grading.types import (
    OPTION_ANSWER_TYPES,
    AnswerType,
    Evaluation,
    GradedSample,
    Status,
    Verdict,
)

# The reason a primary (or any applicable) evaluator gives by ending without a verdict.
STATUS_REASONS: dict[Status, str] = {
    Status.NO_ANSWER: "no_answer",
    Status.PARSE_ERROR: "parse_error",
    Status.TIMEOUT: "timeout",
    Status.ERROR: "evaluator_error",
}


@dataclass(frozen=True)
class JuryPolicy:
    """Which evaluators decide, which are consulted, and which reasons send a row to a human.

    A panel lists the evaluators that apply to an answer-type group, the primary first; an
    evaluator outside the panel is still run and shown but never affects the decision.
    """

    math_panel: tuple[str, ...] = (
        "answer_check",
        "math_verify",
        "math_verify_strict",
        "flex",
        "strict",
        "exact",
    )
    choice_panel: tuple[str, ...] = ("answer_check", "choice")
    # A juror outside both panels that never decides: an LLM judge run on some rows. Its
    # differing verdict is a reason to review, never the verdict.
    judge: str = "llm_judge"
    # Reasons that set needs_review. Other reasons are still listed, as information.
    flagging_reasons: frozenset[str] = frozenset(reasons.MESSAGES) - reasons.INFORMATION_ONLY

    def panel(self, answer_type: AnswerType) -> tuple[str, ...]:
        """The evaluators that apply to ``answer_type``, primary first."""
        return self.choice_panel if answer_type in OPTION_ANSWER_TYPES else self.math_panel


DEFAULT_POLICY = JuryPolicy()


def decide(
    answer_type: AnswerType,
    evaluations: tuple[Evaluation, ...],
    findings: tuple[str, ...],
    policy: JuryPolicy = DEFAULT_POLICY,
) -> GradedSample:
    """Combine evaluations and detector findings into a verdict and the reasons to review it.

    No evaluator outranks another silently: an applicable evaluator whose verdict differs from
    the row's flags it. A "correct" always counts. An "incorrect" against a "correct" verdict
    does not flag when the primary explains it: that evaluator read the very same answer (its
    literal comparison failed on an equal value), or it read a value the output never states
    as an answer while the output states one plainly.
    """
    by_name = {e.evaluator: e for e in evaluations}
    applicable = [by_name[name] for name in policy.panel(answer_type) if name in by_name]
    if not applicable:  # none of the panel was run: every evaluation run applies, in order
        applicable = list(evaluations)
    primary = applicable[0] if applicable else None

    codes: list[str] = []
    if primary is None:
        codes.append("no_answer")
        verdict = Verdict.INCORRECT
    elif primary.status is Status.OK and primary.verdict is not None:
        verdict = primary.verdict
    else:
        codes.append(STATUS_REASONS.get(primary.status, "evaluator_error"))
        # The next applicable evaluator with a verdict stands in; with none, an answer that
        # could not be graded is not credited. The row is flagged either way.
        verdict = next(
            (e.verdict for e in applicable if e.status is Status.OK and e.verdict is not None),
            Verdict.INCORRECT,
        )

    for evaluation in applicable:
        if evaluation is not primary and evaluation.status in (Status.TIMEOUT, Status.ERROR):
            codes.append(STATUS_REASONS[evaluation.status])
    explained = set(primary.same_reading) | set(primary.misread) if primary else set()
    if any(
        e.status is Status.OK
        and e.verdict is not verdict
        and not (e.verdict is Verdict.INCORRECT and e.evaluator in explained)
        for e in applicable
        if e is not primary
    ):
        codes.append("evaluators_disagree")
    judge = by_name.get(policy.judge)
    if judge is not None and judge.status is Status.OK and judge.verdict is not verdict:
        codes.append("judge_disagrees")
    if primary is not None:
        # The primary's doubts about its own verdict; another evaluator's doubts about a
        # verdict that is not the row's (math-verify's string fallback) do not apply.
        codes.extend(primary.signals)
    codes.extend(findings)

    unique_codes = tuple(dict.fromkeys(codes))
    return GradedSample(
        answer_type=answer_type,
        auto_verdict=verdict,
        needs_review=any(code in policy.flagging_reasons for code in unique_codes),
        review_reasons=tuple(reasons.reason(code) for code in unique_codes),
        evaluations=tuple(evaluations),
        primary_evaluator=primary.evaluator if primary else "",
    )
