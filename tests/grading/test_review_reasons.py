"""What a reviewer sees for a whole row: the verdict and the reasons it goes to a human.

Each kind of doubt is tested through the whole engine (candidates, every evaluator, the
detectors and the jury) on several outputs of that kind, beside outputs that must pass
without a flag, so a reason that fires on everything fails here as surely as one that never
fires.
"""

import pytest

from grading.types import Verdict
from tests.grading.graded import grade, reasons


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("\\frac{2}{3}", "Two of three outcomes win, so $P = \\boxed{0.\\overline{6}}$."),
        ("\\begin{pmatrix} 3 \\\\ 0 \\\\ -1 \\end{pmatrix}", "The sum is $\\boxed{(3, 0, -1)}$."),
        ("(-\\infty, 2) \\cup (5, \\infty)", "The expression is positive, so x < 2 or x > 5."),
        ("\\frac{x+4}{3}", "Swapping roles, $\\boxed{g^{-1}(t) = \\frac{t+4}{3}}$."),
        ("1-i", "In polar form the quotient is $\\boxed{\\sqrt{2}e^{-i\\pi/4}}$."),
        ("56", "Each box holds 8 cans and there are 7 boxes.\nTotal = 56 = 7 × 8"),
    ],
)
def test_equal_answers_in_other_notations_are_correct_without_review(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


def test_an_identity_shown_only_numerically_is_correct_and_says_how():
    graded = grade(
        "\\tan\\frac{x}{2}", "By the half-angle formula, $\\boxed{\\frac{\\sin x}{1+\\cos x}}$."
    )

    assert graded.auto_verdict is Verdict.CORRECT
    assert "numeric_probe" in reasons(graded)
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("15", "15 students.\n\n300 ÷ 20 = 15 rows are needed, and 14 rows hold only 280."),
        ("64", "A square of side 8 has area 8² = 64 square units, as 4 × 16 would also give."),
        ("C", "(A) 14 — no.\n(B) 15 — no.\n(D) 18 — no.\n(C) 16 — yes.\nTherefore the answer is C."),
    ],
)  # fmt: skip
def test_answers_stated_where_extraction_does_not_look_are_found(gold, output):
    graded = grade(gold, output, problem="(A) 14 (B) 15 (C) 16 (D) 18")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "reason"),
    [
        ("5", "So the answer is either 5 or 7.", "hedged"),
        ("\\frac{3}{5}", "So $\\cos\\theta = \\boxed{\\pm\\frac{3}{5}}$.", "hedged"),
        ("12", "The divisors give $\\boxed{12}$, but without itself there are $\\boxed{11}$.", "multiple_answers"),
        ("9", "The prime factors of 63 are 3 and 7.", "multiple_answers"),
    ],
)  # fmt: skip
def test_an_output_that_does_not_commit_to_one_value_is_flagged(gold, output, reason):
    assert reason in reasons(grade(gold, output))


@pytest.mark.parametrize(
    ("gold", "problem", "output", "reason"),
    [
        ("B", "What is 3 × 4? (A) 7 (B) 12 (C) 14 (D) 16", "3 × 4 = 12.\nThe answer is (C) 12.",
         "letter_value_mismatch"),
        ("C", "Which is even? (A) 3 (B) 5 (C) 8 (D) 9", "So the answer is (A) or (C).", "hedged"),
        ("D", "Which is largest? (A) 1 (B) 2 (C) 3 (D) 4", "Answer: D\n\nSo B.", "multiple_answers"),
    ],
)  # fmt: skip
def test_an_option_letter_in_doubt_is_flagged(gold, problem, output, reason):
    assert reason in reasons(grade(gold, output, problem=problem))


def test_a_self_corrected_choice_is_the_corrected_one():
    graded = grade(
        "D",
        "Answer: B\n\nWait, I misread the question: actually it is D.",
        problem="(A) 1 (B) 2 (C) 3 (D) 4",
    )

    assert graded.auto_verdict is Verdict.CORRECT


def test_a_value_that_names_one_option_is_that_option():
    graded = grade("B", "15% of 60 = 9.\n\nThe answer is 9.", problem="(A) 6 (B) 9 (C) 12 (D) 15")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "problem", "output", "reason"),
    [
        ("YES", "Is zinc a metal?", "Mostly yes. Zinc is a transition metal.", "hedged"),
        ("NO", "Is ice denser than water?", "It depends on the pressure and the temperature.", "hedged"),
        ("NO", "Is a square a triangle?", "Yes. A square has four sides, so it is not a triangle.",
         "contradicts_itself"),
        ("YES", "Is 7 prime?", "No.\n\n7 has no divisors but 1 and itself.\n\nFinal answer: Yes",
         "multiple_answers"),
    ],
)  # fmt: skip
def test_a_yes_no_answer_in_doubt_is_flagged(gold, problem, output, reason):
    assert reason in reasons(grade(gold, output, problem=problem))


def test_a_plain_yes_no_answer_is_decided_alone():
    graded = grade("NO", "No. Glass has no long-range order.", problem="Is glass crystalline?")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "reason"),
    [
        ("\\frac{\\pi}{4}", "Since $\\tan 45^\\circ = 1$, the angle is $\\boxed{45^\\circ}$.", "unit_mismatch"),
        ("150", "The length is $\\boxed{1.5 \\text{ m}}$.", "unit_mismatch"),
        ("37.5", "The trip takes 37 min 30 s.", "unit_mismatch"),
        ("2.35", "Rounded, the answer is $\\boxed{2.4}$.", "rounding_differs"),
        ("\\sqrt{3}", "So $x \\approx 1.73$.\n\n$\\boxed{1.73}$", "approximate_answer"),
        ("\\frac{x^3}{3} + C", "The antiderivative is $\\boxed{\\frac{x^3}{3}}$.", "constant_of_integration"),
    ],
)  # fmt: skip
def test_a_near_miss_is_flagged(gold, output, reason):
    assert reason in reasons(grade(gold, output))


def test_a_valid_answer_other_than_the_gold_is_flagged_where_the_problem_admits_many():
    problem = "Find a nonzero vector that is orthogonal to $(1, 2)$."

    graded = grade("(2, -1)", "Any multiple works, e.g. $\\boxed{(-4, 2)}$.", problem=problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "many_answers" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "problem", "output", "reason"),
    [
        ("\\frac{3}{8}", "Express your answer as a common fraction.", "$\\boxed{0.375}$", "form_requested"),
        ("4\\sqrt{3}", "Simplify $\\sqrt{48}$.", "$\\sqrt{48} = \\boxed{2\\sqrt{12}}$", "form_differs"),
        ("3(x-1)(x+1)", "Factor completely: $3x^2 - 3$.", "$\\boxed{3(x^2-1)}$", "form_differs"),
        ("y = 4x - 1", "Find the equation of the line.", "$\\boxed{4x - 1}$", "equation_expected"),
        ("(2, 5)", "Solve the system.", "The solution is $\\{2, 5\\}$.", "order_lost"),
        ("[1, \\infty)", "Solve $x \\ge 1$.", "$\\boxed{[1, \\infty]}$", "interval_notation"),
    ],
)  # fmt: skip
def test_an_equal_answer_in_a_form_that_may_not_count_is_flagged(gold, problem, output, reason):
    graded = grade(gold, output, problem=problem)

    assert reason in reasons(graded)


def test_an_unsimplified_radical_is_fine_when_simplifying_is_not_asked():
    graded = grade(
        "2\\sqrt{3}", "The diagonal is $\\boxed{\\sqrt{12}}$.", problem="Find the diagonal."
    )

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize("gold", ["4:30p..", "12,", "\\frac{3}{"])
def test_a_malformed_gold_never_leaves_a_silent_incorrect(gold):
    graded = grade(gold, "They arrive at $\\boxed{4:30 \\text{ p.m.}}$.")

    assert graded.needs_review
    assert "gold_suspect" in reasons(graded)


@pytest.mark.parametrize("output", ["$\\boxed{\\frac{0}{0}}$", "So x = 0/0."])
def test_an_undefined_answer_is_never_correct(output):
    graded = grade("0", output)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "undefined_value" in reasons(graded)


def test_a_correct_from_any_evaluator_is_never_overruled_silently():
    # Given an output whose last sentence is garbage while an answer appears in the working
    graded = grade("25", "After simplifying, 5 × 5 = 25 ... ompressionx ye pars роман委会")

    assert graded.needs_review


@pytest.mark.parametrize("gold", ["0", "\\frac{0}{0}", "5"])
def test_zero_over_zero_anywhere_is_flagged_not_a_crash(gold):
    graded = grade(gold, "$\\frac{0}{0} \\cdot 5 - \\frac{0}{0} = \\boxed{\\frac{0}{0}}$.")

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "evaluator_error" not in reasons(graded)
    assert graded.needs_review


@pytest.mark.parametrize(
    ("gold", "problem", "output"),
    [
        ("2", "A tank holds 2000 cm³ of water. How many liters is that?", "It holds 2000 cm³."),
        ("1.5", "A plank is 150 cm long. What is its length in meters?", "The plank is 150 cm."),
        ("90", "How many minutes does the film last?", "The film lasts 1.5 hours."),
    ],
)
def test_an_answer_in_another_unit_than_the_question_asks_is_flagged(gold, problem, output):
    assert "unit_mismatch" in reasons(grade(gold, output, problem=problem))


def test_an_answer_in_the_asked_unit_is_not_a_unit_doubt():
    graded = grade("1.5", "The plank is 1.5 m long.", problem="What is its length in meters?")

    assert "unit_mismatch" not in reasons(graded)
    assert graded.auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "output",
    [
        "YES\n\nTrying small primes: 2, 3, 5 and 7 fail, but 209 = 11 × 19.",
        "Yes, it is prime. Note that 209 ÷ 11 = 19.",
    ],
)
def test_a_yes_whose_working_factors_the_number_contradicts_itself(output):
    graded = grade("NO", output, problem="Is 209 a prime number? Answer YES or NO.")

    assert "contradicts_itself" in reasons(graded)


def test_a_yes_for_a_prime_with_no_factorisation_is_decided_alone():
    graded = grade("YES", "YES\n\nNo prime up to 14 divides 197.", problem="Is 197 prime?")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review
