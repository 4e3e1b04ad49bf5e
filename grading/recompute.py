"""Golds checked against the answer their own problem determines, where the engine can work it out.

A dataset's gold is sometimes simply wrong: log₂ 64 stored as 8, gcd(90, 150) as 15, the
remainder of 2x³ − x² + 3 by x + 1 as 4, the inverse of 4x − 8 as x/4 + 8. For the few kinds
of question whose statement alone fixes the answer and which SymPy answers exactly (a closed
expression to evaluate, a greatest common divisor or least common multiple, a remainder, the
number of divisors, an inverse function, a factoring or expansion, an equation solved for a
letter, the sum or product of a polynomial equation's roots, whether a number is prime, even or
a perfect square, the prime next to a number, which option is closest to a value), the engine
works the answer out or checks the gold against it; a gold that disagrees is in doubt
(``grading.gold``). Anything it cannot read, it leaves alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

import sympy
from sympy.calculus.util import continuous_domain

from grading.equivalence import real_sets
from grading.equivalence.real_sets import PLUS_MINUS
from grading.equivalence.rewrite import number_words
from grading.evaluators.symbolic import parse_answer
from grading.options import problem_options

_VERB = r"(?:evaluate|compute|calculate|simplify|find|determine|what\s+is|what's)"
_MATH = r"\$\$?([^$]+?)\$\$?"
_NUMBER = r"\$?\s*(\d{1,12})\s*\$?"
# "Evaluate $\log_2 64$.", "What is $\sin 30^\circ + \cos 60^\circ$?", "Find the exact value
# of $\sin 15^\circ$."; a trailing "Express your answer …" sentence may follow.
_EVALUATE = re.compile(
    rf"^\s*{_VERB}\s+(?:the\s+(?:exact\s+|numerical\s+)?value\s+of\s+)?{_MATH}\s*[.?]?"
    r"\s*((?:express|give|write|enter)\b[^$]*)?$",
    re.IGNORECASE,
)
_COMMON = re.compile(
    rf"^\s*{_VERB}\s+the\s+(greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor"
    rf"|least\s+common\s+multiple|gcd|gcf|lcm)\s+of\s+((?:{_NUMBER}\s*,?\s*)+)and\s+{_NUMBER}"
    r"\s*[.?]?\s*$",
    re.IGNORECASE,
)
_REMAINDER = re.compile(
    rf"^\s*{_VERB}\s+the\s+remainder\s+when\s+{_MATH}\s+is\s+divided\s+by\s+{_MATH}\s*[.?]?\s*$",
    re.IGNORECASE,
)
_DIVISOR_COUNT = re.compile(
    rf"^\s*how\s+many\s+(?:positive\s+)?(?:divisors|factors)\s+does\s+{_NUMBER}\s+have\s*\??\s*$",
    re.IGNORECASE,
)
# "What is the sum of all of the positive divisors of $36$?" (σ(36) = 91)
_DIVISOR_SUM = re.compile(
    rf"^\s*(?:{_VERB}\s+)?the\s+sum\s+of\s+(?:all\s+)?(?:of\s+)?(?:the\s+)?(?:positive\s+)?"
    rf"(?:divisors|factors)\s+of\s+{_NUMBER}\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "Find the inverse of $f(x) = 4x - 8$.", "Find $f^{-1}(x)$ if $f(x) = \frac{1}{x} + 2$."
_FUNCTION = r"\$\s*f\s*\(\s*x\s*\)\s*=\s*([^$]+?)\s*\$"
_INVERSE = re.compile(
    rf"^\s*{_VERB}\s+(?:the\s+inverse(?:\s+function)?\s+of\s+{_FUNCTION}"
    rf"|\$\s*f\s*\^\s*\{{\s*-1\s*\}}\s*\(\s*x\s*\)\s*\$\s*(?:if|when|for|where|given)\s+{_FUNCTION})"
    r"\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "Factor $x^2 - 2x - 8$.", "Expand $(x+2)(x-5)$.": the answer is the expression itself, in
# another form
_REWRITE = re.compile(
    rf"^\s*(?:factor|expand|multiply\s+out)(?:\s+completely)?\s+{_MATH}\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "Solve $2x + 3y = 6$ for $y$.", "Solve for $x$: $4x - 7 = 3$."
_SOLVE = re.compile(
    rf"^\s*solve\s+(?:{_MATH}\s+for\s+\$?\s*([a-z])\s*\$?|for\s+\$?\s*([a-z])\s*\$?\s*[:,]?\s*{_MATH})"
    r"\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "What is the sum of all real solutions of $x^2 - 7x + 10 = 0$?", "Find the sum of the
# squares of the roots of …"
_ROOTS = re.compile(
    rf"^\s*{_VERB}\s+the\s+(sum|product)\s+of\s+(?:all\s+)?(?:the\s+)?(?:(squares|cubes)\s+of\s+"
    rf"(?:all\s+)?the\s+)?(?:real\s+)?(?:solutions|roots)\s+(?:of|to)\s+(?:the\s+equation\s+)?"
    rf"{_MATH}\s*[.?]?\s*$",
    re.IGNORECASE,
)
_POWERS = {"squares": 2, "cubes": 3}
# "How many edges does a cube have?", "How many vertices does a pentagonal prism have?"
_SOLID_COUNT = re.compile(
    r"^\s*how\s+many\s+(vertices|edges|faces)\s+does\s+an?\s+(?:(triangular|square|rectangular"
    r"|pentagonal|hexagonal|heptagonal|octagonal)\s+(prism|pyramid)|(cube|tetrahedron|octahedron"
    r"|dodecahedron|icosahedron))\s+have\s*\??\s*$",
    re.IGNORECASE,
)
_BASE_SIDES = {
    "triangular": 3, "square": 4, "rectangular": 4, "pentagonal": 5, "hexagonal": 6,
    "heptagonal": 7, "octagonal": 8,
}  # fmt: skip
# (vertices, edges, faces)
_PLATONIC = {
    "cube": (8, 12, 6), "tetrahedron": (4, 6, 4), "octahedron": (6, 12, 8),
    "dodecahedron": (20, 30, 12), "icosahedron": (12, 30, 20),
}  # fmt: skip
# "What is the surface area of a sphere with radius $6$? Express your answer in terms of $\pi$."
_ROUND_MEASURE = re.compile(
    r"^\s*(?:what\s+is|find|compute|calculate|determine)\s+the\s+(surface\s+area|volume|area"
    r"|circumference)\s+of\s+an?\s+(sphere|circle)\s+(?:with|of|whose)\s+(radius|diameter)"
    r"\s+(?:is\s+|of\s+)?\$?\s*(\d{1,4})\s*\$?(?:\s*(?:units?|cm|m|mm|inches|feet|ft|meters))?"
    r"\s*[?.]\s*(?:express\s+your\s+answer\s+in\s+terms\s+of\s+\$?\\pi\$?\s*\.?)?\s*$",
    re.IGNORECASE,
)
_ROUND_FORMULAS = {
    ("sphere", "surface area"): lambda r: 4 * sympy.pi * r**2,
    ("sphere", "volume"): lambda r: sympy.Rational(4, 3) * sympy.pi * r**3,
    ("circle", "area"): lambda r: sympy.pi * r**2,
    ("circle", "circumference"): lambda r: 2 * sympy.pi * r,
}
# "Solve $\sqrt{x + 7} = x - 5$.": every value the gold lists must satisfy the equation.
_SOLVE_EQUATION = re.compile(
    rf"^\s*(?:solve|find\s+all\s+(?:real\s+)?solutions\s+(?:of|to))\s+(?:the\s+equation\s+)?"
    rf"(?:for\s+\$?\s*([a-z])\s*\$?\s*[:,]?\s*)?{_MATH}\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "Find all $\theta$ with $0 \le \theta < 2\pi$ such that $2\sin^2 \theta = \sin \theta.$",
# "Solve $\cos 2x = \cos x$ for $0 \le x < 2\pi$.": every root in a bounded range
_ROOTS_IN_RANGE = re.compile(
    r"^\s*(?:find\s+all\s+(?:(?:real\s+)?(?:values|solutions|numbers)\s+(?:of\s+)?)?\$\s*\\?[a-z]+\s*\$"
    r"\s*,?\s*(?:with|where|in\s+the\s+interval|for)?\s*\$(?P<range_a>[^$]+)\$\s*,?\s*"
    r"(?:such\s+that|for\s+which|satisfying|that\s+satisfy)\s+\$(?P<eq_a>[^$]+)\$"
    r"|solve\s+\$(?P<eq_b>[^$]+)\$\s*(?:for|on|over|in)\s+\$(?P<range_b>[^$]+)\$)"
    r"\s*[.?]?\s*(?:(?:enter|list|give|write)\s+all\s+(?:the\s+)?solutions[^.]*\.)?\s*$",
    re.IGNORECASE,
)
_RANGE = re.compile(
    r"^\s*([^<≤]+?)\s*(\\leq?|<|≤)\s*(\\?[a-z]+)\s*(\\leq?|<|≤)\s*([^<≤]+?)\s*[.,]?\s*$"
)
# "Find the mode of the data set $4, 7, 1, 9, 3$.", "What is the median of 3, 8, 5, 12?"
_STATISTIC = re.compile(
    r"^\s*(?:find|what\s+is|compute|calculate|determine)\s+the\s+(mean|average|arithmetic\s+mean"
    r"|median|mode|range)\s+of\s+(?:the\s+)?(?:following\s+)?(?:data\s+set|data|numbers|set"
    r"|values|list|scores)?\s*:?\s*\$?\s*(?:\\\{)?\s*(-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){2,})"
    r"\s*(?:\\\})?\s*\$?\s*[.?]?\s*$",
    re.IGNORECASE,
)
_ONE_NUMBER = re.compile(r"\s*\$?\s*-?\d+(?:\.\d+)?\s*\$?\s*")
_BRACED = re.compile(r"\\?\{(.*?)\\?\}")
_MIXED_NUMBER = re.compile(r"\d\s*\\[dt]?frac")
_GOLD_VALUES = re.compile(r"\s*(?:,|;|\bor\b|\band\b|\\text\s*\{\s*(?:or|and)\s*\}|\\quad)\s*")
_TERM = r"(?:\$([^$]+)\$|(\d{1,18}))"
_YES_NO_FORMAT = (
    r"(?:\s*(?:please\s+)?(?:answer|respond|reply)\s+(?:with\s+)?[\"'“]?(?:yes|true)[\"'”]?\s+or"
    r"\s+[\"'“]?(?:no|false)[\"'”]?\s*\.?)?"
)
# "Is $2^{31} - 1$ a prime number?", "True or false: $0$ is an even number."
_PROPERTY = r"(prime|even|odd|composite|perfect\s+square|perfect\s+cube|square\s+number)"
_HAS_PROPERTY = re.compile(
    rf"^\s*(?:true\s+or\s+false\s*[:,?]\s*)?(?:is\s+{_TERM}\s+(?:an?\s+)?{_PROPERTY}(?:\s+number)?"
    rf"\s*\?|{_TERM}\s+is\s+(?:an?\s+)?{_PROPERTY}(?:\s+number)?\s*[.?]?){_YES_NO_FORMAT}\s*$",
    re.IGNORECASE,
)
# "Is $91$ divisible by $7$?", "Is $6$ a factor of $45$?", "Is $84$ a multiple of $14$?"
_DIVIDES = re.compile(
    rf"^\s*(?:true\s+or\s+false\s*[:,?]\s*)?is\s+{_TERM}\s+(?:(divisible\s+by|a\s+multiple\s+of)"
    rf"|an?\s+(factor|divisor)\s+of)\s+{_TERM}\s*\?{_YES_NO_FORMAT}\s*$",
    re.IGNORECASE,
)
# "True or False: $\\sum_{n=1}^{\\infty}\\frac{1}{n^2}=\\frac{\\pi^2}{8}$.", "Is it true that
# $\\sqrt{2} \\cdot \\sqrt{8} = 4$?": an equality of two numbers, asked yes/no
_CLAIMED_EQUALITY = re.compile(
    r"^\s*(?:true\s+or\s+false\s*[:,?]\s*|is\s+it\s+true\s+that\s+|is\s+)"
    r"\$\$?\s*(?:\\displaystyle\s*)?([^$<>]+?=[^$<>]+?)\s*\$\$?\s*[.?]?"
    rf"{_YES_NO_FORMAT}\s*$",
    re.IGNORECASE,
)
# "Solve $|x| < -2$.", "Solve the inequality $x^2 - 5x + 6 > 0$."; "Find the domain of
# $f(x) = \\sqrt{x^2 - 1}$.": sets of reals SymPy works out
_RELATION_SIGN = r"(?:<|>|≤|≥|\\[lg]eq?(?![a-z]))"
_FORMAT_ASKED = r"(?:\s*,?\s*(?:and\s+)?(?:write|express|give|state|present)\b[^.?]*[.?]?)?"
_SOLVE_INEQUALITY = re.compile(
    rf"^\s*solve\s+(?:the\s+inequality\s+)?(?:for\s+\$?[a-z]\$?\s*:?\s*)?"
    rf"\$\$?([^$]*?{_RELATION_SIGN}[^$]*?)\$\$?\s*(?:for\s+(?:real\s+)?\$?x\$?\s*)?[.?]?"
    rf"{_FORMAT_ASKED}\s*$",
    re.IGNORECASE,
)
_DOMAIN = re.compile(
    r"^\s*(?:find|determine|what\s+is)\s+the\s+domain\s+of\s+(?:the\s+function\s+)?"
    rf"\$\$?\s*[a-z]\s*\(\s*x\s*\)\s*=\s*([^$]+?)\s*\$\$?\s*[.?]?{_FORMAT_ASKED}\s*$",
    re.IGNORECASE,
)
# "In how many ways can 5 people stand in a row?" (5!), "… sit around a round table?" (4!),
# "In how many ways can a committee of 3 be chosen from 10 people?" (10 choose 3)
_WAYS = r"^\s*in\s+how\s+many\s+(?:different\s+|distinct\s+)?ways\s+can\s+"
_ARRANGED = re.compile(
    rf"{_WAYS}\$?(\d+)\$?\s+(?:different\s+|distinct\s+)?[a-z]+\s+(?:stand|sit|line\s+up"
    r"|be\s+(?:arranged|seated|lined\s+up|placed))\s+(?:(in\s+a\s+(?:row|line))|(?:around|at)\s+a"
    r"\s+(?:round\s+|circular\s+)?table|in\s+a\s+circle)\s*[.?]?\s*$",
    re.IGNORECASE,
)
_CHOSEN = re.compile(
    rf"{_WAYS}an?\s+(?:committee|group|team|set|panel)\s+of\s+\$?(\d+)\$?\s+(?:[a-z]+\s+)?be"
    r"\s+(?:chosen|selected|formed|picked)\s+from\s+(?:an?\s+(?:group|class|club|set|team)\s+of"
    r"\s+)?\$?(\d+)\$?\s+[a-z]+\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "What is the smallest prime number greater than $90$?", "Find the largest prime factor of 91."
_PRIME_NEAR = re.compile(
    rf"^\s*{_VERB}\s+the\s+(smallest|least|largest|greatest)\s+prime(?:\s+number)?\s+"
    rf"(greater\s+than|larger\s+than|more\s+than|bigger\s+than|less\s+than|smaller\s+than|below"
    rf"|above|factor\s+of|divisor\s+of)\s+{_TERM}\s*[.?]?\s*$",
    re.IGNORECASE,
)
# "How many prime numbers are there between $1$ and $50$?", "How many primes are less than 30?"
_PRIME_COUNT = re.compile(
    rf"^\s*how\s+many\s+primes?(?:\s+numbers?)?\s+(?:are\s+there\s+|are\s+)?(?:(between)\s+{_TERM}"
    rf"\s+and\s+{_TERM}|(less\s+than|below|smaller\s+than|under)\s+{_TERM})"
    # "… less than 100 have units digit 3?", "… below 50 end in 7?"
    r"(?:\s+(?:have|has|with)\s+(?:a\s+)?(?:units|ones|last)\s+digit\s+(?:of\s+)?\$?(\d)\$?"
    r"|\s+ends?\s+(?:in|with)\s+(?:the\s+digit\s+|a\s+)?\$?(\d)\$?)?\s*\?\s*$",
    re.IGNORECASE,
)
# "How many diagonals does a convex 12-sided polygon have?": n(n - 3)/2
_DIAGONALS = re.compile(
    r"^\s*how\s+many\s+diagonals\s+(?:does|can|are\s+there\s+in)\s+(?:a|an|the)\s+"
    r"(?:(?:convex|regular)\s+)*(?:\$?(\d+)\$?[-\s]?(?:sided\s+polygon|gon)"
    r"|polygon\s+with\s+\$?(\d+)\$?\s+sides|(pentagon|hexagon|heptagon|octagon|nonagon|decagon"
    r"|dodecagon))\s*(?:have)?\s*\?\s*$",
    re.IGNORECASE,
)
_POLYGON_SIDES = {
    "pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8, "nonagon": 9, "decagon": 10,
    "dodecagon": 12,
}  # fmt: skip
# "Two fair six-sided dice are rolled. What is the probability that the sum … is 8?"
_DICE_SUM = re.compile(
    r"^\s*two\s+(?:fair\s+)?(?:(?:six|6)-sided\s+|standard\s+)?(?:fair\s+)?dice\s+are\s+"
    r"(?:rolled|tossed|thrown)\.\s+what\s+is\s+the\s+probability\s+that\s+(?:the\s+)?sum"
    r"(?:\s+of\s+the\s+(?:two\s+)?(?:numbers|dice|faces|rolls)(?:\s+shown)?)?\s+(?:shown\s+)?is"
    r"\s+\$?(\d{1,2})\$?\s*\?(?:\s*express\s+your\s+answer[^.]*\.)?\s*$",
    re.IGNORECASE,
)
# "Which of the following is closest to $\sqrt{50}$?" and lettered numeric options after it
_CLOSEST = re.compile(
    rf"^\s*which\s+of\s+the\s+following(?:\s+numbers)?\s+is\s+(?:the\s+)?(?:closest|nearest)"
    rf"\s+to\s+{_MATH}\s*\?",
    re.IGNORECASE,
)
# "Find $\displaystyle\sum_{k=1}^{10} k^2$.": a sum of a few terms, each a closed expression
_FINITE_SUM = re.compile(
    rf"^\s*{_VERB}\s+\$\$?\s*(?:\\displaystyle\s*)?\\sum_\s*\{{\s*([a-z])\s*=\s*(-?\d+)\s*\}}"
    r"\s*\^\s*\{?\s*(\d+)\s*\}?\s*([^$]+?)\s*\$\$?\s*[.?]?\s*$",
    re.IGNORECASE,
)
_MOST_TERMS = 1000
# Word problems whose numbers fix the answer: "a rectangle with length $14$ cm and width $9$
# cm", "the legs of a right triangle measure 8 and 15", "a regular hexagon has sides of length
# 4", "rises from \$80 to \$92", "a sample of 5 measurements: 4, 6, 8, 10, 12".
_QUANTITY = r"\\?\$?\s*\$?(\d+(?:\.\d+)?)\$?"
_RECTANGLE = re.compile(
    rf"\brectangle\b[^.?]*?\b(length|width)\s+(?:of\s+|is\s+)?{_QUANTITY}[^.?\d]*?\b(?:and|,)\s+"
    rf"(?:a\s+)?(length|width)\s+(?:of\s+|is\s+)?{_QUANTITY}",
    re.IGNORECASE,
)
_LEGS = re.compile(
    rf"\blegs\s+of\s+(?:a|the)\s+right\s+triangle\s+(?:measure|are|have\s+lengths?)\s+{_QUANTITY}"
    rf"[^.?\d]*?\band\s+{_QUANTITY}",
    re.IGNORECASE,
)
_POLYGON_SIDES = {
    "triangle": 3, "square": 4, "pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8,
    "nonagon": 9, "decagon": 10, "dodecagon": 12,
}  # fmt: skip
_REGULAR_POLYGON = re.compile(
    rf"\bregular\s+({'|'.join(_POLYGON_SIDES)})\s+has\s+(?:sides?|side\s+length)s?\s+(?:of\s+)?"
    rf"(?:length\s+)?{_QUANTITY}",
    re.IGNORECASE,
)
_FROM_TO = re.compile(rf"\bfrom\s+{_QUANTITY}\s+to\s+{_QUANTITY}", re.IGNORECASE)
_DATA = re.compile(r"-?\d+(?:\.\d+)?(?:\s*,\s*(?:and\s+)?-?\d+(?:\.\d+)?){2,}")
_CONVENTION = re.compile(r"\b(sample|population)\b", re.IGNORECASE)
# "What is the standard deviation?", "Find the mean of …": the measure asked, first thing
_MEASURE_ASKED = re.compile(
    r"\b(?:what\s+is|what's|find|compute|calculate|determine)\s+(?:its\s+|their\s+|the\s+)"
    r"(?:(?:sample|population)\s+)?(mean|average|median|standard deviation|variance)\b"
    r"(?!\s+(?:absolute|deviation|squared?)\b)"  # not the mean absolute deviation
)
_ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ROUNDED_GOLD = re.compile(r"-?\d+\.(\d+)")
_UNIT_WORDS = re.compile(
    r"\\text\s*\{[^{}]*\}(?:\s*\^\s*\{?\d\}?)?|\\(?:mathrm|textrm)\s*\{[^{}]*\}|\\[,;! ]|~"
    r"|\\%|%|\\?\$|\^\s*\\circ|°|(?<=\d)\s*(?:square\s+)?[a-z]{1,6}(?:\^\{?\d\}?|²|³)?\s*$"
)
_YES_GOLD = re.compile(r"^\W*(?:yes|true)\W*$", re.IGNORECASE)
_NO_GOLD = re.compile(r"^\W*(?:no|false)\W*$", re.IGNORECASE)
_GOLD_WORD = re.compile(r"\\(?:text|textbf|mathrm)\s*\{([^{}]*)\}")
_GOLD_LETTER = re.compile(r"^\W*\(?([A-E])\)?\W*$")
_LARGEST_PRIME_TEST = 10**30
_LARGEST_PRIME_COUNT = 10**7
_LARGEST_PRIME_LISTED = 10**6  # primes listed one by one, to test their last digit
# Notation SymPy's reading gets wrong or cannot bound: repeating decimals, residues, ellipses,
# and powers whose size is not written out (a tower of exponents, a huge exponent).
_UNREADABLE = re.compile(
    r"\\overline|\\dot|\\pmod|\\mod|\.\.\.|\\ldots|\\cdots|\\sum|\\prod|\\int|\\lim"
    r"|\\[dt]?frac\s*\{\s*d\s*\}\s*\{\s*d|\bd\s*/\s*d[a-z]"  # a derivative, read as a product
    r"|\^\s*\{[^}]*\^|\^\s*\{?\s*\d{5,}|\d{4,}\s*!"
    r"|(?<=[\d}])_\s*\{?\s*\w|\\langle|\\begin|\\times\s*\\"  # bases (47_8), vectors and matrices
    r"|\\text|\\operatorname|\\lg\b|\\log(?!\s*_)"  # cis, a log of no stated base
    # a log whose argument is not bracketed, before a product: math-verify reads the product in
    r"|\\log\s*_\s*(?:\{[^}]*\}|\w)\s*(?:\{[^}]*\}|\w+)\s*(?:\\cdot|\\times|\*|/|\\div)",
)
_JUXTAPOSED = re.compile(r"\)\s*\(")
# Notation whose value SymPy's reading gets wrong: repeating decimals, ellipses, residues.
_REPEATING = re.compile(r"\\overline|\\dot|\.\.\.|\\ldots|\\cdots|\\pmod|\\mod")
_TRIGONOMETRY = re.compile(r"\\(?:arc)?(?:sin|cos|tan|cot|sec|csc)(?![a-z])")
_IN_DEGREES = re.compile(r"\bdegrees?\b", re.IGNORECASE)
_DEGREES = re.compile(r"(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°)")
_EQUATION_PREFIX = re.compile(r"^\s*\$?\s*(?:f\s*\^\s*\{?\s*-1\s*\}?\s*\(\s*x\s*\)|y)\s*=\s*")
_LARGEST_FACTORIAL = 10_000
_LARGEST_EXPONENT = 100_000
_PROBES = (-2.7, -0.6, 0.35, 1.3, 2.9, 4.4)
_TOLERANCE = 1e-6


@lru_cache(maxsize=4096)
def contradicts(gold: str, problem: str) -> bool:
    """True when ``problem`` is a question the engine answers itself and ``gold`` has a value
    that is not that answer. Cached: a run grades each problem's samples against one gold."""
    # "(31)(30)" is a product; math-verify would read it as 61
    question, gold = (
        _JUXTAPOSED.sub(r")\\cdot(", problem.strip()),
        _JUXTAPOSED.sub(r")\\cdot(", gold),
    )
    if len(question) > 300:
        return False
    try:
        if match := _FINITE_SUM.match(question):
            return _differs(_finite_sum(*match.groups()), gold)
        if match := _CLAIMED_EQUALITY.match(question):  # a sum or an integral is evaluated here
            return _claim_refuted(match.group(1), gold)
        if _UNREADABLE.search(question):
            return False
        return _contradicts(gold, question)
    except (
        ArithmeticError,
        ValueError,
        TypeError,
        RecursionError,
        NotImplementedError,
        sympy.PolynomialError,
    ):
        return False  # SymPy could not work it out: nothing to check the gold against


def _contradicts(gold: str, question: str) -> bool:
    if readings := _worked_from_the_numbers(question):
        return all(_differs_as_rounded(expected, gold) for expected in readings)
    if match := _EVALUATE.match(question):
        value = _value(match.group(1))
        if value is not None and _IN_DEGREES.search(match.group(2) or ""):
            value = value * 180 / sympy.pi  # "Evaluate $\arctan(1)$. Give your answer in degrees."
        return _differs(value, gold)
    if match := _COMMON.match(question):
        numbers = [int(n) for n in re.findall(r"\d+", match.group(2))] + [int(match.group(4))]
        least = match.group(1).lower().startswith(("least", "lcm"))
        return _differs(sympy.Integer(math.lcm(*numbers) if least else math.gcd(*numbers)), gold)
    if match := _DIVISOR_COUNT.match(question):
        return _differs(sympy.Integer(sympy.divisor_count(int(match.group(1)))), gold)
    if match := _DIVISOR_SUM.match(question):
        return _differs(sympy.Integer(sympy.divisor_sigma(int(match.group(1)))), gold)
    if match := _REMAINDER.match(question):
        return _differs(_remainder(match.group(1), match.group(2)), gold)
    if match := _INVERSE.match(question):
        return _not_an_inverse(match.group(1) or match.group(2), gold)
    if match := _REWRITE.match(question):
        return _differs(_value(match.group(1)), gold)
    if match := _SOLVE.match(question):
        return _not_a_solution(
            match.group(1) or match.group(4), match.group(2) or match.group(3), gold
        )
    counted = number_words(question)  # "five people"
    if match := _ARRANGED.match(counted):
        people = int(match.group(1))
        return _differs(sympy.factorial(people if match.group(2) else people - 1), gold)
    if match := _CHOSEN.match(counted):
        return _differs(sympy.binomial(int(match.group(2)), int(match.group(1))), gold)
    if match := _SOLVE_INEQUALITY.match(question):
        return _other_set(_inequality_solution(match.group(1)), gold)
    if match := _DOMAIN.match(question):
        return _other_set(_domain(match.group(1)), gold)
    if match := _ROOTS_IN_RANGE.match(question):
        return _other_roots_in_range(
            match["eq_a"] or match["eq_b"], match["range_a"] or match["range_b"], gold
        )
    if match := _SOLVE_EQUATION.match(question):
        return _lists_a_non_solution(match.group(2), match.group(1), gold)
    if match := _HAS_PROPERTY.match(question):
        number = _integer(match.group(1) or match.group(2) or match.group(4) or match.group(5))
        named = match.group(3) or match.group(6)
        return number is not None and _truth_differs(_has_property(number, named), gold)
    if match := _DIVIDES.match(question):
        first, second = (
            _integer(match.group(1) or match.group(2)),
            _integer(match.group(5) or match.group(6)),
        )
        if first is None or second is None:
            return False
        # "a divisible by b", "a a multiple of b": b divides a; "a a factor of b": a divides b
        divisor, multiple = (second, first) if match.group(3) else (first, second)
        return divisor != 0 and _truth_differs(multiple % divisor == 0, gold)
    if match := _PRIME_NEAR.match(question):
        extreme, relation, *term = match.groups()
        return _differs(_prime_near(extreme, relation, term[0] or term[1]), gold)
    if match := _PRIME_COUNT.match(question):
        return _differs_from_all(_prime_counts(match.groups()), gold)
    if match := _STATISTIC.match(question):
        return _statistic_differs(match.group(1).lower(), match.group(2), gold)
    if match := _DIAGONALS.match(question):
        named = match.group(3)
        sides = _POLYGON_SIDES[named.lower()] if named else int(match.group(1) or match.group(2))
        return sides >= 3 and _differs(sympy.Integer(sides * (sides - 3) // 2), gold)
    if match := _DICE_SUM.match(question):
        total = int(match.group(1))
        ways = max(0, 6 - abs(total - 7))
        return _differs_as_rounded(sympy.Rational(ways, 36), gold)
    if match := _CLOSEST.match(question):
        return _other_letter(_closest_option(match.group(1), question), gold)
    if match := _ROOTS.match(question):
        product = match.group(1).lower() == "product"
        power = _POWERS.get((match.group(2) or "").lower(), 1)
        return _differs(_sum_or_product(match.group(3), product=product, power=power), gold)
    if match := _SOLID_COUNT.match(question):
        return _differs(sympy.Integer(_solid_count(*match.groups())), gold)
    if match := _ROUND_MEASURE.match(question):
        return _differs(_round_measure(*match.groups()), gold)
    return False


def _claim_refuted(equality: str, gold: str) -> bool:
    """True when the gold says yes (true) to an equality of two numbers that differ, or no to
    one that holds; nothing is decided where a side is not one number SymPy evaluates."""
    sides = _top_level_sides(equality)
    if len(sides) != 2 or _REPEATING.search(equality):
        return False
    values = [_value(side) for side in sides]
    if any(value is None or value.free_symbols for value in values):
        return False
    numbers = [_at(value, None) for value in values]
    return None not in numbers and _truth_differs(not _apart(*numbers), gold)


def _inequality_solution(inequality: str) -> sympy.Set | None:
    relation = parse_answer(inequality).first
    if not isinstance(relation, sympy.core.relational.Relational):
        return None
    unknowns = relation.free_symbols
    if len(unknowns) != 1:
        return None
    return sympy.solve_univariate_inequality(
        relation, unknowns.pop(), relational=False, domain=sympy.S.Reals
    )


def _domain(expression: str) -> sympy.Set | None:
    value = parse_answer(expression).first
    if not isinstance(value, sympy.Expr) or len(value.free_symbols) != 1:
        return None
    return continuous_domain(value, next(iter(value.free_symbols)), sympy.S.Reals)


def _other_set(solution: sympy.Set | None, gold: str) -> bool:
    """True when the gold describes another set of reals than ``solution``."""
    if not isinstance(solution, sympy.Set):
        return False
    ends = solution.boundary
    if not (isinstance(ends, sympy.FiniteSet) or ends is sympy.S.EmptySet):
        return False
    bounds = [float(end) for end in ends if end.is_real and end.is_finite]
    return real_sets.disagrees_with(gold, lambda x: bool(solution.contains(x)), bounds)


def _top_level_sides(equality: str) -> list[str]:
    """The sides of an equality, split at each "=" outside braces ("\\sum_{n=1}^{\\infty}")."""
    sides, depth, start = [], 0, 0
    for at, character in enumerate(equality):
        depth += {"{": 1, "}": -1}.get(character, 0)
        if character == "=" and depth == 0:
            sides.append(equality[start:at])
            start = at + 1
    return [*sides, equality[start:]]


def _value(latex: str) -> sympy.Expr | None:
    """The first value math-verify reads from ``latex``, degrees turned into radians inside
    trigonometry."""
    if _TRIGONOMETRY.search(latex):  # "\sin 30^\circ"; "180^\circ - 35^\circ" is 145 degrees
        latex = _DEGREES.sub(r"(\1\\pi/180)", latex)
    value = parse_answer(latex).first
    if not isinstance(value, sympy.Expr):
        return None
    units = [s for s in value.free_symbols if s.name == "i"]
    return value.subs(units[0], sympy.I) if units else value  # math-verify's i is a symbol


def _differs(expected: sympy.Expr | None, gold: str) -> bool:
    """True when the gold's value differs from ``expected`` at every probe of their one
    variable (or, with none, as numbers)."""
    if expected is None or _UNREADABLE.search(gold):
        return False
    stated = _value(_EQUATION_PREFIX.sub("", gold))
    if stated is None:
        return False
    names = {s.name for s in expected.free_symbols | stated.free_symbols}
    if len(names) > 1 or {s.name for s in expected.free_symbols} != names:
        return False  # a gold in a variable the answer does not have: another kind of answer
    points = _PROBES if names else (None,)
    return all(_apart(_at(expected, point), _at(stated, point)) for point in points)


def _at(value: sympy.Expr, point: float | None) -> complex | None:
    try:
        if point is not None:
            value = value.subs({s: point for s in value.free_symbols})
        number = complex(value.evalf(30))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return number if math.isfinite(number.real) and math.isfinite(number.imag) else None


def _apart(want: complex | None, got: complex | None) -> bool:
    if want is None or got is None:
        return False
    if abs(want.imag) > _TOLERANCE and abs(got.imag) <= _TOLERANCE:
        return False  # a complex principal root (∛−125) where the gold takes the real one
    return abs(want - got) > _TOLERANCE * max(1.0, abs(want))


def _remainder(dividend: str, divisor: str) -> sympy.Expr | None:
    """The remainder of two integers (least non-negative) or of two polynomials in x."""
    top, bottom = _value(dividend), _value(divisor)
    if top is None or bottom is None:
        return None
    if not (_small(top) and _small(bottom)):
        return None
    top, bottom = top.doit(), bottom.doit()  # 2^{100}, read unevaluated
    if top.is_Integer and bottom.is_Integer and bottom != 0:
        return sympy.Integer(top % abs(bottom))
    variables = top.free_symbols | bottom.free_symbols
    if len(variables) != 1:
        return None
    (x,) = variables  # math-verify's own symbol, assumptions and all
    if not (top.is_polynomial(x) and bottom.is_polynomial(x)):
        return None
    return sympy.rem(top, bottom, x)


def _small(value: sympy.Expr) -> bool:
    """True when evaluating ``value`` exactly is cheap: no factorial of more than 10,000 and
    no power with an exponent over 100,000 ("(10^{9})!" would take hours)."""
    for factorial in value.atoms(sympy.factorial):
        argument = factorial.args[0].doit() if _small(factorial.args[0]) else None
        if argument is None or not argument.is_number or abs(argument) > _LARGEST_FACTORIAL:
            return False
    for power in value.atoms(sympy.Pow):
        exponent = power.exp
        if not exponent.is_number or abs(exponent) > _LARGEST_EXPONENT:
            return False
    return True


def _not_an_inverse(function: str, gold: str) -> bool:
    """True when the gold composed with the function gives x at none of the probe points
    where both are defined (at least two of them), so it cannot be the inverse on any branch."""
    if _UNREADABLE.search(gold):
        return False
    f, g = _value(function), _value(_EQUATION_PREFIX.sub("", gold))
    if f is None or g is None or len(f.free_symbols) != 1 or len(g.free_symbols) != 1:
        return False
    (x,), (y,) = f.free_symbols, g.free_symbols
    if x.name != y.name:
        return False
    checked = 0
    for point in _PROBES:
        try:
            inner = complex(g.subs(y, point).evalf())
            if abs(inner.imag) > _TOLERANCE:
                continue
            outer = complex(f.subs(x, inner.real).evalf())
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if not math.isfinite(outer.real) or abs(outer.imag) > _TOLERANCE:
            continue
        if abs(outer.real - point) <= _TOLERANCE * max(1.0, abs(point)):
            return False
        checked += 1
    return checked >= 2


def _sides(equation: str) -> sympy.Expr | None:
    """Left side minus right side of a written equation, or None."""
    left, equals, right = equation.partition("=")
    if not equals or "=" in right:
        return None
    first, second = _value(left), _value(right)
    return None if first is None or second is None else first - second


def _not_a_solution(equation: str, letter: str, gold: str) -> bool:
    """True when the gold, put in for ``letter``, leaves the two sides apart: at every probe
    of the equation's other variable, or as numbers where there is none."""
    difference = _sides(equation)
    if difference is None or _UNREADABLE.search(gold):
        return False
    solved = _value(re.sub(rf"^\s*\$?\s*{letter}\s*=\s*", "", gold))
    unknown = [s for s in difference.free_symbols if s.name == letter]
    if solved is None or len(unknown) != 1 or letter in {s.name for s in solved.free_symbols}:
        return False
    rest = difference.subs(unknown[0], solved)
    others = {s.name for s in rest.free_symbols}
    if len(others) > 1 or not others <= {s.name for s in difference.free_symbols}:
        return False
    points = _PROBES if others else (None,)
    return all(_apart(0j, _at(rest, point)) for point in points)


def _solid_count(what: str, base: str | None, kind: str | None, regular: str | None) -> int:
    """Vertices, edges or faces of a prism or pyramid on an n-gon, or of a Platonic solid."""
    index = ("vertices", "edges", "faces").index(what.lower())
    if regular:
        return _PLATONIC[regular.lower()][index]
    sides = _BASE_SIDES[base.lower()]
    counts = (
        (2 * sides, 3 * sides, sides + 2)
        if kind.lower() == "prism"
        else (sides + 1, 2 * sides, sides + 1)
    )
    return counts[index]


def _round_measure(measure: str, shape: str, length: str, size: str) -> sympy.Expr | None:
    """The measure of a sphere or circle of the given radius or diameter; None where the shape
    has no such measure (the volume of a circle)."""
    formula = _ROUND_FORMULAS.get((shape.lower(), " ".join(measure.lower().split())))
    radius = sympy.Integer(size) / (2 if length.lower() == "diameter" else 1)
    return formula(radius) if formula is not None else None


def _sum_or_product(equation: str, *, product: bool, power: int = 1) -> sympy.Expr | None:
    """The sum or product of a polynomial equation's roots (or of their squares or cubes),
    where they are distinct and real (then every convention, with or without multiplicity,
    real or complex, agrees)."""
    difference = _sides(equation)
    if difference is None or len(difference.free_symbols) != 1:
        return None
    (x,) = difference.free_symbols
    polynomial = sympy.Poly(difference, x)
    if polynomial.degree() < 1 or polynomial.degree() > 4:
        return None
    roots = sympy.roots(polynomial)
    if sum(roots.values()) != polynomial.degree() or any(n > 1 for n in roots.values()):
        return None
    if not all(root.is_real for root in roots):
        return None
    powers = [root**power for root in roots]
    return sympy.expand(sympy.Mul(*powers) if product else sympy.Add(*powers))


def _lists_a_non_solution(equation: str, letter: str | None, gold: str) -> bool:
    """True when a value the gold lists ("2, 9", "x = 2 or x = 9", "\\pm 2") leaves the
    equation's two sides apart, or makes a side undefined, in an equation of one unknown: an
    extraneous root kept, say, or a root of the numerator that zeroes the denominator."""
    difference = _sides(equation)
    if difference is None or len(difference.free_symbols) != 1 or _TRIGONOMETRY.search(equation):
        return False  # a trigonometric equation's roots may be in degrees, or a family
    if _MIXED_NUMBER.search(gold) or _UNREADABLE.search(gold):
        return False  # "4\frac{1}{2}" is 4.5 to the dataset and 2 to SymPy
    (unknown,) = difference.free_symbols
    if letter and unknown.name != letter:
        return False
    values = [
        signed
        for value in _listed_values(gold)
        if value.strip()
        # "\pm 2", "3 \pm \sqrt{2}": a value for each sign
        for signed in (
            {PLUS_MINUS.sub(sign, value, count=1) for sign in "+-"}
            if len(PLUS_MINUS.findall(value)) == 1
            else {value}
        )
    ]
    return any(_leaves_apart(difference, unknown, value) for value in values)


def _statistic_differs(statistic: str, listed: str, gold: str) -> bool:
    """True when the gold is not the data's mean, median, mode or range; a number for the
    mode of data where no value repeats (which has none), or where several do, is no answer."""
    data = sorted(sympy.Rational(number) for number in re.findall(r"-?\d+(?:\.\d+)?", listed))
    middle = len(data) // 2
    if statistic == "mode":
        counts = Counter(data)
        most = max(counts.values())
        modes = [value for value, count in counts.items() if count == most]
        if most == 1 or len(modes) > 1:
            return _ONE_NUMBER.fullmatch(gold) is not None
        return _differs(modes[0], gold)
    value = {
        "median": data[middle] if len(data) % 2 else (data[middle - 1] + data[middle]) / 2,
        "range": data[-1] - data[0],
    }.get(statistic, sum(data) / len(data))
    return _differs(value, gold)


def _other_roots_in_range(equation: str, bounds: str, gold: str) -> bool:
    """True when the gold's values are not the equation's roots in the range the question
    bounds ("0 \\le \\theta < 2\\pi"): a root left out, or one that is none."""
    written = _RANGE.match(bounds)
    difference = _sides(equation.strip().rstrip(".,"))
    if written is None or difference is None or len(difference.free_symbols) != 1:
        return False
    if _DEGREES.search(gold) or _UNREADABLE.search(gold) or _MIXED_NUMBER.search(gold):
        return False
    low_text, low_sign, letter, high_sign, high_text = written.groups()
    (unknown,) = difference.free_symbols
    low, high = _value(low_text), _value(high_text)
    if unknown.name != letter.lstrip("\\") or low is None or high is None:
        return False
    domain = sympy.Interval(low, high, "<" in low_sign, "<" in high_sign)
    roots = sympy.solveset(difference, unknown, domain)
    values = [_value(v) for v in _listed_values(gold)]
    if not isinstance(roots, sympy.FiniteSet) or not values or None in values:
        return False
    given = [float(value) for value in values]
    # SymPy's roots are roots, but it may miss some (2 sin²x − sin x − 1 = 0 gave only π/2):
    # a gold value is checked by putting it in, not by looking for it among SymPy's
    left_out = any(all(abs(float(root) - value) > 1e-9 for value in given) for root in roots)
    return left_out or any(
        value not in domain or abs(complex(difference.subs(unknown, exact))) > 1e-9
        for value, exact in zip(given, values, strict=True)
    )


def _listed_values(gold: str) -> list[str]:
    """The values a gold lists ("2, 9", "x = 2 or x = 9", "\\{2, 9\\}"), as written."""
    listed = gold.strip().strip("$").strip()
    braced = _BRACED.fullmatch(listed)
    return _GOLD_VALUES.split(braced.group(1) if braced else listed)


def _leaves_apart(difference: sympy.Expr, unknown: sympy.Symbol, value: str) -> bool:
    solved = _value(re.sub(rf"^\s*{unknown.name}\s*=\s*", "", value))
    if solved is None or solved.free_symbols or PLUS_MINUS.search(value):
        return False
    rest = difference.subs(unknown, solved)
    if rest.has(sympy.nan, sympy.zoo):
        return True  # 2 in (x^2 - 4)/(x - 2) = 0: the left side is undefined there
    return _apart(0j, _at(rest, None))


def _integer(term: str) -> int | None:
    """The integer a question names ("91", "$2^{31} - 1$"), or None."""
    if term.isdigit():
        return int(term)
    value = _value(term)
    if value is None or not _small(value):
        return None
    value = value.doit()
    return int(value) if value.is_Integer and abs(value) <= _LARGEST_PRIME_TEST else None


def _has_property(number: int, named: str) -> bool:
    named = " ".join(named.lower().split())
    if named == "prime":
        return bool(sympy.isprime(number))
    if named == "composite":
        return number > 1 and not sympy.isprime(number)
    if named == "even":
        return number % 2 == 0
    if named == "odd":
        return number % 2 == 1
    power = 3 if named == "perfect cube" else 2
    root = sympy.integer_nthroot(abs(number), power)[0]
    return (number >= 0 or power == 3) and root**power == abs(number)


def _truth_differs(truth: bool, gold: str) -> bool:
    """True when the gold is a yes or no (true or false) that is not ``truth``."""
    word = _GOLD_WORD.sub(r"\1", gold)
    if _YES_GOLD.match(word):
        return not truth
    if _NO_GOLD.match(word):
        return truth
    return False


def _prime_near(extreme: str, relation: str, term: str) -> sympy.Expr | None:
    """The prime next to a number, or a number's smallest or largest prime factor."""
    number = _integer(term)
    if number is None:
        return None
    smallest = extreme.lower() in {"smallest", "least"}
    relation = relation.lower()
    if relation.startswith(("factor", "divisor")):
        factors = sorted(sympy.factorint(number)) if number > 1 else []
        return sympy.Integer(factors[0 if smallest else -1]) if factors else None
    above = relation.startswith(("greater", "larger", "more", "bigger", "above"))
    if smallest and above:
        return sympy.Integer(sympy.nextprime(number))
    if not smallest and not above and number > 2:
        return sympy.Integer(sympy.prevprime(number))
    return None  # the largest prime above a number, the smallest below it: no such answer


def _prime_counts(groups: tuple[str | None, ...]) -> set[int]:
    """The number of primes the question asks for; both counts for "between a and b", which
    some read with the ends and some without."""
    between, low_a, low_b, high_a, high_b, below, top_a, top_b, digit_a, digit_b = groups
    digit = digit_a or digit_b
    largest = _LARGEST_PRIME_LISTED if digit else _LARGEST_PRIME_COUNT

    def count(low: int, high: int) -> int:  # primes p with low <= p < high
        if digit:
            return sum(1 for p in sympy.primerange(low, high) if p % 10 == int(digit))
        return int(sympy.primepi(high - 1) - sympy.primepi(low - 1))

    if between:
        low, high = _integer(low_a or low_b), _integer(high_a or high_b)
        if low is None or high is None or not 0 <= low <= high <= largest:
            return set()
        return {count(low, high + 1), count(low + 1, high)}
    top = _integer(top_a or top_b)
    if top is None or not 0 < top <= largest:
        return set()
    return {count(0, top)}


def _differs_from_all(counts: set[int], gold: str) -> bool:
    return bool(counts) and all(_differs(sympy.Integer(count), gold) for count in counts)


def _closest_option(target: str, problem: str) -> str | None:
    """The letter of the numeric option nearest to ``target``'s value, where one is clearly
    nearest (ties and near-ties give None)."""
    value = _value(target)
    options = problem_options(problem)
    if value is None or len(options) < 2:
        return None
    try:
        goal = float(value.evalf())
        distances = sorted(
            (abs(float(_value(body).evalf()) - goal), letter) for letter, body in options.items()
        )
    except (AttributeError, TypeError, ValueError):
        return None  # an option or the value is not a number
    (nearest, letter), (runner_up, _) = distances[0], distances[1]
    return letter if runner_up - nearest > _TOLERANCE * max(1.0, abs(goal)) else None


def _other_letter(letter: str | None, gold: str) -> bool:
    stated = _GOLD_LETTER.match(_GOLD_WORD.sub(r"\1", gold))
    return letter is not None and stated is not None and stated.group(1) != letter


def _finite_sum(index: str, low: str, high: str, term: str) -> sympy.Expr | None:
    """The sum of ``term`` for ``index`` from ``low`` to ``high``, term by term."""
    if _UNREADABLE.search(term) or not 0 <= int(high) - int(low) < _MOST_TERMS:
        return None
    value = _value(term)
    if value is None or {s.name for s in value.free_symbols} != {index}:
        return None
    (symbol,) = value.free_symbols
    return sympy.Add(*(value.subs(symbol, k) for k in range(int(low), int(high) + 1)))


def _worked_from_the_numbers(question: str) -> tuple[sympy.Expr, ...]:
    """The answers of a short word problem whose every number is one a known formula takes
    (a rectangle's area or perimeter, a hypotenuse, a regular polygon's perimeter, a percent
    change with or without its sign, the spread, mean or median of a listed sample); none
    where it is not such a problem."""
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", question.strip()) if s]
    asked = sentences[-1].lower() if sentences else ""
    numbers = _ANY_NUMBER.findall(question)
    if (rectangle := _RECTANGLE.search(question)) and len(numbers) == 2:
        if {rectangle.group(1).lower(), rectangle.group(3).lower()} != {"length", "width"}:
            return ()
        length, width = sympy.Rational(rectangle.group(2)), sympy.Rational(rectangle.group(4))
        if "perimeter" in asked:
            return (2 * (length + width),)
        return (length * width,) if "area" in asked else ()
    if (legs := _LEGS.search(question)) and len(numbers) == 2 and "hypotenuse" in asked:
        return (
            sympy.sqrt(sympy.Rational(legs.group(1)) ** 2 + sympy.Rational(legs.group(2)) ** 2),
        )
    if (polygon := _REGULAR_POLYGON.search(question)) and len(numbers) == 1:
        sides = _POLYGON_SIDES[polygon.group(1).lower()]
        return (sides * sympy.Rational(polygon.group(2)),) if "perimeter" in asked else ()
    if (change := _FROM_TO.search(question)) and len(numbers) == 2 and "percent" in asked:
        before, after = sympy.Rational(change.group(1)), sympy.Rational(change.group(2))
        if before == 0 or not re.search(r"\b(?:increase|decrease|change)\b", asked):
            return ()
        percent = (after - before) / before * 100
        return (percent, -percent)  # "-15%", or "15%" with the sign said in words
    spread = _spread_of_a_sample(question, asked, numbers)
    return () if spread is None else (spread,)


def _spread_of_a_sample(question: str, asked: str, numbers: list[str]) -> sympy.Expr | None:
    """The standard deviation or variance of a listed sample or population (as the problem
    names it), or the mean or median of a list, where the problem has no other numbers but
    the list's length."""
    data = _DATA.search(question)
    if data is None:
        return None
    values = [sympy.Rational(v) for v in re.findall(r"-?\d+(?:\.\d+)?", data.group(0))]
    others = _ANY_NUMBER.findall(question[: data.start()] + question[data.end() :])
    if any(int(float(n)) != len(values) for n in others) or len(numbers) > len(values) + 1:
        return None
    measure = _MEASURE_ASKED.search(asked)
    if measure is None:
        return None
    named = measure.group(1)
    mean = sympy.Add(*values) / len(values)
    if named in {"mean", "average"}:
        return mean
    if named == "median":
        ordered, middle = sorted(values), len(values) // 2
        return ordered[middle] if len(values) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    convention = _CONVENTION.search(question)
    if convention is None:
        return None  # the sample's or the population's: the question does not say
    squares = sympy.Add(*((v - mean) ** 2 for v in values))
    divisor = len(values) - 1 if convention.group(1).lower() == "sample" else len(values)
    variance = squares / divisor
    return variance if named == "variance" else sympy.sqrt(variance)


def _differs_as_rounded(expected: sympy.Expr, gold: str) -> bool:
    """True when the gold, units and percent signs aside, is not ``expected``, nor its
    rounding to the gold's own decimal places."""
    plain = _UNIT_WORDS.sub("", gold).strip()
    rounded = _ROUNDED_GOLD.fullmatch(plain)
    if rounded is None:
        return _differs(expected, plain)
    places = len(rounded.group(1))
    return abs(float(expected) - float(plain)) > 0.5 * 10**-places + 1e-9
