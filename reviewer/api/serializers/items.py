"""Items, their filters, evaluations and reviews."""

from __future__ import annotations

from rest_framework import serializers

from grading.types import AnswerType
from reviewer.models import (
    Evaluation,
    Item,
    Review,
    ReviewVerdict,
)
from reviewer.selectors import ItemFilters


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
