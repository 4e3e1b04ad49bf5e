"""The math_verify evaluator agrees with Math-Verify's own test suite, case by case."""

import json
from pathlib import Path

import pytest

from grading.evaluators.mathverify import agrees_with_case

CASES_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "grading-cases"
CASES_FILE = CASES_DIR / "math_verify_tests.jsonl"


def _cases() -> list:
    if not CASES_FILE.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CASES_FILE} not found"))]
    with CASES_FILE.open(encoding="utf-8") as lines:
        cases = [json.loads(line) for line in lines if line.strip()]
    return [pytest.param(case, id=case["id"]) for case in cases]


@pytest.mark.parametrize("case", _cases())
def test_math_verify_agrees_with_reference_case(case):
    # given one case of Math-Verify's test suite and the settings it was written for
    # when the math_verify evaluator grades it under those settings
    # then it reaches the verdict (or extraction) the suite expects
    assert agrees_with_case(case), (
        f"{case['id']}: gold={case['gold']!r} output={case['output']!r} "
        f"expected={case.get('expected', case.get('expected_extraction'))!r}"
    )
