"""Serializers: parse and validate input, shape output. Writes happen in services. One
module per resource, as in reviewer.api.views."""

from reviewer.api.serializers.exports import (
    ExportDownloadsSerializer,
    ExportPartSerializer,
    ExportSerializer,
    ExportStartSerializer,
)
from reviewer.api.serializers.items import (
    EvaluationSerializer,
    ItemDetailSerializer,
    ItemFilterSerializer,
    ItemSerializer,
    ReviewCreateSerializer,
    ReviewResultSerializer,
    ReviewSerializer,
)
from reviewer.api.serializers.projects import (
    MembershipSerializer,
    ProjectCreateSerializer,
    ProjectSerializer,
)
from reviewer.api.serializers.runs import (
    MAX_JSON_ROWS,
    CompareQuerySerializer,
    MappingField,
    RegradeSerializer,
    RunCountsSerializer,
    RunDetailSerializer,
    RunOptionsSerializer,
    RunProgressSerializer,
    RunRowsSerializer,
    RunSerializer,
    RunUploadSerializer,
    StatsQuerySerializer,
)
from reviewer.api.serializers.team import (
    AssignmentSplitSerializer,
    AssignmentsSerializer,
    AuditEventSerializer,
    AuditFilterSerializer,
    QueueProgressSerializer,
    RulingSerializer,
)

__all__ = [
    "AssignmentSplitSerializer",
    "AssignmentsSerializer",
    "AuditEventSerializer",
    "AuditFilterSerializer",
    "CompareQuerySerializer",
    "EvaluationSerializer",
    "ExportDownloadsSerializer",
    "ExportPartSerializer",
    "ExportSerializer",
    "ExportStartSerializer",
    "ItemDetailSerializer",
    "ItemFilterSerializer",
    "ItemSerializer",
    "MAX_JSON_ROWS",
    "MappingField",
    "MembershipSerializer",
    "ProjectCreateSerializer",
    "ProjectSerializer",
    "QueueProgressSerializer",
    "RegradeSerializer",
    "ReviewCreateSerializer",
    "ReviewResultSerializer",
    "ReviewSerializer",
    "RulingSerializer",
    "RunCountsSerializer",
    "RunDetailSerializer",
    "RunOptionsSerializer",
    "RunProgressSerializer",
    "RunRowsSerializer",
    "RunSerializer",
    "RunUploadSerializer",
    "StatsQuerySerializer",
]
