"""The size cap on uploaded files, enforced while the request body streams.

Django sets no limit on uploaded files, so without the cap one request could fill the disk.
"""

from __future__ import annotations

from django.conf import settings
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse

# Multipart framing and form fields around the file; generous so honest uploads at the
# limit are not refused on the Content-Length check.
_MULTIPART_OVERHEAD = 64 * 1024


class UploadTooLargeError(Exception):
    """The request body passed MATHJURY_UPLOAD_MAX_BYTES."""

    def __init__(self, limit: int):
        self.limit = limit
        super().__init__(
            f"The file is larger than the upload limit of {limit / 1_000_000:,.0f} MB "
            f"({limit:,} bytes)."
        )


class SizeCappedUploadHandler(FileUploadHandler):
    """Refuse a body over the limit from its Content-Length, or as soon as it streams past it.

    Listed first in FILE_UPLOAD_HANDLERS so no byte past the limit reaches the temporary file.
    """

    def __init__(self, request: HttpRequest | None = None):
        super().__init__(request)
        self.limit = settings.MATHJURY_UPLOAD_MAX_BYTES
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
    """Turn an oversized multipart body into a 413 with a message, before any view runs.

    The body is parsed here, ahead of the CSRF middleware that would otherwise parse it and
    let the error surface as a 500.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(self, request: HttpRequest, view_func, view_args, view_kwargs):
        if request.method != "POST" or not request.content_type.startswith("multipart/"):
            return None
        try:
            request.FILES  # noqa: B018 -- parsing is the point
        except UploadTooLargeError as exc:
            # Closing a temporary upload file deletes it: nothing of the body stays on disk.
            for handler in request.upload_handlers:
                partial_file = getattr(handler, "file", None)
                if partial_file is not None:
                    partial_file.close()
            return HttpResponse(str(exc), status=413, content_type="text/plain; charset=utf-8")
        return None
