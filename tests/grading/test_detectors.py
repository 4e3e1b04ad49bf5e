"""The doubt detectors: each sign of an unreliable verdict is found, and clean outputs pass."""

import pytest

from grading.detectors import detect
from grading.types import AnswerType, Sample


def findings(output: str, gold: str = "42", kind=AnswerType.INTEGER, finish_reason: str = ""):
    return detect(Sample(gold=gold, output=output, finish_reason=finish_reason), kind)


def test_clean_boxed_answer_raises_nothing():
    # Given a worked solution that ends in one boxed answer
    output = "We have $6 \\cdot 7 = 42$.\n\nTherefore, the answer is $\\boxed{42}$."

    # Then no detector fires
    assert findings(output) == ()


def test_two_boxes_with_different_values_are_multiple_answers():
    output = "So there are $\\boxed{9}$ divisors.\n\nWithout 36 itself there are $\\boxed{8}$."

    assert "multiple_answers" in findings(output, gold="9")


def test_repeated_box_with_the_same_value_is_one_answer():
    output = "The area is $\\boxed{24}$.\n\nSo the area is $\\boxed{24}$ square units."

    assert findings(output, gold="24") == ()


def test_box_marked_as_final_answer_outranks_an_intermediate_box():
    # Given an intermediate boxed value and a later box introduced as the final answer
    output = "So $\\boxed{x = 4}$.\nThen $2x + 1 = 9$.\n\nFinal answer: $\\boxed{9}$"

    assert findings(output, gold="9") == ()


def test_boxes_in_one_sentence_are_one_answer_for_a_multi_part_gold():
    output = "The solutions are $\\boxed{3}$ and $\\boxed{-2}$."

    assert findings(output, gold="-2, 3", kind=AnswerType.TUPLE) == ()


def test_hashes_line_contradicting_the_sentence_before_is_multiple_answers():
    output = "She has 40 apples left.\n#### 42"

    assert "multiple_answers" in findings(output)


def test_two_answer_statements_with_different_values_are_multiple_answers():
    output = "The answer is 40.\n\nSo the final answer is 42."

    assert "multiple_answers" in findings(output)


def test_self_correction_keeps_only_the_corrected_answer():
    output = "The answer is 10.\n\nWait, let me recheck: 8 + 4 = 12.\n\nThe answer is 12."

    assert findings(output, gold="12") == ()


@pytest.mark.parametrize(
    "output",
    [
        "So the total is 1683 + 1050 −",
        "The number of multiples of 25 is",
        "Therefore, the final answer is",
        "Therefore the answer is $\\boxed{\\frac{3}{",
    ],
)
def test_output_that_stops_mid_sentence_is_truncated(output):
    assert "truncated" in findings(output)


def test_finish_reason_length_is_truncated_even_with_an_answer():
    assert "truncated" in findings("The answer is $\\boxed{42}$.", finish_reason="length")


@pytest.mark.parametrize(
    "output", ["**Answer: 120°**", "Answer: c", "#### 72", "T", "(C)", "x e^x (x + 2)"]
)
def test_complete_outputs_without_final_punctuation_are_not_truncated(output):
    assert "truncated" not in findings(output, kind=AnswerType.EXPRESSION)


def test_a_list_of_options_instead_of_an_answer_is_options_listed():
    output = "12\nB: 16\nC: 24\nD: 32"

    assert "options_listed" in findings(output, gold="32")


def test_options_discussed_then_one_chosen_is_not_options_listed():
    output = (
        "- (A) Iron melts at 1538 °C.\n- (D) Tungsten melts at 3422 °C.\n\nThe correct option is D."
    )

    assert findings(output, gold="D", kind=AnswerType.LETTER) == ()


@pytest.mark.parametrize(
    "output",
    [
        "1+" * 200_000 + "1",
        "{" * 3000 + "\\boxed{" * 3000 + "}" * 3000,
        "The answer is " + "9" * 5000,
        "\\boxed{" + "1" * 100_000,
    ],
)
def test_pathological_outputs_are_read_safely(output):
    # Given outputs of 400 kB, thousands of nested braces, or 5000-digit numbers
    # When the detectors run, then they return codes instead of raising
    assert isinstance(findings(output), tuple)


def test_options_listed_at_the_end_of_a_discussion_are_options_listed():
    output = "Let us look at the choices.\nA: 12\nB: 16\nC: 24\nD: 32"

    assert "options_listed" in findings(output, gold="C", kind=AnswerType.LETTER)


@pytest.mark.parametrize(
    "output",
    [
        "So 1 + 4 + 9 + 16 = 30, and 30 + 25 = 55, 55 + 36 = 9",
        "Adding the last two: 120 + 85 = 2",
    ],
)
def test_output_ending_on_a_false_sum_is_truncated(output):
    # Given an output with no marked answer whose last equation is false: cut off mid-number
    assert "truncated" in findings(output, gold="91")


def test_output_ending_on_a_true_sum_is_not_truncated():
    assert "truncated" not in findings("Adding them: 55 + 36 = 91", gold="91")


def test_a_remark_after_the_committed_answer_is_not_a_second_answer():
    output = "So he has 14 boxes left.\n\nThe answer is 14.\n\nWith 2 more packs he would have 26."

    assert "multiple_answers" not in findings(output, gold="14")


def test_statements_of_one_value_in_two_notations_are_one_answer():
    output = "So the solution is $x < 3$.\n\nThe answer is $\\boxed{(-\\infty, 3)}$."

    assert "multiple_answers" not in findings(
        output, gold="(-\\infty, 3)", kind=AnswerType.INTERVAL_OR_SET
    )


def test_two_boxes_closing_a_multi_part_answer_are_one_answer():
    output = "From the first equation, $\\boxed{x = 3}$.\nThen $\\boxed{y = 2}$."

    assert "multiple_answers" not in findings(output, gold="(3, 2)", kind=AnswerType.TUPLE)
