"""Why an export cannot be streamed or downloaded; pages and the API turn these into
responses."""

from __future__ import annotations

from reviewer.models import Export


class ExportTooLargeToStreamError(Exception):
    """More rows than stream in one response; start an export job instead."""

    def __init__(self, *, rows: int, limit: int):
        self.rows, self.limit = rows, limit
        super().__init__(
            f"{rows:,} rows match, more than the {limit:,} that download directly; "
            "start an export job, which runs in the background and reports its progress"
        )


class ExportNotReadyError(Exception):
    """The export's files are not written yet (or writing them failed)."""

    def __init__(self, *, export: Export):
        self.export = export
        if export.status == Export.Status.FAILED:
            message = f"export {export.pk} failed: {export.error_message}"
        else:
            message = (
                f"export {export.pk} is {export.status} ({export.rows_done:,} of "
                f"{export.rows_total:,} rows written); poll it until its status is done"
            )
        super().__init__(message)


class ExportPartMissingError(LookupError):
    """The finished export has no such file (no row is marked gold-wrong, so no errata)."""
