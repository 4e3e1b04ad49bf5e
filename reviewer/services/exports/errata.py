"""The gold errata file's rows (final verdict gold_wrong) picked out of the export's own rows
as they stream past, so the errata file needs no second query; they wait in a temporary file,
so memory stays flat however many rows are gold-wrong. Plain Python, no Django."""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from functools import partial

from reviewer.services.exports.dataset_card import KEY_COLUMNS
from reviewer.services.exports.schema import Column
from reviewer.services.exports.written import KEY_SEPARATOR, WrittenRows, message_key

GOLD_WRONG = "gold_wrong"
_FINAL_IN_KEY = KEY_COLUMNS.index("final_verdict")
_LENGTH_BYTES = 4  # each kept row is written after its length


class ErrataSpool:
    """Keeps the gold-wrong rows of an export's rows as they pass through ``picking``; ``rows``
    gives them back, in order, in the form they came in (rows the database wrote, or records).

    A temporary file: call ``close`` when done.
    """

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._written: WrittenRows | None = None

    def picking(
        self, rows: Iterable[tuple] | WrittenRows, columns: Sequence[Column]
    ) -> Iterator[tuple] | WrittenRows:
        """The same rows, the gold-wrong ones kept on the way."""
        if isinstance(rows, WrittenRows):
            self._written = rows
            return rows.passing(partial(self._picked_messages, key=message_key(rows.format)))
        return self._picked_records(rows, [column.name for column in columns])

    def _picked_messages(self, messages: Iterable, key) -> Iterator:
        separator, gold_wrong = KEY_SEPARATOR.encode(), GOLD_WRONG.encode()
        for message in messages:
            if key(message).split(separator, _FINAL_IN_KEY + 1)[_FINAL_IN_KEY] == gold_wrong:
                self._keep(message)
            yield message

    def _picked_records(self, records: Iterable[tuple], names: list[str]) -> Iterator[tuple]:
        final = names.index("final_verdict")
        for record in records:
            if record[final] == GOLD_WRONG:
                self._keep(record)
            yield record

    def _keep(self, row) -> None:
        data = pickle.dumps(row)
        self._file.write(len(data).to_bytes(_LENGTH_BYTES, "little"))
        self._file.write(data)

    def rows(self) -> Iterator[tuple] | WrittenRows:
        """The rows kept so far, read back from the start."""
        self._file.seek(0)
        kept = self._kept()
        if self._written is not None:
            return WrittenRows(self._written.format, self._written.spreadsheet_safe, kept)
        return kept

    def _kept(self) -> Iterator:
        read = self._file.read
        while length := read(_LENGTH_BYTES):
            yield pickle.loads(read(int.from_bytes(length, "little")))  # our own file, above

    def close(self) -> None:
        self._file.close()
