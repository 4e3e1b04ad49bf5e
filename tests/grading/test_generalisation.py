"""Kinds of mistakes found on cases the jury had never seen (peer graders' tests, a held-out
set of realistic outputs), each removed by a general mechanism and tested here on several
outputs of its kind, beside outputs of the same shape that must keep their verdict.
"""

import pytest

from grading.equivalence.check import compare_values, equal_up_to_constant
from grading.types import Verdict
from tests.grading.graded import grade, reasons


@pytest.mark.parametrize(
    ("gold", "wrong"),
    [
        ("\\sin(x)=\\frac{42}{59}", "\\cos(x)=\\frac{42}{59}"),
        ("\\log(x)=2", "\\exp(x)=2"),
        ("\\tan(t)=3", "\\sin(t)=3"),
    ],
)
def test_a_known_function_on_the_left_is_part_of_the_relation_not_a_name(gold, wrong):
    assert compare_values(gold, wrong).equal is False
    assert compare_values(gold, gold.replace("=", " = ")).equal is True


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("f(x) = 2x + 3", "2x + 3"), ("g(t) = t^2", "t^2"), ("y = 2x + 3", "f(x) = 2x + 3")],
)
def test_a_named_function_still_heads_its_value(gold, answer):
    assert compare_values(gold, answer).equal is True


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("10 cm^2", "The area is $\\boxed{10}$."),
        ("3 weeks", "It takes $\\boxed{3}$."),
        ("12 apples", "So she has 12 left.\n\n**Answer:** 12"),
    ],
)
def test_a_gold_written_with_its_unit_states_the_bare_number(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("20:34", "The train leaves at 08:34 P.M.", True),
        ("20:34", "$\\boxed{20:34:00}$", True),
        ("4:30 p.m.", "So the meeting starts at 4:30 PM", True),
        ("20:34", "The train leaves at 08:34 A.M.", False),
        ("16:30", "So the train arrives at 4:45.", False),
    ],
)
def test_clock_times_are_compared_as_moments_of_the_day(gold, output, correct):
    graded = grade(gold, output)

    assert (graded.auto_verdict is Verdict.CORRECT) == correct, graded.evaluations[0]


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("x + \\sqrt2 i", "$\\boxed{x + 1.414 i}$"),
        ("\\frac13, \\sqrt3, \\pi", "$\\boxed{1/3, 1.732, 3.1416}$"),
        (
            "\\begin{pmatrix} 1 & \\frac12 \\\\ \\frac13 & 2 \\end{pmatrix}",
            "[[1, 0.5], [0.3333, 2]]",
        ),
        ("2.3148148 \\times 10^{-3}", "$\\boxed{\\frac{1}{432}}$"),
        ("\\pi r^2", "$\\boxed{3.14 r^2}$"),
    ],
)
def test_a_rounded_value_inside_a_structure_or_expression_is_flagged_not_silent(gold, output):
    graded = grade(gold, output)

    assert graded.needs_review
    assert "approximate_answer" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\sqrt{a^2 b}", "a\\sqrt{b}"),
        ("\\frac{v}{r} \\frac{1}{(1 + s/r)^{3/2}}", "\\frac{v (\\frac{r}{s + r})^{0.5}}{s + r}"),
        ("\\ln(xy)", "\\ln x + \\ln y"),
    ],
)
def test_an_answer_equal_only_for_positive_variables_is_flagged(gold, answer):
    graded = grade(gold, f"$\\boxed{{{answer}}}$")

    assert graded.needs_review
    assert "equal_if_positive" in reasons(graded)


def test_different_expressions_are_not_equal_for_positive_variables_either():
    assert compare_values("x^2", "x^3").equal is False
    assert not compare_values("x^2", "x^3").positive_only


@pytest.mark.parametrize(
    ("gold", "right", "wrong"),
    [
        ("\\frac{1}{2}\\ln|x| + C", "\\frac{1}{2}\\ln|2x| + C", "\\frac{1}{2}\\ln|x^3| + C"),
        ("\\sin^2 x + C", "-\\frac{1}{2}\\cos 2x + C", "\\cos^2 x + C"),
        ("x^2 + C", "x^2 + 7 + C", "x^2 + 5x + C"),
    ],
)
def test_antiderivatives_that_differ_by_a_constant_are_equal(gold, right, wrong):
    assert equal_up_to_constant(gold, right)
    assert not equal_up_to_constant(gold, wrong)
    assert grade(gold, f"$\\boxed{{{right}}}$").auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("44100", "For $n = 20$: $210$.\n\nSquaring: $210^2 = 44100"),
        ("6", "We get $\\frac{3}{4} \\cdot 8 = 6"),
        ("26", "<think>\nSo 2^15 = 32768 and the digit sum is 26"),
    ],
)
def test_an_output_cut_inside_mathematics_or_inside_its_thinking_is_truncated(gold, output):
    assert "truncated" in reasons(grade(gold, output))


@pytest.mark.parametrize(
    "output",
    [
        "Sam buys 3 shirts at $15 each.\n15 + 15 + 15 = 45\nHe gets $\\boxed{5}$ back.",
        "The pen costs $5.",
        "He earns $<<15*6=90>>90 a day.\n#### 90",
    ],
)
def test_an_amount_of_money_is_not_an_unclosed_formula(output):
    assert "truncated" not in reasons(grade("5", output))


@pytest.mark.parametrize(
    ("gold", "problem", "output", "reason"),
    [
        ("85", "What percent of the questions did she answer correctly?", "$\\boxed{0.85}$", "unit_mismatch"),
        ("40", "What percent of 50 is 20?", "The answer is 0.4.", "unit_mismatch"),
        ("-\\frac{3\\pi}{4}", "Find the principal argument of $-1-i$.", "$\\boxed{\\frac{5\\pi}{4}}$", "same_angle"),
        ("30", "Find the angle in degrees.", "The angle is $\\boxed{390^\\circ}$.", "same_angle"),
        ("\\frac{7}{2}", "Express your answer as a common fraction.", "$\\boxed{3\\frac{1}{2}}$", "form_requested"),
        ("-8i", "Express $(1+i)^6$ in the form $a+bi$.", "$\\boxed{8e^{3\\pi i/2}}$", "form_requested"),
    ],
)  # fmt: skip
def test_the_right_quantity_in_a_form_or_range_the_question_excludes_is_flagged(
    gold, problem, output, reason
):
    assert reason in reasons(grade(gold, output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "problem", "output"),
    [
        ("4\\pi", "What is its area? Express your answer in terms of $\\pi$.", "$\\boxed{8\\pi}$"),
        ("30", "How many apples?", "There are $\\boxed{390}$ apples."),
        ("85", "How many points did she score?", "$\\boxed{0.85}$"),
    ],
)
def test_a_plain_wrong_answer_is_not_mistaken_for_another_form(gold, problem, output):
    graded = grade(gold, output, problem=problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("1.5", "So we need 4 times as much.\n\nYou need $1\\frac{1}{2}$ cups of oil."),
        ("\\frac{7}{3}", "In all, they walk $2\\frac{1}{3}$ miles."),
    ],
)
def test_a_sentence_whose_one_formula_opens_with_a_digit_states_that_formula(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_rounding_of_an_exact_value_the_output_wrote_is_flagged_where_exact_is_asked():
    problem = "Find the exact length of the hypotenuse."
    rounded_after_exact = "$$c = \\sqrt{74} \\approx 8.602$$\n\nThe hypotenuse is about **8.60**."
    only_rounded = "Using a calculator, c ≈ 8.60.\n\n$\\boxed{8.60}$"

    assert "approximate_answer" in reasons(grade("\\sqrt{74}", rounded_after_exact, problem))
    graded = grade("\\sqrt{74}", only_rounded, problem)
    assert graded.auto_verdict is Verdict.INCORRECT
    assert "approximate_answer" not in reasons(graded)


def test_bold_option_labels_that_open_a_discussion_are_not_choices():
    output = (
        "Let's test each option.\n\n**(A)** $f(x) = x^2 + 1$: even, not odd.\n\n"
        "**(B)** $f(x) = x^3 - x$: $f(-x) = -f(x)$, odd ✓\n\n**(C)** $f(x) = |x|$: even.\n\n"
        "Only option (B) is odd. Therefore the answer is **(B)**."
    )
    problem = "Which function is odd? (A) $x^2 + 1$ (B) $x^3 - x$ (C) $|x|$"

    graded = grade("B", output, problem=problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)
    alone = output.replace("Therefore the answer is **(B)**.", "So I choose:\n\n**(C)**")
    assert grade("B", alone, problem=problem).auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "problem", "output", "flagged"),
    [
        ("1 \\times 10^{-3}", "Write your answer in scientific notation.", "$\\boxed{10^{-3}}$", False),
        ("0.\\overline{45}", "Write $\\frac{5}{11}$ as a decimal.", "$$\\frac{5}{11} = 0.454545\\ldots$$", False),
        ("0.\\overline{45}", "Write $\\frac{5}{11}$ as a decimal.", "$$\\boxed{\\frac{5}{11}}$$", True),
        ("\\frac{3}{8}", "Express your answer as a common fraction.", "$\\boxed{\\frac{6}{16} = 0.375}$", True),
    ],
)  # fmt: skip
def test_the_asked_form_is_judged_on_the_notation_the_answer_ends_in(
    gold, problem, output, flagged
):
    graded = grade(gold, output, problem=problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert ("form_requested" in reasons(graded)) == flagged


@pytest.mark.parametrize(
    ("gold", "problem", "output", "contradicts"),
    [
        ("Yes", "Is $2^{61} - 1$ a prime number?", "No.\n\nPervushin proved that it is prime.", True),
        ("Yes", "Is 97 prime?", "No. Checking divisors up to 9 finds none, so this is indeed prime.", True),
        ("No", "Is 91 a prime number?", "No. 91 = 7 × 13, so it is composite.", False),
        ("No", "Is 51 prime?", "No. It is not prime, since it is divisible by 3.", False),
    ],
)  # fmt: skip
def test_a_no_whose_explanation_affirms_the_question_contradicts_itself(
    gold, problem, output, contradicts
):
    assert ("contradicts_itself" in reasons(grade(gold, output, problem=problem))) == contradicts


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("2418", "Multiples of 3 sum to 1683, of 5 to 1050.\nSo the total is 1683 + 1050 −"),
        ("24", "Multiples of 5: ⌊100/5⌋ = 20. The number of multiples of 25 is"),
        ("24", "There are 20 multiples of 5 and 4 of 25, so 24 in all; and the multiples of"),
        ("44100", "Squaring: $210^2 = 44100"),
        ("181", "Total students: 7 × 28 = 196.\n\nNow subtract the absent students: 196 − 15 = 18"),
    ],
)
def test_a_cut_off_text_is_flagged_whether_or_not_it_reached_the_gold(gold, output):
    """Held-out sets O and P label a text cut off before its answer ambiguous, not wrong: what
    it would have said is unknown, so the row goes to a human."""
    graded = grade(gold, output)

    assert "truncated" in reasons(graded), reasons(graded)


def test_a_generation_stopped_on_its_length_limit_is_always_flagged():
    graded = grade("2418", "So the total is 1683 + 1050 −", finish_reason="length")

    assert "truncated" in reasons(graded)


@pytest.mark.parametrize(
    "output",
    [
        "$4^2 = 16$, so the answer is between 1 and 2. In fact $\\log_4 8 = \\boxed{2}$.",
        "The answer is not 3. The answer is 2.",
        "So the answer is at least 1. Checking, the answer is 2.",
    ],
)
def test_a_bound_after_the_answer_marker_is_not_a_second_answer(output):
    graded = grade("2", output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("\\begin{pmatrix}\\frac{1}{3}\\\\ \\frac{1}{5} \\end{pmatrix}", "$\\begin{pmatrix}0.33\\\\0.2 \\end{pmatrix}$"),
        ("(\\frac{1}{3}, \\frac{2}{3})", "$\\boxed{(0.333, 0.667)}$"),
        ("\\{\\sqrt2, -\\sqrt2\\}", "$\\boxed{\\{1.414, -1.414\\}}$"),
    ],
)  # fmt: skip
def test_a_vector_tuple_or_set_of_rounded_values_is_flagged(gold, output):
    assert "approximate_answer" in reasons(grade(gold, output))


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("\\$0.60", "$10.00 − $9.40 = $0.60\n\nMia gets 60 cents in change.", True),
        ("\\$0.25", "So the stamp costs 25 cents.", True),
        ("\\$0.60", "Mia gets 6 cents in change.", False),
    ],
)
def test_an_amount_in_cents_followed_by_words_is_read_in_cents(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) == correct


@pytest.mark.parametrize(
    ("gold", "answer"), [("$f(x)$", "$f(y)$"), ("x^2 + 1", "$\\boxed{t^2 + 1}$")]
)
def test_the_same_answer_in_another_variable_is_flagged(gold, answer):
    assert "variable_name" in reasons(grade(gold, answer))


def test_a_check_cut_off_in_its_last_line_is_truncated_even_when_it_holds_the_last_number():
    output = (
        "By inclusion–exclusion: 30 + 20 − 10 = 40.\n\nLet me double-check another way: "
        "multiples of 4 that are not multiples of 12: 30 − 10 = 20, plus 20 gives 4"
    )
    finished = output.replace("Let me double-check another way: ", "So ") + "0 in all"

    assert "truncated" in reasons(grade("40", output))
    assert "truncated" not in reasons(grade("40", finished + "."))


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("86400", "1,440 × 60 = 86,400 seconds.\n\nSo there are **86,400** seconds in a day."),
        ("1440", "24 × 60 = 1,440.\n\nSo there are **1,440** minutes in a day."),
    ],
)
def test_a_count_with_thousands_separators_opening_a_sentence_is_its_answer(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


OPTIONS = "What is the LCM of 12 and 18? (A) 6 (B) 36 (C) 72 (D) 216"


@pytest.mark.parametrize(
    "output",
    [
        f"**Problem:** {OPTIONS}\n\nThe LCM is $2^2 \\cdot 3^2 = 36$.\n\n(B) 36",
        f"> {OPTIONS}\n\nIt is 36, so the answer is (B).",
    ],
)
def test_options_quoted_from_the_problem_are_not_a_list_the_output_ends_on(output):
    graded = grade("B", output, problem=OPTIONS)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    "output",
    [
        "The LCM is 36. The options are (A) 6 (B) 36 (C) 72 (D) 216",
        "Looking at it again: (A) 6 (B) 36 (C) 72 (D) 216",
    ],
)
def test_a_final_statement_that_lists_the_options_is_no_choice(output):
    assert "options_listed" in reasons(grade("B", output, problem=OPTIONS))


def test_an_evaluator_that_read_a_value_of_the_restated_problem_misread_the_output():
    problem = "A recipe for 4 people uses $\\frac{3}{8}$ cup of oil. How much for 16 people?"
    output = (
        f"I need to answer this question: {problem}\n\nSo we need 4 times as much oil:\n\n"
        "$$4 \\times \\frac{3}{8} = \\frac{3}{2} = 1\\frac{1}{2}$$\n\nYou need $1\\frac{1}{2}$ cups of oil."
    )

    graded = grade("1.5", output, problem=problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)
    assert "math_verify" in graded.evaluations[0].misread


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("12", "Checking both cases, the answer is probably 12."),
        ("12", "I think the answer is $\\boxed{12}$."),
        ("12", "So the answer is 12, or possibly 18 if the problem intends $p$ to be larger."),
        ("30", "So the answer is 120 or 30, depending on whether the letters are distinct."),
        ("12", "锯 4 次，4 × 3 = 12 分钟。\n\n所以答案是 12 或 15 分钟。"),
        ("Yes", "Probably yes. The derivative is never negative, though I am not sure."),
    ],
)
def test_an_answer_stated_as_a_guess_or_beside_another_goes_to_a_person(gold, output):
    graded = grade(gold, output)

    assert graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("42", "I believe the greatest common divisor is 14, since both are divisible by 14."),
        ("12", "The answer is 12."),
        ("Yes", "Yes. The derivative $3x^2$ is never negative and vanishes only at 0."),
    ],
)
def test_a_plain_answer_or_a_wrong_guess_keeps_its_verdict_unflagged(gold, output):
    graded = grade(gold, output)

    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "False",
            "So the statement is true when $x$ is nonnegative.",
            "True or false: sqrt(x^2)=x.",
        ),
        ("No", "Yes if $n$ is even; otherwise the sum is odd.", "Is n(n+1)/2 always even?"),
    ],
)
def test_a_yes_or_no_that_holds_only_under_a_condition_is_a_hedge(gold, output, problem):
    assert "hedged" in reasons(grade(gold, output, problem))


def test_a_yes_that_holds_for_every_value_is_no_hedge():
    graded = grade(
        "True", "True. The statement is true for all real $x$.", "True or false: x^2 >= 0."
    )

    assert graded.auto_verdict is Verdict.CORRECT
    assert "hedged" not in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("(2,-3)", "Plugging in gives $y = -3$.\n\nThe vertex is at (2, −3)."),
        ("12", "Adding the three parts, the total equals 12."),
    ],
)
def test_a_verb_or_preposition_before_the_stated_value_is_not_part_of_it(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("(-\\infty,-2]\\cup[3,\\infty)", "x \\le -2 \\ \\text{or}\\ x \\ge 3"),
        ("(-\\infty,1)\\cup(4,\\infty)", "x < 1 \\text{ or } x > 4"),
    ],
)
def test_inequalities_joined_by_or_are_one_union_not_a_hedge(gold, answer):
    graded = grade(gold, f"The solution set is $\\boxed{{{answer}}}$.")

    assert graded.auto_verdict is Verdict.CORRECT, reasons(graded)
    assert "hedged" not in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("\\infty", "\\lim_{x\\to 3^+}\\frac{1}{x-3} = +\\infty", True),
        ("\\frac{1}{2}", "\\int_0^1 x\\,dx = \\frac{1}{2}", True),
        ("10", "\\sum_{k=1}^{4} k = 10", True),
        ("11", "\\sum_{k=1}^{4} k = 10", False),
    ],
)
def test_an_equation_whose_left_side_is_the_operation_asked_about_states_its_right_side(
    gold, answer, equal
):
    assert compare_values(gold, answer).equal is equal


def test_an_unreduced_fraction_where_a_common_fraction_is_asked_is_flagged():
    problem = "Express $0.75$ as a common fraction."

    unreduced = grade("\\frac{3}{4}", "$\\boxed{\\frac{75}{100}}$", problem)
    reduced = grade("\\frac{3}{4}", "$\\boxed{\\frac{3}{4}}$", problem)

    assert unreduced.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(unreduced)
    assert not reduced.needs_review


@pytest.mark.parametrize(
    ("gold", "problem", "output", "contradicts"),
    [
        (
            "Yes",
            "Is the function $f(x) = x^3$ one-to-one on $\\mathbb{R}$?",
            "No. Since $f'(x) = 3x^2 \\ge 0$, $f$ is strictly increasing. Therefore $f$ is one-to-one.",
            True,
        ),
        (
            "Yes",
            "Does the series $\\sum_{n=1}^{\\infty} \\frac{1}{n^2}$ converge?",
            "No. By the p-series test with $p = 2 > 1$, the series converges.",
            True,
        ),
        (
            "No",
            "Does the series $\\sum_{n=1}^{\\infty} \\frac{1}{n}$ converge?",
            "No. The harmonic series does not converge; its partial sums grow like $\\ln n$.",
            False,
        ),
        (
            "No",
            "Is the function $f(x) = x^2$ one-to-one on $\\mathbb{R}$?",
            "No. If $f$ is one-to-one then $f(1) \\ne f(-1)$, but both equal 1.",
            False,
        ),
    ],
)
def test_a_no_whose_explanation_affirms_the_subject_or_verb_of_the_question_contradicts_itself(
    gold, problem, output, contradicts
):
    assert ("contradicts_itself" in reasons(grade(gold, output, problem))) is contradicts


def test_an_answer_in_another_unit_of_speed_than_asked_is_flagged():
    problem = "A car travels 150 km in 2.5 hours. What is its average speed in meters per second?"

    graded = grade("\\frac{50}{3}", "So the speed is $\\boxed{60 \\text{ km/h}}$.", problem)

    assert "unit_mismatch" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("\\begin{pmatrix} 3 \\\\ -2 \\\\ 2 \\end{pmatrix}", "\\mathbf{u} - \\mathbf{v} = \\langle 3, -2, 2 \\rangle", True),
        ("7", "x + y = 7", True),
        ("8", "x + y = 7", False),
        ("2x - y + 3 = 0", "2x - y + 3 = 0", True),
    ],
)  # fmt: skip
def test_an_equation_whose_left_side_names_quantities_states_the_value_on_its_right(
    gold, answer, equal
):
    assert compare_values(gold, answer).equal is equal


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("\\sqrt{5}", "c² = 1² + 2² = 5, so c = √5.\n\nThe hypotenuse has length √5."),
        ("12", "Counting both shelves, the total is 12."),
    ],
)
def test_words_of_the_sentence_before_the_value_are_not_part_of_it(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_leading_negative_word_stays_part_of_the_value():
    assert grade("5", "The change in height is negative 5.").auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "problem", "output", "contradicts"),
    [
        ("YES", "Is 2 the only even prime number? Answer YES or NO.", "NO — every other even number is divisible by 2. That makes 2 the only even prime.", True),
        ("NO", "Is pure iron face-centered cubic at room temperature?", "NO\n\nAt room temperature pure iron is body-centered cubic.", False),
        ("NO", "Is 15 a prime number?", "NO. 15 = 3 × 5, so 15 is not a prime number.", False),
    ],
)  # fmt: skip
def test_a_no_whose_explanation_restates_the_question_as_true_contradicts_itself(
    gold, problem, output, contradicts
):
    assert ("contradicts_itself" in reasons(grade(gold, output, problem))) is contradicts


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("(x, y) = (4, 7)", "y = 7, x = 4", True),
        ("(x, y) = (4, 7)", "y = 4, x = 7", False),
        ("x = 4, y = 7", "(x, y) = (4, 7)", True),
        ("(a) 5, (b) 8", "5, 8", True),
        ("(a) 5, (b) 8", "8, 5", False),
        ("(a) 5, (b) 8", "(a) 5 (b) 8", True),
    ],
)
def test_values_named_by_variable_or_part_label_are_matched_by_name_not_position(
    gold, answer, equal
):
    assert compare_values(gold, answer).equal is equal


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("\\frac{1}{34}", "\\frac134", False),
        ("\\frac{4}{3}", "\\frac134", True),
        ("\\frac{1}{2}", "\\dfrac12", True),
        ("e^2", "\\mathrm{e}^{2}", True),
        ("3 + 4i", "3 + 4\\mathrm{i}", True),
        ("(-3, 3)", "|x| < 3", True),
        ("[-1, 5]", "|x - 2| \\le 3", True),
        ("(-\\infty, -3) \\cup (3, \\infty)", "|x| > 3", True),
        ("(-3, 3)", "|x| \\le 3", False),
    ],
)
def test_latex_conventions_and_bounds_on_a_distance_are_read_as_mathematics_reads_them(
    gold, answer, equal
):
    assert compare_values(gold, answer).equal is equal


@pytest.mark.parametrize(
    ("problem", "flagged"),
    [("", True), ("Solve $x^2 - 8x + 7 < 0$.", False), ("Find the intersection point.", True)],
)
def test_an_inequality_for_a_bare_pair_gold_is_flagged_unless_the_problem_asks_for_an_interval(
    problem, flagged
):
    graded = grade("(1, 7)", "$\\boxed{1 < x < 7}$", problem)

    assert ("pair_or_interval" in reasons(graded)) is flagged


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("\\sqrt[3]{2+\\sqrt5}+\\sqrt[3]{2-\\sqrt5}", "1", True),
        ("\\sqrt[3]{-8}", "-2", True),
        ("\\sqrt[3]{2+\\sqrt5}+\\sqrt[3]{2-\\sqrt5}", "2", False),
        ("\\log_2 3\\cdot\\log_3 8", "3", True),
        ("\\log_{10} 1000", "3", True),
        ("\\log_2 3\\cdot\\log_3 8", "4", False),
    ],
)
def test_odd_roots_are_real_and_logarithm_bases_are_kept(gold, answer, equal):
    assert compare_values(gold, answer).equal is equal
