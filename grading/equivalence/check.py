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

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import sympy
from sympy.logic.boolalg import Boolean

from grading.equivalence import calendar, families, integer_sets, probe, structure
from grading.equivalence.rewrite import (
    FORM_REWRITES,
    LATEX_SPACE,
    adjacent_binomials,
    all_rewrites,
    base_digits,
    thousands_separators,
    top_level_parts,
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
        r"(?:the\s+)?empty(?:\s+set)?",
        r"no\s+(?:point\s+of\s+)?intersection(?:\s+points?)?",  # two parallel lines
    ),
    "does_not_exist": (r"d\.?n\.?e\.?", r"does\s*n[o']t\s+exist", r"undefined", r"not\s+defined"),
    "infinitely_many": (
        r"infinitely\s+many(?:\s+solutions)?",
        r"an?\s+infinite\s+number(?:\s+of\s+solutions)?",
        r"\\infty",
        r"∞",
    ),
    "all_reals": (
        r"all\s+real\s+numbers",
        r"\\mathbb\s*\{?R\}?",
        r"\(\s*-\s*\\infty\s*,\s*\\infty\s*\)",
        r"ℝ",
        r"\\\{\s*[a-z]\s*(?:\\mid|\||:)\s*[a-z]\s*\\in\s*\\mathbb\s*\{?R\}?\s*\\\}",  # {x | x ∈ ℝ}
    ),
}
_SYNONYM_PATTERNS = {
    name: re.compile(rf"^(?:\\text\{{)?\s*(?:x\s*\\in\s*)?(?:{'|'.join(forms)})\s*\}}?\.?$", re.I)
    for name, forms in _SYNONYMS.items()
}
_BARE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_THOUSANDS_GROUP = re.compile(rf",(?:\s|{LATEX_SPACE})*\d{{3}}(?!\d)")
_SHORT_GOLD_CHARS = 80
_LIST = re.compile(r"(?<!\d),|,(?!\d{3}(?!\d))|;|\\text\{\s*(?:and|or)\s*\}")


@dataclass(frozen=True)
class Comparison:
    """Whether two answers are equal, and how that was decided."""

    equal: bool | None  # None: one side could not be read as mathematics
    method: str = ""  # "verify", "synonym", "base", "rewrite", "structure", "numeric_probe", …
    undefined: bool = False  # a side is 0/0, nan or complex infinity: never equal
    renamed: str = ""  # "x->t" when equal only after renaming the single variable
    approximately: bool = False  # not equal, but every number within 1% of the gold's
    rewrites: tuple[str, ...] = ()  # the rewrites of the text that equality needed
    string_only: bool = False  # math-verify matched the two strings, not parsed values
    rounded: bool = False  # equal only after rounding away a difference in magnitude
    positive_only: bool = False  # equal only where every variable is positive

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
    gold_cases, answer_cases = _cases(gold), _cases(answer)
    if gold_cases and answer_cases:
        # A piecewise function: the parser reads a cases block as a number, so each piece is
        # compared with the piece of the same condition
        return Comparison(_same_pieces(gold_cases, answer_cases), "structure")
    gold_parts = labelled_parts(gold)
    if gold_parts:
        # "(a) 5, (b) 8": each part against the answer's part of that label, or in that place
        answer_parts = labelled_parts(answer) or top_level_parts(answer)
        if len(answer_parts) == len(gold_parts):
            each = [
                _compare_cached(g, a, False) for g, a in zip(gold_parts, answer_parts, strict=True)
            ]
            return Comparison(all(c.equal for c in each), "structure")
    gold_named, answer_named = named_values(gold), named_values(answer)
    if gold_named and answer_named and gold_named.keys() == answer_named.keys():
        # "(x, y) = (4, 7)" and "y = 7, x = 4": each variable's value, whatever the order
        each = [_compare_cached(gold_named[k], answer_named[k], False) for k in gold_named]
        return Comparison(all(c.equal for c in each), "structure")
    if answer_named and not gold_named and _lettered(answer_named) and _one_tuple(gold):
        # "x = 1, z = 3, y = 2" against "(1, 2, 3)": a tuple lists the letters' values in
        # their order; math-verify would compare the values as a set, in any order
        answer = f"({', '.join(answer_named[name] for name in sorted(answer_named))})"
    if families.is_family(gold):
        # "\pm\frac{2\pi}{3} + 2k\pi": the angles of a general solution, not an expression in k
        same = families.same_angles(gold, answer)
        if same is not None:
            return Comparison(same, "family")
    sides = chain_sides(answer)
    if len(sides) < 2 or chain_sides(gold)[1:]:
        # "\\lim_{x\\to 3^+}\\frac{1}{x-3} = +\\infty" and "\\mathbf{u} - \\mathbf{v} = \\langle 3,
        # -2, 2 \\rangle" state their last side
        # An equation for an equation's gold ("y - x = 2" for "y = x + 2") is compared whole.
        left, _, right = answer.partition("=")
        asked = (
            len(sides) == 1
            and "=" not in gold
            and (_OPERATION_SIDE.match(answer) is not None or _names_a_value(left, right))
        )
        return _compare_cached(gold, sides[0] if asked else answer, allow_rename)
    for side in reversed(sides):
        found = _compare_cached(gold, side, allow_rename)
        if found.equal:
            # "\pi d = \pi \times 10 = 10\pi": a formula in letters the gold lacks, then its
            # value; the formula's letters are what the numbers replace
            worked = sides[1:] if _is_formula(sides) else sides
            consistent = all(
                other is side or _compare_cached(side, other, False).equal for other in worked
            )
            return found if consistent else Comparison(False, found.method)
    return _compare_cached(gold, sides[-1], allow_rename)


_CASES = re.compile(r"\\begin\{cases\}(.*?)\\end\{cases\}", re.DOTALL)
_CONDITION_WORDS = re.compile(r"\\text\s*\{\s*(?:if|for|when)\s*\}|\b(?:if|for|when)\b|\\q?quad|\s")
_SAME_RELATIONS = str.maketrans({"≥": ">=", "≤": "<="})


def _cases(text: str) -> list[tuple[str, str]]:
    """The (value, condition) pieces of a ``cases`` block, or none."""
    block = _CASES.search(text) if "cases" in text else None
    if block is None:
        return []
    pieces = []
    for row in re.split(r"\\\\", block.group(1)):
        value, _, condition = row.partition("&")
        if value.strip():
            pieces.append((value.strip().rstrip(",").strip(), _condition(condition)))
    return pieces


def _condition(text: str) -> str:
    text = _CONDITION_WORDS.sub("", text).strip(",.").translate(_SAME_RELATIONS)
    return re.sub(r"\\geq?", ">=", re.sub(r"\\leq?", "<=", text))


def _same_pieces(gold: list[tuple[str, str]], answer: list[tuple[str, str]]) -> bool:
    """Both piecewise functions take the same value wherever either is defined, tried at
    points around every breakpoint (so a breakpoint given to the neighbouring piece is the
    same function where both pieces agree there); where a condition does not parse, each
    piece of the gold needs a piece of the answer with the same condition and value."""
    gold_function, answer_function = _piecewise(gold), _piecewise(answer)
    if gold_function is None or answer_function is None or gold_function[0] != answer_function[0]:
        by_condition = dict((condition, value) for value, condition in answer)
        return len(gold) == len(answer) and all(
            condition in by_condition and compare_values(value, by_condition[condition]).equal
            for value, condition in gold
        )
    variable = gold_function[0]
    breakpoints = {
        float(atom)
        for _, condition in (*gold_function[1], *answer_function[1])
        for atom in condition.atoms(sympy.Number)
    }
    points = sorted({*_GENERIC_POINTS, *(b + d for b in breakpoints for d in (-0.5, 0, 0.5))})
    for point in points:
        first, second = (
            _value_at(gold_function[1], variable, point),
            _value_at(answer_function[1], variable, point),
        )
        if (first is None) != (second is None):
            return False
        if first is not None and not math.isclose(first, second, rel_tol=1e-9, abs_tol=1e-9):
            return False
    return True


_GENERIC_POINTS = (-7.3, -2.1, 0.37, 1.9, 5.6)
_OTHERWISE = re.compile(r"\\text\s*\{\s*(?:otherwise|else)\s*\}|\botherwise\b|\belse\b")


def _piecewise(pieces: list[tuple[str, str]]) -> tuple[sympy.Symbol, list] | None:
    """The variable and the (value, condition) pieces as SymPy objects; None unless every
    piece parses and the conditions share one variable."""
    parsed, variables = [], set()
    for value, condition in pieces:
        values = parse_answer(value).values
        if _OTHERWISE.search(condition) or not condition:
            rule = sympy.true
        else:
            conditions = parse_answer(condition).values
            rule = conditions[0] if conditions else None
        if not values or not isinstance(values[0], sympy.Expr) or not isinstance(rule, Boolean):
            return None
        variables |= rule.free_symbols
        parsed.append((values[0], rule))
    return (variables.pop(), parsed) if len(variables) == 1 else None


def _value_at(pieces: list, variable: sympy.Symbol, point: float) -> float | None:
    """The value of the first piece whose condition holds at ``point``, or None."""
    for value, condition in pieces:
        try:
            if bool(condition.subs(variable, point)):
                return float(value.subs(variable, point))
        except (TypeError, ValueError):  # a condition or value that does not evaluate
            return None
    return None


def _names_a_value(left: str, right: str) -> bool:
    """ "\\mathbf{u} - \\mathbf{v} = \\langle 3, -2, 2 \\rangle", "x + y = 7": a left side made
    of named quantities (not a single head, "x = 2") and a right side that is a value."""
    left = left.strip()
    return (
        _NAMES_SIDE.fullmatch(left) is not None
        and _HEAD_SIDE.fullmatch(left) is None
        and not _LETTERS.search(right)
    )


_VARIABLE_NAME = r"[A-Za-z](?:_\{?\w+\}?)?"
_NAMED_TUPLE = re.compile(
    rf"\\?\(\s*({_VARIABLE_NAME}(?:\s*,\s*{_VARIABLE_NAME})+)\s*\\?\)\s*=\s*\\?\((.+)\\?\)"
)
_ASSIGNMENT = re.compile(rf"^\s*({_VARIABLE_NAME})\s*=\s*([^=]+?)\s*$")
_ASSIGNMENT_SEPARATOR = re.compile(r"\s*(?:,|;|\\text\{\s*and\s*\}|\band\b|\\quad)\s*")


_LATEX_NAME = re.compile(r"\\[A-Za-z]+")
_FORMULA_SIDE = re.compile(r"[A-Za-z]")
_LONE_LETTER = re.compile(r"\s*[A-Za-z]\s*")


def _is_formula(sides: list[str]) -> bool:
    """A chain that opens on a formula in letters ("\\pi d", "2\\pi r h") and works it out
    over two more sides; not an assignment ("x = 3 and x = -1" is no formula)."""
    first = sides[0]
    return (
        len(sides) >= 3
        and not _LONE_LETTER.fullmatch(first)
        and "\\text" not in "".join(sides)
        and _FORMULA_SIDE.search(_LATEX_NAME.sub("", first)) is not None
    )


def _one_tuple(text: str) -> bool:
    """ "(1, 2, 3)": one bracketed tuple, not two ("(1, 3), (-1, -3)") or a bare list."""
    text = text.strip().replace("\\left", "").replace("\\right", "")
    if not text.startswith("(") or not text.endswith(")") or "," not in text:
        return False
    depth = 0
    for index, char in enumerate(text):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0 and index < len(text) - 1:
            return False
    return True


def _lettered(named: dict[str, str]) -> bool:
    """Every variable is a single Latin letter ("x, y, z", not "\\theta" or "x_1")."""
    return all(len(name) == 1 and name.isascii() and name.isalpha() for name in named)


def named_values(text: str) -> dict[str, str] | None:
    """Each variable's value in "(x, y) = (4, 7)" or "x = 4, y = 7" (None for anything else):
    values named by their variables, which a comparison matches by name, not by position."""
    text = text.strip().strip("$").replace("\\left", "").replace("\\right", "")
    tuple_form = _NAMED_TUPLE.fullmatch(text)
    if tuple_form:
        names = [n.strip() for n in tuple_form.group(1).split(",")]
        values = top_level_parts(tuple_form.group(2))
        return dict(zip(names, values, strict=True)) if len(values) == len(names) else None
    parts = [_ASSIGNMENT.match(p) for p in _ASSIGNMENT_SEPARATOR.split(text)]
    if len(parts) < 2 or not all(parts):
        return None
    named = {m.group(1): m.group(2) for m in parts if m}
    return named if len(named) == len(parts) else None


_LOG_BASE = re.compile(
    r"\\log_\s*(\{[^{}]+\}|\d+|[A-Za-z])\s*(\{[^{}]+\}|\\left\([^()]*\\right\)|\([^()]*\)"
    r"|\d+(?:\.\d+)?|[A-Za-z])"
)


def _natural_logs(match: re.Match) -> str:
    base, argument = (re.sub(r"^\{|\}$", "", g) for g in match.groups())
    return f"\\frac{{\\ln({argument})}}{{\\ln({base})}}"


_FRAC_DIGITS = re.compile(r"\\([dt]?frac)\s*(\d)\s*(\d)")
_PART_LABEL = re.compile(r"\(\s*[a-h]\s*\)\s*")


def labelled_parts(text: str) -> list[str]:
    """The parts of "(a) 5, (b) 8", in the order of their labels (empty for anything else)."""
    if len(_PART_LABEL.findall(text)) < 2 or _PART_LABEL.match(text.lstrip()) is None:
        return []
    parts = [p.strip().rstrip(",;").strip() for p in _PART_LABEL.split(text)]
    return [re.sub(r"\s*(?:and|\\text\{\s*and\s*\})$", "", p) for p in parts if p]


_INTEGRATION_CONSTANT = re.compile(r"\s*\+\s*C\b")
# An answer may name its constant otherwise: "+ K", "+ c", "+ C_1".
_ANY_CONSTANT = re.compile(r"\s*\+\s*(?:C\b|[cKk](?:_\{?\d\}?)?\s*$|C_\{?\d\}?\s*$)")


@lru_cache(maxsize=4096)
def numeric_value(text: str) -> float | None:
    """The real number a LaTeX answer denotes ("\\frac{19}{6}", "2\\pi"), or None when it is
    not one number (a variable, a set, an equation, text)."""
    parsed = parse_answer(text)
    if not parsed.values or not isinstance(parsed.values[0], sympy.Expr):
        return None
    value = parsed.values[0]
    if value.free_symbols or not value.is_real:
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


# The ratio sign as LaTeX and Unicode write it: "5 \colon 3", "5∶3", "5{:}3".
_RATIO_SIGN = re.compile(r"\\colon(?![A-Za-z])|∶|\{:\}")


def _ratio_terms(text: str) -> list[float] | None:
    """The numbers of a ratio ("2:3:5", "5:3"), or None when ``text`` is not one."""
    terms = text.strip().strip("$").split(":")
    if len(terms) < 2:
        return None
    values = [numeric_value(term) for term in terms]
    return None if any(value is None for value in values) else values


def same_ratio(gold: str, answer: str) -> bool:
    """Both are ratios of one length with their terms in proportion, whatever else they could
    be read as ("18:24:28" is a clock time, but where a ratio is asked it is 9:12:14)."""
    gold_terms = _ratio_terms(_RATIO_SIGN.sub(":", gold))
    answer_terms = _ratio_terms(_RATIO_SIGN.sub(":", answer))
    return bool(gold_terms and answer_terms) and _proportional(gold_terms, answer_terms)


def _proportional(gold: list[float], answer: list[float]) -> bool:
    """Two ratios are equal when their terms are in the same order and proportion (6:4 is
    3:2, 2:5:3 is not 2:3:5)."""
    if len(gold) != len(answer) or not gold[0] or not answer[0]:
        return False
    return all(
        math.isclose(g / gold[0], a / answer[0], rel_tol=1e-9)
        for g, a in zip(gold, answer, strict=True)
    )


def equal_up_to_constant(gold: str, answer: str) -> bool:
    """Two antiderivatives, each ``+ C``, that differ by a constant: ``\\frac12\\ln|2x| + C``
    and ``\\frac12\\ln|x| + C`` (the ``\\frac12\\ln 2`` is absorbed into C). Their
    difference has a zero derivative at every probe point."""
    if not (_INTEGRATION_CONSTANT.search(gold) and _ANY_CONSTANT.search(answer)):
        return False
    values = [
        parse_answer(_INTEGRATION_CONSTANT.sub("", gold)).values,
        parse_answer(_ANY_CONSTANT.sub("", answer)).values,
    ]
    if not values[0] or not values[1]:
        return False
    return _differ_by_a_constant(values[0][0], values[1][0])


def _differ_by_a_constant(first: object, second: object) -> bool:
    """Two expressions whose difference has a zero derivative at every probe point."""
    if not isinstance(first, sympy.Expr) or not isinstance(second, sympy.Expr):
        return False
    difference = first - second
    symbols = sorted(difference.free_symbols, key=lambda s: s.name)
    if not symbols:
        return bool(difference.is_number and difference.is_finite)
    if len(symbols) > probe.MAX_SYMBOLS:
        return False
    try:
        slopes = [sympy.diff(difference, symbol) for symbol in symbols]
    except Exception:  # an expression SymPy cannot differentiate
        return False
    return all(probe.numerically_equal(slope, sympy.Integer(0)) for slope in slopes)


def one_of_many(gold: str, answer: str, asked: str) -> bool:
    """Whether ``answer`` is another of the answers a question that asks for one of many
    accepts (``asked``: "antiderivative", "basis" or "vector"): a function that differs from
    the gold by a constant, a basis of the same span with as many vectors, a nonzero multiple
    of the gold vector."""
    gold_values = parse_answer(all_rewrites(gold)[0]).values
    answer_values = parse_answer(all_rewrites(answer)[0]).values
    if not gold_values or not answer_values:
        return False
    first, second = gold_values[0], answer_values[0]
    if asked == "antiderivative":
        return _differ_by_a_constant(first, second)
    gold_rows, answer_rows = _vectors(first, asked), _vectors(second, asked)
    if not gold_rows or len(gold_rows) != len(answer_rows):
        return False
    try:
        gold_matrix, answer_matrix = sympy.Matrix(gold_rows), sympy.Matrix(answer_rows)
        if gold_matrix.shape != answer_matrix.shape:
            return False
        rank = gold_matrix.rank(simplify=True)
        return (
            rank == len(gold_rows)
            and answer_matrix.rank(simplify=True) == rank
            and gold_matrix.col_join(answer_matrix).rank(simplify=True) == rank
        )
    except Exception:  # entries SymPy cannot rank: not shown to be another answer
        return False


# The arbitrary constants of a general solution: C, K, C_1, c_2; in an answer also A, B, D.
_GOLD_CONSTANT = re.compile(r"[ck](?:_\{?\d\}?)?")
_ANSWER_CONSTANT = re.compile(r"[abcdk](?:_\{?\d\}?)?")


def same_family(gold: str, answer: str) -> bool:
    """Whether ``answer`` is the gold's general solution with its arbitrary constants renamed
    or replaced by an invertible linear function of them: "A\\sin x + B\\cos x" for "C_1\\cos
    x + C_2\\sin x", "\\frac{1}{C - x}" for "-\\frac{1}{x + C}". A constant put through another
    function ("e^{x + C}" for "Ce^x") covers only part of the family, and is not."""
    gold_values = parse_answer(gold).values
    answer_values = parse_answer(answer).values
    if not gold_values or not answer_values:
        return False
    first, second = _right_side(gold_values[0]), _right_side(answer_values[0])
    if first is None or second is None:
        return False
    gold_constants = [s for s in first.free_symbols if _GOLD_CONSTANT.fullmatch(s.name)]
    answer_constants = [s for s in second.free_symbols if _ANSWER_CONSTANT.fullmatch(s.name)]
    if not gold_constants or len(answer_constants) != len(gold_constants):
        return False
    fresh = {c: sympy.Dummy(c.name) for c in gold_constants}
    first = first.subs(fresh)
    try:
        solutions = sympy.solve(first - second, answer_constants, dict=True)
    except Exception:  # an equation SymPy cannot solve: not shown to be the same family
        return False
    free = set(fresh.values())
    for solution in solutions:
        values = [solution.get(c) for c in answer_constants]
        if any(v is None or not v.free_symbols <= free for v in values):
            continue
        jacobian = sympy.Matrix([[sympy.diff(v, f) for f in fresh.values()] for v in values])
        linear = all(
            v.is_polynomial(*free) and sympy.Poly(v, *free).total_degree() <= 1 for v in values
        )
        if linear and jacobian.det() != 0:
            return True
    return False


def _right_side(value: object) -> sympy.Expr | None:
    """An explicit solution's value ("y = …" gives its right side), or the expression."""
    if isinstance(value, sympy.Equality) and isinstance(value.lhs, sympy.Symbol):
        value = value.rhs
    return value if isinstance(value, sympy.Expr) else None


def _vectors(value: object, asked: str) -> list[list]:
    """The vectors a value lists: one for "vector", each of a set or tuple for "basis"."""
    members = value.args if asked == "basis" and isinstance(value, sympy.Set) else [value]
    if (
        asked == "basis"
        and isinstance(value, sympy.Tuple)
        and all(isinstance(member, sympy.Tuple | sympy.MatrixBase) for member in value)
    ):
        members = list(value)
    vectors = [m if isinstance(m, sympy.Tuple) else structure.as_tuple(m) for m in members]
    if any(
        vector is None or not all(isinstance(e, sympy.Expr) for e in vector) for vector in vectors
    ):
        return []
    return [list(vector) for vector in vectors]


def chain_sides(text: str) -> list[str]:
    """The sides of ``a = b = c`` split at top-level equals signs (none inside brackets)."""
    if "=" not in text or re.search(r"[<>]|\\[lg]eq?\b|\\neq\b|\\approx", text):
        return [text]
    sides, depth, start = [], 0, 0
    # angle brackets nest like the others; the scan copy keeps every offset
    scanned = text.replace("\\langle", "(      ").replace("\\rangle", ")      ")
    for index, char in enumerate(scanned):
        depth += (char in "{([") - (char in "})]")
        if char in ",;" and depth == 0:
            return [text]  # "x = -3, x = 2" lists answers; it is not a chain
        if char == "=" and depth == 0:
            sides.append(text[start:index].strip())
            start = index + 1
    sides = [side for side in (*sides, text[start:].strip()) if side]
    if len(sides) > 1 and (_HEAD_SIDE.fullmatch(sides[0]) or _OPERATION_SIDE.match(sides[0])):
        # "x = 2", "Total = 48 = 8 \times 6", "\int_0^1 x\,dx = \frac12": the head, or the
        # operation the question asks about, is not a side
        return sides[1:]
    if len(sides) == 2 and _names_a_value(sides[0], sides[1]):
        return sides[1:]
    if len(sides) == 2 and any(_UNKNOWN.search(side) for side in sides):
        # "2x - y + 3 = 0" is an equation, not two names of one value; "1 + i = \sqrt{2}
        # e^{i\pi/4}" names one complex number twice
        return [text]
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
    on_calendar = calendar.compare(gold, answer)
    if on_calendar is not None:  # "2023-02-14" is a date, "4:30 p.m." a time, not a ratio
        return Comparison(on_calendar, "synonym")
    if calendar.names_a_day_or_time(gold) or _CLOCK.match(answer):
        return Comparison(False, "synonym")
    if integer_sets.CONGRUENCE_MARK.search(gold) or integer_sets.CONGRUENCE_MARK.search(answer):
        # "n \equiv 1 \pmod 4" is a set of integers; the parser reads only its left side
        same = integer_sets.same_integers(gold, answer)
        if same is not None:
            return Comparison(same, "integer_set")
    gold, answer = _RATIO_SIGN.sub(":", gold), _RATIO_SIGN.sub(":", answer)  # "5 \colon 3"
    gold_terms, answer_terms = _ratio_terms(gold), _ratio_terms(answer)
    if gold_terms and answer_terms and max(len(gold_terms), len(answer_terms)) > 2:
        # "2:3:5" is ordered; the parser reads it as (2/3)/5, equal to 2:5:3
        return Comparison(_proportional(gold_terms, answer_terms), "ratio")
    read_commas = _decimal_commas(gold, answer)
    commas = ("decimal_commas",) if read_commas != (gold, answer) else ()
    gold, answer = read_commas
    # "\\log_2 3" is \\frac{\\ln 3}{\\ln 2}, whatever follows it
    gold, answer = _LOG_BASE.sub(_natural_logs, gold), _LOG_BASE.sub(_natural_logs, answer)
    # "\\frac134" is \\frac{1}{3}4: a \\frac of bare digits takes one digit each
    gold, answer = (
        _FRAC_DIGITS.sub(r"\\\1{\2}{\3}", gold),
        _FRAC_DIGITS.sub(r"\\\1{\2}{\3}", answer),
    )
    # "\binom{13}{2}\binom{39}{3}" is a product; the LaTeX parser would add them
    gold, answer = adjacent_binomials(gold), adjacent_binomials(answer)
    gold_parsed, answer_parsed = parse_answer(gold), parse_answer(answer)
    undefined = _undefined(gold_parsed) or _undefined(answer_parsed)
    if undefined:
        return Comparison(False, "verify", undefined=True)
    verified = compare(gold_parsed, answer_parsed)
    if (
        verified.correct
        and _BARE_NUMBER.fullmatch(answer.strip())
        and len(gold) <= _SHORT_GOLD_CHARS
        and len(list_parts(gold)) > 1
    ):
        # math-verify reads "5 \\text{ cm}, 7 \\text{ cm}" as its first value; one number
        # does not answer a gold of two
        return Comparison(False, "verify")
    if verified.correct:
        rounded = equal_only_after_rounding(verified.gold_value, verified.pred_value)
        return Comparison(
            True, "verify", string_only=verified.string_only, rounded=rounded, rewrites=commas
        )
    (rewritten_gold, gold_rewrites), (rewritten_answer, rewrites) = (
        all_rewrites(gold),
        all_rewrites(answer),
    )
    if not _LIST.search(gold):
        rewritten_answer = thousands_separators(rewritten_answer)
    if "plain_function_names" in rewrites and "\\ln" in gold and "\\log" not in gold:
        # log(x) in code (Python, SymPy, NumPy) is the natural logarithm the gold writes \ln
        rewritten_answer = rewritten_answer.replace("\\log", "\\ln")
    if (rewritten_gold, rewritten_answer) != (gold, answer):
        gold_parsed, answer_parsed = parse_answer(rewritten_gold), parse_answer(rewritten_answer)
        if compare(gold_parsed, answer_parsed).correct:
            return Comparison(True, "rewrite", rewrites=commas + gold_rewrites + rewrites)
    if not gold_parsed.values or not answer_parsed.values:
        return Comparison(None)
    return _compare_structures(gold_parsed.values[0], answer_parsed.values[0], allow_rename)


def list_parts(text: str) -> list[str]:
    """The parts of a list at the top level ("5 cm, 7 cm"; not "(1, 2)", "[0, 1)" or "1,000")."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char in ",;" and depth == 0 and not _THOUSANDS_GROUP.match(text, index):
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def _compare_structures(gold: object, answer: object, allow_rename: bool) -> Comparison:
    """Equal values math-verify's verify does not see as equal."""
    gold_forms, answer_forms = structure.readings(gold), structure.readings(answer)
    if structure.names_another_letter(gold_forms[0], answer_forms[0]) and not allow_rename:
        # "y = 3" is not the line "x = 3", though both read as 3
        return Comparison(False, "structure")
    for gold_form in gold_forms:
        for answer_form in answer_forms:
            both_values = isinstance(gold_form, sympy.Expr) and isinstance(answer_form, sympy.Expr)
            if not both_values and structure.same(gold_form, answer_form):
                return Comparison(True, "structure")
    gold_value, answer_value = gold_forms[-1], answer_forms[-1]
    polynomial = structure.set_to_zero(answer_value)
    if (
        polynomial is not None
        and isinstance(gold_value, sympy.Expr)
        and gold_value.free_symbols
        and probe.numerically_equal(gold_value, polynomial)
    ):
        return Comparison(True, "structure")
    if isinstance(gold_forms[0], sympy.MatrixBase) and isinstance(answer_value, sympy.Interval):
        # "[0.5, 1]" against a vector: brackets around two numbers list them
        pair = sympy.Tuple(answer_value.start, answer_value.end)
        if structure.same(gold_value, pair):
            return Comparison(True, "structure")
        answer_value = pair
    equal = probe.numerically_equal(gold_value, answer_value)
    if equal:
        return Comparison(True, "numeric_probe")
    if equal is False and _has_odd_root(gold_value, answer_value):
        real = probe.numerically_equal(
            probe.real_odd_roots(gold_value), probe.real_odd_roots(answer_value)
        )
        if real:
            return Comparison(True, "numeric_probe")
    if equal is False and probe.numerically_equal(gold_value, answer_value, positive=True):
        # \sqrt{a^2 b} and a\sqrt{b}: equal for the positive quantities most problems name
        return Comparison(True, "numeric_probe", positive_only=True)
    if structure.equivalent_equations(gold_forms[0], answer_forms[0]):
        return Comparison(True, "numeric_probe")
    renamed = structure.renamed(gold_value, answer_value)
    if renamed is not None:
        symbol_pair, renamed_answer = renamed
        # f(y) renamed is f(x): an undefined function has no value to probe, but is the same
        if renamed_answer == gold_value or probe.numerically_equal(gold_value, renamed_answer):
            if allow_rename:
                return Comparison(True, "numeric_probe", renamed=symbol_pair)
            return Comparison(False, "numeric_probe", renamed=symbol_pair)
    return Comparison(
        False, "numeric_probe", approximately=structure.close(gold_value, answer_value)
    )


def _has_odd_root(*values: object) -> bool:
    return any(
        isinstance(value, sympy.Expr)
        and any(p.exp.is_Rational and p.exp.q % 2 == 1 for p in value.atoms(sympy.Pow))
        for value in values
    )


def names_a_value(word: str) -> bool:
    """A word that is itself an answer ("undefined", "none", "infinity"), not prose."""
    return bool(_synonym_class(word)) or word.strip().lower() in _VALUE_WORDS


_VALUE_WORDS = frozenset({"infinity", "inf"})


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
_EUROPEAN_NUMBER = re.compile(r"^(?:[€£¥]\s*)?(-?\d{1,3}(?:\.\d{3})+,\d+)(?:\s*(?:€|£|¥|EUR))?$")
_DECIMAL_POINT = re.compile(r"^\$?-?\d+\.\d+\$?$")


def _decimal_commas(gold: str, answer: str) -> tuple[str, str]:
    """``1000,99`` against ``1000.99``: a comma before one or two digits is a decimal comma
    when the other side writes a decimal point (otherwise "1,22" may list two numbers).
    ``1.102,50`` groups thousands with points, so its comma is a decimal one whatever the
    other side writes."""
    gold, answer = (
        _EUROPEAN_NUMBER.sub(lambda m: m.group(1).replace(".", "").replace(",", "."), side)
        for side in (gold, answer)
    )
    if _DECIMAL_COMMA.match(gold) and _DECIMAL_POINT.match(answer):
        return _DECIMAL_COMMA.sub(r"\1.\2", gold), answer
    if _DECIMAL_COMMA.match(answer) and _DECIMAL_POINT.match(gold):
        return gold, _DECIMAL_COMMA.sub(r"\1.\2", answer)
    return gold, answer


_HEAD_SIDE = re.compile(
    r"[A-Za-z](?:_\{?\w+\}?)?(?:'|\\prime|ᶜ)*(?:\([a-z]\))?|\\text\{[^{}]*\}|[A-Za-z][A-Za-z ]+"
)
_LETTERS = re.compile(r"(?<![\\A-Za-z])[A-Za-z]")
_UNKNOWN = re.compile(r"(?<![\\A-Za-z])(?!i(?![A-Za-z]))[A-Za-z]")  # a letter but the unit i
# A side made only of named quantities ("\\mathbf{u} - \\mathbf{v}", "x + y", "AB"): the name
# of the value on the other side.
_NAMES_SIDE = re.compile(
    r"(?:\\(?:mathbf|vec|overrightarrow|overline|bold(?:symbol)?)\s*\{\w{1,3}\}|[A-Za-z]"
    r"|\\(?:cdot|times|setminus|cup|cap)|\^\{?c\}?|[\s+\-*/()|∖∪∩ᶜ])+"  # "U \setminus A", "Aᶜ"
)
# A side that asks for a value rather than states one: a limit, integral, sum, product,
# determinant or derivative ("\\lim_{x\\to 3^+}\\frac{1}{x-3} = +\\infty").
_OPERATION_SIDE = re.compile(r"\\(?:lim|int|iint|oint|sum|prod|det)(?![A-Za-z])|\\frac\{d")
_CLOCK = re.compile(
    r"^\$?\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:\\text\{\s*)?(?:([ap])\.?\s*m\.?)?\}?\.*\s*\$?$",
    re.I,
)


def _undefined(parsed: Parsed) -> bool:
    return any(probe.is_undefined(v) for v in parsed.values[:1])
