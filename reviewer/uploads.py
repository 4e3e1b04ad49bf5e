"""Uploaded files: a size cap enforced while the body streams, and a store under var/uploads/.

Django sets no limit on uploaded files, so without the cap one request could fill the disk.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler
from django.http import HttpRequest, HttpResponse

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")
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


class UnknownUploadError(LookupError):
    """No stored upload has this token (it expired, or it was never ours)."""


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


@dataclass(frozen=True)
class StoredUpload:
    token: str
    filename: str
    sha256: str
    size: int
    path: Path


def upload_store(*, file: UploadedFile) -> StoredUpload:
    """Copy an uploaded file into the upload folder, hashing it on the way."""
    return _store_chunks(chunks=file.chunks(), filename=Path(file.name or "upload").name)


def upload_store_path(*, path: Path) -> StoredUpload:
    """Store a file already on this machine (the demo run) as if it had been uploaded."""
    with path.open("rb") as source:
        return _store_chunks(chunks=iter(lambda: source.read(1 << 20), b""), filename=path.name)


def upload_get(*, token: str) -> StoredUpload:
    """The stored upload for ``token``; the token is checked so it can never name another path."""
    if not _TOKEN.match(token or ""):
        raise UnknownUploadError(token)
    folder = Path(settings.UPLOAD_DIR)
    try:
        meta = json.loads((folder / f"{token}.json").read_text("utf-8"))
    except FileNotFoundError:
        raise UnknownUploadError(token) from None
    return StoredUpload(
        token=token,
        filename=meta["filename"],
        sha256=meta["sha256"],
        size=meta["size"],
        path=folder / f"{token}.upload",
    )


def _store_chunks(*, chunks, filename: str) -> StoredUpload:
    folder = Path(settings.UPLOAD_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(16)
    digest = hashlib.sha256()
    size = 0
    path = folder / f"{token}.upload"
    with path.open("xb") as target:
        for chunk in chunks:
            digest.update(chunk)
            size += len(chunk)
            target.write(chunk)
    stored = StoredUpload(token, filename[:255], digest.hexdigest(), size, path)
    meta = {k: v for k, v in asdict(stored).items() if k != "path"}
    (folder / f"{token}.json").write_text(json.dumps(meta), "utf-8")
    return stored
