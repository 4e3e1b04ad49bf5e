"""Export jobs: what to export, their progress and download links."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from reviewer.api.serializers.items import ItemFilterSerializer
from reviewer.api.serializers.strict import RejectUnknownFields
from reviewer.models import (
    Export,
)
from reviewer.services import exports


class ExportStartSerializer(RejectUnknownFields, ItemFilterSerializer):
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
