"""Serializers: parse and validate input, shape output. Writes happen in services."""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from grading.evaluators import AVAILABLE as AVAILABLE_EVALUATORS
from grading.types import AnswerType
from reviewer.ingest import CANONICAL_FIELDS, DELIMITERS
from reviewer.models import (
    AuditEvent,
    Evaluation,
    Export,
    Item,
    Membership,
    Project,
    Review,
    ReviewVerdict,
    Ruling,
    Run,
)
from reviewer.selectors import ItemFilters
from reviewer.services import exports
from reviewer.services.assignments import MAX_REVIEWS_PER_FLAGGED_ROW, Scope

MAX_JSON_ROWS = 50_000


class ProjectSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="your role in the project")

    class Meta:
        model = Project
        fields = ["id", "name", "role", "created_at"]
        read_only_fields = ["id", "created_at"]

    def get_role(self, project) -> str | None:
        return getattr(project, "role", None)


class MembershipSerializer(serializers.Serializer):
    """A member: input ``username`` and ``role``; output the same."""

    username = serializers.SlugRelatedField(
        source="user",
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class ProjectCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)


class RunSerializer(serializers.ModelSerializer):
    project_name = serializers.CharField(source="project.name", read_only=True)
    uploaded_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Run
        fields = [
            "id",
            "project",
            "project_name",
            "name",
            "model_name",
            "dataset",
            "source_filename",
            "source_sha256",
            "column_mapping",
            "evaluators",
            "status",
            "total_rows",
            "grading_generation",
            "error_message",
            "uploaded_by",
            "created_at",
            "grading_started_at",
            "grading_finished_at",
        ]
        read_only_fields = fields


class RunCountsSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    graded = serializers.IntegerField()
    quarantined = serializers.IntegerField()
    auto_correct = serializers.IntegerField()
    auto_incorrect = serializers.IntegerField()
    flagged = serializers.IntegerField()
    reviewed = serializers.IntegerField()
    final_correct = serializers.IntegerField()
    final_incorrect = serializers.IntegerField()
    final_accuracy = serializers.FloatField(allow_null=True)


class RunProgressSerializer(serializers.Serializer):
    graded = serializers.IntegerField()
    total = serializers.IntegerField()
    percent = serializers.IntegerField()
    done = serializers.BooleanField()
    rows_per_second = serializers.FloatField(allow_null=True)
    seconds_left = serializers.FloatField(allow_null=True)
    stalled = serializers.BooleanField()


class RunDetailSerializer(RunSerializer):
    """A run with its counts and grading progress, computed by the view's selectors."""

    counts = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "counts", "progress"]
        read_only_fields = fields

    @extend_schema_field(RunCountsSerializer)
    def get_counts(self, run: Run) -> dict:
        return RunCountsSerializer(self.context["counts"]).data

    @extend_schema_field(RunProgressSerializer)
    def get_progress(self, run: Run) -> dict:
        return RunProgressSerializer(self.context["progress"]).data


class MappingField(serializers.DictField):
    """Canonical field -> column name; in a multipart form, the same object as JSON text."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.CharField(max_length=500), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except ValueError:
                self.fail("not_a_dict", input_type="text that is not JSON")
        mapping = super().to_internal_value(data)
        unknown = sorted(set(mapping) - set(CANONICAL_FIELDS))
        if unknown:
            raise serializers.ValidationError(
                f"unknown field(s) {', '.join(unknown)}; fields are {', '.join(CANONICAL_FIELDS)}"
            )
        return mapping


class RunOptionsSerializer(serializers.Serializer):
    project = serializers.CharField(max_length=200, help_text="Project name; created if new.")
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    model_name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    dataset = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    evaluators = serializers.ListField(
        child=serializers.ChoiceField(choices=AVAILABLE_EVALUATORS),
        required=False,
        allow_empty=False,
        help_text="Evaluators to grade with; all of them by default.",
    )
    mapping = MappingField(
        required=False,
        help_text="Canonical field (gold, output, problem, id, ...) -> column. Guessed from "
        "the column names when left out.",
    )
    delimiter = serializers.ChoiceField(choices=DELIMITERS, required=False)


class RunUploadSerializer(RunOptionsSerializer):
    file = serializers.FileField(help_text="CSV or JSONL, one model output per row.")


class RunRowsSerializer(RunOptionsSerializer):
    rows = serializers.ListField(
        child=serializers.DictField(),
        min_length=1,
        max_length=MAX_JSON_ROWS,
        help_text='One object per model output, e.g. {"gold": "42", "output": "..."}.',
    )


class RegradeSerializer(serializers.Serializer):
    evaluators = serializers.ListField(
        child=serializers.ChoiceField(choices=AVAILABLE_EVALUATORS), allow_empty=False
    )


class ItemFilterSerializer(serializers.Serializer):
    """The run table's filters; a left-out filter means "any"."""

    needs_review = serializers.BooleanField(required=False, allow_null=True, default=None)
    disagree = serializers.BooleanField(required=False, allow_null=True, default=None)
    verdict = serializers.ChoiceField(
        choices=[*ReviewVerdict.values, "none"], required=False, help_text="'none': no verdict yet"
    )
    answer_type = serializers.ChoiceField(choices=[t.value for t in AnswerType], required=False)
    reviewed = serializers.BooleanField(required=False, allow_null=True, default=None)
    q = serializers.CharField(required=False, allow_blank=True, max_length=200)
    queue = serializers.ChoiceField(
        choices=["mine", "conflicts"],
        required=False,
        help_text="'mine': rows in your queue you have not reviewed; 'conflicts': rows whose "
        "blind reviews disagree",
    )

    def filters(self, *, user_id: int | None = None) -> ItemFilters:
        data = self.validated_data
        return ItemFilters(
            needs_review=data.get("needs_review"),
            disagree=data.get("disagree"),
            verdict=data.get("verdict", ""),
            answer_type=data.get("answer_type", ""),
            reviewed=data.get("reviewed"),
            q=data.get("q", ""),
            order="row",
            queue=data.get("queue", ""),
            user_id=user_id,
        )


class EvaluationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Evaluation
        fields = [
            "evaluator",
            "evaluator_version",
            "status",
            "verdict",
            "extracted",
            "extracted_latex",
            "gold_latex",
            "ms",
            "signals",
            "detail",
        ]
        read_only_fields = fields


class ReviewSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Review
        fields = ["id", "item", "verdict", "kind", "ruling", "note", "annotator", "created_at"]
        read_only_fields = fields


class ItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = [
            "id",
            "run",
            "row_number",
            "source_line",
            "external_id",
            "problem",
            "gold",
            "output",
            "model_name",
            "subject",
            "sample_index",
            "finish_reason",
            "extra",
            "grade_state",
            "answer_type",
            "auto_verdict",
            "needs_review",
            "evaluators_disagree",
            "review_reasons",
            "final_verdict",
            "final_source",
            "review_stage",
            "version",
        ]
        read_only_fields = fields


class ItemDetailSerializer(ItemSerializer):
    evaluations = EvaluationSerializer(many=True, read_only=True)
    reviews = ReviewSerializer(many=True, read_only=True)

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "evaluations", "reviews"]
        read_only_fields = fields


class ReviewCreateSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=ReviewVerdict.choices)
    note = serializers.CharField(max_length=5000, required=False, allow_blank=True, default="")
    expected_version = serializers.IntegerField(
        min_value=0,
        required=False,
        allow_null=True,
        default=None,
        help_text="The item's version you saw; 409 if someone saved a decision since.",
    )


class ReviewResultSerializer(serializers.Serializer):
    review = ReviewSerializer()
    item = ItemSerializer()


class ExportStartSerializer(ItemFilterSerializer):
    format = serializers.ChoiceField(choices=Export.Format.choices)
    variant = serializers.ChoiceField(
        choices=Export.Variant.choices,
        default=Export.Variant.RAW,
        help_text="CSV only: raw (byte-exact) or spreadsheet (formula-looking cells neutralised)",
    )


class ExportDownloadsSerializer(serializers.Serializer):
    data = serializers.URLField()
    gold_errata = serializers.URLField(allow_null=True)
    card_markdown = serializers.URLField()
    card_json = serializers.URLField()


class ExportSerializer(serializers.ModelSerializer):
    downloads = serializers.SerializerMethodField()

    class Meta:
        model = Export
        fields = [
            "id",
            "run",
            "format",
            "variant",
            "filters",
            "status",
            "rows_done",
            "rows_total",
            "errata_rows",
            "error_message",
            "created_at",
            "started_at",
            "finished_at",
            "card",
            "downloads",
        ]
        read_only_fields = fields

    @extend_schema_field(ExportDownloadsSerializer(allow_null=True))
    def get_downloads(self, job: Export) -> dict | None:
        """Download links once the files are written; None before."""
        if job.status != Export.Status.DONE:
            return None
        request = self.context["request"]
        base = request.build_absolute_uri(reverse("api:export_download", args=[job.pk]))
        return {
            "data": f"{base}?part=data",
            "gold_errata": f"{base}?part=errata" if job.errata_file_name else None,
            "card_markdown": f"{base}?part=card.md",
            "card_json": f"{base}?part=card.json",
        }


class ExportPartSerializer(serializers.Serializer):
    part = serializers.ChoiceField(choices=exports.PARTS, default="data")


class StatsQuerySerializer(serializers.Serializer):
    breakdown = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="answer_type (default), subject, model, sample_index, finish_reason, reason, "
        "or extra:<column>",
    )


class CompareQuerySerializer(serializers.Serializer):
    run_a = serializers.IntegerField(min_value=1)
    run_b = serializers.IntegerField(min_value=1)


class AssignmentSplitSerializer(serializers.Serializer):
    annotators = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=100),
        allow_empty=False,
        help_text='{"username": share}: each gets rows in proportion to their share',
    )
    reviews_per_flagged_row = serializers.IntegerField(
        min_value=1,
        max_value=MAX_REVIEWS_PER_FLAGGED_ROW,
        default=1,
        help_text="2 or more: flagged rows go to that many annotators, who review them blind",
    )
    scope = serializers.ChoiceField(choices=Scope.choices, default=Scope.QUEUE)

    def validate_annotators(self, shares: dict) -> dict:
        users = get_user_model().objects.in_bulk(list(shares), field_name="username")
        unknown = sorted(set(shares) - set(users))
        if unknown:
            raise serializers.ValidationError(f"no such user: {', '.join(unknown)}")
        return {users[name]: share for name, share in shares.items()}


class QueueProgressSerializer(serializers.Serializer):
    username = serializers.CharField()
    assigned = serializers.IntegerField()
    done = serializers.IntegerField()
    to_do = serializers.IntegerField()


class AssignmentsSerializer(serializers.Serializer):
    reviews_per_flagged_row = serializers.IntegerField()
    conflicts = serializers.IntegerField()
    queues = QueueProgressSerializer(many=True)


class RulingSerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(slug_field="username", read_only=True)
    undone_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Ruling
        fields = [
            "id",
            "project",
            "source_item",
            "gold",
            "prediction",
            "verdict",
            "user",
            "created_at",
            "rows_applied",
            "undone_at",
            "undone_by",
            "rows_restored",
        ]
        read_only_fields = fields


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor_name", help_text='"" for the system')

    class Meta:
        model = AuditEvent
        fields = ["id", "at", "actor", "action", "project", "run", "item", "summary", "data"]
        read_only_fields = fields


class AuditFilterSerializer(serializers.Serializer):
    run = serializers.IntegerField(required=False, min_value=1)
    action = serializers.ChoiceField(choices=AuditEvent.Action.choices, required=False)
