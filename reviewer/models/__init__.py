"""The reviewer's data: projects own runs and members, runs own items, items own evaluations
and reviews. One module per part; every model is importable from here."""

from reviewer.models.audit import AuditEvent
from reviewer.models.exports import Export
from reviewer.models.generation import (
    Endpoint,
    GeneratedOutput,
    GenerationJob,
    JudgeVerdict,
    Problem,
    ProblemSet,
)
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
from reviewer.models.msu import ItemMsu, MsuSolutionCache
from reviewer.models.projects import Membership, Project
from reviewer.models.runs import TALLY_COUNTS, Run, RunTally
from reviewer.models.team import Assignment, Ruling, RulingChange
from reviewer.models.tokens import ApiToken

__all__ = [
    "ApiToken",
    "Assignment",
    "AuditEvent",
    "Evaluation",
    "EvaluatorScore",
    "Endpoint",
    "Export",
    "GeneratedOutput",
    "GenerationJob",
    "JudgeVerdict",
    "Problem",
    "ProblemSet",
    "GradingChunk",
    "Item",
    "ItemMsu",
    "Membership",
    "MsuSolutionCache",
    "Project",
    "Review",
    "ReviewVerdict",
    "Ruling",
    "RulingChange",
    "Run",
    "RunTally",
    "TALLY_COUNTS",
    "Verdict",
    "evaluator_scores_parse",
    "evaluator_scores_text",
]
