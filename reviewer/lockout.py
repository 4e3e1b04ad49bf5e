"""django-axes' lockout response (AXES_LOCKOUT_CALLABLE): an API error for the API, the login
page for people. It sits above both, so pages and the API need not know each other."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from reviewer.api.errors import error_body
from reviewer.pages import locked_out_page


def login_locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """Status 429 with a message saying why and for how long."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = (
        f"Too many failed logins: this account is locked on this computer for {minutes} "
        "minutes. Try again later, or ask an administrator to unlock it."
    )
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("locked_out", message), status=429)
    return locked_out_page(request, message)
