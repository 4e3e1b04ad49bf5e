"""Is a stated answer equal in value to the gold? Math-verify first, then what it misses.

``compare_values(gold, answer)`` runs math-verify's parse and verify; only when they say "not
equal" does it try, in order: text synonyms (``\\emptyset`` for "no solution"), numbers in a
base (``(400)_5``), value-preserving rewrites of the text (repeating decimals, mixed numbers,
angle brackets, e-notation, Unicode), structural readings of the parsed values (an equation's
right-hand side, an inequality as the interval it describes, a column vector as a tuple,
``i`` as the imaginary unit) and finally the numeric probe. Each step that finds equality says
which it was (``method``), so a reviewer can see why an answer the library rejected is right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import sympy
from latex2sympy2_extended.sets import FiniteSet as LatexFiniteSet

from grading.equivalence import probe
from grading.equivalence.rewrite import (
    FORM_REWRITES,
    all_rewrites,
    base_digits,
    thousands_separators,
)
from grading.evaluators.symbolic import (
    Parsed,
    compare,
    equal_only_after_rounding,
    parse_answer,
)

# Phrases that name the same non-numeric answer, by the class they belong to.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "no_solution": (
        r"no\s+(?:real\s+)?solutions?",
        r"\\emptyset",
        r"\\varnothing",
        r"\\\{\s*\\\}",
        r"\{\s*\}",
        r"none",
        r"no\s+such\s+\w+",
    ),
    "does_not_exist": (r"d\.?n\.?e\.?", r"does\s*n[o']t\s+exist", r"undefined", r"not\s+defined"),
    "all_reals": (
        r"all\s+real\s+numbers",
        r"\\mathbb\s*\{?R\}?",
        r"\(\s*-\s*\\infty\s*,\s*\\infty\s*\)",
        r"ℝ",
    ),
}
_SYNONYM_PATTERNS = {
    name: re.compile(rf"^(?:\\text\{{)?\s*(?:x\s*\\in\s*)?(?:{'|'.join(forms)})\s*\}}?\.?$", re.I)
    for name, forms in _SYNONYMS.items()
}
_LIST = re.compile(r"(?<!\d),|,(?!\d{3}(?!\d))|;|\\text\{\s*(?:and|or)\s*\}")


@dataclass(frozen=True)
class Comparison:
    """Whether two answers are equal, and how that was decided."""

    equal: bool | None  # None: one side could not be read as mathematics
    method: str = ""  # "verify", "synonym", "base", "rewrite", "structure", "numeric_probe"
    undefined: bool = False  # a side is 0/0, nan or complex infinity: never equal
    renamed: str = ""  # "x->t" when equal only after renaming the single variable
    approximately: bool = False  # not equal, but every number within 1% of the gold's
    rewrites: tuple[str, ...] = ()  # the rewrites of the text that equality needed
    string_only: bool = False  # math-verify matched the two strings, not parsed values
    rounded: bool = False  # equal only after rounding away a difference in magnitude

    @property
    def changes_form(self) -> bool:
        """Equal only in another form (a structure, an identity, a repeating decimal), not
        just another spelling of the same form."""
        return bool(self.equal) and (
            self.method in ("structure", "numeric_probe")
            or bool(FORM_REWRITES.intersection(self.rewrites))
        )


def compare_values(gold: str, answer: str, *, allow_rename: bool = False) -> Comparison:
    """Whether ``answer`` states the value of ``gold`` (both LaTeX-ish answer strings).

    A chain of equal sides (``100_{10} = (400)_5``, ``48 = 8 \\times 6``) states each of
    them: it is equal when one side is and every side agrees with that one.
    """
    gold, answer = gold.strip(), answer.strip()
    sides = _chain_sides(answer)
    if len(sides) < 2 or _chain_sides(gold)[1:]:
        return _compare_cached(gold, answer, allow_rename)
    for side in reversed(sides):
        found = _compare_cached(gold, side, allow_rename)
        if found.equal:
            consistent = all(
                other is side or _compare_cached(side, other, False).equal for other in sides
            )
            return found if consistent else Comparison(False, found.method)
    return _compare_cached(gold, sides[-1], allow_rename)


def _chain_sides(text: str) -> list[str]:
    """The sides of ``a = b = c`` split at top-level equals signs (none inside brackets)."""
    if "=" not in text or re.search(r"[<>]|\\[lg]eq?\b|\\neq\b|\\approx", text):
        return [text]
    sides, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char in "{([") - (char in "})]")
        if char in ",;" and depth == 0:
            return [text]  # "x = -3, x = 2" lists answers; it is not a chain
        if char == "=" and depth == 0:
            sides.append(text[start:index].strip())
            start = index + 1
    sides = [side for side in (*sides, text[start:].strip()) if side]
    if len(sides) > 1 and _HEAD_SIDE.fullmatch(sides[0]):
        return sides[1:]  # "x = 2", "Total = 48 = 8 \times 6": the head is not a side
    if len(sides) == 2 and any(_LETTERS.search(side) for side in sides):
        return [text]  # "2x - y + 3 = 0" is an equation, not two names of one value
    return sides


@lru_cache(maxsize=8192)
def _compare_cached(gold: str, answer: str, allow_rename: bool) -> Comparison:
    if not gold or not answer:
        return Comparison(None)
    synonym = _synonym_class(gold), _synonym_class(answer)
    if synonym[0] or synonym[1]:
        if synonym[0] and synonym[0] == synonym[1]:
            return Comparison(True, "synonym")
        if synonym[0] and synonym[1]:
            return Comparison(False, "synonym")
    base = _compare_bases(gold, answer)
    if base is not None:
        return base
    if _CLOCK.match(gold) or _CLOCK.match(answer):  # "4:30 p.m." is a time, not a ratio
        return Comparison(_clock(gold) == _clock(answer), "synonym")
    gold, answer = _decimal_commas(gold, answer)
    gold_parsed, answer_parsed = parse_answer(gold), parse_answer(answer)
    undefined = _undefined(gold_parsed) or _undefined(answer_parsed)
    if undefined:
        return Comparison(False, "verify", undefined=True)
    verified = compare(gold_parsed, answer_parsed)
    if verified.correct:
        rounded = equal_only_after_rounding(verified.gold_value, verified.pred_value)
        return Comparison(True, "verify", string_only=verified.string_only, rounded=rounded)
    (rewritten_gold, gold_rewrites), (rewritten_answer, rewrites) = (
        all_rewrites(gold),
        all_rewrites(answer),
    )
    if not _LIST.search(gold):
        rewritten_answer = thousands_separators(rewritten_answer)
    if (rewritten_gold, rewritten_answer) != (gold, answer):
        gold_parsed, answer_parsed = parse_answer(rewritten_gold), parse_answer(rewritten_answer)
        if compare(gold_parsed, answer_parsed).correct:
            return Comparison(True, "rewrite", rewrites=gold_rewrites + rewrites)
    if not gold_parsed.values or not answer_parsed.values:
        return Comparison(None)
    return _compare_structures(gold_parsed.values[0], answer_parsed.values[0], allow_rename)


def _compare_structures(gold: object, answer: object, allow_rename: bool) -> Comparison:
    """Equal values math-verify's verify does not see as equal."""
    gold_forms, answer_forms = _readings(gold), _readings(answer)
    for gold_form in gold_forms:
        for answer_form in answer_forms:
            both_values = isinstance(gold_form, sympy.Expr) and isinstance(answer_form, sympy.Expr)
            if not both_values and _same(gold_form, answer_form):
                return Comparison(True, "structure")
    gold_value, answer_value = gold_forms[-1], answer_forms[-1]
    if probe.numerically_equal(gold_value, answer_value):
        return Comparison(True, "numeric_probe")
    if _equivalent_equations(gold_forms[0], answer_forms[0]):
        return Comparison(True, "numeric_probe")
    renamed = _renamed(gold_value, answer_value)
    if renamed is not None:
        symbol_pair, renamed_answer = renamed
        if probe.numerically_equal(gold_value, renamed_answer):
            if allow_rename:
                return Comparison(True, "numeric_probe", renamed=symbol_pair)
            return Comparison(False, "numeric_probe", renamed=symbol_pair)
    return Comparison(False, "numeric_probe", approximately=_close(gold_value, answer_value))


def _readings(value: object) -> list[object]:
    """The ways a parsed value can be read, most literal first, its plain value last."""
    readings = [value]
    value = _with_imaginary_unit(value)
    if isinstance(value, sympy.Eq) and _is_head(value.lhs):
        # "f^{-1}(y) = (y-3)/2", "y = 3x - 2": the right-hand side states the value; an
        # equation such as "7 = 11a + c" or "a + 3z = 0" is a relation, not a value.
        value = value.rhs
        readings.append(value)
    solutions = _assignments(value)
    if solutions is not None:
        readings.append(solutions)
        value = solutions
    as_set = _as_set(value)
    if as_set is not None:
        readings.append(as_set)
        value = as_set
    vector = _as_tuple(value)
    if vector is not None:
        readings.append(vector)
        value = vector
    if isinstance(value, sympy.Interval) and value.left_open and value.right_open:
        # "(1, 5)" parses as an open interval but is as often the ordered pair
        readings.append(sympy.Tuple(value.start, value.end))
    if readings[-1] is not value:
        readings.append(value)
    return readings


def _is_head(side: object) -> bool:
    """A symbol, a function of symbols (``f(x)``, ``f^{-1}(y)``) or a derivative: the name of
    what an equation gives the value of."""
    if isinstance(side, sympy.Symbol | sympy.Derivative):
        return True
    if isinstance(side, sympy.Pow) and side.exp == -1:  # f^{-1}(y) parses as 1/f(y)
        side = side.base
    return isinstance(side, sympy.Function | sympy.core.function.AppliedUndef) and all(
        isinstance(a, sympy.Symbol) for a in side.args
    )


def _equivalent_equations(gold: object, answer: object) -> bool:
    """Two equations of the same curve: ``2x + 4y - 3 = 0`` and ``y = -x/2 + 3/4`` have
    left-minus-right sides that are a constant multiple of each other."""
    if not isinstance(gold, sympy.Eq) or not isinstance(answer, sympy.Eq):
        return False
    first, second = gold.lhs - gold.rhs, answer.lhs - answer.rhs
    if not first.free_symbols or first.free_symbols != second.free_symbols:
        return False
    try:
        ratio = sympy.simplify(first / second)
    except Exception:
        return False
    return bool(ratio.is_number and ratio != 0 and ratio.is_finite)


def _close(gold: object, answer: object) -> bool:
    """Every number of ``answer`` within 1% of the gold's, in the same structure (a number,
    a tuple or vector, an interval); for "approximately right" doubts, never for equality."""
    pairs = _number_pairs(gold, answer)
    # Two different integers or fractions are simply different; "nearly" needs a decimal
    # (a rounded value) or a gold that is not rational (an exact value rounded).
    if not pairs or not any(
        a.has(sympy.Float) or not (g.is_rational or g.has(sympy.Float)) for g, a in pairs
    ):
        return False
    try:
        return all(
            abs(g - a) <= sympy.Rational(1, 100) * max(abs(g), abs(a), sympy.Rational(1, 100))
            for g, a in ((sympy.N(g, 20), sympy.N(a, 20)) for g, a in pairs)
        )
    except (TypeError, ValueError):
        return False


def _number_pairs(gold: object, answer: object) -> list[tuple]:
    if isinstance(gold, sympy.Expr) and isinstance(answer, sympy.Expr):
        if gold.is_number and answer.is_number and gold.is_real and answer.is_real:
            return [(gold, answer)]
        return []
    if isinstance(gold, sympy.Interval) and isinstance(answer, sympy.Interval):
        if (gold.left_open, gold.right_open) != (answer.left_open, answer.right_open):
            return []
        parts = [(gold.start, answer.start), (gold.end, answer.end)]
        finite = [(g, a) for g, a in parts if g.is_finite or a.is_finite]
        return finite if all(g.is_finite and a.is_finite for g, a in finite) else []
    gold_parts, answer_parts = _as_tuple(gold), _as_tuple(answer)
    if gold_parts is not None and len(gold_parts) == 1:  # "(\\begin{pmatrix}...)"
        return _number_pairs(gold_parts[0], answer)
    if answer_parts is not None and len(answer_parts) == 1:
        return _number_pairs(gold, answer_parts[0])
    if gold_parts is not None and answer_parts is not None and len(gold_parts) == len(answer_parts):
        pairs = []
        for g, a in zip(gold_parts, answer_parts, strict=True):
            inner = _number_pairs(g, a)
            if not inner:
                return []
            pairs.extend(inner)
        return pairs
    return []


def _with_imaginary_unit(value: object) -> object:
    """``i`` read as the imaginary unit (the parser makes it a symbol, with or without
    assumptions)."""
    if not isinstance(value, sympy.Basic):
        return value
    units = [s for s in getattr(value, "free_symbols", ()) if s.name == "i"]
    if not units:
        return value
    try:
        return value.subs({unit: sympy.I for unit in units})
    except Exception:
        return value


def _assignments(value: object) -> object | None:
    """``x = -3, x = 2`` as the set {-3, 2}; ``x = 3, y = 1`` as the tuple (3, 1), in the
    order of the variables' names."""
    if not isinstance(value, sympy.FiniteSet | LatexFiniteSet) or not value.args:
        return None
    if not all(isinstance(a, sympy.Eq) and isinstance(a.lhs, sympy.Symbol) for a in value.args):
        return None
    names = {a.lhs.name for a in value.args}
    if len(names) == 1:
        return sympy.FiniteSet(*(a.rhs for a in value.args))
    if len(names) == len(value.args):
        return sympy.Tuple(*(a.rhs for a in sorted(value.args, key=lambda a: a.lhs.name)))
    return None


def _as_set(value: object) -> object | None:
    """An inequality, or several joined by "or", as the set of reals it describes."""
    try:
        if isinstance(value, sympy.Rel | sympy.And | sympy.Or) and _solved(value):
            return value.as_set()
        if (
            isinstance(value, sympy.FiniteSet | LatexFiniteSet)
            and value.args
            and all(isinstance(a, sympy.Rel) and _solved(a) for a in value.args)
        ):
            symbols = set().union(*(a.free_symbols for a in value.args))
            if len(symbols) == 1:
                return sympy.Union(*(a.as_set() for a in value.args))
    except Exception:  # as_set refuses relations it cannot solve
        return None
    return None


def _solved(relation: object) -> bool:
    """``x < 3``, ``3 > x``, ``-1 < x < 2``: a relation solved for its one variable; ``2x + 3
    > 7`` restates a problem and is not read as the set it describes."""
    if isinstance(relation, sympy.And | sympy.Or):
        return all(_solved(part) for part in relation.args)
    if not isinstance(relation, sympy.Rel) or len(relation.free_symbols) != 1:
        return False
    sides = (relation.lhs, relation.rhs)
    return any(isinstance(side, sympy.Symbol) for side in sides) and any(
        side.is_number for side in sides
    )


def factoring_incomplete(gold: str, answer: str) -> bool:
    """An answer equal to a factored gold that is less factored: fewer factors with a
    variable, or a factor with a common numeric factor left inside (``(2x - 2)(x + 4)``)."""
    gold_value, answer_value = parse_answer(gold).values, parse_answer(answer).values
    if not gold_value or not answer_value:
        return False
    gold_factors, answer_factors = _factors(gold_value[0]), _factors(answer_value[0])
    if gold_factors is None or answer_factors is None:
        return False
    gold_contents = {_content(f) for f in gold_factors}
    return len(answer_factors) < len(gold_factors) or (
        gold_contents == {1} and any(_content(f) != 1 for f in answer_factors)
    )


def _factors(value: object) -> list | None:
    if not isinstance(value, sympy.Expr) or not value.free_symbols:
        return None
    parts = value.args if isinstance(value, sympy.Mul) else (value,)
    factors = []
    for part in parts:
        base, exponent = part.as_base_exp()
        if base.free_symbols:
            factors.extend(
                [base] * int(exponent) if exponent.is_Integer and exponent > 0 else [part]
            )
    return factors


def _content(factor: object) -> object:
    try:
        return abs(factor.as_content_primitive()[0])
    except Exception:
        return 1


def _as_tuple(value: object) -> sympy.Tuple | None:
    """A row or column vector as the tuple of its entries."""
    if isinstance(value, sympy.MatrixBase) and 1 in value.shape:
        return sympy.Tuple(*value)
    if isinstance(value, tuple):
        return sympy.Tuple(*value)
    return None


def _same(first: object, second: object) -> bool:
    if first is second:
        return True
    try:
        if isinstance(first, sympy.Tuple) and isinstance(second, sympy.Tuple):
            return len(first) == len(second) and all(
                _same(a, b) for a, b in zip(first, second, strict=True)
            )
        if isinstance(first, sympy.FiniteSet) and isinstance(second, sympy.FiniteSet):
            return len(first) == len(second) and all(
                any(_same(a, b) for b in second.args) for a in first.args
            )
        if isinstance(first, sympy.Set) and isinstance(second, sympy.Set):
            return bool(first == second) or bool(
                sympy.simplify(sympy.Complement(first, second)) == sympy.S.EmptySet
                and sympy.simplify(sympy.Complement(second, first)) == sympy.S.EmptySet
            )
        if isinstance(first, sympy.Expr) and isinstance(second, sympy.Expr):
            return probe.numerically_equal(first, second) is True
    except Exception:  # sympy cannot decide: not shown equal
        return False
    return False


def _renamed(gold: object, answer: object) -> tuple[str, object] | None:
    """The answer with its one variable renamed to the gold's, when each has exactly one."""
    if not isinstance(gold, sympy.Expr) or not isinstance(answer, sympy.Expr):
        return None
    gold_symbols, answer_symbols = gold.free_symbols, answer.free_symbols
    if len(gold_symbols) != 1 or len(answer_symbols) != 1 or gold_symbols == answer_symbols:
        return None
    (old,), (new,) = answer_symbols, gold_symbols
    if len(old.name) > 1 or len(new.name) > 1 or old.name.isupper() or new.name.isupper():
        return None  # words ("Saturday") and labels ("E"), not variables
    return f"{old}->{new}", answer.subs(old, new)


def _synonym_class(text: str) -> str:
    cleaned = text.strip().strip("$").strip()
    return next((name for name, p in _SYNONYM_PATTERNS.items() if p.match(cleaned)), "")


def _compare_bases(gold: str, answer: str) -> Comparison | None:
    """Numbers written in a base: ``(400)_5`` equals ``400_5`` and equals 100."""
    gold_digits, answer_digits = base_digits(gold), base_digits(answer)
    if gold_digits is None:
        return None
    if answer_digits is None:
        plain = answer.strip()
        if re.fullmatch(r"[0-9A-Fa-f]+", plain):
            # Bare digits of the gold's base, as answers in a base usually are written.
            return Comparison(plain.upper().lstrip("0") == gold_digits[0].lstrip("0"), "base")
        return None
    gold_value = int(gold_digits[0], gold_digits[1])
    answer_value = int(answer_digits[0], answer_digits[1])
    return Comparison(gold_value == answer_value, "base")


_DECIMAL_COMMA = re.compile(r"^\$?(-?\d+),(\d{1,2})\$?$")
_DECIMAL_POINT = re.compile(r"^\$?-?\d+\.\d+\$?$")


def _decimal_commas(gold: str, answer: str) -> tuple[str, str]:
    """``1000,99`` against ``1000.99``: a comma before one or two digits is a decimal comma
    when the other side writes a decimal point (otherwise "1,22" may list two numbers)."""
    if _DECIMAL_COMMA.match(gold) and _DECIMAL_POINT.match(answer):
        return _DECIMAL_COMMA.sub(r"\1.\2", gold), answer
    if _DECIMAL_COMMA.match(answer) and _DECIMAL_POINT.match(gold):
        return gold, _DECIMAL_COMMA.sub(r"\1.\2", answer)
    return gold, answer


_HEAD_SIDE = re.compile(
    r"[A-Za-z](?:_\{?\w+\}?)?(?:'|\\prime)*(?:\([a-z]\))?|\\text\{[^{}]*\}|[A-Za-z][A-Za-z ]+"
)
_LETTERS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]")
_CLOCK = re.compile(
    r"^\$?\s*\d{1,2}:\d{2}(?:\s*(?:\\text\{\s*)?[ap]\.?\s*m\.?\}?)?\.*\s*\$?$", re.I
)


def _clock(text: str) -> str:
    """A clock time as hours:minutes plus a.m./p.m. when given ("4:30 p.m." -> "4:30pm")."""
    return re.sub(r"[^0-9:apm]", "", text.lower().replace("\\text", ""))


def _undefined(parsed: Parsed) -> bool:
    return any(probe.is_undefined(v) for v in parsed.values[:1])
