"""``python -m grading grade``: the output contract, column aliases, bad rows, usage errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO.parent / "shared" / "samples"
QUICK = ["--evaluators", "math_verify,exact", "--workers", "1", "--timeout", "5"]
RESULT_FIELDS = {"auto_verdict", "needs_review", "review_reasons", "answer_type", "evaluations"}
EVALUATION_FIELDS = {"verdict", "status", "extracted", "extracted_latex", "gold_latex", "ms"}


def run_grade(input_path: Path, output_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "grading", "grade", str(input_path), "-o", str(output_path), *extra],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_output_row_carries_the_input_fields_and_the_grading(tmp_path):
    # Given a JSONL file with our column names and extra columns
    source = tmp_path / "run.jsonl"
    rows = [
        {"id": "a", "gold": "12", "output": "So $\\boxed{12}$.", "finish_reason": "stop"},
        {"id": "b", "gold": "$\\frac{1}{2}$", "output": "It is $\\boxed{3}$", "level": 4},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then there is one object per row, in order, with exactly the promised fields
    assert result.returncode == 0, result.stderr
    graded = read_jsonl(tmp_path / "out.jsonl")
    assert [g["id"] for g in graded] == ["a", "b"]
    for row, out in zip(rows, graded, strict=True):
        assert set(out) == set(row) | RESULT_FIELDS
        assert {k: out[k] for k in row} == row
        assert set(out["evaluations"]) == {"math_verify", "exact"}
        for evaluation in out["evaluations"].values():
            assert set(evaluation) == EVALUATION_FIELDS
    assert [g["auto_verdict"] for g in graded] == ["correct", "incorrect"]
    assert graded[1]["evaluations"]["math_verify"]["extracted_latex"] == "3"
    assert all(isinstance(reason["code"], str) for g in graded for reason in g["review_reasons"])


def test_math_verify_example_columns_answer_and_gold_are_understood(tmp_path):
    # Given Math-Verify's example file, where the output column is called "answer"
    source = SAMPLES / "mathverify_model_outputs.csv"

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then all six rows are graded from "answer" against "gold", with both columns kept
    assert result.returncode == 0, result.stderr
    graded = read_jsonl(tmp_path / "out.jsonl")
    assert len(graded) == 6
    assert graded[2]["answer"] == "After solving, we get $1/2$"
    assert graded[2]["gold"] == "$1/2$"
    assert graded[2]["auto_verdict"] == "correct"
    assert all("error" not in g for g in graded)


def test_unreadable_csv_rows_become_error_rows_naming_their_line(tmp_path):
    # Given a CSV with a BOM, a quoted newline, a row with too many fields and a NUL byte
    source = tmp_path / "run.csv"
    source.write_bytes(
        "\ufeffid,gold,output\n"
        '1,12,"First line\nthen $\\boxed{12}$"\n'  # lines 2-3
        "2,5,$\\boxed{5}$,surplus\n"  # line 4
        "3,7,$\\boxed{7}\x00$\n"  # line 5
        "4,9,$\\boxed{8}$\n".encode()  # line 6
    )

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then the run finished; bad rows are errors naming their line, in place
    assert result.returncode == 0, result.stderr
    graded = read_jsonl(tmp_path / "out.jsonl")
    assert graded[0]["id"] == "1" and graded[0]["auto_verdict"] == "correct"
    assert graded[0]["output"] == "First line\nthen $\\boxed{12}$"
    assert graded[1] == {"line": 4, "error": graded[1]["error"]}
    assert graded[1]["error"].startswith("line 4: ")
    assert graded[2]["line"] == 5 and "NUL" in graded[2]["error"]
    assert graded[3]["id"] == "4" and graded[3]["auto_verdict"] == "incorrect"


def test_a_bad_jsonl_line_becomes_an_error_row_and_the_run_goes_on(tmp_path):
    # Given a JSONL file whose second line is not JSON
    source = tmp_path / "run.jsonl"
    source.write_text(
        '{"gold": "1", "output": "$\\\\boxed{1}$"}\n{"gold": "2", "output": \n'
        '{"gold": "3", "output": "$\\\\boxed{3}$"}\n',
        encoding="utf-8",
    )

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then line 2 is an error row and lines 1 and 3 are graded
    assert result.returncode == 0, result.stderr
    graded = read_jsonl(tmp_path / "out.jsonl")
    assert graded[1]["line"] == 2 and graded[1]["error"].startswith("line 2: not valid JSON")
    assert [graded[0]["auto_verdict"], graded[2]["auto_verdict"]] == ["correct", "correct"]


def test_a_missing_required_column_exits_2_listing_the_columns_found(tmp_path):
    # Given a CSV without any gold column
    source = tmp_path / "run.csv"
    source.write_text("id,question,response\n1,What?,$\\boxed{1}$\n", encoding="utf-8")

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then it stops with status 2, says what is missing and lists what it found
    assert result.returncode == 2
    assert "gold" in result.stderr
    assert "columns found: id, question, response" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_an_unknown_evaluator_exits_2_listing_the_available_ones(tmp_path):
    # Given a valid file and a misspelt evaluator
    source = tmp_path / "run.csv"
    source.write_text("gold,output\n1,$\\boxed{1}$\n", encoding="utf-8")

    # When it is graded with that evaluator
    result = run_grade(source, tmp_path / "out.jsonl", "--evaluators", "math_verify,mathverify")

    # Then it stops with status 2 and names the available evaluators
    assert result.returncode == 2
    assert "mathverify" in result.stderr
    assert "available: answer_check, math_verify, math_verify_strict" in result.stderr


def test_text_outside_ascii_comes_back_exactly_one_object_per_line(tmp_path):
    # Given outputs with accents, an astral character, a line separator and a quote
    odd = 'Soit $x = 12$ donc « $\\boxed{12}$ » 𝔸\u2028next "line"\u2029end'
    source = tmp_path / "run.jsonl"
    rows = [{"id": "é", "gold": "12", "output": odd}, {"id": "2", "gold": "1", "output": "1"}]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then the file is ASCII, a reader splitting on any line break sees one object per row,
    # and the text reads back exactly
    assert result.returncode == 0, result.stderr
    data = (tmp_path / "out.jsonl").read_bytes()
    assert data.isascii()
    graded = read_jsonl(tmp_path / "out.jsonl")
    assert [g["id"] for g in graded] == ["é", "2"]
    assert graded[0]["output"] == odd
    assert graded[0]["auto_verdict"] == "correct"


def test_an_answer_column_beside_a_response_is_the_gold(tmp_path):
    # Given a file with no gold column, whose output column is called "response"
    source = tmp_path / "run.csv"
    source.write_text('id,answer,response\n1,12,"so $\\boxed{12}$"\n', encoding="utf-8")

    # When it is graded
    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    # Then "answer" is read as the gold, by the rule the web app's upload uses too
    assert result.returncode == 0, result.stderr
    [graded] = read_jsonl(tmp_path / "out.jsonl")
    assert graded["auto_verdict"] == "correct"


def test_utf16_tab_separated_files_are_read_like_uploads(tmp_path):
    source = tmp_path / "excel.csv"
    source.write_bytes("gold\toutput\n7\tso $\\boxed{7}$\n".encode("utf-16"))

    result = run_grade(source, tmp_path / "out.jsonl", *QUICK)

    assert result.returncode == 0, result.stderr
    [graded] = read_jsonl(tmp_path / "out.jsonl")
    assert (graded["gold"], graded["auto_verdict"]) == ("7", "correct")
