"""From a stated answer as written to the expression it states.

A candidate's text is what the output says after "the answer is" or inside a box: it may
carry delimiters, a currency sign, units, a clause ("$8, which is about $0.67 a pen"), an
approximation (``2\\pi \\approx 6.28``), a hedge ("either 3 or 5", ``\\pm 4``), a head
(``f^{-1}(y) =``) or words. ``read_answer`` separates them, so the equivalence check compares
values and the jury can still see what was said around them. Regular expressions only.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

from grading.candidates.cues import AND_OR_WORDS, BOLD_VALUE, OR_WORDS
from grading.equivalence.rewrite import (
    LATEX_SPACE,
    angle_words,
    chinese_numerals,
    clock_words,
    foreign_number_word,
    fraction_words,
    latex_layout,
    number_words,
    plain_markup,
    plain_pi,
    scale_words,
    solution_set_notation,
    unicode_to_latex,
    words_to_number,
)
from grading.units import DOLLARS_AND_CENTS, unit_named

MAX_ANSWER_CHARS = 400

_DELIMITERS = re.compile(r"^(?:\$\$|\$|\\\(|\\\[)\s*(.*?)\s*(?:\$\$|\$|\\\)|\\\])$", re.DOTALL)
_WRAPPER = re.compile(r"^\\(?:boxed|fbox|textbf|mathbf|text|textrm|mbox)\s*\{(.*)\}$", re.DOTALL)
# A factorial at the end of mathematics: "$6!$", "\\boxed{5!}".
_BOXED_FACTORIAL = re.compile(r"[\d)}]!\s*$")
_MATH_FACTORIAL = re.compile(r"[\d)}]!\s*(?:\$|\\\)|\\\]|\})\s*[.,;]?\s*$")
# The value of a JSON field, as a marker reads it: a string, or a number before the brackets
# that close the object.
_JSON_VALUE = re.compile(r'^\s*(?:"([^"\n]*)"|(-?\d[\d.,/]*))\s*[,}\]]*\s*$')
_TRAILING = re.compile(r"[\s.,;:!?。]+$")
_LEADING = re.compile(r"^[\s:*#>]+")
_CLAUSE = re.compile(
    r",\s*(?:which|since|because|so|as|and\s+so|that|for|per|or\s+about|about|if|unless"
    r"|assuming)\b|,?\s+(?:because|since|which|per\s+\w+|depending\s+on)\b"
    r"|;\s(?!\s*\$?[a-z]\s*=)(?![^\[\]]*\])"  # not "x = 3; y = -2" nor "[0 -1; 1 0]", lists
    r"|\s\(\s*(?:since|because|which|i\.e\.|(?:or\s+)?(?:about|approximately|roughly)\b|≈|\\approx)"
    r"|\s[—–]\s",
    re.IGNORECASE,
)
# "-3 < x < 2, \\quad \\text{i.e. } x \\in (-3, 2)", "205 minutes, i.e. 3 hours 25 minutes": the
# same answer said again, which the reading leaves out.
_RESTATED = re.compile(
    rf"(?:,|\s*\\q?quad)(?:\s|\\q?quad|{LATEX_SPACE})*(?:\\text\s*\{{\s*)?(?:i\.e\.|that is,|in other words,).*$",
    re.DOTALL,
)
_APPROX = re.compile(r"\\approx|≈|\\simeq|\\sim(?![a-z])|\bapproximately\b|\babout\b|\broughly\b")
_LONE_VARIABLE = re.compile(r"[A-Za-z](?:_\{?\w+\}?)?")
_VARIABLE_TUPLE = re.compile(r"\(\s*[A-Za-z](?:\s*,\s*[A-Za-z])+\s*\)")  # "(x, y)"
# A closing restriction on where the answer holds: ", x \neq 2", "(for x ≠ 1)",
# "\text{ for } x \neq 0".
_RESTRICTION = re.compile(
    r"(?:\s*,|\s*\\q?quad|\s*\\[,;:! ]|\s)+\(?\s*(?:\\text\s*\{\s*(?:for|where|when|if)\s*\}|for|where"
    r"|when|if)?\s*[a-z]\s*(?:\\neq?(?![a-z])|≠|!=)\s*[^,()$]{1,20}?\)?[\s.$]*$"
)
_CONDITION = re.compile(r"^\s*$|^\s*\{|[<>≤≥|]|\\(?:[lg]eq?|in|mid|mathbb|\{)(?![a-z])")
_NEGATIVE_WORD = re.compile(r"\b(?:negative|minus)\s+(?=\d)", re.IGNORECASE)
# A number with its scale written out by ``scale_words``: "2.5\times 10^{6}".
_SCALED_NUMBER = re.compile(r"-?\d+(?:\.\d+)?\\times 10\^\{\d+\}")
_VARIABLE_APPROX = re.compile(r"(?<![A-Za-z\\])([A-Za-z])(?:_\{?\d\}?)?\s*(?:\\approx|≈)\s*")
# A number as programmers write it in base 16, 2 or 8: "0xFF" is FF_{16}
_BASE_LITERAL = re.compile(r"(?<![\w.])0(?:x([0-9A-Fa-f]+)|b([01]+)|o([0-7]+))(?![\w.])")
# "4 degrees below zero" is -4
_BELOW_ZERO = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:degrees?|°|grad|grados|degrés|градус\w*)?\s*(?:[CF]\s+)?"
    r"(?:below zero|bajo cero|unter null|sous zéro|ниже нуля)",
    re.IGNORECASE,
)
# A short label before the value: "Balance: $1,909.62", "Total cost: 36".
# "Answer: 12", "Solución: x = 3; y = -2", "Lösungsmenge: {2; 3}": a label in any language
_LEADING_LABEL = re.compile(
    r"^[^\W\d_][^\W\d_]*(?:\s+[^\W\d_]+){0,3}\s*:\s+(?=[-−$\\\d(√\[{]|[a-z]\s*=)"
)
# All a sentence keeps before "about" or "≈" once read down: a verb or a label ("covers",
# "Circumference"), which leads to the value rather than being it.
_LEAD_WORDS = re.compile(r"[A-Za-z][a-z]+(?:['’](?:s|re))?(?:\s+[a-z]{2,})?")
_APPROX_WORDS = (
    r"approximately|about|roughly|around|nearly|almost|etwa|ungefähr|environ|aproximadamente"
    r"|cerca de|circa|около|примерно|大约|约|約"
)
_LEADING_APPROX = re.compile(rf"^(?:{_APPROX_WORDS}|≈|\\approx)\s*", re.I)
# "The vertex is at (2, -3)", "has length √5", "equals 12": words of the sentence before the
# value (not a function, a negation, a sign or a comparison, which are part of it).
_LEADING_WORD = re.compile(
    r"^(?:(?!(?i:sin|cos|tan|cot|sec|csc|log|ln|exp|det|lim|max|min|gcd|lcm|mod|arc[a-z]*"
    r"|not|no|never|nor|neither|or|and|minus|plus|times|over|negative|positive|less|more"
    r"|than|except|only|about|approximately|roughly|around|nearly|almost)\b)"
    # "it's 1/2", "they're 12"; "Restano 500 ml" (Italian: "there remain"), before a number
    r"(?:[a-zà-öø-ÿ]{2,}(?:['’](?:s|re))?\s+|[A-Z][a-zà-öø-ÿ]+\s+(?=[-−\d]))){1,2}"
    r"(?=[-−(\[$\\\d√])"
)
# A sentence that opens on its subject, then one or two words of its verb: "Pedro walked 2 1/3
# miles", "The factory produces 30,000 widgets", "You will need 7 1/2 cups", "Angle P measures
# 45°".
_NAME_AND_VERB = re.compile(
    r"^(?:[A-Z][a-z]+|(?i:the|a|an|this|that|you|we|he|she|it|they|i)(?:['’](?:d|ll|re|ve|s))?"
    r"(?:\s+[a-z]+)?)"
    r"(?:\s+\$?[A-Z]{1,3}\$?)?\s+"  # "Angle $P$ measures 45 degrees", "Side AB is 7 cm"
    r"(?=(?:[a-z]{2,}\s+){1,2}[-−(\[$\\\d√])"
)
_WORDS_THEN_NUMBER = re.compile(r"[^\W\d_]{2,}\W+.*\d")
_HEDGE_SPLIT = re.compile(
    r"\s*(?:\\text\{\s*or\s*\}|\bor\b|\bou\b|\boder\b|\bo\b|\bили\b|または|또는|หรือ|或者?"
    r"|\sया\s|\sأو\s|\bhoặc\b|\bveya\b|\batau\b)\s*",
    re.IGNORECASE,
)
_INEQUALITY = re.compile(r"[<>≤≥]|\\[lg]eq?(?:slant)?(?![A-Za-z])")
_EITHER = re.compile(r"^\s*(?:either|soit|entweder|o bien)\s+", re.IGNORECASE)
_PLUS_MINUS = re.compile(r"\\pm(?![a-z])|±|\\mp(?![a-z])|∓")  # not \pmod
_MOST_SIGNS = 3
_BOUND = re.compile(r"^[a-z]\s*(?:[<>≤≥]|\\[lg]eq?(?![A-Za-z])|\\neq?(?![A-Za-z]))")
_SIGNED_LIST = re.compile(
    r"(?:[A-Za-z]\s*=\s*)?((?:\\pm|±)\s*[^,±\\]+(?:\s*,\s*(?:\\pm|±)\s*[^,±\\]+)+)"
)
# Coordinates in a basis: "[\mathbf{v}]_{\mathcal{B}}".
_COORDINATES = r"\[[^\[\]=$]{1,30}\]_(?:\{(?:[^{}=]|\{[^{}]*\}){1,30}\}|\w)"
# The name of a point before its coordinates; not P(n, k) or C(n, k), which count.
_POINT_NAME = re.compile(
    r"(?<![\w\\])[ABD-OQ-Z](?:_\{?\d{1,2}\}?|\d|')?\s*(?=\(\s*[-−]?[\d\\][^,()]*,)"
)
# A name: a letter (Latin or Greek, "ρ = 2.70") with an index ("a_n", "aₙ"), or a vector's
# decorated letter ("\mathbf{u}_2", "\hat{\mathbf{v}}").
_NAME = (
    r"(?:[A-Za-zα-ωΑ-Ω]|\\(?:mathbf|vec|hat|bar|tilde|boldsymbol|overrightarrow)\s*"
    r"\{(?:[^{}]|\{[^{}]*\})*\})(?:_\{?\w+\}?|[ₐ-ₜ₀-₉]+)?"
)
_HEAD = re.compile(
    rf"^\s*((?:{_NAME}(?:\^\{{?-1\}}?)?(?:'|\\prime)*\s*\(\s*(?:([A-Za-z])|-?\d+)\s*\))"
    rf"|{_NAME}(?:'|\\prime)*|\d+[A-Z]|\\[A-Za-z]+|{_COORDINATES})\s*(?:=|\\in(?![a-z])|∈)\s*(?=\S)"
)
# "x \\mapsto x + 2": a function given as a map states its value.
_MAPS_TO = re.compile(r"^\s*[A-Za-z]\s*(?:\\mapsto|↦)\s*(?=\S)")
_WORD_HEAD = re.compile(
    r"^\s*(?:\\text\{)?(?:[A-Za-z]{2,}[A-Za-z ]{0,30}|[\u3040-\u30ff\u4e00-\u9fff]{1,12})(?:\})?"
    r"\s*=\s*(?=\S)"
)
# "all x > -2", "all real x with x \\leq 3": the set the relation after it describes.
_ALL_SUCH = re.compile(
    r"^(?:all|every|any)\s+(?:real\s+)?(?:numbers?\s+)?(?:[a-z]\s+(?:with|such that|where)\s+)?"
    r"(?=\$?[a-z]\s*(?:[<>≤≥]|\\[lg]eq?))",
    re.IGNORECASE,
)
# Words of a Chinese or Japanese sentence before its value ("共有 3 亿人", "合計 12 個").
_LEADING_CJK = re.compile(r"^[\u3040-\u30ff\u4e00-\u9fff]{1,8}\s*(?=[-−\d$\\(])")
# An escaped dollar ("$\\$403.2$") is a currency sign inside the span, not its end.
_MATH_SPAN = re.compile(
    r"\$\$(.+?)\$\$|(?<!\\)\$((?:\\\$|.)+?)(?<!\\)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL
)
_NUMBER = re.compile(r"[-−]?\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?(?:\s*\\%|\s*%)?")
# The unit may be a rate: "8\ \text{L}/100\ \text{km}".
_UNIT_TEXT = re.compile(
    r"\s*\\(?:text|mathrm|mbox|textrm|textnormal)\s*\{\s*([^{}]*)\}(\^\{?[23]\}?)?"
    rf"(\s*/\s*\d*(?:{LATEX_SPACE}|\s)*\\(?:text|mathrm)\s*\{{[^{{}}]*\}})?\s*$"
)
# Words after a number are its unit; a lone letter is a unit only after a space and when it
# is not one a formula would use (``4i``, ``2x``).
_TRAILING_WORDS = re.compile(
    r"(?:(?<=[\d}%)])|(?<=\\pi))\s*((?:[^\W\d_]{2,}(?:[^\W\d_]|[/.²³]|-(?=[^\W\d_]))*"
    r"(?:\^\{?[23]\}?)?"
    r"(?:/[^\W\d_]+)?\s*){1,6}"  # "188.5 cm^{2}/s", "56 different three-topping pizzas"
    r"|(?<=\s)[mgsLlhKJNWVACTMF](?:/[a-z]+)?(?:\^\{?[23]\}?)?)$"
)
# One-letter SI units (joule, newton, watt, volt, ampere, coulomb, tesla, molar, farad).
_SI_LETTERS = frozenset("JNWVACTMF")
# A one-letter unit after a number, then words: "1.5 m long", "3 s later".
_UNIT_THEN_WORDS = re.compile(r"(?<=\d)\s+([A-Za-z])(?:\s+[A-Za-z]{2,}){1,3}\s*$")
_CURRENCY = re.compile(
    r"\\\$|\$(?=\s*\d)(?![^$]*\$)|(?<=\d)\s*\$|(?:\\[ ,;]|~)?\s*(?:€|£|¥|₹|₩|₽|₺|₫)|USD|EUR"
    r"|\b(?:CHF|Rp|R\$|Rs)\.?\s*(?=\d)"  # francs, rupiah, reais, rupees before the amount
)
# Words in any script; runs of CJK characters are words without spaces.
_PROSE_WORDS = re.compile(r"[^\W\d_]{2,}(?:\s+[^\W\d_]{2,})+|[\u3040-\u30ff\u4e00-\u9fff]{3,}")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_UNIT_LIST = re.compile(
    r"\s*-?\d[\d.]*\s*[A-Za-z]{2,12}(?:\s*(?:,|and)\s*-?\d[\d.]*\s*[A-Za-z]{2,12})+\s*"
)
_WORD = re.compile(r"[A-Za-z]+")
# How many words outside a bold value make the rest a sentence.
_SENTENCE_WORDS = 4
# An answer whose bold opened before the candidate did: its value, then "**" and a clause.
_EMPHASIS_CLOSED = re.compile(r"([^*$]{0,40}?\d[^*$]{0,40}?)\*\*\s*[,;:—–]\s*\S")
_OFFERS_ANOTHER = re.compile(r"\b(?:or|either|oder|ou)\b", re.IGNORECASE)
# "37 500", "1 250 000", "12\,500": digits in groups of three separated by spaces.
_SPACED_THOUSANDS = re.compile(
    r"(?<![\d.,])\d{1,3}(?:(?:[  \u2009\u202f'’]|\\,|\\ )\d{3})+(?![\d.]\d)"  # 23'000 in CH
)
# "1 h 15 min", "3 Stunden und 35 Minuten", "2 horas y 30 minutos", "1時間20分", "2小时15分钟".
HOUR_WORDS = (
    r"h|hours?|hrs?|stunden?|std\.?|horas?|heures?|ore|ora|часа?|часов|ч|時間|小时|小時|시간|giờ"
)
MINUTE_WORDS = r"min|minutes?|minuten?|minutos?|minuti|минут[аы]?|мин|分钟|分鐘|分|분|phút"
SECOND_WORDS = r"s|sec|seconds?|sekunden?|segundos?|secondes?|secondi|секунд[аы]?|сек|秒|초|giây"
_COMPOUND_TIME = re.compile(
    rf"(\d+)\s*({HOUR_WORDS}|{MINUTE_WORDS})(?![A-Za-zА-Яа-яäöüé])\s*,?\s*"
    r"(?:(?:and|und|y|e|et|и)\s+)?"
    rf"(\d+)\s*({MINUTE_WORDS}|{SECOND_WORDS})(?![A-Za-zА-Яа-яäöüé])",
    re.IGNORECASE,
)
_FEET_AND_INCHES = re.compile(
    r"(\d+)\s*(ft|feet|foot)\.?\s*,?\s*(?:and\s+)?(\d+(?:\.\d+)?)\s*(in|inch|inches)\b\.?", re.I
)
_POUNDS_AND_OUNCES = re.compile(
    r"(\d+)\s*(lbs?|pounds?)\.?\s*,?\s*(?:and\s+)?(\d+(?:\.\d+)?)\s*(oz|ounces?)\b\.?", re.I
)
# ", or about $13.33" after an answer, unless a rate follows ("or about $0.67 a pen").
_OR_ABOUT = re.compile(
    r",\s*or\s+(?:about|approximately|roughly)\s+\\?\$?\s*(-?\d+(?:\.\d+)?)(?!\S*\s+(?:a|an|per|each)\b)"
    # or after a dash: "3 — or 2 if we only count nonzero remainders"
    r"|\s[—–]\s*or\s+(?:possibly\s+|maybe\s+)?\\?\$?\s*(-?\d+(?:\.\d+)?)(?![\d.])"
)
_ROUNDING_GAP = 0.05
_YUAN_AND_JIAO = re.compile(r"(\d+)\s*元\s*(\d)\s*角")
_LATEX_GROUP = re.compile(r"\\(?:begin|end|text|mathrm|operatorname)\s*\{[^{}]*\}|\\[A-Za-z]+")
_SENTENCE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}(?![A-Za-z])")
_SENTENCE_WORDS_SEEN = 3
# A word of Cyrillic, Arabic, an Indic script, Thai or Hangul, where a unit may repeat ("96
# रुपये या 896 रुपये"), so only different words count.
_SCRIPT_WORD = re.compile(
    r"[\u0400-\u04ff\u0600-\u06ff\u0900-\u0dff\u0e00-\u0e7f\uac00-\ud7af]{2,}"
)
# The result keeps a constant written after its number ("= 28\\pi square units").
_EQUATION_RESULT = re.compile(
    r"=\s*(-?\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?(?:\s*\\(?:pi|sqrt\s*\{\d+\}))?)(?![\d=]*=)(?!.*=)", re.S
)
_LEADING_COUNT = re.compile(
    r"^\s*(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*(?!(?:or|and|ou|et|oder|und)\b)[^\W\d_]{2,}"
)
_UNESCAPED_DOLLAR = re.compile(r"(?<!\\)\$(?!\s*\d)")
_OPENS_SPAN = re.compile(r"(?<!\\)\$|\\[(\[]")
# Copulas of Chinese and Japanese, and of the European languages whose "is" and "are" the
# sentence patterns do not read ("1250 g sind 1,250 kg", "el total es 45").
_COPULA = re.compile(
    r"[是为為]|(?<=[\u3040-\u30ff\u4e00-\u9fff])(?<!また)は|\s(?:sind|ist|son|es|sont|est|são|é"
    r"|beträgt|ergibt|cuestan?|custam?|coûtent?|составляет|равн[оаы])\s"
)
_CJK_UNIT = re.compile(r"(?<=[\d}])\s*([\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]{1,4})$")
_OR_NUMBER = re.compile(
    r"(?:,\s*|\s)(?:or|ou|oder|o|или|또는|หรือ|或者?)\s+(?:maybe\s+|possibly\s+|perhaps\s+)?(-?\d+(?:\.\d+)?)\b"
)
_OR_WORD = re.compile(rf"\b(?:{OR_WORDS})\b")
_SPAN_LIST = re.compile(rf"\x00(?:\s*(?:[,;]\s*(?:{AND_OR_WORDS})?|{AND_OR_WORDS})\s*\x00)+")
# "$1$ (multiplicity 2)", "x = 2 (double root)": the value, and how often it counts.
_WITH_MULTIPLICITY = re.compile(
    r"\$?((?:[A-Za-z]\s*=\s*)?-?(?!\\text)[\w.{}\\]+(?<!\{))\$?\s*\(\s*(?:with\s+|a\s+)?(?:algebraic\s+)?"
    r"(?:multiplicity\s+([1-4]|two|three|four)|(double|triple|repeated)(?:\s+(?:root|zero|solution))?)"
    r"\s*\)"
)
_TIMES_COUNTED = {"two": 2, "three": 3, "four": 4, "double": 2, "repeated": 2, "triple": 3}
# "x**3 + 1", "2**10": Python's power, where the stars sit between an operand and an exponent;
# other stars are Markdown's bold ("-3**i** + 6**j**" sets the unit vectors in bold).
_PYTHON_POWER = re.compile(r"(?<=[\w)\]])\*\*(?=[\w(.-])(?![^*\s]{1,40}\*\*)")
_RELATION_SIGN = r"(?:<|>|\\[lg]eq?(?![A-Za-z])|\\[lg]eqslant|\\neq?(?![A-Za-z]))"
# One variable bounded in a sentence: "x \\leq 3", "-2 < x < 5".
_PROSE_RELATION = re.compile(
    rf"(?:-?\d+(?:\.\d+)?\s*{_RELATION_SIGN}\s*)?(?<![A-Za-z\\])[a-z]\s*{_RELATION_SIGN}\s*-?\d+(?:\.\d+)?"
)
_PERCENT_WORD = re.compile(
    r"per\s?cent|percentage points?|pour\s?cent|por\s?ciento|por\s?cento|prozent|процент(?:а|ов)?",
    re.IGNORECASE,
)
# A remark in brackets after the answer, in words of any alphabet ("(only n = 3)", "(достигается
# при $x = 3$)", "（税込みでは1814円）"), and
# the number before it that makes it a remark on an answer.
_ASIDE_IN_BRACKETS = re.compile(
    r"\s*[(（](?=(?:\\[()]|[^()（）])*(?:(?<![\\A-Za-z])[^\W\d_]{3,}|[\u3040-\u30ff\u4e00-\u9fff]))"
    r"((?:\\[()]|[^()（）]){2,120})[)）]\s*[.。]?\s*$"
)
_NUMBER_BEFORE = re.compile(r"\d")
# Two bounds on one variable joined by "and", as SymPy prints them: "(1 <= x) & (x <= 4)".
_LESS_THAN = r"(<=|<|\\leq?(?![A-Za-z])|≤)"
_BOUNDS_JOINED = re.compile(
    rf"^\(?\s*([^()&<]+?)\s*{_LESS_THAN}\s*([A-Za-z])\s*\)?\s*(?:{LATEX_SPACE}\s*)*"
    rf"(?:\\&|&|\\land|\\wedge)\s*(?:{LATEX_SPACE}\s*)*\(?\s*\3\s*{_LESS_THAN}\s*([^()&<]+?)\s*\)?$"
)
_PROBABILITY_OF = re.compile(r"\s*(?:P|Pr|\\Pr|E|\\mathbb\{[PE]\})\s*(?:\(|\[|\\left[(\[])")
_CONSTANT_COMMAND = re.compile(r"\\(?:pi|sqrt|[dt]?frac|cdot|times|left|right|div)(?![A-Za-z])|π")
_PLAIN_NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?")
_BRACKETED_NUMBER = re.compile(r"\s*\(\s*(?:\\?\$)?\s*(\d+)\s*\)\s*\.?\s*$")
# A range given as the answer: "380–400" (an en or em dash, not a minus), "about 380 to 400".
_VALUE_RANGE = re.compile(
    r"(?<![\d.,])(\d+(?:\.\d+)?)\s*[–—]\s*(\d+(?:\.\d+)?)(?![\d.])"
    r"|\b(?:about|approximately|roughly|around)\s+\$?(\d+(?:\.\d+)?)\s+to\s+\$?"
    r"(\d+(?:\.\d+)?)(?![\d.])"
)
# What a percent is of: "15% of 80", "91% of its original value".
_PERCENT_OF = re.compile(r"(?<=%)\s+of\s+\S.*$")
_PERCENT_OF_NUMBER = re.compile(r"(\d+(?:\.\d+)?)\s*\\?%\s+of\s+\$?(\d+(?:\.\d+)?)(?![\d.])")
# A count of a total: "3 out of 5", "1 in 6 chance", "1 in 1,000"; "a 50-50 chance" is 1 in 2.
_ODDS = re.compile(
    r"(?:\ban?\s+)?(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)\s+(?:out\s+of|in)\s+(\d{1,3}(?:,\d{3})+|\d+)"
    r"(?:\s+(?:chances?|odds)(?:\s+(?:of|that)\s[^\d]*)?)?\s*[.!]?\s*$"
    r"|(?:\ban?\s+)?(?<![\d.,])(?:50[-–/]50|fifty[-\s]fifty)(?:\s+(?:chances?|shot|odds))?\s*[.!]?\s*$",
    re.IGNORECASE,
)
# The period or count a value is for, after it: "in 2 weeks", "over 3 days", "after 3 years",
# "an hour".
_QUALIFIER = re.compile(
    r"(?<=[\d%}A-Za-z])\s+(?:(?:in|over|for|during|within|after|across|every|each)\s+"
    r"(?:\d[\d.,]*|an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+[A-Za-z]{3,}"
    r"|an?\s+[A-Za-z]{3,})\s*$"
)
# "x = 2 (or x = 0)", "x = 4 (and also x = -1 if …)": a second answer offered in parentheses,
# as an afterthought (its condition already cut off the sentence, with the bracket).
_PARENTHESISED_ALTERNATIVE = re.compile(
    r"\s*[(（]\s*(?:(?:or|and\s+also|also|ou|oder|o|oppure|или|либо|hoặc|veya|atau)\s+"
    r"|(?:または|또는|或者?|还是)\s*)((?:\\[()]|[^()（）]){1,80})(?:[)）]|$)\s*[.。]?\s*$",
    re.IGNORECASE,
)
_SEVERAL_ASSIGNMENTS = re.compile(
    rf"(?:,|;|\\text\{{\s*(?:and|or)\s*\}}|\band\b|\bor\b)(?:\s|{LATEX_SPACE}|\\q?quad)*"
    r"\\?[A-Za-z]\w*(?:_\{?\w+\}?)?\s*="
)


# What lists several answers rather than chaining one ("x = 2 or x = 5", "a = 1, b = 2").
_LISTED = re.compile(
    r"[;,](?!\d{3})|\b(?:or|and|und|et|oder|y|или|и)\b|\\text|\\quad|[\u4e00-\u9fff]"
)
_ORDER_SIGN = r"(?:<|>|≤|≥|\\[lg]eq?(?![A-Za-z]))"
# A function bounded on both sides ("-5 \\le f(x) \\le -1"), with the signs around it.
_BOUNDED_FUNCTION = re.compile(rf"({_ORDER_SIGN}\s*)[A-Za-z]\s*\(\s*[a-z]\s*\)(\s*{_ORDER_SIGN})")
# A chain of equal sides that ends on a number, maybe with a unit: its sides, then its result.
_CHAIN_RESULT = re.compile(
    r"([^=<>]+(?:=[^=<>]+)*?)\s*=\s*([-−]?\d[\d,]*(?:\.\d+)?(?:\s*\\?%|\s*[A-Za-z][A-Za-z/^{}\d²³]*)?)\s*"
)


@dataclass(frozen=True)
class StatedAnswer:
    """What a stated answer says, taken apart."""

    expression: str  # the answer to compare with the gold, as LaTeX
    raw: str = ""  # the candidate's text as written
    approximation: str = ""  # the value after ≈, when the answer gives one
    alternatives: tuple[str, ...] = ()  # "either 3 or 5": each option, when it hedges
    head: str = ""  # "f^{-1}(y)", "y", "x": what the answer says it is the value of
    head_variable: str = ""  # the argument a function head declares ("y" in f^{-1}(y))
    units: str = ""  # words or \\text{} after the number ("cm", "apples left")
    compound: bool = False  # "1 h 15 min", read as 1.25 (hours): one quantity in two units
    # "x = 2 (or x = 0)": the alternative is offered as an afterthought, so even where both
    # values are right the output never plainly committed to them.
    afterthought: bool = False
    # "approximately 15", "about 3 hours": the output's own words say the value is not exact.
    approximate: bool = False

    @property
    def hedged(self) -> bool:
        return len(self.alternatives) > 1


# "all real numbers except $x = \pm 2$": the reals without the values named.
_ALL_REALS_EXCEPT = re.compile(
    r"all\s+real(?:\s+numbers|s)?\s+(?:except|but|other\s+than)\s+(?:for\s+)?(?:when\s+)?(.+)",
    re.IGNORECASE,
)
_EXCLUDED_VALUE = re.compile(r"^\$?\s*(?:[a-z]\s*(?:=|\\neq?)\s*)?(.+?)\s*\$?$")


# A bound said in words, in the languages outputs are written in; non-strict ones first.
_RELATION_WORDS = (
    (
        "\\geq",
        r"(?:greater|more|larger) than or equal to|at least|no less than|größer oder gleich"
        r"|mindestens|supérieurs? ou égale?s? à|mayor(?:es)? o igual (?:que|a)"
        r"|maior(?:es)? ou igua(?:l|is) a|не меньше|больше или равн\w*",
    ),
    (
        "\\leq",
        r"(?:less|smaller|fewer) than or equal to|at most|no (?:more|greater) than"
        r"|kleiner oder gleich|höchstens|inférieurs? ou égale?s? à|menor(?:es)? o igual (?:que|a)"
        r"|menor(?:es)? ou igua(?:l|is) a|не больше|не превосходящ\w*|меньше или равн\w*",
    ),
    (
        ">",
        r"(?:greater|more|larger) than|größer als|strictement supérieure?s? à"
        r"|mayor(?:es)? que|maior(?:es)? (?:do )?que|больше",
    ),
    (
        "<",
        r"(?:less|smaller|fewer) than|kleiner als|strictement inférieure?s? à"
        r"|menor(?:es)? que|menor(?:es)? (?:do )?que|меньше",
    ),
)
_RELATION_WORD = re.compile(
    "|".join(f"(?P<r{index}>{words})" for index, (_, words) in enumerate(_RELATION_WORDS)),
    re.IGNORECASE,
)
_RELATION_HINTS = ("than", "least", "most", "als", "gleich", "mindestens", "höchstens", " à")
_RELATION_HINTS += ("que", "igua", "больш", "меньш", "превосход")
# "x ist größer als 4", "tous les réels $x$ strictement inférieurs à 5": the variable, then
# the bound (at most a few words apart)
_BOUND_IN_WORDS = re.compile(
    # a variable in a math span, or a lone letter that is not the article "a" or "I"
    r"(?:\$([a-z])\$|(?<![A-Za-z\\])([b-hj-z])(?![A-Za-z]))[^<>\d\n$]{0,40}?"
    r"\x00(\d)\x00\s*(-?\d+(?:[.,]\d+)?)"
)


# "x is non-negative": a bound by zero in one word.
_SIGN_WORD = re.compile(r"\b(non-?negative|non-?positive|positive|negative)\b", re.IGNORECASE)
_SIGN_BOUNDS = {
    "nonnegative": "at least 0",
    "nonpositive": "at most 0",
    "positive": "greater than 0",
    "negative": "less than 0",
}


def bound_in_words(text: str) -> str:
    """``x < 5`` for "all real x strictly less than 5", "x ist größer als 4", "x is
    non-negative" and the like: a sentence that bounds the variable in words states an
    inequality ("" when it does not)."""
    if "tive" in text:
        text = _SIGN_WORD.sub(lambda m: _SIGN_BOUNDS[m.group(1).lower().replace("-", "")], text)
    if not any(hint in text for hint in _RELATION_HINTS):
        return ""
    marked = _RELATION_WORD.sub(lambda m: f"\x00{m.lastgroup[1:]}\x00", text)
    bound = _BOUND_IN_WORDS.search(marked)
    if bound is None:
        return ""
    in_span, lone, which, number = bound.groups()
    return f"{in_span or lone} {_RELATION_WORDS[int(which)][0]} {number}"


def _reals_except(text: str) -> str:
    """``\\mathbb{R} \\setminus \\{…\\}`` for "all real numbers except x = 2 and x = -2"."""
    match = _ALL_REALS_EXCEPT.fullmatch(text.strip().rstrip("."))
    if match is None:
        return text
    restated = _RESTATED.search(match.group(1))  # ", i.e. \{y \mid y \neq 2\}" says it again
    if restated is not None and restated.start() > 0:
        return _reals_except(text[: match.start(1) + restated.start()])
    parts = re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", match.group(1).strip())
    values = []
    for part in filter(str.strip, parts):
        value = _EXCLUDED_VALUE.match(part).group(1)
        plus_minus = re.fullmatch(r"\\pm\s*(.+)", value)  # "±2" excludes -2 and 2
        values += [f"-{plus_minus.group(1)}", plus_minus.group(1)] if plus_minus else [value]
    if not values or any(re.search(r"[A-Za-z]{2,}", v.replace("\\pm", "")) for v in values):
        return text
    return f"\\mathbb{{R}} \\setminus \\{{{', '.join(values)}\\}}"


_IMPLIES = re.compile(r"\\(?:Long)?(?:Rightarrow|implies)(?![A-Za-z])|⇒|⟹")


# The evaluators, the detectors and the jury each read the same few statements of a row.
@lru_cache(maxsize=4096)
def read_answer(raw: str, *, boxed: bool = False) -> StatedAnswer:
    """Take a stated answer apart into its expression and what surrounds it; ``boxed`` says
    ``raw`` is a box's content, so all of it is mathematics ("4!" is a factorial)."""
    text = raw.strip()[:MAX_ANSWER_CHARS]
    restriction = (
        _RESTRICTION.search(text) if "neq" in text or "≠" in text or "\\ne" in text else None
    )
    if restriction is not None and not _CONDITION.search(text, 0, restriction.start()):
        # "x + 2, x \neq 2", "-1 (for x ≠ 1)": where the value holds, not the value; in a
        # domain ("x \geq 0, x \neq 9", "\{x \mid x \ne 2\}") it is part of the answer
        text = text[: restriction.start()]
    if text[:1] == "{" and text[-1:] == "}" and '"' in text:
        text = _json_answer(text) or text  # '{"solutions": [1, 6]}' states 1, 6
    if "\\Rightarrow" in text or "\\implies" in text or "⇒" in text or "⟹" in text:
        # "-5<x-3<5 \Rightarrow -2<x<8": the answer is what the steps arrive at
        text = _IMPLIES.split(text)[-1].strip() or text
    bold = BOLD_VALUE.findall(text) if "**" in text else []
    rest = BOLD_VALUE.sub("", text) if len(bold) == 1 else ""
    if len(_WORD.findall(rest)) >= _SENTENCE_WORDS and not _OFFERS_ANOTHER.search(rest):
        text = bold[0]  # "The total revenue over the two days was **$549**."
    elif len(bold) != 1 and (closed := _EMPHASIS_CLOSED.match(text)) is not None:
        text = closed.group(1)  # "30 units**, which gives a profit of $800": the bold answer
    value_range = _VALUE_RANGE.search(text)  # "about 380–400 miles": two values, no commitment
    text = _PYTHON_POWER.sub("^", plain_pi(unicode_to_latex(plain_markup(latex_layout(text)))))
    text = scale_words(text.replace("**", "").replace("{:}", ":"))
    text = _reals_except(text)
    if "(" in text:  # "F(0, 3)", "F_1(-5, 0), F_2(5, 0)": points by their names
        text = _POINT_NAME.sub("", text)
    if "(" in text:  # "(multiplicity 2)", "(double root)"
        text = _WITH_MULTIPLICITY.sub(_listed_as_often_as_it_counts, text)
    if text.endswith("\\infty") and _unclosed(text) == 1:
        text += ")"  # "(3, \infty": an interval never closes at infinity with a bracket
    if "&" in text or "\\land" in text or "\\wedge" in text:
        text = _BOUNDS_JOINED.sub(r"\1 \2 \3 \4 \5", text)  # SymPy's "(1 <= x) & (x <= 4)"
    if "0" in text:
        text = _BASE_LITERAL.sub(_base_subscript, text)
    text = _BELOW_ZERO.sub(r"-\1", text)  # "4 degrees below zero" is -4
    afterthought = _PARENTHESISED_ALTERNATIVE.search(text) if "(" in text else None
    if afterthought is not None and afterthought.start() > 0:
        first = read_answer(text[: afterthought.start()])
        other = read_answer(afterthought.group(1))
        return replace(
            first,
            raw=raw,
            alternatives=(first.expression, other.expression),
            afterthought=True,
        )
    aside = _ASIDE_IN_BRACKETS.search(text) if "(" in text or "（" in text else None
    if aside is not None and _NUMBER_BEFORE.search(text, 0, aside.start()):
        text = text[: aside.start()]  # "1 (only n = 3)", "1680円（税込みでは1814円）"
    text = _SPACED_THOUSANDS.sub(lambda m: re.sub(rf"[\s'’]|{LATEX_SPACE}", "", m.group(0)), text)
    text = foreign_number_word(_strip_wrappers(text))
    label = _LEADING_LABEL.match(text)
    if label is not None:  # what follows a label may be spans to unwrap ("Lösung: $x = 7$")
        text = _strip_wrappers(text[label.end() :])
    odds = _ODDS.search(text) if " " in text else None
    if odds is None and (" in " in text or " out of " in text):
        text = number_words(text)  # "one in six"
        odds = _ODDS.search(text)
    if odds is not None:  # "3 out of 5", "a 1 in 6 chance": a proportion
        count, total = _count_and_total(odds)
        text = f"{text[: odds.start()]}\\frac{{{count}}}{{{total}}}"
    # "about 10 of them": said before the sentence is reduced to its number
    approximate = _LEADING_APPROX.match(text) is not None
    restated = _RESTATED.search(text) if "i.e." in text or ", " in text else None
    if restated is not None and restated.start() > 0:
        text = _solved_for_the_variable(text, restated) or _strip_wrappers(text[: restated.start()])
    # "$16, or about $13.33 if …": another value, offered as an alternative
    offered = _OR_ABOUT.search(text) if "or " in text else None
    if offered is not None and offered.start() > 0:
        text = text[: offered.start()]
    if _PROSE_WORDS.search(text):  # "sixteen percent", "three-fourths", "十八人"
        text = chinese_numerals(number_words(fraction_words(angle_words(clock_words(text)))))
    if "negative" in text or "minus" in text:
        text = _NEGATIVE_WORD.sub("-", text)  # "negative four", once "4", is -4
    if "cent" in text:
        text = DOLLARS_AND_CENTS.sub(_in_dollars, text)  # "7 dollars and 50 cents" is 7.50
    again = _BRACKETED_NUMBER.search(text) if "(" in text else None
    if again is not None and again.group(1) in re.findall(r"\d+", text[: again.start()]):
        text = text[: again.start()]  # "twenty-nine dollars ($29)": the number said twice
    text = _keep_math_of_prose(text)
    text = _CURRENCY.sub("", text).strip()
    clause = _CLAUSE.search(text)
    if clause and clause.start() > 0:
        text = text[: clause.start()]
    share = _PERCENT_OF.search(text) if "%" in text else None
    if share is not None:
        text = text[: share.start()]  # "12 is 15% of 80": the percent (see percent_of)
    qualifier = _QUALIFIER.search(text) if " " in text else None
    if qualifier is not None and _NUMBER_BEFORE.search(text, 0, qualifier.start()):
        text = text[: qualifier.start()]  # "690 in 2 weeks", "12 an hour"
    # "S = \{(2, -3)\}", "\mathbb{L} = \emptyset": a solution set, by its name, is its points
    text = solution_set_notation(_TRAILING.sub("", _strip_wrappers(text)))
    factorial = _MATH_FACTORIAL.search(raw) or (boxed and _BOXED_FACTORIAL.search(raw))
    if factorial and text[-1:].isdigit():
        text += "!"  # "$6!$" ends on a factorial, not on an exclamation mark
    text = _ALL_SUCH.sub("", _LEADING_CJK.sub("", _LEADING_WORD.sub("", _without_subject(text))))
    leading_approx = _LEADING_APPROX.match(text)
    text = text[leading_approx.end() :] if leading_approx else text
    approximation = ""
    approximate = approximate or leading_approx is not None
    if len(heads := _VARIABLE_APPROX.findall(text)) > 1 and len(set(heads)) == 1:
        # "x \approx 3.236 or x \approx -1.236": each root approximated
        text, approximate = _VARIABLE_APPROX.sub("", text), True
    approx = _APPROX.search(text)
    if approx and approx.start() > 0:
        text, approximation = text[: approx.start()].strip(), text[approx.end() :].strip()
        lead_words = _LEAD_WORDS.fullmatch(text) is not None
        names = _LONE_VARIABLE.fullmatch(text) or _VARIABLE_TUPLE.fullmatch(text)
        if approximation and (lead_words or names):
            # "x \approx 3.32", "(x, y) ≈ (1.333, 0.333)", "covers about 153.94 m²" and
            # "Circumference ≈ 28.27 cm" state the approximation
            text, approximate = approximation, approximate or lead_words
    compound = _compound_quantity(text)
    if compound is not None:
        text, units = compound
    else:
        text, units = _split_units(text)
    if _PERCENT_WORD.fullmatch(units):  # "37.5 percent" is 37.5%
        text, units = f"{text}\\%", ""
    alternatives = _alternatives(text)
    if value_range is not None and not alternatives:
        alternatives = tuple(value for value in value_range.groups() if value)
    other = (offered.group(1) or offered.group(2)) if offered is not None else None
    if other is not None and not alternatives and _far_apart(text, other):
        alternatives = (text.strip(), other)
    head, variable = "", ""
    head_match = _HEAD.match(text)
    if head_match and not _is_relation_chain(text) and not _SEVERAL_ASSIGNMENTS.search(text):
        head, variable = head_match.group(1).strip(), head_match.group(2) or ""
        text = text[head_match.end() :]
    elif (word_head := _WORD_HEAD.match(text)) is not None and not _SEVERAL_ASSIGNMENTS.search(
        text
    ):
        head, text = word_head.group(0).rstrip(" ="), text[word_head.end() :]
    text = _MAPS_TO.sub("", text)
    # "-5 \le f(x) \le -1": the values f takes, a range, bounded like a variable
    text = _BOUNDED_FUNCTION.sub(r"\1y\2", text)
    chain = text.count("=") >= 2 and not _LISTED.search(text)  # not "x = 2 or x = 3"
    result = _CHAIN_RESULT.fullmatch(text) if chain else None
    if result is not None:
        # "V/R = 12/4.0 = 3.0 A", "F/m = 5.0/2.0 = 2.5 m/s^2": a formula worked out states
        # its result
        text, result_units = _split_units(result.group(2))
        units = units or result_units
    elif text.count("=") == 1 and _worked_out(*text.split("=")):
        # "\pi (5)^{2} = 25\pi", "P(\text{even} \mid 3) = \frac{2}{3}": what it works out to
        text = text.partition("=")[2]
    number = _number_phrase(text)
    if number is not None:
        text = number
    elif " and " in text and _ASSIGNMENT_LIST.fullmatch(text.strip()):
        text = _AND_BETWEEN.sub(", ", text)  # "x = -1 and y = 4" lists values as "x = -1, y = 4"
    return StatedAnswer(
        expression=text.strip(),
        raw=raw,
        approximation=approximation,
        alternatives=alternatives,
        head=head,
        head_variable=variable,
        units=units,
        compound=compound is not None,
        approximate=approximate,
    )


def _unclosed(text: str) -> int:
    """How many more brackets the text opens than it closes."""
    return text.count("(") + text.count("[") - text.count(")") - text.count("]")


def _worked_out(left: str, right: str) -> bool:
    """The left side of an equation is a value being computed, not an unknown, and the right
    side what it comes to: a probability or an expectation ("P(A \\mid B)"), or numbers and
    constants with an operation ("\\pi (5)^{2}"); not a number explained ("48 = 6 \\times 8")."""
    if not _NUMBER_BEFORE.search(right):
        return False  # "14 =": cut off before the result
    if _PROBABILITY_OF.match(left):
        return True
    constants = _CONSTANT_COMMAND.sub(" ", left)
    return (
        _NUMBER_BEFORE.search(constants) is not None
        and _WORD.search(constants) is None
        and _PLAIN_NUMBER.fullmatch(left.strip(" $")) is None
    )


def _in_dollars(match: re.Match) -> str:
    return f"{match.group(1)}.{int(match.group(2)):02d} dollars"


def _base_subscript(match: re.Match) -> str:
    digits, base = next((d, b) for d, b in zip(match.groups(), (16, 2, 8), strict=True) if d)
    return f"{digits.upper()}_{{{base}}}"


def _without_subject(text: str) -> str:
    """The sentence without its subject, when what follows its verb is one value and its unit
    ("You will need 7 1/2 cups of flour"), not a description with more numbers in it ("The
    circle has center (4, 5) and radius 5")."""
    subject = _NAME_AND_VERB.match(text)
    value = _NUMBER_BEFORE.search(text, subject.end()) if subject else None
    if value is None or _WORDS_THEN_NUMBER.search(text, value.end()):
        return text
    return text[subject.end() :]


def _far_apart(text: str, other: str) -> bool:
    """The number ``text`` states and ``other`` differ by more than a rounding would (5%)."""
    stated = _NUMBER.search(text.replace(",", ""))
    try:
        value, second = float(stated.group(0).replace("−", "-")), float(other)
    except (AttributeError, ValueError):
        return False
    return beyond_rounding(value, second)


def beyond_rounding(first: float, second: float) -> bool:
    """Two numbers further apart than rounding one gives the other (5% of the larger)."""
    return abs(first - second) > _ROUNDING_GAP * max(abs(first), abs(second))


def _compound_quantity(text: str) -> tuple[str, str] | None:
    """ "1 h 15 min" or "37 min 30 s": the value in the larger unit, and both units; "3 元
    5 角" (yuan and tenths of a yuan) alike."""
    money = _YUAN_AND_JIAO.search(text)
    if money is not None:
        return _decimal(Fraction(money.group(1)) + Fraction(int(money.group(2)), 10)), "元 角"
    imperial = _FEET_AND_INCHES.search(text) or _POUNDS_AND_OUNCES.search(text)
    if imperial is not None:  # "6 ft 6 in" is 6.5 ft, "3 lb 4 oz" 3.25 lb
        parts = 12 if imperial.re is _FEET_AND_INCHES else 16
        value = Fraction(imperial.group(1)) + Fraction(imperial.group(3)) / parts
        return _decimal(value), f"{imperial.group(2)} {imperial.group(4)}"
    match = _COMPOUND_TIME.search(text)
    if match is None:
        return None
    larger, smaller = Fraction(match.group(1)), Fraction(match.group(3))
    value = larger + smaller / 60
    return _decimal(value), f"{match.group(2)} {match.group(4)}"


def _decimal(value: Fraction) -> str:
    """A fraction as a terminating decimal when it has one, else as a/b."""
    whole = value.numerator / value.denominator
    return (
        f"{whole:g}"
        if Fraction(f"{whole:g}") == value
        else f"{value.numerator}/{value.denominator}"
    )


def percent_of(raw: str) -> str | None:
    """The amount "15% of 80" names (12), which the reading gives as the percent (15%)."""
    share = _PERCENT_OF_NUMBER.search(raw)
    return _decimal(Fraction(share.group(1)) * Fraction(share.group(2)) / 100) if share else None


# "3 out of 8 slices": a count of a total, with what is counted after it.
_OUT_OF = re.compile(r"(?<![\d.,])(\d+)\s+out\s+of\s+(\d+)(?![\d.,])")


def proportion(raw: str) -> str:
    """``\\frac{3}{8}`` for "3 out of 8 slices", for a gold that is the fraction ("" for a
    text that counts no total)."""
    found = _OUT_OF.search(raw) if "out of" in raw else None
    return f"\\frac{{{found.group(1)}}}{{{found.group(2)}}}" if found else ""


def counted(raw: str) -> str | None:
    """The count in "3 out of 5" (which reads as the proportion 3/5), for a question that asks
    how many."""
    odds = _ODDS.search(raw)
    return _count_and_total(odds)[0] if odds and odds.group(1) else None


def _listed_as_often_as_it_counts(match: re.Match) -> str:
    """ "$1$ (multiplicity 2)" lists 1 twice; "x = 2 (double root)" lists x = 2 twice."""
    count = match.group(2) or match.group(3)
    times = int(count) if count.isdigit() else _TIMES_COUNTED[count.lower()]
    return ", ".join([match.group(1)] * times)


def _count_and_total(odds: re.Match) -> tuple[str, str]:
    if odds.group(1) is None:
        return "1", "2"  # "a 50-50 chance"
    return odds.group(1).replace(",", ""), odds.group(2).replace(",", "")


# The keys a JSON reply holds its answer under, best first.
_ANSWER_KEYS = ("final_answer", "answer", "result", "solution", "solutions", "value", "values")


def _json_answer(text: str) -> str:
    """The answer a JSON object states: its only field, or its answer field; a list is its
    values listed. "" when the text is no JSON object or names no answer."""
    try:
        reply = json.loads(text)
    except ValueError:
        return ""
    if not isinstance(reply, dict) or not reply:
        return ""
    fields = {str(key).lower(): value for key, value in reply.items()}
    key = next((k for k in _ANSWER_KEYS if k in fields), None)
    if key is None and len(fields) != 1:
        return ""
    value = fields[key] if key is not None else next(iter(fields.values()))
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return str(value) if isinstance(value, str | int | float) else ""


def is_sentence(expression: str) -> bool:
    """Three or more words outside LaTeX commands and their arguments: a sentence the
    reading could not reduce to an answer."""
    text = _LATEX_GROUP.sub(" ", expression)
    words = len(_SENTENCE_WORD.findall(text))
    if text.isascii():
        return words >= _SENTENCE_WORDS_SEEN
    return words + len(set(_SCRIPT_WORD.findall(text))) >= _SENTENCE_WORDS_SEEN


_LATEX_FROM_DIGIT = re.compile(r"(?<!\\)\$\d[^$\\]{0,40}\\[A-Za-z][^$]{0,400}\$")


def _strip_wrappers(text: str) -> str:
    """Delimiters, a box or bold around the whole answer, and a final full stop."""
    json_value = _JSON_VALUE.match(text) if text[:1] == '"' or text[-1:] in "}]" else None
    if json_value:  # "31}" or '"8 or 9"' from {"answer": …}
        text = json_value.group(1) if json_value.group(1) is not None else json_value.group(2)
    if len(_UNESCAPED_DOLLAR.findall(text)) % 2 and not _LATEX_FROM_DIGIT.search(text):
        # half a math span, cut by the sentence ("$1\\frac{1}{2}$" opens on a digit but is
        # a whole span of LaTeX, not an amount)
        text = _UNESCAPED_DOLLAR.sub("", text)
    listed = _listed_spans(text, _span_contents(text)) if text[:1] in "$\\" else ""
    if listed:  # "$x < -1$ or $x > 3$": two spans, one answer
        text = listed
    for _ in range(4):
        previous = text
        text = _LEADING.sub("", text).strip().strip("*").strip()
        text = _TRAILING.sub("", text)
        for pattern in (_DELIMITERS, _WRAPPER):
            match = pattern.match(text)
            # "$x = 3$, $x = 1$" is two spans, not one wrapped in dollars
            if match and _balanced(match.group(1)) and not _OPENS_SPAN.search(match.group(1)):
                text = match.group(1).strip()
        if text == previous:
            break
    return text


_ASSIGNED_NUMBER = r"(?<![A-Za-z\\])[a-z]\s*=\s*[-−]?\d+(?:\.\d+)?(?:\s*/\s*\d+)?"
# Values named one by one in prose: "x = 3 and y = 4", "a = 1, b = -2, and c = 5".
_ASSIGNMENT_LIST = re.compile(
    rf"{_ASSIGNED_NUMBER}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+){_ASSIGNED_NUMBER})+(?![\d.]*\s*[=<>])"
)
_AND_BETWEEN = re.compile(r"\s*,?\s+and\s+")
_TIME_OF_DAY = re.compile(
    r"(?<![\d:.])(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s*m\b\.?)?)(?![\d:])", re.I
)


# "n - 1 = 60, i.e. n = 61": an equation in a term of the unknown, then the unknown itself.
_TERM_EQUATION = re.compile(r"\s*[A-Za-z]\s*[-+*/]\s*\d+\s*=\s*[^=]+")
_RESTATED_ASSIGNMENT = re.compile(
    r"(?:,|\s)*(?:i\.e\.|that is,|in other words,)\s*([A-Za-z])\s*=\s*(-?\d+(?:\.\d+)?)\W*"
)


def _solved_for_the_variable(text: str, restated: re.Match) -> str:
    """The unknown's value where an equation in a term of it is restated as the unknown's
    ("n - 1 = 60, i.e. n = 61" states 61); "" where the restatement only rewrites it."""
    head, tail = text[: restated.start()], text[restated.start() :]
    assigned = _RESTATED_ASSIGNMENT.fullmatch(tail)
    if assigned is None or not _TERM_EQUATION.fullmatch(head):
        return ""
    return assigned.group(2) if head.lstrip().startswith(assigned.group(1)) else ""


def _keep_math_of_prose(text: str) -> str:
    """In a sentence, the mathematics it states: its one math span, or its one number; a
    quantity in two units ("3 Stunden und 35 Minuten") is left whole for its own reading."""
    if _COMPOUND_TIME.search(text):
        return text
    if not _PROSE_WORDS.search(_LATEX_COMMAND.sub(" ", _MATH_SPAN.sub(" ", text))):
        return _last_copula(text) or text  # "1250 g sind 1,250 kg": a copula between values
    spans = _span_contents(text)
    # One math span is the statement; "$5 and $7" are amounts, but a span holding LaTeX
    # ("$1\\frac{1}{2}$ cups") is mathematics even where it opens like an amount.
    named = len(spans) == 1 and _LONE_VARIABLE.fullmatch(spans[0].strip()) is not None
    if (
        len(spans) == 1
        and (_CURRENCY.sub("", text).count("$") >= 2 or "\\" in spans[0])
        # "Angle $P$ measures 45 degrees": the span names what the number measures
        and not (named and _NUMBER.search(_MATH_SPAN.sub(" ", text)))
    ):
        return spans[0]
    listed = _listed_spans(text, spans)
    if listed:  # "The roots are $x = 3$, $x = 1$, and $x = 2$": the spans, as one list
        return listed
    bounds = [span.strip() for span in spans if not _LONE_VARIABLE.fullmatch(span.strip())]
    if (
        len(bounds) > 1
        and all(_BOUND.search(b) for b in bounds)
        and any("\\ne" in b for b in bounds)
    ):
        return ", ".join(bounds)  # "all $x$ with $x \\ge 1$, $x \\ne 4$": the set they bound
    plain = _CURRENCY.sub("", text)
    copula = _last_copula(plain)
    if copula:  # "打九折后售价是 10.8 万元": what follows the sentence's last "是"
        return copula
    relations = _PROSE_RELATION.findall(plain)
    if len(relations) == 1:  # "all real numbers x with x \\leq 3": the relation is the set
        return relations[0].strip()
    leading = _LEADING_COUNT.match(plain)
    if leading:  # "9 prime numbers less than 20": the count it opens with
        other = _OR_NUMBER.search(plain, leading.end())
        # "24 marbles left, or 30" offers two counts
        return f"{leading.group(1)} or {other.group(1)}" if other else leading.group(1)
    assignments = _ASSIGNMENT_LIST.search(plain)
    if assignments:  # "located at x = 3 and y = 4": the values named, as a list
        return _AND_BETWEEN.sub(", ", assignments.group(0))
    times = _TIME_OF_DAY.findall(plain)
    if len(times) == 1:  # "The meeting starts at 4:30 p.m.": one time of day, not "30"
        return times[0].strip()
    scaled = _SCALED_NUMBER.findall(plain)
    if len(scaled) == 1 and not _NUMBER.search(_SCALED_NUMBER.sub(" ", plain)):
        # "Firma zarobiła 4,2 mln zł", read as "… 4.2\times 10^{6} zł": one number
        return plain[plain.find(scaled[0]) :]
    numbers = _NUMBER.findall(plain)
    if len(numbers) == 1:
        # Keep the words after the number: they are its unit ("42 apples left").
        return plain[plain.find(numbers[0]) :]
    result = _EQUATION_RESULT.search(plain) if not _SEVERAL_ASSIGNMENTS.search(plain) else None
    if result:  # "so 3 + 10 = 13 birds": the sentence's last equation gives its result
        return result.group(1)
    return text


def _last_copula(text: str) -> str:
    """What a sentence's last copula (是, 为, は; "sind", "es", "est") states, when that
    holds a number."""
    found = None
    for found in _COPULA.finditer(text):  # noqa: B007 - the loop keeps the last match
        pass
    rest = text[found.end() :].strip() if found else ""
    return rest if rest[:1].isdigit() or rest[:2].lstrip("-").isdigit() else ""


def _span_contents(text: str) -> list[str]:
    """What each math span of ``text`` holds, empty ones left out."""
    spans = [next(g for g in m.groups() if g is not None) for m in _MATH_SPAN.finditer(text)]
    return [s for s in spans if s.strip()]


def _listed_spans(text: str, spans: list[str]) -> str:
    """Several math spans that a sentence lists, joined only by commas, semicolons, "and" or
    "or" (in any of the languages above)."""
    if len(spans) < 2:
        return ""
    marked = _MATH_SPAN.sub("\x00", text)
    between = marked[marked.find("\x00") : marked.rfind("\x00") + 1]
    if not _SPAN_LIST.fullmatch(between):
        return ""
    return (" or " if _OR_WORD.search(between) else ", ").join(s.strip() for s in spans)


_SPACING_BEFORE_UNIT = re.compile(rf"(?:{LATEX_SPACE}|\\q?quad\b|~|\s)*\\?$")


_UPRIGHT_CONSTANTS = frozenset("eij")


def _split_units(text: str) -> tuple[str, str]:
    listed = _UNIT_LIST.fullmatch(text)
    if listed:  # "200 ml and 400 ml": the numbers, listed
        numbers = _NUMBER.findall(text)
        units = " ".join(dict.fromkeys(w for w in _WORD.findall(text) if w not in ("and", "or")))
        return ", ".join(numbers), units
    unit_text = _UNIT_TEXT.search(text)
    if (
        unit_text
        and unit_text.start() > 0
        and not _number_phrase(unit_text.group(1))
        and unit_text.group(1).strip() not in _UPRIGHT_CONSTANTS  # "4\mathrm{i}" is 4i
    ):
        # "5400\ \text{cm}^2": LaTeX's spacing before the unit goes with it
        value = _SPACING_BEFORE_UNIT.sub("", text[: unit_text.start()])
        per = re.sub(r"\\(?:text|mathrm)\s*\{([^{}]*)\}|\\[ ,;]", r"\1", unit_text.group(3) or "")
        return value, unit_text.group(1).strip() + (unit_text.group(2) or "") + per
    words = _TRAILING_WORDS.search(text)
    if words and words.start() > 0 and not re.search(r"\b(?:or|and|ou|oder)\b", words.group(1)):
        return text[: words.start()].strip(), words.group(1).strip()
    unit = _UNIT_THEN_WORDS.search(text)
    if unit and unit.start() > 0 and (unit.group(1) in _SI_LETTERS or unit_named(unit.group(1))):
        return text[: unit.start()].strip(), unit.group(0).strip()  # "1.5 m long"
    cjk = _CJK_UNIT.search(text)
    if cjk and cjk.start() > 0:  # "25.5 元", "12 只", "3 千克"
        return text[: cjk.start()].strip(), cjk.group(1)
    return text, ""


def _alternatives(text: str) -> tuple[str, ...]:
    """The options a hedged answer offers: "either 3 or 5", "24 or 6", ``\\pm 4``."""
    body = _EITHER.sub("", text)
    signs = len(_PLUS_MINUS.findall(body))
    listed = _SIGNED_LIST.fullmatch(re.sub(LATEX_SPACE, " ", body)) if signs > 1 else None
    if listed:  # "x = \pm 1, \pm 2": each value with both signs
        values = re.split(r"\s*,\s*", listed.group(1))
        return tuple(f"{sign}{_PLUS_MINUS.sub('', v).strip()}" for v in values for sign in "-+")
    if signs == 1 or (1 < signs <= _MOST_SIGNS and "," not in body):
        # "x = \pm 3", "3 \pm \sqrt{2}", "\pm 1 \pm i": the value for every choice of signs
        head, *terms = _PLUS_MINUS.split(body)
        chosen = itertools.product("+-", repeat=signs)
        values = (
            head + "".join(map("".join, zip(choice, terms, strict=True))) for choice in chosen
        )
        return tuple(value.strip() for value in values) if "".join(terms).strip() else ()
    parts = [p.strip() for p in _HEDGE_SPLIT.split(body) if p.strip()]
    if all(_INEQUALITY.search(part) for part in parts):
        return ()  # "x \\le -2 or x \\ge 3" is one set, their union, not a choice of answers
    return tuple(parts) if len(parts) > 1 else ()


def _number_phrase(text: str) -> str | None:
    """ "twelve", "forty-two": the digits an answer in words names."""
    words = text.strip().lower()
    if not words or not re.fullmatch(r"[a-z\s-]+", words):
        return None
    value = words_to_number(words)
    return None if value is None else str(value)


def _is_relation_chain(text: str) -> bool:
    """``x < 3``, ``x = 3 or x = 4``: relations, not a head before a value."""
    return bool(re.search(r"[<>]|\\[lg]eq?\b|\\neq\b", text))


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0
