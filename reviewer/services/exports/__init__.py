"""Exports of adjudicated runs: which rows and columns (``rows``), the file formats
(``formats``, no Django) and the dataset card (``dataset_card``, no Django), and the jobs that
write them in a worker or stream a small one at once (``jobs``)."""

from reviewer.services.exports.errors import (
    ExportNotReadyError,
    ExportPartMissingError,
    ExportTooLargeToStreamError,
)
from reviewer.services.exports.formats import CONTENT_TYPES, FORMATS
from reviewer.services.exports.jobs import StreamedExport, export_start, export_stream, export_write
from reviewer.services.exports.rows import (
    PARTS,
    export_file_name,
    export_filters_data,
    export_filters_from,
    export_filters_text,
    export_items,
    export_list,
    export_path,
    export_records,
    export_rows,
    export_schema,
)

__all__ = [
    "CONTENT_TYPES",
    "FORMATS",
    "PARTS",
    "ExportNotReadyError",
    "ExportPartMissingError",
    "ExportTooLargeToStreamError",
    "StreamedExport",
    "export_file_name",
    "export_filters_data",
    "export_filters_from",
    "export_filters_text",
    "export_items",
    "export_list",
    "export_path",
    "export_records",
    "export_rows",
    "export_schema",
    "export_start",
    "export_stream",
    "export_write",
]
