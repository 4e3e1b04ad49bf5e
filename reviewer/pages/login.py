"""The login page as a locked-out user sees it (django-axes' lockout, see reviewer.lockout)."""

from __future__ import annotations

from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out_page(request: HttpRequest, message: str) -> HttpResponse:
    """The login page saying why and for how long, with status 429."""
    # Unbound: validating the posted form would try the password once more.
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    context = {"form": form, "locked_out": message, "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=429)
