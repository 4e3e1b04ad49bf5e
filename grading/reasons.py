"""The review reasons the jury can give, each with the sentence a reviewer reads."""

from grading.types import ReviewReason

MESSAGES: dict[str, str] = {
    "evaluators_disagree": "The evaluators that apply to this answer type reached different verdicts.",
    "no_answer": "No final answer could be found in the output.",
    "parse_error": "An answer was extracted but it could not be parsed as mathematics.",
    "timeout": "Grading ran past its time limit; the verdict is unknown, not wrong.",
    "evaluator_error": "An evaluator crashed or ran out of memory on this row.",
    "multiple_answers": "The output gives more than one different final answer.",
    "options_listed": "The output lists several options instead of committing to one answer.",
    "truncated": "The output looks cut off before it finished.",
    "hedged": "The output hedges: it offers several answers, or calls its answer a guess or an approximation.",
    "string_fallback": "The match rests only on math-verify's string fallback, not on parsed mathematics.",
    "rounding_match": "The numbers are equal only after rounding away a difference in magnitude.",
    "partial_match": "The prediction matches only part of a multi-part gold answer.",
    "unit_mismatch": "The answer equals the gold only after a change of unit or scale (percent, grams and kilograms, degrees and radians).",
    "approximate_answer": "The answer is a decimal approximation of an exact gold; the problem may have asked for an exact form.",
    "number_format": "A number in the answer can be read two ways (12.500 as twelve and a half or as twelve thousand five hundred).",
    "form_differs": "The answer equals the gold but leaves a radical, like terms or factors unsimplified, or restates the expression it was asked to work out, and simplifying may have been the task.",
    "equal_if_positive": "The answer equals the gold only where its variables are positive (a root or power of a product); the problem may allow other values.",
    "same_angle": "The answer names the same angle as the gold a whole turn apart; the problem may fix the range.",
    "numeric_probe": "The answer equals the gold only by evaluating both at random points (an identity SymPy did not simplify).",
    "form_requested": "The problem asks for a particular form, and the answer equals the gold only in another notation.",
    "variable_name": "The answer equals the gold only after renaming its variable.",
    "undefined_value": "The answer or the gold is undefined (0/0, division by zero, not a number); it is never credited.",
    "gold_stated_elsewhere": "The output states the gold as an answer too, but its final answer is another value.",
    "rounding_differs": "The answer equals the gold only after rounding one of them to the other's precision.",
    "same_residue": "The answer is congruent to the gold modulo the question's modulus but is another residue (negative, or not reduced); the question may accept it.",
    "constant_of_integration": "The answer differs from the gold only by a constant of integration (+C).",
    "many_answers": "The problem admits many right answers; one other than the gold may be right.",
    "letter_value_mismatch": "The option letter the output gives and the value it states name different options.",
    "declined": "The output says it is not sure, that no option fits, or that the question has no valid answer as posed.",
    "contradicts_itself": "The yes/no answer contradicts the output's own explanation.",
    "extremum_point": "The question asks for a minimum or maximum value, and the answer gives the point where it is reached (x = …) instead.",
    "spread_convention": "The answer is the standard deviation or variance by the other convention (the sample's, dividing by n − 1, or the population's, by n), and the question does not say which.",
    "sign_in_words": "The answer is the gold's negative where the question's words already give the direction (how much was lost, how far it fell); graders differ on whether the sign belongs.",
    "equation_expected": "The gold is an equation (y = …) and the answer gives only its right-hand side.",
    "pair_or_interval": "The gold (a, b) can be a point or an open interval; the answer takes it as the interval, and the problem does not say which.",
    "interval_notation": "The interval is closed at infinity ([4, ∞]), a notation error some graders penalise.",
    "order_lost": "The answer gives the gold's values without their order (as a set, or in another order), and the question may need the order.",
    "two_readings": "The answer can be read two ways (1/2x as x/2 or 1/(2x), \\log as ln or base 10, 1:6 as a ratio or as odds), and the readings differ on whether it equals the gold.",
    "endpoint_convention": 'The answer differs from the gold only in whether endpoints count, which the question leaves to convention: where a function increases, decreases or is concave, or how many numbers lie "between" two bounds.',
    "no_real_solution": "The answer says there is no real solution; the gold gives complex ones, and the problem may not be asking for real numbers only.",
    "judge_disagrees": "The LLM judge reached a different verdict from the jury.",
    "other_quantity": "The answer's value equals the gold, but the output says it counts another group than the question asks about (boys where girls are asked).",
    "gold_rejected": "The output names the gold's value as a mistake to avoid (a simple average, a common error) and answers otherwise; the gold may be that mistake, or the output wrong.",
    "other_problem": "The output opens by stating another problem than the one asked (a copied example, another question) and answers that one.",
    "gold_suspect": "The gold answer looks wrong: it does not parse, carries stray punctuation or text, is the wrong kind for its question, or is not what the question's own arithmetic gives.",
}

# Reasons listed for information only: they explain a verdict without doubting it.
INFORMATION_ONLY = frozenset({"numeric_probe"})


def reason(code: str) -> ReviewReason:
    """The ReviewReason for ``code``; unknown codes are a programming error."""
    return ReviewReason(code=code, message=MESSAGES[code])
