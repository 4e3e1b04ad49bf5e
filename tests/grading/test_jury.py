"""The jury: which evaluator decides, and when a row goes to a human."""

from dataclasses import replace

from grading.jury import DEFAULT_POLICY, JuryPolicy, decide
from grading.types import AnswerType, Evaluation, Status, Verdict


def ok(evaluator: str, verdict: Verdict, signals: tuple[str, ...] = ()) -> Evaluation:
    return Evaluation(evaluator, "1", Status.OK, verdict, signals=signals)


def failed(evaluator: str, status: Status) -> Evaluation:
    return Evaluation(evaluator, "1", status, detail="for the test")


CORRECT, INCORRECT = Verdict.CORRECT, Verdict.INCORRECT


def codes(graded) -> list[str]:
    return [r.code for r in graded.review_reasons]


def test_agreeing_evaluators_and_no_findings_decide_alone():
    # Given every applicable evaluator says correct and no detector fired
    evaluations = (ok("math_verify", CORRECT), ok("flex", CORRECT), ok("exact", CORRECT))

    # When the jury decides
    graded = decide(AnswerType.INTEGER, evaluations, ())

    # Then the verdict stands without review
    assert graded.auto_verdict is CORRECT
    assert not graded.needs_review
    assert graded.review_reasons == ()
    assert graded.primary_evaluator == "math_verify"


def test_disagreeing_evaluators_flag_the_row_and_the_primary_decides():
    evaluations = (ok("math_verify", CORRECT), ok("math_verify_strict", INCORRECT))

    graded = decide(AnswerType.EXPRESSION, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert graded.needs_review
    assert codes(graded) == ["evaluators_disagree"]
    assert graded.review_reasons[0].message  # a sentence a reviewer can read


def checked(
    verdict: Verdict,
    *,
    same_reading: tuple[str, ...] = (),
    misread: tuple[str, ...] = (),
    signals: tuple[str, ...] = (),
) -> Evaluation:
    """answer_check's evaluation, with what it says of the other evaluators' readings."""
    return Evaluation(
        "answer_check",
        "1",
        Status.OK,
        verdict,
        signals=signals,
        same_reading=same_reading,
        misread=misread,
    )


def test_answer_check_is_the_primary_when_it_ran():
    evaluations = (ok("math_verify", CORRECT), checked(CORRECT, same_reading=("math_verify",)))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.primary_evaluator == "answer_check"
    assert not graded.needs_review


def test_a_literal_comparison_failing_on_the_same_answer_does_not_flag():
    # Given the exact and flex evaluators read the answer itself (0.25) and failed to match it
    # with the gold \frac{1}{4}, which answer_check showed equal
    evaluations = (
        checked(CORRECT, same_reading=("math_verify", "exact", "flex")),
        ok("math_verify", CORRECT),
        ok("exact", INCORRECT),
        ok("flex", INCORRECT),
    )

    graded = decide(AnswerType.DECIMAL, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert not graded.needs_review


def test_a_reading_of_a_value_the_output_never_states_does_not_flag():
    # Given math-verify took a number from the working that the output never gives as answer
    evaluations = (checked(CORRECT, misread=("math_verify",)), ok("math_verify", INCORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert not graded.needs_review


def test_an_unexplained_incorrect_flags_the_row():
    # Given flex read another answer the output states, and rejects it
    evaluations = (checked(CORRECT), ok("flex", INCORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert codes(graded) == ["evaluators_disagree"]


def test_any_evaluators_correct_against_an_incorrect_verdict_flags():
    # Given the same reading, but math-verify found it equal where answer_check did not:
    # a "correct" is never overruled silently, whatever explains the readings
    evaluations = (
        checked(INCORRECT, same_reading=("math_verify",)),
        ok("math_verify", CORRECT),
    )

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is INCORRECT
    assert codes(graded) == ["evaluators_disagree"]


def test_without_answer_check_every_disagreement_flags():
    # Given the literal string evaluator alone rejects what math-verify accepts
    evaluations = (ok("math_verify", CORRECT), ok("exact", INCORRECT))

    graded = decide(AnswerType.DECIMAL, evaluations, ())

    assert graded.primary_evaluator == "math_verify"
    assert codes(graded) == ["evaluators_disagree"]


def test_choice_evaluator_is_primary_for_yes_no_golds():
    # Given math-verify, which reads the last number, and the choice evaluator differ
    evaluations = (ok("math_verify", INCORRECT), ok("choice", CORRECT))

    graded = decide(AnswerType.YES_NO, evaluations, ())

    # Then the choice evaluator's verdict is the decision, and math-verify does not apply
    assert graded.primary_evaluator == "choice"
    assert graded.auto_verdict is CORRECT
    assert not graded.needs_review


def test_choice_evaluator_does_not_apply_to_math_golds():
    evaluations = (ok("math_verify", CORRECT), failed("choice", Status.NO_ANSWER))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert not graded.needs_review


def test_timeout_is_never_a_silent_incorrect():
    # Given the primary evaluator ran out of time and nothing else gave a verdict
    evaluations = (failed("math_verify", Status.TIMEOUT), failed("flex", Status.TIMEOUT))

    graded = decide(AnswerType.EXPRESSION, evaluations, ())

    # Then the row is flagged as a timeout, not silently marked wrong
    assert graded.needs_review
    assert "timeout" in codes(graded)


def test_timed_out_primary_falls_back_to_the_next_evaluator_and_flags():
    evaluations = (failed("math_verify", Status.TIMEOUT), ok("flex", CORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert graded.needs_review
    assert codes(graded) == ["timeout"]


def test_no_answer_is_incorrect_and_flagged():
    evaluations = (failed("math_verify", Status.NO_ANSWER), failed("flex", Status.NO_ANSWER))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is INCORRECT
    assert graded.needs_review
    assert codes(graded) == ["no_answer"]


def test_unparseable_answer_is_flagged():
    graded = decide(AnswerType.EQUATION, (failed("math_verify", Status.PARSE_ERROR),), ())

    assert graded.auto_verdict is INCORRECT
    assert codes(graded) == ["parse_error"]


def test_crash_of_a_secondary_evaluator_is_flagged():
    evaluations = (ok("math_verify", CORRECT), failed("math_verify_strict", Status.ERROR))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert codes(graded) == ["evaluator_error"]


def test_the_primarys_signals_become_review_reasons():
    # Given the primary matched only through math-verify's string fallback
    evaluations = (ok("math_verify", CORRECT, signals=("string_fallback",)),)

    graded = decide(AnswerType.EXPRESSION, evaluations, ())

    assert graded.needs_review
    assert codes(graded) == ["string_fallback"]


def test_another_evaluators_doubt_about_its_own_match_does_not_apply():
    # Given math-verify's "correct" rests on its string fallback, while answer_check showed
    # the same answer equal by value
    evaluations = (
        checked(CORRECT, same_reading=("math_verify",)),
        ok("math_verify", CORRECT, signals=("string_fallback",)),
    )

    graded = decide(AnswerType.EXPRESSION, evaluations, ())

    assert not graded.needs_review


def test_an_information_only_reason_is_listed_without_flagging():
    # Given an answer shown equal only by the numeric probe (an identity SymPy missed)
    graded = decide(AnswerType.EXPRESSION, (checked(CORRECT, signals=("numeric_probe",)),), ())

    assert codes(graded) == ["numeric_probe"]
    assert not graded.needs_review


def test_detector_findings_flag_the_row_and_keep_the_verdict():
    graded = decide(AnswerType.INTEGER, (ok("math_verify", CORRECT),), ("hedged", "truncated"))

    assert graded.auto_verdict is CORRECT
    assert graded.needs_review
    assert codes(graded) == ["hedged", "truncated"]


def test_repeated_reasons_are_listed_once():
    evaluations = (failed("math_verify", Status.TIMEOUT),)

    graded = decide(AnswerType.INTEGER, evaluations, ("timeout",))

    assert codes(graded) == ["timeout"]


def test_a_policy_can_list_a_reason_without_flagging_on_it():
    policy = replace(DEFAULT_POLICY, flagging_reasons=DEFAULT_POLICY.flagging_reasons - {"hedged"})

    graded = decide(AnswerType.INTEGER, (ok("math_verify", CORRECT),), ("hedged",), policy)

    assert not graded.needs_review
    assert codes(graded) == ["hedged"]


def test_a_policy_can_leave_an_evaluator_out_of_the_panel():
    policy = JuryPolicy(math_panel=("math_verify",))
    evaluations = (ok("math_verify", INCORRECT), ok("flex", CORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, (), policy)

    assert graded.auto_verdict is INCORRECT
    assert not graded.needs_review


def test_evaluators_outside_the_panel_are_shown_but_do_not_decide():
    policy = JuryPolicy(math_panel=("flex",))
    evaluations = (ok("math_verify", INCORRECT), ok("flex", CORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, (), policy)

    assert graded.primary_evaluator == "flex"
    assert graded.auto_verdict is CORRECT
    assert not graded.needs_review
    assert graded.evaluation("math_verify") is not None


def test_with_no_evaluations_the_row_is_incorrect_and_flagged():
    graded = decide(AnswerType.INTEGER, (), ())

    assert graded.auto_verdict is INCORRECT
    assert graded.needs_review


def test_an_llm_judge_that_disagrees_flags_the_row_but_never_decides():
    evaluations = (checked(CORRECT), ok("llm_judge", INCORRECT))

    graded = decide(AnswerType.INTEGER, evaluations, ())

    assert graded.auto_verdict is CORRECT
    assert codes(graded) == ["judge_disagrees"]


def test_an_llm_judge_that_agrees_or_fails_adds_nothing():
    agreeing = (checked(CORRECT), ok("llm_judge", CORRECT))
    failing = (checked(CORRECT), failed("llm_judge", Status.ERROR))

    assert not decide(AnswerType.INTEGER, agreeing, ()).needs_review
    assert not decide(AnswerType.INTEGER, failing, ()).needs_review
