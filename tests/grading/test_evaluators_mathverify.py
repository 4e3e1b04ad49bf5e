"""The math_verify and math_verify_strict evaluators: verdicts, statuses and doubt signals."""

import threading

import pytest

from grading.evaluators.mathverify import MathVerify, MathVerifyStrict
from grading.evaluators.symbolic import parse_answer, verify_pair
from grading.types import Status, Verdict


@pytest.fixture(scope="module")
def math_verify():
    return MathVerify()


@pytest.fixture(scope="module")
def reward_style():
    return MathVerifyStrict()


def test_half_as_fraction_and_decimal_are_the_same_number(math_verify):
    # given a bare LaTeX gold and a decimal answer
    # when graded
    evaluation = math_verify.evaluate("\\frac{1}{2}", "So the probability is $0.5$.")
    # then it is correct, and the reviewer sees the gold as LaTeX
    assert evaluation.status is Status.OK
    assert evaluation.verdict is Verdict.CORRECT
    assert evaluation.gold_latex == "\\frac{1}{2}"


def test_gold_with_latex_thousands_separator_matches_boxed_integer(math_verify):
    evaluation = math_verify.evaluate("10{,}000", "The total is \\boxed{10000}.")
    assert evaluation.verdict is Verdict.CORRECT
    assert evaluation.signals == ()


def test_wrong_boxed_answer_is_incorrect(math_verify):
    evaluation = math_verify.evaluate("42", "Therefore the answer is $\\boxed{41}$.")
    assert evaluation.status is Status.OK
    assert evaluation.verdict is Verdict.INCORRECT
    assert evaluation.extracted_latex == "41"


def test_output_without_any_answer_is_no_answer_not_incorrect(math_verify):
    evaluation = math_verify.evaluate("7", "I am not sure how to solve this problem.")
    assert evaluation.status is Status.NO_ANSWER
    assert evaluation.verdict is None


def test_malformed_latex_answer_is_a_parse_error(math_verify):
    # given an answer that was found but cannot be read as mathematics
    evaluation = math_verify.evaluate("E=mc^2", "\\boxed{E=mc^}")
    # then the evaluator says so instead of calling it wrong
    assert evaluation.status is Status.PARSE_ERROR
    assert evaluation.verdict is None
    assert evaluation.extracted == "E=mc^"


def test_bare_latex_output_is_read_as_latex(math_verify):
    assert math_verify.evaluate("13", "\\sqrt{169}").verdict is Verdict.CORRECT
    assert math_verify.evaluate("(x - 3)(x + 3)", "x^2 - 9").verdict is Verdict.CORRECT


def test_match_on_plain_text_only_raises_string_fallback(math_verify):
    # given a gold and an answer that are the same text, neither of which parses
    evaluation = math_verify.evaluate("E=mc^", "\\boxed{E=mc^}")
    # then the "correct" is flagged as resting on string equality
    assert evaluation.verdict is Verdict.CORRECT
    assert evaluation.signals == ("string_fallback",)


def test_tiny_numbers_equal_only_after_rounding_raise_rounding_match(math_verify):
    evaluation = math_verify.evaluate("\\frac{1}{2004!}", "$\\boxed{\\frac{1}{2006!}}$")
    assert evaluation.verdict is Verdict.CORRECT  # math-verify's own verdict
    assert "rounding_match" in evaluation.signals


def test_decimal_close_to_fraction_is_not_a_rounding_coincidence(math_verify):
    evaluation = math_verify.evaluate("\\frac{1}{3}", "\\boxed{0.333333}")
    assert evaluation.verdict is Verdict.CORRECT
    assert "rounding_match" not in evaluation.signals


def test_one_of_several_gold_answers_raises_partial_match():
    # given a gold listing two solutions and an answer that gives one of them, with the gold
    # read the way math-verify reads an unwrapped gold (it keeps only the last number)
    evaluator = MathVerify(wrap_gold=False)
    evaluation = evaluator.evaluate("2, 3", "The solution is \\boxed{3}")
    # then if the library accepts it, the evaluator flags the partial match
    assert evaluation.verdict is Verdict.CORRECT
    assert "partial_match" in evaluation.signals


def test_all_gold_answers_given_is_not_partial(math_verify):
    evaluation = math_verify.evaluate("2, 3", "The solutions are $x=2$ and $x=3$.")
    assert evaluation.verdict is Verdict.CORRECT
    assert "partial_match" not in evaluation.signals


def test_float_rounding_option_changes_the_verdict():
    coarse = MathVerify(float_rounding=2)
    fine = MathVerify(float_rounding=6)
    assert coarse.evaluate("3.14159", "\\boxed{3.14}").verdict is Verdict.CORRECT
    assert fine.evaluate("3.14159", "\\boxed{3.14}").verdict is Verdict.INCORRECT


def test_answer_equal_to_a_5000_digit_integer_does_not_crash(math_verify):
    huge = "7" * 5000
    evaluation = math_verify.evaluate(huge, f"The answer is $\\boxed{{{huge}}}$")
    assert evaluation.status in (Status.OK, Status.PARSE_ERROR)
    assert evaluation.verdict is not Verdict.INCORRECT


def test_deeply_nested_output_is_a_quick_parse_error(math_verify):
    output = "$" + "{" * 3000 + "1" + "}" * 3000 + "$"
    evaluation = math_verify.evaluate("1", output)
    assert evaluation.status is Status.PARSE_ERROR
    assert "nested" in evaluation.detail


def test_long_output_is_graded_on_its_tail(math_verify):
    output = "Let me think. " * 30_000 + "So the answer is $\\boxed{12}$."
    evaluation = math_verify.evaluate("12", output)
    assert evaluation.verdict is Verdict.CORRECT
    assert "last" in evaluation.detail


def test_grading_works_off_the_main_thread(math_verify):
    # math-verify's alarm-based time-out would raise here; ours is off
    results = []
    worker = threading.Thread(
        target=lambda: results.append(math_verify.evaluate("\\frac{1}{2}", "$\\boxed{0.5}$"))
    )
    worker.start()
    worker.join()
    assert results[0].verdict is Verdict.CORRECT


def test_reward_style_needs_a_boxed_answer(reward_style):
    assert reward_style.evaluate("5", "The answer is 5").status is Status.NO_ANSWER
    assert reward_style.evaluate("5", "so we get \\boxed{5}.").verdict is Verdict.CORRECT


def test_evaluations_carry_name_version_and_time(math_verify, reward_style):
    for evaluator in (math_verify, reward_style):
        evaluation = evaluator.evaluate("1", "\\boxed{1}")
        assert evaluation.evaluator == evaluator.name
        assert evaluation.version == "1"
        assert evaluation.ms >= 0


def test_a_sets_verdict_does_not_depend_on_the_same_set_written_in_another_order_before_it():
    # Given {3, 2} against the pair (3, 2) graded first in this process
    gold = parse_answer("(3,2)").values[0]
    options = (6, 15, True, False)
    verify_pair(gold, parse_answer("\\{3, 2\\}").values[0], options)

    # When {2; 3}, equal to it as a set but written in the other order, is verified
    again = verify_pair(gold, parse_answer("\\{2;\\, 3\\}").values[0], options)

    # Then it gets math-verify's own verdict, which reads the set in its written order
    assert again is False
