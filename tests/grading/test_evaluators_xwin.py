"""The Xwin-Math strict and flex evaluators: extraction policies, tolerance, multi-number policy."""

import pytest

from grading.evaluators.xwin import XwinFlex, XwinStrict
from grading.types import Status, Verdict


@pytest.fixture(scope="module")
def strict():
    return XwinStrict()


@pytest.fixture(scope="module")
def flex():
    return XwinFlex()


def test_strict_reads_only_explicit_markers(strict):
    assert strict.evaluate("332", "In total, I see 140+192=332 legs.").status is Status.NO_ANSWER
    assert strict.evaluate("332", "So 140+192=332.\nThe answer is: 332").verdict is Verdict.CORRECT
    assert strict.evaluate("18", "10 + 8 = 18\n#### 18").verdict is Verdict.CORRECT


def test_flex_falls_back_to_box_then_last_number(flex):
    boxed = "so there are vertical asymptotes at $x=-3$ and $x=2$. The graph has $\\boxed{2}$."
    assert flex.evaluate("2", boxed).verdict is Verdict.CORRECT
    last_number = "35 * 4 = 140 legs and 48 * 4 = 192 legs. In total 140+192=332 legs."
    evaluation = flex.evaluate("332", last_number)
    assert evaluation.verdict is Verdict.CORRECT
    assert evaluation.extracted == "332"


def test_decimals_match_within_a_thousandth_relative(flex):
    assert flex.evaluate("15.97", "The answer is 15.9699").verdict is Verdict.CORRECT
    assert flex.evaluate("3/7", "The answer is 0.428571").verdict is Verdict.CORRECT
    assert flex.evaluate("15.97", "The answer is 15.8").verdict is Verdict.INCORRECT


def test_integers_must_be_equal(flex):
    assert flex.evaluate("1000", "The answer is 1001").verdict is Verdict.INCORRECT
    assert flex.evaluate("1", "The answer is 1.0035").verdict is Verdict.INCORRECT


def test_exact_fraction_is_not_rounded_to_an_integer(flex):
    evaluation = flex.evaluate("1", "The answer is $\\frac{2^{16} - 1}{2^{16}}$")
    assert evaluation.verdict is Verdict.INCORRECT


def test_several_numbers_match_in_any_order_under_strict_policy(flex):
    output = "The answer is: 200 ml and 400 ml."
    assert flex.evaluate("400, 200", output).verdict is Verdict.CORRECT
    assert flex.evaluate("400, 200, 100", output).verdict is Verdict.INCORRECT


def test_multi_number_policies_allow_extra_numbers_on_one_side():
    output = "The answer is: 200 ml of 5% alcohol and 400 ml of 10% alcohol."
    assert XwinFlex().evaluate("400, 200", output).verdict is Verdict.INCORRECT
    model_include_gt = XwinFlex(multi_number_policy="model_include_gt")
    assert model_include_gt.evaluate("400, 200", output).verdict is Verdict.CORRECT
    gt_include_model = XwinFlex(multi_number_policy="gt_include_model")
    assert gt_include_model.evaluate("400, 200, 5, 10, 7", output).verdict is Verdict.CORRECT


def test_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="multi_number_policy"):
        XwinFlex(multi_number_policy="lenient")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("7(x - 3)(x + 3)", "7x^2 - 63"),
        ("\\frac{3x + 4}{3}", "x + \\frac{4}{3}"),
        ("13", "\\sqrt{169}"),
        ("(-\\infty, -\\frac{13}{6}) \\cup [2, +\\infty)", "(-\\infty, -13/6) \\cup [2, +\\infty)"),
    ],
)
def test_formulas_compare_symbolically(flex, gold, answer):
    assert flex.evaluate(gold, f"The answer is ${answer}$").verdict is Verdict.CORRECT


def test_different_intervals_are_incorrect(flex):
    evaluation = flex.evaluate("[-5, +\\infty)", "The answer is $(-\\infty, -5)$")
    assert evaluation.verdict is Verdict.INCORRECT


def test_units_after_the_number_are_ignored(strict):
    assert strict.evaluate("400", "The answer is: 400 \\text{meters}").verdict is Verdict.CORRECT


def test_5000_digit_integers_compare_without_crashing(flex):
    huge = "3" * 5000
    assert flex.evaluate(huge, f"The answer is {huge}").verdict is Verdict.CORRECT
    assert flex.evaluate(huge, f"The answer is {huge[:-1]}4").verdict is Verdict.INCORRECT
