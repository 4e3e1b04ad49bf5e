"""What kind of file an upload is, from its bytes: an .xlsx workbook, a compressed file or other
container (named, never read as text), or text that is or is not UTF-8 (another encoding is
offered by name, never picked silently)."""

from __future__ import annotations

import codecs
import zipfile
from pathlib import Path

from grading.reader.errors import IngestError
from grading.reader.records import ENCODING_LABELS


class EncodingError(IngestError):
    """The file is not UTF-8; ``suggested`` is the encoding that reads every byte of it."""

    def __init__(self, problems: list[str], suggested: str):
        self.suggested = suggested
        super().__init__(problems)


def check_utf8(path: Path) -> None:
    """Raise EncodingError naming the first line and byte that are not UTF-8, with the
    single-byte encoding that would read the whole file; the caller offers it, never picks it."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    with path.open("rb") as raw:
        while chunk := raw.read(1 << 20):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                where = line + chunk.count(b"\n", 0, exc.start)
                suggested = "cp1252" if _reads_as(path, "cp1252") else "latin-1"
                raise EncodingError(
                    [
                        f"line {where}: byte 0x{chunk[exc.start]:02X} is not valid UTF-8. "
                        f"The file looks like {ENCODING_LABELS[suggested]} (what Excel on "
                        "Windows saves): read it as that, or save it as UTF-8"
                    ],
                    suggested,
                ) from None
            line += chunk.count(b"\n")


def _reads_as(path: Path, encoding: str) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)()
    with path.open("rb") as raw:
        try:
            while chunk := raw.read(1 << 20):
                decoder.decode(chunk)
        except UnicodeDecodeError:
            return False
    return True


# Files that are not text, recognised by their first bytes: named, never read as text.
_CONTAINERS = (
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"(\xb5/\xfd", "a zstd-compressed file"),
    (b"7z\xbc\xaf'\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"\xd0\xcf\x11\xe0", "an Excel 97-2003 workbook (.xls)"),
    (b"%PDF", "a PDF document"),
)


def container_kind(path: Path) -> str | None:
    """ "xlsx" for an Excel workbook, None for text; IngestError for a compressed file or
    other container, named by what it is."""
    with path.open("rb") as raw:
        head = raw.read(8)
    for magic, name in _CONTAINERS:
        if head.startswith(magic):
            raise IngestError(
                [f"the file is {name}, not CSV, JSONL or .xlsx; upload the file inside it"]
            )
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile:
            names = set()
        if "xl/workbook.xml" in names:
            return "xlsx"
        raise IngestError(
            ["the file is a zip archive, not CSV, JSONL or .xlsx; upload the file inside it"]
        )
    return None
