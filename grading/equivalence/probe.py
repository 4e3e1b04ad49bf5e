"""The numeric probe: two expressions are equal when they agree at several points.

``simplify`` misses identities (``\\sin(90^\\circ - x)`` against ``\\cos x``, a factored
against an expanded polynomial it cannot match); evaluating both sides with mpmath at high
precision, at points no answer is tuned to, decides them. The points come from a generator
seeded by the two expressions, so a verdict never depends on what was graded before.
"""

from __future__ import annotations

import hashlib
import random

import mpmath
import sympy

# Working precision and the relative gap that still counts as equal at that precision.
DIGITS = 40
TOLERANCE = mpmath.mpf(10) ** -25
FLOAT_TOLERANCE = mpmath.mpf(10) ** -15
# The relative gap of "approximately equal" (a rounded coefficient), never of "equal".
CLOSE = mpmath.mpf(1) / 100
POINTS = 6
# Enough points must evaluate (not hit a pole or a domain error) for "equal" to stand.
MIN_POINTS = 4
MAX_SYMBOLS = 4
# Expressions bigger than this are not probed: real answers are small, and evaluating a huge
# tree costs more than the row is worth.
MAX_OPERATIONS = 150


def numerically_equal(
    first: sympy.Basic,
    second: sympy.Basic,
    *,
    tolerance: mpmath.mpf = TOLERANCE,
    positive: bool = False,
) -> bool | None:
    """True when both agree at every probe point, False when they differ at one, None when
    the probe cannot tell (not numbers, too big, or too few points evaluate).

    ``tolerance`` is the relative gap that still agrees; ``positive`` draws every variable
    from positive values only (lengths, rates, masses), where powers and roots of products
    follow the rules they break for negative or complex values."""
    if not isinstance(first, sympy.Expr) or not isinstance(second, sympy.Expr):
        return None
    if _too_big(first) or _too_big(second):
        return None
    if (first.has(sympy.Float) or second.has(sympy.Float)) and (
        first.has(sympy.I) or second.has(sympy.I)
    ):
        # "1.4" is stored in binary, a part in 10^16 off: "-0.8 + 1.4i" is -4/5 + 7/5 i (real
        # decimals are compared by math-verify first, which allows for this)
        tolerance = max(tolerance, FLOAT_TOLERANCE)
    symbols = sorted(first.free_symbols | second.free_symbols, key=lambda s: s.name)
    if len(symbols) > MAX_SYMBOLS:
        return None
    try:
        functions = [sympy.lambdify(symbols, e, modules="mpmath") for e in (first, second)]
    except Exception:  # lambdify cannot print some objects (unknown functions, sets)
        return None
    rng = random.Random(_seed(first, second))
    agreed = 0
    with mpmath.workdps(DIGITS):
        for _ in range(POINTS if symbols else 1):
            low = 0.2 if positive else -3
            point = [mpmath.mpf(rng.uniform(low, 3)) + mpmath.mpf(1) / 7 for _ in symbols]
            values = []
            for function in functions:
                try:
                    values.append(mpmath.mpmathify(function(*point)))
                except Exception:  # a pole, a domain error, an undefined function f(x)
                    values = []
                    break
            if len(values) < 2 or not all(_finite(v) for v in values):
                continue
            scale = max(mpmath.mpf(1), abs(values[0]), abs(values[1]))
            if abs(values[0] - values[1]) > tolerance * scale:
                return False
            agreed += 1
    needed = MIN_POINTS if symbols else 1
    return True if agreed >= needed else None


def real_odd_roots(expression: sympy.Expr) -> sympy.Expr:
    """Odd roots taken real, as a problem means them: SymPy's principal cube root of
    ``2 - \\sqrt5`` is complex, so ``\\sqrt[3]{2+\\sqrt5}+\\sqrt[3]{2-\\sqrt5}`` is not 1 to it."""
    return expression.replace(
        lambda e: e.is_Pow and e.exp.is_Rational and e.exp.q > 1 and e.exp.q % 2 == 1,
        lambda e: (sympy.sign(e.base) * sympy.Abs(e.base) ** sympy.Rational(1, e.exp.q)) ** e.exp.p,
    )


def is_undefined(value: object) -> bool:
    """True for values no answer can be: 0/0, complex infinity, nan, ``oo - oo``."""
    if not isinstance(value, sympy.Basic):
        return False
    try:
        return bool(value.has(sympy.nan, sympy.zoo))
    except Exception:
        return False


def _too_big(expression: sympy.Expr) -> bool:
    try:
        return sympy.count_ops(expression) > MAX_OPERATIONS
    except Exception:
        return True


def _finite(value: object) -> bool:
    try:
        return mpmath.isfinite(value)
    except TypeError:
        return False


def _seed(first: sympy.Basic, second: sympy.Basic) -> int:
    text = f"{sympy.srepr(first)}|{sympy.srepr(second)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
