"""Sets of real numbers, however an answer describes them: intervals and their unions
("(-\\infty, -3) \\cup [3, \\infty)", "]-\\infty ; -3["), inequalities ("-2 < x \\le 5",
"x < -1 or x > 3", "2 \\le |x| \\le 4", "|x - 1| < 2"), set-builder notation
("\\{x \\mid x < -3\\} \\cup \\{x \\mid x \\ge 3\\}"), complements ("\\mathbb{R} \\setminus \\{2\\}",
"all real numbers except x = 3 and x = -3") and words ("every real number", "between 4 and 8,
inclusive", "greater than or equal to 1", "no solution"). Two descriptions are the same set
when they agree on every bound either names, just beside it and between bounds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from grading.equivalence.check import numeric_value

Region = Callable[[float], bool]

_MARKUP = re.compile(
    r"\$|\\[,;!: ]|\\left|\\right|\\big|\\Big|\\displaystyle|\\quad|\\qquad|\*\*"
    r"|\\text\s*\{([^{}]*)\}|\\mathrm\s*\{([^{}]*)\}|\\textbf\s*\{([^{}]*)\}"
)
_NUMBER = r"(?:[-+−]?\s*(?:\\infty|∞|\\[dt]?frac\{[^{}]+\}\{[^{}]+\}|\\sqrt\{[^{}]+\}|\d+(?:\.\d+)?(?:/\d+)?)(?:\s*\\sqrt\{[^{}]+\})?)"
_INTERVAL = re.compile(rf"^\s*([(\[\]])\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*([)\]\[])\s*$")
_UNION = re.compile(r"\\cup|∪|\bor\b(?!\s+equal)|\boder\b|\bou\b|\bo\b")
_INTERSECTION = re.compile(r"\band\b|\\land|\\wedge|,(?=\s*[a-z|]\s*(?:[<>≤≥≠]|\\[lg]|\\ne))")
_RELATION = re.compile(r"\\leq?(?:slant)?|\\geq?(?:slant)?|\\lt|\\gt|\\neq?|≤|≥|≠|<|>|=")
_RELATIONS = {
    "<": lambda a, b: a < b, "\\lt": lambda a, b: a < b,
    ">": lambda a, b: a > b, "\\gt": lambda a, b: a > b,
    "≤": lambda a, b: a <= b, "\\le": lambda a, b: a <= b, "\\leq": lambda a, b: a <= b,
    "\\leqslant": lambda a, b: a <= b,
    "≥": lambda a, b: a >= b, "\\ge": lambda a, b: a >= b, "\\geq": lambda a, b: a >= b,
    "\\geqslant": lambda a, b: a >= b,
    "≠": lambda a, b: a != b, "\\ne": lambda a, b: a != b, "\\neq": lambda a, b: a != b,
    "=": lambda a, b: a == b,
}  # fmt: skip
# The variable side of an inequality: x, |x|, |x - 3|, |2x + 1|.
_VARIABLE_SIDE = re.compile(
    r"^\s*(?:\|\s*(-?\d*(?:\.\d+)?)\s*([a-z])\s*(?:([+-])\s*(\d+(?:\.\d+)?))?\s*\||(-?)([a-z]))\s*$"
)
_SET_BUILDER = re.compile(
    r"^\s*\\?\{\s*[a-z]\s*(?:\\in\s*\\mathbb\s*\{?R\}?\s*)?(?:\\mid|\||:)\s*(.*?)\s*\\?\}\s*$"
)
_ALL_REALS = re.compile(
    r"^(?:[\w\s]*?\b(?:holds|true|valid|satisfied)\s+for\s+|the\s+solution(?:\s+set)?\s+is\s+)?"
    r"(?:all|every|any)\s+reals?(?:\s+numbers?)?(?:\s+[a-z])?$"
    r"|^\\mathbb\s*\{?R\}?$|^ℝ$|^\(\s*-\s*\\infty\s*,\s*\+?\s*\\infty\s*\)$",
    re.IGNORECASE,
)
_EMPTY = re.compile(
    r"^(?:\\emptyset|\\varnothing|∅|\\\{\s*\\\}|no\s+(?:real\s+)?solutions?)$", re.I
)
_EXCEPT = re.compile(
    r"^(?:all|every)\s+reals?(?:\s+numbers?)?\s+(?:except|but|other\s+than)\s+(?:for\s+)?(.+)$"
    r"|^\\mathbb\s*\{?R\}?\s*(?:\\setminus|-|\\backslash)\s*\\?\{(.+?)\\?\}$",
    re.IGNORECASE,
)
_BETWEEN = re.compile(
    rf"^(?:[a-z]\s+is\s+)?between\s+({_NUMBER})\s+and\s+({_NUMBER})\s*,?\s*(inclusive|exclusive)?$",
    re.IGNORECASE,
)
_WORD_BOUND = re.compile(
    r"^(?:all\s+real\s+numbers\s+|[a-z]\s+is\s+|every\s+real\s+number\s+)?"
    r"(greater\s+than\s+or\s+equal\s+to|less\s+than\s+or\s+equal\s+to|greater\s+than|less\s+than"
    rf"|at\s+least|at\s+most|no\s+less\s+than|no\s+more\s+than)\s+({_NUMBER})$",
    re.IGNORECASE,
)
_WORD_RELATIONS = {
    "greater than or equal to": "≥", "at least": "≥", "no less than": "≥",
    "less than or equal to": "≤", "at most": "≤", "no more than": "≤",
    "greater than": ">", "less than": "<",
}  # fmt: skip
_OUTER_PAUSE = re.compile(r"^[\s.:*]+|[\s.:*]+$")
# Statements of one set joined as equal or equivalent: "\{x \mid x \le 4\} = (-\infty, 4]",
# "\lfloor x \rfloor = 3 \iff 3 \le x < 4".
_EQUIVALENT = re.compile(r"\\iff|\\Leftrightarrow|\\Longleftrightarrow|⟺|⇔")
_EQUALS = re.compile(r"(?<![<>!\\])=")
# Both signs: a bound written with ± ("x \ne \pm 3", "x = \pm 2"); not \pmod.
PLUS_MINUS = re.compile(r"\\pm(?![a-z])|±")


def same_reals(gold: str, answer: str) -> bool | None:
    """Whether the two describe the same set of real numbers; None when either is not read."""
    gold_region, answer_region = _region(gold), _region(answer)
    if gold_region is None or answer_region is None:
        return None
    points = _probe_points(gold, answer)
    return all(gold_region(p) == answer_region(p) for p in points)


def disagrees_with(
    text: str, contains: Callable[[float], bool], bounds: Iterable[float] = ()
) -> bool:
    """Whether ``text`` describes a set of reals other than the one ``contains`` tests, at a
    point beside a bound of either (``bounds``: the other set's); False when it is not read."""
    region = _region(text)
    if region is None:
        return False
    return any(region(p) != contains(p) for p in _probe_points(text, bounds=tuple(bounds)))


_OR = re.compile(r"\bor\b(?!\s+equal)")


def nested_choice(answer: str) -> bool:
    """Two sets offered with "or", one strictly inside the other ("x > 0 or x ≥ 0"): no one
    writes a union that way, so it is a choice between two answers, not one set."""
    plain = _MARKUP.sub(lambda m: next((g for g in m.groups() if g), ""), answer)
    pieces = [p.strip() for p in _OR.split(plain.replace("−", "-")) if p.strip()]
    if len(pieces) != 2:
        return False
    regions = [_intersection(_OUTER_PAUSE.sub("", piece)) for piece in pieces]
    if any(region is None for region in regions):
        return False
    first, second = regions
    inside = [(first(p), second(p)) for p in _probe_points(answer)]
    differ = any(a != b for a, b in inside)
    return differ and (all(b or not a for a, b in inside) or all(a or not b for a, b in inside))


@lru_cache(maxsize=2048)
def _region(text: str) -> Region | None:
    plain = _MARKUP.sub(lambda m: next((g for g in m.groups() if g), ""), text)
    plain = _OUTER_PAUSE.sub("", re.sub(r"\s+", " ", plain.replace("−", "-")))
    return _union(plain) or _equivalent_statements(plain)


def _equivalent_statements(text: str) -> Region | None:
    """The set a chain of statements says is one set: each side of "=" a description of a
    set ("\\{x \\mid x \\le 4\\} = (-\\infty, 4]"), or the last statement "\\iff" leads to
    (its first side may be a condition no set reads, "\\lfloor x \\rfloor = 3"); sides that
    read as sets must all name the same one."""
    statements = [part.strip() for part in _EQUIVALENT.split(text)]
    if len(statements) > 1:
        regions = [_union(statement) for statement in statements]
        read = [region for region in regions if region is not None]
        if regions[-1] is None:
            return None
    else:
        sides = [side.strip() for side in _EQUALS.split(text)]
        if len(sides) < 2:
            return None
        read = [_union(side) for side in sides]
        if any(region is None for region in read):
            return None
    points = _probe_points(text)
    if any(region(p) != read[-1](p) for region in read[:-1] for p in points):
        return None
    return read[-1]


def _union(text: str) -> Region | None:
    whole = _phrase(text)
    if whole is not None:  # "between 4 and 8, inclusive": its "and" joins no two sets
        return whole
    pieces = [p.strip() for p in _UNION.split(text) if p.strip()]
    if not pieces:
        return None
    regions = [_intersection(piece) for piece in pieces]
    if any(region is None for region in regions):
        return None
    return lambda x: any(region(x) for region in regions)


def _intersection(text: str) -> Region | None:
    pieces = [p.strip() for p in _INTERSECTION.split(text) if p.strip()]
    if len(pieces) > 1:
        regions = [_piece(piece) for piece in pieces]
        if any(region is None for region in regions):
            return None
        return lambda x: all(region(x) for region in regions)
    return _piece(text)


def _piece(text: str) -> Region | None:
    text = _OUTER_PAUSE.sub("", text)
    whole = _phrase(text)
    if whole is not None:
        return whole
    interval = _INTERVAL.match(text)
    if interval is not None:
        return _interval(*interval.groups())
    return _inequality(text)


def _phrase(text: str) -> Region | None:
    """A set said in one phrase: all reals, none, set-builder, a complement, words."""
    text = _OUTER_PAUSE.sub("", text)
    if _ALL_REALS.match(text):
        return lambda x: True
    if _EMPTY.match(text):
        return lambda x: False
    built = _SET_BUILDER.match(text)
    if built is not None:
        return _union(built.group(1))
    excepted = _EXCEPT.match(text)
    if excepted is not None:
        values = _values(excepted.group(1) or excepted.group(2))
        return None if values is None else (lambda x: all(abs(x - v) > 1e-12 for v in values))
    between = _BETWEEN.match(text)
    if between is not None:
        low, high = _number(between.group(1)), _number(between.group(2))
        if low is None or high is None:
            return None
        if not between.group(3):
            return None  # "between 4 and 8": whether the ends count is not said
        if between.group(3).lower() == "inclusive":
            return lambda x: low <= x <= high
        return lambda x: low < x < high
    worded = _WORD_BOUND.match(text)
    if worded is not None:
        relation = _WORD_RELATIONS[re.sub(r"\s+", " ", worded.group(1).lower())]
        bound = _number(worded.group(2))
        return None if bound is None else (lambda x: _RELATIONS[relation](x, bound))
    return None


def _interval(opening: str, low_text: str, high_text: str, closing: str) -> Region | None:
    low, high = _number(low_text), _number(high_text)
    if low is None or high is None or low > high:
        return None
    low_closed, high_closed = opening == "[", closing == "]"
    return lambda x: (
        (low < x or (low_closed and x == low)) and (x < high or (high_closed and x == high))
    )


def _inequality(text: str) -> Region | None:
    """A chain of comparisons in which one side is the variable ("-2 < x \\le 5", "x \\ne 3",
    "2 \\le |x| \\le 4")."""
    relations = [m.group(0) for m in _RELATION.finditer(text)]
    sides = [side.strip() for side in _RELATION.split(text)]
    if not relations or ("=" in relations and len(relations) > 1):
        return None
    variable_at = [i for i, side in enumerate(sides) if _VARIABLE_SIDE.match(side)]
    if len(variable_at) != 1:
        return None
    where = variable_at[0]
    function = _variable_function(_VARIABLE_SIDE.match(sides[where]))
    both_signs = len(sides) == 2 and PLUS_MINUS.match(sides[1 - where]) is not None
    if both_signs and relations[0] in ("=", "≠", "\\ne", "\\neq"):
        # "x \ne \pm 3" excludes both; "x = \pm 2" names both
        bound = _number(PLUS_MINUS.sub("", sides[1 - where], count=1))
        if bound is None:
            return None
        if relations[0] == "=":
            return lambda x: function(x) in (bound, -bound)
        return lambda x: function(x) not in (bound, -bound)
    bounds = [None if i == where else _number(side) for i, side in enumerate(sides)]
    if any(bound is None for i, bound in enumerate(bounds) if i != where):
        return None
    checks = [_RELATIONS.get(relation) for relation in relations]
    if any(check is None for check in checks):
        return None

    def holds(x: float) -> bool:
        values = [function(x) if i == where else bounds[i] for i in range(len(sides))]
        return all(check(values[i], values[i + 1]) for i, check in enumerate(checks))

    return holds


def _variable_function(match: re.Match) -> Callable[[float], float]:
    scale_text, _, sign, offset_text, negated, _ = match.groups()
    if match.group(6):  # x or -x
        return (lambda x: -x) if negated else (lambda x: x)
    scale = float(scale_text) if scale_text not in ("", "-") else (-1.0 if scale_text else 1.0)
    offset = float(offset_text or 0) * (-1 if sign == "-" else 1)
    return lambda x: abs(scale * x + offset)


def _values(text: str) -> list[float] | None:
    parts = re.split(r"\s*(?:,|\band\b|\bor\b)\s*", re.sub(r"\b[a-z]\s*=\s*", "", text))
    values = [_number(part) for part in parts if part.strip()]
    return None if not values or any(v is None for v in values) else values


def _number(text: str) -> float | None:
    text = text.replace(" ", "").replace("−", "-").replace("∞", "\\infty")
    if text.lstrip("+-") == "\\infty":
        return float("-inf") if text.startswith("-") else float("inf")
    return numeric_value(text)


_BOUND_TEXT = re.compile(_NUMBER)


def _probe_points(*texts: str, bounds: tuple[float, ...] = ()) -> list[float]:
    """Every finite bound either text names (and ``bounds``), just beside it, its negative
    (|x| bounds name one side), between each pair, and far out."""
    bounds = sorted(
        {
            value
            for text in texts
            for match in _BOUND_TEXT.finditer(_MARKUP.sub(" ", text))
            if (value := _number(match.group(0))) is not None and abs(value) != float("inf")
        }
        | {value for value in bounds if abs(value) != float("inf")}
    )
    points = [-1e9, 1e9, *bounds]
    for value in bounds:
        step = 1e-6 * max(1.0, abs(value))
        points += [value - step, value + step, -value]
    points += [(a + b) / 2 for a, b in zip(bounds, bounds[1:], strict=False)]
    return points
