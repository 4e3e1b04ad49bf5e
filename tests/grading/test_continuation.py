"""A base model under a few-shot prompt answers, then invents the next turn; the grade is of
its own reply, as evaluation harnesses cut it at their stop sequences."""

import pytest

from grading.continuation import own_reply
from grading.types import Verdict
from tests.grading.graded import grade, reasons

REPLY = "Each crate holds 8 melons, so 6 crates hold 6 * 8 = 48 melons. The answer is 48."


@pytest.mark.parametrize(
    "turn",
    [
        "\n\nQ: A shelf has 5 rows of 9 books. How many books?\nA: 5 * 9 = 45. The answer is 45.",
        "\n\nQuestion: Tom has 30 stamps and gives away 12. How many are left?\nAnswer: 18",
        "\n\nProblem:\nCompute $3^4$.\n\nSolution:\n$3^4 = 81$.\nFinal Answer: The final answer is $81$.",
        "\n\nHuman: What is 7 times 7?\n\nAssistant: 7 times 7 is 49.",
        "<|im_end|>\n<|im_start|>user\nNow what is 9 * 9?<|im_end|>\n<|im_start|>assistant\n81",
    ],
)
def test_the_turn_a_model_invents_after_its_answer_is_not_graded(turn):
    graded = grade("48", REPLY + turn, "Six crates hold 8 melons each. How many melons?")

    assert graded.auto_verdict is Verdict.CORRECT
    assert not graded.needs_review, reasons(graded)


def test_a_reply_cut_short_in_the_invented_turn_is_complete():
    output = REPLY + "\n\nQ: A bus carries 40 people and 13 get off at the first stop. How"

    graded = grade("48", output, finish_reason="length")

    assert graded.auto_verdict is Verdict.CORRECT
    assert "truncated" not in reasons(graded)


def test_a_turn_that_asks_the_same_problem_again_gives_a_second_answer():
    problem = "A farmer has 4 pens with 12 hens in each. He sells 9 hens. How many hens are left?"
    output = (
        "4 * 12 = 48 hens. After selling 9 he has 48 - 9 = 39. The answer is 39.\n\n"
        f"Question: {problem}\nAnswer: 4 * 12 = 48. The answer is 48."
    )

    graded = grade("39", output, problem)

    assert graded.needs_review
    assert "multiple_answers" in reasons(graded)


@pytest.mark.parametrize(
    "output",
    [
        "Problem: find the sum of 17 and 25.\nWe add the two numbers: 17 + 25 = 42.",
        "<think>Question: what is asked? The sum, 17 + 25 = 40… no, 42.</think>\nThe sum is 42.",
    ],
)
def test_a_problem_restated_before_any_working_or_inside_the_reasoning_is_kept(output):
    assert own_reply(output) == output


def test_a_question_label_inside_an_unclosed_reasoning_block_is_not_a_new_turn():
    output = "<think>17 + 25 = 42.\nQuestion: did I add right? Yes, 42."

    assert own_reply(output) == output


def test_a_reply_ends_at_the_first_end_of_turn_token():
    output = "So the total is $\\boxed{15}$.<|im_end|>\n<|im_start|>user\nThe answer is 20."

    assert own_reply(output) == "So the total is $\\boxed{15}$."
