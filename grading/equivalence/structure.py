"""Structural readings of parsed answers: what a SymPy value can be read as.

An equation names its value on its right-hand side (``f(x) = …``), a solved inequality is the
set it describes, a column vector is a tuple, ``x = 3, y = 1`` is a pair, ``i`` is the
imaginary unit. ``readings`` lists a value's readings, most literal first; ``same`` decides
two readings equal; the rest are the checks around them (equivalent equations, closeness for
near misses, a renamed variable, an unfinished factoring).
"""

from __future__ import annotations

import re

import sympy
from latex2sympy2_extended.sets import FiniteSet as LatexFiniteSet

from grading.equivalence import probe
from grading.evaluators.symbolic import parse_answer

_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
_COMMAND = re.compile(r"\\[A-Za-z]+")


def readings(value: object) -> list[object]:
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
    vector = as_tuple(value)
    if vector is not None:
        readings.append(vector)
        value = vector
    if isinstance(value, sympy.Interval) and value.left_open and value.right_open:
        # "(1, 5)" parses as an open interval but is as often the ordered pair
        readings.append(sympy.Tuple(value.start, value.end))
    if readings[-1] is not value:
        readings.append(value)
    return readings


def set_to_zero(value: object) -> object | None:
    """The expression ``p(x) = 0`` sets to zero: "x^2 - 4x + 1 = 0" states the polynomial
    a question asks for. None for anything else."""
    if isinstance(value, sympy.Eq) and value.rhs == 0 and value.lhs.free_symbols:
        return value.lhs
    return None


def _is_head(side: object) -> bool:
    """A symbol, a function of symbols (``f(x)``, ``f^{-1}(y)``) or a derivative: the name of
    what an equation gives the value of."""
    if isinstance(side, sympy.Symbol | sympy.Derivative):
        return True
    if isinstance(side, sympy.Pow) and side.exp == -1:  # f^{-1}(y) parses as 1/f(y)
        side = side.base
    # Only a function the answer names (f, g, h): ``\\sin(x) = \\frac{42}{59}`` is a relation
    # whose left-hand side matters, not the value of "sin".
    return isinstance(side, sympy.core.function.AppliedUndef) and all(
        isinstance(a, sympy.Symbol) for a in side.args
    )


def names_another_letter(gold: object, answer: object) -> bool:
    """Two equations for a single letter each, and not the same letter (``x = 3``, ``y = 3``)."""
    return (
        isinstance(gold, sympy.Eq)
        and isinstance(answer, sympy.Eq)
        and gold.lhs.is_Symbol
        and answer.lhs.is_Symbol
        and gold.lhs != answer.lhs
    )


def equivalent_equations(gold: object, answer: object) -> bool:
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


def close(gold: object, answer: object) -> bool:
    """Every number of ``answer`` within 1% of the gold's, in the same structure (a number,
    a tuple, set or matrix, an interval), or an expression within 1% of the gold's at every
    probe point; for "approximately right" doubts, never for equality."""
    if _is_expression_with_variables(gold) and _is_expression_with_variables(answer):
        return (
            answer.has(sympy.Float)
            and probe.numerically_equal(gold, answer, tolerance=probe.CLOSE) is True
        )
    pairs = _number_pairs(gold, answer)
    # Two different integers or fractions are simply different; "nearly" needs a decimal
    # (a rounded value) on either side or a gold that is not rational (an exact value
    # rounded).
    if not pairs or not any(
        a.has(sympy.Float) or g.has(sympy.Float) or not g.is_rational for g, a in pairs
    ):
        return False
    try:
        return all(
            abs(g - a) <= sympy.Rational(1, 100) * (max(abs(g), abs(a)) if g else _NEAR_ZERO)
            for g, a in ((sympy.N(g, 20), sympy.N(a, 20)) for g, a in pairs)
        )
    except (TypeError, ValueError):
        return False


# How near 0 a number must be to be "nearly" a gold of 0; other golds are compared relatively
# (4.7e-6 is not nearly 4.7e-5).
_NEAR_ZERO = sympy.Rational(1, 10_000)


def _is_expression_with_variables(value: object) -> bool:
    return isinstance(value, sympy.Expr) and bool(value.free_symbols)


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
    if _is_set(gold) and _is_set(answer):
        # Sets of real numbers, paired in increasing order.
        ordered = [_sorted_numbers(gold), _sorted_numbers(answer)]
        if None in ordered or len(ordered[0]) != len(ordered[1]):
            return []
        return list(zip(ordered[0], ordered[1], strict=True))
    gold_parts, answer_parts = _entries(gold), _entries(answer)
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


def _is_set(value: object) -> bool:
    return isinstance(value, sympy.FiniteSet | LatexFiniteSet)


def _sorted_numbers(value: object) -> list | None:
    numbers = list(value.args)
    if not all(isinstance(n, sympy.Expr) and n.is_number and n.is_real for n in numbers):
        return None
    try:
        return sorted(numbers, key=lambda n: float(sympy.N(n)))
    except (TypeError, ValueError):
        return None


def _entries(value: object) -> sympy.Tuple | None:
    """A tuple's entries, a matrix's entries row by row (shape checked by the count)."""
    if isinstance(value, sympy.MatrixBase):
        return sympy.Tuple(*value.shape, *value)
    if isinstance(value, sympy.Tuple):
        return value
    return as_tuple(value)


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
            and all(isinstance(a, sympy.Rel | sympy.And) and _solved(a) for a in value.args)
        ):
            symbols = set().union(*(a.free_symbols for a in value.args))
            if len(symbols) == 1:
                sets = [a.as_set() for a in value.args]
                if any(isinstance(a, sympy.Ne) for a in value.args):
                    # "x \ge 2, x \ne 5": a value left out of a set, not a second set
                    return sympy.Intersection(*sets)
                return sympy.Union(*sets)
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


def letter_cancels(text: str) -> bool:
    """A written expression whose value has lost a letter it writes ("(x+1) - x" is 1): like
    terms left uncombined."""
    written = set(_LETTER.findall(_COMMAND.sub(" ", text)))
    if not written:
        return False
    value = parse_answer(text).first
    if not isinstance(value, sympy.Expr):
        return False
    # one symbol per name: the parser may make "{x}" and "x" two symbols that do not cancel
    value = value.xreplace({symbol: sympy.Symbol(symbol.name) for symbol in value.free_symbols})
    return bool(written - {symbol.name for symbol in value.free_symbols})


def common_factor_left(numerator: str, denominator: str) -> bool:
    """A fraction whose numerator and denominator, each as written, share a factor with a
    variable: ``\\frac{(x-2)^2}{(x-2)(x+2)}``. Parsed whole, SymPy would cancel it."""
    top, bottom = parse_answer(numerator).values, parse_answer(denominator).values
    if not top or not bottom or not all(isinstance(v, sympy.Expr) for v in (top[0], bottom[0])):
        return False
    try:
        return bool(sympy.gcd(top[0], bottom[0]).free_symbols)
    except Exception:  # not polynomials: no common factor SymPy can show
        return False


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


def as_tuple(value: object) -> sympy.Tuple | None:
    """A row or column vector as the tuple of its entries."""
    if isinstance(value, sympy.MatrixBase) and 1 in value.shape:
        return sympy.Tuple(*value)
    if isinstance(value, tuple):
        return sympy.Tuple(*value)
    return None


def same(first: object, second: object) -> bool:
    if first is second:
        return True
    try:
        if isinstance(first, sympy.Tuple) and isinstance(second, sympy.Tuple):
            return len(first) == len(second) and all(
                same(a, b) for a, b in zip(first, second, strict=True)
            )
        if isinstance(first, sympy.FiniteSet) and isinstance(second, sympy.FiniteSet):
            return len(first) == len(second) and all(
                any(same(a, b) for b in second.args) for a in first.args
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


def renamed(gold: object, answer: object) -> tuple[str, object] | None:
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
