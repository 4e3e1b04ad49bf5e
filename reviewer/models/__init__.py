"""The reviewer's data: projects own runs and members, runs own items, items own evaluations
and reviews. One module per part; every model is importable from here."""

from reviewer.models.audit import AuditEvent
from reviewer.models.exports import Export
from reviewer.models.grading import GradingChunk
from reviewer.models.items import (
    Evaluation,
    EvaluatorScore,
    Item,
    Review,
    ReviewVerdict,
    Verdict,
    evaluator_scores_parse,
    evaluator_scores_text,
)
from reviewer.models.projects import Membership, Project
from reviewer.models.runs import Run
from reviewer.models.team import Assignment, Ruling, RulingChange

__all__ = [
    "Assignment",
    "AuditEvent",
    "Evaluation",
    "EvaluatorScore",
    "Export",
    "GradingChunk",
    "Item",
    "Membership",
    "Project",
    "Review",
    "ReviewVerdict",
    "Ruling",
    "RulingChange",
    "Run",
    "Verdict",
    "evaluator_scores_parse",
    "evaluator_scores_text",
]
