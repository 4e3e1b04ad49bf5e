"""API views: each parses its input with a serializer, calls one service or selector through
reviewer.access, and returns JSON. Objects a user may not see are 404, as on the pages. One
module per resource: projects, runs, items, team review, exports."""

from reviewer.api.views.base import ApiView, TokenView
from reviewer.api.views.exports import ExportDetail, ExportDownload, RunExports, RunExportStream
from reviewer.api.views.generation import (
    EndpointList,
    EndpointTest,
    ProblemSetList,
    RunGenerate,
    RunGeneration,
    RunGenerationAction,
    RunJudge,
)
from reviewer.api.views.items import ItemDetail, ItemList, ItemReviews
from reviewer.api.views.projects import ProjectDetail, ProjectList, ProjectMember, ProjectMembers
from reviewer.api.views.runs import RunCompareView, RunDetail, RunList, RunRegrade, RunStatsView
from reviewer.api.views.team import (
    ItemRuling,
    ProjectAudit,
    ProjectRulings,
    RulingUndo,
    RunAssignments,
)

__all__ = [
    "EndpointList",
    "EndpointTest",
    "ProblemSetList",
    "RunGenerate",
    "RunGeneration",
    "RunGenerationAction",
    "RunJudge",
    "ApiView",
    "ExportDetail",
    "ExportDownload",
    "ItemDetail",
    "ItemList",
    "ItemReviews",
    "ItemRuling",
    "ProjectAudit",
    "ProjectDetail",
    "ProjectList",
    "ProjectMember",
    "ProjectMembers",
    "ProjectRulings",
    "RulingUndo",
    "RunAssignments",
    "RunCompareView",
    "RunDetail",
    "RunExportStream",
    "RunExports",
    "RunList",
    "RunRegrade",
    "RunStatsView",
    "TokenView",
]
