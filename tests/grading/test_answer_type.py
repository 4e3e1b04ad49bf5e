"""classify: the answer type of a gold, from its text alone."""

import pytest

from grading.answer_type import classify
from grading.types import AnswerType


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        ("42", AnswerType.INTEGER),
        ("-7", AnswerType.INTEGER),
        ("10{,}000", AnswerType.INTEGER),
        ("1,000,000", AnswerType.INTEGER),
        ("\\boxed{12}", AnswerType.INTEGER),
        ("$90^\\circ$", AnswerType.INTEGER),
        ("3.14", AnswerType.DECIMAL),
        (".5", AnswerType.DECIMAL),
        ("\\frac{1}{2}", AnswerType.FRACTION),
        ("-\\dfrac{3}{4}", AnswerType.FRACTION),
        ("3/7", AnswerType.FRACTION),
        ("2\\sqrt{3}", AnswerType.EXPRESSION),
        ("x^2 - 9", AnswerType.EXPRESSION),
        ("[-5, +\\infty)", AnswerType.INTERVAL_OR_SET),
        ("(-\\infty, 2) \\cup (3, \\infty)", AnswerType.INTERVAL_OR_SET),
        ("\\{1, 2, 3\\}", AnswerType.INTERVAL_OR_SET),
        ("1, 2, 3", AnswerType.INTERVAL_OR_SET),
        ("(3, \\frac{\\pi}{2})", AnswerType.TUPLE),
        ("\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", AnswerType.MATRIX),
        ("y = 2x + 3", AnswerType.EQUATION),
        ("x \\le 4", AnswerType.EQUATION),
        ("\\text{Evelyn}", AnswerType.TEXT),
        ("Tuesday", AnswerType.TEXT),
        ("C", AnswerType.LETTER),
        ("\\text{(B)}", AnswerType.LETTER),
        ("(D) Alina", AnswerType.LETTER),
        ("YES", AnswerType.YES_NO),
        ("False", AnswerType.YES_NO),
        ("A, C, D", AnswerType.OPTION_LIST),
        ("ACD", AnswerType.OPTION_LIST),
        ("TFTF", AnswerType.OPTION_LIST),
        ("True, False, True", AnswerType.OPTION_LIST),
        ("1-C, 2-A, 3-B", AnswerType.OPTION_LIST),
        ("①③④", AnswerType.OPTION_LIST),
        ("(2)(4)", AnswerType.OPTION_LIST),
        ("i, iii", AnswerType.OPTION_LIST),
        ("x, y", AnswerType.INTERVAL_OR_SET),
    ],
)
def test_gold_is_classified_by_its_shape(gold, expected):
    assert classify(gold) is expected


@pytest.mark.parametrize(
    "gold",
    [
        "9" * 5000,
        "1+" * 200_000 + "1",
        "{" * 3000 + "1" + "}" * 3000,
        "(" * 3000 + ")" * 3000,
        "",
        "$$",
    ],
)
def test_pathological_golds_are_classified_without_error(gold):
    assert isinstance(classify(gold), AnswerType)


def test_a_5000_digit_integer_is_an_integer():
    assert classify("9" * 5000) is AnswerType.INTEGER
