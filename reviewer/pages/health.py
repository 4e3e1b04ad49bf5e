"""The health check for load balancers and compose."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and compose health checks: answers without a database query."""
    return JsonResponse({"status": "ok"})
