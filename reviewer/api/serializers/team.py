"""Team review: queue splits and progress, rulings, the audit trail."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from reviewer.api.serializers.strict import RejectUnknownFields
from reviewer.models import (
    AuditEvent,
    Ruling,
)
from reviewer.services.assignments import MAX_REVIEWS_PER_FLAGGED_ROW, Scope


class AssignmentSplitSerializer(RejectUnknownFields, serializers.Serializer):
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
        # PostgreSQL cannot look up a name with a NUL byte; no user has one.
        names = [name for name in shares if "\x00" not in name]
        users = get_user_model().objects.in_bulk(names, field_name="username")
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
