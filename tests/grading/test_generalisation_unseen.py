"""Kinds of mistakes found on three sets the jury had never seen (held-out F, G and H, written
for MathJury by people who never saw the engine; docs/grading.md, "Fourth pass"). Each kind
is removed by a general mechanism, tested here on outputs written for the test, beside
outputs of the same shape that must keep their verdict.
"""

import pytest

from grading.answers import read_answer
from grading.candidates import find_candidates
from grading.equivalence import calendar, real_sets
from grading.equivalence.check import compare_values
from grading.types import Verdict
from tests.grading.graded import grade, reasons


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("0, 3", "所以答案是 \\(x = 3\\)（或 \\(x = 0\\)）。"),
        ("-2, 2", "So the solution is $x = 2$ (or $x = -2$)."),
        ("5", "The answer is 5 (or maybe 6)."),
    ],
)
def test_a_second_answer_offered_in_parentheses_is_a_hedge(gold, output):
    assert "hedged" in reasons(grade(gold, output))


@pytest.mark.parametrize(
    "output", ["The answer is $\\frac{1}{2}$ (or 0.5).", "The answer is $\\frac{1}{2}$ or 0.5."]
)
def test_one_value_written_two_ways_is_no_hedge(output):
    graded = grade("\\frac12", output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("12.5\\%", "So the fraction is equal to **12.5 percent**.", True),
        ("40\\%", "Le taux est de 40 pour cent.", True),
        ("0.4", "The answer is 40 percent.", True),
        ("4\\%", "The answer is 40 percent.", False),
    ],
)
def test_a_percent_written_in_words_is_a_percent(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("output", "stated"),
    [
        ("Wir rechnen: 12 + 30 = 42.\n\n**Ergebnis:** 42\n\n(Hinweis: gerechnet ohne Rest.)", "42"),
        ("Calculamos 6 × 7.\n\nResultado: 42", "42"),
        ("先算总数。\n答：一共有 42 个苹果。", "一共有 42 个苹果"),
    ],
)
def test_answer_markers_in_other_languages_mark_the_answer(output, stated):
    final = find_candidates(output).final

    assert final is not None and final.cue == "answer_marker"
    assert final.text == stated


@pytest.mark.parametrize(
    ("problem", "output", "gold", "correct"),
    [
        (
            "A tank holds 95 litres and a pump moves 20 litres a minute. How many minutes does "
            "it take to empty the tank?",
            "95 ÷ 20 = 4.75\n\nSo it takes 5 minutes to empty the tank. In the last minute the "
            "pump moves only 15 litres.",
            "5",
            True,
        ),
        (
            "How many cups of flour are needed?",
            "So we need 3 times as much.\n\nYou need $2\\frac{1}{4}$ cups of flour.",
            "\\frac{9}{4}",
            True,
        ),
        (
            "How many cups of flour are needed?",
            "So we need 2 batches. That makes 6 cups of flour.",
            "6",
            True,
        ),
    ],
)
def test_a_conclusion_with_the_asked_quantity_outranks_a_remark_after_it(
    problem, output, gold, correct
):
    assert (grade(gold, output, problem).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    "output",
    [
        "Therefore the only solution is $x = 5$, and $x = -1$ is rejected.",
        "So $x = 5$ (since $x = -1$ is extraneous).",
        "Hence x = 5, since x = -1 does not satisfy the domain.",
    ],
)
def test_a_value_the_conclusion_rejects_is_not_its_answer(output):
    graded = grade("5", output)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluations[0]


@pytest.mark.parametrize(
    ("gold", "output", "truncated"),
    [
        ("15", "Apples: 3 boxes × 5 = 15\nPears: 4\n\nSo the number of apples is 1", True),
        ("240", "Total = 48 × 5 = 240 km.\n\nSo the distance travelled is 24", True),
        ("15", "Apples: 3 boxes × 5 = 15\n\nSo the number of apples is 15", False),
        ("15", "Apples: 3 boxes × 5 = 16\n\nSo the number of apples is 1", False),
    ],
)
def test_an_output_cut_off_while_writing_a_gold_it_computed_is_truncated(gold, output, truncated):
    assert ("truncated" in reasons(grade(gold, output))) is truncated


@pytest.mark.parametrize(
    ("problem", "output", "flagged"),
    [
        (
            "Rationalize the denominator of $\\frac{2}{\\sqrt{8}}$.",
            "$\\boxed{\\frac{1}{\\sqrt{2}}}$",
            True,
        ),
        (
            "Rationalize the denominator of $\\frac{2}{\\sqrt{8}}$.",
            "$\\boxed{\\frac{\\sqrt{2}}{2}}$",
            False,
        ),
        ("Compute $\\frac{2}{\\sqrt{8}}$.", "$\\boxed{\\frac{1}{\\sqrt{2}}}$", False),
    ],
)
def test_a_root_left_in_the_denominator_is_flagged_when_rationalising_is_the_task(
    problem, output, flagged
):
    graded = grade("\\frac{\\sqrt{2}}{2}", output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert graded.needs_review is flagged, reasons(graded)


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [("32 \\times 10^{3}", True), ("0.32 \\times 10^{5}", True), ("3.2 \\times 10^{4}", False)],
)
def test_a_coefficient_outside_one_to_ten_is_flagged_when_scientific_notation_is_asked(
    answer, flagged
):
    graded = grade(
        "3.2 \\times 10^{4}", f"$\\boxed{{{answer}}}$", "Write 32000 in scientific notation."
    )

    assert graded.auto_verdict is Verdict.CORRECT
    assert graded.needs_review is flagged, reasons(graded)


CUBE = "How many faces does a cube have?\n(A) 4\n(B) 6\n(C) 8\n(D) 12"


@pytest.mark.parametrize(
    ("output", "mismatch"),
    [
        ("A cube has 2 faces on each of 3 axes, so 2 × 3 = 6.\n\nThe answer is (C).", True),
        ("A cube has 2 faces on each of 3 axes, so 2 × 3 = 6.\n\nThe answer is (B).", False),
        ("(A) 4: no\n(B) 6: yes, 2 × 3 = 6\n(C) 8 = 2 × 4: no\n\nThe answer is (B).", False),
        ("Not 2 × 4 = 8.\nThe answer is (B).", False),
        ("(C) 6", True),
    ],
)
def test_a_letter_naming_another_option_than_the_value_just_computed_is_flagged(output, mismatch):
    assert ("letter_value_mismatch" in reasons(grade("B", output, CUBE))) is mismatch


@pytest.mark.parametrize(
    ("problem", "output", "contradicts"),
    [
        (
            "Is $3^5$ greater than $5^3$?",
            "No.\n\nSince $243 > 125$, $3^5$ is larger than $5^3$.",
            True,
        ),
        ("Is $3^5$ greater than $5^3$?", "No.\n\nSince $243 > 125$, $5^3$ is smaller.", False),
        ("Is $3^5$ less than $5^3$?", "No.\n\n$3^5$ is not smaller than $5^3$.", False),
    ],
)
def test_a_no_whose_explanation_restates_the_question_in_other_words_contradicts_itself(
    problem, output, contradicts
):
    assert ("contradicts_itself" in reasons(grade("Yes", output, problem))) is contradicts


@pytest.mark.parametrize(
    ("output", "hedged"),
    [
        ("In a technical sense, yes, it is a metal, but in practice it behaves otherwise.", True),
        ("Strictly speaking, yes.", True),
        ("Yes. It conducts electricity, so it is a metal.", False),
    ],
)
def test_a_yes_qualified_to_one_sense_of_the_question_is_a_hedge(output, hedged):
    assert ("hedged" in reasons(grade("Yes", output, "Is it a metal?"))) is hedged


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("False", "The claim is not true."),
        ("True", "This statement is not false."),
        ("False", "That is not correct."),
        ("True", "True."),
    ],
)
def test_a_negated_truth_word_says_the_opposite(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("problem", "output", "hedged"),
    [
        (
            "How many primes are less than 30?",
            "There are approximately **10** primes below 30.",
            True,
        ),
        ("How many primes are less than 30?", "There are about 10 of them.", True),
        ("How many primes are less than 30?", "There are **10** primes below 30.", False),
        ("Round the area to the nearest integer.", "The area is about **10**.", False),
    ],
)
def test_an_exact_answer_the_output_calls_approximate_is_a_hedge(problem, output, hedged):
    graded = grade("10", output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert ("hedged" in reasons(graded)) is hedged


def test_a_variable_approximately_equal_to_a_value_states_the_value():
    assert read_answer("$x \\approx 3.32$").expression == "3.32"


def test_no_real_solution_against_complex_roots_is_flagged():
    graded = grade(
        "2 \\pm 3i",
        "The discriminant is $16 - 52 < 0$.\n\nSo there are **no real solutions**.",
        "Solve $x^2 - 4x + 13 = 0$.",
    )

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "no_real_solution" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "flagged"),
    [
        ("Ben", "So the oldest is Ben, and Cara is the youngest.", True),
        ("Ben", "So the oldest is Ben.", False),
        ("48", "The integers are 44, 46, and 48, and the largest is **48**.", False),
    ],
)
def test_two_joined_clauses_that_each_state_a_value_are_two_answers(gold, output, flagged):
    assert grade(gold, output).needs_review is flagged


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("6.02 \\times 10^{23}", "6.02 × 10²³"),
        ("x^{12}", "x¹²"),
        ("3.1 \\times 10^{6}", "3.1 million"),
        ("4000", "4 thousand"),
        ("(2, -3)", "2\\mathbf{i} - 3\\mathbf{j}"),
        ("(1, 2, -1)", "\\hat{i} + 2\\hat{j} - \\hat{k}"),
        ("(3, 4)", "3i + 4j"),
    ],
)
def test_superscripts_scale_words_and_unit_vectors_are_read_as_values(gold, answer):
    assert compare_values(gold, answer).equal is True


def test_a_lone_i_stays_the_imaginary_unit():
    assert compare_values("3 + 4i", "3 + 4i").equal is True
    assert compare_values("(3, 4)", "3 + 4i").equal is not True


@pytest.mark.parametrize(
    ("gold", "output", "flagged"),
    [
        ("4.567", "4,567", True),
        ("4.5", "4,5", True),
        ("4.5", "La réponse est 4,5.", False),
        ("4567", "4,567", False),
    ],
)
def test_a_comma_number_read_with_a_decimal_comma_without_context_is_flagged(gold, output, flagged):
    assert ("number_format" in reasons(grade(gold, output))) is flagged


# Held-out J (a mixed set, measured on arrival) and I (looked at on folds 0 and 1 only).


@pytest.mark.parametrize(
    ("gold", "output", "flagged"),
    [
        ("\\frac{y}{3}", "1/3y", True),
        ("\\frac{1}{3y}", "1/3y", True),  # readings differ, whichever equals the gold (CA-041)
        ("\\ln 5", "\\log 5", True),
        ("\\frac{2}{9}", "2:7", True),
        ("\\frac{2}{7}", "2:7", True),
        ("4:15", "4:15", False),
    ],
)
def test_an_answer_that_reads_two_ways_is_flagged_when_the_readings_disagree(gold, output, flagged):
    assert ("two_readings" in reasons(grade(gold, output))) is flagged


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("(-\\infty, 5]", "So the domain is all real numbers x with x ≤ 5."),
        ("(-1, 4)", "The solutions are the real numbers with -1 < x < 4."),
    ],
)
def test_a_bound_stated_in_a_sentence_is_the_set_it_describes(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [("24", "$\\boxed{4!}$", True), ("4", "$\\boxed{4!}$", False), ("4", "The answer is 4!", True)],
)
def test_a_factorial_inside_mathematics_is_not_punctuation(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("9", "$\\boxed{\\text{9 pears}}$"),
        (
            "\\text{center } (1, 4),\\ \\text{radius } 3",
            "Center $\\boxed{(1, 4)}$, radius $\\boxed{3}$.",
        ),
        ("\\text{no solution}", "So $x = 2$ is excluded.\n\nThe solution set is empty."),
        ("2, 4, 5", "Factoring gives three roots.\n\nThe roots are $x = 5$, $x = 2$, and $x = 4$."),
        ("x \\le 1 \\text{ or } x \\ge 6", "**Solution:** $x \\le 1$ or $x \\ge 6$"),
        (
            "2\\left(\\cos\\frac{\\pi}{3} + i\\sin\\frac{\\pi}{3}\\right)",
            "$\\boxed{2\\operatorname{cis}\\frac{\\pi}{3}}$",
        ),
    ],
)
def test_answers_in_words_lists_of_spans_labels_and_cis_are_read_as_values(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluations[0]


def test_a_remark_comparing_the_answer_with_something_else_is_not_the_answer():
    output = "So the farm now has 1,405 sheep, which is 95 fewer than last year."

    assert grade("1405", output).auto_verdict is Verdict.CORRECT


def test_the_clause_that_gives_the_unknown_the_question_names_is_the_answer():
    problem = "For what value of $m$ does the line $y = mx + 1$ pass through $(3, 7)$?"
    output = "Substituting, $7 = 3m + 1$.\n\nTherefore $m = 2$, and the line is $y = 2x + 1$."

    graded = grade("2", output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


def test_an_answer_to_one_part_of_a_gold_in_parts_is_flagged():
    graded = grade("(a)\\ 3;\\ (b)\\ 57", "So the common difference is $\\boxed{3}$.")

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "partial_match" in reasons(graded)


@pytest.mark.parametrize(
    ("problem", "output", "flagged"),
    [
        ("", "3,125", True),
        ("Schreibe 25/8 als Dezimalzahl.", "Ergebnis: 3,125", False),
        ("How many grams are in 3.125 kilograms?", "So there are 3,125 grams.", False),
    ],
)
def test_a_comma_number_is_read_in_the_language_of_its_text(problem, output, flagged):
    assert ("number_format" in reasons(grade("3.125", output, problem))) is flagged


def test_an_output_cut_off_inside_an_open_math_span_is_truncated():
    output = "The LCM is 30, so the answer is 990.\n\nCheck: \\(990 \\div 15 = 6"

    assert "truncated" in reasons(grade("990", output))


# Held-out K (trap-heavy) and L (yes/no, multiple choice and other languages), looked at on
# folds 0 and 1.


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("No", "Нет, это не так.", True),
        ("Yes", "Да, ряд сходится.", True),
        ("No", "是。因为 91 是奇数。", False),
        ("Yes", "はい、そうです。", True),
        ("No", "不是。91 = 7 × 13。", True),
    ],
)
def test_yes_and_no_in_other_languages_are_read(gold, output, correct):
    graded = grade(gold, output, "?")

    assert (graded.auto_verdict is Verdict.CORRECT) is correct
    assert "no_answer" not in reasons(graded)


def test_a_lowercase_letter_names_an_option():
    problem = "What is 0!?\n(A) 1\n(B) 0\n(C) undefined\n(D) infinity"

    assert grade("A", "Nothing to multiply.\n\nThe answer is a.", problem).auto_verdict is (
        Verdict.CORRECT
    )


def test_a_value_written_in_another_option_than_the_one_it_equals_is_flagged():
    problem = "What is 1/4 as a percentage?\n(A) 25%\n(B) 4%\n(C) 0.25%\n(D) 2.5%"

    graded = grade("A", "1 ÷ 4 = 0.25\n\nAnswer: 0.25", problem)

    assert "letter_value_mismatch" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("108000", "答：打九折后售价是 10.8 万元。", "售价是多少元？"),
        ("25", "答：男生有二十五人。", "男生有多少人？"),
        ("300000000", "答：共有 3 亿人。", "有多少人？"),
    ],
)
def test_chinese_numerals_and_scale_signs_are_numbers(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluations[0]


def test_a_kilogram_after_digits_is_a_unit_not_a_thousand():
    assert grade("4000", "面积 = 72000 / 18 = 4000千克").auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        ("\\frac{7}{3}", "7 : 3 = 2,33…\nAntwort: Jeder bekommt etwa 2,33 Liter.",
         "Drei Freunde teilen 7 Liter. Wie viele Liter bekommt jeder?", "approximate_answer"),
        ("25", "(400 − 300) / 400 = 0,25\nОтвет: 0,25",
         "Цена снизилась с 400 до 300 рублей. На сколько процентов снизилась цена?",
         "unit_mismatch"),
    ],
)  # fmt: skip
def test_a_decimal_comma_is_read_as_one_in_a_language_that_writes_it(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


def test_a_count_in_dozens_is_the_gold_in_another_unit():
    graded = grade("18", "30 − 12 = 18 eggs = 1½ dozen.\n\n**Answer: 1½ dozen eggs**")

    assert "unit_mismatch" in reasons(graded)


def test_a_count_offered_with_another_is_a_hedge():
    graded = grade("24", "Then he keeps 24.\n\nSo Ben has 24 marbles left, or 30.")

    assert "hedged" in reasons(graded)


def test_the_unknown_the_question_names_is_read_from_a_sentence_that_goes_on():
    problem = "For what value of $k$ is $x = 3$ a solution of $kx + 6 = 0$?"
    output = "We need 3k + 6 = 0.\nSo k = −2 makes x = 3 a solution of kx + 6 = 0."

    assert grade("-2", output, problem).auto_verdict is Verdict.CORRECT


def test_a_gsm8k_mark_after_a_line_that_concludes_another_number_is_flagged():
    output = "400 ÷ 30 = 13.3, so she finishes the book on the 14th day.\n#### 13.3"

    assert "multiple_answers" in reasons(grade("14", output))


@pytest.mark.parametrize(
    ("output", "hedged"),
    [("Yes, under ideal conditions.", True), ("Yes, it is.", False)],
)
def test_a_yes_that_holds_under_conditions_is_a_hedge(output, hedged):
    assert ("hedged" in reasons(grade("No", output, "Is it visible?"))) is hedged


def test_a_decimal_asked_for_and_a_fraction_given_is_flagged():
    graded = grade("0.375", "$\\boxed{\\frac{3}{8}}$", "Convert $\\frac{3}{8}$ to a decimal.")

    assert "form_requested" in reasons(graded)


# Held-out M (the families of dev_realistic) and N (peer graders' style), folds 0 and 1.


def test_a_letter_after_a_sentence_that_states_another_options_value_is_flagged():
    problem = "What is the median of 2, 8, 3, 6, 4? (A) 3 (B) 4 (C) 6 (D) 8"
    output = "In order: 2, 3, 4, 6, 8. The middle value is 4.\n\nSo the answer is (C)."

    assert "letter_value_mismatch" in reasons(grade("B", output, problem))


def test_t_or_f_answers_a_true_or_false_question():
    problem = "True or False: The product of two irrational numbers is always irrational."
    output = "Take √2 · √2 = 2, which is rational.\n\nAnswer: F"

    assert grade("False", output, problem).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("(5, \\infty)", "So $x - 5 > 0$.\n\nThe domain is all $x > 5$.", "Find the domain."),
        (
            "\\begin{pmatrix} 3 & 0 \\\\ 6 & -3 \\end{pmatrix}",
            "Multiply every entry by 3:\n\n3B = [[3, 0], [6, −3]]",
            "Compute 3B.",
        ),
        (
            "13",
            "There are 11 inner tiles a side, but the border adds one on each end, giving 13 tiles.",
            "How many tiles?",
        ),
    ],
)
def test_sets_of_all_x_named_matrices_and_results_after_giving_are_read(gold, output, problem):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


def test_a_form_asked_for_in_french_is_a_form_asked_for():
    problem = "Quelle est la probabilité ? Donnez la réponse sous forme de fraction."

    graded = grade("\\frac{1}{4}", "Donc 1 ÷ 4 = 0,25.\n\nRéponse : 0,25", problem)

    assert "form_requested" in reasons(graded)


@pytest.mark.parametrize(
    ("output", "flagged"),
    [("We want the logarithm.\n\n$\\boxed{\\log_2 32}$", True), ("$\\boxed{5}$", False)],
)
def test_an_answer_that_restates_the_expression_to_evaluate_is_flagged(output, flagged):
    assert grade("5", output, "Evaluate $\\log_2 32$.").needs_review is flagged


def test_one_number_does_not_answer_a_gold_of_two_values():
    graded = grade("4 \\text{ cm}, 9 \\text{ cm}", "The width is $\\boxed{4}$ cm.")

    assert graded.auto_verdict is Verdict.INCORRECT


# Held-out sets O and P (docs/grading.md, "Fifth pass"): the kinds of mistakes their
# development folds showed, each in examples of our own.


@pytest.mark.parametrize(
    ("gold", "output", "flagged"),
    [
        ("\\frac{7}{3}", "Divide by 3:\n\n$\\boxed{x = \\frac{7}{3} \\approx 2.71}$", True),
        ("\\frac{1}{5}", "So the answer is 1/5 (i.e., 0.25).", True),
        ("\\sqrt{3}", "$\\boxed{\\sqrt{3} \\approx 1.7}$", False),
        ("\\frac{2}{3}", "So the answer is 2/3 (i.e., 0.67).", False),
    ],
)
def test_an_answer_restated_as_an_unequal_decimal_states_two_answers(gold, output, flagged):
    """One of the two values is a slip, and which one the output meant is unknown."""
    assert ("multiple_answers" in reasons(grade(gold, output))) == flagged


@pytest.mark.parametrize(
    ("gold", "output", "verdict"),
    [
        ("Falsch", "Falsch. Gegenbeispiel: $1$ und $-1$ sind ungerade, ihre Summe $0$ nicht.", "correct"),
        ("Vrai", "Vrai, car tout entier pair s'écrit $2k$.", "correct"),
        ("否", "91 = 7 × 13，所以 91 不是质数。答案：否", "correct"),
        ("Nein", "Ja, denn 15 ist durch 3 teilbar.", "incorrect"),
    ],
)  # fmt: skip
def test_yes_no_golds_of_other_languages_are_graded_as_yes_or_no(gold, output, verdict):
    graded = grade(gold, output, "Wahr oder falsch? / Vrai ou faux ? / 是否？")

    assert graded.auto_verdict.value == verdict
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output"),
    [("8", "Un octágono tiene ocho lados.\n\nRespuesta: ocho."), ("12", "Réponse : douze."),
     ("20", "Antwort: zwanzig")],
)  # fmt: skip
def test_an_answer_that_is_one_number_word_of_another_language_is_that_number(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_latex_braced_comma_is_a_decimal_comma_in_a_french_text():
    output = "Donc $x = \\frac{10}{4} = 2{,}5$.\n\nLa solution est $x = 2{,}5$."

    graded = grade("\\frac{5}{2}", output, "Résoudre l'équation $4x - 10 = 0$.")

    assert graded.auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "verdict"),
    [
        ("even", "Hence $g$ is an **even** function.", "correct"),
        ("\\text{Saturday}", "It will be a saturday.", "correct"),
        ("even", "So $g$ is not even.", "incorrect"),
        ("even", "It is both even and odd.", "incorrect"),
        ("-i", "$i$", "incorrect"),
    ],
)
def test_a_text_answer_is_the_gold_with_articles_and_the_questions_words_around_it(
    gold, output, verdict
):
    problem = "Is the function $g(x) = x^4$ even, odd, or neither? What day of the week is it?"

    assert grade(gold, output, problem).auto_verdict.value == verdict


def test_an_offer_after_the_answer_is_not_the_answer():
    output = (
        "Area = 6 × 4 = 24.\n\nThe area is 24 square units. If you'd like, I can also find "
        "the perimeter, which would be 2(6 + 4) = 20."
    )

    graded = grade("24", output, "A rectangle is 6 by 4. What is its area?")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


def test_either_of_two_letters_is_a_hedge():
    problem = "Which is a prime? (A) 21 (B) 23 (C) 25 (D) 27"

    graded = grade(
        "B", "23 has no divisors, but so might 27.\n\nSo the answer is either (B) or (D).", problem
    )

    assert "hedged" in reasons(graded)


def test_a_letter_after_a_clause_naming_another_options_value_is_a_mismatch():
    problem = "What is the greatest common divisor of 12 and 18? A) 3  B) 4  C) 6  D) 9"

    graded = grade("C", "The GCD is 6, so the answer is (B).", problem)

    assert "letter_value_mismatch" in reasons(graded)


def test_a_division_before_a_bracket_reads_two_ways():
    assert "two_readings" in reasons(grade("16", "1", "What is $8 \\div 2(2+2)$?"))


def test_an_output_that_calls_the_question_impossible_goes_to_a_person():
    output = "Since $2 + 3 < 9$, such a triangle cannot exist. The question has no valid answer."

    assert "declined" in reasons(grade("14", output, "A triangle has sides 2, 3 and 9. Perimeter?"))


def test_a_final_answer_other_than_the_value_the_working_ends_on_is_flagged():
    output = "Two of the eight outcomes work.\n\n$P = \\frac{2}{8} = 0.25$\n\n$\\boxed{0.2}$"

    assert "gold_stated_elsewhere" in reasons(grade("\\frac{1}{4}", output))


def test_it_depends_in_german_hedges_a_yes_or_no():
    output = (
        "Das hängt davon ab. Jede monotone beschränkte Folge konvergiert; insofern teilweise wahr."
    )

    assert "hedged" in reasons(
        grade("Falsch", output, "Wahr oder falsch: Jede beschränkte Folge konvergiert.")
    )


# Held-out sets Q and R, measured on arrival after O and P: the kinds of their development folds.


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("2\\frac{1}{4}", "Add the sixths.\n\nMaria ran 2 1/4 miles in all.", "How far did she run?"),
        ("3, 5", "Both work.\n\nSo $n \\in \\{5, 3\\}$.", "Find all positive integers $n$."),
        ("f(x) = 2x", "So $f$ is the map $x \\mapsto 2x$.", "Find all functions $f$."),
        ("x^3 + C", "$$\\int 3x^2\\,dx = \\boxed{x^3 + K}$$", "Find $\\int 3x^2\\,dx$."),
        ("0", "none", "How many real solutions does $x^2 + 4 = 0$ have?"),
    ],
)  # fmt: skip
def test_names_maps_memberships_renamed_constants_and_none_state_the_gold(gold, output, problem):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


def test_either_of_two_bare_letters_hedges_the_letter_read_from_the_text():
    problem = "Which has the highest boiling point? A. H2O  B. H2S  C. H2Se  D. H2Te"
    output = (
        "Hydrogen bonding favours water.\n\nSo the answer is either A or D, depending on the data."
    )

    assert "hedged" in reasons(grade("A", output, problem))


@pytest.mark.parametrize(
    ("problem", "flagged"),
    [
        ("On what interval is $g(x) = x^4$ increasing?", True),
        ("Find the domain of $\\ln x$.", False),
    ],
)
def test_an_interval_of_increase_that_differs_only_in_its_endpoints_is_a_convention(
    problem, flagged
):
    graded = grade("[0, \\infty)", "So the answer is $\\boxed{(0, \\infty)}$.", problem)

    assert ("endpoint_convention" in reasons(graded)) == flagged


# Held-out set S, measured on arrival: the kinds of its development folds.


@pytest.mark.parametrize(
    ("output", "correct"),
    [
        ("Because the two one-sided limits differ, the limit does not exist.", True),
        ("Since both sides tend to 0, the answer is that the limit exists.", False),
    ],
)
def test_a_sentence_opening_on_its_reason_states_its_main_clause(output, correct):
    graded = grade("\\text{does not exist}", output, "Evaluate $\\lim_{x \\to 0} \\sin(1/x)$.")

    assert (graded.auto_verdict is Verdict.CORRECT) == correct


@pytest.mark.parametrize(
    ("problem", "answer", "flagged"),
    [
        ("How many integers lie between 20 and 30?", "11", True),
        ("How many integers lie between 20 and 30?", "12", False),
        ("How many primes are there below 30?", "11", False),
    ],
)
def test_a_count_between_two_bounds_that_differs_only_in_the_bounds_is_a_convention(
    problem, answer, flagged
):
    graded = grade("9", f"Counting them one by one, there are {answer}.", problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert ("endpoint_convention" in reasons(graded)) == flagged


# Held-out sets T and U, measured on arrival: the kinds of their development folds.


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("\\frac{2}{3}", "Two thirds of the class is left.", "What fraction of the class stays?"),
        ("\\{1, 2, 3\\}", "$\\{k \\in \\mathbb{Z} \\mid 0 < k < 4\\}$", "List the integers."),
        ("0", "No solutions — the two lines never meet.", "How many solutions are there?"),
    ],
)
def test_fraction_words_integer_ranges_and_an_answer_before_its_reason_state_the_gold(
    gold, output, problem
):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


def test_a_sentence_of_mathematics_that_concludes_with_so_states_what_follows_it():
    graded = grade("5", "$r^2 = 25$, so $r = \\pm 5$.", "A circle has area $25\\pi$. Its radius?")

    assert graded.evaluation("answer_check").extracted == "\\pm 5"
    assert graded.needs_review


def test_a_yes_whose_explanation_names_the_opposite_of_the_question_contradicts_itself():
    output = "YES. Its decimal expansion never repeats, so the number is irrational."

    graded = grade("NO", output, "Is $\\pi$ a rational number? Answer YES or NO.")

    assert "contradicts_itself" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("2 hours 10 minutes", "The ride takes 130 minutes.", "How long is the ride?"),
        ("18:45", "Der Zug kommt um 18.45 Uhr an.", "Wann kommt der Zug an?"),
        ("81000", "3 · 27.000 € = 81.000 €", "Drei Autos kosten je 27.000 €. Zusammen?"),
    ],
)
def test_a_time_or_number_written_in_another_format_is_flagged_not_marked_wrong(
    gold, output, problem
):
    graded = grade(gold, output, problem)

    assert graded.needs_review
    assert {"unit_mismatch", "number_format"} & set(reasons(graded))


def test_an_output_that_says_which_bounds_it_counted_between_two_numbers_is_a_convention():
    output = "The numbers between 2 and 6 are 2, 3, 4, 5, 6 (inclusive), so the probability is $\\boxed{\\frac{1}{2}}$."
    problem = "A number is drawn from 1 to 10. What is the probability it is between 2 and 6?"

    assert "endpoint_convention" in reasons(grade("\\frac{3}{10}", output, problem))


@pytest.mark.parametrize(
    ("question", "stated"),
    [
        ("What do the tickets cost in all?", "$40 in all"),
        ("How much does each friend pay?", "That's $10 per friend"),
    ],
)
def test_a_share_the_question_does_not_ask_for_remarks_on_the_total_before_it(question, stated):
    output = "5 × 8 = $40 in all. That's $10 per friend if they share it."

    final = find_candidates(output, f"Four friends buy 5 tickets at $8 each. {question}").final

    assert final.text == stated


# Held-out sets V and W, measured on arrival: the kinds of their development folds.


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("3.2 \\times 10^{5}", "320000 = 3.2 x 10^5", "Write 320000 in scientific notation."),
        (
            "(-\\infty, 1) \\cup (1, \\infty)",
            "The domain is all real numbers except $x = 1$.",
            "Find the domain of $g(x) = \\frac{1}{x - 1}$.",
        ),
        (
            "42",
            "The farmer has 42 sheep left.\n\nExplanation: 50 - 8 = 42. The dog has 4 legs.",
            "A farmer had 50 sheep and sold 8. How many are left?",
        ),
    ],
)
def test_typed_powers_of_ten_reals_but_some_and_an_answer_explained_after_state_the_gold(
    gold, output, problem
):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("output", "changes"),
    [
        ("True. Any even number times 3 is even, so the statement is false.", True),
        ("True — wait, I made a mistake: 3 times an even number is even. So it is false.", False),
    ],
)
def test_an_opening_yes_or_no_the_conclusion_reverses_is_two_answers(output, changes):
    problem = "True or False: 3 times an even number is odd."

    assert ("multiple_answers" in reasons(grade("False", output, problem))) is changes


def test_a_second_value_offered_with_and_possibly_is_a_hedge():
    output = "Both roots check out, so $x = 4$, and possibly $x = -1$."

    assert "hedged" in reasons(grade("4", output, "Solve $\\sqrt{x + 5} = x - 1$."))


def test_a_pair_named_in_prose_without_its_order_lost_its_order():
    output = "They are the roots of $t^2 - 9t + 14 = 0$, so the two numbers are 2 and 7."
    problem = "Find the ordered pair $(a, b)$ with $a + b = 9$, $ab = 14$ and $a > b$."

    assert "order_lost" in reasons(grade("(7,2)", output, problem))


# Held-out sets X and Y, measured on arrival: the kinds of their development folds.


def test_a_symbol_after_the_verb_is_what_the_sentence_states():
    output = "The numerator grows faster than the denominator.\n\nSo the limit is ∞."

    graded = grade("\\infty", output, "Evaluate $\\lim_{x \\to \\infty} \\frac{x^3}{x + 1}$.")

    assert graded.auto_verdict is Verdict.CORRECT


def test_a_first_sentence_worked_out_to_another_value_is_two_answers():
    output = "The farm has 96 eggs.\n\nWorking it out: 8 × 12 = 86.\n#### 86"

    graded = grade("96", output, "8 hens lay 12 eggs each. How many eggs?")

    assert "multiple_answers" in reasons(graded)


@pytest.mark.parametrize(
    ("output", "flagged"),
    [
        ("18 ÷ 20 = 0.9\n#### 0.9", True),
        ("18 ÷ 20 = 0.9, so he got 0.9% right.\n#### 0.9", False),  # a wrong percent, said so
    ],
)
def test_a_proportion_for_what_percentage_is_flagged(output, flagged):
    graded = grade("90", output, "Sam got 18 of 20 right. What percentage did he get right?")

    assert ("unit_mismatch" in reasons(graded)) is flagged


@pytest.mark.parametrize(
    ("output", "hedged"),
    [("So x might be 12.", True), ("One might be tempted to guess 12, but x = 12.", False)],
)
def test_might_be_before_a_value_is_a_hedge(output, hedged):
    assert ("hedged" in reasons(grade("12", output, "Solve $x - 4 = 8$."))) is hedged


def test_a_letter_line_after_the_working_chooses_that_letter():
    problem = "What is 8 × 6?\n(A) 42  (B) 48  (C) 54  (D) 56"

    graded = grade("B", "8 × 6 = 48.\n\nC. 48", problem)

    assert "letter_value_mismatch" in reasons(graded)


def test_a_yes_whose_explanation_reverses_the_comparison_contradicts_itself():
    output = "Yes — granite, at about 6 on the Mohs scale, is much harder than talc at 1."

    graded = grade("NO", output, "Is talc harder than granite? Answer YES or NO.")

    assert "contradicts_itself" in reasons(graded)


# Held-out sets AA to AD (docs/grading.md, "Four more (AA to AD)").


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("36\\pi", "Area = 12π + 24π = 36π square metres.", True),
        ("9\\pi", "So the area of the disc is 9π cm².", True),
        ("9\\pi", "So the area of the disc is 9 cm².", False),
        ("3\\sqrt{5}", "The diagonal = √20 + √5 = 3√5 units.", True),
    ],
)
def test_a_constant_after_the_result_of_an_equation_stays_with_it(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    "output",
    [
        "Итак, ответ: 7 или 8.",
        "So the chance is 1/6 or 1/3, depending on whether order matters.",
        "The count is 20 or 21, if both ends are included.",
    ],
)
def test_two_values_joined_by_or_hedge_in_any_language_or_before_a_condition(output):
    assert "hedged" in reasons(grade("7" if "ответ" in output else "20", output))


def test_a_condition_after_the_answer_is_not_the_answer():
    graded = grade("\\frac{1}{6}", "So the probability is 1/6, assuming the die is fair.")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


def test_a_passage_written_over_and_over_is_cut_off_by_its_length_limit():
    loop = "We check the remainder again: 3^4 = 81 leaves remainder 1 when divided by 5.\n"
    output = "Powers of 3 modulo 5 repeat.\n" + loop * 4 + "We check the"

    assert "truncated" in reasons(grade("1", output, "What is 3^{100} mod 5?"))


def test_a_line_written_once_is_no_loop():
    output = (
        "We check the remainder again: 3^4 = 81 leaves remainder 1 when divided by 5.\n"
        "So $3^{100} = (3^4)^{25}$ leaves remainder $\\boxed{1}$."
    )

    assert "truncated" not in reasons(grade("1", output, "What is 3^{100} mod 5?"))


@pytest.mark.parametrize(("gold", "correct"), [("(2, -5)", True), ("(-5, 2)", False)])
def test_coordinates_named_one_by_one_in_prose_are_the_pair(gold, correct):
    output = "Completing the square gives the centre at h = 2 and k = -5."

    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


def test_a_matrix_written_as_a_list_of_rows_after_its_name_is_the_matrix():
    gold = "\\begin{pmatrix} 2 & 0 \\\\ 0 & 3 \\end{pmatrix}"

    assert grade(gold, "Therefore B = [[2, 0], [0, 3]].").auto_verdict is Verdict.CORRECT
    assert grade(gold, "Therefore B = [[2, 0], [3, 0]].").auto_verdict is Verdict.INCORRECT


def test_a_final_box_that_contradicts_the_value_solved_for_just_above_is_two_answers():
    problem = "Solve for $w$: $2w + 3 = 11$."
    output = "Subtracting 3 and halving:\n\n$$w = 4.$$\n\n**Final Answer:**\n\n$$\\boxed{-4}$$"
    agreeing = output.replace("\\boxed{-4}", "\\boxed{4}").replace("w = 4", "w = \\frac{8}{2}")

    assert "multiple_answers" in reasons(grade("4", output, problem))
    assert not grade("4", agreeing, problem).needs_review


@pytest.mark.parametrize(
    ("gold", "problem", "output"),
    [
        (
            "y = -2x + 7",
            "Find the line through (1, 5) and (3, 1). Give it in slope-intercept form.",
            "The line is $2x + y - 7 = 0$.",
        ),
        (
            "x + 2y - 3z + 4 = 0",
            "Find the plane. Enter your answer in the form $Ax + By + Cz + D = 0$.",
            "$$\\boxed{x + 2y - 3z = -4}$$",
        ),
    ],
)
def test_an_equation_arranged_otherwise_than_the_form_asked_is_flagged(gold, problem, output):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert "form_requested" in reasons(graded)


def test_an_equation_in_the_form_asked_is_not_flagged():
    problem = "Find the line through (1, 5) and (3, 1). Give it in slope-intercept form."

    assert not grade("y = -2x + 7", "So $y = 7 - 2x$.", problem).needs_review


@pytest.mark.parametrize(("gold", "correct"), [("x^2 - 6x + 7", True), ("x^2 - 6x + 9", False)])
def test_a_polynomial_set_to_zero_states_the_polynomial(gold, correct):
    output = "The conjugate is a root too, so the polynomial is\n\n$$x^2 - 6x + 7 = 0$$"

    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    "output",
    [
        "So the set is $1 \\le x \\le 4$, i.e. $[1, 4]$.",
        "$$1 \\le x \\le 4, \\quad \\text{i.e. } x \\in [1, 4]$$",
        "So the walk takes 150 minutes, i.e. 2 hours 30 minutes.",
    ],
)
def test_an_answer_said_again_after_i_e_is_read_once(output):
    gold = "150" if "walk" in output else "[1, 4]"

    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_complex_number_written_equal_to_its_polar_form_states_that_form():
    output = "$$-2 = 2\\left(\\cos\\pi + i\\sin\\pi\\right)$$"

    assert grade("2e^{i\\pi}", output, "Write $-2$ in polar form.").auto_verdict is (
        Verdict.CORRECT
    )


def test_a_yes_whose_explanation_says_the_other_is_more_so_contradicts_itself():
    output = "Yes. Ice floats on water because water is slightly denser."
    problem = "Is ice denser than water?"

    assert "contradicts_itself" in reasons(grade("No", output, problem))


@pytest.mark.parametrize(
    ("gold", "output", "contradicts"),
    [
        (
            "YES",
            "Yes. Silver conducts at 63 MS/m and gold at 45 MS/m, so silver is far better.",
            False,
        ),
        ("YES", "No. Silver's conductivity is well above gold's.", True),
        ("YES", "NO. Silver conducts at 63 MS/m while gold conducts at 45 MS/m.", True),
        ("YES", "YES. Silver conducts at 63 MS/m while gold conducts at 45 MS/m.", False),
        (
            "YES",
            "Is silver lower than gold? No, silver is higher than gold.\n\nFinal answer: YES",
            False,
        ),
    ],
)
def test_a_yes_or_no_that_the_explanations_own_comparison_denies_contradicts_itself(
    gold, output, contradicts
):
    problem = "Is the conductivity of silver higher than that of gold? Answer YES or NO."

    assert ("contradicts_itself" in reasons(grade(gold, output, problem))) is contradicts


def test_a_no_to_does_it_converge_whose_explanation_says_it_converges_contradicts_itself():
    problem = "Does the series $\\sum 1/n^3$ converge? Answer YES or NO."
    output = "NO. It is a p-series with p = 3, so the series converges."

    assert "contradicts_itself" in reasons(grade("YES", output, problem))


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("4", "P = W/t = 1200/300 = 4 W"),
        ("2.5", "v = d/t = 10.0/4.0 = 2.5 m/s"),
        ("0.5", "c = n/V = 0.25/0.50 = 0.5 M"),
        ("15\\%", "r = 3/20 = 0.15 = 15%"),
    ],
)
def test_a_formula_worked_out_to_a_number_and_unit_states_that_number(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize("output", ["So x = 2 or x = 5.", "x = 2, x = 5"])
def test_solutions_listed_as_assignments_are_not_a_chain(output):
    assert grade("2, 5", output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("output", "value"),
    [("The force is 12 N.", "12"), ("It does 450 J of work.", "450"), ("The charge is 3 C.", "3")],
)
def test_a_one_letter_si_unit_after_a_number_is_a_unit(output, value):
    assert grade(value, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("62300", "答：人口は6万2300人です。"),
        ("27000", "답: 2만 7천 원"),
        ("150000000", "答案：1亿5000万"),
    ],
)
def test_numbers_written_in_myriads_are_their_value(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("73", "Respuesta: setenta y tres canicas."),
        ("46", "Resposta: quarenta e seis."),
        ("58", "Réponse : cinquante-huit."),
        ("15", "Respuesta: quince huevos."),
    ],
)
def test_numbers_in_words_of_other_languages_are_read(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize("output", ["답: 12 또는 13", "ตอบ 12 หรือ 13"])
def test_or_in_korean_and_thai_is_a_hedge(output):
    assert "hedged" in reasons(grade("12", output))


def test_a_thai_answer_line_and_a_different_english_final_answer_are_two_answers():
    output = "พื้นที่ = 4 × 5 = 20\n\nตอบ 20 ตร.ซม.\n\nFinal answer: 18"

    assert "multiple_answers" in reasons(grade("20", output))


def test_an_unreduced_fraction_where_chinese_asks_for_simplest_form_is_flagged():
    problem = "12 个苹果中有 8 个是红的，红苹果占几分之几？（用最简分数表示）"

    assert grade("\\frac{2}{3}", "答案：$\\frac{8}{12}$", problem).needs_review


def test_yuan_and_jiao_are_one_amount():
    assert grade("4.5", "答：一共 4 元 5 角。").auto_verdict is Verdict.CORRECT


AMC_PROBLEM = (
    "What is $3^2 + 4^2$?\n\n$\\textbf{(A)}\\ 7 \\qquad \\textbf{(B)}\\ 12 \\qquad "
    "\\textbf{(C)}\\ 25 \\qquad \\textbf{(D)}\\ \\frac{49}{2} \\qquad \\textbf{(E)}\\ 49$"
)


def test_amc_options_are_read_without_their_latex():
    from grading import options

    assert options.problem_options(AMC_PROBLEM) == {
        "A": "7",
        "B": "12",
        "C": "25",
        "D": "\\frac{49}{2}",
        "E": "49",
    }


@pytest.mark.parametrize(
    "output",
    [
        "Answer: (E)\n\n$3^2 + 4^2 = 9 + 16 = 25.$",
        "We add: 9 + 16 = 25.\n\nAnswer: (E)",
    ],
)
def test_a_letter_whose_working_ends_on_another_options_value_is_flagged(output):
    assert "letter_value_mismatch" in reasons(grade("C", output, AMC_PROBLEM))


def test_a_fraction_the_working_ends_on_names_its_option():
    problem = "A die is rolled. P(even)?\n(A) 1/6\n(B) 1/3\n(C) 1/2\n(D) 2/3"
    output = "P(no odd) is irrelevant; P(even) = 3/6 = 1/2.\n\nAnswer: (D)"

    assert "letter_value_mismatch" in reasons(grade("C", output, problem))


def test_saying_none_of_the_listed_options_fits_declines():
    output = "The sum is 26, and none of the listed options equals 26, so the sum is 26."

    assert "declined" in reasons(grade("C", output, AMC_PROBLEM))


@pytest.mark.parametrize(
    ("output", "hedged"),
    [
        ("So the trip costs $45, or about $38 if the toll is skipped.", True),
        ("So the trip costs $45, or about $1.50 a mile.", False),
        ("So the trip costs $45, or about $45.", False),
    ],
)
def test_another_value_offered_with_or_about_is_a_hedge(output, hedged):
    assert ("hedged" in reasons(grade("45", output))) is hedged


def test_dollars_where_cents_are_asked_are_another_unit():
    graded = grade("340", "So she has $3.40 in all.", "How many cents does Ava have?")

    assert "unit_mismatch" in reasons(graded)


# Held-out sets AI to AL (docs/grading.md, "Eight more (AA to AH), then four (AI to AL)").


def test_a_markdown_final_answer_heading_is_no_gsm8k_answer_line():
    output = "### Step 1\n$$3 \\times 4 = 12$$\n\n### Final Answer\n$$\\boxed{12}$$"

    assert not grade("12", output).needs_review


@pytest.mark.parametrize("ending", [" 🎉", " 🚀✨", " 😊"])
def test_an_emoji_after_the_last_sentence_is_not_a_cut_off(ending):
    output = (
        "So the total is $\\boxed{42}$.\n\n"
        "That means each of the six friends gets seven of the forty-two stickers!" + ending
    )

    assert "truncated" not in reasons(grade("42", output))


@pytest.mark.parametrize(
    "after",
    [
        "In words: all real numbers at least 4.",
        "In other words, every number from 4 upward.",
    ],
)
def test_a_restatement_in_words_after_the_answer_is_not_the_answer(after):
    output = f"**Range:** $[4, \\infty)$\n\n{after}"

    assert grade("[4, \\infty)", output).auto_verdict is Verdict.CORRECT


def test_a_side_note_or_another_count_after_the_answer_is_not_the_answer():
    output = (
        "So there are 12 positive divisors. As a side note, 6 of them are even. "
        "If we also count negative divisors, there are 24 in total."
    )

    assert grade("12", output, "How many positive divisors does 60 have?").auto_verdict is (
        Verdict.CORRECT
    )


def test_an_unreduced_fraction_where_rationalising_was_asked_is_flagged():
    graded = grade(
        "\\frac{\\sqrt{6}}{2}",
        "$\\boxed{\\frac{3\\sqrt{6}}{6}}$",
        "Rationalize: $\\frac{3}{\\sqrt{6}}$",
    )

    assert graded.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(graded)


def test_a_letter_with_another_offered_as_possible_is_a_hedge():
    problem = "Which is prime?\n(A) 9\n(B) 15\n(C) 21\n(D) 23\n(E) 27"
    output = "23 has no divisors but 1 and itself, so the answer is (D) or possibly (E)."

    assert "hedged" in reasons(grade("D", output, problem))


def test_the_reply_after_a_reasoning_block_gives_the_verdict():
    problem = "True or False: $2^{10} > 1000$."
    output = "<think>\n1024 vs 1000. Hmm, False? No: 1024 > 1000. True.\n</think>\n\n**False.**"

    assert grade("True", output, problem).auto_verdict is Verdict.INCORRECT


def test_a_verdict_taken_back_with_actually_and_not_restated_contradicts_itself():
    problem = "True or False: every prime is odd."
    output = "**True.** Primes have no divisors but 1 and themselves.\n\nActually, 2 is a prime and it is even."

    assert "contradicts_itself" in reasons(grade("False", output, problem))


def test_a_complex_number_with_decimal_parts_equals_its_fractions():
    assert grade("\\frac{3}{5}-\\frac{6}{5}i", "$\\boxed{0.6 - 1.2i}$").auto_verdict is (
        Verdict.CORRECT
    )
    assert grade("\\frac{3}{5}-\\frac{6}{5}i", "$\\boxed{0.6 - 1.3i}$").auto_verdict is (
        Verdict.INCORRECT
    )


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("[1,4)\\cup(4,\\infty)", "The domain is all $x$ with $x \\ge 1$, $x \\ne 4$."),
        ("[-3,0)\\cup(0,3]", "$$\\boxed{-3 \\le x \\le 3,\\ x \\ne 0}$$"),
    ],
)
def test_a_bound_with_a_value_left_out_is_the_set_without_it(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_range_bounding_the_function_itself_is_an_interval():
    output = "**Range:** $1 \\le g(x) \\le 7$"

    assert grade("[1,7]", output).auto_verdict is Verdict.CORRECT
    assert grade("[1,6]", output).auto_verdict is Verdict.INCORRECT


def test_a_plus_or_minus_value_of_a_function_at_a_number_is_a_hedge():
    graded = grade("4", "$$\\boxed{g(2) = \\pm 4}$$", "Find $g(2)$.")

    assert "hedged" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("-3, -1, 1, 3", "$$\\boxed{x = \\pm 1,\\ \\pm 3}$$"),
        ("2+i, 2-i, -2+i, -2-i", "**Answer:** $z = \\pm 2 \\pm i$"),
    ],
)
def test_plus_or_minus_signs_list_every_value_they_stand_for(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_yes_whose_own_inequality_says_no_contradicts_itself():
    problem = "Is $\\log_3 80$ greater than 4?"
    output = "Since $80 < 81 = 3^4$, we get $\\log_3 80 < 4$.\n\n**Answer: Yes**"

    assert "contradicts_itself" in reasons(grade("No", output, problem))


def test_a_true_whose_explanation_says_it_does_not_converge_contradicts_itself():
    problem = "True or False: Every alternating series converges."
    output = "**True.** But $\\sum (-1)^n$ alternates and does not converge."

    assert "contradicts_itself" in reasons(grade("False", output, problem))


def test_a_rounded_value_after_the_exact_one_written_in_unicode_is_flagged():
    problem = "What is the area of a circle of radius 3 cm? Express your answer in terms of π."
    output = "A = πr² = π × 9 = 9π cm²\n\nUsing π ≈ 3.1416, A ≈ 28.27 cm².\n\nThe area is about **28.27 cm²**."

    assert "approximate_answer" in reasons(grade("9\\pi", output, problem))


# Held-out sets AM to AP (docs/grading.md, "Round four").


def test_a_final_answer_after_a_conclusion_that_states_the_gold_is_flagged():
    output = "Total marbles: 27 + 36 = 63.\n\nSo Leo has 63 marbles now.\n\n**Final Answer:** $\\boxed{36}$"

    graded = grade("63", output, "Leo had 27 marbles and won 36 more. How many does he have?")

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "gold_stated_elsewhere" in reasons(graded)


def test_a_factor_in_the_concluding_sentence_is_not_its_value():
    output = "Prices rose 5% in all.\nSo the new price is 80 × 1.05 = 84 dollars.\n#### 84"

    assert not grade("80", output).needs_review


@pytest.mark.parametrize(
    ("gold", "answer", "problem"),
    [
        ("10", "-1", "What is the remainder when $10!$ is divided by 11? Hmm, find it."),
        ("4", "11", "Find an integer $x$ such that $2x \\equiv 1 \\pmod{7}$."),
    ],
)
def test_another_representative_of_the_gold_residue_is_flagged(gold, answer, problem):
    graded = grade(gold, f"So the answer is $\\boxed{{{answer}}}$.", problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "same_residue" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "answer", "problem"),
    [
        ("3", "10", "What is the remainder when 52 is divided by 7?"),
        ("23", "83", "Find $x$ with $x \\equiv 2 \\pmod 3$, $x \\equiv 3 \\pmod 5$, $x < 30$."),
    ],
)
def test_an_unreduced_remainder_or_one_of_several_moduli_is_simply_wrong(gold, answer, problem):
    graded = grade(gold, f"So the answer is $\\boxed{{{answer}}}$.", problem)

    assert "same_residue" not in reasons(graded)


def test_a_sum_left_unworked_for_a_number_is_flagged():
    graded = grade("58", "She buys 6 packs of 11 and uses 8, so the answer is 6 × 11 − 8.")

    assert graded.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(graded)


def test_a_fraction_is_a_number_not_a_sum_left_unworked():
    assert not grade("\\frac{3}{8}", "The probability is $\\boxed{3/8}$.").needs_review


def test_a_point_with_a_plus_or_minus_sign_is_both_points():
    gold = "(0, \\pm 3)"

    assert grade(gold, "The vertices are $(0, 3)$ and $(0, -3)$.").auto_verdict is Verdict.CORRECT
    assert grade(gold, "The vertex is $(0, 3)$.").auto_verdict is Verdict.INCORRECT


def test_a_right_angle_in_words_is_ninety_degrees():
    output = "The slopes multiply to $-1$, so the lines meet at a right angle."

    assert grade("90", output).auto_verdict is Verdict.CORRECT
    assert grade("60", output).auto_verdict is Verdict.INCORRECT


def test_a_percent_increase_for_a_growth_factor_is_flagged():
    problem = "The side of a cube is tripled. By what factor does its volume increase?"
    graded = grade("27", "The volume grows by $\\boxed{2600\\%}$.", problem)

    assert "unit_mismatch" in reasons(graded)


def test_a_polar_answer_where_the_rectangular_form_is_asked_is_flagged():
    problem = "Compute $(2\\operatorname{cis} 10^\\circ)(2\\operatorname{cis} 20^\\circ)$ in rectangular form."
    graded = grade("2\\sqrt{3}+2i", "$\\boxed{4\\operatorname{cis} 30^\\circ}$", problem)

    assert "form_requested" in reasons(graded)


def test_one_polar_notation_for_another_is_no_change_of_form():
    problem = "Write $-3 + 3i$ in polar form."
    gold = "3\\sqrt{2}\\left(\\cos\\frac{3\\pi}{4} + i\\sin\\frac{3\\pi}{4}\\right)"
    graded = grade(gold, "$\\boxed{3\\sqrt{2}\\operatorname{cis}\\frac{3\\pi}{4}}$", problem)

    assert "form_requested" not in reasons(graded)


OPTIONS = "Which shape is the graph of $x^2 + y^2 = 9$?\n(A) Line\n(B) Circle\n(C) Parabola\n(D) Hyperbola"


def test_a_letter_boxed_with_the_text_of_another_option_is_flagged():
    graded = grade("B", "It is a circle of radius 3. $\\boxed{\\text{(C) Circle}}$", OPTIONS)

    assert "letter_value_mismatch" in reasons(graded)


def test_a_letter_after_a_result_with_its_unit_that_names_another_option_is_flagged():
    problem = "Pipes fill a tank in 12 hours; twice as many pipes take how long?\n(A) 4 (B) 6 (C) 8 (D) 24"
    output = "The work is 12 pipe-hours per pipe, so it takes 12 / 2 = 6 hours. The answer is (C)."

    assert "letter_value_mismatch" in reasons(grade("B", output, problem))


def test_an_option_named_in_the_working_and_another_boxed_is_flagged():
    output = "The graph is a circle, which is option (B).\n\n$\\boxed{D}$"

    assert "multiple_answers" in reasons(grade("B", output, OPTIONS))


def test_a_no_whose_explanation_restates_a_question_with_decimals_contradicts_itself():
    problem = "Is $0.5$ (one half, written as a decimal) equal to $\\frac{2}{4}$? Answer YES or NO."
    output = "NO. Since 2/4 reduces to 1/2, we see that 0.5 is indeed equal to 2/4."

    assert "contradicts_itself" in reasons(grade("YES", output, problem))


def test_the_bold_value_of_a_closing_sentence_is_its_answer():
    output = "## Final Answer\nThe school needs to order a total of **$1,250** worth of books."

    graded = grade("1250", output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


def test_a_bold_value_with_another_offered_beside_it_stays_a_hedge():
    output = "## Final Answer\nThe fare comes to **$18** (or $22 if the toll road is taken)."

    assert "hedged" in reasons(grade("18", output))


@pytest.mark.parametrize(
    "output",
    [
        '```json\n{\n  "apples": 12,\n  "pears": 19,\n  "answer": 31\n}\n```',
        "```python\nprint(12 + 19)\n```\nOutput:\n```\n31\n```",
        '{"reasoning": "12 + 19", "final_answer": "31"}',
    ],
)
def test_an_answer_in_a_code_block_or_a_json_field_is_read(output):
    graded = grade("31", output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


# Held-out sets AQ to AT (docs/grading.md, "Round five").


def test_the_last_sentence_of_a_verification_line_is_not_the_answer():
    output = (
        "Together they print 40 + 60 = 100 pages a minute.\nIt will take them 2,400 ÷ 100 = 24 minutes.\n\n"
        "Verification: the first printer prints 40 × 24 = 960 pages and the second 60 × 24 = "
        "1,440, and 960 + 1,440 = 2,400 ✓. The second printer's share is 1,440."
    )

    assert grade("24", output).auto_verdict is Verdict.CORRECT


def test_a_labelled_line_states_the_value_its_concluding_clause_gives():
    output = "Total cost: 3 × 12 = 36 dollars for the shirts, so the bill comes to $41."

    assert grade("41", output).auto_verdict is Verdict.CORRECT


def test_a_coefficient_before_the_unknown_is_not_its_value():
    output = "$4x + 1 = x + 19 \\Rightarrow 3x = 18 \\Rightarrow x = 6$."

    assert grade("6", output, "Solve $4x + 1 = x + 19$ for $x$.").auto_verdict is Verdict.CORRECT


def test_a_letter_names_its_option_where_the_gold_is_the_options_text():
    problem = "A triangle has sides 8, 15 and 17. It is\n(A) Acute\n(B) Right\n(C) Obtuse"

    assert grade("Right", "$8^2 + 15^2 = 289 = 17^2$.\n\n**B**", problem).auto_verdict is (
        Verdict.CORRECT
    )
    assert grade("Acute", "**B**", problem).auto_verdict is Verdict.INCORRECT


def test_a_letter_with_another_offered_in_brackets_is_a_hedge():
    problem = "What is the acceleration at the top?\n(A) 0\n(B) 9.8 m/s² down\n(C) 9.8 m/s² up"
    output = "The answer is A (or B if air resistance is ignored)."

    assert "hedged" in reasons(grade("B", output, problem))


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("57", "Running total: 40 + 17 = 57 points.\n\n**Final Answer**\n\\boxed{75}"),
        (
            "-1, \\frac{1}{3}, 2",
            "So the roots are $-1$, $\\frac{1}{3}$, and $2$.\n\n$$\\boxed{2}$$",
        ),
        (
            "9",
            "Since $(x - 2)^2 \\ge 0$, the least value of $g$ is 9, reached at $x = 2$.\n\n$$\\boxed{x = 2}$$",
        ),
    ],
)
def test_the_gold_stated_on_the_line_before_a_different_final_answer_is_flagged(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "gold_stated_elsewhere" in reasons(graded)


def test_a_restatement_after_the_box_that_differs_from_it_is_flagged():
    output = "The quadratic is negative between its roots, so\n\n$$\\boxed{(1, 4)}$$\n\nThat is, the solution set is $1 \\le x \\le 4$."

    assert "multiple_answers" in reasons(grade("(1,4)", output))


def test_a_conversion_after_the_answer_is_no_restatement():
    output = "6 × 250 = 1500 grams.\nThe answer is 1500 g. That is about 3.3 pounds of flour."

    assert not grade("1500", output).needs_review


def test_a_true_to_a_claim_about_every_case_that_holds_only_sometimes_contradicts_itself():
    problem = "True or False: $|x| = x$ for every real number $x$."
    output = "True. The absolute value keeps a number's size, and $|x| = x$ only when $x \\ge 0$."

    assert "contradicts_itself" in reasons(grade("False", output, problem))


def test_if_and_only_if_is_no_exception_to_a_claim_about_every_case():
    problem = "Is every bounded monotone sequence convergent? Answer YES or NO."
    output = "A monotone sequence converges if and only if it is bounded.\n\nAnswer: YES"

    assert not grade("YES", output, problem).needs_review


# Held-out sets AU to AX (docs/grading.md, "Round six").


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("2 h 40 min", "Die Reise dauert **2 Stunden und 40 Minuten**.", True),
        ("2時間40分", "答え：2時間40分", True),
        ("2時間40分", "答え：2時間45分", False),
        ("2.5", "El viaje dura 2 horas y 30 minutos.", True),
    ],
)
def test_a_duration_in_hours_and_minutes_is_read_in_any_language(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


def test_minutes_alone_for_hours_and_minutes_stay_a_change_of_unit():
    problem = "How long is the film? Give your answer in hours and minutes."

    assert "unit_mismatch" in reasons(grade("2 h 40 min", "The film lasts 160 minutes.", problem))


@pytest.mark.parametrize(
    "output",
    [
        "Answer: **3** (only \\(k = 2\\)).",
        "答え：1500円（送料込みでは2000円）",
    ],
)
def test_a_remark_in_brackets_after_the_answer_is_not_part_of_it(output):
    gold = "3" if output.startswith("Answer") else "1500"

    assert grade(gold, output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        (
            "7.5",
            "Ganancia diaria: 2,5 × 3 = 7,5 €.\n\nComprobación: en 4 días serían 4 × 7,5 = 30 €.",
        ),
        ("2.4", "Also: 2400 g sind 2,4 kg."),
        ("48", "Der Flächeninhalt beträgt 48 cm²."),
        ("12.30", "Por lo tanto, el total es $\\boxed{12{,}30\\ €}$."),
    ],
)
def test_checks_verbs_and_amounts_of_other_languages_are_read(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_decrease_in_words_gives_the_sign_of_a_change():
    problem = "A town's population went from 2,000 to 1,700. What was the percent change?"
    output = "The change is 300 / 2000 = 15%.\n\nThe population decreased by 15%."

    assert grade("-15", output, problem).auto_verdict is Verdict.CORRECT
    assert grade("15", output, problem).auto_verdict is Verdict.CORRECT


def test_values_listed_with_semicolons_in_a_decimal_comma_language_are_a_set():
    output = (
        "Die Lösungen sind $x = 1{,}5$ und $x = 4$.\n\n$$\\boxed{\\mathbb{L} = \\{1{,}5;\\ 4\\}}$$"
    )

    assert grade("\\frac{3}{2}, 4", output).auto_verdict is Verdict.CORRECT


def test_an_amc_letter_in_bold_with_another_options_value_is_flagged():
    problem = "How many divisors does 12 have?\n\n$\\textbf{(A)}\\ 4 \\qquad \\textbf{(B)}\\ 6 \\qquad \\textbf{(C)}\\ 8$"
    output = "Since $12 = 2^2 \\cdot 3$, it has $3 \\cdot 2 = 6$ divisors.\n\nThe answer is \\(\\textbf{(C)}\\ 6\\)."

    assert "letter_value_mismatch" in reasons(grade("B", output, problem))


def test_two_letters_joined_in_latex_text_are_a_hedge():
    problem = "The series converges\n(A) absolutely (B) conditionally (C) not at all"

    assert "hedged" in reasons(
        grade("B", "The final answer is: $\\boxed{A \\text{ or } B}$", problem)
    )


def test_a_text_gold_stated_of_the_integral_is_the_gold():
    problem = "Evaluate $\\int_1^\\infty \\frac{dx}{x}$ or state that it diverges."

    assert grade("\\text{diverges}", "**The integral diverges.**", problem).auto_verdict is (
        Verdict.CORRECT
    )


# Round seven (AY to BB): docs/grading.md, "Round seven".


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("840", "Weekly pay is $420, so Omar earns $840 in 2 weeks."),
        ("96", "So the printer prints 96 pages over 4 minutes."),
        ("15", "Nadia saves 15 dollars a week."),
        ("1250", "The account holds 1250 dollars after 3 years."),
    ],
)
def test_the_period_a_value_is_for_is_not_part_of_it(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("\\frac{2}{9}", "The probability is 2 out of 9.", "What is the probability?"),
        ("\\frac{1}{4}", "There is a 1 in 4 chance of rain.", "What is the probability?"),
        ("2", "Answer: 2 out of 9", "How many of the 9 cards are aces?"),
    ],
)
def test_a_count_out_of_a_total_is_a_proportion_or_the_count_asked_for(gold, output, problem):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


def test_a_range_given_as_the_answer_is_a_hedge():
    graded = grade("245", "**Answer:** about 240–250 kilometres")

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "hedged" in reasons(graded)
    assert grade("245", "So a full charge lasts about 240 to 250 kilometres.").needs_review


def test_a_box_holding_where_the_last_step_started_is_flagged():
    output = (
        "Total stamps: $6 \\times 15 = 90$.\n\nAfter giving some away:\n$90 - 25 = 65$ stamps "
        "are left.\n\n$\\boxed{90}$"
    )
    checked = "So x = 9.\nCheck: 9 + 4 = 13 ✓\n\n$\\boxed{9}$"

    assert "multiple_answers" in reasons(grade("65", output))
    assert not grade("9", checked).needs_review


def test_a_count_from_one_number_to_another_leaves_the_endpoints_to_convention():
    problem = "A runner passed mile marker 12 and then mile marker 30. How many markers from 12 to 30 did she pass?"
    inclusive = "How many integers are there from 12 to 30, inclusive?"

    assert "endpoint_convention" in reasons(grade("19", "So she passed 18 markers.", problem))
    assert "endpoint_convention" not in reasons(grade("19", "So there are 18.", inclusive))


def test_a_time_on_the_hour_answers_a_question_for_the_hour():
    problem = "A bus leaves at 9 AM and the ride takes 6 hours. At what hour does it arrive?"

    assert grade("3", "It arrives at 15:00.", problem).auto_verdict is Verdict.CORRECT
    assert grade("3", "It arrives at 16:00.", problem).auto_verdict is Verdict.INCORRECT


def test_a_latex_decimal_comma_inside_an_expression_in_a_decimal_comma_language():
    output = "La masse vaut donc environ $1{,}99 \\times 10^{30}$ kg.\n\nRéponse : $1{,}99 \\times 10^{30}$"

    assert grade("1.99 \\times 10^{30}", output).auto_verdict is Verdict.CORRECT


def test_a_decimal_for_a_ratio_or_a_general_solution_for_listed_values_is_flagged():
    ratio = grade("3:4", "The ratio of their areas is **0.75**.", "What is the ratio of the areas?")
    family = grade(
        "\\frac{\\pi}{3}, \\frac{5\\pi}{3}",
        "$$x = \\frac{\\pi}{3} + 2n\\pi \\text{ or } x = \\frac{5\\pi}{3} + 2n\\pi, \\quad n \\in \\mathbb{Z}$$",
        "Solve $\\cos x = \\frac12$ for $0 \\le x < 2\\pi$.",
    )

    assert "form_requested" in reasons(ratio)
    assert "form_requested" in reasons(family)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("4.5", "You will need 4 1/2 cups of sugar."),
        ("12000", "The plant bottles 12,000 litres in 5 days."),
        ("31", "The total comes to thirty-one dollars ($31)."),
    ],
)
def test_a_sentence_with_its_subject_and_verb_states_its_one_value(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_a_sentence_that_describes_with_several_numbers_is_not_one_value():
    output = "**Answer:** The ellipse has centre $(2, 3)$ and major axis $8$."

    assert grade("\\frac{(x-2)^2}{16} + \\frac{(y-3)^2}{9} = 1", output).needs_review


AQUA = "What is the number?\nOptions: A)18, B)21, C)24, D)27, E)30"


def test_aqua_options_written_without_spaces_are_read():
    assert "letter_value_mismatch" in reasons(grade("C", "6 × 4 = 24\n\nAnswer: (B) 24", AQUA))
    assert grade("C", "6 × 4 = 24\n\nAnswer: (C) 24", AQUA).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "output",
    [
        "**Answer: B (maybe C)**",
        "So the answer is B (21), or C (24) if the last term is counted.",
        "**Answer: B (21) — or C (24) under the other reading.**",
    ],
)
def test_a_second_letter_offered_beside_the_first_is_a_hedge(output):
    assert "hedged" in reasons(grade("B", output, AQUA))


def test_a_value_then_the_letter_it_names_must_agree():
    problem = "The solution set of $x^2 < 9$ is\nA. $(-3, 3)$\nB. $[-3, 3]$\nC. $(3, \\infty)$"

    wrong = grade("A", "So the solution set is $(-3, 3)$, which is option B.", problem)
    right = grade("A", "So the solution set is $(-3, 3)$, which is option A.", problem)

    assert "letter_value_mismatch" in reasons(wrong)
    assert right.auto_verdict is Verdict.CORRECT and not right.needs_review


def test_an_explanation_after_the_letter_that_ends_on_another_options_value_is_flagged():
    output = "**Answer: (D)**\n\nExplanation: 3 rows of 8 seats give 3 × 8 = 24 seats.\n\nSo the hall has 24 seats."

    assert "letter_value_mismatch" in reasons(grade("C", output, AQUA))


def test_a_summary_after_the_answer_naming_another_option_is_flagged():
    output = "**Answer: (C)**\n\n---\n**Summary:** the product is 27, option D."
    ruled_out = "**Answer: (C)**\n\nSo option D is not right, since 27 is 3 cubed."

    assert "multiple_answers" in reasons(grade("C", output, AQUA))
    assert not grade("C", ruled_out, AQUA).needs_review


def test_an_option_declared_correct_is_the_answer():
    assert grade("C", "6 × 4 = 24. Option C is correct.", AQUA).auto_verdict is Verdict.CORRECT
    assert grade("C", "So (C) is the right answer.", AQUA).auto_verdict is Verdict.CORRECT


def test_an_output_that_stops_on_a_subordinating_word_is_truncated():
    assert "truncated" in reasons(grade("7", "So far the count is 5, and it grows when"))


# Round eight (BC to BF): docs/grading.md, "Round eight".


def test_a_percent_of_a_number_is_the_percent_or_the_amount_the_gold_asks_for():
    output = "18 / 120 = 0.15, so 18 is 15% of 120."

    assert grade("15\\%", output).auto_verdict is Verdict.CORRECT
    assert grade("18", "The tip is 15% of 120.").auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("-4\\%", "**The price ends at 96% of what it was.**", "What is the percent change?"),
        (
            "44",
            "**The new volume is 1.44 times the original volume.**",
            "By what percent does it grow?",
        ),
    ],
)
def test_a_level_or_a_factor_for_a_percent_change_is_flagged(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "unit_mismatch" in reasons(graded)


def test_a_verb_before_an_approximate_value_leaves_the_value():
    graded = grade("36\\pi", "**The pool holds about 113.1 m³.**")

    assert graded.needs_review
    assert graded.evaluation("answer_check").extracted == "113.1"


def test_a_lone_word_left_by_the_reading_is_no_answer():
    graded = grade("12", "So the answer 12 is right")

    assert graded.evaluation("answer_check").status.value == "parse_error"
    assert grade("\\infty", "The limit is infinity.").auto_verdict is Verdict.CORRECT


def test_an_output_that_stops_inside_a_display_is_truncated():
    output = "## Volume\n\n$$V = \\pi r^2 h = \\pi (3)^2"
    closed = "$$V = 9\\pi \\cdot 4 = 36\\pi$$"

    assert "truncated" in reasons(grade("36\\pi", output))
    assert "truncated" not in reasons(grade("36\\pi", closed))


def test_square_and_cubic_inches_for_feet_are_another_unit():
    output = "Area = 24 in × 36 in = **864 square inches**"

    assert "unit_mismatch" in reasons(grade("6", output, "How many square feet is the rug?"))


def test_a_named_angle_or_side_is_the_subject_not_the_answer():
    assert grade("60", "Angle $B$ measures sixty degrees.").auto_verdict is Verdict.CORRECT
    assert grade("9", "Side $QR$ is 9 cm long.").auto_verdict is Verdict.CORRECT


def test_a_general_solution_in_degrees_where_values_are_listed_is_flagged():
    output = "So\n\n- $x = 30^\\circ + 360^\\circ k$\n- $x = 150^\\circ + 360^\\circ k$\n\nwhere $k$ is any integer."

    assert "form_requested" in reasons(grade("30^\\circ, 150^\\circ", output))


def test_another_value_in_brackets_after_a_bold_answer_is_a_hedge():
    hedged = grade("30", "So the perimeter is **30** (or $28$ if the gap is left open).")
    same = grade("0.25", "So the chance is **1/4** (or 0.25).")

    assert "hedged" in reasons(hedged)
    assert not same.needs_review


def test_an_approximation_with_its_unit_that_is_not_the_value_is_flagged():
    assert "multiple_answers" in reasons(grade("9\\pi", "**Area = 9π m² ≈ 26.27 m²**"))
    assert not grade("9\\pi", "**Area = 9π m² ≈ 28.27 m²**").needs_review


# Round nine (BG to BJ): docs/grading.md, "Round nine".


def test_a_number_written_as_programmers_do_is_read_in_its_base():
    problem = "Write 175 in hexadecimal."

    assert grade("AF_{16}", "175 = 10 × 16 + 15, so 175 = 0xAF.", problem).auto_verdict is (
        Verdict.CORRECT
    )
    assert grade("110_2", "The answer is 0b110.").auto_verdict is Verdict.CORRECT
    assert grade("110_2", "The answer is 0b111.").auto_verdict is Verdict.INCORRECT


def test_a_supposition_after_the_answer_does_not_replace_it():
    problem = "A shelf holds 30 books. 18 are checked out. How many books are on the shelf?"
    output = (
        "30 − 18 = 12 books are on the shelf. If 4 more were returned tomorrow, 16 books "
        "would be on the shelf."
    )

    graded = grade("12", output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert graded.evaluation("answer_check").extracted == "12"


def test_a_counted_subject_with_a_one_word_predicate_is_the_answer():
    problem = "A garden has 25 tulips. 9 of them wilted. How many tulips are healthy?"

    graded = grade("16", "The garden had 25 tulips, so 25 − 9 = 16 tulips are healthy.", problem)

    assert graded.auto_verdict is Verdict.CORRECT


def test_an_output_that_only_restates_the_givens_gives_no_answer():
    problem = "Ana buys 4 bags with 12 oranges each. She eats 5. How many oranges are left?"
    output = "Ana buys 4 bags. Each bag has 12 oranges. She eats 5 oranges."
    worked = "Ana buys 4 bags. Each bag has 12 oranges, so 4 × 12 = 48. She eats 5 oranges."

    graded = grade("43", output, problem)

    assert graded.evaluation("answer_check").status.value == "no_answer"
    assert "no_answer" in reasons(graded)
    assert grade("43", worked, problem).evaluation("answer_check").status.value != "no_answer"


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "450",
            "P = IV = 0.5 A × 0.9 V = 0.45 W\n\nThe power is 0.45 W.",
            "What is the power in milliwatts?",
        ),
        (
            "3.2",
            "m = 3,200 g in total.\n\n**Mass: 3,200 g**",
            "What is the total mass, in kilograms?",
        ),
        (
            "75",
            "$3 ÷ 4 = $0.75\n\nOne ticket costs **$0.75**.",
            "Four tickets cost $3. What does one cost, in cents?",
        ),
    ],
)
def test_the_gold_in_another_unit_than_the_question_asks_is_flagged(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "unit_mismatch" in reasons(graded)


def test_a_bare_number_in_the_unit_of_the_working_is_just_wrong():
    problem = "Tom walks 25 minutes twice a day. How many hours does he walk in 6 days?"
    output = "2 × 25 = 50 minutes a day, and 6 × 50 = 300 minutes.\n#### 300"

    graded = grade("5", output, problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert not graded.needs_review


def test_the_unit_asked_but_a_wrong_value_is_no_unit_mismatch():
    problem = "Pencils cost 35 cents each. How much do 12 pencils cost, in dollars?"

    graded = grade("4.2", "12 × 35 = 420, so 12 pencils cost **$420**.", problem)

    assert "unit_mismatch" not in reasons(graded)


def test_a_qualified_yes_then_a_no_is_two_answers():
    problem = "Is 1/3 equal to 0.333? Answer YES or NO."
    output = "Approximately, yes: 0.333 is close to 1/3. But 1/3 = 0.3333…, so exactly, the answer is no."

    assert "multiple_answers" in reasons(grade("NO", output, problem))


def test_a_table_whose_last_row_stops_before_its_bar_is_truncated():
    rows = "| Step | Value |\n|---|---|\n| Area | 12 × 5 = 60 |\n"

    assert "truncated" in reasons(grade("60", rows + "| Perimeter | 2(12 + 5) = 34"))
    assert "truncated" not in reasons(grade("60", rows.rstrip()))


def test_a_check_after_the_value_in_a_relative_clause_is_not_the_answer():
    output = "Both sides give $3x = 21$, so $x$ equals 7, which checks: $3 \\cdot 7 = 21$."

    assert grade("7", output).auto_verdict is Verdict.CORRECT


def test_an_answer_for_each_of_two_readings_is_a_hedge():
    output = (
        "So $a_{10} = 144$.\n\nIf the empty set is counted, the answer is $144$; if only "
        "nonempty subsets are meant, it is $143$."
    )

    assert "hedged" in reasons(grade("144", output))


def test_a_pair_stated_as_values_joined_by_and_is_the_pair():
    problem = "Solve the system. Enter your answer as an ordered pair $(x, y)$."

    graded = grade("(3,-2)", "Therefore x = 3 and y = −2.", problem)

    assert graded.evaluation("answer_check").verdict is Verdict.CORRECT


def test_a_box_of_one_coordinate_after_the_point_is_written_out_is_flagged():
    output = "So $y = 2(1) + 3 = 5$.\n\nThe lines meet at $(1, 5)$.\n\n$$\\boxed{x = 1}$$"
    parameter = "At $t = 2$ the point is $(1, 5)$.\n\n$$\\boxed{2}$$"

    assert "gold_stated_elsewhere" in reasons(grade("(1,5)", output))
    assert "gold_stated_elsewhere" not in reasons(grade("(1,5)", parameter))


def test_integer_coefficients_with_a_common_factor_are_flagged_where_the_gcd_must_be_1():
    problem = (
        "Find the plane through $(3,0,0)$, $(0,3,0)$, $(0,0,3)$. Enter it in the form "
        "$Ax + By + Cz + D = 0$ with integers $A > 0$ and $\\gcd(|A|,|B|,|C|,|D|) = 1$."
    )

    graded = grade("x+y+z-3=0", "$$\\boxed{2x + 2y + 2z - 6 = 0}$$", problem)

    assert "form_differs" in reasons(graded)
    assert not grade("x+y+z-3=0", "$$\\boxed{x + y + z - 3 = 0}$$", problem).needs_review


def test_a_named_answer_with_the_questions_own_predicate_is_the_answer():
    problem = "Ravi is older than Sam. Tina is older than Ravi. Who is the oldest?"

    assert grade("\\text{Tina}", "Tina is the oldest.", problem).auto_verdict is Verdict.CORRECT
    assert grade("\\text{Tina}", "Ravi is the oldest.", problem).auto_verdict is Verdict.INCORRECT


def test_a_symbol_defined_right_after_the_answer_is_put_in():
    output = (
        "$$x = \\boxed{2\\tau}, \\qquad \\text{where } \\tau = \\frac{1+\\sqrt{5}}{2} "
        "\\text{ is the golden ratio.}$$"
    )

    assert grade("1+\\sqrt{5}", output).evaluation("answer_check").verdict is Verdict.CORRECT


# Round ten (BK to BN): docs/grading.md, "Round ten".


def test_dollars_and_cents_in_words_are_one_amount():
    output = "6 × $1.25 = $7.50\n\nThe total is 7 dollars and 50 cents."

    assert grade("7.50", output, "How much do 6 pens cost?").auto_verdict is Verdict.CORRECT


def test_hours_and_minutes_in_vietnamese_are_one_duration():
    graded = grade("1.5", "Đáp số: 1 giờ 30 phút", "Hỏi người đó đi hết bao nhiêu giờ?")

    assert graded.evaluation("answer_check").extracted == "1.5"


def test_degrees_below_zero_are_negative():
    output = "−3 + 9 = 6°F, then 6 − 11 = −5°F.\n\nSo it was 5 degrees below zero."

    assert grade("-5", output).auto_verdict is Verdict.CORRECT


def test_two_letters_given_for_a_single_answer_are_flagged():
    problem = "Which of the following is prime?\n(A) 9 (B) 15 (C) 17 (D) 19"

    assert "multiple_answers" in reasons(grade("C", "Answer: C, D", problem))
    assert not grade("C, D", "Answer: C, D", problem + " Select all that apply.").needs_review


def test_or_in_japanese_is_not_read_as_its_topic_particle():
    graded = grade("\\frac{1}{6}", "答え：1/6 または 1/3")

    assert "hedged" in reasons(graded)


def test_almost_all_in_a_yes_is_a_hedge():
    problem = "Ist jede Primzahl ungerade? Antworte mit Ja oder Nein."

    assert "hedged" in reasons(grade("NO", "Ja, fast alle: nur die 2 ist gerade.", problem))


def test_the_gold_said_in_chinese_before_another_box_is_flagged():
    output = "不分顺序，所以要除以 2：30 ÷ 2 = 15\n所以共有 15 种不同的选法。\n\n$\\boxed{30}$"

    assert "gold_stated_elsewhere" in reasons(grade("15", output))


def test_a_ratio_for_a_fraction_is_the_value_in_another_form():
    output = "There are 7 boys and 9 girls, so the ratio is **7:9**."

    graded = grade("\\frac{7}{9}", output, "Express your answer as a common fraction.")

    assert graded.evaluation("answer_check").verdict is Verdict.CORRECT
    assert "form_requested" in reasons(graded)


def test_the_sentence_of_an_option_is_that_option():
    problem = (
        "Quantity A: 3 + 4\nQuantity B: 7\n\n(A) Quantity A is greater.\n"
        "(B) Quantity B is greater.\n(C) The two quantities are equal.\n"
        "(D) The relationship cannot be determined."
    )

    graded = grade(
        "C", "3 + 4 = 7, the same as Quantity B.\n\nThe two quantities are equal.", problem
    )

    assert graded.auto_verdict is Verdict.CORRECT


def test_an_output_that_stops_on_a_verb_in_another_language_is_truncated():
    output = "La somma dei primi n dispari è n². Per n = 12 otteniamo"

    assert "truncated" in reasons(grade("144", output))


def test_a_hedge_in_another_language_is_a_hedge():
    output = "3 + 5 = 8 e 7 + 9 = 16.\n\nResposta: provavelmente sim."

    assert "hedged" in reasons(grade("YES", output, "A soma de dois ímpares é par?"))


def test_an_unreduced_fraction_where_an_irreducible_one_is_asked_is_flagged():
    graded = grade(
        "\\frac{3}{8}",
        "0,375 = 375/1000\n\nRéponse : 375/1000",
        "Écrire 0,375 sous forme de fraction irréductible.",
    )

    assert "form_differs" in reasons(graded)


def test_a_value_where_only_the_letter_is_asked_is_flagged():
    problem = "Which equals $\\sqrt{50}$? Respond with the letter only.\n(A) $5\\sqrt{2}$ (B) $2\\sqrt{5}$ (C) $25$ (D) $10$"

    assert "form_requested" in reasons(grade("A", "$\\sqrt{50} = 5\\sqrt{2}$", problem))


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        (
            "So there are 2 solutions.\nAnswer: B\n\nHmm, unless a root repeats... maybe C?",
            "hedged",
        ),
        (
            "The answer is B.\n\nChecking with a = 1 gives 5, which points to (D).",
            "multiple_answers",
        ),
    ],
)
def test_another_letter_raised_after_the_answer_is_flagged(output, reason):
    problem = "How many solutions?\nA. 1\nB. 2\nC. 3\nD. 5"

    assert reason in reasons(grade("B", output, problem))


def test_a_count_said_by_its_subject_before_another_answer_is_flagged():
    output = "130 ÷ 40 = 3.25, so we round up: 4 buses are needed.\n\nAnswer: 3.25 buses"

    assert "gold_stated_elsewhere" in reasons(grade("4", output, "How many buses are needed?"))


# Round eleven (BO to BR): docs/grading.md, "Round eleven".


def test_the_element_for_a_set_of_one_is_flagged():
    graded = grade("\\{5\\}", "5", "Let $A = \\{1, 5\\}$ and $B = \\{5, 7\\}$. Find $A \\cap B$.")

    assert graded.auto_verdict is Verdict.CORRECT
    assert "form_requested" in reasons(graded)
    assert not grade("\\{5\\}", "$\\{5\\}$").needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "YES",
            "NO. If $a$ and $b$ are even, $a + b = 2(m + n)$, which is always even.",
            "Is the sum of two even integers always even? Answer YES or NO.",
        ),
        (
            "YES",
            "No. $2^4 - 1 = 15 = 5 \\cdot 3$, so 5 divides it.",
            "Does 5 divide $2^4 - 1$? Answer YES or NO.",
        ),
        (
            "NO",
            "$91 = 7 \\times 13$, also ist 91 keine Primzahl.\n\nAntwort: Ja",
            "Ist 91 eine Primzahl? Antworte mit Ja oder Nein.",
        ),
    ],
)
def test_a_yes_or_no_its_own_explanation_denies_is_flagged(gold, output, problem):
    assert "contradicts_itself" in reasons(grade(gold, output, problem))


def test_a_warning_in_brackets_after_the_letter_is_an_aside():
    problem = "If $g(x) = 3x - 1$, what is $g^{-1}(5)$?\n(A) 2\n(B) 14\n(C) 4\n(D) 6"
    output = "$3x - 1 = 5$, so $x = 2$, option (A).\n\n(Careful: $g(5) = 14$ is option (B), a different question.)"

    assert grade("A", output, problem).auto_verdict is Verdict.CORRECT


def test_an_output_that_stops_on_an_operator_inside_mathematics_is_truncated():
    output = "There are 30 multiples up to 99 and 6 up to 20, so the count is $30 - 6 = $"

    assert "truncated" in reasons(grade("24", output))


def test_another_value_offered_after_a_dash_is_a_hedge():
    output = "The remainders are 0, 1 and 4.\n\nSo the answer is 3 — or 2 if 0 is not counted."

    assert "hedged" in reasons(grade("3", output))


def test_true_or_false_to_a_question_that_asks_is_it_false_is_flagged():
    problem = "Is it false that 9 is a prime number? Answer YES or NO."

    assert "two_readings" in reasons(
        grade("YES", "9 = 3 × 3, so it is not prime.\n\nTrue", problem)
    )
    assert not grade("YES", "9 = 3 × 3.\n\nYES", problem).needs_review


# Round twelve (BS to BV): docs/grading.md, "Round twelve".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "(3,-2)",
            "Completing the square, $(x - 3)^2 + (y + 2)^2 = 25$.\n\n"
            "So the circle has center \\((3, -2)\\) and radius \\(5\\).",
            "Find the center of the circle $x^2 + y^2 - 6x + 4y - 12 = 0$.",
        ),
        (
            "2",
            "$(2 + i)^3 = 2 + 11i$, so its real part is $2$ and its imaginary part is $11$.",
            "Find the real part of $(2 + i)^3$.",
        ),
        (
            "11",
            "The vertex is at $x = 3$.\n\nTherefore, the maximum value is \\(11\\), attained at \\(x = 3\\).",
            "Find the maximum value of $-2x^2 + 12x - 7$.",
        ),
        (
            "16",
            "x = 16.\n\nSo the son is 16 years old now (and the father is 40).",
            "The sum of their ages is 56. How old is the son now?",
        ),
    ],
)
def test_the_value_named_as_the_question_asks_is_the_answer_of_its_sentence(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


def test_a_named_value_with_another_offered_after_it_stays_a_hedge():
    problem = (
        "An arithmetic series has first term 7 and last term 67. What is the sum of the series?"
    )
    output = "So the sum is \\(592\\) (or \\(555\\) if the last term is not counted)."

    assert "hedged" in reasons(grade("592", output, problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "-4\\%",
            "Le prix final vaut 96 % du prix initial.\n\nRéponse : une baisse de 4 %.",
            "Quel est le pourcentage de variation total du prix ?",
        ),
        (
            "3:15 PM",
            "12:45 PM + 2.5 hours. So the meeting ends at a quarter past three in the afternoon.",
            "A meeting starts at 12:45 PM and lasts 2.5 hours. At what time does it end?",
        ),
        (
            "3:2",
            "Dividing both by 6 gives 3 : 2.\n\nThe ratio of boys to girls is 3 to 2.",
            "A class has 18 boys and 12 girls. What is the ratio of boys to girls?",
        ),
    ],
)
def test_a_value_said_in_words_is_read_as_its_value(gold, output, problem):
    assert grade(gold, output, problem).auto_verdict is Verdict.CORRECT


def test_another_arrangement_where_the_template_is_expanded_is_flagged():
    problem = 'A parabola has vertex $(-1,4)$ and passes through $(1,-4)$. Enter its equation in the form "$y = ax^2 + bx + c$".'

    graded = grade("y = -2x^2 - 4x + 2", "$$\\boxed{y = -2(x+1)^2 + 4}.$$", problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(graded)
    assert not grade("y = -2x^2 - 4x + 2", "$\\boxed{y = -2x^2 - 4x + 2}$", problem).needs_review


def test_a_final_answer_after_the_unknown_was_found_equal_to_the_gold_is_flagged():
    output = (
        "Dividing by 3, $k = -3$.\n\nCheck: with $k = -3$, $y = -3(3) + 2 = -7$ ✓\n\n$\\boxed{3}$"
    )
    problem = "Find the value of $k$ such that the line $y = kx + 2$ passes through $(3, -7)$."

    assert "gold_stated_elsewhere" in reasons(grade("-3", output, problem))


def test_the_point_of_a_minimum_given_for_the_minimum_value_is_flagged():
    output = "$x^2 + 8x + 21 = (x+4)^2 + 5$.\n\nThe minimum is attained at $\\boxed{x=-4}$."

    graded = grade("5", output, "Find the minimum value of $x^2 + 8x + 21$.")

    assert "extremum_point" in reasons(graded)
    assert not grade("-4", output, "For what value of $x$ is $x^2 + 8x + 21$ least?").needs_review


def test_a_second_root_offered_on_a_condition_in_brackets_is_a_hedge():
    output = (
        "$(x - 4)(x + 1) = 0$.\n\nSo $x = 4$ (and also $x = -1$ if negative solutions are allowed)."
    )

    assert "hedged" in reasons(grade("-1, 4", output, "Solve $x^2 - 3x - 4 = 0$."))


def test_a_count_in_words_before_the_hash_line_that_differs_from_it_is_flagged():
    output = "6 × 8 = 48 chocolates.\n\nSo the box holds forty-two chocolates.\n#### 48"

    assert "multiple_answers" in reasons(grade("48", output, "How many chocolates are in the box?"))


# Round thirteen (BW to BZ): docs/grading.md, "Round thirteen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "25\\pi",
            "The diameter is 10, so r = 5.\n\nA = π(5)² = 25π",
            "What is the area of the circle? Express your answer in terms of $\\pi$.",
        ),
        (
            "\\frac{2}{3}",
            "Of $\\{2, 4, 6\\}$, two are greater than 3.\n\n$$P(\\text{greater than } 3 \\mid \\text{even}) = \\frac{2}{3}$$",
            "Given that the roll is even, what is the probability that it is greater than 3?",
        ),
        (
            "7",
            "So $k \\in \\{7, 5, -7, -5\\}$.\n\nThe greatest is $k = 7$ (the least would be $-7$).",
            "What is the greatest integer $k$ such that $x^2 + kx + 6$ factors over the integers?",
        ),
        (
            "66",
            "Total: $60 + $6 = $66.\n\nThe family spends $66 in total, which is $13.20 per ticket including parking.",
            "A family buys 5 tickets at $12 each and a $6 parking pass. How much do they spend in total?",
        ),
        (
            "(1) 8, (2) 7.5",
            "(7 + 8) ÷ 2 = 7.5\n\n答：(1) 众数为 8；(2) 中位数为 7.5。",
            "一组数据为 5, 6, 6, 7, 8, 8, 8, 9。求：(1) 众数；(2) 中位数。",
        ),
        (
            "90",
            "There are 90 four-digit palindromes (9 choices for the first digit, 10 for the second, and the last two are determined).",
            "How many four-digit palindromes are there?",
        ),
    ],
)
def test_the_value_a_closing_statement_works_out_is_its_answer(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "\\frac{\\sqrt{3}}{2}",
            "$$\\sin\\left(\\frac{\\pi}{3}\\right) = \\boxed{\\frac{\\sqrt{3}}{2}}$$\n\nIn summary, $\\sin(\\pi/3) = \\frac{1}{2}$, since the opposite side is half the hypotenuse.",
            "What is $\\sin\\left(\\frac{\\pi}{3}\\right)$?",
            "multiple_answers",
        ),
        (
            "30",
            "Perimeter $= 6 \\times 5 = \\boxed{30}$\n\nThe perimeter of the hexagon is 25 units.",
            "A regular hexagon is inscribed in a circle of radius 5. What is the perimeter of the hexagon?",
            "multiple_answers",
        ),
        (
            "1250",
            "Labor: 12 × $85 = $1,020\nMaterials: $230\n\nTotal: $1,020 + $230 = $1,2",
            "What is the total bill?",
            "truncated",
        ),
        (
            "3.5",
            "$\\sqrt{12} = 2\\sqrt{3} \\approx 3.464$\n\n$\\sqrt{12} \\approx 3.46$",
            "Find $\\sqrt{12}$ to the nearest tenth.",
            "rounding_differs",
        ),
        (
            "2.83",
            "s² = 40/(n − 1) = 10, so s = √10 ≈ 3.162.\n\nThe standard deviation is approximately **3.16**.",
            "What is the standard deviation of the data set 1, 3, 5, 7, 9? Round to the nearest hundredth.",
            "spread_convention",
        ),
    ],
)
def test_a_doubt_a_closing_statement_raises_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "[1, 4]",
            "```output\n(1 <= x) & (x <= 4)\n```\nSo the solution set is $\\boxed{(1 \\le x) \\,\\&\\, (x \\le 4)}$.",
            "For what values of $x$ is $x^2 - 5x + 4 \\le 0$? Express your answer in interval notation.",
            "form_requested",
        ),
        (
            "3.30",
            "```output\n3.3000000000000003\n```\nThe total cost is 3.3000000000000003 dollars.\n#### 3.3000000000000003",
            "Fabric costs $1.10 per meter. How much do 3 meters cost, in dollars?",
            "rounding_differs",
        ),
        (
            "13",
            "```output\n{7: 1, 11: 1, 13: 1}\n```\nSo $1001 = 7 \\times 11 \\times 13$, a product of three distinct primes.",
            "What is the largest prime factor of 1001?",
            "no_answer",
        ),
        (
            "33",
            "```python\nprint(len(a | b))\nprint(len(a) + len(b))\n```\n```output\n33\n41\n```",
            "How many positive integers $n \\le 100$ are divisible by 4 or by 6?",
            "multiple_answers",
        ),
        (
            "\\frac{15}{16}",
            "```output\n93.75\n```\nThe probability of at least one head is $\\boxed{93.75}$.",
            "A fair coin is flipped 4 times. What is the probability of getting at least one head?",
            "unit_mismatch",
        ),
    ],
)
def test_what_a_program_printed_and_the_reply_copied_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


def test_a_long_decimal_that_is_no_float_error_is_not_flagged():
    assert not grade("10^{-12}", "The probability is $\\boxed{0.000000000001}$.").needs_review


# Round fourteen (CA to CD): docs/grading.md, "Round fourteen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "30000",
            "1 250 · 24 = 30 000\n\nОтвет: 30\u2009000 деталей.",
            "Завод выпускает 1 250 деталей в день. Сколько деталей он выпустит за 24 дня?",
        ),
        (
            "43",
            "الحد العاشر = ٣ + ١٠ × ٤ = ٤٣\n\nالإجابة: ٤٣",
            "ما الحد العاشر في المتتابعة الحسابية: ٣، ٧، ١١، ١٥، ...؟",
        ),
        (
            "4",
            "$y = -(x - 3)^2 + 4 \\le 4$.\n\nОтвет: 4 (достигается при $x = 3$).",
            "Найдите наибольшее значение функции $y = -x^2 + 6x - 5$.",
        ),
        (
            "(-\\infty, 2) \\cup (2, 3) \\cup (3, \\infty)",
            "$$\\boxed{(-\\infty, 2) \\cup (2, 3) \\cup (3, \\infty}$$",
            "What is the domain of $y = \\frac{1}{x^2 - 5x + 6}$? Express your answer in interval notation.",
        ),
        (
            "896",
            "विक्रय मूल्य = 800 + 96 = 896 रुपये\n\nउत्तर: ₹896",
            "वस्तु का विक्रय मूल्य क्या है?",
        ),
    ],
)
def test_numbers_written_in_other_scripts_and_forms_are_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "45",
            "The farmer packs 120 / 8 = 15 bags. Each bag sells for $3, so he makes 15 *",
            "How much money does he make?",
            "truncated",
        ),
        (
            "15",
            "45 - 60 = -15. The answer is -15.",
            "Marco bought a bike for $60 and sold it for $45. How much money did he lose?",
            "sign_in_words",
        ),
        (
            "896",
            "लाभ = 96 रुपये\nविक्रय मूल्य = 896 रुपये\n\nउत्तर: 96 रुपये या 896 रुपये",
            "वस्तु का विक्रय मूल्य क्या है?",
            "hedged",
        ),
        (
            "20000000",
            "24000万円 ÷ 12 = 2000万円\n\n答え：月平均 2000万円（200,000,000円）",
            "1か月あたりの平均売上はいくらですか。",
            "multiple_answers",
        ),
        (
            "12",
            "$\\binom{4}{3} x^3 \\cdot 3 = 12x^3$.\n\n**Risposta:** $12x^3$",
            "Qual è il coefficiente di $x^3$ nello sviluppo di $(x + 3)^4$?",
            "form_requested",
        ),
        (
            "13",
            "$$\\sqrt{5^2 + 12^2} = 13.$$\n\nSo the longest segment, the space diagonal, has length 13.\n\n$$\\boxed{5}$$",
            "A box has dimensions 3, 4 and 12. What is the length of the space diagonal?",
            "gold_stated_elsewhere",
        ),
        (
            "x + 2y - 2z - 9 = 0",
            "$$\\boxed{-x - 2y + 2z + 9 = 0}$$",
            "Enter your answer in the form $Ax + By + Cz + D = 0,$ where $A > 0$ and $\\gcd(|A|,|B|,|C|,|D|) = 1.$",
            "form_differs",
        ),
        (
            "\\frac{\\sqrt{2}}{4}",
            "d = (1/2) / √2\n\nSo the distance is 1/2√2.",
            "Find the distance from the point $(1, 1)$ to the line $x + y = \\frac{3}{2}$.",
            "two_readings",
        ),
    ],
)
def test_a_doubt_in_a_reading_or_a_sign_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


@pytest.mark.parametrize(
    ("problem", "output", "reason"),
    [
        (
            "How many integers n satisfy |n - 3| < 5?\n(A) 9\n(B) 10\n(C) 11\n(D) 8",
            "−2 < n < 8 holds for 9 integers.\n\nSo the answer is (A) 9, or (C) 11 if the endpoints count.",
            "hedged",
        ),
        (
            "Which is NOT a property of every parallelogram?\n(A) Opposite sides are parallel.\n"
            "(B) Opposite angles are equal.\n(C) The diagonals bisect each other.\n"
            "(D) The diagonals are perpendicular.",
            "Perpendicular diagonals occur only in a rhombus.\n\nThe answer is (C): the diagonals are perpendicular.",
            "letter_value_mismatch",
        ),
        (
            "Working together, how long will they take?\n(A) 2 hours\n(B) 4.5 hours\n(C) 9 hours\n(D) 1.5 hours",
            "1/3 + 1/6 = 1/2 room per hour.\n\n\\boxed{A}\n\nIn other words, they finish the room in 1.5 hours.",
            "letter_value_mismatch",
        ),
        (
            "Which is closest to √50?\n(A) 6.9\n(B) 7.1\n(C) 7.2\n(D) 7.5",
            "7.1² = 50.41. So it's B or maybe A; let me compare more carefully: √50 ≈ 7 + 1/14 = 7.0",
            "hedged",
        ),
        (
            "A rope 6 m long is cut into 4 equal pieces. How long is each piece, in centimetres?\n"
            "(A) 1.5\n(B) 15\n(C) 24\n(D) 150",
            "Length of each piece = 6 ÷ 4 = 1.5\n\nEach piece is 1.5 m long.",
            "unit_mismatch",
        ),
    ],
)
def test_a_letter_its_own_statement_doubts_is_flagged(problem, output, reason):
    assert reason in reasons(grade("B", output, problem))


# Round fifteen (CE to CH): docs/grading.md, "Round fifteen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\text{no real solutions}",
            "There are none; the discriminant is $4 - 20 = -16 < 0$.",
            "Find all real numbers $x$ such that $x^2 + 2x + 5 = 0$.",
        ),
        (
            "10:24 AM",
            "**Answer:** They meet at $\\boxed{10{:}24\\text{ AM}}$.",
            "At what time do they meet?",
        ),
    ],
)
def test_an_answer_stated_before_its_reason_or_in_latex_spacing_is_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "(-\\infty, -1) \\cup [2, \\infty)",
            "The answer is $(-\\infty, -1) \\cup [2, \\infty)$, or $(-\\infty, -1] \\cup [2, \\infty)$ if the boundary is counted.",
            "Solve $\\frac{x-2}{x+1} \\ge 0$.",
            "hedged",
        ),
        (
            "\\frac{3}{8}",
            "12/32 = 0.375 = 37.5%\n\n**37.5% of the class walks to school.**",
            "In a class of 32 students, 12 walk to school. What fraction of the class walks to school?",
            "form_requested",
        ),
        (
            "-14.99",
            "59.99 − 45.00 = 14.99\nSam's account is overdrawn by $14.99.\n#### 14.99",
            "Sam had $45.00 and bought a game for $59.99. What is his account balance after the purchase?",
            "sign_in_words",
        ),
        (
            "7",
            "So $k = 4m + 1$ and $n = 5(4m + 1) + 2 = 20m + 7$.\n\n$$\\boxed{n = 20m + 7}$$",
            "Find the smallest positive integer $n$ such that $n \\equiv 3 \\pmod 4$ and $n \\equiv 2 \\pmod 5$.",
            "form_requested",
        ),
    ],
)
def test_an_answer_offered_otherwise_or_left_general_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


# Round sixteen (CI to CL): docs/grading.md, "Round sixteen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "(-2, 5)",
            "Completing the square gives $(x + 2)^2 + (y - 5)^2 = 16$.\n\n"
            "The center is at $(-2, 5)$ and the radius is $4$.",
            "What is the center of the circle $x^2 + 4x + y^2 - 10y + 13 = 0$?",
        ),
        (
            "4\\sqrt{3}",
            "The sides are in the ratio $1 : \\sqrt{3} : 2$, so with hypotenuse 8:\n\n"
            "So the longer leg is $4\\sqrt{3}$ and the shorter leg is $4$.",
            "A 30-60-90 triangle has hypotenuse 8. What is the length of the longer leg?",
        ),
        (
            "\\frac{1}{10000}",
            "There are 10,000 four-digit codes and one opens the safe.\n\n"
            "So the chance of guessing it is 1 in 10,000.",
            "A safe has a 4-digit code. What is the probability that a random guess opens it?",
        ),
        (
            "\\frac{1}{2}",
            "Ten of the twenty marbles are red.\n\nSo it's a 50-50 chance.",
            "A bag has 10 red and 10 blue marbles. What is the probability of drawing a red one?",
        ),
        (
            "\\text{mean } 5,\\ \\text{median } 4,\\ \\text{range } 9",
            "Sorted: 1, 3, 4, 7, 10.\n\n**Mean = 5, median = 4, range = 9**",
            "Find the mean, median and range of 7, 1, 10, 3, 4.",
        ),
        (
            "No",
            "There is no largest even number: adding 2 to any even number gives a larger one.",
            "Is there a largest even number?",
        ),
        (
            "False",
            "That statement is incorrect. Glass has no long-range order in its atoms, so it is an "
            "amorphous solid.",
            "True or False: Glass is a crystalline solid.",
        ),
    ],
)
def test_the_part_asked_for_or_a_chance_in_words_is_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "6",
            "```python\nimport numpy as np\nprint(np.percentile([2, 4, 6, 8, 10, 12], [25, 75]))\n```\n"
            "Output: [4.5 9.5]\n\nSo the interquartile range is **5.0**.",
            "Find the interquartile range of 2, 4, 6, 8, 10, 12.",
            "spread_convention",
        ),
        (
            "\\frac{1}{4}",
            "There are 13 hearts among 52 cards, so the probability is 13/5",
            "A card is drawn from a standard deck. What is the probability that it is a heart?",
            "truncated",
        ),
        (
            "\\frac{\\pi}{4}",
            "The radius is $50$ cm, so the area is $\\boxed{2500\\pi \\text{ cm}^2}$.",
            "A circle has a diameter of 100 cm. What is its area in square meters?",
            "unit_mismatch",
        ),
        (
            "12\\sqrt{2}",
            "$A = \\frac{1}{2} \\cdot 6 \\cdot 8 \\sin 45^\\circ = 12\\sqrt{2}$\n\n"
            "So the area of the triangle is $12\\sqrt2$.\n\n**Final Answer:** $\\boxed{24\\sqrt{2}}$",
            "Two sides of a triangle are 6 and 8 and the angle between them is 45°. Find its area.",
            "gold_stated_elsewhere",
        ),
        (
            "\\frac{3}{8}",
            "Three of the eight outcomes have exactly two heads.\n\n$$\\boxed{\\frac{3}{8}}$$\n\n"
            "So there's roughly a 5 in 8 chance of exactly two heads.",
            "Three coins are tossed. What is the probability of exactly two heads?",
            "multiple_answers",
        ),
        (
            "B",
            "Each draw is independent, so it is 1/4.\n\nSo the answer is (B), or (D) if the cards are not replaced.",
            "A card is drawn twice with replacement. What is the probability both are hearts?\n"
            "(A) 1/2  (B) 1/16  (C) 1/8  (D) 1/17",
            "hedged",
        ),
        (
            "B",
            "The determinant is 0, so the matrix has no inverse.\n\nAnswer: A. No",
            "Is the matrix [[2, 4], [1, 2]] invertible?\nA. Yes\nB. No",
            "letter_value_mismatch",
        ),
    ],
)
def test_a_convention_a_cut_or_a_second_value_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (
            "Its denominator 16 has no prime factors other than 2, so the decimal ends: 0.4375.",
            "Is $\\frac{7}{16}$ a terminating decimal?",
        ),
        (
            "Whether 1 is prime depends on the definition: the answer is yes or no depending on "
            "which convention you follow.",
            "Is $1$ a prime number?",
        ),
    ],
)
def test_a_no_that_denies_something_else_or_a_yes_or_no_is_no_verdict(output, problem):
    graded = grade("Yes", output, problem)

    assert graded.needs_review


# Round seventeen (CM to CP): docs/grading.md, "Round seventeen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\frac{7}{2}",
            "$2x = 7$\n\n$x = 3{,}5$\n\nOdpowiedź: $\\boxed{3{,}5}$",
            "Rozwiąż równanie $2x - 1 = 6$.",
        ),
        (
            "\\frac{2}{3}",
            "$2 : 3 = 0{,}666\\ldots$\n\nRisultato: $0{,}\\overline{6}$",
            "Dividi 2 per 3.",
        ),
        (
            "3400000000",
            "1,7 Mrd. · 2 = 3,4 Mrd.\n\nErgebnis: 3,4 Milliarden",
            "Berechne 1,7 Milliarden · 2.",
        ),
        ("57", "19 · 3 = siebenundfünfzig.", "Wie viel ist 19 · 3?"),
        (
            "4500000",
            "Q1: $3.2M\nQ2: $1.3M\n\nTotal: **$4.5M**",
            "Sales were $3.2 million in the first half and $1,300,000 in the second. What were the "
            "total sales, in dollars?",
        ),
        (
            "\\text{no solution}",
            "Subtracting the equations gives 0 = 3, so the system has no solution: the lines "
            "are parallel.",
            "How many solutions does the system $x + y = 1$, $x + y = 4$ have?",
        ),
    ],
)
def test_numbers_of_other_locales_and_a_clause_before_its_detail_are_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "2 \\pm \\sqrt{3}",
            "By the quadratic formula,\n\\[\nx = 2 \\pm \\sqrt{3}.\n\\]\n"
            "The solutions are \\(\\boxed{x \\approx 3.732 \\text{ or } x \\approx 0.268}\\).",
            "Solve $x^2 - 4x + 1 = 0$.",
            "approximate_answer",
        ),
        (
            "0, 9",
            "Dividing by $x$ gives $x = 9$.\n\n$$\\boxed{9}$$\n\n(There is also the solution $x = 0$.)",
            "Solve $x^2 = 9x$.",
            "partial_match",
        ),
        (
            "[1, \\infty)",
            "Since $\\sqrt{x} \\ge 0$, $g(x) \\ge 1$.\n\nSo the range is $[1, \\infty)$, or "
            "$(1, \\infty)$ if we leave out $x = 0$.",
            "What is the range of $g(x) = \\sqrt{x} + 1$?",
            "hedged",
        ),
        (
            "0.03",
            "1 ‰ = 10 %, więc 0,3 ‰ = 3 %.\n\nOdpowiedź: 3 %",
            "Stężenie wynosi 0,3 promila. Ile to procent?",
            "unit_mismatch",
        ),
        (
            "3.5",
            "7 ÷ 2 = 3 remainder 1, and half an hour is 30 minutes, so it takes 3 h 30 min.\n\n"
            "**The trip takes 3.30 hours.**",
            "A cyclist rides 42 km at 12 km/h. How many hours does the ride take?",
            "number_format",
        ),
        (
            "4\\sqrt{3}",
            "So $A = 60^\\circ$ or $A = 120^\\circ$, which give two triangles.\n\n"
            "**Answer:** $PQ = 4\\sqrt{3}$ or $PQ = 4\\sqrt{7}$.",
            "In triangle $PQR$, $PR = 4$, $QR = 8$ and the area is $8\\sqrt{3}$. Find $PQ$.",
            "hedged",
        ),
    ],
)
def test_roots_rounded_offered_or_written_as_clock_time_are_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


# Round eighteen (CQ to CT): docs/grading.md, "Round eighteen".


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "A",
            "Quantity A: 3^2 = 9.\nQuantity B: 2^3 = 8.\n\n9 > 8, so Quantity A is greater.",
            "Quantity A: $3^2$\nQuantity B: $2^3$\n\n(A) Quantity A is greater.\n"
            "(B) Quantity B is greater.\n(C) The two quantities are equal.",
        ),
        (
            "\\arcsin x + C",
            "The derivative of sin⁻¹(x) is 1/√(1 − x²).\n\nSo the answer is sin⁻¹(x) + C.",
            "Find $\\int \\frac{dx}{\\sqrt{1 - x^2}}$.",
        ),
        (
            "\\text{absolutely convergent}",
            "The series of absolute values is a convergent p-series (p = 2).\n\n"
            "Therefore the series **converges absolutely**.",
            "Classify $\\sum \\frac{(-1)^n}{n^2}$ as absolutely convergent, conditionally "
            "convergent, or divergent.",
        ),
        (
            "Plan B",
            "Plan A: $30 + 12 × $2 = $54\nPlan B: $20 + 12 × $2.50 = $50\n\n"
            "Since $50 < $54, Plan B is cheaper, by $4.",
            "Which plan is cheaper for 12 rides?",
        ),
    ],
)
def test_an_option_or_a_classification_said_in_its_clause_is_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "C",
            "共有 3 × 2 × 1 = 6 种排法。\n\n答案：B（6 种）",
            "3 个人排成一排，共有多少种排法？\nA. 3　B. 4　C. 6　D. 9",
            "letter_value_mismatch",
        ),
        (
            "B",
            "解：$\\cos60^\\circ=\\frac{1}{2}$，\n故选 C．",
            "$\\cos 60^\\circ$ 的值为（　　）\nA. $-\\frac{1}{2}$　　B. $\\frac{1}{2}$　　"
            "C. $\\frac{\\sqrt{3}}{2}$　　D. $1$",
            "letter_value_mismatch",
        ),
        (
            "\\text{conditionally convergent}",
            "By the alternating series test the series converges.\n\n$$\\boxed{\\text{Converges}}$$",
            "Classify $\\sum \\frac{(-1)^n}{\\sqrt{n}}$ as absolutely convergent, conditionally "
            "convergent, or divergent.",
            "partial_match",
        ),
        (
            "\\frac{1}{24}",
            "The Maclaurin series of $\\cos x$ is $1 - \\frac{x^2}{2} + \\frac{x^4}{24} - \\cdots$\n"
            "So the $x^4$ term is\n$$\\boxed{\\frac{x^4}{24}}$$",
            "What is the coefficient of $x^4$ in the Maclaurin series of $\\cos x$?",
            "form_requested",
        ),
        (
            "40\\pi",
            "dA/dt = 2πr · dr/dt = 2π(10)(2) ≈ 125.7 cm²/s\n\n**Answer: ≈ 125.7 cm²/s**",
            "The radius of a circle grows at 2 cm/s. How fast is its area growing when the "
            "radius is 10 cm?",
            "approximate_answer",
        ),
    ],
)
def test_a_letter_against_its_value_a_part_or_a_term_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem))


def test_a_gold_of_two_values_joined_by_or_needs_both():
    output = "由正弦定理得 $\\sin A=\\frac{\\sqrt3}{2}$，\n所以 $A=60^\\circ$。"
    problem = "在 $\\triangle ABC$ 中，$a=\\sqrt{3}$，$b=\\sqrt{2}$，$B=45^\\circ$，求角 $A$。"

    assert grade("60^\\circ或120^\\circ", output, problem).auto_verdict is Verdict.INCORRECT


# Round nineteen (held-out CU to CX, docs/grading.md): answers that name several options,
# another unit of the gold's quantity, plain-text functions and set-builder sets.

_PRIMES = "Which of these numbers are prime? Select all that apply.\n(A) 4  (B) 5  (C) 9  (D) 7"
_ORDERED = "Arrange from smallest to largest.\nA. 0.5  B. 0.05  C. 5  D. 0.005"


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("B, D", "5 and 7 have no divisors but 1 and themselves.\n\nFinal answer: BD", _PRIMES),
        ("B;D", "The prime numbers are (D) and (B).", _PRIMES),
        ("BD", "Only 5 and 7 are prime.\n\n$$\\boxed{B,\\ D}$$", _PRIMES),
        ("BD", "5 is prime: $\\boxed{B}$, and 7 is prime: $\\boxed{D}$", _PRIMES),
        ("B, D", "Answer: b and d", _PRIMES),
        ("B, D", "**Answer: all of the options except (A) and (C).**", _PRIMES),
        ("TFF", "1. True\n2. False\n3. False\n\nAnswer: True, False, False", "Mark T or F."),
        ("True, False, False", "So:\n1. T\n2. F\n3. F", "Mark each statement T or F."),
        ("1-B, 2-C, 3-A", "Matching: 1 → B, 2 → C, 3 → A", "Match each item."),
        ("1-B, 2-C, 3-A", "{1: B, 2: C, 3: A}", "Match each item."),
        ("②④", "所以正确的是②④。", "下列说法正确的是（多选）"),
        ("DBAC", "From smallest to largest: D < B < A < C", _ORDERED),
        ("DBAC", "Largest first: $C > A > B > D$", _ORDERED),
    ],
)
def test_an_answer_naming_several_options_is_compared_label_by_label(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluation("answer_check")
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("B, D", "Final answer: B", _PRIMES),
        ("B, D", "Final answer: B, C, D", _PRIMES),
        ("DBAC", "From smallest to largest: D, A, B, C", _ORDERED),
        ("TFF", "Answer: T, F, T", "Mark T or F."),
        ("1-B, 2-C, 3-A", "Matching: 1 → C, 2 → B, 3 → A", "Match each item."),
    ],
)
def test_an_answer_naming_other_options_is_incorrect(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("The primes are B and D, or possibly just D.", "hedged"),
        (
            "So $\\boxed{B, D}$.\n\nIf 1 counted as prime the answer would be $\\boxed{D}$.",
            "multiple_answers",
        ),
        (
            "**Answer: B, D**\n\nChecking again, 9 = 3 × 3.\n\nSo the answer is B, C, D.",
            "multiple_answers",
        ),
        ("Both of the odd primes are in the list.", "no_answer"),
    ],
)
def test_a_doubt_about_several_options_is_flagged(output, reason):
    assert reason in reasons(grade("B, D", output, _PRIMES))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "10",
            "100 m ÷ 10 s = 10 m/s = 36 km/h.\n\n**Her speed is 36 km/h.**",
            "What is her speed?",
        ),
        (
            "0.54",
            "60 cm × 90 cm = 5400 cm²\n\n$$\\boxed{5400\\ \\text{cm}^2}$$",
            "What is its area?",
        ),
        (
            "2 \\text{ hours } 45 \\text{ minutes}",
            "**The film lasts 165 minutes.**",
            "How long is it?",
        ),
    ],
)
def test_the_gold_in_another_unit_of_its_quantity_is_flagged(gold, output, problem):
    assert "unit_mismatch" in reasons(grade(gold, output, problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\frac{\\ln x}{2}",
            "Swap x and y: x = e^(2y), so y = (1/2) ln x.\n\nf^-1(x) = ln √x",
            "",
        ),
        (
            "y = 2x - 1",
            "The slope is 2 and the line passes through (0, -1).\n\n$$\\boxed{y - 2x = -1}$$",
            "",
        ),
        (
            "(-\\infty,3)\\cup(3,\\infty)",
            "x - 3 ≠ 0.\n\n**Domain:** {x | x ≠ 3}",
            "Find the domain.",
        ),
        (
            "(-\\infty,2)\\cup(2,\\infty)",
            "y = 2 is never reached.\n\n**Range:** all real numbers except 2, i.e. \\( \\{ y \\mid y \\neq 2 \\} \\).",
            "Find the range.",
        ),
        (
            "\\text{undefined}",
            "So g(3) is **undefined** (the denominator is \\( 0 \\)).",
            "What is g(3)?",
        ),
        (
            "8",
            "36 L ÷ 450 km × 100 = 8\n\n$\\boxed{8\\ \\text{L}/100\\ \\text{km}}$",
            "Liters per 100 km?",
        ),
    ],
)
def test_plain_text_functions_set_builder_sets_and_rearranged_equations_are_read(
    gold, output, problem
):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluation("answer_check")
    assert not graded.needs_review, reasons(graded)


def test_a_rearranged_equation_of_another_line_is_incorrect():
    graded = grade("y = 2x - 1", "**The line is y - 2x = 1.**")

    assert graded.auto_verdict is Verdict.INCORRECT


# Round twenty (held-out CY to DB, docs/grading.md): systems and inequalities as other languages
# write them, plain "pi", factorials with their noun, binomials side by side, an exact value
# beside a wrong approximation.


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "(6,-1)",
            "Entonces $x = 6$.\n\n**Respuesta:** $y = -1$ y $x = 6$.",
            "Resuelve el sistema.",
        ),
        ("(3,-1,-2)", "**Réponse :** $x = 3$ ; $y = -1$ ; $z = -2$.", "Résoudre le système."),
        ("(2,5)", "Ответ: $y = 5$, $x = 2$.", "Решите систему."),
        ("(3,-2)", "Luego y = −2.\n\nSolución: x = 3; y = −2", "Resuelve el sistema."),
        ("(4,3)", "Logo $x = 4$.\n\n$$S = \\{(4;\\, 3)\\}$$", "Resolva o sistema."),
        ("(2,-3)", "Then $y = -3$.\n\nThe solution set is $\\{(2, -3)\\}$.", "Solve the system."),
        ("\\text{no solution}", "Les droites sont parallèles : $\\mathcal{S} = \\emptyset$.", ""),
        ("(-\\infty,2)\\cup(6,\\infty)", "Por lo tanto, la solución es: $x < 2$ o $x > 6$.", ""),
        ("(-2, 2.5]", "On divise par 2.\n\n$S = \\left]-2\\,;\\,2{,}5\\right]$", "Résoudre."),
        (
            "[-2,\\infty)",
            "$$S = \\{x \\in \\mathbb{R} \\mid x \\ge -2\\}$$",
            "Resolva a inequação.",
        ),
        ("18\\pi", "Half of the circle: 36pi / 2 = 18pi\n\nFinal answer: 18pi", ""),
        ("120", "Each order is a permutation.\n\n**Answer:** 5! ways", "In how many ways?"),
        (
            "\\frac{1}{6}",
            "Exactly one of the six orders works.\n\nSo the probability is one in six.",
            "",
        ),
        ("712842", "$$\\boxed{\\binom{13}{2}\\binom{39}{3} = 78 \\times 9139 = 712{,}842}$$", ""),
    ],
)
def test_systems_sets_and_bounds_as_other_languages_write_them_are_read(gold, output, problem):
    graded = grade(gold, output, problem)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluation("answer_check")
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("(4,\\infty)", "Antwort: x ist größer als 4."),
        (
            "(-\\infty,5)",
            "On obtient $2x < 10$.\n\nL'inéquation est vérifiée pour tous les réels $x$ strictement "
            "inférieurs à 5.",
        ),
        ("(-\\infty,5]", "Ответ: при всех $x$, не превосходящих 5."),
    ],
)
def test_a_bound_said_in_words_is_read_as_an_inequality(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_binomials_side_by_side_are_a_product_not_a_sum():
    graded = grade("9217", "$$\\boxed{\\binom{13}{2}\\binom{39}{3}}$$")

    assert graded.auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "output", "reason"),
    [
        (
            "10\\pi",
            "C = 2\\pi(5) = 10\\pi\n\n$$\\boxed{10\\pi \\approx 31.14}$$",
            "multiple_answers",
        ),
        (
            "49\\pi",
            "A = π · 7² = 49π\n\n**Final answer:** 49π ≈ 15.39 square units",
            "multiple_answers",
        ),
        ("15", "So the median is 15.\n\n\\[\n\\boxed{16}\n\\]", "gold_stated_elsewhere"),
        (
            "56",
            "So we can form $\\binom{8}{3} = 56$ triangles.\n\n**Final Answer**\n$\\boxed{28}$",
            "gold_stated_elsewhere",
        ),
    ],
)
def test_a_value_contradicted_beside_it_or_just_before_it_is_flagged(gold, output, reason):
    assert reason in reasons(grade(gold, output))


def test_an_approximation_of_pi_taken_as_three_point_one_four_is_no_contradiction():
    graded = grade("48\\pi", "V = π × 16 × 3.\n\n$$\\boxed{48\\pi \\approx 150.72}$$")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


# Round twenty-one (held-out sets DC to DF): answer tags, linear algebra's notations, answers
# that are one of many, renamed constants, units with prefixes, plain-text precedence.


@pytest.mark.parametrize(
    ("gold", "output", "verdict"),
    [
        ("26", "Total spent: $12 + $14 = $26\n\n<answer>26</answer>", Verdict.CORRECT),
        (
            "40",
            "<think>n = 7 works ... 20 + 20</think>\n\nSo 40.\n\n<answer>40</answer>",
            Verdict.CORRECT,
        ),
        (
            "x>3",
            "Subtract 5 and divide by 2.\n\n<final_answer>x > 3</final_answer>",
            Verdict.CORRECT,
        ),
        ("91", "Adding the two groups gives 90.\n\n<answer>90</answer>", Verdict.INCORRECT),
    ],
)
def test_an_answer_tag_is_the_committed_answer(gold, output, verdict):
    graded = grade(gold, output)

    assert graded.auto_verdict is verdict
    assert not graded.needs_review, reasons(graded)


def test_two_answer_tags_with_different_values_are_flagged():
    output = "So the probability is 1/4.\n\n<answer>1/4</answer>\n\nSummary: <answer>1/3</answer>"

    assert grade("\\frac{1}{4}", output).needs_review


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\begin{pmatrix} 0 \\\\ -5 \\\\ 10 \\end{pmatrix}", "(0, -5, 10)^T"),
        ("\\begin{pmatrix} 1 \\\\ 1 \\\\ 1 \\end{pmatrix}", "[1, 1, 1]ᵀ"),
        ("\\left(\\frac{1}{2}, -\\frac{1}{2}, 1\\right)", "\\tfrac{1}{2}(1, -1, 2)"),
        (
            "\\begin{pmatrix} \\frac{\\sqrt{6}}{6} \\\\ \\frac{\\sqrt{6}}{6} \\\\ \\frac{\\sqrt{6}}{3} \\end{pmatrix}",
            "\\dfrac{1}{\\sqrt{6}}\\langle 1, 1, 2 \\rangle",
        ),
        ("\\begin{pmatrix} 0 & -1 \\\\ 1 & 0 \\end{pmatrix}", "[0 −1; 1 0]"),
        (
            "\\begin{pmatrix} \\frac{1}{2} & 0 & 0 \\\\ 0 & -1 & 0 \\\\ 0 & 0 & 3 \\end{pmatrix}",
            "diag(0.5, −1, 3)",
        ),
    ],
)
def test_vectors_and_matrices_as_linear_algebra_writes_them_in_text(gold, answer):
    assert compare_values(gold, read_answer(answer).expression).equal


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("[-3,5]", "[-3 ; 5]"),  # an interval in French notation, not a column
        ("[-2,1)\\cup(1,2]", "-2 \\le x \\le 2,\\ x \\ne 1"),
        ("(1, 2)", "[1, 2]"),  # two entries in square brackets: a closed interval
    ],
)
def test_intervals_are_not_taken_for_vectors(gold, answer):
    expected = gold != "(1, 2)"

    assert compare_values(gold, read_answer(answer).expression).equal is expected


def test_a_coordinate_vector_and_a_decorated_vector_name_are_heads():
    assert read_answer("[\\mathbf{v}]_{\\mathcal{B}} = (3, 2)").expression == "(3, 2)"
    assert read_answer("\\hat{\\mathbf{v}} = (1, 2)").expression == "(1, 2)"
    assert read_answer("ρ = 2.70 g/cm³").expression == "2.70"
    assert read_answer("aₙ = 2ⁿ − 1").expression == "2^{n} - 1"


@pytest.mark.parametrize(
    ("problem", "gold", "answer", "verdict"),
    [
        (
            "Find an eigenvector of $A$ corresponding to the eigenvalue $3$.",
            "\\begin{pmatrix} 1 \\\\ 1 \\end{pmatrix}",
            "\\begin{pmatrix} \\frac{1}{\\sqrt{2}} \\\\ \\frac{1}{\\sqrt{2}} \\end{pmatrix}",
            Verdict.CORRECT,
        ),
        (
            "Show that $4$ is an eigenvalue and find a corresponding eigenvector.",
            "\\begin{pmatrix} 1 \\\\ 0 \\\\ -1 \\end{pmatrix}",
            "(-1,\\ 0,\\ 1)^T",
            Verdict.CORRECT,
        ),
        (
            "Find a unit eigenvector with positive first component.",
            "\\begin{pmatrix} 1 \\\\ 1 \\end{pmatrix}",
            "(2, 2)",
            Verdict.INCORRECT,
        ),
        (
            "Find a basis for the null space of $A$.",
            "\\left\\{ \\begin{pmatrix} -2 \\\\ 1 \\\\ 0 \\end{pmatrix}, \\begin{pmatrix} 1 \\\\ 0 \\\\ 1 \\end{pmatrix} \\right\\}",
            "\\{(1, 0, 1), (0, 1, 2)\\}",
            Verdict.CORRECT,
        ),
        (
            "Find a basis for the null space of $A$.",
            "\\{(-2, 1, 0), (1, 0, 1)\\}",
            "\\{(1, 0, 1), (0, 1, 3)\\}",
            Verdict.INCORRECT,
        ),
        ("Find an antiderivative of $3x^2 + 1$.", "x^3 + x", "x^3 + x + 5", Verdict.CORRECT),
        (
            "Compute $\\mathbf{a} \\times \\mathbf{b}$.",
            "(1, -2, 1)",
            "(-1, 2, -1)",
            Verdict.INCORRECT,
        ),
    ],
)
def test_an_answer_that_is_one_of_many_is_checked_as_one_of_them(problem, gold, answer, verdict):
    assert grade(gold, f"$$\\boxed{{{answer}}}$$", problem).auto_verdict is verdict


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("y = C_1\\cos x + C_2\\sin x", "y = A\\sin x + B\\cos x", True),
        ("y = C_1e^{x} + C_2e^{2x}", "y = c_1 e^{2x} + c_2 e^{x}", True),
        ("y = -\\frac{1}{x+C}", "y = \\dfrac{1}{C-x}", True),
        ("y = Ce^x", "y = e^{x + C}", False),  # only the positive multiples
        ("y = C_1e^{x} + C_2e^{2x}", "y = C_1 e^{x} + C_2 e^{3x}", False),
    ],
)
def test_a_general_solution_with_its_constants_renamed_is_the_same_family(gold, answer, equal):
    verdict = grade(gold, f"The general solution is $$\\boxed{{{answer}}}$$").auto_verdict

    assert (verdict is Verdict.CORRECT) is equal


@pytest.mark.parametrize(
    ("gold", "output", "problem", "verdict"),
    [
        (
            "0.48 \\text{ kWh}",
            "E = 60 W × 28,800 s = 1,728,000 J\n\n**E = 1.728 MJ**",
            "",
            Verdict.CORRECT,
        ),
        (
            "1.00 \\times 10^{8} \\text{ Hz}",
            "$$\\boxed{f = 100\\ \\text{MHz}}$$",
            "",
            Verdict.CORRECT,
        ),
        ("2700 \\text{ kg/m}^3", "**ρ = 2.70 g/cm³**", "", Verdict.CORRECT),
        ("0.0040 \\text{ M}", "**c = 4.0 mM**", "", Verdict.CORRECT),
        (
            "9.0 \\times 10^{13}",
            "**Answer:** $E = 90\\ \\text{TJ}$",
            "How much energy is it?",
            Verdict.CORRECT,
        ),
        (
            "0.15",
            "**R = 1.5 × 10⁻⁴ kΩ**",
            "What is the resistance in kilohms?",
            Verdict.INCORRECT,
        ),
        ("10\\pi", "The circumference is approximately **31.42 cm**.", "", Verdict.INCORRECT),
    ],
)
def test_a_value_in_another_prefix_or_unit_of_its_quantity_is_converted(
    gold, output, problem, verdict
):
    assert grade(gold, output, problem).auto_verdict is verdict


def test_the_right_quantity_in_another_unit_than_the_question_names_is_flagged():
    graded = grade("300", "**Answer: 300,000 J**", "How much energy is used, in kJ?")

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "unit_mismatch" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("x^3+1", "So the expanded form is x**3 + 1."),
        ("3x^2\\ln x + x^2", "f'(x) = x**2*(3*log(x) + 1)"),
        ("3.011 \\times 10^{23}", "So 0.500 mol of iron contains 3.011e+23 atoms."),
        ("47 \\times 10^{-6}", "**Answer: 47 × 10⁻⁶ F**"),
        ("0, 1, 1", "**Eigenvalues:** $1$ (multiplicity 2) and $0$ (multiplicity 1)."),
        ("-3i+6j-3k", "The cross product is -3**i** + 6**j** - 3**k**."),
    ],
)
def test_code_notation_prefixed_units_and_multiplicities_are_read(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluation("answer_check")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("\\frac{k}{2a}", "k/2a"), ("\\frac{x}{x-1}", "x/x-1"), ("e^{x+1}", "e^x+1")],
)
def test_plain_text_read_two_ways_is_flagged(gold, answer):
    assert "two_readings" in reasons(grade(gold, f"The answer is {answer}"))


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        (
            "\\begin{cases} 2x, & \\text{if } x \\geq 0 \\\\ 0, & \\text{otherwise} \\end{cases}",
            Verdict.CORRECT,
        ),
        ("\\begin{cases} 2x, & x > 0 \\\\ 0, & x \\le 0 \\end{cases}", Verdict.CORRECT),
        ("\\begin{cases} 0, & x \\ge 0 \\\\ 2x, & x < 0 \\end{cases}", Verdict.INCORRECT),
    ],
)
def test_piecewise_functions_are_compared_piece_by_piece(answer, verdict):
    gold = "f(x)=\\begin{cases} 2x & x\\ge 0 \\\\ 0 & x<0 \\end{cases}"

    assert grade(gold, f"$$f(x) = {answer}$$").auto_verdict is verdict


def test_a_fraction_left_with_a_common_factor_where_simplifying_is_asked_is_flagged():
    output = "$$\\frac{x^2-4x+4}{x^2-4} = \\boxed{\\frac{(x-2)^2}{(x-2)(x+2)}}$$"

    assert "form_differs" in reasons(
        grade("\\frac{x-2}{x+2}", output, "Simplify $\\frac{x^2-4x+4}{x^2-4}$.")
    )


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("(2, -1)", "Then $x = -1 + 3 = 2$.\n\nSo $x = 2$ and $y = -1$.\n\n$$\\boxed{(-1,\\ 2)}$$"),
        (
            "2, 5",
            "$(\\lambda - 2)(\\lambda - 5) = 0 \\Rightarrow \\lambda = 2,\\ \\lambda = 5$\n\n"
            "**Eigenvalues:** $\\lambda = 2$, $\\lambda = -5$",
        ),
        ("170", "Total = $120 + $50 = $170\n\nSo renting the car will cost $175 in total."),
    ],
)
def test_the_gold_stated_in_the_working_just_before_another_answer_is_flagged(gold, output):
    assert grade(gold, output).needs_review


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("90", "<solution>\n  <step>120 − 30 = 90</step>\n  <result>90</result>\n</solution>"),
        (
            "16",
            '<solution>\n  <step>240 / 15 = 16</step>\n  <result unit="weeks">16</result>\n</solution>',
        ),
        (
            "\\frac{\\sqrt{2}}{2}",
            "$$\\sin 45^\\circ = \\frac{1}{\\sqrt{2}}$$\n\n<answer>1/\\sqrt{2}",
        ),
        (
            "56",
            'Answer: 56\n\n(Remember to put your final answer on its own line after "Answer:".)',
        ),
    ],
)
def test_structured_replies_state_their_result_and_an_echoed_instruction_states_nothing(
    gold, output
):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("4.7 \\times 10^{-5}", "$$0.000047 = \\boxed{4.7 \\times 10^{-6}}$$"),
        ("7.39", "Keeping two decimal places gives $\\boxed{7.38}$."),
        ("2.68", "So 2.675 rounded to two decimal places is **2.67**."),
    ],
)
def test_a_wrong_rounding_or_a_wrong_power_of_ten_is_no_approximation(gold, output):
    graded = grade(gold, output)

    assert graded.auto_verdict is Verdict.INCORRECT
    assert "approximate_answer" not in reasons(graded)


def test_a_decimal_for_an_exact_gold_is_still_an_approximation():
    assert "approximate_answer" in reasons(grade("\\sqrt{14}", "So $|v| \\approx \\boxed{3.74}$."))


# Round twenty-two (held-out sets DG to DJ): dates, clock times and durations; sets of integers
# described by conditions; labelled answer blocks and named points; markup noise.


@pytest.mark.parametrize(
    ("gold", "answer", "equal"),
    [
        ("February 14, 2023", "2023\\text{-}02\\text{-}14", True),
        ("February 13, 2025", "Thursday, 13 February 2025", True),
        (
            "9 de junio de 2023",
            "100 días después del 1 de marzo de 2023 es el viernes 9 de junio de 2023",
            True,
        ),
        ("June 6, 2024", "June 7, 2024", False),
        ("Wednesday 04:15", "4:15 AM on Wednesday", True),
        ("12:15 PM", "12.15 pm", True),
        ("12:00 AM", "24:00", True),
        ("下午4点35分", "16:35", True),
        ("10:15 PM", "10:15 \\text{ AM}", False),
        ("17:30", "5:30", False),  # the 24-hour clock asked: 5:30 is morning
        ("4:30 p.m.", "4:30", True),
        ("Saturday", "Der 1. Januar 2000 war ein Samstag", True),
        ("Saturday", "Sunday", False),
    ],
)
def test_dates_clock_times_and_weekdays_are_compared_by_what_they_name(gold, answer, equal):
    assert calendar.compare(gold, answer) is equal


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("4 hours 31 minutes", "4:31"), ("26 hours 50 minutes", "1 day, 2 hours and 50 minutes")],
)
def test_a_duration_in_other_units_is_the_same_duration(gold, answer):
    assert calendar.compare(gold, answer) is True


def test_a_numeric_date_that_reads_two_ways_is_flagged():
    graded = grade("March 6, 2024", "Counting forward 14 days, the date is 03/06/2024.")

    assert "two_readings" in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "answer", "same"),
    [
        ("\\text{all odd } n", "n \\text{ is odd}", True),
        ("\\text{all primes } p > 3", "every prime $p \\ge 5$", True),
        (
            "n \\equiv 0 \\text{ or } 3 \\pmod 4",
            "exactly the $n$ of the form $n = 4k$ or $n = 4k+3$",
            True,
        ),
        ("x \\equiv 1, 4, 11, 14 \\pmod{15}", "x \\equiv \\pm 1, \\pm 4 \\pmod{15}", True),
        ("x \\equiv 4 \\pmod 5", "x \\equiv 4, 9 \\pmod{10}", True),
        ("20, 21, 22, 23, 24", "20 \\le n \\le 24", True),
        ("n \\equiv 1 \\pmod 4", "n \\equiv 3 \\pmod 4", False),
        ("\\text{all odd } n", "all even n", False),
    ],
)
def test_sets_of_integers_described_by_conditions_are_compared_as_sets(gold, answer, same):
    graded = grade(gold, f"**Answer:** {answer}")

    assert (graded.auto_verdict is Verdict.CORRECT) is same, graded.evaluation("answer_check")


def test_a_formula_is_not_read_as_a_set_of_integers():
    assert grade("4n+1", "The $n$th term is $\\boxed{4n+5}$.").auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        (
            "center (3, -5), radius 5",
            "## Answer\n\n- **Center:** $(3,\\,-5)$\n- **Radius:** $\\sqrt{25} = 5$",
        ),
        (
            "vertex (-1, -3), focus (1, -3)",
            "- **Vertex:** $(-1, -3)$\n- **Focus:** $(-1 + 2, -3) = (1, -3)$",
        ),
        ("(0, 3)", "Here 4p = 12, so p = 3.\n\nFocus: F(0, 3)"),
        ("(\\pm 5, 0)", "**Foci:** $F_1(-5, 0)$ and $F_2(5, 0)$"),
    ],
)
def test_labelled_answer_blocks_and_named_points_are_read(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_permutations_and_combinations_are_not_named_points():
    assert read_answer("P(5, 2)").expression == "P(5, 2)"
    assert read_answer("F(x, y)").expression == "F(x, y)"


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\sqrt{3}", "boxed{sqrt{3}}"),
        ("\\frac{9}{4}", "frac{9}{4}"),
        ("\\frac{\\sqrt{2}}{2}", "dfrac{sqrt{2}}{2}"),
        ("x^2-4", "`x^2 - 4`"),
        ("[-3,3]", "[&minus;3, 3]"),
        ("36\\pi", "<b>36&pi;</b>"),
        ("x^2+1", "x<sup>2</sup>+1"),
        ("3\\sqrt[3]{2}", "3∛2"),
        ("0.\\overline{18}", "0.1̅8̅"),
        ("12000", "12&nbsp;000"),
    ],
)
def test_markup_noise_of_logs_and_small_models_is_undone(gold, answer):
    assert compare_values(gold, read_answer(answer).expression).equal


def test_plus_minus_is_not_read_inside_pmod():
    assert "+od" not in read_answer("x \\equiv \\pm 1 \\pmod{6}").expression


# Round twenty-three (DK to DN): questions that ask for two things, ratios, factorials.


@pytest.mark.parametrize(
    ("problem", "gold", "output"),
    [
        (
            "Find the mean and the median of 15, 20, 35, 18, 22.",
            "\\text{mean } 22, \\text{ median } 20",
            "The mean is the sum over the count.\n\nSo the mean is 22 books and the median is"
            " 20 books.",
        ),
        (
            "Find the mode and the median of the data: 8, 3, 5, 8, 10, 6, 5, 8.",
            "\\text{mode } 8, \\text{ median } 7",
            "**Median:** (6 + 8) / 2 = **7**\n\nTo summarize:\n* Median = 7\n* Mode = 8",
        ),
        (
            "Find the greatest common divisor and the least common multiple of 84 and 120.",
            "12, 840",
            "| Quantity | Value |\n|:--|--:|\n| GCD(84, 120) | **12** |\n| LCM(84, 120) | **840** |",
        ),
        (
            "Solve for $x$ and $y$: $3x + 2y = 16$ and $x - y = 2$.",
            "(4, 2)",
            "Then $x = y + 2 = 4$.\n\nSo the solution is $y = 2$ and $x = 4$.",
        ),
        (
            "Find the quotient and the remainder when $3456$ is divided by $17$.",
            "203, 5",
            "Check: $17 \\times 203 = 3451$.\n\n$$3456 \\div 17 = 203 \\text{ R } 5$$",
        ),
        (
            "Find the quotient and the remainder when $2^{12}$ is divided by $10$.",
            "409, 6",
            "So $$4096 = 10 \\times 409 + 6$$",
        ),
        (
            "Find the minimum value of $f(x) = x^2 - 8x + 21$ and the value of $x$ at which it"
            " occurs.",
            "\\text{minimum } 5 \\text{ at } x = 4",
            "$$f(x) = (x - 4)^2 + 5.$$\n\n$$\\boxed{x = 4,\\ f_{\\min} = 5}$$",
        ),
    ],
)
def test_parts_stated_one_by_one_are_gathered_by_their_names(problem, gold, output):
    graded = grade(gold, output, problem=problem)

    assert graded.auto_verdict is Verdict.CORRECT, graded.evaluation("answer_check")


@pytest.mark.parametrize(
    ("problem", "gold", "output"),
    [
        (  # the labels say which value is which, and they are the other way round
            "Find the minimum value of $g(x) = x^2 + 2x + 7$ and the value of $x$ where it occurs.",
            "\\text{minimum } 6 \\text{ at } x = -1",
            "So the vertex is $(-1, 6)$.\n\nTherefore, the minimum value of $g$ is $-1$, and it"
            " occurs at $x = 6$.",
        ),
        (  # the names are those of the gold, in another order, with the values swapped
            "連立方程式を解け。",
            "x=2,\\ y=3",
            "よって $x=2$ ……\n\n答え：$x=3,\\ y=2$",
        ),
        (  # one part right, one wrong
            "Find the quotient and the remainder when $1000$ is divided by $23$.",
            "\\text{quotient } 43, \\text{ remainder } 11",
            "So the quotient is 43 and the remainder is 21.",
        ),
    ],
)
def test_parts_gathered_by_name_are_compared_in_their_places(problem, gold, output):
    assert grade(gold, output, problem=problem).auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "answer", "same"),
    [
        ("2:3:5", "2:5:3", False),
        ("2:3:5", "4:6:10", True),
        ("5:3", "5 \\colon 3", True),
        ("5:3", "5∶3", True),
        ("3:2", "2:3", False),
    ],
)
def test_ratios_are_ordered_and_equal_to_their_multiples(gold, answer, same):
    assert bool(compare_values(gold, answer).equal) is same


def test_a_ratio_with_spaces_around_its_colon_is_one_answer():
    graded = grade("3:2", "3 : 2 (boys to girls)")

    assert graded.evaluation("answer_check").extracted == "3 : 2"
    assert graded.auto_verdict is Verdict.CORRECT


def test_a_bold_clause_that_states_a_value_is_read_as_a_sentence():
    output = (
        "### Answer\n**The 100th digit is 8** (the 4th digit of 142857, since 100 leaves"
        " remainder 4 when divided by 6)."
    )

    assert grade("8", output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(("gold", "verdict"), [("120", Verdict.CORRECT), ("5", Verdict.CORRECT)])
def test_a_factorial_sign_after_the_answer_reads_as_the_gold_needs(gold, verdict):
    output = "5 × 4 × 3 × 2 × 1 = 5!\n\n**Answer: 5!**"

    assert grade(gold, output).auto_verdict is verdict


def test_a_percent_change_said_to_go_down_is_negative():
    assert grade("-12.5\\%", "down 12.5%").auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("problem", "gold", "output"),
    [
        (
            "A rectangle's length is twice its width, and its perimeter is 54 cm. Find the length"
            " and the width.",
            "18, 9",
            "Length: $2 \\times 9 = 18$.\n\nThe rectangle is 9 cm wide and 18 cm long.",
        ),
        (
            "1234 を 56 で割ったときの商と余りを求めよ。",
            "22, 2",
            "よって 1234 = 56 × 22 + 2 となる。\n\n**答え：商は 22、余りは 2**",
        ),
        (
            "A merchant buys an item for \\$250 and sells it for \\$320. Find the profit and the"
            " profit as a percentage of the cost.",
            "70, 28\\%",
            "**Profit** = Selling price − Cost price = $320 − $250 = **$70**\n\n**Profit"
            " percentage** = (70 ÷ 250) × 100% = **28%**\n\nSo the merchant makes a profit of"
            " seventy dollars, which is 28% of what the item cost.",
        ),
    ],
)
def test_parts_are_found_by_other_words_for_their_names(problem, gold, output):
    assert grade(gold, output, problem=problem).auto_verdict is Verdict.CORRECT


def test_an_axis_given_as_the_other_variable_is_not_the_gold_axis():
    problem = "Find the vertex and the axis of symmetry of the parabola $y = x^2 + 4x + 7$."
    output = "**Answer:** vertex $(-2, 3)$, axis of symmetry $y = -2$"
    graded = grade("\\text{vertex } (-2, 3), \\text{ axis } x = -2", output, problem=problem)

    assert graded.auto_verdict is Verdict.INCORRECT


def test_two_lists_offered_as_alternatives_are_a_hedge():
    problem = (
        "A right triangle has hypotenuse 13, and one leg is 7 units longer than the other."
        " Find the lengths of the legs."
    )
    output = "So $x = 5$ or $x = -12$.\n\n**The legs are 5 and 12, or −12 and −5.**"

    assert "hedged" in reasons(grade("5, 12", output, problem=problem))


def test_an_answer_line_that_contradicts_the_conclusion_just_above_it_is_flagged():
    problem = "A basket has 45 red apples and 30 green apples. What is the ratio of red apples to green apples in simplest form?"
    output = (
        "45 ÷ 15 = 3\n30 ÷ 15 = 2\n\nSo the ratio of red to green apples is 3:2.\n\n**Answer:** 2:3"
    )

    assert "multiple_answers" in reasons(grade("3:2", output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("9", "The remainder is $p(2) = 8 - 4 + 5 = 9$.\n\nThe remainder is $\\boxed{9}$."),
        ("7", "So the remainder is 100 − 93 = 7.\n\nFinal answer: 7"),
    ],
)
def test_a_conclusion_worked_out_to_the_answer_does_not_contradict_it(gold, output):
    graded = grade(gold, output, problem="Find the remainder of the division.")

    assert graded.auto_verdict is Verdict.CORRECT
    assert "multiple_answers" not in reasons(graded)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("24 \\text{ km/h}", "400 meters per minute"),
        ("21.6 \\text{ L}", "**The faucet drips 21,600 mL of water per day.**"),
    ],
)
def test_a_quantity_in_other_units_the_question_does_not_name_is_converted(gold, output):
    assert (
        grade(gold, output, problem="How fast? How much in a day?").auto_verdict is Verdict.CORRECT
    )


def test_an_aside_for_completeness_after_the_answer_is_not_the_answer():
    output = (
        "The absolute minimum on $[0, 2]$ is $-4$, attained at $x = 1$, so the point is"
        " $(1, -4)$.\n\nFor completeness, the absolute maximum is $4$, attained at $x = 2$."
    )

    problem = "Find the point at which $f(x) = 2x^3 - 6x$ attains its absolute minimum on $[0, 2]$."

    assert grade("(1, -4)", output, problem=problem).auto_verdict is Verdict.CORRECT


def test_an_interval_closed_at_infinity_is_flagged_even_with_sized_brackets():
    output = "**Answer:** $p \\in \\left(\\tfrac{1}{2}, \\infty\\right]$"

    assert "interval_notation" in reasons(grade("\\left(\\frac{1}{2}, \\infty\\right)", output))


def test_set_builder_notation_with_an_absolute_value_is_its_interval():
    assert compare_values("(-1, 1)", "\\{x \\in \\mathbb{R} : |x| < 1\\}").equal


# Round twenty-four (DO to DR): general solutions, sets of reals, complex numbers, agents.


@pytest.mark.parametrize(
    ("gold", "answer", "same"),
    [
        (
            "x = \\pm\\frac{2\\pi}{3} + 2k\\pi,\\ k \\in \\mathbb{Z}",
            "x = \\frac{2\\pi}{3} + 2k\\pi \\text{ or } x = \\frac{4\\pi}{3} + 2k\\pi",
            True,
        ),
        ("45^\\circ + 180^\\circ k", "45^\\circ + k \\cdot 180^\\circ, k \\in \\mathbb{Z}", True),
        ("(2k+1)\\pi", "\\pi + 2k\\pi", True),
        (
            "n\\pi + (-1)^n\\frac{\\pi}{6}",
            "\\frac{\\pi}{6} + 2n\\pi, \\frac{5\\pi}{6} + 2n\\pi",
            True,
        ),
        (
            "\\frac{\\pi}{4} + \\frac{k\\pi}{2}",
            "\\pm\\frac{\\pi}{4} + k\\pi, where k is any integer",
            True,
        ),
        ("\\frac{\\pi}{6} + 2k\\pi", "\\frac{\\pi}{6} + k\\pi", False),
        ("x = \\frac{\\pi}{4} + k\\pi", "x = \\frac{\\pi}{4} + 2k\\pi", False),
    ],
)
def test_general_solutions_are_compared_as_sets_of_angles(gold, answer, same):
    assert bool(compare_values(gold, answer).equal) is same


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("(-\\infty, \\infty)", "**The inequality holds for every real number $x$.**", "Solve."),
        (
            "(-\\infty, -3) \\cup (-3, 3) \\cup (3, \\infty)",
            "All real numbers except x = 3 and x = -3.",
            "Find the domain of $f(x) = \\dfrac{1}{x^2 - 9}$.",
        ),
        ("[4, 8]", "x is between 4 and 8, inclusive.", "Solve."),
        ("[-4, -2] \\cup [2, 4]", "**Answer:** $2 \\le |x| \\le 4$", "Solve $|x^2 - 10| \\le 6$."),
        (
            "(-\\infty, -3) \\cup [3, \\infty)",
            "**Solution:** $\\{x \\mid x < -3\\} \\cup \\{x \\mid x \\ge 3\\}$",
            "Solve.",
        ),
        (
            "[1, \\infty)",
            "**Range:** all real numbers greater than or equal to 1.",
            "Find the range.",
        ),
    ],
)
def test_sets_of_reals_are_read_however_they_are_described(gold, output, problem):
    assert grade(gold, output, problem=problem).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("[1, \\infty)", "(1, \\infty)"), ("(-1, 3)", "|x - 1| \\le 2"), ("[4, 8]", "x < 4 or x > 8")],
)
def test_sets_of_reals_that_differ_at_an_end_or_inside_stay_different(gold, answer):
    assert grade(gold, f"**Answer:** ${answer}$").auto_verdict is Verdict.INCORRECT


def test_a_between_without_its_ends_is_not_read_as_a_set():
    assert real_sets.same_reals("[4, 8]", "x is between 4 and 8") is None


def test_an_upright_imaginary_unit_is_not_a_unit():
    assert read_answer("3 + 4\\mathrm{i}").expression == "3 + 4\\mathrm{i}"
    assert grade("3+4i", "Hence $z = 3 + 4\\mathrm{i}$.").auto_verdict is Verdict.CORRECT


def test_the_sine_written_sen_is_the_sine():
    assert compare_values("\\sin x", "\\operatorname{sen} x").equal


@pytest.mark.parametrize(
    "ending",
    [
        "No consensus was reached after 2 rounds. Agent A: 1/6, Agent B: 5/36.",
        "The answer is 9 or 11 depending on the reading. Could you clarify which is intended?",
    ],
)
def test_an_agent_that_ends_without_choosing_is_flagged(ending):
    assert "declined" in reasons(grade("\\frac{1}{6}", f"Agent A: 1/6\nAgent B: 5/36\n\n{ending}"))


@pytest.mark.parametrize(
    "closing",
    [
        "For comparison, note that a 6 within two rolls is far from sure: its probability is\n"
        "$$1 - \\left(\\frac{5}{6}\\right)^2 = \\frac{11}{36}.$$",
        "If you invited 9 guests instead, the same rate gives 27 cookies.",
    ],
)
def test_a_comparison_or_a_supposition_after_the_answer_is_an_aside(closing):
    output = f"So the expected number is $6$.\n\n{closing}"
    assert grade("6", output).auto_verdict is Verdict.CORRECT


def test_a_lower_case_option_label_as_gold_is_the_option():
    problem = "How many more?\n(a) 12 (b) 24 (c) 36 (d) 48"
    result = grade("b", "The difference is 24.\n\nAnswer: (B)", problem=problem)
    assert result.auto_verdict is Verdict.CORRECT


def test_a_numbered_option_named_by_its_value_is_that_option():
    problem = "Which is closest to $\\sqrt{80}$?\n1) 8\n2) 9\n3) 10"
    assert grade("2", "√80 ≈ 8.94, so the closest is 9.", problem=problem).auto_verdict is (
        Verdict.CORRECT
    )
    assert grade("2", "√80 ≈ 8.94, so the closest is 8.", problem=problem).auto_verdict is (
        Verdict.INCORRECT
    )


@pytest.mark.parametrize(
    ("answer", "correct"),
    [
        ("x = 4,\\ z = -1,\\ y = 2", True),
        ("z = -1, y = 2, x = 4", True),
        ("x = 4, z = 2, y = -1", False),
    ],
)
def test_named_values_fill_an_unnamed_tuple_by_their_letters(answer, correct):
    result = grade("(4, 2, -1)", f"$$\\boxed{{{answer}}}$$", problem="Solve the system.")
    assert (result.auto_verdict is Verdict.CORRECT) is correct


def test_a_unit_converted_to_the_golds_is_compared_in_it():
    assert grade("1.2 L", "Quedan 1200 ml.").auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "201",
            "$A = \\pi r^2 = \\boxed{64\\pi}$",
            "Find the area of a circle of radius 8, rounded to the nearest whole number.",
            "rounding_differs",
        ),
        (
            "26.6",
            "The angle is $\\theta = \\arctan(1/2) \\approx 0.4636$ radians.",
            "Find the angle to the nearest tenth of a degree.",
            "unit_mismatch",
        ),
        (
            "3, 4",
            "Hence $$\\boxed{q(x) = (x-3)(x-4)}$$",
            "Find the zeros of $q$.",
            "form_requested",
        ),
        (
            "(2, 0)",
            "Setting y = 0 gives x = 2.",
            "Where does the line meet the x-axis?",
            "partial_match",
        ),
        ("(1, 5)", "So $$\\boxed{(5, 1)}$$", "Solve for $y$ and $x$: ...", "order_lost"),
        (
            "-20\\%",
            "The change is 20%.",
            "The price fell from 50 to 40. What was the percent change?",
            "sign_in_words",
        ),
        (
            "720",
            "Unordered: $\\binom{10}{3} = 120$. (If the three places were ranked, the count would"
            " be $10 \\times 9 \\times 8 = 720$.)\n\n$$\\boxed{120}$$",
            "In how many ways can 3 of 10 runners be chosen?",
            "two_readings",
        ),
        (
            "4x^2 - 1",
            "**Answer:** $8x^2 - 2$",
            "Find a quadratic with integer coefficients whose roots are $\\pm\\frac12$.",
            "many_answers",
        ),
    ],
)
def test_the_right_value_in_a_form_not_asked_for_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem=problem))


def test_a_ratio_gold_for_a_probability_is_suspect():
    result = grade(
        "1:3", "The probability is $\\boxed{\\frac14}$.", problem="What is the probability?"
    )
    assert "gold_suspect" in reasons(result)


def test_two_boxes_of_two_readings_are_two_answers():
    output = (
        "- If it is the face diagonal, $s\\sqrt{2} = 8$, so $s = \\boxed{4\\sqrt{2}}$.\n"
        "- If it is the space diagonal, $s\\sqrt{3} = 8$, so $s = \\boxed{\\frac{8\\sqrt{3}}{3}}$."
    )
    assert "multiple_answers" in reasons(grade("\\frac{8\\sqrt{3}}{3}", output))


def test_an_option_left_open_beside_the_chosen_one_is_a_hedge():
    problem = (
        "Which has exactly 4 lines of symmetry?\n(A) rectangle (B) square (C) kite (D) octagon"
    )
    assert "hedged" in reasons(grade("B", "Answer: B, though D might also work.", problem=problem))


def test_both_solutions_stated_above_a_box_of_one_are_flagged():
    output = (
        "Both are valid: the solutions are \\(x = 4\\) or \\(x = -1\\).\n\n\\[\n\\boxed{4}\n\\]"
    )
    assert "gold_stated_elsewhere" in reasons(grade("4, -1", output))


def test_a_value_checked_in_parentheses_before_a_boxed_formula_is_seen():
    output = (
        "$g^{-1}(x) = \\frac{x - 1}{2}$, so $g^{-1}(9) = 4$. (Check: $g(4) = 9$.)\n\n"
        "$$\\boxed{g^{-1}(x) = \\frac{x-1}{2}}$$"
    )
    assert "gold_stated_elsewhere" in reasons(grade("4", output, problem="Find $g^{-1}(9)$."))


@pytest.mark.parametrize("answer", ["6 + h", "x^2 + 2x + m", "9 - s"])
def test_a_letter_after_an_operator_is_a_variable_not_a_unit(answer):
    gold = answer.split(" ", 1)[0]
    assert grade(gold, f"**Answer:** ${answer}$").auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\frac{1}{2}\\ln(x^2+9) + C", "ln√(x² + 9) + C"),
        ("\\ln\\left|\\frac{x-2}{x+2}\\right| + C", "ln|x − 2| − ln|x + 2| + C"),
    ],
)
def test_plain_logarithms_and_roots_of_brackets_are_read(gold, answer):
    assert grade(gold, f"So the integral is\n\n**{answer}**").auto_verdict is Verdict.CORRECT


def test_a_verdict_set_in_text_inside_mathematics_is_read():
    output = "By comparison with $\\sum 1/n^2$,\n$$\\sum_{n=1}^{\\infty}\\frac{1}{n^2+5}\\ \\textbf{converges.}$$"
    assert grade("Converges", output, problem="Does it converge?").auto_verdict is Verdict.CORRECT


def test_a_time_of_day_is_not_a_number_with_a_unit():
    assert grade("3:20 \\text{ p.m.}", "They meet again at 3:20 a.m.").auto_verdict is (
        Verdict.INCORRECT
    )


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\textbf{(C) }12",
            "Therefore the answer is $\\boxed{\\text{(C)}}$.",
            "$\\textbf{(A) }10\\qquad\\textbf{(B) }11\\qquad\\textbf{(C) }12$",
        ),
        (
            "B",
            "| Option | Value | Median? |\n|---|---|---|\n| A | 4 | ✗ |\n| B | 7 | ✓ |\n| C | 9 | ✗ |",
            "Median? (A) 4 (B) 7 (C) 9",
        ),
    ],
)
def test_options_named_by_an_answer_key_or_ticked_in_a_table_are_read(gold, output, problem):
    assert grade(gold, output, problem=problem).auto_verdict is Verdict.CORRECT


def test_a_value_labelled_with_another_options_letter_is_flagged():
    problem = (
        "$\\textbf{(A) }10\\qquad\\textbf{(B) }11\\qquad\\textbf{(C) }12\\qquad\\textbf{(D) }13$"
    )
    result = grade(
        "\\textbf{(C) }12",
        "So $n = 12$.\n\nThe answer is $\\boxed{\\textbf{(D) }12}$.",
        problem=problem,
    )
    assert "letter_value_mismatch" in reasons(result)


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("41", "n - 1 = 40, i.e. n = 41. As an aside, adding a factor 7 gives 281.", True),
        ("-9", "The least value is negative nine, reached when x = 5.", True),
        ("8\\pi", "<p>C = &pi;d = &pi; &times; 8 = <strong>8&pi;</strong></p>", True),
        ("5", 'Squaring gives two roots.\n\n```json\n{"solutions": [2, 5]}\n```', False),
    ],
)
def test_answers_restated_in_words_formulas_and_json_are_read(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("gold", "output", "problem", "reason"),
    [
        (
            "\\frac{1}{4\\pi}\\text{ cm/s}",
            "So $\\frac{dr}{dt} = \\boxed{-\\frac{1}{4\\pi}}$ (negative: shrinking).",
            "How fast is the radius decreasing?",
            "sign_in_words",
        ),
        (
            "1, 2, 4, 8",
            "There are $\\boxed{4}$ of them.",
            "How many divisors does 8 have?",
            "gold_suspect",
        ),
        ("10_{16}", "That is 16 in decimal.", "Compute $F_{16} + 1_{16}$.", "form_requested"),
        (
            "7",
            "So $$\\boxed{y = 7x - 3}$$",
            "Find the slope of the tangent line at $x = 1$.",
            "form_requested",
        ),
        (
            "3",
            "The multiples of 5 from 5 to 25 are 5, 10, 15, 20, 25, so there are 5 of them.",
            "How many integers between 5 and 25 are multiples of 5?",
            "endpoint_convention",
        ),
        (
            "252",
            "There are $900$ in all, so\n$$900 - 648 = 252$$\nhave a 7.\n\n**Answer: 225**",
            "How many?",
            "gold_stated_elsewhere",
        ),
    ],
)
def test_the_right_value_said_otherwise_is_flagged(gold, output, problem, reason):
    assert reason in reasons(grade(gold, output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem", "correct"),
    [
        ("\\text{diverges}", "**Ergebnis:** Die Reihe divergiert.", "Konvergiert die Reihe?", True),
        ("\\text{odd}", "**Ergebnis:** Die Funktion ist ungerade.", "Gerade oder ungerade?", True),
        (
            "\\text{composite}",
            "Since 91 = 7 × 13, 91 is **not prime**.",
            "Is 91 prime or composite?",
            True,
        ),
        ("\\text{composite}", "So 97 is **prime**.", "Is 97 prime or composite?", False),
        (
            "\\text{conditionally convergent}",
            "Putting these together: the series converges, but not absolutely.",
            "Classify the series.",
            True,
        ),
        (
            "\\text{divergent}",
            "So the series does not diverge.",
            "Does it converge or diverge?",
            False,
        ),
        (
            "\\text{no solution}",
            "$$\\boxed{\\text{The system is inconsistent.}}$$",
            "Solve the system.",
            True,
        ),
        (
            "\\text{cube}",
            "**Answer: a regular hexahedron.**",
            "Which solid has six square faces?",
            True,
        ),
        (
            "\\text{infinitely many}",
            "The number of solutions is $\\boxed{\\infty}$.",
            "How many solutions?",
            True,
        ),
        (
            "\\text{all real numbers}",
            "**Solution set:** $\\{x \\mid x \\in \\mathbb{R}\\}$",
            "Solve.",
            True,
        ),
        (
            "\\text{III}",
            "The terminal side lies in quadrant $\\boxed{3}$.",
            "In which quadrant?",
            True,
        ),
    ],
)
def test_word_answers_are_read_in_other_words_and_languages(gold, output, problem, correct):
    assert (grade(gold, output, problem=problem).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("output", "correct"),
    [
        ("Since $2.10 > $1.95, Ana has more money — 15 cents more than Ben.", True),
        ("Ana has $1.95 and Ben has $2.10, so Ben has more money.", False),
    ],
)
def test_a_name_in_a_clause_of_the_conclusion_answers_who(output, correct):
    result = grade(
        "\\text{Ana}", output, problem="Ana has 6 dimes. Ben has 7 quarters. Who has more money?"
    )
    assert (result.auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("gold", "answer", "correct"),
    [
        ("2.345,60 €", "€2,345.60", True),
        ("\\frac{3}{4}", "3⁄4", True),
        ("x + 3", "x + 3, x \\neq 3", True),
        ("-1", "negative one (for x ≠ 2)", True),
        ("[0, 9) \\cup (9, \\infty)", "x \\geq 0, x \\neq 9", True),
    ],
)
def test_number_formats_and_restrictions_around_the_value_are_read(gold, answer, correct):
    assert (grade(gold, f"**Answer:** {answer}").auto_verdict is Verdict.CORRECT) is correct


def test_an_identity_that_stops_short_of_factoring_completely_is_flagged():
    output = "So $x^3 + 3x^2 - 4x - 12 = (x + 3)(x^2 - 4)$."
    result = grade("(x+3)(x-2)(x+2)", output, problem="Factor completely: $x^3 + 3x^2 - 4x - 12$.")
    assert "form_differs" in reasons(result)


# Round twenty-eight (EE to EH): word problems as models write them, statistics and counting,
# outputs in other languages, true/false and multiple choice.


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "0.125",
            "よって、答えは $\\boxed{\\dfrac{1}{8}}$ です。",
            "3回とも表が出る確率を小数で答えなさい。",
        ),
        (
            "0.875",
            "Por lo tanto, $\\frac{7}{8}$ equivale a 87,5 %.",
            "Escribe la fracción $\\frac{7}{8}$ como número decimal.",
        ),
        ("3:2", "答えは $1.5 : 1$ です。", "長さの比を最も簡単な整数の比で表しなさい。"),
        (
            "495",
            "$$\\boxed{\\binom{12}{4}}$$",
            "In how many ways can 4 books be chosen from 12? Give your answer as an integer.",
        ),
        (
            "2 \\text{ hours } 45 \\text{ minutes}",
            "Total flight time = 2.75 hours.\n\n\\boxed{2.75 \\text{ hours}}",
            "How long is the flight? Give your answer in hours and minutes.",
        ),
    ],
)
def test_the_right_value_in_another_form_than_asked_is_flagged(gold, output, problem):
    result = grade(gold, output, problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert "form_requested" in reasons(result)


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("3:2", "So the ratio of length to width is **1.5 : 1**", "What is the ratio of 12 to 8?"),
        ("495", "$$\\boxed{495}$$", "How many ways? Give your answer as an integer."),
    ],
)
def test_the_form_asked_for_or_a_free_form_is_not_flagged(gold, output, problem):
    result = grade(gold, output, problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review


@pytest.mark.parametrize(
    ("answer", "hedged"),
    [
        ("12 недель (или примерно 13 недель)", True),
        ("61 (или 1, если допускать нулевое частное)", True),
        ("12（或者13）", True),
        ("5 (o 6 se contiamo anche lo zero)", True),
        ("12 (order matters)", False),
        ("12 (original price)", False),
    ],
)
def test_a_second_answer_in_brackets_is_a_hedge_in_any_language(answer, hedged):
    assert read_answer(answer).hedged is hedged


def test_a_remark_after_the_answer_in_another_language_is_left_out():
    output = (
        "$A = a \\cdot b = 9 \\cdot 6 = 54$ cm².\n\n"
        "Die Antwort lautet: Der Flächeninhalt beträgt 54 cm².\n\n"
        "Nebenbei: Die Diagonale ist $d = \\sqrt{117} \\approx 10{,}82$ cm."
    )
    result = grade("54", output, problem="Wie groß ist der Flächeninhalt in cm²?")
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review


@pytest.mark.parametrize(("gold", "correct"), [("\\text{neither}", True), ("\\text{odd}", False)])
def test_neither_even_nor_odd_answers_neither(gold, correct):
    output = "Both checks fail at $x = 1$.\n\nSo $f$ is **neither** even nor odd."
    result = grade(gold, output, problem="Is $f(x) = x^2 + x$ even, odd, or neither?")
    assert (result.auto_verdict is Verdict.CORRECT) is correct


def test_a_yes_with_an_exception_is_a_hedge():
    output = "At $x = 0$ the difference quotient blows up.\n\nAnswer: Yes, except at $x = 0$."
    result = grade("no", output, problem="Is $f(x)=x^{2/3}$ differentiable on $\\mathbb{R}$?")
    assert "hedged" in reasons(result)


@pytest.mark.parametrize(
    ("output", "flagged"),
    [
        ("Both give 1/2.\n\nSo both (A) and (B) are solutions. I'll choose **(B)**.", True),
        ("Type AB+ has both A and B antigens.\n\nThe universal donor is **(B) AB+**.", False),
    ],
)
def test_two_options_said_to_hold_before_one_is_chosen_are_flagged(output, flagged):
    problem = "Which of the following is a solution?\n(A) $\\pi/6$ (B) $5\\pi/6$ (C) $\\pi/3$"
    result = grade("A", output, problem=problem)
    assert ("multiple_answers" in reasons(result)) is flagged


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\sqrt{5}",
            "Using the sample variance, $s = \\frac{2\\sqrt{15}}{3}$.\n\n"
            "$\\boxed{\\dfrac{2\\sqrt{15}}{3}}$",
            "Find the standard deviation of the data $3, 5, 7, 9$.",
        ),
        (
            "90",
            "By linear interpolation the position is 9.1, so the value is 91.\n\n$\\boxed{91}$",
            "Find the $90$th percentile of the data $10, 20, 30, 40, 50, 60, 70, 80, 90, 100$.",
        ),
    ],
)
def test_a_spread_or_percentile_by_another_convention_is_flagged(gold, output, problem):
    assert "spread_convention" in reasons(grade(gold, output, problem=problem))


@pytest.mark.parametrize(
    ("output", "flagged"),
    [
        (
            "So there are 12 girls and 30 − 12 = 18 boys.\n\n**There are 18 boys in the class.**",
            True,
        ),
        ("So there are 18 girls and 12 boys.\n\n**There are 18 girls in the class.**", False),
    ],
)
def test_the_golds_value_said_of_another_group_is_flagged(output, flagged):
    problem = "A class has 30 students. There are 6 more girls than boys. How many girls are there?"
    result = grade("18", output, problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert ("other_quantity" in reasons(result)) is flagged


def test_a_gold_the_output_names_as_the_mistake_to_avoid_is_flagged():
    output = (
        "Average speed = 600 ÷ 12.5 = 48 km/h.\n\n(Note that this is not the simple average of "
        "60 and 40, which would be 50 km/h.)\n\n**Answer: 48 km/h**"
    )
    result = grade("50", output, problem="What is the average speed for the round trip?")
    assert result.auto_verdict is Verdict.INCORRECT
    assert "gold_rejected" in reasons(result)


# Round twenty-nine (EI to EL): programs and their printed output, exponents and logarithms,
# long reasoning traces, rounding.


def test_a_plain_function_after_a_coefficient_is_part_of_the_value():
    result = grade(
        "\\frac{\\ln 3}{4}",
        "k = ¼ ln 3 ≈ 0.2747 per hour",
        problem="Find the exact value of $k$ (per hour).",
    )
    assert result.auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "2^{5/6}",
            "$\\boxed{\\sqrt[6]{32}}$",
            "Express $\\sqrt{2}\\cdot\\sqrt[3]{2}$ as a single power of $2$.",
        ),
        (
            "\\frac{\\ln 7}{\\ln 2}",
            "\\frac{\\log 7}{\\log 2}",
            "Express $\\log_2 7$ in terms of natural logarithms.",
        ),
    ],
)
def test_a_power_or_natural_logarithms_asked_for_are_a_form(gold, output, problem):
    result = grade(gold, output, problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert "form_requested" in reasons(result)


@pytest.mark.parametrize(
    ("gold", "answer", "problem", "flagged"),
    [
        ("19.9", "20.0", "Round $19.96$ to the nearest tenth.", True),
        ("20.0", "19.9", "Round $19.96$ to the nearest tenth.", False),
        ("6290000", "6287000", "Round $6287215$ to the nearest ten thousand.", False),
    ],
)
def test_a_gold_that_is_not_the_rounding_asked_of_the_questions_number_is_suspect(
    gold, answer, problem, flagged
):
    result = grade(gold, f"Rounding the digit: $$\\boxed{{{answer}}}$$", problem=problem)
    assert result.auto_verdict is Verdict.INCORRECT
    assert ("gold_suspect" in reasons(result)) is flagged


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        # the last cell never ran: its code states no answer
        (
            "```python\nfrom math import comb\nprint(comb(5, 2), comb(3, 2), comb(8, 2))\n```\n"
            "```output\n10 3 28\n```\n\nNow combine them:\n\n```python\n"
            "p = Fraction(10 + 3, 28)\nprint(p)\n```",
            None,
        ),
        # what the program printed, said in the closing sentence
        (
            "```python\nprint(Fraction(10 + 3, 28))\n```\n```output\n13/28\n```\n\n"
            "The probability is 13/28.",
            Verdict.CORRECT,
        ),
        # an agent submits its answer by a call in its last cell
        (
            'Thought: The check passes.\nCode:\n```py\nfinal_answer("13/28")\n```',
            Verdict.CORRECT,
        ),
    ],
)
def test_a_program_states_no_answer_but_its_output_and_submission_do(output, verdict):
    result = grade("\\frac{13}{28}", output, problem="What is the probability?")
    if verdict is None:
        assert "no_answer" in reasons(result)
    else:
        assert result.auto_verdict is verdict


# Round thirty (EM to EP): competition answers, Unicode and plain-text mathematics, chat
# assistants' sections, coordinate geometry.


@pytest.mark.parametrize(
    "after",
    [
        "### Summary\n\n| Item | Cost |\n|---|---|\n| Total spent | **\\$21.00** |\n| Paid | \\$50.00 |",
        "### 💡 Key insight\n\nAlways square the negative number first, $(-2)^2 = 4$.",
        "### Quick check\n\nThe muffins cost $12$ and the cookies $9$, so she spent $21$.",
    ],
)
def test_sections_after_a_marked_answer_do_not_answer_again(after):
    output = f"$$50 - 21 = 29$$\n\n### Final Answer\n\nMaya gets **\\$29** in change.\n\n{after}"
    result = grade("29", output, problem="How much change does she get, in dollars?")
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review


def test_a_correction_after_the_answer_still_counts_in_a_later_section():
    output = (
        "### Final Answer\n\n**\\$29**\n\n### Summary\n\n"
        "Wait, I made a mistake: she paid with a $\\$40$ bill, so the change is **\\$19**."
    )
    result = grade("29", output)
    assert result.auto_verdict is Verdict.INCORRECT


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("4\\sqrt{5}", "AB = √((−1 − 3)² + (6 + 2)²) = √(16 + 64) = √80", True),
        ("3e^{3x}", "d/dx [e³ˣ] = 3e³ˣ", True),
        ("\\{1,3,5\\}", "U ∖ A = {1, 3, 5}", True),
        ("\\text{no solution}", "They are parallel: no point of intersection.", True),
        ("(-4, 3)", "A 90° turn sends (x, y) to (−y, x), so (3, 4) goes to (−4, 3).", True),
        ("(-4, 3)", "So (3, 4) goes to (4, −3).", False),
    ],
)
def test_unicode_and_plain_text_mathematics_is_read(gold, output, correct):
    assert (grade(gold, output).auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("\\frac{\\sqrt{3}}{2}", "sin(pi/3) = sqrt 3/2"),
        ("2x\\sqrt{2}", "sqrt 8x^2 = 2 sqrt 2x"),
        ("2x\\cos(x^2)", "2x cos x^2"),
        ("3x^2 - 4", "f'(x) = 3x2 - 4"),
        ("-\\frac{1}{3x^2}", "f′(x) = −1/3x²"),
    ],
)
def test_plain_text_whose_extent_is_open_has_two_readings(gold, answer):
    assert "two_readings" in reasons(grade(gold, answer))


def test_another_point_given_after_the_boxed_one_is_a_partial_answer():
    output = (
        "Set $x^2 = 4$, so $x = 2$.\n\nThe point of intersection is\n$$\\boxed{(2, 4)}$$\n\n"
        "By symmetry of the parabola about the $y$-axis, $(-2, 4)$ is also on both graphs."
    )
    result = grade(
        "(-2, 4), (2, 4)", output, problem="Find all points where $y = x^2$ meets $y = 4$."
    )
    assert "partial_match" in reasons(result)


def test_the_gold_point_among_others_is_several_answers():
    output = "$x = 2$ gives $y = 2$, and $x = -1$ gives $y = -1$.\n\nThe intersection points are $(2, 2)$ and $(-1, -1)$."
    problem = "Find the point of intersection of $y = x^2 - 2$ and $y = x$ in the first quadrant."
    assert "multiple_answers" in reasons(grade("(2, 2)", output, problem=problem))


@pytest.mark.parametrize(
    ("problem", "flagged"),
    [
        ("What is the principal square root of 144?", True),
        ("Solve $x^2 = 144$.", False),
    ],
)
def test_a_plus_minus_gold_where_one_root_is_asked_is_suspect(problem, flagged):
    result = grade("\\pm 12", "$$\\sqrt{144} = 12$$\n\n### Final Answer\n\n**12**", problem=problem)
    assert result.auto_verdict is Verdict.INCORRECT
    assert ("gold_suspect" in reasons(result)) is flagged


@pytest.mark.parametrize(
    ("problem", "gold", "answer"),
    [
        ("Evaluate $\\log_2 64$.", "8", "6"),
        ("What is $\\sin 30^\\circ + \\cos 60^\\circ$?", "\\frac{1}{2}", "1"),
        ("Find the greatest common divisor of 90 and 150.", "15", "30"),
        ("Find the remainder when $2x^3 - x^2 + 3$ is divided by $x + 1$.", "4", "0"),
        ("What is the remainder when $2^{100}$ is divided by $7$?", "3", "2"),
        ("Find $f^{-1}(x)$ if $f(x) = 4x - 8$.", "\\frac{x}{4}+8", "\\frac{x+8}{4}"),
        ("How many positive divisors does 100 have?", "8", "9"),
    ],
)
def test_a_gold_that_is_not_what_its_own_problem_gives_is_suspect(problem, gold, answer):
    result = grade(gold, f"The answer is ${answer}$.", problem=problem)
    assert result.auto_verdict is Verdict.INCORRECT
    assert "gold_suspect" in reasons(result)


@pytest.mark.parametrize(
    ("problem", "gold"),
    [
        ("Evaluate $\\log_2 64$.", "6"),
        ("Find the exact value of $\\sin 15^\\circ$.", "\\frac{\\sqrt{6}-\\sqrt{2}}{4}"),
        ("Evaluate $\\arctan(1)$. Give your answer in degrees.", "45"),
        ("Compute $(1+i)^{10}$.", "32i"),
        ("What is the value of $\\sqrt[3]{-125} \\cdot \\sqrt{81}$?", "-45"),
        ("Find the inverse of $f(x) = e^{x-2}$.", "2+\\ln x"),
        ("Find the remainder when $x^3+2$ is divided by $x^2+1$.", "2-x"),
    ],
)
def test_a_wrong_answer_against_a_gold_its_problem_confirms_is_just_wrong(problem, gold):
    result = grade(gold, "The answer is $17$.", problem=problem)
    assert result.auto_verdict is Verdict.INCORRECT
    assert "gold_suspect" not in reasons(result)


def test_a_root_marked_double_counts_as_the_root():
    result = grade("-1, 2", "x = 2 (double root), x = -1")
    assert result.auto_verdict is Verdict.CORRECT


def test_two_sets_joined_by_or_are_a_hedge():
    output = "Final answer: (-∞, -3) ∪ [1, ∞) or (-∞, -3] ∪ [1, ∞)"
    assert "hedged" in reasons(grade("(-\\infty,-3)\\cup[1,\\infty)", output))


def test_a_member_of_a_gold_residue_class_is_the_same_residue():
    problem = "What is the smallest integer greater than 5 that is congruent to 3 modulo 7?"
    result = grade(
        "3 \\pmod{7}", "The smallest one greater than 5 is 10.\n\n$\\boxed{10}$", problem=problem
    )
    assert "same_residue" in reasons(result)


@pytest.mark.parametrize(
    ("problem", "flagged"),
    [
        ("A movie starts at 7:15 pm and ends at 9:45 pm. How long is the movie?", True),
        ("A movie starts at 7:15 pm and ends at 9:45 pm. How many minutes long is it?", False),
    ],
)
def test_a_bare_answer_whose_unit_the_output_named_is_a_unit_mismatch_where_none_is_asked(
    problem, flagged
):
    output = "So the movie is 2 hours 30 minutes = 2.5 hours long.\n#### 2.5"
    assert ("unit_mismatch" in reasons(grade("150", output, problem=problem))) is flagged


@pytest.mark.parametrize(
    ("output", "flagged"),
    [
        (
            "Problem:\nIf $\\det \\mathbf{A} = 2$ and $\\det \\mathbf{B} = 12,$ then find "
            "$\\det (\\mathbf{A} \\mathbf{B}).$\n\nSolution:\nWe have $(2)(12) = \\boxed{24}.$",
            True,
        ),
        (
            "Problem: In how many ways can the letters of the word MATH be arranged?\n\n"
            "The four letters are distinct, so $4! = \\boxed{24}$.",
            False,
        ),
    ],
)
def test_an_output_that_states_another_problem_is_flagged(output, flagged):
    problem = "In how many ways can the letters of the word MATH be arranged?"
    assert ("other_problem" in reasons(grade("24", output, problem=problem))) is flagged


def test_an_equation_whose_coefficients_share_a_factor_is_not_standard_form():
    problem = "Write the equation of the line $y = \\frac{3}{2}x - 2$ in standard form."
    result = grade("3x-2y=4", "Standard form: $\\boxed{6x - 4y = 8}$", problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(result)


def test_a_multiple_of_the_polynomial_asked_for_with_an_article_may_be_right():
    problem = "Write a quadratic polynomial whose roots are $1$ and $3$."
    assert "many_answers" in reasons(grade("x^2-4x+3", "2x^2 - 8x + 6", problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "correct"),
    [
        ("3+2m", "Cost = 2 + 3m", False),  # not 5 = 5 with the metres dropped
        ("25+0.1t", "C = 0.10t + 25", True),
        ("5", "The rope is 5 m", True),  # a lone letter after a number is still a unit
    ],
)
def test_a_letter_closing_a_sum_is_a_variable_not_a_unit(gold, output, correct):
    result = grade(gold, output)
    assert (result.auto_verdict is Verdict.CORRECT) is correct or result.needs_review


def test_a_display_that_continues_a_chain_states_its_right_side():
    output = (
        "$$(x+y)^3 = \\binom{3}{0}y^3 + \\binom{3}{1}xy^2 + \\binom{3}{2}x^2y + x^3$$\n"
        "$$= y^3 + 3xy^2 + 3x^2y + x^3$$"
    )
    assert grade("x^3+3x^2y+3xy^2+y^3", output).auto_verdict is Verdict.CORRECT


@pytest.mark.parametrize(("output", "correct"), [("$$y = 3$$", False), ("$$x = 3$$", True)])
def test_the_letter_a_gold_equation_names_is_part_of_the_answer(output, correct):
    problem = "Find the equation of the line passing through $(3, 1)$ and $(3, 7)$."
    result = grade("x=3", f"The line is vertical, so\n{output}", problem=problem)
    assert (result.auto_verdict is Verdict.CORRECT) is correct


@pytest.mark.parametrize(
    ("output", "cut_off"),
    [
        ("Checking both equations:\n- $5(2) - 2(3) = 4$ ✓\n- $3(2) + 4(3) = 6 + 1", True),
        ("The box costs $3.60 and has 12 eggs. 3.60 / 12 = 0.3. The answer is 0.3.", False),
    ],
)
def test_an_unclosed_span_that_stops_in_a_relation_is_cut_off(output, cut_off):
    assert ("truncated" in reasons(grade("(2,3)", output))) is cut_off


def test_names_approximately_equal_to_values_state_the_values():
    stated = read_answer("(x, y) \\approx (1.333, 0.333)")
    assert stated.expression == "(1.333, 0.333)"


def test_a_number_for_the_equation_of_a_line_is_a_suspect_gold():
    problem = (
        "Find the equation of the tangent line to the curve $y = x^3$ at the point where $x = 1$."
    )
    result = grade("3", "The tangent line is\n$$y = 3x - 2.$$", problem=problem)
    assert "gold_suspect" in reasons(result)


@pytest.mark.parametrize(("answer", "flagged"), [("x^2y^{-3}", True), ("\\frac{x^2}{y^3}", False)])
def test_a_negative_exponent_where_positive_ones_are_asked_is_another_form(answer, flagged):
    problem = "Simplify $\\left(x^{-2}y^{3}\\right)^{-1}$. Write your answer using only positive exponents."
    result = grade("\\frac{x^2}{y^3}", f"$\\boxed{{{answer}}}$", problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert ("form_requested" in reasons(result)) is flagged


def test_a_slash_before_a_product_in_the_question_gives_two_readings():
    result = grade(
        "-\\frac{1}{2x^2}",
        "f(x) = 1/2x = (1/2)x, a linear function with slope 1/2.\nSo f'(x) = 1/2.",
        problem="Find the derivative of f(x) = 1/2x.",
    )
    assert "two_readings" in reasons(result)


def test_an_equation_without_the_condition_the_gold_adds_is_a_partial_answer():
    problem = (
        "Eliminate the parameter to find a Cartesian equation of the curve $x = \\sqrt{t}$, "
        "$y = t$, $t \\ge 0$, including any restriction on $x$."
    )
    result = grade("y=x^2,\\ x\\ge 0", "Substituting:\n$$y = x^2$$", problem=problem)
    assert "partial_match" in reasons(result)


def test_a_closing_line_of_mathematics_in_brackets_is_no_aside():
    output = "Tangent to the x-axis ⇒ radius = |4| = 4.\n(x − 3)² + (y − 4)² = 16"
    result = grade("(x-3)^2+(y-4)^2=16", output)
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review, reasons(result)


def test_a_sentence_that_labels_each_part_answers_a_gold_of_parts():
    output = (
        "Completing the square gives $(x + 3)^2 + (y - 2)^2 = 25$.\n\nCenter: (−3, 2), radius: 5"
    )
    result = grade("(-3,2),\\ r=5", output)
    assert result.evaluation("answer_check").verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    "output",
    [
        "Both sides agree for every value, so the answer: $x$",
        "The system reduces to $0 = 0$, so any pair works and the solutions are $(x, y)$.",
    ],
)
def test_an_answer_that_names_only_the_unknowns_states_no_value(output):
    assert "no_answer" in reasons(grade("\\text{infinitely many}", output))


def test_a_closing_sentence_that_leaves_the_gold_before_another_box_is_doubted():
    output = (
        "There are $5 \\times 7 = 35$ chairs in total. Removing the 2 broken chairs leaves 33 "
        "usable chairs.\n\n$$\\boxed{35}$$"
    )
    assert "gold_stated_elsewhere" in reasons(grade("33", output))


def test_a_coarser_coefficient_in_scientific_notation_is_a_rounding():
    output = "8760 × 3600 = 31,536,000 seconds, roughly **3.2 × 10^7 seconds**."
    assert "rounding_differs" in reasons(grade("3.15 \\times 10^{7}", output))


def test_odds_given_as_one_part_of_a_list_read_two_ways():
    output = "**Final answer: Odds of winning 1:5, expected wins: 5**"
    assert "two_readings" in reasons(grade("\\frac{1}{6}, 5", output))


@pytest.mark.parametrize(
    ("gold", "answer", "problem", "verdict", "flagged"),
    [
        # xy = 1 ties y to x: -1/x^2 is -y/x on the whole curve
        (
            "-\\frac{y}{x}",
            "-\\dfrac{1}{x^2}",
            "Given $xy = 1$, find $\\dfrac{dy}{dx}$.",
            True,
            False,
        ),
        # y = √(25 − x²) is the upper half of the circle only
        (
            "-\\frac{x}{y}",
            "-\\dfrac{x}{\\sqrt{25-x^2}}",
            "Find $\\dfrac{dy}{dx}$ for the curve $x^2 + y^2 = 25$.",
            True,
            True,
        ),
        (
            "-\\frac{x}{y}",
            "\\dfrac{x}{2}",
            "Find $\\dfrac{dy}{dx}$ for the curve $x^2 + y^2 = 25$.",
            False,
            False,
        ),
    ],
)
def test_an_answer_is_compared_with_the_gold_on_the_problems_curve(
    gold, answer, problem, verdict, flagged
):
    result = grade(gold, f"Solving for $y$ first:\n$$\\boxed{{{answer}}}$$", problem=problem)
    assert (result.auto_verdict is Verdict.CORRECT) is verdict
    assert ("equal_if_positive" in reasons(result)) is flagged


def test_a_letter_named_after_the_value_that_is_another_options_is_a_mismatch():
    problem = "Which is $\\dfrac{d}{dx}(x e^x)$? (A) $e^x$ (B) $(1+x)e^x$ (C) $x e^x$ (D) $1 + e^x$"
    output = "By the product rule the derivative is $e^x + x e^x = (1+x)e^x$.\nThat is option (D).\n\nAnswer: (D)"
    assert "letter_value_mismatch" in reasons(grade("\\text{(B)}", output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        (
            "23000",
            "Preis nach Rabatt: 25'000 − 2'000 = CHF 23'000\n\nDie Antwort lautet: CHF 23'000.",
        ),
        ("30000", "En 24 jours : 1 250 × 24 = 30 000 pièces.\nRéponse : 30 000 pièces."),
        ("45000", "Jadi, Ibu harus membayar Rp45 ribu."),
        ("242000", "2 साल बाद जनसंख्या = 2,42,000\nउत्तर: 2.42 लाख"),
    ],
)
def test_local_thousands_currencies_and_scale_words_are_read(gold, output):
    assert grade(gold, output).evaluation("answer_check").verdict is Verdict.CORRECT


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("65", "$\\angle C = 180^\\circ - 47^\\circ - 68^\\circ = \\textcolor{red}{65^\\circ}$"),
        ("(3,-1)", "$$\\boxed{\\begin{aligned} x &= 3 \\\\ y &= -1 \\end{aligned}}$$"),
        ("\\frac{3}{8}", "Probability $= 3 \\div 8 = \\colorbox{yellow}{$\\mathbf{0.375}$}$"),
    ],
)
def test_colour_bold_numbers_and_aligned_rows_are_layout(gold, output):
    assert grade(gold, output).evaluation("answer_check").verdict is Verdict.CORRECT


def test_values_listed_with_a_semicolon_where_one_is_asked_are_several_answers():
    problem = "Решите уравнение $|2x - 3| = 5$. В ответе укажите больший корень."
    output = "1) $x = 4$;\n2) $x = -1$.\nОтвет: $4;\\ -1$."
    assert "multiple_answers" in reasons(grade("4", output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "problem"),
    [
        ("\\frac{3}{8}", "The probability is $\\tfrac{m}{n}$ in lowest terms. Find $m+n$."),
        ("(3,2)", "已知 $x + y = 5$，$x - y = 1$，求 $xy$ 的值。"),
        ("6", "How many edges does a triangular prism have?"),
        ("10", "Find the sum of the squares of the roots of $x^2 - 7x + 10 = 0$."),
    ],
)
def test_a_gold_that_cannot_answer_its_question_is_suspect(gold, problem):
    assert "gold_suspect" in reasons(
        grade(gold, "So the answer is $\\boxed{29}$.", problem=problem)
    )


def test_a_guess_that_names_the_gold_is_right_and_hedged():
    output = "By limit comparison with $\\sum 1/n$ …\n\n**Answer: It most likely diverges.**"
    result = grade("\\text{Diverges}", output)
    assert result.auto_verdict is Verdict.CORRECT
    assert "hedged" in reasons(result)


def test_like_terms_left_in_a_numerator_are_not_simplified():
    problem = "Find $f'(x)$ for $f(x) = \\dfrac{x}{x+1}$. Simplify your answer."
    output = "**Final Answer:** $f'(x) = \\dfrac{(x+1) - x}{(x+1)^2}$"
    result = grade("\\frac{1}{(x+1)^2}", output, problem=problem)
    assert result.auto_verdict is Verdict.CORRECT
    assert "form_differs" in reasons(result)


@pytest.mark.parametrize(
    "answer", ["2 ore e 25 minuti", "2 horas y 25 minutos", "2 hours and 25 minutes"]
)
def test_hours_and_minutes_for_a_count_of_minutes_are_another_unit(answer):
    problem = "A train leaves at 14:45 and arrives at 17:10. How many minutes does the trip take?"
    result = grade("145", f"The trip takes **{answer}**.", problem=problem)
    assert result.needs_review


def test_a_fraction_for_a_sum_of_letters_that_need_not_be_integers_is_no_suspect():
    problem = "If $2a = 3$ and $b = 1$, find $a+b$."
    assert "gold_suspect" not in reasons(grade("\\frac{5}{2}", "$\\boxed{3}$", problem=problem))


def test_one_coordinate_of_a_point_on_an_axis_named_in_math_is_partial():
    problem = "Find the point on the $y$-axis that is equidistant from $A(2, 3)$ and $B(4, 1)$."
    result = grade("(0, -1)", "The point is at $y = -1$ on the $y$-axis.", problem=problem)
    assert "partial_match" in reasons(result)


def test_the_value_of_what_coordinates_are_asked_of_is_the_answer():
    problem = "Find the coordinates of the focus of the parabola $y=\\frac18x^2$."
    output = "So $p = 2$.\n\nThe focus is at the point $F=(0,2)$ and the directrix is $y=-2$."
    assert grade("(0,2)", output, problem=problem).auto_verdict is Verdict.CORRECT


def test_a_letter_before_an_equation_is_not_a_point_name():
    problem = "Find the equation of the line passing through $(0, -2)$ and $(3, 4)$."
    output = "The slope is 2/3.\n\nTherefore the equation is y = (2/3)x - 2."
    assert grade("y=2x-2", output, problem=problem).evaluation("answer_check").extracted != "(2/3)"


def test_parts_labelled_without_colons_are_read_part_by_part():
    output = "So the circle is $(x-2)^2 + (y+3)^2 = 25$.\n\nCenter $(2,-3)$, radius $5$."
    problem = "Find the center and radius of the circle $x^2+y^2-4x+6y-12=0$."
    assert grade("(2,-3), 5", output, problem=problem).evaluation("answer_check").verdict is (
        Verdict.CORRECT
    )


def test_a_factor_before_a_matrix_is_not_the_named_value():
    output = "det = 2\n\ninverse = (1/2)·[[2, −2], [−3, 4]] = [[1, −1], [−1.5, 2]]"
    gold = "\\begin{pmatrix}1&-1\\\\-\\frac{3}{2}&2\\end{pmatrix}"
    result = grade(
        gold, output, problem="Find the inverse of $\\begin{pmatrix}4&2\\\\3&2\\end{pmatrix}$."
    )
    assert result.auto_verdict is Verdict.CORRECT


def test_a_rational_denominator_asked_for_is_a_form_request():
    problem = "Find the exact value of $\\tan 30^\\circ$. Express your answer with a rational denominator."
    result = grade("\\frac{\\sqrt{3}}{3}", "**Answer:** $\\dfrac{1}{\\sqrt{3}}$", problem=problem)
    assert "form_differs" in reasons(result)


def test_a_lap_time_is_minutes_and_seconds():
    problem = "Sue swims four laps of 1:52, 1:48, 2:05 and 1:59. What is her total time?"
    result = grade("7 minutes 44 seconds", "Her total time is **7:44**.", problem=problem)
    assert result.auto_verdict is Verdict.CORRECT


def test_a_count_out_of_a_total_is_the_fraction_asked():
    problem = "A pizza has 8 slices. Jo eats 3 and Max eats 2. What fraction of the pizza is left?"
    output = "So the part that is left is **3 out of 8 slices**."
    assert grade("\\frac{3}{8}", output, problem=problem).auto_verdict is Verdict.CORRECT


def test_a_variable_said_to_be_non_negative_is_the_half_line():
    output = "Since $\\sqrt{x^2}=|x|$, this holds whenever $x$ is non-negative."
    result = grade("[0,\\infty)", output, problem="For which real numbers $x$ is $\\sqrt{x^2}=x$?")
    assert result.auto_verdict is Verdict.CORRECT


def test_a_boxed_letter_against_the_value_just_computed_is_a_mismatch():
    problem = (
        "The product of the roots of $2x^2-10x+3=0$ is\n\n$\\textbf{(A)}\\ 3\\qquad"
        "\\textbf{(B)}\\ \\frac32\\qquad\\textbf{(C)}\\ 5$"
    )
    output = "Product of roots $= \\dfrac{c}{a} = \\dfrac{3}{2}$.\n\n$\\boxed{\\text{A}}$"
    assert "letter_value_mismatch" in reasons(grade("B", output, problem=problem))


def test_another_option_of_the_gold_options_value_is_as_right():
    problem = (
        "What is $\\sin 30^\\circ$?\n\n(A) $\\frac12$ (B) $0.5$ (C) $\\frac{\\sqrt3}{2}$ (D) $1$"
    )
    assert "many_answers" in reasons(grade("A", "(B) 0.5", problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "36",
            "So Bob has **48 stickers**.",
            "Ann has 12. Bob has three times more stickers than Ann. How many does Bob have?",
        ),
        (
            "60",
            "The angle between the diagonals is $120^\\circ$.",
            "What is the angle, in degrees, between its diagonals?",
        ),
        (
            "1:5",
            "So the odds of rolling a 6 are $\\frac{1}{6}$.",
            "What are the odds of rolling a $6$ with one die?",
        ),
        ("(-\\infty,-2)\\cup(2,\\infty)", "$$(-\\infty,-2)\\cap(2,\\infty)$$", "Solve $x^2>4$."),
    ],
)
def test_answers_right_under_another_reading_of_the_question_go_to_a_person(gold, output, problem):
    assert "two_readings" in reasons(grade(gold, output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("False", "**True**: $0 = 2 \\cdot 0$.", "True or false: $0$ is an even number."),
        (
            "B",
            "$7.1^2 = 50.41$, so 7.1 is closer. **Answer: (C)**",
            "Which of the following is closest to $\\sqrt{50}$?\n\n(A) 6.5 (B) 7 (C) 7.1 (D) 7.5",
        ),
        ("2, 9", "$x = 2$ is extraneous.\n\n$$\\boxed{9}$$", "Solve $\\sqrt{x + 7} = x - 5$."),
    ],
)
def test_a_gold_the_question_itself_refutes_goes_to_a_person(gold, output, problem):
    assert "gold_suspect" in reasons(grade(gold, output, problem=problem))


def test_a_yes_that_names_an_exception_to_every_case_contradicts_itself():
    output = "The one exception is 2, the only even prime.\n\nSo yes, prime numbers are odd (apart from 2)."
    result = grade("No", output, problem="Is every prime number odd? Answer Yes or No.")
    assert "contradicts_itself" in reasons(result)


def test_a_no_whose_explanation_calls_the_number_a_kind_of_prime_contradicts_itself():
    output = "No — $2^{31} - 1 = 2{,}147{,}483{,}647$ is a Mersenne prime."
    result = grade("Yes", output, problem="Is $2^{31} - 1$ a prime number?")
    assert "contradicts_itself" in reasons(result)


def test_yes_in_one_sense_and_no_in_another_is_a_hedge():
    output = "So in one sense yes, and in another sense no: it equals 1 in the limit."
    result = grade("Yes", output, problem="Is $0.999\\ldots$ equal to $1$?")
    assert result.needs_review


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "\\frac{1}{x}",
            "$$\\boxed{\\dfrac{1}{x\\ln 10}}$$",
            "Find $\\dfrac{d}{dx}\\log x$.",
        ),
        (
            "5",
            "So there are $\\boxed{9}$ pairs: $(1,36), (2,18), \\ldots, (36,1)$.",
            "How many pairs of positive integers have product $36$?",
        ),
    ],
)
def test_a_log_without_base_and_pairs_without_order_have_two_readings(gold, output, problem):
    assert "two_readings" in reasons(grade(gold, output, problem=problem))


def test_a_count_strictly_between_the_bounds_is_an_endpoint_convention():
    output = '"Between" means strictly greater than 10 and strictly less than 50.\n\n**Answer: 7**'
    problem = "How many integers between $10$ and $50$ are multiples of $5$?"
    assert "endpoint_convention" in reasons(grade("9", output, problem=problem))


def test_the_problems_equation_with_the_value_put_in_is_not_the_value_asked():
    problem = "Find the value of $a$ if the line $y = ax + 3$ passes through the point $(2, 11)$."
    output = "$$11 = a(2) + 3 \\implies 2a = 8$$\n\nSo the line is\n\n$$\\boxed{y = 4x + 3}$$"
    assert "form_requested" in reasons(grade("4", output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        (
            "B",
            "So $x = 5$ or $x = -3$.\n\n**Answer: (A)**",
            "Solve $x^2-2x-15=0$: (A) $3$ and $-5$ (B) $-3$ and $5$ (C) $3$ and $5$",
        ),
        (
            "B",
            "Fermat gives $$2^{10} \\equiv 1 \\pmod{11}.$$\n\n(Indeed $2^{10} = 1024 = 11 \\cdot 93 + 1$.)\n\n**Answer: (D)**",
            "What is the remainder when $2^{10}$ is divided by $11$?\n\n(A) $0$ (B) $1$ (C) $2$ (D) $10$",
        ),
    ],
)
def test_a_letter_against_the_roots_or_residue_just_found_is_a_mismatch(gold, output, problem):
    assert "letter_value_mismatch" in reasons(grade(gold, output, problem=problem))


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("(0,\\infty)", "So the domain is x > 0 or x ≥ 0.", "What is the domain of $1/\\sqrt{x}$?"),
        ("|x|", "x (assuming x ≥ 0; in general it's |x|)", "Simplify $\\sqrt{x^2}$ for real $x$."),
    ],
)
def test_two_answers_one_inside_the_other_or_one_in_an_aside_are_a_hedge(gold, output, problem):
    assert "hedged" in reasons(grade(gold, output, problem=problem))


def test_no_real_solution_with_the_complex_ones_in_brackets_goes_to_a_person():
    output = "**Answer:** No real solution (in complex numbers, $x = \\pm 2i$)."
    result = grade("\\pm 2i", output, problem="Solve $x^2 + 4 = 0$.")
    assert "no_real_solution" in reasons(result)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("56", "You can order 56 different three-topping pizzas."),
        ("$403.20", "The carpet will cost $\\$403.2$."),
    ],
)
def test_a_count_with_hyphenated_words_and_an_escaped_dollar_in_math_are_read(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_feet_and_inches_are_one_length_in_the_golds_unit():
    output = "78 ÷ 12 = 6 remainder 6\n\n**Answer: 6 ft 6 in**"
    result = grade(
        "6.5 \\text{ ft}", output, problem="A board is $78$ inches long. How long is it in feet?"
    )
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review


def test_square_yards_where_square_feet_are_asked_is_another_unit():
    problem = "A patio is $9$ ft wide and $12$ ft long. What is its area in square feet?"
    output = "Area = 108 ft², and 108 ÷ 9 = 12.\n\n**The patio's area is 12 square yards.**"
    assert "unit_mismatch" in reasons(grade("108", output, problem=problem))


def test_scientific_notation_worked_out_to_a_coefficient_over_ten_is_not_the_form_asked():
    output = "0.00045 = 45 × 10⁻⁵"
    result = grade(
        "4.5 \\times 10^{-4}", output, problem="Express $0.00045$ in scientific notation."
    )
    assert result.needs_review


def test_yes_or_no_by_definition_in_spanish_is_a_hedge():
    output = "Sin embargo, depende de la definición.\n\nRespuesta: sí o no, según la definición de rectángulo."
    result = grade("Yes", output, problem="Is every square a rectangle? Answer Yes or No.")
    assert "hedged" in reasons(result)


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("x \\ge 2", "The domain is $\\{x \\in \\mathbb{R} \\mid x \\ge 2\\} = [2, \\infty)$."),
        (
            "(-\\infty,-5)\\cup(-5,5)\\cup(5,\\infty)",
            "So the domain is $\\{x : x \\neq \\pm 5\\}$.",
        ),
        ("[-1, 0)", "$\\lceil x \\rceil = 0 \\iff -1 < x \\le 0$ is wrong; so $-1 \\le x < 0$."),
        ("[0, 2) \\cup (2, \\infty)", "The answer: $\\{x \\mid x \\ge 0,\\ x \\ne 2\\}$."),
    ],
)
def test_a_set_of_reals_in_set_builder_chains_and_plus_minus_bounds_is_read(gold, output):
    assert grade(gold, output).auto_verdict is Verdict.CORRECT


def test_sides_of_a_chain_that_name_different_sets_are_not_one_answer():
    assert real_sets.same_reals("[3, \\infty)", "\\{x \\mid x \\ge 3\\} = [3, 5)") is None


@pytest.mark.parametrize(
    ("gold", "output", "problem"),
    [
        ("1\\text{ hour}", "Filling it takes Maria 60 minutes in all.", "How long does it take?"),
        ("3 \\text{ feet}", "The shelf is 36 inches.", "How long is the shelf?"),
        ("2\\text{ lb}", "Together they weigh 32 ounces.", "How much do they weigh?"),
        ("Friday, 9:00 AM", "The parcel arrives on Friday at 9 AM.", "When does it arrive?"),
    ],
)
def test_a_quantity_in_another_unit_or_a_whole_hour_said_in_a_sentence_is_the_gold(
    gold, output, problem
):
    assert grade(gold, output, problem=problem).auto_verdict is Verdict.CORRECT


def test_a_sentence_naming_another_weekday_is_not_the_gold():
    result = grade("Friday, 9:00 AM", "It arrives on Saturday at 9 AM.", problem="When?")
    assert result.auto_verdict is Verdict.INCORRECT


def test_a_solution_set_stated_above_a_box_of_another_set_is_two_answers():
    output = "The sign chart shows the product is negative between the roots, so the solution is $1 < x < 4$.\n\n**Answer:** $\\boxed{(-\\infty, 1) \\cup (4, \\infty)}$"
    assert "multiple_answers" in reasons(grade("(1, 4)", output))


def test_a_correction_that_adds_a_solution_keeps_the_one_before():
    output = "Cancel $x$: $x = 5$.\n\nThe answer is $\\boxed{5}$.\n\nWait, cancelling needs $x \\ne 0$, and $x = 0$ also works.\n\n$\\boxed{0}$"
    assert "multiple_answers" in reasons(grade("0, 5", output))


def test_a_correction_that_restates_the_whole_answer_is_the_answer():
    output = "Cancel $x$: $x = 5$. The answer is $\\boxed{5}$. Wait, $x = 0$ also works, so the solutions are $\\boxed{0, 5}$."
    result = grade("0, 5", output)
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review, reasons(result)


@pytest.mark.parametrize(
    "closing",
    [
        "So the chance is $\\frac{1}{3}$ without replacement and $\\frac{5}{9}$ with replacement.",
        "The chance is therefore $\\frac{1}{3}$ if the draws are without replacement, "
        "$\\frac{5}{9}$ if with.",
    ],
)
def test_two_values_each_under_its_own_reading_go_to_a_person(closing):
    output = f"Two readings of the draw are possible.\n\n{closing}"
    result = grade("\\frac{1}{3}", output, problem="Two cards are drawn. Find the probability.")
    assert result.needs_review


def test_a_closing_count_of_the_listed_solutions_is_not_the_answer():
    output = "Both cases together:\n\n$$x \\in \\left\\{\\frac{\\pi}{6}, \\frac{5\\pi}{6}\\right\\}$$\n\nThere are 2 solutions in total."
    problem = "Solve $\\sin x = \\frac12$ for $0 \\le x < 2\\pi$."
    assert (
        grade("\\frac{\\pi}{6}, \\frac{5\\pi}{6}", output, problem=problem).auto_verdict
        is Verdict.CORRECT
    )


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (
            "Si $x = 2$ funciona, pero $x = -1$ no.\n\n**Respuesta: Sí (salvo para $x = -1$).**",
            "¿Es cierto que $x^3 > x$ para todo $x > 0$... y para todo real $x$?",
        ),
        (
            "It is $0.49$, just under a half, so essentially yes, the chance is about $\\frac12$.",
            "Is the chance greater than $\\frac12$? Answer Yes or No.",
        ),
    ],
)
def test_a_yes_with_an_exception_or_qualified_where_it_is_said_is_in_doubt(output, problem):
    assert grade("No", output, problem=problem).needs_review


def test_a_step_arrow_leads_to_the_answer():
    result = grade("(-2,8)", "$-5<x-3<5\\Rightarrow -2<x<8$", problem="Solve $|x-3|<5$.")
    assert result.auto_verdict is Verdict.CORRECT


def test_a_decimal_exponent_is_an_exact_power():
    assert compare_values("1000e^{0.5}", "1000\\sqrt{e}").equal


@pytest.mark.parametrize(
    ("gold", "output", "verdict"),
    [
        ("x^2+1,\\ x\\ge 0", "$f^{-1}(x)=x^2+1\\quad (x\\ge 0)$", Verdict.CORRECT),
        ("x^2+1", "$f^{-1}(x)=x^2+1,\\ x\\ge 0$", Verdict.CORRECT),  # the domain is extra
        ("x^2+1,\\ x\\ge 0", "$f^{-1}(x)=x^2+1,\\ x\\le 0$", Verdict.INCORRECT),
    ],
)
def test_an_expression_is_compared_with_the_domain_it_holds_on(gold, output, verdict):
    problem = "Find the inverse of $f(x)=\\sqrt{x-1}$, $x\\ge 1$."
    assert grade(gold, output, problem=problem).auto_verdict is verdict


def test_a_box_that_works_a_product_out_wrong_states_two_values():
    output = "Each plant gives 12 tomatoes, so\n\n$$\\boxed{5 \\times 8 \\times 12 = 460}$$"
    assert "multiple_answers" in reasons(grade("480", output))


def test_a_box_that_rounds_its_fraction_states_one_value():
    result = grade("0.33", "So $\\boxed{\\frac{1}{3} = 0.33}$.")
    assert result.auto_verdict is Verdict.CORRECT
    assert not result.needs_review, reasons(result)


def test_a_postscript_that_doubts_the_answer_and_names_another_is_a_hedge():
    output = (
        "Excluding the empty set: $128 - 1 = 127$.\n\n$$\\boxed{127}$$\n\nP.S. On reflection, "
        "the set itself should probably not count either. That would make the answer $126$."
    )
    assert "hedged" in reasons(grade("127", output))


@pytest.mark.parametrize(
    "aside",
    [
        '(If the endpoints $14$ and $98$ were included we would get 13, but "between" '
        "normally excludes them.)",
        "Taken literally, with both ends, the count is $13 - 1 + 1 = 13$.",
    ],
)
def test_the_gold_worked_out_under_another_reading_goes_to_a_person(aside):
    output = f"So $k = 3, \\dots, 13$: 11 values.\n\n{aside}\n\n$$\\boxed{{11}}$$"
    assert "two_readings" in reasons(grade("13", output))


def test_an_argument_a_whole_turn_from_the_gold_is_the_same_angle():
    output = "Using the principal value, $\\arg(-\\sqrt3 - i) = \\boxed{-\\frac{5\\pi}{6}}$"
    result = grade("\\frac{7\\pi}{6}", output, problem="Find $\\arg(-\\sqrt{3} - i).$")
    assert "same_angle" in reasons(result)


def test_an_exact_angle_with_its_rounding_in_degrees_is_a_rounding():
    output = "$$\\boxed{\\theta = \\cos^{-1}\\left(-\\tfrac{1}{3}\\right) \\approx 109.47^\\circ}$$"
    problem = "Find the angle between the vectors, in degrees, rounded to the nearest degree."
    assert "rounding_differs" in reasons(grade("109", output, problem=problem))


def test_a_refusal_to_give_a_definite_value_is_declined():
    output = "Without knowing whether the deal can be repeated, I can't give a definitive cost for 12 apples."
    assert grade("8", output, problem="How much do 12 apples cost?").needs_review


_CURVES = "Find the curve.\n\n(A) Line (B) Circle (C) Parabola (D) Ellipse (E) Hyperbola"


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        (
            "$\\frac{2}{\\sqrt2} = \\sqrt2.$\n\nLooking at the choices, $\\sqrt{2}$ "
            "corresponds to option **(B)**.\n\n$$\\boxed{B}$$",
            "Which equals $\\dfrac{2}{\\sqrt{2}}$?\n\n(A) $\\sqrt{2}$ (B) $2\\sqrt{2}$ (C) $2$",
        ),
        (
            "So a factor is $x^2 - 2x + 2$.\n\n$$\\boxed{\\textbf{(B)}\\ x^2 - 2x + 2}$$",
            "Which is a factor of $x^4 + 4$?\n\n$\\textbf{(A)}\\ x^2 + 2 \\qquad \\textbf{(B)}\\ "
            "x^2 + 2x + 2 \\qquad \\textbf{(C)}\\ x^2 - 4x + 2$",
        ),
        (
            "$y^2 = 4x + 4$. This is a parabola opening to the right.\n\n$$\\boxed{\\text{(D)}}$$",
            _CURVES,
        ),
    ],
)
def test_a_letter_beside_another_options_value_goes_to_a_person(output, problem):
    assert "letter_value_mismatch" in reasons(grade("B", output, problem=problem))


def test_a_letter_followed_by_could_also_be_another_is_a_hedge():
    output = "$94.05$ is closest to $95$, option (B).\n\n**Answer: B**\n\nIf tax were added, the answer could also be (C)."
    problem = "Which is closest to 19 × 4.95?\n\n(A) 85 (B) 95 (C) 105 (D) 115"
    assert "hedged" in reasons(grade("B", output, problem=problem))


def test_a_sentence_in_the_questions_words_that_states_the_gold_is_an_answer_too():
    output = (
        "She spends $7.20 − $6.20 = $1.00 more on apples than on pears.\n\n"
        "Putting it all together, her total spending is $7.20 + $6.20:\n\n**Final answer: $13.40**"
    )
    problem = (
        "Apples cost $7.20 and pears $6.20. How much more does she spend on apples than on pears?"
    )
    assert "gold_stated_elsewhere" in reasons(grade("1", output, problem=problem))


def test_the_value_the_working_gives_the_asked_unknown_names_its_option():
    output = "Subtract 2: $3x = 9$.\n\nDivide by 3: $x = 3$.\n\nChecking: $3(3) + 2 = 11$ ✓\n\nSo the answer is **(C)**."
    problem = "If $3x + 2 = 11$, what is the value of $x$?\n\n(A) 2  (B) 3  (C) 4  (D) 5"
    assert "letter_value_mismatch" in reasons(grade("B", output, problem=problem))


def test_a_value_before_looking_at_the_options_names_its_option():
    output = "$$P(\\text{ace}) = \\frac{4}{52} = \\frac{1}{13}$$\n\nLooking at the options, this matches choice **(C)**.\n\nThe answer is (C)."
    problem = "What is the probability of an ace?\n\n(A) $\\frac{1}{52}$  (B) $\\frac{1}{13}$  (C) $\\frac{1}{4}$"
    assert "letter_value_mismatch" in reasons(grade("B", output, problem=problem))


def test_a_ratio_of_three_terms_scaled_is_the_ratio_asked():
    output = "So $a : b : c = 18 : 24 : 28$.\n\n**Answer:** $18:24:28$"
    problem = "If $a:b = 3:4$ and $b:c = 6:7$, find the ratio $a:b:c$."
    assert grade("9:12:14", output, problem=problem).auto_verdict is Verdict.CORRECT


def test_a_rounding_of_an_exact_gold_goes_to_a_person():
    output = "So the probability is approximately\n\n$$\\boxed{0.13}$$"
    result = grade("\\frac{1}{8}", output, problem="What is the probability that the sum is 10?")
    assert "rounding_differs" in reasons(result)


def test_a_named_value_followed_by_so_is_not_the_conclusion():
    output = "Each person is born in a given month with probability 1/12, so P(same month) = (1/12)(1/12) = 1/144."
    problem = "What is the probability that two people were born in the same month?"
    assert grade("\\frac{1}{12}", output, problem=problem).auto_verdict is Verdict.INCORRECT


def test_probably_one_value_but_maybe_another_is_a_hedge():
    output = "So the area is probably $16$, but it might be $16\\sqrt{3}$ depending on how the angle is placed."
    assert "hedged" in reasons(grade("16", output, problem="What is the area of the triangle?"))


def test_a_value_in_another_base_after_which_is_is_a_remark():
    output = "Result: $100111_2$.\n\nThe product is $100111_2$, which is 39 in decimal."
    problem = "Compute $1101_2 \\times 11_2$. Express your answer in base $2$."
    assert grade("100111_2", output, problem=problem).auto_verdict is Verdict.CORRECT


def test_working_modulo_another_number_than_the_question_answers_another_question():
    output = "We want $2^{2024} \\bmod 7$. Since $2^3 \\equiv 1$, $2^{2024} \\equiv 4 \\pmod 7$.\n\nThe remainder is $\\boxed{4}$."
    problem = "Find the remainder when $2^{2024}$ is divided by $17$."
    assert "other_problem" in reasons(grade("1", output, problem=problem))


def test_an_answer_that_names_the_quantity_mistaken_for_the_asked_one_answers_another_question():
    output = "Take the lower power of each common prime: $2^2 \\cdot 3 = 12$.\n\nThe greatest common divisor of 24 and 36 is $\\boxed{12}$."
    problem = "What is the least common multiple of $24$ and $36$?"
    assert "other_problem" in reasons(grade("72", output, problem=problem))


def test_an_exact_count_in_words_before_the_letter_names_its_option():
    output = "If $p \\neq 3$, $p^2 + 2$ is divisible by 3.\n\nSo exactly one prime works, namely $p = 3$.\n\n$$\\boxed{C}$$"
    problem = "How many primes $p$ are there such that $p^2 + 2$ is also prime?\n\n(A) $0$  (B) $1$  (C) $2$  (D) infinitely many"
    assert "letter_value_mismatch" in reasons(grade("B", output, problem=problem))
