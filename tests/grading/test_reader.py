"""Reading uploaded files: what a user sees for good files and for every kind of bad one."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from grading.reader import (
    EncodingError,
    IngestError,
    Limits,
    guess_mapping,
    preview_file,
    read_rows,
)

MAPPING = {"gold": "gold", "output": "output"}
MiB = 1024 * 1024


def write(tmp_path: Path, content: bytes, name: str = "upload.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def rows_of(path: Path, mapping=MAPPING, delimiter=None, max_field_bytes=MiB):
    return list(
        read_rows(path, mapping=mapping, delimiter=delimiter, max_field_bytes=max_field_bytes)
    )


def problems_of(path: Path, **kwargs) -> list[str]:
    with pytest.raises(IngestError) as caught:
        rows_of(path, **kwargs)
    return caught.value.problems


# Good files ------------------------------------------------------------------------------


def test_sample_file_reads_every_row_with_its_source_line():
    # given the 800-row sample run
    path = Path(__file__).resolve().parents[3] / "shared" / "samples" / "qwen25_math_cot_100x8.csv"
    preview = preview_file(path)
    # when its rows are read with the guessed mapping
    rows = rows_of(path, mapping=preview.guessed_mapping)
    # then all rows arrive, numbered, with the line each starts on and the unmapped column kept
    assert len(rows) == 800
    assert [r.row_number for r in rows[:3]] == [1, 2, 3]
    assert rows[0].source_line == 2
    assert rows[1].source_line > rows[0].source_line + 1  # outputs span several lines
    assert rows[0].fields["gold"] == "420"
    assert rows[0].extra == {"level": "Level 3"}


def test_utf8_bom_is_not_part_of_the_first_column_name(tmp_path):  # C3
    path = write(tmp_path, codecs.BOM_UTF8 + b"problem,gold,output\nq,1,\\boxed{1}\n")
    preview = preview_file(path)
    assert preview.columns == ("problem", "gold", "output")
    assert preview.encoding == "UTF-8 with BOM"
    assert preview.guessed_mapping["problem"] == "problem"


def test_utf16_tab_separated_excel_export_is_accepted(tmp_path):  # C4
    text = "gold\toutput\tproblem\n½\tthe answer is ½\tWhat is one half?\n"
    path = write(tmp_path, text.encode("utf-16"), "excel.txt")
    preview = preview_file(path)
    assert (preview.encoding, preview.delimiter) == ("UTF-16", "\t")
    [row] = rows_of(path)
    assert row.fields["output"] == "the answer is ½"


def test_latin1_file_is_refused_naming_the_line_and_byte(tmp_path):  # C5
    content = "gold,output\n1,one\n2,deux\n3,très bien\n".encode("latin-1")
    path = write(tmp_path, content)
    problems = problems_of(path)
    assert len(problems) == 1
    assert problems[0].startswith("line 4: byte 0xE8")
    assert "UTF-8" in problems[0]


def test_quoted_newlines_and_bare_carriage_returns_are_kept_byte_for_byte(tmp_path):  # C6
    output = 'first line\r\nsecond line\rthird "quoted" line\nlast'
    content = b"gold,output\n" + b'7,"' + output.replace('"', '""').encode() + b'"\n8,plain\n'
    path = write(tmp_path, content)
    first, second = rows_of(path)
    assert first.fields["output"] == output
    assert (first.source_line, second.source_line) == (2, 6)


def test_semicolon_file_with_decimal_commas_is_sniffed(tmp_path):  # C11
    path = write(tmp_path, b"gold;output\n0,5;the answer is 0,5\n1,25;about 1,25\n")
    preview = preview_file(path)
    assert preview.delimiter == ";"
    assert preview.rows[0] == {"gold": "0,5", "output": "the answer is 0,5"}
    assert [r.fields["gold"] for r in rows_of(path)] == ["0,5", "1,25"]


def test_delimiter_override_replaces_the_guess(tmp_path):  # C11
    path = write(tmp_path, b"gold|output,notes\n1|x,y\n")
    assert preview_file(path).delimiter == ","
    preview = preview_file(path, delimiter="|")
    assert preview.columns == ("gold", "output,notes")


def test_unknown_delimiter_override_is_refused(tmp_path):
    path = write(tmp_path, b"gold,output\n1,2\n")
    with pytest.raises(IngestError, match="not one of"):
        preview_file(path, delimiter=":")


def test_jsonl_rows_read_with_numbers_as_text(tmp_path):
    path = write(
        tmp_path,
        b'{"gold": 42, "response": "so \\\\boxed{42}", "level": 3}\n\n'
        b'{"gold": "0.5", "response": "half", "level": null}\n',
        "run.jsonl",
    )
    preview = preview_file(path)
    assert preview.format == "jsonl"
    assert preview.guessed_mapping == {"gold": "gold", "output": "response"}
    first, second = rows_of(path, mapping=preview.guessed_mapping)
    assert first.fields["gold"] == "42" and first.extra == {"level": "3"}
    assert (second.source_line, second.extra) == (3, {"level": ""})


# Column mapping ---------------------------------------------------------------------------


def test_answer_column_beside_gold_is_guessed_as_output_and_needs_confirmation():
    mapping, confirm = guess_mapping(("answer", "gold"))
    assert mapping == {"gold": "gold", "output": "answer"}
    assert confirm == ("output",)


def test_answer_column_beside_a_response_is_guessed_as_gold_and_needs_confirmation():
    mapping, confirm = guess_mapping(("question", "answer", "response"))
    assert mapping == {"gold": "answer", "output": "response", "problem": "question"}
    assert confirm == ("gold",)


def test_common_names_are_guessed_without_confirmation():
    mapping, confirm = guess_mapping(("ID", "Prediction", "GT", "Sample Index", "finish_reason"))
    assert mapping == {
        "gold": "GT",
        "output": "Prediction",
        "id": "ID",
        "sample_index": "Sample Index",
        "finish_reason": "finish_reason",
    }
    assert confirm == ()


# Bad files --------------------------------------------------------------------------------


def test_field_over_the_size_limit_is_refused_with_its_line_and_column(tmp_path):  # C7
    big = "x" * 200_000
    path = write(tmp_path, f"gold,output\n1,short\n2,{big}\n".encode())
    problems = problems_of(path, max_field_bytes=131_072)
    assert problems == [
        "line 3, column 'output': field is 200,000 bytes, more than the limit of 131,072"
    ]


def test_field_under_a_raised_limit_is_kept_whole(tmp_path):  # C7
    big = "é" * 150_000  # 300,000 bytes: over csv's default 131,072-character limit
    path = write(tmp_path, f"gold,output\n1,{big}\n".encode())
    [row] = rows_of(path, max_field_bytes=MiB)
    assert row.fields["output"] == big


def test_duplicate_columns_are_listed(tmp_path):  # C8
    path = write(tmp_path, b"gold,output,gold\n1,2,3\n")
    with pytest.raises(IngestError) as caught:
        preview_file(path)
    assert caught.value.problems == ["line 1: column 'gold' appears twice (columns 1 and 3)"]


def test_mapping_to_a_missing_column_is_refused(tmp_path):  # C8
    path = write(tmp_path, b"gold,response\n1,2\n")
    problems = problems_of(path, mapping={"gold": "gold", "output": "output"})
    assert problems == [
        "column 'output' (chosen for output) is not in the file; its columns are gold, response"
    ]


def test_mapping_without_a_required_field_is_refused(tmp_path):  # C8
    path = write(tmp_path, b"gold,response\n1,2\n")
    assert problems_of(path, mapping={"gold": "gold"}) == ["no column is chosen for output"]


def test_rows_with_the_wrong_number_of_fields_are_listed_by_line(tmp_path):  # C8
    content = b"gold,output,problem\n1,a,p\n2,b\n3,c,p\n4,d,p,extra\n"
    path = write(tmp_path, content)
    assert problems_of(path) == [
        "line 3: expected 3 fields, found 2",
        "line 5: expected 3 fields, found 4",
    ]


def test_empty_file_is_refused(tmp_path):  # C9
    path = write(tmp_path, b"")
    with pytest.raises(IngestError, match="the file is empty"):
        preview_file(path)
    assert problems_of(path) == ["the file is empty"]


def test_blank_file_is_refused(tmp_path):  # C9
    path = write(tmp_path, b"\n\r\n  \n")
    assert problems_of(path) == ["the file is empty"]


def test_header_only_file_is_refused(tmp_path):  # C9
    path = write(tmp_path, b"gold,output\r\n")
    with pytest.raises(IngestError, match="header but no data rows"):
        preview_file(path)
    assert problems_of(path) == ["the file has a header but no data rows"]


def test_nul_byte_is_refused_with_its_line_and_column(tmp_path):  # C10
    path = write(tmp_path, b"gold,output\n1,fine\n2,bad\x00byte\n")
    assert problems_of(path) == [
        "line 3, column 'output': contains a NUL byte, which cannot be stored"
    ]


def test_empty_gold_is_refused(tmp_path):
    path = write(tmp_path, b"gold,output\n1,x\n  ,y\n")
    assert problems_of(path) == ["line 3: the gold answer is empty"]


def test_unclosed_quote_is_refused_at_the_line_where_the_row_starts(tmp_path):
    path = write(tmp_path, b'gold,output\n1,x\n2,"never closed\nmore\n')
    assert problems_of(path) == ["line 3: a quoted field is not closed before the end of the file"]


def test_sample_index_must_be_a_whole_number(tmp_path):
    path = write(tmp_path, b"gold,output,sample_index\n1,x,0\n2,y,first\n")
    mapping = {**MAPPING, "sample_index": "sample_index"}
    assert problems_of(path, mapping=mapping) == [
        "line 3: sample_index 'first' is not a whole number"
    ]


def test_invalid_jsonl_lines_are_listed(tmp_path):
    content = b'{"gold": "1", "output": "a"}\n{"gold": "2", "output": }\n[1, 2]\n{"gold": "3"}\n'
    path = write(tmp_path, content, "run.jsonl")
    problems = problems_of(path)
    assert problems[0] == "line 2: not valid JSON at column 25 (Expecting value)"
    assert problems[1:] == ["line 3: expected a JSON object, found list", "line 4: no 'output' key"]


def test_jsonl_duplicate_keys_are_refused(tmp_path):
    path = write(tmp_path, b'{"gold": "1", "output": "a", "gold": "2"}\n', "run.jsonl")
    assert problems_of(path) == ["line 1: key 'gold' appears twice"]


def test_many_problems_are_capped_so_the_message_stays_readable(tmp_path):
    content = b"gold,output\n" + b"1,2,3\n" * 500
    problems = problems_of(write(tmp_path, content))
    assert len(problems) == 51
    assert problems[-1] == "stopped after 50 problems"


def test_no_row_is_yielded_after_the_first_problem(tmp_path):
    path = write(tmp_path, b"gold,output\n1,a\n2\n3,c\n")
    reader = read_rows(path, mapping=MAPPING, delimiter=None, max_field_bytes=MiB)
    yielded = []
    with pytest.raises(IngestError):
        for row in reader:
            yielded.append(row.row_number)
    assert yielded == [1]


def test_answer_alone_beside_neither_gold_nor_output_is_the_output():
    mapping, confirm = guess_mapping(("question", "answer"))
    assert mapping == {"output": "answer", "problem": "question"}
    assert confirm == ("output",)


def test_answer_beside_both_a_gold_and_an_output_column_is_an_ordinary_column():
    mapping, confirm = guess_mapping(("gold", "answer", "response"))
    assert mapping == {"gold": "gold", "output": "response"}
    assert confirm == ()


def test_text_after_a_closing_quote_is_kept_as_spreadsheets_write_it(tmp_path):
    # Math-Verify's example file ends with a space after its last closing quote
    path = write(tmp_path, b'gold,output\n"1","so 1" \n')
    [row] = rows_of(path)
    assert row.fields["output"] == "so 1 "


def test_a_windows_1252_file_is_refused_with_that_encoding_offered_never_guessed(
    tmp_path,
):  # C5, issue 15
    # Given what Excel on Windows saves: Windows-1252, with a curly quote and accents
    content = "gold,output\n1,très\n2,two\n3,“déjà”\n".encode("cp1252")
    path = write(tmp_path, content)
    # When it is read without an encoding, it is refused naming the line, the byte and the
    # encoding that reads every byte of it
    with pytest.raises(EncodingError) as caught:
        preview_file(path)
    assert caught.value.suggested == "cp1252"
    assert caught.value.problems[0].startswith("line 2: byte 0xE8 is not valid UTF-8")
    assert "Windows-1252" in caught.value.problems[0]
    assert problems_of(path)[0].startswith("line 2:")
    # and when the person chooses that encoding, every character is read as written
    assert preview_file(path, encoding="cp1252").encoding == "Windows-1252"
    rows = list(
        read_rows(path, mapping=MAPPING, delimiter=None, max_field_bytes=MiB, encoding="cp1252")
    )
    assert [r.fields["output"] for r in rows] == ["très", "two", "“déjà”"]


def test_a_latin_1_file_with_bytes_windows_1252_lacks_is_offered_latin_1(tmp_path):
    path = write(tmp_path, b"gold,output\n1,caf\xe9 \x81\n")
    with pytest.raises(EncodingError) as caught:
        preview_file(path)
    assert caught.value.suggested == "latin-1"


def test_a_header_with_more_columns_than_the_limit_is_refused_on_the_first_line(tmp_path):
    # Given a 0.9 MB header of 100,000 columns (it held a web worker for 74 s)
    header = ",".join(f"c{i}" for i in range(100_000)).encode()
    path = write(tmp_path, header + b"\n" + b"1," * 99_999 + b"1\n")
    with pytest.raises(IngestError) as caught:
        preview_file(path, limits=Limits(header_chars=2 * MiB))
    assert caught.value.problems == ["line 1: the header has 100,000 columns; the limit is 1,000"]
    # and a header longer than the header limit is refused before it is split at all
    with pytest.raises(IngestError) as caught:
        preview_file(path)
    assert "the header is longer than 65,536 characters" in caught.value.problems[0]


def test_a_100_mb_field_is_refused_without_reading_it_into_memory(tmp_path):  # C7
    import subprocess
    import sys

    # Given a row whose output is one 100 MB field
    path = tmp_path / "big.csv"
    with path.open("wb") as out:
        out.write(b'gold,output\n1,"')
        for _ in range(100):
            out.write(b"x" * MiB)
        out.write(b'"\n')
    # When a separate process reads it as an upload is read (its peak memory measured alone)
    script = (
        "from grading.reader import IngestError, read_rows\n"
        "try:\n"
        f"    list(read_rows({str(path)!r}, mapping={{'gold': 'gold', 'output': 'output'}},"
        " delimiter=None, max_field_bytes=1048576))\n"
        "except IngestError as e:\n"
        "    print(e.problems[0])\n"
        # VmHWM is this program's own peak (ru_maxrss would include pytest's, from the fork)
        "print(open('/proc/self/status').read().split('VmHWM:')[1].split()[0])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    problem, peak_kib = done.stdout.splitlines()
    # Then the row is refused by its line, and the reader never held the field (the process
    # peaked far below the 100 MB it would take to hold it once)
    assert problem.startswith("line 2: the row is longer than 4,259,840 characters")
    assert int(peak_kib) < 100 * 1024, peak_kib


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"\x1f\x8b\x08\x00" + b"\x00" * 20, "a gzip-compressed file"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 20, "an Excel 97-2003 workbook"),
        (b"BZh91AY&SY" + b"\x00" * 20, "a bzip2-compressed file"),
    ],
)
def test_a_compressed_file_is_refused_by_what_it_is_whatever_its_name(tmp_path, content, named):
    path = write(tmp_path, content, name="outputs.csv")
    with pytest.raises(IngestError) as caught:
        preview_file(path)
    assert named in caught.value.problems[0]


def test_a_zip_that_is_not_a_workbook_is_refused_by_name(tmp_path):
    import zipfile

    path = tmp_path / "outputs.csv"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("outputs.csv", "gold,output\n1,1\n")
    with pytest.raises(IngestError) as caught:
        preview_file(path)
    assert caught.value.problems == [
        "the file is a zip archive, not CSV, JSONL or .xlsx; upload the file inside it"
    ]


def xlsx(tmp_path: Path, rows: list[list], name: str = "outputs.xlsx") -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.create_sheet("other").append(["ignored"])
    path = tmp_path / name
    book.save(path)
    return path


def test_an_xlsx_workbook_is_read_from_its_first_sheet(tmp_path):  # issue 15
    path = xlsx(
        tmp_path,
        [
            ["id", "gold", "output"],
            ["a", -4, "so \\boxed{-4}"],
            ["b", 0.5, None],
            [None, None, None],
            ["c", "x^2", "x^2"],
        ],
    )
    preview = preview_file(path)
    assert (preview.format, preview.encoding) == ("xlsx", "Excel workbook")
    assert preview.columns == ("id", "gold", "output")
    rows = rows_of(path)
    assert [(r.source_line, r.fields["gold"], r.fields["output"]) for r in rows] == [
        (2, "-4", "so \\boxed{-4}"),
        (3, "0.5", ""),
        (5, "x^2", "x^2"),
    ]


def test_an_xlsx_that_expands_to_gigabytes_is_refused_before_it_is_read(tmp_path):  # C12
    import zipfile

    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member:
            zeros = b"0" * MiB
            for _ in range(600):
                member.write(zeros)
    with pytest.raises(IngestError) as caught:
        preview_file(path)
    assert "the Excel workbook expands to" in caught.value.problems[0]


def test_skipping_bad_lines_keeps_the_good_rows_and_lists_the_others(tmp_path):  # issue 15
    path = write(tmp_path, b"gold,output\n1,a\n,b\n3,c,extra\n4,d\n")
    skipped: list = []
    rows = list(
        read_rows(path, mapping=MAPPING, delimiter=None, max_field_bytes=MiB, skipped=skipped)
    )
    assert [(r.row_number, r.source_line, r.fields["gold"]) for r in rows] == [
        (1, 2, "1"),
        (2, 5, "4"),
    ]
    assert skipped == [
        (3, "line 3: the gold answer is empty"),
        (4, "line 4: expected 2 fields, found 3"),
    ]
