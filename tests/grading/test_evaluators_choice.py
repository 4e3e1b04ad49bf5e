"""The choice evaluator: yes/no, true/false and option letters, MSQA style."""

import pytest

from grading.evaluators.choice import ChoiceMatch
from grading.types import Status, Verdict


@pytest.fixture(scope="module")
def choice():
    return ChoiceMatch()


@pytest.mark.parametrize(
    ("gold", "output", "verdict"),
    [
        ("YES", "YES", Verdict.CORRECT),
        ("YES", "Yes.", Verdict.CORRECT),
        ("NO", "YES", Verdict.INCORRECT),
        (
            "YES",
            "No. Raising the carbon content lowers ductility; yes, it is harder.",
            Verdict.INCORRECT,
        ),
        ("True", "The statement is true.", Verdict.CORRECT),
        ("no", "After checking both cases, the answer is \\boxed{\\text{No}}", Verdict.CORRECT),
        ("Yes", "Answer: false", Verdict.INCORRECT),
    ],
)
def test_yes_no_answers_are_graded_by_the_committed_word(choice, gold, output, verdict):
    evaluation = choice.evaluate(gold, output)
    assert evaluation.status is Status.OK
    assert evaluation.verdict is verdict


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("C", "thinking about it I think the correct answer is C"),
        ("D", "The answer is for sure D, it can't be A or B"),
        ("D", "D. it can't be A or B"),
        ("B", "Let's think. It's not A because it doesn't make sense, therefore I think it's B"),
        ("(D) Alina", "D"),
        ("B", "Answer: (B)"),
        ("E", "Checking each option, we get $\\boxed{E}$."),
        ("B", "B不是 A"),
    ],
)
def test_option_letter_the_output_commits_to_is_correct(choice, gold, output):
    assert choice.evaluate(gold, output).verdict is Verdict.CORRECT


def test_other_option_letter_is_incorrect(choice):
    evaluation = choice.evaluate("(A) Cecile", "C")
    assert evaluation.verdict is Verdict.INCORRECT
    assert evaluation.extracted == "C"


@pytest.mark.parametrize(
    ("gold", "output"),
    [
        ("NO", "Yes or no: it depends on the temperature."),
        ("A", "It is A or B."),
        ("yes", "It depends on the sign of x."),
    ],
)
def test_output_that_does_not_commit_has_no_answer(choice, gold, output):
    evaluation = choice.evaluate(gold, output)
    assert evaluation.status is Status.NO_ANSWER
    assert evaluation.verdict is None


def test_numeric_gold_is_not_a_choice_question(choice):
    evaluation = choice.evaluate("42", "The answer is 42.")
    assert evaluation.status is Status.NO_ANSWER
    assert evaluation.detail == "not a choice question"


def test_article_a_is_not_read_as_option_a(choice):
    evaluation = choice.evaluate("C", "A careful check of every option leaves only (C).")
    assert evaluation.verdict is Verdict.CORRECT
