"""Uploaded files kept under UPLOAD_DIR: each stored once with its SHA-256, found again by a
random token that can never name another path, and previewed once per delimiter (the preview
is kept beside the file, so confirming the mapping does not read the file again)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from grading.reader import FilePreview, Limits, preview_file

_TOKEN = re.compile(r"^[A-Za-z0-9_-]{22}$")
logger = logging.getLogger(__name__)


def upload_limits() -> Limits:
    """The reader's limits from the settings: columns, header and field sizes."""
    return Limits(
        columns=settings.MATHJURY_UPLOAD_MAX_COLUMNS,
        header_chars=settings.MATHJURY_UPLOAD_MAX_HEADER_BYTES,
        field_bytes=settings.MATHJURY_MAX_FIELD_BYTES,
    )


class UnknownUploadError(LookupError):
    """No stored upload has this token (it expired, or it was never ours)."""


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


def upload_preview(
    *, stored: StoredUpload, delimiter: str | None, encoding: str | None = None
) -> FilePreview:
    """The file's preview with this delimiter (None: detected) and encoding (None: UTF-8 or
    its byte-order mark): read from the file the first time, from the kept copy after that.
    Raises IngestError (EncodingError when another encoding would read it)."""
    meta_path = stored.path.with_suffix(".json")
    meta = json.loads(meta_path.read_text("utf-8"))
    key = f"{delimiter or 'detect'}/{encoding or 'detect'}"
    kept = meta.get("previews", {}).get(key)
    if kept is not None:
        return FilePreview(
            **{
                **kept,
                "columns": tuple(kept["columns"]),
                "rows": tuple(kept["rows"]),
                "needs_confirmation": tuple(kept["needs_confirmation"]),
            }
        )
    preview = preview_file(
        stored.path, delimiter=delimiter, encoding=encoding, limits=upload_limits()
    )
    kept = asdict(preview)
    meta.setdefault("previews", {})[key] = kept
    if preview.delimiter:  # the mapping form sends the detected delimiter back
        meta["previews"][f"{preview.delimiter}/{encoding or 'detect'}"] = kept
    partial_path = meta_path.with_name(meta_path.name + ".part")
    partial_path.write_text(json.dumps(meta), "utf-8")
    os.replace(partial_path, meta_path)
    return preview


def upload_discard(*, stored: StoredUpload) -> None:
    """Delete a stored upload that will not become a run (refused, or a duplicate)."""
    stored.path.unlink(missing_ok=True)
    stored.path.with_suffix(".json").unlink(missing_ok=True)


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


def uploads_purge(*, older_than_hours: int | None = None) -> int:
    """Delete stored uploads older than ``older_than_hours`` (default
    MATHJURY_UPLOAD_KEEP_HOURS): a file that became a run is already in the database, and one
    that never did was abandoned at the mapping step. Returns how many were deleted."""
    hours = settings.MATHJURY_UPLOAD_KEEP_HOURS if older_than_hours is None else older_than_hours
    cutoff = time.time() - hours * 3600
    deleted = 0
    for path in Path(settings.UPLOAD_DIR).glob("*.upload"):
        try:
            if path.stat().st_mtime >= cutoff:
                continue
        except FileNotFoundError:
            continue  # deleted by a request meanwhile
        path.unlink(missing_ok=True)
        path.with_suffix(".json").unlink(missing_ok=True)
        deleted += 1
    for partial in Path(settings.UPLOAD_DIR).glob("*.json.part"):
        if partial.stat().st_mtime < cutoff:
            partial.unlink(missing_ok=True)
    logger.info("purge_uploads: %s stored uploads older than %s h deleted", deleted, hours)
    return deleted
