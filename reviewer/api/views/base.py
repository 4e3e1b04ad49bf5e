"""The base of every API view, the token endpoint, and the error response every endpoint
documents."""

from __future__ import annotations

from axes.exceptions import AxesBackendPermissionDenied
from django.contrib.auth.decorators import login_not_required
from drf_spectacular.utils import OpenApiResponse
from rest_framework import generics
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

ERROR = OpenApiResponse(description='{"error": {"code", "message", "fields"?}}')


class ApiView(generics.GenericAPIView):
    """Base of every endpoint: DRF authenticates (token or session) instead of the login
    middleware, which would redirect a token-only client to the login page."""

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))


class TokenView(ObtainAuthToken):
    """POST a username and password, get the API token for them."""

    @classmethod
    def as_view(cls, **initkwargs):
        return login_not_required(super().as_view(**initkwargs))

    def post(self, request: Request, *args, **kwargs) -> Response:
        """The token; 429 while django-axes has this username locked out. Axes flags DRF's
        request, which its middleware never sees, so the flag is read here."""
        try:
            return super().post(request, *args, **kwargs)
        except ValidationError:
            if getattr(request, "axes_locked_out", False):
                raise AxesBackendPermissionDenied("locked out") from None
            raise
