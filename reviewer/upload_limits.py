"""Bounds on a multipart body, enforced before it costs anything: who sent it (an anonymous
body is refused before a byte of it is read), how big it is (checked while it streams), and
how many files it holds.

Django sets no limit on uploaded files, so without the cap one request could fill the disk.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse, JsonResponse

# Multipart framing and form fields around the file; generous so honest uploads at the
# limit are not refused on the Content-Length check.
_MULTIPART_OVERHEAD = 64 * 1024
API_PREFIX = "/api/"


def upload_limit(request: HttpRequest | None) -> int:
    """The largest file this request may send: the API's limit, or the web page's."""
    if request is not None and request.path.startswith(API_PREFIX):
        return settings.MATHJURY_API_UPLOAD_MAX_BYTES
    return settings.MATHJURY_UPLOAD_MAX_BYTES


class UploadTooLargeError(Exception):
    """The request body passed the upload limit."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(
            f"The file is larger than the upload limit of {limit / 1_048_576:,.0f} MiB "
            f"({limit:,} bytes)."
        )


class SizeCappedUploadHandler(FileUploadHandler):
    """Refuse a body over the limit from its Content-Length, or as soon as it streams past it.

    Listed first in FILE_UPLOAD_HANDLERS so no byte past the limit reaches the temporary file.
    """

    def __init__(self, request: HttpRequest | None = None):
        super().__init__(request)
        self.limit = upload_limit(request)
        self.received = 0

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None):
        if content_length and content_length > self.limit + _MULTIPART_OVERHEAD:
            raise UploadTooLargeError(self.limit)

    def new_file(self, *args, **kwargs):
        self.received = 0
        super().new_file(*args, **kwargs)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > self.limit:
            raise UploadTooLargeError(self.limit)
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None


class UploadSizeLimitMiddleware:
    """Answer a multipart body that must be refused before any view (and before CSRF, which
        would otherwise parse it): a login redirect (page) or 401 (API) when nobody is logged in to
    a view that needs it, 413 when too large, 400 with
        too many files or fields. API requests get the API's JSON error body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.method != "POST" or not request.content_type.startswith("multipart/"):
            return None
        if _needs_login(view_func) and not _authenticated(request):
            # Nothing of the body is read, so nothing of it is spooled to disk.
            if not request.path.startswith(API_PREFIX):
                return redirect_to_login(request.get_full_path())
            return _error(request, 401, "not_authenticated", "Log in (or send an API token) first.")
        try:
            request.FILES  # noqa: B018 -- parsing is the point
        except UploadTooLargeError as exc:
            _close_partial_files(request)
            return _error(request, 413, "too_large", str(exc))
        except (TooManyFilesSent, TooManyFieldsSent, RequestDataTooBig) as exc:
            _close_partial_files(request)
            message = (
                f"Too many files in one request (at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES})."
                if isinstance(exc, TooManyFilesSent)
                else f"The request is not a valid upload: {exc}."
            )
            return _error(request, 400, "invalid", message)
        return None


def _needs_login(view_func) -> bool:
    """Whether the view refuses anonymous users anyway (login and token views do not)."""
    view_class = getattr(view_func, "cls", None)
    if view_class is not None:  # a DRF view: its permission classes decide
        from rest_framework.permissions import AllowAny

        permissions = tuple(getattr(view_class, "permission_classes", ()))
        return bool(permissions) and AllowAny not in permissions
    return getattr(view_func, "login_required", True)


def _authenticated(request: HttpRequest) -> bool:
    """A logged-in session, or (API) a valid token; checked without reading the body."""
    if request.user.is_authenticated:
        return True
    header = request.META.get("HTTP_AUTHORIZATION", "")
    if not request.path.startswith(API_PREFIX) or not header.startswith("Token "):
        return False
    from rest_framework.authentication import TokenAuthentication
    from rest_framework.exceptions import AuthenticationFailed

    try:
        TokenAuthentication().authenticate_credentials(header.removeprefix("Token ").strip())
    except AuthenticationFailed:
        return False
    return True


def _close_partial_files(request: HttpRequest) -> None:
    # Closing a temporary upload file deletes it: nothing of the body stays on disk.
    for handler in request.upload_handlers:
        partial_file = getattr(handler, "file", None)
        if partial_file is not None:
            partial_file.close()


def _error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse:
    if request.path.startswith(API_PREFIX):
        response = JsonResponse({"error": {"code": code, "message": message}}, status=status)
        if status == 401:
            response["WWW-Authenticate"] = 'Token realm="api"'
        return response
    status = 403 if status == 401 else status
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")
