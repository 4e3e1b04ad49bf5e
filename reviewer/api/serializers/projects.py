"""Projects and their members."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework import serializers

from reviewer.api.serializers.strict import RejectUnknownFields
from reviewer.models import (
    Membership,
    Project,
)


class ProjectSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="your role in the project")

    class Meta:
        model = Project
        fields = ["id", "name", "role", "created_at"]
        read_only_fields = ["id", "created_at"]

    def get_role(self, project) -> str | None:
        return getattr(project, "role", None)


class UsernameField(serializers.SlugRelatedField):
    """An active user by username; a name PostgreSQL cannot even look up (a NUL byte) is
    refused like any unknown one instead of failing the request."""

    def to_internal_value(self, data):
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data)
        return super().to_internal_value(data)


class MembershipSerializer(RejectUnknownFields, serializers.Serializer):
    """A member: input ``username`` and ``role``; output the same."""

    username = UsernameField(
        source="user",
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class ProjectCreateSerializer(RejectUnknownFields, serializers.Serializer):
    name = serializers.CharField(max_length=200)
