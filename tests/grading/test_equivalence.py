"""Equivalence before "incorrect": answers equal to the gold in another notation are equal.

Each kind of notation math-verify misses is checked on several answers, with a wrong answer
of the same shape beside it, so a rewrite that makes everything equal would fail here.
"""

import pytest

from grading.equivalence.check import compare_values
from grading.equivalence.probe import numerically_equal
from grading.equivalence.structure import factoring_incomplete
from grading.evaluators.symbolic import parse_answer


def equal(gold: str, answer: str, **options) -> bool | None:
    return compare_values(gold, answer, **options).equal


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("\\frac{1}{3}", "0.\\overline{3}", "0.\\overline{6}"),
        ("\\frac{2}{3}", "0.666...", "0.66"),
        ("\\frac{1}{6}", "0.1\\overline{6}", "0.\\overline{16}"),
        ("\\frac{7}{9}", "0.(7)", "0.(8)"),
    ],
)
def test_repeating_decimals_equal_their_fraction(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("\\begin{pmatrix} 4 \\\\ -2 \\\\ 7 \\end{pmatrix}", "(4, -2, 7)", "(4, 2, 7)"),
        ("\\begin{pmatrix} 4 \\\\ -2 \\end{pmatrix}", "\\langle 4, -2 \\rangle", "\\langle -2, 4 \\rangle"),
        ("(1, 5)", "\\begin{pmatrix} 1 \\\\ 5 \\end{pmatrix}", "\\begin{pmatrix} 5 \\\\ 1 \\end{pmatrix}"),
        ("\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "[[1, 2], [3, 4]]", "[[1, 3], [2, 4]]"),
    ],
)  # fmt: skip
def test_vectors_and_matrices_in_other_notations(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("1+i", "\\sqrt{2}e^{i\\pi/4}", "\\sqrt{2}e^{i\\pi/3}"),
        ("\\frac{1-3i}{5}", "\\frac{1}{5}-\\frac{3}{5}i", "\\frac{1}{5}+\\frac{3}{5}i"),
        ("2i", "2(\\cos\\frac{\\pi}{2} + i\\sin\\frac{\\pi}{2})", "2(\\cos\\pi + i\\sin\\pi)"),
    ],
)
def test_complex_numbers_in_polar_or_single_denominator_form(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("(-\\infty, -1) \\cup (2, \\infty)", "x < -1 \\text{ or } x > 2", "x < -1 \\text{ or } x > 3"),
        ("x \\geq -3", "[-3, \\infty)", "(-3, \\infty)"),
        ("[2, 5)", "2 \\le x < 5", "2 < x \\le 5"),
        ("(-\\infty, 4]", "x \\leq 4", "x < 4"),
    ],
)  # fmt: skip
def test_an_inequality_equals_the_interval_it_describes(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


def test_an_unsolved_inequality_is_not_the_interval_it_restates():
    # Given the problem's own inequality, not its solution
    assert not equal("x > 2", "2x + 3 > 7")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\frac{x-3}{2}", "f^{-1}(x) = \\frac{x-3}{2}"),
        ("3x - 2", "y = 3x - 2"),
        ("2x^3 - 1", "f(x) = 2x^3 - 1"),
        ("12", "x = 12"),
    ],
)
def test_a_head_naming_the_answer_is_not_part_of_it(gold, answer):
    assert equal(gold, answer)


def test_a_function_head_declares_its_variable():
    # "f^{-1}(y) = (y-3)/2" is the inverse written in y: the same function as (x-3)/2
    assert equal("\\frac{x-3}{2}", "\\frac{y-3}{2}", allow_rename=True)
    renamed = compare_values("3t^2 - 2", "3x^2 - 2")
    assert not renamed.equal and renamed.renamed == "x->t"


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("48", "48 = 8 \\times 6", "48 = 8 \\times 7"),
        ("400_5", "100_{10} = (400)_5", "100_{10} = (401)_5"),
        ("391", "17 \\times 23 = 391", "17 \\times 23 = 381"),
    ],
)
def test_a_chain_of_equal_sides_states_each_side(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


def test_an_equation_is_equal_to_another_form_of_the_same_equation():
    assert equal("y = 2x + 3", "2x - y + 3 = 0")
    assert not equal("y = 2x + 3", "2x - y - 3 = 0")


def test_a_relation_with_a_number_on_the_left_is_not_a_value():
    # "7 = 11a + c" relates a and c; it does not say the answer is 11a + c
    assert not equal("7 = 11a + c", "11a + c")


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("\\cos x", "\\sin(90^\\circ - x)", "\\sin(90^\\circ + 2x)"),
        ("\\sin 2x", "2\\sin x\\cos x", "\\sin x\\cos x"),
        ("\\frac{x+1}{x^2-1}", "\\frac{1}{x-1}", "\\frac{1}{x+1}"),
        ("(x^2+2x)e^x", "x e^x (x + 2)", "x e^x (x + 1)"),
    ],
)
def test_identities_are_shown_by_the_numeric_probe(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("\\frac{7}{2}", "3\\frac{1}{2}", "3\\frac{1}{3}"),
        ("2.5", "2 1/2", "2 1/3"),
        ("-\\frac{9}{4}", "-2\\tfrac{1}{4}", "-2\\tfrac{3}{4}"),
    ],
)
def test_mixed_numbers_are_read_as_their_value(gold, right, wrong):
    assert equal(gold, right)
    assert not equal(gold, wrong)


@pytest.mark.parametrize(
    ("gold", "right"),
    [
        ("1.2 \\times 10^{7}", "1.2e7"),
        ("1250", "1{,}250"),
        ("1000.99", "1000,99"),
        ("\\text{no solution}", "\\varnothing"),
        ("\\text{does not exist}", "DNE"),
        ("1011_2", "1011"),
        ("4:30 p.m.", "4:30\\text{ p.m.}"),
    ],
)
def test_spellings_of_the_same_value(gold, right):
    assert equal(gold, right)


def test_a_base_subscript_is_not_a_decimal_value():
    # 11 is 1011 in base 2, but the answer "11" gives the digits of another number
    assert not equal("1011_2", "11")


@pytest.mark.parametrize("answer", ["0/0", "\\frac{5}{0} - \\frac{5}{0}"])
def test_undefined_values_are_never_equal(answer):
    result = compare_values("0", answer)

    assert not result.equal
    assert result.undefined


def test_a_decimal_close_to_an_exact_value_is_approximate_not_equal():
    result = compare_values("\\sqrt{2}", "1.414")

    assert not result.equal
    assert result.approximately


def test_two_different_integers_are_not_approximately_equal():
    assert not compare_values("26000", "26200").approximately


def test_the_numeric_probe_is_repeatable_and_refuses_what_it_cannot_evaluate():
    x_squared, expanded = parse_answer("(x-1)(x+1)").values[0], parse_answer("x^2-1").values[0]
    unknown = parse_answer("f(x)").values[0]

    assert numerically_equal(x_squared, expanded) is True
    assert numerically_equal(x_squared, expanded) is True
    assert numerically_equal(unknown, x_squared) is None


@pytest.mark.parametrize(
    ("gold", "answer", "incomplete"),
    [
        ("2(x-1)(x+4)", "(2x-2)(x+4)", True),
        ("2(x-2)(x+2)", "2(x^2-4)", True),
        ("(x+3)(x-2)", "(x-2)(x+3)", False),
        ("4a-2", "4a-2", False),
    ],
)
def test_factoring_that_stops_early_is_told_apart(gold, answer, incomplete):
    assert factoring_incomplete(gold, answer) is incomplete
