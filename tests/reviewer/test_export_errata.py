"""The gold errata picked out of an export's rows as they pass (``exports.errata``), for the
records the portable path (SQLite) streams; tests/reviewer/test_exports.py holds the errata
files of rows PostgreSQL wrote to the bytes of an export of the gold-wrong rows alone."""

from __future__ import annotations

from contextlib import closing
from datetime import UTC, datetime

from reviewer.services.exports.errata import ErrataSpool
from reviewer.services.exports.schema import Column

COLUMNS = (Column("id", "str"), Column("final_verdict", "str"), Column("reviewed_at", "datetime"))


def test_the_gold_wrong_records_come_back_in_order_after_every_record_has_passed():
    # Given records, some gold-wrong, one holding a time and a line break
    at = datetime(2026, 11, 28, 12, 0, 0, 5, tzinfo=UTC)
    records = [
        ("a", "correct", None),
        ("b", "gold_wrong", at),
        ("c", None, None),
        ("d", "gold_wrong", None),
        ("e\nf", "gold_wrong", at),
    ]

    with closing(ErrataSpool()) as errata:
        # When they pass through the spool
        passed = list(errata.picking(iter(records), COLUMNS))

        # Then every record passed unchanged, and the gold-wrong ones come back as they were
        assert passed == records
        assert list(errata.rows()) == [records[1], records[3], records[4]]
