"""Export rows written as text by PostgreSQL, for files with the bytes MathJury's own writers
give (``formats``).

The export query (``records.export_query``) is wrapped so that ``COPY … TO STDOUT`` writes
the rows: as CSV for a CSV file, each value first made the text Python writes for it
(``true``/``false``, ISO times, floats as ``repr``, lists joined); as CSV of plain values for
Parquet; and as a JSON array of the row's values for JSONL. Each row carries the dataset
card's key (``dataset_card.KEY_COLUMNS``). ``written`` makes the file from the messages.
tests/reviewer/test_export_written.py holds the files to the bytes of the portable path.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from django.db.models import QuerySet

from reviewer.models import Item
from reviewer.services.exports import dataset_card, formats
from reviewer.services.exports.records import export_query
from reviewer.services.exports.written import KEY_SEPARATOR, WrittenRows, jsonl_layout

Value = tuple[str, tuple]  # SQL and its parameters


def postgresql_written(
    *, items: QuerySet[Item], schema: formats.DatasetSchema, format: str, spreadsheet_safe: bool
) -> WrittenRows:
    """The rows of ``items`` written by PostgreSQL for a ``format`` file, streamed by one COPY
    (``WrittenRows`` says what each message holds).

    Reads in the caller's transaction when there is one (the export job's snapshot).
    """
    spreadsheet_safe = spreadsheet_safe and format == "csv"
    query = export_query(items=items, schema=schema)
    pairs = list(zip(query.values, schema.columns, strict=True))
    key = _card_key(pairs, schema)
    if format in ("csv", "parquet"):
        if format == "csv":
            cells = [_csv_cell(value, column.kind, spreadsheet_safe) for value, column in pairs]
        else:
            cells = [_apply(_PARQUET_CELL[column.kind], value) for value, column in pairs]
        names = [f"c{n}" for n in range(len(cells))]
        select = [
            _as(key, "k"),
            *(_as(cell, name) for cell, name in zip(cells, names, strict=True)),
        ]
        # Every cell quoted when spreadsheet-safe, as csv.QUOTE_ALL does; never the key.
        options = f", FORCE_QUOTE ({', '.join(names)})" if spreadsheet_safe else ""
        sql, params = query.sql(select)
        return WrittenRows(
            format,
            spreadsheet_safe,
            _copied(f"COPY ({sql}) TO STDOUT (FORMAT csv{options})", params),
        )
    if format == "jsonl":
        # Texts as they are (binary COPY, no escapes: Python's orjson escapes them faster than
        # PostgreSQL's JSON), the other values as one JSON array; written.jsonl_layout.
        texts, others = jsonl_layout(schema.columns)
        array = _json_array(
            [_apply(_JSON_VALUE.get(pairs[n][1].kind, "{x}"), pairs[n][0]) for n in others]
        )
        sql, params = query.sql([key, array, *(pairs[n][0] for n in texts)])
        return WrittenRows(
            format,
            False,
            _copied(f"COPY ({sql}) TO STDOUT (FORMAT binary)", params, text_columns=len(texts) + 2),
        )
    raise ValueError(f"unknown format {format!r}; choose one of {', '.join(formats.FORMATS)}")


def _copied(sql: str, params: list, *, text_columns: int = 0) -> Iterator:
    """COPY's messages, one per row (bytes); in binary format, each row's ``text_columns``
    values (a tuple of str, NULL as None)."""
    with connection.cursor() as cursor:
        # JIT compiled the plan for longer than the query ran; floats are written as the
        # shortest text that reads back the same (the default since PostgreSQL 12), times in
        # ISO form in UTC (Django's session already is). Local to this transaction (the
        # export's snapshot).
        cursor.execute(
            "SELECT set_config('jit', 'off', true), set_config('extra_float_digits', '1', true),"
            " set_config('datestyle', 'ISO', true), set_config('timezone', 'UTC', true)"
        )
        with cursor.cursor.copy(sql, params) as copy:
            if text_columns:
                copy.set_types(["text"] * text_columns)
                yield from copy.rows()
            else:
                for data in copy:
                    yield bytes(data)


def _as(value: Value, name: str) -> Value:
    return f"{value[0]} AS {name}", value[1]


def _apply(template: str, value: Value) -> Value:
    """``template`` with each ``{x}`` replaced by the value's SQL (its parameters repeated)."""
    sql, params = value
    return template.replace("{x}", f"({sql})"), params * template.count("{x}")


def _call(function: str, arguments: list[Value]) -> Value:
    """``function(arguments…)``, nested when there are more than the 100 a call may take."""
    while len(arguments) > 100:
        arguments = [_call(function, arguments[n : n + 100]) for n in range(0, len(arguments), 100)]
    sql = f"{function}(" + ", ".join(sql for sql, _ in arguments) + ")"
    return sql, tuple(param for _, params in arguments for param in params)


def _json_array(values: list[Value]) -> Value:
    """One JSON array of the values, as text; past 100 values (what json_build_array takes)
    the arrays of each hundred are joined into one."""
    arrays = [
        _apply("{x}::text", _call("json_build_array", values[n : n + 100]))
        for n in range(0, len(values), 100)
    ]
    if len(arrays) == 1:
        return arrays[0]
    middle = [_apply("substr({x}, 2, length({x}) - 2)", array) for array in arrays[1:-1]]
    parts = [_apply("left({x}, -1)", arrays[0])]
    for array in middle:
        parts += [("', '", ()), array]
    parts += [("', '", ()), _apply("substr({x}, 2)", arrays[-1])]
    return _call("concat", parts)


# ---- each kind of value as the text Python writes ------------------------------------------

# Python's isoformat() of an aware UTC time: microseconds only when there are some.
_ISO_TIME = (
    "replace(to_char({x} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), '.000000', '')"
    " || '+00:00'"
)
# repr() of a float. Below 1e15 PostgreSQL's text has Python's digits: whole numbers lack
# ".0", and NaN and the infinities are spelt differently. From 1e15 on, PostgreSQL may write
# more digits than the fewest that read back the same (the whole integer, say), and Python
# writes 1e15 to 1e16 in full: the fewest digits are found by rounding the text's value.
_FLOAT_REPR = (
    "CASE WHEN {x} = 'NaN'::float8 THEN 'nan' "
    "WHEN {x} = 'Infinity'::float8 THEN 'inf' "
    "WHEN {x} = '-Infinity'::float8 THEN '-inf' "
    "WHEN abs({x}) >= 1e15 THEN (CASE WHEN {x} < 0 THEN '-' ELSE '' END) || ("
    # the fewest significant digits d (and the exponent e) that read back as the same float
    "SELECT CASE WHEN e > 15 THEN left(d, 1) || rtrim('.' || substr(d, 2), '.') || 'e+' || e "
    "WHEN length(d) <= 16 THEN rpad(d, 16, '0') || '.0' "
    "ELSE left(d, 16) || '.' || substr(d, 17) END "
    "FROM (SELECT rtrim(replace(c::text, '.', ''), '0') AS d, "
    "length(trunc(c)::text) - 1 AS e FROM ("
    "SELECT k, round(n, k - length(trunc(n)::text)) AS c "
    "FROM (SELECT abs({x})::text::numeric AS n) AS exact, generate_series(1, 17) AS k"
    ") AS rounded WHERE CASE WHEN c <= 1.7976931348623157e308 THEN c::float8 = abs({x}) END "
    "ORDER BY k LIMIT 1) AS digits) "
    "WHEN {x}::text ~ '^-?[0-9]+$' THEN {x}::text || '.0' "
    "ELSE {x}::text END"
)
_CSV_TEXT = {
    "str": "{x}",
    "int": "{x}::text",
    "float": _FLOAT_REPR,
    "bool": "CASE WHEN {x} THEN 'true' WHEN NOT {x} THEN 'false' END",
    "datetime": _ISO_TIME,
    "list": "array_to_string({x}, '; ')",
}
# formats.neutralise: a ' before a cell a spreadsheet would read as a formula, unless the
# cell is a plain number (formats.PLAIN_NUMBER, with [.] for \. so the literal holds no
# backslash). The first character's code is tested first: a regular expression on every
# cell cost more than the rest of the query.
_TRIGGERS = ", ".join(str(ord(c)) for c in formats.FORMULA_TRIGGERS)
_PLAIN_NUMBER = "'^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$'"
_NEUTRALISED = (
    f"CASE WHEN ascii({{x}}) IN ({_TRIGGERS}) AND {{x}} !~ {_PLAIN_NUMBER} "
    "THEN '''' || {x} ELSE {x} END"
)
# A list's text is a subquery: read once into v, not once per {x}. (Constants of this module.)
_NEUTRALISED_ONCE = (
    "(SELECT " + _NEUTRALISED.replace("{x}", "v") + " FROM (SELECT {x} AS v) AS t)"  # noqa: S608
)
# For Parquet (written.PARQUET_CSV_TYPES): PostgreSQL's own text (times as ISO text in UTC,
# which Arrow reads: extract(epoch …) computed in numeric cost more), lists as JSON arrays.
_PARQUET_CELL = {
    "str": "{x}",
    "int": "{x}",
    "float": "{x}",
    "bool": "{x}",
    "datetime": "{x}",
    "list": "array_to_json({x})",
}
# For JSONL: times as Python writes them, floats as repr() (so orjson reads 1.0 and -0.0 as
# floats) and no NaN or infinity (strict JSON: null, as formats writes them).
_JSON_VALUE = {
    "datetime": _ISO_TIME,
    "float": "CASE WHEN {x} NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8) "
    f"THEN ({_FLOAT_REPR})::json END",
}


def _csv_cell(value: Value, kind: str, spreadsheet_safe: bool) -> Value:
    """The cell as text: empty cells NULL (never quoted) in raw CSV, ``''`` when every cell
    is quoted; text neutralised when spreadsheet-safe."""
    text = _apply(_CSV_TEXT[kind], value)
    if not spreadsheet_safe:
        # COPY quotes an empty string (to tell it from NULL); csv.writer writes it bare.
        return _apply("NULLIF({x}, '')", text) if kind in ("str", "list") else text
    if kind == "list":
        text = _apply(_NEUTRALISED_ONCE, text)
    elif kind == "str":
        text = _apply(_NEUTRALISED, text)
    return _apply("coalesce({x}, '')", text)


def _card_key(pairs: list[tuple[Value, formats.Column]], schema: formats.DatasetSchema) -> Value:
    """The values the dataset card counts the row by (``dataset_card.KEY_COLUMNS``, then the
    evaluators' verdicts), then the newest review's time if a person decided the row, each
    after a KEY_SEPARATOR; NULL is written as an empty string, which the card reads alike."""
    where = {column.name: value for value, column in pairs}
    names = [
        *dataset_card.KEY_COLUMNS,
        *(formats.evaluator_column(name, "verdict") for name in schema.evaluators),
    ]
    source, at = where["final_source"], where["reviewed_at"]
    when = (
        f"CASE WHEN {source[0]} = 'human' THEN "
        f"to_char({at[0]} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') END",
        (*source[1], *at[1]),
    )
    separator = (f"chr({ord(KEY_SEPARATOR)})", ())
    parts: list[Value] = []
    for value in [*(where[name] for name in names), when]:
        parts += [value, separator]
    return _call("concat", parts[:-1])
