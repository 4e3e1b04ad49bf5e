"""Candidate answers: every place an output states its answer, and the one it commits to."""

import pytest

from grading.candidates import find_candidates


def final(output: str) -> str | None:
    found = find_candidates(output).final
    return found.text if found else None


@pytest.mark.parametrize(
    ("output", "stated"),
    [
        ("So $x = 4$.\n\nThe answer is $\\boxed{7}$.", "7"),
        ("First, $\\boxed{9}$ divisors.\n\nFinal answer: 8", "8"),
        ("2 + 2 = 4\n#### 4", "4"),
        ("**Answer:** (1, −2)", "(1, −2)"),
        ("La réponse est 12 €.", "12 €"),
    ],
)
def test_the_last_committed_statement_is_the_answer(output, stated):
    assert final(output) == stated


def test_an_answer_given_up_front_outranks_a_justification_after_it():
    output = "6 trucks.\n\n250 ÷ 45 ≈ 5.6, so 5 trucks are not enough.\n5 trucks carry 225 crates."

    assert final(output) == "6 trucks."


def test_an_answer_up_front_and_a_different_conclusion_are_both_stated():
    output = "Answer: B\n\nOn reflection the rate doubles every hour.\nSo C."

    assert [c.text for c in find_candidates(output).weighty()] == ["B", "C"]


def test_the_predicate_of_the_last_sentence_is_stated():
    assert final("The cake costs $12 in total, so each share is 4 dollars.") == "4 dollars"
    assert final("Therefore x < −1 or x > 2.") == "x < −1 or x > 2"


def test_a_last_line_of_mathematics_is_stated_whole():
    assert final("Each row has 9 seats.\nSeats = 81 = 9 × 9") == "Seats = 81 = 9 × 9"


def test_a_label_and_colon_introduce_the_answer():
    assert final("Moving terms: x ≥ −2.\n\nSolution set: [−2, ∞)") == "[−2, ∞)"


@pytest.mark.parametrize(
    "remark",
    ["By the way, my favourite number is 7.", "I hope it is correct.", "Note that 3 is prime."],
)
def test_a_side_remark_after_the_answer_is_not_stated(remark):
    assert final(f"Adding them gives 30 + 12 = 42. {remark}") == "30 + 12 = 42"


def test_a_self_correction_supersedes_what_came_before():
    output = "The answer is 10.\n\nWait, I made an error: 8 + 4 = 12.\n\nThe answer is 12."

    found = find_candidates(output)

    assert found.final.text == "12"
    assert [c.text for c in found.standing] == ["12"]


def test_reasoning_inside_think_tags_is_set_apart_from_the_reply():
    output = "<think>Maybe the answer is 5? No, \\boxed{6}.</think>\nThe answer is $\\boxed{7}$."

    found = find_candidates(output)

    assert found.final.text == "7"
    assert all(not c.in_think for c in found.standing)


def test_bold_step_titles_are_not_answers_but_a_bold_result_is():
    output = "1. **Divide by -13:** we get $x = 2$.\n\nSo the garden has **150 roses** left."

    texts = [c.text for c in find_candidates(output).standing]

    assert "Divide by -13" not in texts
    assert "150 roses" in texts


def test_a_list_of_options_ends_with_no_stated_choice():
    assert final("Compare the options:\nA: 12\nB: 16\nC: 24") is None


def test_currency_signs_are_not_read_as_mathematics():
    output = "The answer is $4.00. She could spend $2.50 on a drink and keep $1.50."

    assert final(output) == "$4.00"


@pytest.mark.parametrize(
    "output",
    ["1+" * 200_000 + "1", "{" * 5000 + "\\boxed{" * 5000, "The answer is " + "9" * 5000],
)
def test_pathological_outputs_are_read_safely(output):
    assert find_candidates(output) is not None
