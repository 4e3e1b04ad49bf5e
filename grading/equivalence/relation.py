"""Answers equal to the gold on the curve the problem gives, not everywhere.

An implicit derivative is written in two variables ("Given $xy = 1$, find $dy/dx$": gold
``-\\frac{y}{x}``), and an answer may have solved the relation first (``-\\frac{1}{x^2}``).
The two are one function on the curve though different expressions in the plane. The
problem's own equation, solved for the variable the answer lacks, is put into the gold; equal
on every branch of the curve is equal, equal on only some (``y = \\sqrt{25 - x^2}`` of a
circle) is for a reviewer.
"""

from __future__ import annotations

import re
from enum import Enum

import sympy

from grading.equivalence import probe
from grading.evaluators.symbolic import parse_answer

_EQUATION = re.compile(r"\$([^$=]{1,80}=[^$=]{1,80})\$")
_MOST_BRANCHES = 4


class OnTheCurve(Enum):
    NOWHERE = "nowhere"  # not equal, or no relation to put in
    EVERY_BRANCH = "every_branch"
    SOME_BRANCHES = "some_branches"


def equal_on_the_curve(gold: str, answer: str, problem: str) -> OnTheCurve:
    """Whether ``answer`` equals ``gold`` once the problem's equation ties the variable the
    answer lacks to the others."""
    if "=" not in problem:
        return OnTheCurve.NOWHERE
    gold_value, answer_value = _expression(gold), _expression(answer)
    if gold_value is None or answer_value is None:
        return OnTheCurve.NOWHERE
    extra = gold_value.free_symbols - answer_value.free_symbols
    if len(extra) != 1 or not answer_value.free_symbols:
        return OnTheCurve.NOWHERE
    (variable,) = extra
    for relation in _EQUATION.findall(problem):
        branches = _solved_for(relation, variable)
        if not branches:
            continue
        equal = [
            probe.numerically_equal(gold_value.subs(variable, b), answer_value) for b in branches
        ]
        if all(equal):
            return OnTheCurve.EVERY_BRANCH
        if any(equal):
            return OnTheCurve.SOME_BRANCHES
    return OnTheCurve.NOWHERE


def _expression(text: str) -> sympy.Expr | None:
    value = parse_answer(text).first
    if isinstance(value, sympy.Eq):  # "\frac{dy}{dx} = -\frac{x}{y}"
        value = value.rhs
    return value if isinstance(value, sympy.Expr) and value.free_symbols else None


def _solved_for(relation: str, variable: sympy.Symbol) -> list[sympy.Expr]:
    """The relation's solutions for ``variable``, where SymPy finds a few."""
    left, _, right = relation.partition("=")
    sides = [_side(left), _side(right)]
    if None in sides:
        return []
    difference = sides[0] - sides[1]
    if variable not in difference.free_symbols:  # parsed alike, the symbols are the gold's
        return []
    try:
        solutions = sympy.solve(difference, variable)
    except (NotImplementedError, ValueError, TypeError):
        return []
    return solutions if 0 < len(solutions) <= _MOST_BRANCHES else []


def _side(text: str) -> sympy.Expr | None:
    value = parse_answer(text).first
    return value if isinstance(value, sympy.Expr) else None
