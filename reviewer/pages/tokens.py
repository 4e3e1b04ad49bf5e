"""The API tokens page: a person makes named tokens for scripts, sees when each was last
used, and revokes them. The key is shown once, on the page that made it."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from reviewer import services
from reviewer.models import ApiToken


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label="Name",
        help_text="What the token is for, e.g. “nightly eval pipeline”.",
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if "\x00" in name:
            raise forms.ValidationError("A name cannot hold a NUL character.")
        return name


@require_http_methods(["GET", "POST"])
def api_tokens(request: HttpRequest) -> HttpResponse:
    """The user's tokens; a POST with ``name`` makes one and shows its key once."""
    form = TokenForm()
    new_key = ""
    status = 200
    if request.method == "POST":
        form = TokenForm(request.POST)
        if form.is_valid():
            try:
                token, new_key = services.api_token_create(
                    user=request.user, name=form.cleaned_data["name"]
                )
            except services.TokenNameTakenError as error:
                form.add_error("name", str(error))
                status = 400
            else:
                messages.success(request, f"Token “{token.name}” made. Copy its key now.")
                form = TokenForm()
        else:
            status = 400
    context = {
        "form": form,
        "new_key": new_key,
        "tokens": ApiToken.objects.filter(user=request.user, revoked_at=None),
        "revoked": ApiToken.objects.filter(user=request.user, revoked_at__isnull=False)[:20],
    }
    return render(request, "reviewer/api_tokens.html", context, status=status)


@require_POST
def api_token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    token = ApiToken.objects.filter(pk=token_id, user=request.user).first()
    if token is None:
        raise Http404("No such token of yours.")
    services.api_token_revoke(token=token)
    messages.success(request, f"Token “{token.name}” revoked: the API refuses it from now on.")
    return redirect("api_tokens")
