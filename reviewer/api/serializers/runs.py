"""Runs: upload options, the run with its counts and progress, re-grading, statistics queries."""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from grading.evaluators import AVAILABLE as AVAILABLE_EVALUATORS
from grading.reader import CANONICAL_FIELDS, CHOSEN_ENCODINGS, DELIMITERS
from reviewer.api.serializers.strict import RejectUnknownFields
from reviewer.models import (
    Run,
)

MAX_JSON_ROWS = 50_000


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
        fields = [*RunSerializer.Meta.fields, "skipped_lines", "counts", "progress"]
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


class RunOptionsSerializer(RejectUnknownFields, serializers.Serializer):
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
    encoding = serializers.ChoiceField(
        choices=CHOSEN_ENCODINGS,
        required=False,
        help_text="For a file that is not UTF-8: the encoding to read it in (a refused file's "
        "error names the one that fits). Left out, UTF-8 or what a byte-order mark says.",
    )
    skip_bad_lines = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Leave out rows with a problem (listed in the run's skipped_lines) instead "
        "of refusing the file.",
    )


class RunUploadSerializer(RunOptionsSerializer):
    file = serializers.FileField(
        help_text="CSV, JSONL or an .xlsx workbook (first sheet), one model output per row."
    )


class RunRowsSerializer(RunOptionsSerializer):
    rows = serializers.ListField(
        child=serializers.DictField(),
        min_length=1,
        max_length=MAX_JSON_ROWS,
        help_text='One object per model output, e.g. {"gold": "42", "output": "..."}.',
    )


class RegradeSerializer(RejectUnknownFields, serializers.Serializer):
    evaluators = serializers.ListField(
        child=serializers.ChoiceField(choices=AVAILABLE_EVALUATORS), allow_empty=False
    )


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
