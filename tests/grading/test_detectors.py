"""The doubt detectors: each sign of an unreliable verdict is found, and clean outputs pass."""

import pytest

from grading.detectors import detect
from grading.types import AnswerType, Evaluation, Sample, Status, Verdict


def findings(output: str, gold: str = "42", kind=AnswerType.INTEGER, finish_reason: str = ""):
    return detect(Sample(gold=gold, output=output, finish_reason=finish_reason), kind, ())


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


def test_side_remark_after_the_result_is_flagged_when_the_result_is_the_gold():
    # Given no stated answer, a result equal to the gold, then another number
    output = "20 + 20 = 40. By the way, my favorite number is 50."

    # Then extractors that take the last number would be misled, so the row is flagged
    assert "multiple_answers" in findings(output, gold="40")


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


@pytest.mark.parametrize(
    "output",
    [
        "It is either 3 or 5.\n\nThe answer is either 3 or 5.",
        "So the answer is 24 or 6.",
        "Réponse : x = ±4",
        "The answer is $\\boxed{3 \\text{ or } 5}$.",
    ],
)
def test_alternatives_against_a_single_gold_are_hedged(output):
    assert "hedged" in findings(output, gold="3")


def test_alternatives_are_expected_when_the_gold_has_several_parts():
    assert findings("So x = 2 or x = 3.", gold="2, 3", kind=AnswerType.TUPLE) == ()


def test_tentative_wording_that_commits_to_one_value_is_not_hedged():
    output = "I believe it's 391, but let me double-check: 17 × 23 = 391. Yes, 17 × 23 = 391."

    assert findings(output, gold="391") == ()


@pytest.mark.parametrize(
    "output",
    ["Yes or no: it depends on the temperature.", "It depends on the grade of steel."],
)
def test_yes_no_output_that_never_commits_is_hedged(output):
    assert "hedged" in findings(output, gold="NO", kind=AnswerType.YES_NO)


def test_yes_no_answer_giving_both_is_hedged():
    output = "Answer: True for numbers greater than 1, False in general."

    assert "hedged" in findings(output, gold="False", kind=AnswerType.YES_NO)


def test_yes_no_output_that_depends_then_commits_is_not_hedged():
    output = "It depends on the metal, but for copper the answer is NO: resistance rises."

    assert findings(output, gold="NO", kind=AnswerType.YES_NO) == ()


def test_a_list_of_options_instead_of_an_answer_is_options_listed():
    output = "12\nB: 16\nC: 24\nD: 32"

    assert "options_listed" in findings(output, gold="32")


def test_options_discussed_then_one_chosen_is_not_options_listed():
    output = (
        "- (A) Iron melts at 1538 °C.\n- (D) Tungsten melts at 3422 °C.\n\nThe correct option is D."
    )

    assert findings(output, gold="D", kind=AnswerType.LETTER) == ()


def test_two_letters_for_a_single_choice_are_multiple_answers():
    assert "multiple_answers" in findings("Answer: B and D", gold="B", kind=AnswerType.LETTER)


def test_letters_mentioned_after_the_chosen_one_are_not_multiple_answers():
    output = "The answer: D, it doesn't make sense for it to be A or B"

    assert findings(output, gold="D", kind=AnswerType.LETTER) == ()


@pytest.mark.parametrize(
    "output", ["The answer is 4 4/9.", "So the answer is $\\boxed{4\\frac{4}{9}}$."]
)
def test_mixed_number_answer_is_flagged(output):
    assert "mixed_number" in findings(output, gold="\\frac{40}{9}", kind=AnswerType.FRACTION)


def test_mixed_number_against_a_gold_written_the_same_way_is_not_flagged():
    output = "So the answer is $\\boxed{1\\frac{1}{4}}$."

    assert findings(output, gold="1\\frac{1}{4}", kind=AnswerType.EXPRESSION) == ()


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


def math_verify(verdict: Verdict, extracted: str) -> Evaluation:
    return Evaluation("math_verify", "1", Status.OK, verdict, extracted=extracted)


def test_answer_the_extractor_did_not_take_is_an_extraction_mismatch():
    # Given math-verify took only the last number of "x < -1 or x > 2"
    output = (
        "Since the inequality is strict, the endpoints are excluded.\n\nTherefore x < −1 or x > 2."
    )
    evaluations = (math_verify(Verdict.INCORRECT, "2"),)

    found = detect(
        Sample(gold="(-\\infty, -1) \\cup (2, \\infty)", output=output),
        AnswerType.INTERVAL_OR_SET,
        evaluations,
    )

    assert "extraction_mismatch" in found


def test_gold_stated_verbatim_but_marked_wrong_is_an_extraction_mismatch():
    evaluations = (math_verify(Verdict.INCORRECT, "16"),)

    found = detect(
        Sample(gold="16\\pi", output="The area is 16π square units."),
        AnswerType.EXPRESSION,
        evaluations,
    )

    assert "extraction_mismatch" in found


def test_same_number_in_another_spelling_is_not_an_extraction_mismatch():
    evaluations = (math_verify(Verdict.CORRECT, "1,250"),)

    found = detect(
        Sample(gold="1250", output="Therefore, Tom earns $\\boxed{\\$1{,}250}$."),
        AnswerType.INTEGER,
        evaluations,
    )

    assert found == ()


def test_wrong_number_misread_as_another_wrong_number_is_not_flagged():
    # Given the stated answer 120 and the gold 720: wrong however it was extracted
    evaluations = (math_verify(Verdict.INCORRECT, "6"),)

    found = detect(
        Sample(gold="720", output="Each angle measures 720° / 6 = 120°.\n\n**Answer: 120°**"),
        AnswerType.INTEGER,
        evaluations,
    )

    assert found == ()


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("25\\%", "The relative decrease is 10/40 = 0.25.\n\nThe answer is 0.25."),
        ("250", "0.75 kg − 0.5 kg = 0.25 kg\n\nShe needs 0.25 kg more flour."),
        ("\\frac{\\pi}{3}", "Therefore, $\\arccos\\frac12 = \\boxed{60^\\circ}$."),
    ],
)
def test_answer_equal_to_the_gold_after_a_unit_change_is_a_unit_mismatch(gold, output):
    assert "unit_mismatch" in findings(output, gold=gold, kind=AnswerType.EXPRESSION)


def test_decimal_for_an_exact_gold_is_an_approximate_answer():
    output = "So $x \\approx 1.414$.\n\n$\\boxed{1.414}$"

    assert "approximate_answer" in findings(output, gold="\\sqrt{2}", kind=AnswerType.EXPRESSION)


def test_decimal_rejected_where_the_question_asks_for_an_exact_form_needs_no_human():
    # Given a question that demands an exact value, and evaluators that reject the decimal
    sample = Sample(
        gold="\\frac{\\sqrt{3}}{2}",
        output="Using a calculator, cos(π/6) ≈ 0.8660.\n\n$\\boxed{0.866}$",
        problem="Find the exact value of cos(π/6).",
    )
    rejected = (Evaluation("math_verify", "1", Status.OK, Verdict.INCORRECT, extracted="0.866"),)
    credited = (Evaluation("math_verify", "1", Status.OK, Verdict.CORRECT, extracted="0.866"),)

    # Then the approximation is no doubt when rejected, but a doubt when credited
    assert "approximate_answer" not in detect(sample, AnswerType.EXPRESSION, rejected)
    assert "approximate_answer" in detect(sample, AnswerType.EXPRESSION, credited)


def test_decimal_within_one_percent_of_a_decimal_gold_is_a_near_miss():
    output = "The radius is approximately 3.99 units."

    assert "near_miss" in findings(output, gold="4.0", kind=AnswerType.DECIMAL)


def test_number_with_dotted_thousands_is_a_number_format_doubt():
    output = "250 × 50 = 12.500\n\nLa respuesta es 12.500 euros."

    assert "number_format" in findings(output, gold="12500")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("6\\sqrt{2}", "2\\sqrt{18}"),
        ("5\\sqrt{2}", "\\sqrt{2} + 4\\sqrt{2}"),
        ("2(x-2)(x+2)", "2(x^2 - 4)"),
        ("(2x-3)(2x+3)", "4\\left(x - \\tfrac{3}{2}\\right)\\left(x + \\tfrac{3}{2}\\right)"),
    ],
)
def test_equal_value_in_a_rawer_form_is_form_differs(gold, answer):
    output = f"The simplified form is $\\boxed{{{answer}}}$."

    assert "form_differs" in findings(output, gold=gold, kind=AnswerType.EXPRESSION)


def test_reordered_factors_are_not_form_differs():
    output = "$\\boxed{(x-3)(x-2)}$"

    assert findings(output, gold="(x-2)(x-3)", kind=AnswerType.EXPRESSION) == ()


def test_words_gold_marked_wrong_against_a_non_numeric_answer_is_a_text_answer():
    evaluations = (math_verify(Verdict.INCORRECT, "\\varnothing"),)

    found = detect(
        Sample(
            gold="\\text{No solution}", output="So there is no solution: $\\boxed{\\varnothing}$"
        ),
        AnswerType.TEXT,
        evaluations,
    )

    assert "text_answer" in found


def test_yes_no_output_that_retracts_its_first_answer_gives_multiple_answers():
    output = (
        "True. Mercury is solid.\n\nActually, I need to correct myself: it is liquid. So False."
    )

    assert "multiple_answers" in findings(output, gold="False", kind=AnswerType.YES_NO)
