"""The exact evaluator: MATH-style normalised string equality."""

import pytest

from grading.evaluators.exact import ExactMatch
from grading.types import Status, Verdict


@pytest.fixture(scope="module")
def exact():
    return ExactMatch()


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\frac{1}{2}", "\\dfrac{1}{2}"),
        ("\\frac{1}{2}", "0.5"),
        ("\\frac{1}{2}", "1/2"),
        ("\\frac{3}{4}i", "\\frac34i"),
        ("10\\sqrt{3}", "10\\sqrt3"),
        ("(x-2)(x+2)", "\\left(x-2\\right)\\left(x+2\\right)"),
        ("10", "10\\text{ units}"),
        ("10", "10\\%"),
        ("\\$10", "10"),
        ("0.1", ".1"),
        ("90", "90^\\circ"),
        ("5", "x = 5"),
    ],
)
def test_notational_variants_of_the_same_answer_match(exact, gold, answer):
    assert exact.evaluate(gold, answer).verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\frac{1}{2}", "\\frac{2}{4}"),  # equal numbers, different strings
        ("4, 10, -2", "10, 4, -2"),  # order is significant
        ("x^2-1", "(x-1)(x+1)"),
        ("100", "10\\text{ units}"),
    ],
)
def test_mathematically_equal_but_differently_written_answers_do_not_match(exact, gold, answer):
    assert exact.evaluate(gold, answer).verdict is Verdict.INCORRECT


def test_decimals_other_than_one_half_stay_decimals(exact):
    assert exact.evaluate("\\frac{1}{4}", "0.25").verdict is Verdict.INCORRECT


def test_full_output_is_graded_on_its_last_box(exact):
    output = "We try \\boxed{3} first, but that fails.\n\nSo the answer is $\\boxed{\\frac{7}{2}}$."
    evaluation = exact.evaluate("\\frac72", output)
    assert evaluation.verdict is Verdict.CORRECT
    assert evaluation.extracted == "\\frac{7}{2}"


def test_box_with_nested_braces_is_extracted_whole(exact):
    evaluation = exact.evaluate("\\sqrt{\\frac{1}{2}}", "so \\boxed{\\sqrt{\\frac{1}{2}}}.")
    assert evaluation.extracted == "\\sqrt{\\frac{1}{2}}"
    assert evaluation.verdict is Verdict.CORRECT


def test_answer_marker_is_used_without_a_box(exact):
    assert exact.evaluate("18", "Adding up, 10 + 8 = 18.\n#### 18").verdict is Verdict.CORRECT
    assert exact.evaluate("18", "The answer is 18. Done.").verdict is Verdict.CORRECT


def test_empty_output_has_no_answer(exact):
    evaluation = exact.evaluate("3", "   ")
    assert evaluation.status is Status.NO_ANSWER
    assert evaluation.verdict is None
