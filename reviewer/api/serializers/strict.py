"""Request bodies name only fields the endpoint knows: a misspelt field (``version`` for
``expected_version``) is a 400 naming it, never silently dropped."""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers


class RejectUnknownFields:
    """A serializer mixin (put it first) that refuses body fields the serializer lacks."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping) or hasattr(data, "keys"):
            known = [name for name, field in self.fields.items() if not field.read_only]
            unknown = sorted(str(name) for name in data.keys() if name not in self.fields)
            if unknown:
                accepted = ", ".join(known)
                raise serializers.ValidationError(
                    {
                        name: [f"Unknown field. This endpoint accepts: {accepted}."]
                        for name in unknown
                    }
                )
        return super().to_internal_value(data)
