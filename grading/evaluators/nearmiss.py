"""Near misses: an "incorrect" that a person should see, because the gold is almost there.

Each check looks at one way a right answer can fail a comparison of values: the gold stated
elsewhere as an answer, the same number rounded to another precision or written in another
unit, an integration constant, or a problem that admits many right answers.
"""

from __future__ import annotations

import cmath
import math
import re
from fractions import Fraction
from functools import lru_cache

import sympy

from grading.answers import HOUR_WORDS, MINUTE_WORDS, SECOND_WORDS, StatedAnswer, read_answer
from grading.candidates import BOXED, CONCLUSION, PLAIN_CUES, Candidates, sentence_of, text_end
from grading.candidates.cues import SENTENCE_END
from grading.candidates.sentences import what_is_asked
from grading.equivalence.check import compare_values, numeric_value
from grading.equivalence.rewrite import LATEX_SPACE, all_rewrites, base_digits, top_level_parts
from grading.evaluators.forms import demands_exact_form
from grading.evaluators.symbolic import parse_answer
from grading.types import Sample

_DECIMAL = re.compile(r"^-?\d+(?:\.(\d+))?$")
# The question asks for a rounded or approximate value.
ROUNDING_ASKED = re.compile(
    r"\bround|\bnearest\b|\bestimat|\bapproximat|\bto \w+ (?:decimal|significant)|\betwa\b"
    r"|\bungefähr|\brunde|\benviron\b|\barrondi|\baproximad|\bredonde|около|примерно|约|約",
    re.IGNORECASE,
)
_CONSTANT = re.compile(r"\s*\+\s*C\b|\s*\+\s*c\b")
# A slash before a product written without brackets, in the question ("1/2x", "3/4ab").
_AMBIGUOUS_SLASH = re.compile(r"(?<![\w/.{])\d+\s*/\s*\d+[a-z](?![a-z])")
_MANY_ANSWERS = re.compile(
    r"\b(?:an? (?:nonzero |non-zero |unit |possible )?(?:vector|example|solution|value|pair|point)"
    r" (?:that|which|such|orthogonal|perpendicular|with|for|satisfying)|give an example|any (?:one|of|such)"
    r"|one possible|find an? (?:integer|number|value|function|polynomial)(?: \$?[a-z]\$?)?"
    r" (?:that|which|such)"
    # "Find a quadratic with integer coefficients whose roots are …": any multiple is one
    r"|(?:find|write|give|construct) an? (?:quadratic|cubic|polynomial|equation)"
    r"(?: (?:function|equation|polynomial))?"
    r" (?:with|whose|having|that|which)"
    r"|a possible value)\b",
    re.IGNORECASE,
)
# Ratios between units of the same quantity (time, length, mass, money, percent).
# Ratios between units of one quantity; 18/5 is km/h to m/s.
_UNIT_RATIOS = (
    frozenset(
        Fraction(r)
        for r in (60, 3600, 24, 7, 12, 144, 1728, 100, 1000, 10, 10_000, 1_000_000, Fraction(18, 5))
    )
    | frozenset(
        Fraction(1, r) for r in (60, 3600, 24, 7, 12, 144, 1728, 100, 1000, 10, 10_000, 1_000_000)
    )
    | {Fraction(5, 18)}
)
# Units a quantity can be converted between (an answer "10 units" names no real unit).
_UNIT_WORD = re.compile(
    r"\b(?:m?m|cm|km|m|g|kg|mg|s|sec|seconds?|min|minutes?|h|hrs?|hours?|days?|weeks?"
    r"|months?|years?|dollars?|cents?|percent|%|ml|l|liters?|litres?|meters?|metres?"
    r"|centimeters?|kilometers?|grams?|kilograms?|inch(?:es)?|feet|foot|ft|yards?|miles?|dozens?)"
    r"(?:\^?\{?[23]\}?|²|³)?(?![A-Za-z])",
    re.IGNORECASE,
)
# "no real solutions" where the gold gives complex ones ("-1 \\pm 2i").
NO_REAL = re.compile(r"\bno real\b|\bnot real\b|\bnon-?real\b", re.IGNORECASE)
COMPLEX_UNIT = re.compile(r"(?<![A-Za-z\\])i(?![A-Za-z])")
# The parts of a gold: "(a) …; (b) …", "3; 5".
_PARTS = re.compile(r";|(?=\(\s*[b-h]\s*\))")
_PART_LABEL = re.compile(r"^\s*(?:\\[ ,;]\s*)*\(\s*[a-h]\s*\)\s*(?:\\[ ,;]\s*)*")
_PERCENT = re.compile(
    r"\\%|%|\bpercent(?:age)?\b|\bper cent\b|prozent|pourcent|porcentaje|porcentagem|percentual"
    r"|процент|百分",
    re.IGNORECASE,
)
_ANGLE_WORDS = re.compile(
    r"\bangle|\bdegrees?\b|\bargument\b|\\(?:arg|operatorname\s*\{\s*arg)\b|\^\s*\{?\\circ|°",
    re.IGNORECASE,
)
_PI = re.compile(r"\\pi|π")
_DEGREE_SIGN = re.compile(r"\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree)\s*$")
_FRACTION = re.compile(r"\\[dt]?frac\{(-?\d+)\}\{(\d+)\}")
_TEXT_WRAPPER = re.compile(r"\\(?:text|mathrm|mbox)\s*\{([^{}]*)\}")
# "2 h 25 min", "2 ore e 25 minuti", "1 Stunde und 5 Minuten", "37 min 30 s"
_AND = r"(?:\s*,?\s*(?:and|und|y|e|et|и)\b)?"
_COMPOUND_TIME = re.compile(
    rf"(?:(\d+(?:\.\d+)?)\s*(?:{HOUR_WORDS})(?![^\W\d_])){_AND}\s*"
    rf"(?:(\d+(?:\.\d+)?)\s*(?:{MINUTE_WORDS}|m)(?![^\W\d_]))?{_AND}\s*"
    rf"(?:(\d+(?:\.\d+)?)\s*(?:{SECOND_WORDS})(?![^\W\d_]))?"
    rf"|(\d+(?:\.\d+)?)\s*(?:{MINUTE_WORDS})(?![^\W\d_]){_AND}\s*"
    rf"(\d+(?:\.\d+)?)\s*(?:{SECOND_WORDS})(?![^\W\d_])",
    re.IGNORECASE,
)


# A family of solutions with an integer parameter: "+ 2k\pi", "+ 360^\circ n", "k \in
# \mathbb{Z}", "for any integer n", "where n is any integer".
_GENERAL_SOLUTION = re.compile(
    r"[+-]\s*\d*\s*[kn]\s*\\pi|[+-]\s*(?:360|180)\s*(?:\^\s*\{?\\circ\}?|°)\s*(?:\\cdot\s*)?[kn]\b"
    r"|\b[kn]\s*(?:\\in|∈)\s*(?:\\mathbb\s*\{?Z|ℤ)"
    r"|\bfor\s+(?:any|all|every|some)\s+integers?\s+[kn]\b|\b[kn]\$?\s+is\s+(?:any|an)\s+integer\b"
)
# "n = 20m + 7" as the answer itself: every number of a residue class, not the one asked for.
_RESIDUE_CLASS = re.compile(r"\s*\d+\s*[kmnt]\s*[+-]\s*\d+\s*")


_TAIL_WINDOW = 400


def _states_a_family(output: str, stated: StatedAnswer, candidates: Candidates) -> bool:
    """The answer is a family of solutions: in its own words, or, where it is not boxed, in
    the lines it ends on ("- $x = 135^\\circ + 360^\\circ n$ … where $n$ is any integer")."""
    if _GENERAL_SOLUTION.search(stated.raw) or _RESIDUE_CLASS.fullmatch(stated.expression):
        return True
    final = candidates.final
    boxed = final is not None and final.cue == BOXED
    return not boxed and _GENERAL_SOLUTION.search(output[-_TAIL_WINDOW:]) is not None


def near_miss_signals(
    sample: Sample, gold: str, stated: StatedAnswer, candidates: Candidates
) -> list[str]:
    """Review reasons for an answer that is not the gold but nearly is."""
    found = []
    if (
        _gold_stated_elsewhere(gold, candidates)
        or _gold_derived_just_before(gold, sample.output, candidates)
        or _point_written_out(gold, stated.expression, sample)
        or _unknown_found_before(gold, sample, candidates)
        or _gold_said_in_the_questions_words(gold, sample)
    ):
        found.append("gold_stated_elsewhere")
    if _gold_called_a_mistake(gold, sample.output):
        found.append("gold_rejected")
    if _works_another_modulus(sample) or _names_another_quantity(sample, candidates):
        found.append("other_problem")
    if _point_of_extremum(stated, sample.problem):
        found.append("extremum_point")
    if _cut_short_of_gold(gold, sample.output, candidates):
        found.append("truncated")
    if _minutes_after_the_point(stated, sample.output):
        found.append("number_format")
    if (
        _rounds_to(gold, stated.expression)
        # "\sqrt{12} \approx 3.46" where the nearest tenth, 3.5, is asked
        or (
            stated.approximation
            # "\cos^{-1}(-\tfrac{1}{3}) \approx 109.47^\circ" where the nearest degree, 109, is asked
            and _rounds_to(gold, _DEGREE_SIGN.sub("", stated.approximation))
        )
        or _exact_where_rounding_asked(gold, stated.expression, sample.problem)
        # a rounding where the question asks for no exact form ("in terms of π" makes it wrong)
        or (not demands_exact_form(sample.problem) and _rounding_of_exact(gold, stated.expression))
    ):
        found.append("rounding_differs")
    if (
        _radians_where_degrees_asked(gold, stated, sample.problem)
        or _other_unit(gold, stated, sample)
        or _fraction_for_percent(gold, stated, sample)
        or _percent_for_proportion(gold, stated)
    ):
        found.append("unit_mismatch")
    if _sign_given_in_words(gold, stated.expression, sample):
        found.append("sign_in_words")
    if _term_for_coefficient(gold, stated.expression, sample.problem):
        found.append("form_requested")
    if _only_rewrites_a_given(stated.expression, sample.problem):
        found.append("no_answer")
    if _other_spread_convention(gold, stated.expression, sample.problem) or _other_quartile_rule(
        gold, stated.expression, sample.problem
    ):
        found.append("spread_convention")
    if _same_angle(gold, stated.expression, sample.problem):
        found.append("same_angle")
    if _same_residue(gold, stated.expression, sample.problem):
        found.append("same_residue")
    if _only_constant_differs(gold, stated.expression):
        found.append("constant_of_integration")
    if _MANY_ANSWERS.search(_question(sample.problem)):
        found.append("many_answers")
    if NO_REAL.search(stated.raw) and COMPLEX_UNIT.search(gold):
        found.append("no_real_solution")
    if _states_a_family(sample.output, stated, candidates) and not _GENERAL_SOLUTION.search(gold):
        found.append("form_requested")  # "x = π/6 + 2kπ, k ∈ ℤ" where the values are listed
    if _answers_one_part(gold, stated.expression) or _other_roots_after(
        gold, stated.expression, sample.output, candidates
    ):
        found.append("partial_match")
    if _AMBIGUOUS_SLASH.search(sample.problem[-600:]):
        found.append("two_readings")  # "f(x) = 1/2x": x/2 or 1/(2x), and the answer took one
    if _gold_under_another_reading(gold, sample.output):
        found.append("two_readings")  # "(If the three were distinct roles, it would be 1320.)"
    if (
        _TIMES_MORE.search(_question(sample.problem))
        or _other_angle_between(gold, stated.expression, sample.problem)
        or _odds_as_a_probability(gold, stated.expression, sample.problem)
        or _intersection_for_union(gold, stated.expression)
        or _other_log_base(gold, stated.expression, sample.problem)
        or _ordered_for_unordered(gold, stated.expression, sample.problem)
    ):
        found.append("two_readings")
    if _one_coordinate(gold, stated, sample):
        found.append("partial_match")  # "x = 3" for the point (3, 0) where the line meets the axis
    if _values_without_order(gold, stated.expression) or _in_the_asked_order(
        gold, stated.expression, sample.problem
    ):
        found.append("order_lost")
    if _polynomial_with_these_zeros(gold, stated.expression):
        found.append("form_requested")  # "(x - 2)(x - 5)" for "Find the zeros": 2, 5
    if (
        _decimal_for_a_base(gold, stated.expression, sample.problem)
        or _line_for_its_slope(gold, stated, sample.problem)
        or _equation_for_its_parameter(gold, stated, sample.problem)
    ):
        # 256 for 100_{16}; "y = 5x - 16" for the slope 5; "y = 4x + 3" for a in y = ax + 3
        found.append("form_requested")
    if (
        (
            _MONOTONE.search(_question(sample.problem))
            and _same_but_endpoints(gold, stated.expression)
        )
        or _counts_between(gold, stated.expression, sample.problem)
        or _counted_the_ends(gold, stated.expression, sample)
    ):
        found.append("endpoint_convention")
    elif (
        _BETWEEN.search(_question(sample.problem))
        and _ENDPOINTS_CHOSEN.search(sample.output)
        and not _ENDPOINTS_CHOSEN.search(sample.problem)  # "strictly between": no choice left
    ):
        found.append("endpoint_convention")  # "… 3, 4, 5, 6, 7 (including the endpoints)"
    return found


# "How many integers are there between 3 and 10?": whether 3 and 10 count is a reading of
# "between", which textbooks and datasets settle both ways.
_COUNT_BETWEEN = re.compile(
    r"\bhow many\b[^?]*?\bbetween\s+\$?(-?\d+)\$?\s+and\s+\$?(-?\d+)\$?", re.IGNORECASE
)


# "Lucy read from page 15 to page 40. How many pages …?": whether both ends count, again.
_FROM_TO = re.compile(
    r"\bfrom\s+(?:[a-z]+\s+)?\$?(-?\d+)\$?\s+(?:to|through|until|till)\s+(?:[a-z]+\s+)?\$?(-?\d+)\b",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\bhow many\b", re.IGNORECASE)


# A question about the numbers between two bounds, and an output that says which of them it
# counted: it made the choice the question leaves open.
_BETWEEN = re.compile(r"\bbetween\s+\$?-?\d+\$?\s+and\s+\$?-?\d+", re.IGNORECASE)
_ENDPOINTS_CHOSEN = re.compile(
    r"\b(?:includ|exclud)\w*\s+(?:the\s+|both\s+)?(?:endpoints|ends|bounds)\b"
    r"|\b(?:inclusive|exclusive)\b|\bstrictly\s+(?:greater|less|more|bigger|smaller|between|above"
    r"|below|inside)\b",
    re.IGNORECASE,
)


_ORDERED = re.compile(r"\s*(?:\\left)?\(.+\)\s*")
_LISTED = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


_BRACED_LIST = re.compile(r"\\?\{(.*?)\\?\}")


def _values_without_order(gold: str, answer: str) -> bool:
    """The ordered pair's values listed in prose in another order, with no brackets to say
    which is which, or as a set: "the two numbers are 2 and 5", "\\{2;\\, 3\\}" for (5, 2)."""
    gold = gold.strip().strip("$")
    as_set = _BRACED_LIST.fullmatch(answer.strip())
    if as_set is not None:
        answer = re.sub(
            rf"\s*;\s*|{LATEX_SPACE}", lambda m: "," if ";" in m.group(0) else "", as_set.group(1)
        )
    if not _ORDERED.fullmatch(gold) or re.search(r"[(\[{]", answer):
        return False
    gold_parts = [p.strip() for p in gold.strip()[1:-1].split(",")]
    answer_parts = [p for p in _LISTED.split(answer.strip()) if p]
    if len(gold_parts) < 2 or sorted(gold_parts) != sorted(answer_parts):
        return False
    return gold_parts != answer_parts


def _counted_the_ends(gold: str, answer: str, sample: Sample) -> bool:
    """A count of the numbers between two bounds that lists the bounds it counted ("10, 20,
    30, 40, 50, so there are 5" where the gold 3 leaves 10 and 50 out), or the reverse: which
    reading of "between" the question means is a convention."""
    asked = _COUNT_BETWEEN.search(_question(sample.problem))
    gold_count, answer_count = _number(gold), _number(answer)
    if asked is None or gold_count is None or answer_count is None:
        return False
    tail = sample.output[-_TAIL_WINDOW:]
    listed = sum(
        re.search(rf"(?<![\d.]){bound}\s*,|,\s*(?:and\s+)?{bound}(?![\d.])", tail) is not None
        for bound in {asked.group(1), asked.group(2)}
    )
    return 0 < abs(answer_count - gold_count) <= listed


def _counts_between(gold: str, answer: str, problem: str) -> bool:
    """A count of the numbers between two bounds (or from one to the other) that differs from
    the gold only in which bounds it counts (8 for the gold 6 between 3 and 10: both, none)."""
    question = _question(problem)
    asked = _COUNT_BETWEEN.search(question) or (
        _FROM_TO.search(question)
        if _HOW_MANY.search(question) and not _ENDPOINTS_CHOSEN.search(question)
        else None
    )
    gold_count, answer_count = _number(gold), _number(answer)
    if asked is None or gold_count is None or answer_count is None or gold_count == answer_count:
        return False
    span = abs(int(asked.group(2)) - int(asked.group(1)))
    readings = {span - 1, span, span + 1}
    return gold_count in readings and answer_count in readings


# Where a function increases, decreases or is concave: textbooks differ on the endpoints.
_MONOTONE = re.compile(
    r"\b(?:increas|decreas|concave|convex|monoton)|croissant|décroissant|steigend|fallend"
    r"|creciente|decreciente|возраст|убыва|递增|递减|单调",
    re.IGNORECASE,
)
_BRACKET = re.compile(r"\\left|\\right|[\[\]()]")


def _same_but_endpoints(gold: str, answer: str) -> bool:
    """The same interval but for whether its ends are included: ``(0, \\infty)`` for
    ``[0, \\infty)``."""
    if not _BRACKET.search(gold) or not _BRACKET.search(answer):
        return False
    gold_open, answer_open = _BRACKET.sub(_as_open, gold), _BRACKET.sub(_as_open, answer)
    changed = gold_open != gold or answer_open != answer
    return changed and bool(compare_values(gold_open, answer_open).equal)


def _as_open(bracket: re.Match) -> str:
    return {"[": "(", "]": ")"}.get(
        bracket.group(0), "" if "\\" in bracket.group(0) else bracket.group(0)
    )


def _answers_one_part(gold: str, answer: str) -> bool:
    """The answer equals one part of a gold in labelled or separated parts ("(a) 12 cm and
    5 cm; (b) 60 cm^2" answered "60"): the other parts may be stated elsewhere."""
    parts = [p for p in _PARTS.split(gold) if p.strip()]
    if len(parts) < 2:
        # "y = x^2,\ x \ge 0": an equation and the condition it holds under
        parts = _TOP_LEVEL_COMMA.split(gold)
        if len(parts) != 2 or not _CONDITION.search(parts[1]) or _CONDITION.search(parts[0]):
            return False
    for part in parts:
        value = read_answer(_PART_LABEL.sub("", part)).expression
        if value and compare_values(value, answer).equal:
            return True
    return False


_CONDITION = re.compile(r"[<>≤≥≠]|\\(?:[lg]eq?|neq?)(?![A-Za-z])")
_TOP_LEVEL_COMMA = re.compile(r",\s*(?![^()\[\]{}]*[)\]}])")
_ASSIGNED_AFTER = re.compile(r"(?<![A-Za-z\\])[A-Za-z]\s*=\s*([-−]?\d+(?:\.\d+)?)(?![\d.])")


def _other_roots_after(gold: str, answer: str, output: str, candidates: Candidates) -> bool:
    """The answer is one of the gold's listed values and the text after it gives the others
    ("$\\boxed{4}$ (There is also the trivial solution $x = 0$.)" for "0, 4")."""
    final = candidates.final
    values = [v.strip() for v in _TOP_LEVEL_COMMA.split(gold.strip().strip("$")) if v.strip()]
    end = text_end(output, final) if final is not None and len(values) > 1 else None
    if end is None:
        return False
    after = [m.group(1).replace("−", "-") for m in _ASSIGNED_AFTER.finditer(output[end:])]
    # "By symmetry, $(-2, 4)$ is also on both graphs": another point, for a gold of points
    after += [m.group(0) for m in _POINT.finditer(output[end:].replace("−", "-"))]
    if not after:
        return False
    missing = [v for v in values if not compare_values(v, answer).equal]
    if len(missing) != len(values) - 1:
        return False
    return all(any(compare_values(v, given).equal for given in after) for v in missing)


def _question(problem: str) -> str:
    """The request itself: the problem's last paragraph ("One possible card is:" earlier in
    the statement is an illustration, not a request for any answer)."""
    paragraphs = [p for p in problem.strip().split("\n\n") if p.strip()]
    return paragraphs[-1][-400:] if paragraphs else ""


def _gold_stated_elsewhere(gold: str, candidates: Candidates) -> bool:
    final = candidates.final
    for candidate in candidates.weighty():
        if candidate is final:
            continue
        expression = read_answer(candidate.text).expression
        if _may_equal(gold, expression) and compare_values(gold, expression).equal:
            return True
    return False


def _works_another_modulus(sample: Sample) -> bool:
    """The output works modulo another number than the question's, which it never writes
    ("$2^{2024} \\bmod 7$" for "divided by $17$"): it answers another question."""
    asked = _MODULUS.search(sample.problem)
    used = {int(m) for m in _MODULUS_USED.findall(sample.output)}
    if asked is None or not used:
        return False
    modulus = asked.group(1)
    return int(modulus) not in used and not re.search(rf"(?<!\d){modulus}(?!\d)", sample.output)


def _names_another_quantity(sample: Sample, candidates: Candidates) -> bool:
    """The answer's sentence names the quantity often mistaken for the one asked ("The greatest
    common divisor of 24 and 36 is 12." for their least common multiple), and not the one asked."""
    final = candidates.final
    asked = _ASKING.findall(_question(sample.problem))
    if final is None or not asked:
        return False
    answered = sentence_of(sample.output, final)
    return any(
        one.search(asked[-1])
        and not other.search(asked[-1])
        and other.search(answered)
        and not one.search(answered)
        for first, second in _MISTAKEN_FOR
        for one, other in ((first, second), (second, first))
    )


def _quantity(words: str) -> re.Pattern:
    return re.compile(rf"\b(?:{words})\b", re.IGNORECASE)


# Quantities mistaken for each other, each as the words that name it.
_MISTAKEN_FOR = tuple(
    (_quantity(first), _quantity(second))
    for first, second in (
        ("least common multiple|lcm", "greatest common (?:divisor|factor)|gcd|gcf"),
        ("perimeter|circumference", "area"),
        ("radius", "diameter"),
        ("median", "mean|average"),
        ("volume", "surface area"),
    )
)
_MODULUS_USED = re.compile(r"(?:\\pmod|\\bmod|\\mod|\bmod)\s*\{?\s*(\d{1,9})\b")


def _gold_said_in_the_questions_words(gold: str, sample: Sample) -> bool:
    """A sentence that answers in the question's own words states the gold ("She spends
    $7.20 − $6.20 = $1.00 more on apples than on pears." for "How much more does she spend
    on apples than on pears?"), while the final answer is another value."""
    value = _value(gold)
    asked = _ASKING.findall(_question(sample.problem))
    if value is None or not asked:
        return False
    words = _WORDS.findall(asked[-1].lower())
    phrases = {" ".join(words[i : i + _ECHO_WORDS]) for i in range(len(words) - _ECHO_WORDS + 1)}
    if not phrases:
        return False
    for sentence in SENTENCE_END.split(sample.output[-_ECHO_REACH:]):
        said = " ".join(_WORDS.findall(sentence.lower()))
        numbers = _SAID_NUMBER.findall(sentence)
        # the value the sentence arrives at: its last number, not "2" of "2^{100}"
        if numbers and any(phrase in said for phrase in phrases) and _value(numbers[-1]) == value:
            return True
    return False


_ASKING = re.compile(r"[^.?!\n]*\?")  # the question's sentences that ask
_WORDS = re.compile(r"[a-z]+")
_ECHO_WORDS = 5  # words in a row the answering sentence shares with the question
_ECHO_REACH = 1500
_SAID_NUMBER = re.compile(r"(?<![\w.,^{])\d+(?:\.\d+)?(?![\w^_}]|\.\d)")


# What an output says of a value it sets aside as a mistake: "not the simple average of 60 and
# 40, which would be 50", "a common mistake is to answer 30".
_CALLED_A_MISTAKE = re.compile(
    r"\b(?:not\s+(?:the\s+)?(?:simple|plain|naive|arithmetic)|common\s+(?:mistake|error|trap|pitfall)"
    r"|(?:tempting|naive|wrong|incorrect)\s+(?:answer|approach|to)|mistakenly|the\s+trap"
    r"|for\s+comparison)\b",
    re.IGNORECASE,
)


def _gold_called_a_mistake(gold: str, output: str) -> bool:
    """The output names the gold's value as the mistake to avoid ("this is not the simple
    average of 60 and 40, which would be 50 km/h", gold 50) and answers otherwise: the gold
    may be that mistake, so a person decides."""
    value = _value(gold)
    if value is None or value.denominator != 1:
        return False
    tail = output[-_MISTAKE_REACH:]
    lowered = tail.lower()
    if not any(hint in lowered for hint in _MISTAKE_HINTS):
        return False  # the pattern, tried at every position, costs more than these scans
    for mistake in _CALLED_A_MISTAKE.finditer(tail):
        sentence_end = SENTENCE_END.search(tail, mistake.end())
        said = tail[mistake.start() : sentence_end.start() if sentence_end else None]
        # the number itself, not a part of another ("40/6", "\frac{40}{6}", "6.67")
        if re.search(rf"(?<![\d.,/{{]){value.numerator}(?![\d/}}]|[.,]\d)", said):
            return True
    return False


_MISTAKE_REACH = 1500
# Words every match of _CALLED_A_MISTAKE contains.
_MISTAKE_HINTS = (
    "simple",
    "plain",
    "naive",
    "arithmetic",
    "common",
    "tempting",
    "wrong",
    "incorrect",
    "mistaken",
    "trap",
    "comparison",
)
# A number a sentence ends the output on, with no full stop: "so the probability is 27/2".
_ENDS_ON_NUMBER = re.compile(r"(?<![\d.,/])(\d+)(?:/(\d+)|(\.\d+))?$")
_MAX_DIGITS_CUT = 3
_WORD_BEFORE = re.compile(r"[A-Za-z]{2,}")
_WRITTEN_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")


def _cut_short_of_gold(gold: str, output: str, candidates: Candidates) -> bool:
    """The output stops, mid-sentence, on a number that would be the gold had it gone on for
    a few more digits ("… so the probability is 27/2" for 27/216 = 1/8): cut off, not wrong."""
    final = candidates.final
    text = output.rstrip()
    if final is None or final.cue not in (*PLAIN_CUES, CONCLUSION) or not text[-1:].isdigit():
        return False
    end = _ENDS_ON_NUMBER.search(text, max(0, len(text) - 40))
    if end is None:
        return False
    if not _WORD_BEFORE.search(text, text.rfind("\n") + 1, end.start()):
        return False  # a reply that is a number ("25"), not a sentence cut off
    gold_value = _value(gold)
    if not gold_value or gold_value < 0:
        return False
    written, denominator = end.group(1) + (end.group(3) or ""), end.group(2)
    if denominator is None and any(
        number.startswith(written) and number != written and _value(number) != gold_value
        for number in _WRITTEN_NUMBER.findall(text[: end.start()])
    ):
        return False  # "= 16 … is 1": cut off while writing 16, a value it worked out
    if denominator is None:  # "12" or "0.12" for 125 or 0.125
        whole = gold_value.numerator / gold_value.denominator
        gold_written = f"{whole:.{_MAX_DIGITS_CUT + 6}g}"
        return (
            Fraction(gold_written) == gold_value
            and gold_written.startswith(written)
            and 0 < len(gold_written) - len(written) <= _MAX_DIGITS_CUT
        )
    for digits in range(1, _MAX_DIGITS_CUT + 1):
        # 27/(2·10 + d), 27/(2·100 + dd) …: the missing digits make a whole number
        missing = int(written) / gold_value - int(denominator) * 10**digits
        if missing.denominator == 1 and 0 <= missing < 10**digits:
            return True
    return False


_HOURS_AND_MINUTES = re.compile(r"(\d+)\.(\d{2})")
_HOUR_WORDS = re.compile(r"\b(?:hours?|hrs?|h|Stunden|heures|horas|ore)\b", re.IGNORECASE)


def _minutes_after_the_point(stated: StatedAnswer, output: str) -> bool:
    """ "2.45 hours" after "2 h 45 min": hours and minutes written as a decimal (the clock's
    h.mm), not 2.45 hours."""
    written = _HOURS_AND_MINUTES.fullmatch(stated.expression.strip())
    if written is None or int(written.group(2)) >= 60 or not _HOUR_WORDS.search(stated.raw):
        return False
    hours, minutes = written.groups()
    said = rf"(?<![\d.]){hours}\s*(?:h|hours?|hrs?|Std\.?|Stunden)\s*(?:and\s+)?{minutes}\s*(?:min|minutes?|Minuten)\b"
    return re.search(said, output, re.IGNORECASE) is not None


# The question asks for the least or greatest value an expression takes, not where.
_EXTREMUM_ASKED = re.compile(
    r"\b(?:minimum|maximum|minimal|maximal|least|greatest|smallest|largest)\s+(?:possible\s+)?"
    r"values?\s+(?:of|that|which)\b",
    re.IGNORECASE,
)
_ONE_LETTER = re.compile(r"[a-z]")


def _point_of_extremum(stated: StatedAnswer, problem: str) -> bool:
    """ "$\\boxed{x = -4}$" for "Find the minimum value of $x^2 + 8x + 21$": the answer is
    where the minimum is reached, not the minimum."""
    return (
        _ONE_LETTER.fullmatch(stated.head) is not None
        and not what_is_asked(problem).variable
        and _EXTREMUM_ASKED.search(_question(problem)) is not None
    )


# A sum of the letters the question defines: "Find $m+n$", "find $a + b + c$".
_COMBINATION_ASKED = re.compile(
    r"\b(?:find|compute|what\s+is)\s+\$?\s*((?:\d*[a-z]\s*\+\s*)+\d*[a-z])\s*\$?\s*[.?]",
    re.IGNORECASE,
)


def _unknown_found_before(gold: str, sample: Sample, candidates: Candidates) -> bool:
    """The working's last value for the unknown the question asks for is the gold ("Dividing
    by 3, $k = -3$." for "Find the value of $k$"), and the final answer after it is another
    value ("$\\boxed{3}$"): a slip in copying it out."""
    variable = what_is_asked(sample.problem).variable
    final = candidates.final
    if final is None:
        return False
    if variable:
        working = sample.output[max(0, final.start - _DERIVATION_REACH * 3) : final.start]
        assignment = re.compile(
            rf"(?<![A-Za-z\\]){re.escape(variable)}\s*=\s*([-−]?[\w.\\{{}}/^]+)"
        )
        values = [m.group(1) for m in assignment.finditer(working)]
        return bool(values) and bool(compare_values(gold, values[-1]).equal)
    combination = _COMBINATION_ASKED.search(_question(sample.problem))
    if combination is None:
        return False
    # "Find $m + n$": "… so $m + n = 277$" in the working before a box of the fraction m/n
    parts = re.findall(r"\d*[a-z]|\+", combination.group(1))
    stated = re.compile(
        r"(?<![A-Za-z\\])"
        + r"\s*".join(re.escape(part) for part in parts)
        + r"\s*=\s*([^=$\n]+?(?:=[^=$\n]+?)*)(?=\s*(?:\$|[.,;]\s|\n|$))"
    )
    values = list(
        stated.finditer(sample.output, max(0, final.start - _DERIVATION_REACH * 3), final.start)
    )
    return bool(values) and bool(compare_values(gold, values[-1].group(1).rpartition("=")[2]).equal)


_POINT = re.compile(r"\(\s*-?\d+(?:\.\d+)?\s*(?:,\s*-?\d+(?:\.\d+)?\s*)+\)")
_SPACING = re.compile(rf"\s+|{LATEX_SPACE}")


def _point_written_out(gold: str, answer: str, sample: Sample) -> bool:
    """A gold point the output writes out as it is, though it ends on one of its coordinates
    ("The lines intersect at the point (2, 5)." then a box of "x = 2"); not a point the
    problem itself gives."""
    plain = _SPACING.sub("", gold.strip().strip("$"))
    if not _POINT.fullmatch(plain) or plain in _SPACING.sub("", sample.problem):
        return False
    value = answer.rpartition("=")[2]
    coordinates = plain[1:-1].split(",")
    return any(compare_values(c, value).equal for c in coordinates) and plain in _SPACING.sub(
        "", sample.output[-_DERIVATION_REACH * 5 :]
    )


# The working just before a final answer, where the value it concludes is derived.
_DERIVATION_REACH = 200
# "= 56$ triangles.": the value a line's last equation comes to, with the count's noun after it
_LAST_EQUATION = re.compile(
    r"=\s*(?:\\?\$(?=\d))?([^=$\n]{1,40}?)\s*(?:(?:\$\$?|\\\]|\\\))(?:\s+[A-Za-z]+){0,3})?\s*[.,]?\s*$"
)
# A value a sentence names after its verb ("the minimum value of f is 4, attained at x = -3",
# "Priya has $45 left"), not a factor or a base ("are 240 × 1.05 = 252", "get 2^{10}"); and
# the list after "are" ("the rational roots are $-2$, $\\frac{1}{2}$, and $3$").
_NAMED_VALUE = re.compile(
    r"(?:\b(?:is|are|was|were|equals?|has|have|had|gets?|makes?|gives?|totals?|remains?"
    r"|leaves|leaving|yields?)\s+"
    # "has length 13", "has an area of 24"
    r"(?:(?:an?\s+)?(?:length|area|volume|perimeter|value|measure|size|radius|height|width"
    r"|distance)\s+(?:of\s+)?)?"
    r"|(?:是|为|為|有|等于|得到)\s*)\$?\s*"
    r"(-?\d[\d,]*(?:\.\d+)?)(?![\d.,]\d)(?!\s*(?:[-+*/×−^!]|\\times|\\cdot|\\div))",
    re.IGNORECASE,
)
# Mathematics a sentence names after its verb: "the area of the rhombus is $18\sqrt3$"; not
# a point, which ``_point_written_out`` judges by the coordinate boxed after it.
_NAMED_MATH = re.compile(
    r"\b(?:is|are|was|were|equals?|gives?|gets?)\s+(?:\$|\\\()(?!\s*\()([^$]{1,60}?)(?:\$|\\\))"
)
# A count the sentence's subject gives ("so 4 buses are needed", "12 cookies are left").
_COUNT_SAID = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s+[A-Za-z]+\s+(?:are|is|were|was)\s+(?:still\s+)?"
    r"(?:needed|required|left|remaining|missing)\b",
    re.IGNORECASE,
)
_NAMED_LIST = re.compile(r"\bare\s+([^.!?\n]{1,120}?)\s*[.!]?\s*$", re.IGNORECASE)
_ASSIGNED_SPAN = re.compile(r"(?:\$|\\\()\s*[A-Za-z](?:_\{?\w+\}?)?\s*=\s*([^$=]+?)\s*(?:\$|\\\))")
_IMPLIES = re.compile(r"\\(?:Rightarrow|implies|Longrightarrow)(?![A-Za-z])|⇒|⟹")
# A line that only heads the answer below it ("**Final Answer**", "### Answer:").
_HEADING_LINE = re.compile(
    r"[#*\s]*(?:final\s+answer|answer|solution|result|conclusion)[\s*:：#]*"
    r"|\s*(?:\\\[|\$\$)\s*",  # a display's opening line: "\[" above "\boxed{16}"
    re.IGNORECASE,
)


def _gold_derived_just_before(gold: str, output: str, candidates: Candidates) -> bool:
    """The working ends on the gold ("$P = \\frac{3}{8} = 0.375$", "So she has $45 left.",
    under a heading or not) and the final answer right after it is another value
    (``\\boxed{0.35}``, ``\\boxed{54}``): a slip in copying it, or a last step the output never
    shows."""
    final = candidates.final
    if final is None:
        return False
    before = output[max(0, final.start - _DERIVATION_REACH) : final.start]
    # the lines before the final answer's own line
    lines = [line for line in before[: max(0, before.rfind("\n"))].splitlines() if line.strip()]
    while lines and _HEADING_LINE.fullmatch(lines[-1]):
        lines.pop()
    if not lines:
        return False
    # "… = 3$. (Check: $f(3) = 29$.)": the check after the value is an aside to it
    values = _values_concluded(_CLOSING_REMARK.sub("", lines[-1]))
    if len(lines) > 1 and lines[-1].lstrip()[:1].islower():
        # "$$900 - 648 = 252$$" over "have at least one 7.": a sentence a display interrupts
        values += _values_concluded(lines[-2])
    return any(_may_equal(gold, value) and compare_values(gold, value).equal for value in values)


def _may_equal(gold: str, value: str) -> bool:
    """False when both are plain decimal numbers and differ, which compare_values would find
    only after its rewrites and parses; True when the comparison is needed to tell."""
    gold, value = gold.strip().strip("$").strip(), value.strip().strip("$").strip()
    if _DECIMAL.match(gold) and _DECIMAL.match(value):
        return Fraction(gold) == Fraction(value)
    return True


def _values_concluded(line: str) -> list[str]:
    """The values a line of working ends on or names."""
    equation = _LAST_EQUATION.search(line)
    values = [read_answer(equation.group(1)).expression] if equation else []  # "62 stickers"
    values += [m.group(1) for m in _NAMED_VALUE.finditer(line)]
    values += [m.group(1) for m in _COUNT_SAID.finditer(line)]
    # "is $18\sqrt3$"; "is $\frac{3s^2/16}{s^2} = \frac{3}{16}$" states what it comes to
    values += [m.group(1).rpartition("=")[2] for m in _NAMED_MATH.finditer(line)]
    listed = _NAMED_LIST.search(line)
    if listed:
        values.append(read_answer(listed.group(1)).expression)
    assigned = _ASSIGNED_SPAN.findall(line)
    if len(assigned) > 1:  # "So $x = 2$ and $y = -1$." for (2, -1)
        values.append(read_answer(line).expression)
        values.append(", ".join(assigned))  # "the solutions are \(x = 2\) or \(x = -3\)"
    implied = _IMPLIES.split(line)
    if len(implied) > 1:  # "(\lambda - 2)(\lambda - 5) = 0 \Rightarrow \lambda = 2,\ \lambda = 5"
        values.append(read_answer(implied[-1].strip(" $.")).expression)
    return values


# A closing parenthesis that opens with a word ("(Check: …)", "(Indeed …)"), not a point.
_CLOSING_REMARK = re.compile(r"\s*\((?=[A-Z][a-z]+\b)(?:[^()]|\([^()]*\))*\)[\s.$]*$")


def _exact_where_rounding_asked(gold: str, answer: str, problem: str) -> bool:
    r"""An exact value (``100\pi``) whose rounding is the gold (314) where the question asks
    for a rounded one: the last step is not done, but the value is right."""
    gold_match = _DECIMAL.match(_plain(gold))
    if gold_match is None or _value(answer) is not None or not ROUNDING_ASKED.search(problem):
        return False
    value = _numeric_value(answer)
    places = len(gold_match.group(1) or "")
    return value is not None and _rounds_at(value, Fraction(_plain(gold)), places)


def _rounding_of_exact(gold: str, answer: str) -> bool:
    """A decimal that is an exact gold (\\frac{1}{8}) rounded to its own places ("0.13"), a
    rounding no one asked for or one a person accepts."""
    answer_match = _DECIMAL.match(_plain(answer))
    if answer_match is None or not answer_match.group(1) or _DECIMAL.match(_plain(gold)):
        return False
    value = _numeric_value(gold)
    return value is not None and _rounds_at(
        value, Fraction(_plain(answer)), len(answer_match.group(1))
    )


_DEGREES_ASKED = re.compile(r"\bdegrees?\b|\^\s*\{?\\circ|°|\bgrad\b|\bgrados?\b|градус", re.I)
_RADIANS = re.compile(r"\brad(?:ians?)?\b|\\pi|π", re.IGNORECASE)


def _radians_where_degrees_asked(gold: str, stated: StatedAnswer, problem: str) -> bool:
    """An angle in radians (``\\arctan(7/24)`` ≈ 0.2838 rad) for a question in degrees whose
    gold (16.3) is the same angle: the right angle in another unit."""
    gold_match = _DECIMAL.match(_plain(gold))
    if (
        gold_match is None
        or not _DEGREES_ASKED.search(problem)
        or _DEGREES_ASKED.search(stated.raw)
    ):
        return False
    value = _numeric_value(stated.expression)
    if value is None and stated.approximation:
        # "\arctan(7/24) ≈ 0.2838 radians"
        value = _numeric_value(read_answer(stated.approximation).expression)
    if value is None or not (_RADIANS.search(stated.raw) or _value(stated.expression) is None):
        return False
    places = len(gold_match.group(1) or "")
    return _rounds_at(value * 180 / math.pi, Fraction(_plain(gold)), places)


def _rounds_at(value: float, gold: Fraction, places: int) -> bool:
    return abs(value - float(gold)) <= 0.5 * 10**-places + 1e-9 * max(1.0, abs(value))


@lru_cache(maxsize=4096)
def _numeric_value(text: str) -> float | None:
    """The value of a closed-form number (``100\\pi``, ``\\arctan(7/24)``), or None; an exact
    rational first, as the other checks here read one."""
    exact = _value(text)
    return float(exact) if exact is not None else numeric_value(text)


# "Solve for $y$ and $x$": the question lists its unknowns in an order of its own.
_UNKNOWNS_ASKED = re.compile(
    r"\b(?:solve\s+for|find|values?\s+of)\s+\$?([a-z])\$?\s*(?:,|and)\s*\$?([a-z])\$?(?![\w(])",
    re.IGNORECASE,
)


def _in_the_asked_order(gold: str, answer: str, problem: str) -> bool:
    """A pair in the order the question lists its unknowns ("Solve for y and x": (3, 2)) where
    the gold lists them alphabetically ((2, 3)): which order the gold means is for a person."""
    asked = _UNKNOWNS_ASKED.search(_question(problem))
    gold_plain, answer_plain = gold.strip().strip("$"), answer.strip().strip("$")
    if asked is None or asked.group(1).lower() <= asked.group(2).lower():
        return False
    if not _ORDERED.fullmatch(gold_plain) or not _ORDERED.fullmatch(answer_plain):
        return False
    gold_parts = top_level_parts(gold_plain.strip()[1:-1])
    answer_parts = top_level_parts(answer_plain.strip()[1:-1])
    return len(gold_parts) == len(answer_parts) == 2 and all(
        compare_values(g, a).equal for g, a in zip(gold_parts, reversed(answer_parts), strict=True)
    )


# "If the positions were distinct roles, the count would be $1320$": what another reading of
# the question would give.
_OTHER_READING = re.compile(
    r"(?:\b(?:if|were|had)\b[^.?!\n]{3,200}?\b(?:would|could)\s+"
    r"(?:be|give|have\s+been|equal|get|obtain|make\s+(?:it|the\s+answer))"
    # "Taken literally, … ≡ 2 (mod 7)." before the answer to the problem it thinks was meant
    r"|\b(?:taken|read)\s+literally\b[^?!\n]{0,200}(?:=|\\equiv|≡))"
    r"\s+(\$[^$]{1,80}\$|\\\([^\n]{1,80}?\\\)|-?\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)


def _gold_under_another_reading(gold: str, output: str) -> bool:
    """The output works out the gold for another reading of the question it considered and
    set aside (ordered for unordered, with replacement for without): which reading the
    question means is for a person."""
    tail = output[-_TAIL_WINDOW * 2 :]
    if "would" not in tail and "could" not in tail and "literally" not in tail:
        return False
    return any(
        compare_values(gold, read_answer(match.group(1)).expression.rpartition("=")[2]).equal
        for match in _OTHER_READING.finditer(tail)
    )


def _one_coordinate(gold: str, stated: StatedAnswer, sample: Sample) -> bool:
    """ "x = 3" where the gold is the point (3, 1) and the other coordinate is known too: found
    in the working ("so y = 1"), or set by the question ("where does it cross the x-axis?"
    for (3, 0)). Whether one coordinate will do for the point asked is for a person; with the
    other coordinate nowhere, the answer is just incomplete."""
    plain = _SPACING.sub("", gold.strip().strip("$"))
    if stated.head not in ("x", "y") or not _POINT.fullmatch(plain):
        return False
    coordinates = plain[1:-1].split(",")
    index = 0 if stated.head == "x" else 1
    if len(coordinates) != 2 or not compare_values(coordinates[index], stated.expression).equal:
        return False
    other, named = coordinates[1 - index], "y" if index == 0 else "x"
    # "the $y$-axis", "the \\(y\\)-axis", "the y axis"
    if other == "0" and re.search(rf"\b{stated.head}(?:\$|\\\))?-?\s*axis\b", sample.problem, re.I):
        return True
    assigned = re.finditer(
        rf"(?<![A-Za-z\\]){named}\s*=\s*([-−]?\d+(?:\.\d+)?)(?![\d.])",
        sample.output[-_TAIL_WINDOW:],
    )
    return any(compare_values(other, m.group(1).replace("−", "-")).equal for m in assigned)


def _decimal_for_a_base(gold: str, answer: str, problem: str) -> bool:
    """The gold's number, written in base ten (256 for ``100_{16}``) where the question does
    not say which base it wants: the value is right, the base may not be ("Express your
    answer in base 7" settles it: then base ten is wrong)."""
    if _BASE_ASKED.search(_question(problem)):
        return False
    digits = base_digits(gold)
    value = _number(answer)
    return digits is not None and value is not None and int(digits[0], digits[1]) == value


_BASE_ASKED = re.compile(r"\bbase\b|\bBasis\b|\bbinary\b|\bhexadecimal\b|\boctal\b", re.I)
# "Find the slope of the tangent line …": the slope, which the line's equation only contains.
_SLOPE_ASKED = re.compile(r"\bslope\b|\bgradient\b|\bpendiente\b|\bpente\b|\bSteigung\b", re.I)


def _line_for_its_slope(gold: str, stated: StatedAnswer, problem: str) -> bool:
    """A line "y = 5x - 16" where the question asks for its slope, 5: the slope is in it."""
    if stated.head != "y" or not _SLOPE_ASKED.search(_question(problem)):
        return False
    parsed = parse_answer(stated.expression).values
    expression = parsed[0] if parsed else None
    if not isinstance(expression, sympy.Expr) or len(expression.free_symbols) != 1:
        return False
    (variable,) = expression.free_symbols
    if not expression.is_polynomial(variable) or sympy.degree(expression, variable) != 1:
        return False
    slope = expression.coeff(variable, 1)
    return bool(compare_values(gold, sympy.latex(slope)).equal)


# "Find $a$ if the line $y = ax + 3$ passes through $(2, 11)$.": one letter asked, which an
# equation of the problem holds.
_PARAMETER_ASKED = re.compile(
    r"\b(?:value\s+of|find|determine|solve\s+for)\s+(?:the\s+constant\s+)?\$\s*([a-z])\s*\$",
    re.IGNORECASE,
)
_GIVEN_EQUATION = re.compile(r"\$\s*([a-zA-Z](?:\s*\(\s*[a-z]\s*\))?)\s*=\s*([^$=]+)\$")


def _equation_for_its_parameter(gold: str, stated: StatedAnswer, problem: str) -> bool:
    """The problem's own equation with the asked letter put in ("y = 4x + 3" where a in
    y = ax + 3 is asked, and the gold is 4): the value is in the answer, not given as asked."""
    asked = _PARAMETER_ASKED.search(_question(problem))
    value = _numeric_value(gold)
    answer = parse_answer(stated.expression).first if stated.head else None
    if asked is None or value is None or not isinstance(answer, sympy.Expr):
        return False
    letter = asked.group(1)
    for given in _GIVEN_EQUATION.finditer(problem):
        if given.group(1).replace(" ", "") != stated.head.replace(" ", ""):
            continue
        expression = parse_answer(given.group(2)).first
        if not isinstance(expression, sympy.Expr):
            continue
        names = {symbol.name: symbol for symbol in expression.free_symbols}
        if letter not in names or len(names) != 2:
            continue
        filled = expression.subs(names[letter], value)
        if _same_function(filled, answer):
            return True
    return False


def _same_function(first: sympy.Expr, second: sympy.Expr) -> bool:
    """Equal at every probe of their one variable (matched by name)."""
    names = {s.name for s in first.free_symbols} | {s.name for s in second.free_symbols}
    if len(names) != 1:
        return False
    try:
        return all(
            cmath.isclose(
                complex(first.subs({s: point for s in first.free_symbols})),
                complex(second.subs({s: point for s in second.free_symbols})),
                rel_tol=1e-9,
                abs_tol=1e-9,
            )
            for point in _LOG_PROBES
        )
    except (TypeError, ValueError, ZeroDivisionError):
        return False


# "Find $\dfrac{d}{dx}\log x$.": log with no base is ln to some, log base 10 to others.
_BARE_LOG = re.compile(r"\\log(?!\s*_)|(?<![\\\w])log(?!\s*_)\b")
_LOG_PROBES = (0.35, 1.3, 2.9, 4.4)  # positive: where a logarithm is defined
_LN_TEN = math.log(10)


def _other_log_base(gold: str, answer: str, problem: str) -> bool:
    """Gold and answer a factor ln 10 apart where the problem writes log with no base
    (1/x against 1/(x ln 10)): each is right under one reading of "log"."""
    if not _BARE_LOG.search(problem):
        return False
    gold_value, answer_value = parse_answer(gold).first, parse_answer(answer).first
    if not (isinstance(gold_value, sympy.Expr) and isinstance(answer_value, sympy.Expr)):
        return False
    ratios = []
    try:
        for point in _LOG_PROBES:
            top = complex(gold_value.subs({s: point for s in gold_value.free_symbols}))
            bottom = complex(answer_value.subs({s: point for s in answer_value.free_symbols}))
            ratios.append(top / bottom)
    except (TypeError, ValueError, ZeroDivisionError):
        return False
    return any(
        all(math.isclose(abs(r), factor, rel_tol=1e-6) and abs(r.imag) < 1e-9 for r in ratios)
        for factor in (_LN_TEN, 1 / _LN_TEN)
    )


# "How many pairs of positive integers have product 36?": ordered pairs or unordered ones.
_PAIRS_ASKED = re.compile(r"\bhow\s+many\b[^?]*\bpairs\b", re.IGNORECASE)
# "ordered pairs", "with $x \le y$": the question says whether order counts
_PAIRS_SAID = re.compile(
    r"\b(?:un)?ordered\b|\bdistinct\b|\bunique\b|\\le(?:q)?\b|\\ge(?:q)?\b|[<>≤≥]", re.IGNORECASE
)


def _ordered_for_unordered(gold: str, answer: str, problem: str) -> bool:
    """A count of pairs twice the gold's, or about twice (less the pair of equal parts), or
    half of it, where the question does not say whether (a, b) and (b, a) are one pair."""
    question = _question(problem)
    if not _PAIRS_ASKED.search(question) or _PAIRS_SAID.search(question):
        return False
    gold_count, answer_count = _number(gold), _number(answer)
    if gold_count is None or answer_count is None or min(gold_count, answer_count) < 1:
        return False
    return any(
        more in (2 * fewer, 2 * fewer - 1)
        for more, fewer in ((answer_count, gold_count), (gold_count, answer_count))
    )


_MAX_DEGREE = 8  # a factorisation someone writes out, not a polynomial to solve numerically


def _polynomial_with_these_zeros(gold: str, answer: str) -> bool:
    """A polynomial in one variable whose zeros are exactly the gold's listed values (its
    factorisation "(x - 2)(x - 5)" for the zeros "2, 5"): the zeros, not said as asked."""
    values = [v for v in top_level_parts(gold.strip().strip("$")) if v.strip()]
    polynomial = parse_answer(answer.rpartition("=")[2]).values if "x" in answer else ()
    expression = polynomial[0] if polynomial else None
    if not isinstance(expression, sympy.Expr) or len(expression.free_symbols) != 1:
        return False
    (variable,) = expression.free_symbols
    zeros = [_numeric_value(v) for v in values]
    if None in zeros or not expression.is_polynomial(variable):
        return False
    polynomial = sympy.Poly(expression, variable)
    if not 0 < polynomial.degree() <= _MAX_DEGREE:
        return False
    # each distinct zero once: the square-free part has them all and no other
    square_free = polynomial.sqf_part()
    distinct = {round(zero, 9) for zero in zeros}
    coefficients = [abs(float(c)) for c in square_free.all_coeffs()]
    return square_free.degree() == len(distinct) and all(
        abs(float(square_free.eval(zero)))
        <= 1e-9 * sum(c * abs(zero) ** k for k, c in enumerate(reversed(coefficients)))
        for zero in distinct
    )


def _rounds_to(gold: str, answer: str) -> bool:
    """Equal once the more precise number is rounded to the other's decimal places; an exact
    answer (``33.\\overline{3}``, ``\\frac{100}{3}``) counts as the more precise. Two numbers in
    scientific notation with one power of ten are compared by their coefficients (3.2 × 10^7
    for 3.15 × 10^7)."""
    gold_scaled, answer_scaled = _SCIENTIFIC.fullmatch(gold), _SCIENTIFIC.fullmatch(answer)
    if gold_scaled and answer_scaled and gold_scaled[2] == answer_scaled[2]:
        gold, answer = gold_scaled[1], answer_scaled[1]
    gold_match = _DECIMAL.match(_plain(gold))
    answer_value = _value(answer)
    if not gold_match or answer_value is None:
        return False
    gold_value = Fraction(_plain(gold))
    answer_match = _DECIMAL.match(_plain(answer))
    gold_places = len(gold_match.group(1) or "")
    answer_places = len(answer_match.group(1) or "") if answer_match else None
    if answer_places == gold_places:
        return False
    places = gold_places if answer_places is None else min(gold_places, answer_places)
    return round(gold_value, places) == round(answer_value, places)


_SCIENTIFIC = re.compile(
    r"\s*\$?(-?\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|×|·)\s*10\s*\^\s*\{?\s*(-?\d+)\s*\}?\$?\s*"
)


def _other_unit(gold: str, stated: StatedAnswer, sample: Sample) -> bool:
    """The same quantity in another unit: a unit ratio apart, a percent for a fraction, an
    angle in radians for degrees (or the reverse), or a compound time ("37 min 30 s" for 37.5,
    205 for "3 hours 25 minutes"). The unit may be named where the output last wrote the
    value ("… = 2.5 hours.\n#### 2.5"); then it counts only where the question names no unit
    ("How long is the movie?")."""
    if _angle_converts(gold, stated.expression):
        return True
    stated_value = _value(stated.expression)
    if stated_value and stated_value in _compound_time(gold):
        return True
    gold_value = _value(gold)
    if not gold_value:
        return False
    if gold_value in _compound_time(stated.raw):
        return True
    value = _value(stated.expression)
    if not value:
        return False
    if _PERCENT.search(stated.raw) and (
        _close(gold_value, value / 100) or _close(gold_value, 1 + value / 100)
    ):
        return True  # "about 13.3%" for 2/15; "increases by 700%" for a factor of 8
    if _PERCENT.search(stated.raw) and _PERCENT.search(gold) and abs(value - gold_value) == 100:
        return True  # "ends at 91% of its value" for a change of -9%: the level, not the change
    ratio = gold_value / value
    if ratio not in _UNIT_RATIOS:
        return False
    if _UNIT_WORD.search(stated.units + " " + stated.raw[-30:]) is not None:
        return True
    if ratio in _DECIMAL_SLIPS or not _unit_written_after(stated.expression, sample.output):
        return False
    # where the question asks for a unit, an answer in another is wrong, and one in that unit
    # a wrong conversion (120 seconds for 2 hours) as often as a gold in another unit
    return _ASKED_UNIT.search(_question(sample.problem)) is None


def _unit_written_after(number: str, output: str) -> str:
    """The unit the output's end writes after ``number`` ("110 cents"), or ""."""
    number = number.strip()
    if not _DECIMAL.match(number):
        return ""
    unit = re.search(
        rf"(?<![\d.]){re.escape(number)}\s*(?:\\[,;: ]\s*|\\text\{{\s*)*({_UNIT_WORD.pattern})",
        output[-_TAIL_WINDOW:],
        re.IGNORECASE,
    )
    return unit.group(1) if unit else ""


# A tenfold difference is more often a slipped decimal point than millimetres for centimetres.
_DECIMAL_SLIPS = frozenset({Fraction(10), Fraction(1, 10)})
# A unit the question asks for: "in cents", "how many minutes", "to square centimeters",
# "what percent".
_ASKED_UNIT = re.compile(
    rf"\b(?:in|to|how\s+many)\s+(?:square\s+|cubic\s+)?(?:{_UNIT_WORD.pattern})"
    r"|\bwhat\s+percent",
    re.IGNORECASE,
)


def _fraction_for_percent(gold: str, stated: StatedAnswer, sample: Sample) -> bool:
    """0.85 where the question asks "what percent" and the gold is 85: the proportion, not yet
    a percent (a bare 0.85 may also be read as 0.85%), or the factor 2.25 for an increase of
    125%. An output that itself calls it "0.85%" is just wrong."""
    if not _PERCENT.search(_question(sample.problem)) or _PERCENT.search(stated.raw):
        return False
    if re.search(rf"(?<![\d.]){re.escape(stated.expression)}\s*(?:\\?%|percent)", sample.output):
        return False
    gold_value, value = _value(gold), _value(stated.expression)
    # "2.25 times the original" for a 125% increase: the factor, not yet the change
    return bool(gold_value and value) and (
        _close(gold_value, value * 100) or _close(gold_value, (value - 1) * 100)
    )


# A question whose own words give a change its direction: "How much did he lose?"
_DIRECTION_ASKED = re.compile(
    r"\b(?:lose|losing|lost|loss|decreas(?:e[ds]?|ing)|drop(?:ped|ping|s)?|fall(?:s|ing)?|fell"
    r"|shrink(?:s|ing)?|fewer|less|cheaper|shorter"
    r"|lower|below|down|deficit|owe[sd]?)\b",
    re.IGNORECASE,
)
_DIRECTION_SAID = re.compile(
    r"\b(?:overdrawn|in debt|owes?|a loss of|lost|decrease[ds]? by|dropp?ed by|fell by|down by"
    r"|below zero|short by|deficit of)\b",
    re.IGNORECASE,
)


def _sign_given_in_words(gold: str, answer: str, sample: Sample) -> bool:
    """-15 for "How much money did he lose?" where the gold is 15: the loss as a signed
    change, which the question's words already made a loss (15% for a fall the gold gives as
    -15%, -1/(2π) for how fast a radius decreases, the same); or 14.99 for the balance -14.99
    where the output's words say it ("Sam's account is overdrawn by $14.99.")."""
    asked = _DIRECTION_ASKED.search(_question(sample.problem)) is not None
    said = _DIRECTION_SAID.search(sample.output[-_TAIL_WINDOW:]) is not None
    if not asked and not said:
        return False
    gold_value, value = _value(gold), _value(answer)
    if gold_value is not None and value is not None:
        if not gold_value or value != -gold_value:
            return False
        negative_gold = gold_value < 0
    else:
        bare = read_answer(gold).expression
        if not bare or not compare_values(bare, f"-({answer})").equal:
            return False
        negative_gold = bare.lstrip().startswith("-")
    return asked or (negative_gold and said)


_COEFFICIENT_ASKED = re.compile(
    r"\bcoefficient|\bcoefficiente|\bcoeficiente|\bkoeffizient|коэффициент|系数|係数|계수",
    re.IGNORECASE,
)
# The variable and its power after a coefficient: "x^3", "\cdot x^{3}", "xy".
_VARIABLE_PART = re.compile(r"\s*(?:\\cdot|\\times)?\s*(?:[a-z](?:\^\{?\d+\}?)?\s*)+$")


_TERM_OVER_NUMBER = re.compile(r"\\[dt]?frac\s*\{([^{}]*?)\s*[a-z](?:\^\{?\d+\}?)?\s*\}")


def _term_for_coefficient(gold: str, answer: str, problem: str) -> bool:
    """The whole term where its coefficient is asked ("$12x^3$" for the coefficient 12)."""
    if not _COEFFICIENT_ASKED.search(_question(problem)):
        return False
    # "-\frac{x^3}{6}" is the term -\frac{1}{6}x^3
    term = _TERM_OVER_NUMBER.sub(lambda m: f"\\frac{{{m.group(1).strip() or 1}}}", answer)
    coefficient = _VARIABLE_PART.sub("", term)
    return (
        coefficient != answer
        and bool(coefficient)
        and bool(compare_values(gold, coefficient).equal)
    )


# "1001 = 7 \times 11 \times 13": a number of the problem taken apart.
_TAKEN_APART = re.compile(r"\s*(\d[\d,]*)\s*=\s*(.*(?:[×·*^+]|\\(?:times|cdot)(?![A-Za-z])).*)")


def _only_rewrites_a_given(answer: str, problem: str) -> bool:
    """The final statement writes a number the problem gives as a product or a sum ("So $1001 =
    7 \\times 11 \\times 13$." for its largest prime factor) and never says which part answers."""
    taken_apart = _TAKEN_APART.fullmatch(answer)
    if taken_apart is None:
        return False
    given = re.escape(taken_apart.group(1))
    return re.search(rf"(?<![\d.,]){given}(?![\d]|[.,]\d)", problem) is not None


_SPREAD_ASKED = re.compile(r"\bstandard deviation\b|\bvariance\b", re.IGNORECASE)
_CONVENTION_SAID = re.compile(r"\bsample\b|\bpopulation\b|\bn\s*-\s*1\b", re.IGNORECASE)
_DATA_LIST = re.compile(r"-?\d+(?:\.\d+)?(?:\s*,\s*(?:and\s+)?-?\d+(?:\.\d+)?){2,}")


def _other_spread_convention(gold: str, answer: str, problem: str) -> bool:
    """3.16 for the standard deviation 2.83 of five values: the sample's (dividing by n − 1)
    where the gold is the population's (by n), or the reverse, and the question names
    neither."""
    if not _SPREAD_ASKED.search(_question(problem)) or _CONVENTION_SAID.search(problem):
        return False
    lists = [m.group(0) for m in _DATA_LIST.finditer(problem)]
    # "\sqrt{5}" and "\frac{2\sqrt{15}}{3}": a deviation is often a root
    gold_value, value = _numeric_value(gold), _numeric_value(answer)
    if not lists or not gold_value or not value:
        return False
    count = max(len(data.split(",")) for data in lists)
    variance_ratio = Fraction(count, count - 1)
    ratio = float(value) / float(gold_value)
    # the variances differ by n/(n - 1), the deviations by its square root
    return any(
        abs(ratio - expected) <= 0.01 * expected
        for factor in (float(variance_ratio), float(variance_ratio) ** 0.5)
        for expected in (factor, 1 / factor)
    )


_QUARTILE_ASKED = re.compile(
    r"\b(?:(interquartile range|IQR)|(first|lower)\s+quartile|(third|upper)\s+quartile"
    r"|(\d{1,2})\$?(?:\^\{?\\text\{)?(?:st|nd|rd|th)\}?\}?\$?\s+percentile)\b",
    re.IGNORECASE,
)


def _other_quartile_rule(gold: str, answer: str, problem: str) -> bool:
    """7 for the interquartile range 8 of 1, 3, …, 15: quartiles by another of the rules in
    use (the medians of the halves, with or without the middle value; interpolation at
    (n + 1)p or (n − 1)p + 1, as NumPy does), where the question names none."""
    asked = _QUARTILE_ASKED.search(_question(problem))
    lists = [m.group(0) for m in _DATA_LIST.finditer(problem)] if asked else []
    if not lists:
        return False
    gold_value, value = _value(gold), _value(answer)
    if gold_value is None or value is None or gold_value == value:
        return False
    data = sorted(
        Fraction(x.strip().removeprefix("and").strip()) for x in max(lists, key=len).split(",")
    )
    if asked.group(4):  # "the 90th percentile": by interpolation, or by rank (n·p rounded up)
        p = Fraction(int(asked.group(4)), 100)
        rank = min(max(math.ceil(p * len(data)), 1), len(data))
        results = {_interpolated(data, p, rule) for rule in _QUARTILE_RULES[2:]}
        results.add(data[rank - 1])
        return gold_value in results and value in results
    by_rule = [_quartiles(data, rule) for rule in _QUARTILE_RULES]
    if asked.group(1):
        results = {upper - lower for lower, upper in by_rule}
    else:
        results = {pair[0 if asked.group(2) else 1] for pair in by_rule}
    return gold_value in results and value in results


_QUARTILE_RULES = ("halves without the median", "halves with the median", "(n+1)p", "(n-1)p+1")


def _quartiles(data: list[Fraction], rule: str) -> tuple[Fraction, Fraction]:
    n = len(data)
    if rule.startswith("halves"):
        half = n // 2 + (n % 2 if rule == "halves with the median" else 0)
        return _median(data[:half]), _median(data[n - half :])
    return tuple(_interpolated(data, p, rule) for p in (Fraction(1, 4), Fraction(3, 4)))


def _median(data: list[Fraction]) -> Fraction:
    middle = len(data) // 2
    return data[middle] if len(data) % 2 else (data[middle - 1] + data[middle]) / 2


def _interpolated(data: list[Fraction], p: Fraction, rule: str) -> Fraction:
    position = (len(data) + 1) * p if rule == "(n+1)p" else (len(data) - 1) * p + 1
    position = min(max(position, Fraction(1)), Fraction(len(data)))
    below = int(position)
    if below >= len(data):
        return data[-1]
    return data[below - 1] + (position - below) * (data[below] - data[below - 1])


def _percent_for_proportion(gold: str, stated: StatedAnswer) -> bool:
    """93.75 for the probability 15/16: the percent without its sign, or a proportion read as
    a percent by mistake."""
    gold_value, value = _value(gold), _value(stated.expression)
    return (
        gold_value is not None
        and value is not None
        and 0 < gold_value < 1
        and not _PERCENT.search(gold)
        and _close(gold_value * 100, value)
    )


# "three times more than Ann": three times as many, or Ann's and three times as many again.
_TIMES_MORE = re.compile(
    r"\b(?:\d+|twice|two|three|four|five|ten)\s+times\s+(?:more|less|fewer|larger|smaller|"
    r"bigger|greater|higher|lower|longer|shorter|heavier|older|younger)(?:\s+[a-z]+){0,2}\s+than\b",
    re.IGNORECASE,
)
_ANGLE_BETWEEN = re.compile(r"\bangles?\b[^.?]{0,30}?\bbetween\b", re.IGNORECASE)
_VECTORS = re.compile(r"\bvectors?\b", re.IGNORECASE)


def _other_angle_between(gold: str, answer: str, problem: str) -> bool:
    """The supplement of the gold for "the angle between" two lines: two lines make both (120°
    for the diagonals' 60°); which one is meant is a convention."""
    question = _question(problem)
    if not _ANGLE_BETWEEN.search(question) or _VECTORS.search(question):
        return False  # two vectors make one angle, in [0°, 180°]
    gold_value, value = _numeric_value(gold), _numeric_value(answer)
    if gold_value is None or value is None:
        return False
    half_turn = math.pi if _PI.search(gold) or _PI.search(answer) else 180.0
    return abs(gold_value + value - half_turn) < 1e-6 * half_turn


# "the odds of rolling a 6", not "the odds in favour of" (which names the ratio)
_ODDS_ASKED = re.compile(r"\bodds\b(?!\s+(?:in\s+favou?r|against)\b)", re.IGNORECASE)
_ODDS_GOLD = re.compile(r"^\s*(\d+)\s*(?::|\\colon|\bto\b)\s*(\d+)\s*$")


def _odds_as_a_probability(gold: str, answer: str, problem: str) -> bool:
    """The probability a/(a + b) for odds a:b that the question asks, as "odds" is often said
    for a chance ("the odds are 1 in 6")."""
    odds = _ODDS_GOLD.match(gold.replace("$", ""))
    if odds is None or not _ODDS_ASKED.search(_question(problem)):
        return False
    favourable, against = int(odds.group(1)), int(odds.group(2))
    if favourable + against == 0:
        return False
    value = _value(answer)
    return value is not None and value == Fraction(favourable, favourable + against)


def _intersection_for_union(gold: str, answer: str) -> bool:
    """The gold's intervals joined by ∩ where the gold joins them by ∪: literally the empty
    set, most likely a slip of notation."""
    if "\\cup" not in gold or "\\cap" not in answer:
        return False
    return compare_values(gold, answer.replace("\\cap", "\\cup")).equal


def _same_angle(gold: str, answer: str, problem: str) -> bool:
    """``\\frac{5\\pi}{4}`` where ``-\\frac{3\\pi}{4}`` is the gold: one angle, a whole turn
    apart, where the problem may fix the range (an argument in (-π, π], an angle in [0°, 360°))."""
    if not _ANGLE_WORDS.search(problem[-2000:]):
        return False  # "25\\pi" as an area is no angle
    turn = "2\\pi" if _PI.search(gold) or _PI.search(answer) else "360"
    gold_value, value = _numeric_value(gold), _numeric_value(answer)
    if gold_value is not None and value is not None:
        # a turn apart by value, or not worth the symbolic comparisons
        whole_turn = 2 * math.pi if turn == "2\\pi" else 360.0
        if all(
            abs(value + turns * whole_turn - gold_value) > 0.02 * whole_turn for turns in (1, -1)
        ):
            return False
    return any(
        compare_values(gold, f"{answer} + ({turns}) \\cdot {turn}").equal for turns in (1, -1)
    )


# The modulus of a question about remainders: "divided by 17", "modulo 9", "\\pmod{11}".
_MODULUS = re.compile(
    r"(?:\bremainder\b[^?]*?\bdivided\s+by|\\pmod|\\bmod|\bmod(?:ulo)?)\s*\$?\s*\{?\s*(\d{1,9})\b",
    re.IGNORECASE,
)


# A gold that is a residue class, not a number: "3 \pmod{7}", "x \equiv 3 \pmod 7", "3 mod 7".
_GOLD_RESIDUE = re.compile(
    r"^\s*\$?\s*(?:[a-z]\s*(?:\\equiv|≡)\s*)?(-?\d+)\s*\(?\s*\\?[bp]?mod\s*\{?\s*(\d+)\s*\}?\s*\)?\s*\$?\s*$"
)


def _same_residue(gold: str, answer: str, problem: str) -> bool:
    """-1 where 16 is the remainder asked for modulo 17, or 12 where 5 solves 3x ≡ 1 (mod 7):
    the same residue class, but another representative than the gold's, which the question
    may or may not rule out. A remainder left unreduced (9 for 100 mod 7) is simply wrong, and
    with several moduli (a system of congruences) one of them proves nothing."""
    question = _question(problem)
    residue_class = _GOLD_RESIDUE.match(gold)
    if residue_class is not None:  # "3 \pmod{7}" where 10, one member, is asked for
        value = _number(_plain(answer))
        residue, modulus = int(residue_class.group(1)), int(residue_class.group(2))
        return value is not None and value.denominator == 1 and (value - residue) % modulus == 0
    moduli = {int(m) for m in _MODULUS.findall(question)}
    gold_value, value = _number(_plain(gold)), _number(_plain(answer))
    if len(moduli) != 1 or gold_value is None or value is None or gold_value == value:
        return False
    modulus = moduli.pop()
    if gold_value.denominator != 1 or value.denominator != 1 or modulus < 2:
        return False
    if value >= 0 and re.search(r"\bremainder", question, re.IGNORECASE):
        # a remainder left unreduced is wrong; a gold left unreduced (the whole 11^11 for its
        # remainder by 1000) is the gold's slip
        return gold_value >= modulus > value and (gold_value - value) % modulus == 0
    return (gold_value - value) % modulus == 0


def _angle_converts(gold: str, answer: str) -> bool:
    """``\\frac{\\pi}{4}`` where 45 (degrees) is the gold, or 30 where ``\\frac{\\pi}{6}`` is."""
    for radians, degrees in ((answer, gold), (gold, answer)):
        if _PI.search(radians) and not _PI.search(degrees) and _number(degrees) is not None:
            turned = f"\\frac{{({radians}) \\cdot 180}}{{\\pi}}"
            if compare_values(_plain(degrees), turned).equal:
                return True
    return False


@lru_cache(maxsize=4096)
def _value(text: str) -> Fraction | None:
    """The exact rational value of a number, fraction or repeating decimal; None otherwise
    (cached: the checks ask it of the same gold and answer several times a row)."""
    plain = all_rewrites(_plain(text))[0]
    number = _number(plain)
    if number is not None:
        return number
    fraction = _FRACTION.fullmatch(plain)
    if fraction is None or not int(fraction.group(2)):
        return None  # not a fraction of integers, or 0/0 (undefined, flagged elsewhere)
    return Fraction(int(fraction.group(1)), int(fraction.group(2)))


def _close(first: Fraction, second: Fraction) -> bool:
    return abs(first - second) <= Fraction(1, 100) * max(abs(first), abs(second))


def _plain(text: str) -> str:
    return text.strip().strip("$").replace("\\%", "").replace("%", "").strip()


@lru_cache(maxsize=4096)
def _compound_time(text: str) -> tuple[Fraction, ...]:
    """ "37 min 30 s" as 37.5 minutes, 2250 seconds and 0.625 hours; () when not compound."""
    text = _TEXT_WRAPPER.sub(r"\1", text)  # "2 \text{ hours } 45 \text{ minutes}"
    for match in _COMPOUND_TIME.finditer(text):
        hours, minutes, seconds, alone_minutes, alone_seconds = match.groups()
        parts = [hours, minutes or alone_minutes, seconds or alone_seconds]
        if sum(p is not None for p in parts) < 2:
            continue
        hours, minutes, seconds = (Fraction(p) if p else Fraction(0) for p in parts)
        total_seconds = hours * 3600 + minutes * 60 + seconds
        return (total_seconds / 3600, total_seconds / 60, total_seconds)
    return ()


def _only_constant_differs(gold: str, answer: str) -> bool:
    gold_has, answer_has = bool(_CONSTANT.search(gold)), bool(_CONSTANT.search(answer))
    if gold_has == answer_has:
        return False
    return bool(compare_values(_CONSTANT.sub("", gold), _CONSTANT.sub("", answer)).equal)


def _number(text: str) -> Fraction | None:
    cleaned = text.strip().replace(",", "").replace("{,}", "")
    try:
        return Fraction(cleaned) if re.fullmatch(r"-?\d+(?:\.\d+)?(?:/\d+)?", cleaned) else None
    except (ValueError, ZeroDivisionError):
        return None
