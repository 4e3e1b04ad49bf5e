"""Families of angles with an integer parameter, as the general solutions of trigonometric
equations are written: "x = \\frac{\\pi}{6} + 2k\\pi or x = \\frac{5\\pi}{6} + 2k\\pi, k \\in
\\mathbb{Z}", "\\pm\\frac{2\\pi}{3} + 2n\\pi", "(2k+1)\\pi", "n\\pi + (-1)^n\\frac{\\pi}{6}",
"45^\\circ + k \\cdot 180^\\circ". Two descriptions are the same set of angles when they give
the same angles in a window of several turns; the parser alone reads "+ 2k\\pi" as a variable
k, so "\\frac{2\\pi}{3} + 2k\\pi or \\frac{4\\pi}{3} + 2k\\pi" never equalled "\\pm\\frac{2\\pi}{3}
+ 2k\\pi".
"""

from __future__ import annotations

import math
import re

import sympy

from grading.evaluators.symbolic import parse_answer

# The integers each family is expanded over, and the window compared: the window stays well
# inside what the widest family used here (a period of 2π, or 360°) reaches from k = ±12.
_PARAMETERS = range(-12, 13)
_WINDOW = 3 * math.pi
_TOLERANCE = 1e-9
_PARAMETER = r"[knm]"
# A family: its integer parameter next to π or a multiple of 180°, or "(2k+1)\pi".
_FAMILY = re.compile(
    rf"(?<![A-Za-z\\]){_PARAMETER}\s*(?:\\cdot\s*)?\\pi|\\pi\s*{_PARAMETER}(?![A-Za-z])"
    rf"|\(\s*\d*\s*{_PARAMETER}\s*[+-]\s*\d+\s*\)\s*\\pi"
    rf"|(?<![A-Za-z\\]){_PARAMETER}\s*(?:\\cdot\s*)?\d+\s*(?:\^\s*\{{?\\circ\}}?|°)"
    rf"|\d+\s*(?:\^\s*\{{?\\circ\}}?|°)\s*(?:\\cdot\s*)?{_PARAMETER}(?![A-Za-z])"
    rf"|\\frac\{{\s*\d*\s*{_PARAMETER}\s*\\pi\s*\}}"
)
# What the parameter ranges over, said after the family: ", k \in \mathbb{Z}", "mit k ∈ ℤ",
# "where n is any integer".
_CONDITION = re.compile(
    r"[,;]?\s*(?:\\q?quad|\\text\s*\{\s*(?:where|for|with)\s*\}"
    r"|\b(?:where|for|with|mit|avec|con|para|com)\b)?\s*(?:all\s+|any\s+)?"
    r"[knm]\s*(?:\\in|∈)\s*(?:\\mathbb\s*\{?\s*Z\s*\}?|\\mathbf\s*\{\s*Z\s*\}|ℤ|\\Z)"
    r"|[,;]?\s*\b(?:where|for|with)\s+(?:some|any|all|every\s+)?\s*(?:[knm]\s+is\s+(?:an?|any)\s+)?"
    r"integers?(?:\s+[knm])?\b",
    re.IGNORECASE,
)
_ALTERNATIVES = re.compile(
    r"\\text\s*\{\s*(?:or|and|oder|ou|o|y|und)\s*\}|\b(?:or|oder|ou|und)\b|,|;|\\quad|\\qquad|\\lor"
)
_HEAD = re.compile(r"^\s*(?:[a-zA-Z]|\\theta|\\alpha|\\varphi|\\phi|θ)\s*=\s*")
_SET_BUILDER = re.compile(
    r"^\s*\\\{\s*[a-z]\s*(?:\\middle)?(?:\||\\mid|:)(.*)\\\}\s*$"  # after _MARKUP: no \left
)
_DEGREES = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°")
_MARKUP = re.compile(r"\$|\\[,;! ]|\\left|\\right|\\displaystyle|\\mathrm\s*\{([^{}]*)\}")


def is_family(text: str) -> bool:
    """Whether ``text`` describes angles by an integer parameter ("+ 2k\\pi", "k \\cdot 180°")."""
    return _FAMILY.search(text) is not None


def same_angles(gold: str, answer: str) -> bool | None:
    """Whether the two give the same angles; None when either is not read as families (or a
    list of angles)."""
    gold_angles, answer_angles = _angles(gold), _angles(answer)
    if gold_angles is None or answer_angles is None:
        return None
    return _covers(gold_angles, answer_angles) and _covers(answer_angles, gold_angles)


def _covers(first: list[float], second: list[float]) -> bool:
    return all(any(abs(a - b) < _TOLERANCE * (1 + abs(a)) for b in second) for a in first)


def _angles(text: str) -> list[float] | None:
    """The angles in the window, in radians, that ``text`` names; None when a part of it is
    not read."""
    text = _MARKUP.sub(lambda m: m.group(1) or "", text).strip().rstrip(".")
    built = _SET_BUILDER.match(text)
    if built is not None:  # "\{x \mid x = \frac{k\pi}{2} + \frac{\pi}{8}, k \in \mathbb{Z}\}"
        text = built.group(1)
    text = _CONDITION.sub("", text)
    angles: list[float] = []
    for part in _ALTERNATIVES.split(text):
        part = _HEAD.sub("", part.strip())
        if not part:
            continue
        for signed in _signs(part):
            values = _expand(signed)
            if values is None:
                return None
            angles.extend(values)
    return angles or None


def _signs(part: str) -> list[str]:
    """ "\\pm a + b": a + b and -a + b."""
    if "\\pm" not in part and "±" not in part:
        return [part]
    return [part.replace("\\pm", sign, 1).replace("±", sign, 1) for sign in ("+", "-")]


def _expand(part: str) -> list[float] | None:
    """The angles one family (or one angle) gives in the window."""
    degrees = _DEGREES.search(part) is not None
    plain = _DEGREES.sub("", part)
    parsed = parse_answer(plain)
    if not parsed.values or not isinstance(parsed.values[0], sympy.Expr):
        return None
    expression = parsed.values[0]
    symbols = [s for s in expression.free_symbols if s.name in ("k", "n", "m")]
    if len(symbols) > 1 or expression.free_symbols - set(symbols):
        return None
    scale = math.pi / 180 if degrees else 1.0
    try:
        if not symbols:
            return [float(expression) * scale]
        function = sympy.lambdify(symbols[0], expression, "math")
        values = [float(function(k)) * scale for k in _PARAMETERS]
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    return [value for value in values if abs(value) <= _WINDOW]
