"""Every API error as ``{"error": {"code", "message", "fields"?}}``, with a message that says
what to change."""

from __future__ import annotations

from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from grading.reader import EncodingError, IngestError
from reviewer.services import (
    LastOwnerError,
    ProjectNameTakenError,
    UnknownEvaluatorsError,
    UnknownUploadError,
)
from reviewer.services.exports import (
    ExportNotReadyError,
    ExportPartMissingError,
    ExportTooLargeToStreamError,
)
from reviewer.stats import UnknownBreakdownError

# DRF's own messages, made to say what to do next.
_HINTS = {
    "not_authenticated": "Send the header 'Authorization: Token <your token>' "
    "(POST /api/token/ with your username and password gives one), or log in.",
    "authentication_failed": "Check the token, or get a new one from POST /api/token/.",
    "not_found": "Check the id in the URL.",
    "method_not_allowed": "See /api/docs/ for the methods each endpoint accepts.",
    "unsupported_media_type": "Send JSON (application/json), or multipart/form-data "
    "where a file is uploaded.",
}


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def api_exception_handler(exc, context) -> Response | None:
    """DRF's exception handler with our domain errors added and one body shape for all."""
    domain = _domain_error(exc)
    if domain is not None:
        return domain
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = exception_handler(exc, context)
    if response is None:
        return None  # a bug: Django's 500 page, logged with its traceback
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = error_body(
            "invalid", "The request is not valid: " + _describe(fields), fields=fields
        )
        return response
    code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
    detail = response.data.get("detail", "") if isinstance(response.data, dict) else ""
    message = " ".join(part for part in (str(detail), _HINTS.get(code, "")) if part)
    response.data = error_body(code, message)
    return response


def _domain_error(exc) -> Response | None:
    if isinstance(exc, AxesBackendPermissionDenied):
        # Raised by the login backend while this username is locked out (django-axes).
        message = (
            f"Too many failed logins: this account is locked for "
            f"{int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)} minutes."
        )
        return Response(error_body("locked_out", message), status=settings.AXES_HTTP_RESPONSE_CODE)
    if isinstance(exc, ProjectNameTakenError):
        return Response(
            error_body("name_taken", str(exc).capitalize() + "."),
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, LastOwnerError):
        return Response(
            error_body("last_owner", str(exc).capitalize() + "."),
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, IngestError):
        extra = {}
        if isinstance(exc, EncodingError):  # offered, never applied unasked
            extra["suggested_encoding"] = exc.suggested
        body = error_body(
            "invalid_file",
            "The rows cannot be imported: " + "; ".join(exc.problems[:10]),
            problems=exc.problems,
            **extra,
        )
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, UnknownEvaluatorsError):
        body = error_body("invalid", str(exc), fields={"evaluators": [str(exc)]})
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, UnknownBreakdownError):
        body = error_body("invalid", str(exc), fields={"breakdown": [str(exc)]})
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, UnknownUploadError):
        return Response(
            error_body("invalid", "That upload has expired; send the file again."),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ExportTooLargeToStreamError):
        message = f"{exc}: POST /api/runs/<id>/exports/ and poll it."
        return Response(
            error_body("too_large_to_stream", message, rows=exc.rows, limit=exc.limit),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, ExportPartMissingError):
        return Response(error_body("not_found", str(exc)), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, ExportNotReadyError):
        return Response(
            error_body("not_ready", str(exc), status=exc.export.status),
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, RequestDataTooBig):
        return Response(
            error_body(
                "too_large",
                "The request body is too large for JSON rows; upload the rows as a file "
                "(multipart/form-data, field 'file') instead.",
            ),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    return None


def _describe(fields, prefix: str = "") -> str:
    """``name: message; other.nested: message`` from DRF's nested error details."""
    parts = []
    items = fields.items() if isinstance(fields, dict) else enumerate(fields)
    for key, value in items:
        name = f"{prefix}{key}" if prefix or not isinstance(key, int) else f"[{key}]"
        if isinstance(value, dict):
            parts.append(_describe(value, f"{name}."))
        elif isinstance(value, list) and value and isinstance(value[0], (dict, list)):
            parts.append(_describe(dict(enumerate(value)), f"{name}."))
        elif isinstance(value, list):
            parts.append(f"{name}: {' '.join(str(v) for v in value)}")
        else:
            parts.append(f"{name}: {value}")
    return "; ".join(part for part in parts if part)


def not_found(request: HttpRequest, path: str = "") -> JsonResponse:
    """Any URL under /api/ that is not an endpoint: JSON like the rest of the API."""
    return JsonResponse(
        error_body("not_found", f"There is no endpoint at {request.path}. See /api/docs/."),
        status=404,
    )
