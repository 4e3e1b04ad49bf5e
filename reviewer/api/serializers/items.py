"""Items, their filters, evaluations and reviews."""

from __future__ import annotations

from rest_framework import serializers

from reviewer.api.serializers.strict import RejectUnknownFields
from reviewer.item_filters import (
    ITEM_FILTERS,
    TEXT,
    YES_NO,
    ItemFilter,
    ItemFilters,
    item_filters_from,
)
from reviewer.models import (
    Evaluation,
    Item,
    ItemMsu,
    Review,
    ReviewVerdict,
)
from reviewer.models.items import RESULT_COLUMNS, UPLOAD_FIELD_COLUMNS


class _ItemFilterBase(serializers.Serializer):
    """The run table's filters (reviewer.item_filters.ITEM_FILTERS, the run page's too); a
    left-out filter means "any", and rows come in row order unless ``order`` is "flagged"."""

    def filters(self, *, user_id: int | None = None) -> ItemFilters:
        return item_filters_from(self.validated_data, user_id=user_id, order="row")


def _filter_field(spec: ItemFilter) -> serializers.Field:
    if spec.kind == YES_NO:
        return serializers.BooleanField(required=False, allow_null=True, default=None)
    if spec.kind == TEXT:
        return serializers.CharField(
            required=False, allow_blank=True, max_length=200, help_text=spec.help
        )
    return serializers.ChoiceField(
        choices=[value for value, _ in spec.choices], required=False, help_text=spec.help
    )


ItemFilterSerializer = type(
    "ItemFilterSerializer",
    (_ItemFilterBase,),
    {
        "__doc__": _ItemFilterBase.__doc__,
        "__module__": __name__,
        **{spec.name: _filter_field(spec) for spec in ITEM_FILTERS},
    },
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
            *UPLOAD_FIELD_COLUMNS.values(),
            "extra",
            *RESULT_COLUMNS,
            "review_stage",
            "version",
        ]
        read_only_fields = fields


class ItemMsuSerializer(serializers.ModelSerializer):
    """A row's MSU against its human solution (docs/msu.md)."""

    class Meta:
        model = ItemMsu
        fields = [
            "state",
            "score",
            "overlap",
            "model_notions",
            "human_notions",
            "extractor",
            "extractor_version",
            "embedding_model",
            "embedding_semantic",
            "note",
        ]
        read_only_fields = fields


class ItemDetailSerializer(ItemSerializer):
    evaluations = EvaluationSerializer(many=True, read_only=True)
    reviews = ReviewSerializer(many=True, read_only=True)
    msu = ItemMsuSerializer(read_only=True, allow_null=True)  # null: the run has no solutions

    class Meta(ItemSerializer.Meta):
        fields = [*ItemSerializer.Meta.fields, "evaluations", "reviews", "msu"]
        read_only_fields = fields


class ReviewCreateSerializer(RejectUnknownFields, serializers.Serializer):
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
