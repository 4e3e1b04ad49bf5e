"""Personal API tokens: several named tokens per user, each revocable, stored as a hash."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ApiToken(models.Model):
    """A named token a person made on the API tokens page. Only the SHA-256 of the key is
    kept; the key is shown once, when it is made."""

    # Every key starts with this, so the API tells a personal token from the older
    # one-per-user token (POST /api/token/) without a query.
    KEY_PREFIX = "mj_"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    key_hash = models.CharField(max_length=64, unique=True)
    key_start = models.CharField(max_length=12)  # the first characters, to tell keys apart
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=Q(revoked_at__isnull=True),
                name="api_token_name_unique_while_active",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_start}…)"
