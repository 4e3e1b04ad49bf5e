"""Form doubts: an answer equal to the gold in value, written in a form that may not count.

Whether ``0.375`` answers "as a common fraction", ``\\sqrt{12}`` answers "simplify", or
``3x - 2`` answers "the equation of the line" is a convention of the question, not a matter
of value, so these rows go to a person; the question's own words decide when to ask. Regular
expressions only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from math import gcd

from grading.answers import StatedAnswer
from grading.equivalence.check import Comparison, chain_sides, compare_values
from grading.equivalence.integer_sets import CONGRUENCE_MARK
from grading.equivalence.rewrite import LATEX_SPACE, top_level_parts
from grading.equivalence.structure import common_factor_left, factoring_incomplete, letter_cancels
from grading.evaluators.extraction import braced_argument
from grading.units import other_unit_than_asked, stated_unit, unit_named

# The question asks for a form.
_LONE_LETTER = re.compile(r"[A-Za-z]")
_FORM_REQUEST = re.compile(
    r"\bcommon fraction|\bsimplest (?:radical )?form|\bradical form|\binterval notation"
    r"|\bin degrees\b|\bin radians\b|\bordered (?:pair|triple)|\bin terms of\b"
    r"|\b(?:as|to|into) a decimal|\bin decimal form|\b(?:to|into) a (?:percent|fraction)"
    r"|\bmixed number|\bscientific notation|\bexpanded form|\bfactored form|\bslope-intercept"
    r"|\bstandard form|\b(?:rectangular|polar|exponential|trigonometric|cartesian) form"
    r"|\bfactor (?:completely|fully)|\bexact value|\bas a (?:reduced |simplified )?"
    r"fraction|\bas a percent|\bin lowest terms|\bin the form\b|\bimproper fraction"
    r"|sous forme (?:de|d'une) fraction|como (?:una )?fracción|en forma de fracción|als bruch"
    r"|в виде (?:обыкновенной )?дроби|como fração|分数で|用分数|以分数|最简|既約|기약"
    # a decimal asked in other languages: "como número decimal", "小数で答えなさい"
    r"|como (?:un )?(?:número )?decimal|en (?:nombre |écriture )?décima|forme décimale"
    r"|als Dezimal|in Dezimal|десятичн|小数で|用小数|以小数|化成小数|小数表示"
    r"|come (?:numero )?decimale|\bas an? (?:single )?power\b",
    re.IGNORECASE,
)
# A gold that reads as a point or as an open interval, and what tells which it is.
_OPEN_PAIR = re.compile(r"\(\s*-?[\d.]+\s*,\s*-?[\d.]+\s*\)")
_RELATION = re.compile(r"[<>≤≥|]|\\[lg]eq?(?![A-Za-z])|\\[lr]?vert")
_INTERVAL_CONTEXT = re.compile(
    r"interval|inequalit|solve|values? of|range|domain|[<>≤≥]|\\[lg]eq?(?![A-Za-z])", re.IGNORECASE
)
# The question makes simplifying the task ("Simplify √72", "Factor completely"); a "common
# fraction" is one in lowest terms, by the convention of MATH and AMC.
_SIMPLIFY_REQUEST = re.compile(
    r"\bsimplif|\bsimplest|\bradical form|\blowest terms|\bfactor|\bexpand|\brationali[sz]e"
    r"|\brational denominator"
    r"|\bcommon fraction|\breduced fraction|最简|既約|기약"
    r"|irréductible|irreducible|irredutível|gekürzt|несократим|ai minimi termini",
    re.IGNORECASE,
)
_FACTOR_REQUEST = re.compile(r"\bfactor", re.IGNORECASE)
_EXPAND_REQUEST = re.compile(
    r"\bexpand|\bmultiply out|\bin expanded form"
    # a template written expanded: "in the form $y = ax^2 + bx + c$"
    r"|\bin the form[\s\"“'$\\(]{0,8}(?:[a-z](?:\(x\))?\s*=\s*)?[A-Za-z]\s*x\s*\^\s*\{?\d\}?\s*[+-]"
    r"\s*[A-Za-z]\s*x\b",
    re.IGNORECASE,
)
# A group with a variable that is multiplied or raised: "-2(x + 1)^2", "(x - 3)(x + 2)".
_VARIABLE_GROUP = re.compile(r"\([^()]*[a-z][^()]*\)\s*(?:\^|\()|[\d}a-z]\s*\([^()]*[a-z]")
_FRACTION_PARTS = re.compile(
    r"\\[dt]?frac\{(\d{1,9})\}\{(\d{1,9})\}|(?<![\d.])(\d{1,9})/(\d{1,9})(?![\d.])"
)
_FRACTION_COMMAND = re.compile(r"\\[dt]?frac(?=\{)")
_RADICAL_FRACTION = re.compile(r"\\[dt]?frac\{(\d{1,9})\s*\\sqrt\{\d{1,9}\}\}\{(\d{1,9})\}")
_VARIABLE = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
_COMMANDS = re.compile(r"\\[A-Za-z]+|\\text\{[^{}]*\}")
# One equation with a named left side ("y = 3x - 2"), not a list of assignments.
_EQUATION_GOLD = re.compile(r"^\s*\$?\s*[A-Za-z](?:\s*\(\s*[a-z]\s*\))?\s*=(?!=)[^=,;]*$")
_DOTTED_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?![\d.])")
_PERCENT = re.compile(r"\\%|%|\bpercent\b")
_WORDS = re.compile(r"[^\W\d_]+")
_DECIMAL_COMMA_WORDS = frozenset(
    "der die das ist und wie viel viele berechne ergebnis antwort als schreibe gib denn zahl mit"
    " von le la les est et quel quelle en une des du"
    " combien calculer réponse el los las es cuánto cuántos cuál calcula respuesta os é qual"
    " quanto resposta il di che quanti risposta и в на сколько ответ найдите вычислите"
    " dividi calcola risultato quanta quante"  # Italian
    " oblicz ile jest wynik odpowiedź rozwiąż równanie liczba lub"  # Polish
    " het een hoeveel bereken antwoord uitkomst"  # Dutch
    " vypočítej kolik výsledek odpověď"  # Czech
    " hur många mycket beräkna svar och"  # Swedish
    " kaç hesapla cevap sonuç"  # Turkish
    " berapa hitung hitunglah jawaban hasil"  # Indonesian
    " câte câți calculați răspuns".split()  # Romanian
)
_ENGLISH_WORDS = frozenset("the is of and what how many much find answer are to".split())
# Readings an answer admits besides the usual one.
_SLASH_JUXTAPOSED = re.compile(r"(-?[\dA-Za-z.]+)\s*/\s*(\d+)\s*([A-Za-z(\\][^/]*)")
# Plain text whose slash or caret takes one term where the writer may have meant the rest:
# "x/x-1" (x/(x - 1)?), "e^x+1" (e^(x + 1)?).
_SLASH_THEN_TERMS = re.compile(r"([\dA-Za-z.]+)\s*/\s*([\dA-Za-z.]+)\s*([+-][^(){}\\/]+)")
_CARET_THEN_TERMS = re.compile(r"([\dA-Za-z.]+)\s*\^\s*([\dA-Za-z.]+)\s*([+-][^(){}\\^]+)")
_BARE_LOG = re.compile(r"\\log(?![_a-zA-Z])")
_RATIO = re.compile(r"(\d+)\s*:\s*(\d+)")
_ONE_COMMA_GROUP = re.compile(r"-?\d{1,3},\d{3}")
_DEGREES = re.compile(r"\^\s*\{?\\circ\}?|°|\bdegrees?\b")
_PI = re.compile(r"\\pi|π")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_CLOSED_AT_INFINITY = re.compile(r"\[\s*-\s*\\infty|\\infty\s*(?:\\right\s*)?\]")
_SET_BRACES = re.compile(r"^\\?\{.*,.*\\?\}$")
# The question makes the values a set: their order does not matter.
_ANY_ORDER = re.compile(
    r"\ball (?:the )?(?:real |possible |integer |complex )?(?:solutions|roots|values|zeros"
    r"|numbers)|\bany order\b|\bseparated by commas\b|\bsolutions?\b|\broots\b|\bsolve\b"
    r"|корни|решени|raíces|soluciones|racines|solutions|lösungen|nullstellen|raízes|soluções"
    r"|radici|soluzioni|根|解",
    re.IGNORECASE,
)
# An answer that is an operation to carry out, not a value written as a number or fraction.
_OPERATION = re.compile(
    r"\\(?:log|ln|lg|sin|cos|tan|binom|choose|sum|prod|int|lim|cdot|times|div)(?![A-Za-z])"
    r"|(?<=[\w}])\s*[-+*^!]"
)
_SPACING = re.compile(rf"[\s${{}}]|{LATEX_SPACE}|\\left|\\right")
_LEAST_RESTATED = 4
_FRAC = re.compile(r"\\[dt]?frac\s*(?=\{)")
_SLASH_ROOT = re.compile(r"/\s*\(?\s*\\sqrt")
_SCIENTIFIC_REQUEST = re.compile(r"\bscientific notation\b", re.IGNORECASE)
_INTEGER_REQUEST = re.compile(
    r"\bas an? (?:integer|whole number)|\bin (?:integer|whole number) form|como (?:un )?entero"
    r"|en tant qu'entier|als ganze Zahl|целым числом|整数で|整数の比|整数比",
    re.IGNORECASE,
)
_INTEGER = re.compile(r"-?\d{1,3}(?:,\d{3})+|-?\d+")
# The coefficient of a power of ten: "45 \times 10^{-5}", "0.45 \cdot 10^3", "45e-5".
_SCIENTIFIC_COEFFICIENT = re.compile(
    r"^\s*-?(\d+(?:\.\d+)?)\s*(?:\\times|\\cdot|\*|×)\s*10\s*\^|^\s*-?(\d+(?:\.\d+)?)[eE][-+]?\d"
)
_RADICAND = re.compile(r"\\sqrt\s*\{?\s*(\d{1,6})\s*\}?")
# The notation an answer is written in, by the first pattern that matches.
_NOTATIONS = (
    ("matrix", re.compile(r"\\begin\{[pbvBV]?matrix\}")),
    (
        "polar",
        re.compile(
            r"\\operatorname\{cis\}|\\text\{cis\}|\bcis\b|e\^\{[^}]*i[^}]*\}"
            r"|\\cos[^+]*\+\s*i\s*\\sin"
        ),
    ),
    ("interval", re.compile(r"^[\[(][^,]*,[^,]*[\])]$|\\cup")),
    ("inequality", re.compile(r"[<>]|\\[lg]eq?\b")),
    ("scientific", re.compile(r"\\(?:times|cdot)\s*10\^|\d[eE][+-]?\d|^-?10\s*\^")),
    ("percent", re.compile(r"\\%|%")),
    ("radical", re.compile(r"\\sqrt")),
    ("mixed number", re.compile(r"^-?\d+\s*\\[dt]?frac|^-?\d+\s+\d+\s*/\s*\d+$")),
    ("fraction", re.compile(r"\\[dt]?frac|^-?\d+\s*/\s*\d+$")),
    (
        "repeating decimal",
        re.compile(r"^-?\d*\.\d*(?:\\overline|\(\d+\)$|\d*(?:\\[lc]?dots|\.\.\.|…))"),
    ),
    ("decimal", re.compile(r"^-?\d*\.\d+$")),
    ("tuple", re.compile(r"^\(.*,.*\)$")),
)


_EXACT_FORM_REQUEST = re.compile(
    r"\bexact\b|\bin terms of\b|simplest (?:radical )?form|radical form|common fraction"
    r"|as a (?:reduced |simplified )?fraction",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Request:
    """What a question's words ask of the answer's form (read once per problem: a run has
    several outputs for each, and these patterns read up to 2,000 characters of it)."""

    form: bool
    simplify: bool
    factor: bool
    expand: bool
    scientific: bool
    integer: bool
    interval_context: bool
    any_order: bool
    exact: bool


@lru_cache(maxsize=1024)
def _request(problem: str) -> _Request:
    text = problem[-2000:]
    return _Request(
        form=_FORM_REQUEST.search(text) is not None,
        simplify=_SIMPLIFY_REQUEST.search(text) is not None,
        factor=_FACTOR_REQUEST.search(text) is not None,
        expand=_EXPAND_REQUEST.search(text) is not None,
        scientific=_SCIENTIFIC_REQUEST.search(text) is not None,
        integer=_INTEGER_REQUEST.search(text) is not None,
        interval_context=_INTERVAL_CONTEXT.search(text) is not None,
        any_order=_ANY_ORDER.search(text) is not None,
        exact=_EXACT_FORM_REQUEST.search(text) is not None,
    )


def demands_exact_form(problem: str) -> bool:
    """True when the question asks for an exact form ("exact value", "in terms of pi")."""
    return _request(problem).exact


_DECIMAL = re.compile(r"-?\d*\.\d+")
_POSITIVE_EXPONENTS_ASKED = re.compile(r"\bpositive\s+exponents?\b", re.IGNORECASE)
_NEGATIVE_EXPONENT = re.compile(r"\^\s*\{?\s*[-−]")
_NATURAL_LOG_ASKED = re.compile(r"\bnatural log", re.IGNORECASE)
_COMMON_LOG = re.compile(r"\\log(?![_a-zA-Z])|(?<![\\a-zA-Z])log(?![_a-zA-Z])")
_DECIMAL_RATIO = re.compile(r"-?\d*\.\d+\s*:\s*-?\d*\.?\d+|-?\d+\s*:\s*-?\d*\.\d+")


def form_signals(
    gold: str, stated: StatedAnswer, comparison: Comparison, problem: str
) -> list[str]:
    """Doubts about an answer already shown equal to the gold."""
    found = []
    asked = _request(problem)
    # Notations are compared for values only: "y = 0.5x - 1" and "y = \frac12 x - 1" are one
    # equation in one form.
    # "\\frac{5}{11} = 0.454545\\ldots" is written in the notation of its last side
    answer_notation = notation(chain_sides(stated.expression)[-1])
    gold_notation = notation(gold)
    other_notation = (_is_value(gold) and gold_notation != answer_notation) or (
        (gold_notation == "polar") != (answer_notation == "polar")  # 6 cis 45° for a + bi
    )
    same_notation = gold_notation == answer_notation != "plain"
    stated_equation = f"{stated.head} = {stated.expression}" if stated.head else stated.expression
    shapes = {_equation_shape(gold), _equation_shape(stated_equation)}
    other_shape = len(shapes) > 1 and "" not in shapes
    if asked.form and (
        other_notation or other_shape or (comparison.changes_form and not same_notation)
    ):
        found.append("form_requested")
    if _SINGLETON.fullmatch(gold.strip().strip("$")) and not _BRACED.search(stated.expression):
        found.append("form_requested")  # "3" for the set \{3\}: its element, not the set
    if _RATIO.fullmatch(gold.strip().strip("$")) and (
        _DECIMAL.fullmatch(stated.expression.strip())
        or (asked.integer and _DECIMAL_RATIO.fullmatch(stated.expression.strip()))
    ):
        # "2.5" for the ratio 5:2; "1.5 : 1" where a ratio of integers is asked
        found.append("form_requested")
    if (
        _POSITIVE_EXPONENTS_ASKED.search(problem[-600:])
        and _NEGATIVE_EXPONENT.search(stated.expression)
        and not _NEGATIVE_EXPONENT.search(gold)
    ):
        found.append("form_requested")  # "x^2y^{-3}" where only positive exponents are asked
    if _NATURAL_LOG_ASKED.search(problem[-600:]) and _COMMON_LOG.search(stated.expression):
        found.append("form_requested")  # "\frac{\log 7}{\log 2}" where natural logs are asked
    if asked.integer and _INTEGER.fullmatch(gold.strip().strip("$")):
        if not _INTEGER.fullmatch(stated.expression.strip().strip("$").strip()):
            found.append("form_requested")  # "\binom{12}{4}" where an integer is asked
    if _EQUATION_GOLD.match(gold) and "=" not in stated.expression and not stated.head:
        found.append("equation_expected")
    if CONGRUENCE_MARK.search(stated.expression) and not CONGRUENCE_MARK.search(gold):
        found.append("form_requested")  # "x \equiv 23 \pmod{105}" where the number 23 is asked
    if (
        _restates_expression(gold, stated.expression, problem[-2000:])
        or _arithmetic_left_undone(gold, stated.expression)
        or (asked.simplify and less_simplified(gold, stated.expression))
        or _common_factor_left(stated.expression, problem[-600:])
        or _leading_sign_left(stated.expression, problem[-600:])
        or (
            asked.scientific
            and _unnormalised_scientific(stated.expression.rpartition("=")[2].strip())
        )
        # "x^3 + 2x^2 - 9x - 18 = (x + 2)(x^2 - 9)": the side the identity ends on
        or (asked.factor and factoring_incomplete(gold, stated.expression.rpartition("=")[2]))
        or (asked.expand and factoring_incomplete(stated.expression, gold))
        or (asked.expand and _grouped_where_expanded(gold, stated.expression))
    ):
        found.append("form_differs")
    if (
        _OPEN_PAIR.fullmatch(gold.strip().strip("$"))
        and _RELATION.search(stated.expression)
        and not asked.interval_context
    ):
        found.append("pair_or_interval")  # "1 < x < 7" for the bare gold (1, 7)
    if stated.compound and not _gold_in_the_larger_unit(gold, stated.units):
        found.append("unit_mismatch")  # "37 min 30 s" for 37.5 (minutes)

    if _CLOSED_AT_INFINITY.search(stated.expression):
        found.append("interval_notation")  # "[4, \infty]"
    if gold.strip().strip("$").startswith(("(", "\\left(")) and _SET_BRACES.match(
        stated.expression.strip()
    ):
        found.append("order_lost")  # "{3, 4}" for the ordered pair (3, 4)
    elif not asked.any_order and _reordered(gold, stated.expression):
        found.append("order_lost")  # "10, 4, -2" for "4, 10, -2", with no "all solutions"
    if (
        _FRACTION_ASKED.search(problem[-300:])
        and _PERCENT.search(stated.raw)
        and not _PERCENT.search(gold)
    ):
        found.append("form_requested")  # "37.5%" for "What fraction of the class walks?"
    if _PERCENT.search(gold) and not _PERCENT.search(stated.raw) and _scaled(gold, stated):
        found.append("unit_mismatch")  # 0.25 for 25%: a fraction where a percent was asked
    return found


# "… where A, B, C, D are integers such that A > 0 and gcd(|A|,|B|,|C|,|D|) = 1"
_STANDARD_FORM_ASKED = re.compile(r"\bstandard\s+form\b", re.IGNORECASE)
_COPRIME_ASKED = re.compile(r"\bgcd\s*\(\s*\|?[A-Z]\|?(?:\s*,\s*\|?[A-Z]\|?)+\s*\)\s*=\s*1\b")
_COEFFICIENT = re.compile(r"(?<![\w.^_{])\d+(?![\d.])")
_UNIT_COEFFICIENT = re.compile(r"(?<![\d.a-z])[a-z]")  # "x + …": a coefficient of 1


_SINGLETON = re.compile(r"\\\{\s*[^,;{}]+\s*\\\}")
_BRACED = re.compile(r"\\\{|\{|\\left\\\{")


def _common_factor_left(answer: str, problem: str) -> bool:
    """Integer coefficients that share a factor, where the problem asks for their greatest
    common divisor to be 1 ("4x + 4y + 4z - 8 = 0" for x + y + z - 2 = 0), or for an
    equation in standard form ("6x - 4y = 8" for 3x - 2y = 4)."""
    compact = answer.replace(" ", "")
    coprime = "gcd" in problem and _COPRIME_ASKED.search(problem)
    if not coprime and not ("=" in compact and _STANDARD_FORM_ASKED.search(problem[-1000:])):
        return False
    if _UNIT_COEFFICIENT.search(compact):
        return False
    coefficients = [int(n) for n in _COEFFICIENT.findall(compact) if int(n)]
    return len(coefficients) >= 2 and gcd(*coefficients) > 1


_FIRST_POSITIVE_ASKED = re.compile(r"\bA\s*(?:>|\\gt)\s*0\b")


def _leading_sign_left(answer: str, problem: str) -> bool:
    """A negative first coefficient where the problem asks for A > 0 ("-x - 2y + 2z + 9 = 0"
    for "Ax + By + Cz + D = 0, where … A > 0"): the same plane, not in the form asked."""
    return answer.lstrip("$ ").startswith(("-", "−")) and bool(
        _FIRST_POSITIVE_ASKED.search(problem)
    )


def _grouped_where_expanded(gold: str, answer: str) -> bool:
    """An expansion asked for and answered with a group still multiplied out of it
    ("y = -2(x+1)^2 + 4" for "y = -2x^2 - 4x + 2")."""
    return "(" not in gold and _VARIABLE_GROUP.search(answer.rpartition("=")[2]) is not None


def _equation_shape(text: str) -> str:
    """How an equation is arranged: solved for one letter ("y = 2x + 3"), equal to zero
    ("x - 2y + 6 = 0") or otherwise ("2x - y = 12"); "" for no equation. A requested form
    ("slope-intercept", "Ax + By + C = 0") fixes the arrangement."""
    left, equals, right = text.strip().strip("$").partition("=")
    if not equals or "=" in right:
        return ""
    if _LONE_LETTER.fullmatch(left.strip()):
        return "solved"
    return "zero" if right.strip() == "0" else "other"


def _reordered(gold: str, answer: str) -> bool:
    """The same values as the gold's list, in another order (a list of pairs or an interval
    is a set, whose order does not matter)."""
    if notation(gold) == "interval" or "(" in gold.strip().strip("$")[1:]:
        return False
    gold_parts, answer_parts = _top_level_parts(gold), _top_level_parts(answer)
    if len(gold_parts) < 2 or len(gold_parts) != len(answer_parts):
        return False
    in_order = all(
        compare_values(g, a).equal for g, a in zip(gold_parts, answer_parts, strict=True)
    )
    return not in_order


def _top_level_parts(text: str) -> list[str]:
    text = text.strip().strip("$").strip()
    if text[:1] in "([" and _closing(text) == len(text) - 1:
        text = text[1:-1]
    return [part for part in top_level_parts(text) if part]


def _closing(text: str) -> int:
    """Where the bracket that opens ``text`` closes (-1 when it never does)."""
    depth = 0
    for index, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0:
            return index
    return -1


def _scaled(gold: str, stated: StatedAnswer) -> bool:
    """The answer's number is not the gold's: equal only because a percent is a hundredth."""
    gold_numbers, answer_numbers = _NUMBER.findall(gold), _NUMBER.findall(stated.expression)
    return bool(gold_numbers and answer_numbers) and gold_numbers[0] != answer_numbers[0]


def unit_signals(gold: str, stated: StatedAnswer, problem: str, output: str = "") -> list[str]:
    """Doubts about the unit or the digits of an answer, whatever its verdict (``output``, the
    text around it, tells which language's number format it uses)."""
    found = []
    answer = stated.raw
    if (
        (_PI.search(gold) and _DEGREES.search(answer))
        or (_DEGREES.search(gold) and _PI.search(answer))
        or other_unit_than_asked(problem, answer)
    ):
        found.append("unit_mismatch")  # "1000 cm³" where the question asks for liters
    if any(
        compare_values(gold, dotted.replace(".", "")).equal
        for dotted in _DOTTED_THOUSANDS.findall(answer)
    ):
        found.append("number_format")  # "12.500" (or "2 · 23.450 = 46.900") for 46900
    clock = _CLOCK.fullmatch(gold.strip())
    if clock and re.search(rf"(?<!\d){clock.group(1)}\s*[.h]\s*{clock.group(2)}(?!\d)", answer):
        found.append("number_format")  # "21.15 Uhr", "21h15" where the gold is 21:15
    grouped = _ONE_COMMA_GROUP.fullmatch(stated.expression.strip())
    if (
        grouped
        and not comma_convention(f"{problem} {output or answer}")
        and compare_values(gold, stated.expression.replace(",", ".")).equal
    ):
        found.append("number_format")  # "1,234" where the gold is 1.234 (a decimal comma)
    if _readings_disagree(gold, stated.expression) or _DIVIDES_A_PRODUCT.search(problem):
        found.append("two_readings")
    return found


_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")
_FRACTION_ASKED = re.compile(r"\b(?:what|which)\s+fraction\b", re.IGNORECASE)
# "6 ÷ 2(1+2)": whether the product binds first (1) or the division does (9) is a convention.
_DIVIDES_A_PRODUCT = re.compile(r"\d\s*(?:÷|\\div)\s*\d+(?:\.\d+)?\s*(?:\\left)?[(\[]")


def comma_convention(text: str) -> str:
    """What a comma between digits is in the language of ``text``: "decimal" (German, French,
    Spanish, Portuguese, Italian, Russian), "thousands" (English), or "" when its words do not
    say."""
    words = _WORDS.findall(text[-2000:].lower())
    decimal = sum(word in _DECIMAL_COMMA_WORDS for word in words)
    thousands = sum(word in _ENGLISH_WORDS for word in words)
    if decimal == thousands:
        return ""
    return "decimal" if decimal > thousands else "thousands"


def _odds_as_probability(ratio: re.Match) -> str:
    first, second = int(ratio.group(1)), int(ratio.group(2))
    return f"\\frac{{{first}}}{{{first + second}}}"


def _readings_disagree(gold: str, answer: str) -> bool:
    """The answer's two readings differ on whether it equals the gold: ``1/2x`` as x/2 or as
    1/(2x), ``x/x-1`` as x/(x - 1), ``e^x+1`` as e^(x + 1), ``\\log 2`` as ln 2 (not base 10),
    the ratio ``1:6`` as odds of 1 in 7 (not 1/6)."""
    plain = _plain_text_readings(answer)
    if plain is not None and (
        compare_values(gold, plain[0]).equal != compare_values(gold, plain[1]).equal
    ):
        return True
    readings = []
    slashed = _SLASH_JUXTAPOSED.fullmatch(answer.strip())
    if slashed:
        readings.append(f"\\frac{{{slashed.group(1)}}}{{{slashed.group(2)}}} {slashed.group(3)}")
    if _BARE_LOG.search(answer):
        readings.append(_BARE_LOG.sub(r"\\ln", answer))
    if grouped := _SLASH_THEN_TERMS.fullmatch(answer.strip()):
        readings.append(f"\\frac{{{grouped.group(1)}}}{{{grouped.group(2)} {grouped.group(3)}}}")
    if grouped := _CARET_THEN_TERMS.fullmatch(answer.strip()):
        readings.append(f"{grouped.group(1)}^{{{grouped.group(2)} {grouped.group(3)}}}")
    ratio = _RATIO.fullmatch(answer.strip())
    if ratio and _FRACTION_PARTS.search(gold):
        readings.append(_odds_as_probability(ratio))
    elif (
        _FRACTION_PARTS.search(gold) and len(_top_level_parts(answer)) > 1 and _RATIO.search(answer)
    ):
        # "1:5, 5" for "\frac{1}{6}, 5": odds as one part of a list
        readings.append(_RATIO.sub(_odds_as_probability, answer))
    if not readings or compare_values(gold, answer).equal:
        # "1:6" equal to 1/6 is one of two readings; "1/2\sqrt{2}" equal to \frac{\sqrt{2}}{4}
        # as 1/(2√2) is another value as (1/2)√2
        return bool(readings) and (
            ratio is not None
            or (slashed is not None and not compare_values(answer, readings[0]).equal)
        )
    return any(compare_values(gold, reading).equal for reading in readings)


# Plain text whose root, function or lost superscript takes one term or more: each pattern,
# the reading a parser makes, and the other one the writer may have meant.
_PLAIN_TEXT_READINGS = (
    # "sqrt 3/2": √3 / 2, or √(3/2)
    (re.compile(r"\\?sqrt\s*(\d+)\s*/\s*(\d+)"), r"\\sqrt{\1}/\2", r"\\sqrt{\1/\2}"),
    # "2 sqrt 2x": 2√2·x, or 2√(2x)
    (re.compile(r"\\?sqrt\s*(\d+)\s*([a-z])(?![a-z])"), r"\\sqrt{\1}\2", r"\\sqrt{\1\2}"),
    # "cos x^2": cos(x²), or (cos x)²; LaTeX's "\sin x^2" is sin(x²) by convention
    (
        re.compile(r"(?<![\\A-Za-z])(sin|cos|tan)\s+([a-z])\s*\^\s*\{?(\d)\}?"),
        r"\\\1(\2^{\3})",
        r"(\\\1 \2)^{\3}",
    ),
)
# "3x2 - 4": a superscript lost in copying (3x²), or 3·x·2
_LOST_SUPERSCRIPT = re.compile(r"(?<![\w.^_{\\])(\d*)([a-df-z])(\d)(?![\d.])")  # not 3e8


def _plain_text_readings(answer: str) -> tuple[str, str] | None:
    """The answer as read, and as its writer may have meant it, where plain text leaves
    the extent of a root, a function or an exponent open; None where it does not."""
    for pattern, read, meant in _PLAIN_TEXT_READINGS:
        if pattern.search(answer):
            return pattern.sub(read, answer, count=1), pattern.sub(meant, answer, count=1)
    if "^" not in answer and "\\" not in answer and _LOST_SUPERSCRIPT.search(answer):
        return answer, _LOST_SUPERSCRIPT.sub(r"\1\2^{\3}", answer, count=1)
    return None


def _is_value(text: str) -> bool:
    """A number in any notation (no variables): where "as a decimal" or "as a fraction" applies."""
    return not _VARIABLE.search(_COMMANDS.sub("", text))


@lru_cache(maxsize=4096)
def notation(text: str) -> str:
    """The notation an answer is written in ("fraction", "decimal", "interval", …); cached,
    as a run asks it of each gold once per output."""
    text = text.strip().strip("$").strip()
    return next((name for name, pattern in _NOTATIONS if pattern.search(text)), "plain")


def less_simplified(gold: str, answer: str) -> bool:
    """True when the answer keeps a radical with a square factor that the gold resolved,
    leaves like radicals uncombined, leaves a fraction unreduced, or writes as a fraction what
    the gold writes without one."""
    for match in _FRACTION_PARTS.finditer(answer):
        numerator, denominator = (g for g in match.groups() if g is not None)
        if gcd(int(numerator), int(denominator)) > 1:
            return True  # "\frac{15}{90}" for "\frac{1}{6}"
    for fraction in _FRACTION_COMMAND.finditer(answer):
        numerator = braced_argument(answer, fraction.end())
        denominator = braced_argument(answer, numerator[1]) if numerator else None
        if denominator and common_factor_left(numerator[0], denominator[0]):
            return True  # "\frac{(x-2)^2}{(x-2)(x+2)}" for "\frac{x-2}{x+2}"
        if numerator and letter_cancels(numerator[0]):
            return True  # "\frac{(x+1) - x}{(x+1)^2}": the numerator is 1
    for coefficient, denominator in _RADICAL_FRACTION.findall(answer):
        if gcd(int(coefficient), int(denominator)) > 1:
            return True  # "\frac{5\sqrt{10}}{10}" for "\frac{\sqrt{10}}{2}"
    reducible = any(_has_square_factor(int(n)) for n in _RADICAND.findall(answer))
    if reducible and not any(_has_square_factor(int(n)) for n in _RADICAND.findall(gold)):
        return True
    if _root_in_denominator(answer) and not _root_in_denominator(gold):
        return True  # "\frac{\sqrt{3}}{\sqrt{2}}" where rationalising was the task
    radicals = _RADICAND.findall(answer)
    if len(radicals) != len(set(radicals)) and len(_RADICAND.findall(gold)) < len(radicals):
        return True  # "\sqrt{2} + 4\sqrt{2}" for "5\sqrt{2}"
    return notation(answer) == "fraction" and notation(gold) in ("plain", "radical")


def _restates_expression(gold: str, answer: str, problem: str) -> bool:
    """A number asked for, answered with the expression the problem gives ("Evaluate
    $\\log_3 81$." … "$\\boxed{\\log_3 81}$"): equal in value, but nothing was worked out."""
    if not _is_value(gold) or not _OPERATION.search(answer):
        return False
    written = _SPACING.sub("", answer)
    return len(written) >= _LEAST_RESTATED and written in _SPACING.sub("", problem)


# Numbers joined by the four operations and nothing else: "7 \\times 12 - 19", "(3 + 4) \\cdot 5".
_ARITHMETIC = re.compile(
    r"\(?-?\d+(?:\.\d+)?\)?(?:\s*(?:[-+*×÷−]|\\times|\\cdot|\\div)\s*\(?-?\d+(?:\.\d+)?\)?)+"
)


def _arithmetic_left_undone(gold: str, answer: str) -> bool:
    """A number asked for, answered with the sum that gives it ("7 × 12 − 19" for 65): equal
    in value, but the last step was never taken, and a grader may want the number."""
    return bool(_NUMBER.fullmatch(gold.strip().strip("$"))) and bool(
        _ARITHMETIC.fullmatch(answer.strip().strip("$").strip())
    )


def _root_in_denominator(text: str) -> bool:
    """A root in a denominator: "\\frac{\\sqrt{3}}{\\sqrt{2}}", "\\frac{1}{2 + \\sqrt{3}}", "3/\\sqrt{6}"."""
    if _SLASH_ROOT.search(text):
        return True
    for match in _FRAC.finditer(text):
        numerator_end = _group_end(text, match.end())
        if numerator_end < 0 or text[numerator_end : numerator_end + 1] != "{":
            continue
        denominator_end = _group_end(text, numerator_end)
        if "\\sqrt" in text[numerator_end:denominator_end]:
            return True
    return False


def _group_end(text: str, start: int) -> int:
    """Where the braced group opening at ``start`` ends (just past its "}"), or -1."""
    depth = 0
    for index in range(start, min(len(text), start + 400)):
        depth += (text[index] == "{") - (text[index] == "}")
        if depth == 0:
            return index + 1
    return -1


def _gold_in_the_larger_unit(gold: str, units: str) -> bool:
    """The gold names the larger unit of a two-unit answer ("6.5 \\text{ ft}" for "6 ft 6 in"),
    so the answer's reading in that unit is the gold's own."""
    larger = unit_named(units.split()[0]) if units.split() else None
    return larger is not None and stated_unit(gold) == larger


def _unnormalised_scientific(answer: str) -> bool:
    """A power of ten whose coefficient is not between 1 and 10 ("45 \\times 10^{-5}")."""
    match = _SCIENTIFIC_COEFFICIENT.match(answer)
    if match is None:
        return False
    coefficient = float(match.group(1) or match.group(2))
    return not 1 <= coefficient < 10


def _has_square_factor(n: int) -> bool:
    return n < 10**6 and any(n % (k * k) == 0 for k in range(2, int(n**0.5) + 1))
