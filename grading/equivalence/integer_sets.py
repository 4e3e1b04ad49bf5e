"""Sets of integers described by conditions, as number theory answers give them: "all odd n",
"n \\equiv \\pm 1 \\pmod 6", "n = 4k or 4k + 3", "every prime p \\ge 5", "20 \\le n \\le 24",
"1, 5, 7, 11". Two descriptions are the same set when every integer in a window belongs to both
or to neither: a congruence and its residues, a parity word and a modulus 2, a bound and a list.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# The integers both descriptions are tried on: wider than any modulus or bound these answers
# use, and small enough to cost nothing.
_WINDOW = range(-60, 241)
_INTEGER_VARIABLE = r"[nmkpq]"
# A congruence in any of its notations: "\\equiv", "≡", "\\pmod{4}", "\\bmod 4", "(mod 4)".
CONGRUENCE_MARK = re.compile(r"\\equiv|≡|\\[pb]mod|\bmod\b")
_MARKUP = re.compile(r"\\text\s*\{([^{}]*)\}|\\mathrm\s*\{([^{}]*)\}|[$*]|\\[,;! ]|\\left|\\right")
_CONGRUENCE = re.compile(
    r"(?:≡|\\equiv)\s*((?:\\pm\s*|±\s*|-\s*)?\d+(?:\s*(?:,|\bor\b|\band\b)\s*(?:\\pm\s*|±\s*|-\s*)?\d+)*)"
    r"\s*(?:\\pmod\s*\{?\s*(\d+)\s*\}?|\(\s*(?:\\text\s*\{\s*)?mod\s*\}?\s*(\d+)\s*\)|\\bmod\s*\{?(\d+)\}?)",
    re.IGNORECASE,
)
_FORM = re.compile(
    rf"(?<![\w^])(\d+)\s*\\?(?:cdot\s*)?{_INTEGER_VARIABLE}\s*(?:([+-])\s*(\d+))?(?![\w^])"
)
_BOUND = re.compile(
    rf"(?:(-?\d+)\s*(<|\\le(?:q|qslant)?|≤)\s*)?(?<![\w\\]){_INTEGER_VARIABLE}\s*(>|<|\\ge(?:q|qslant)?|\\le(?:q|qslant)?|≥|≤)\s*(-?\d+)"
)
_LIST = re.compile(r"^\{?\s*-?\d+(?:\s*(?:,|\bor\b|\band\b)\s*-?\d+)+\s*\}?$")
_PARITY = re.compile(r"\b(odd|even)\b", re.IGNORECASE)
_PRIME = re.compile(r"\bprimes?\b", re.IGNORECASE)
_INTEGER_WORDS = re.compile(r"\bodd\b|\beven\b|\bprimes?\b", re.IGNORECASE)
# What a parity or prime word describes: an integer variable or integers by name.
_OF_INTEGERS = re.compile(rf"(?<![\\\w]){_INTEGER_VARIABLE}(?!\w)|\b(?:integers|numbers)\b", re.I)


def describes_integers(gold: str, answer: str) -> bool:
    """A gold that describes a set of integers by a condition (a congruence, parity, primes),
    or lists integers that the answer bounds ("20 \\le n \\le 24"). A formula such as ``4n + 1``
    is a value, not a set, so it is not read as one here."""
    text = _plain(gold)
    if CONGRUENCE_MARK.search(text):
        return True
    if _INTEGER_WORDS.search(text) and _OF_INTEGERS.search(text):  # "all odd n", not "even"
        return True
    return _LIST.match(text) is not None and _BOUND.search(_plain(answer)) is not None


def same_integers(gold: str, answer: str) -> bool | None:
    """Whether the two describe the same set of integers; None when either is not read."""
    gold_set, answer_set = _predicate(_plain(gold)), _predicate(_plain(answer))
    if gold_set is None or answer_set is None:
        return None
    return all(gold_set(n) == answer_set(n) for n in _WINDOW)


def _plain(text: str) -> str:
    text = _MARKUP.sub(lambda m: m.group(1) or m.group(2) or " ", text)
    return re.sub(r"\s+", " ", text.replace("\\{", "{").replace("\\}", "}")).strip(" .")


def _predicate(text: str) -> Callable[[int], bool] | None:
    """Membership in the set ``text`` describes, from the conditions it is read as."""
    conditions: list[Callable[[int], bool]] = []
    congruences = list(_CONGRUENCE.finditer(text))
    if congruences:
        residues = [_residues(m) for m in congruences]
        conditions.append(lambda n: any(n % modulus in allowed for modulus, allowed in residues))
    forms = [(int(m.group(1)), _signed(m.group(2), m.group(3))) for m in _FORM.finditer(text)]
    forms = [(step, offset) for step, offset in forms if step > 1]
    if forms and not congruences:
        conditions.append(lambda n: any((n - offset) % step == 0 for step, offset in forms))
    parity = {m.group(1).lower() for m in _PARITY.finditer(text)}
    if len(parity) == 1:
        conditions.append(lambda n: n % 2 == (1 if "odd" in parity else 0))
    if _PRIME.search(text):
        conditions.append(_is_prime)
    bounds = list(_BOUND.finditer(text))
    conditions.extend(_bound(m) for m in bounds)
    listed = _LIST.match(text.strip())
    if listed and not conditions:
        values = {int(v) for v in re.findall(r"-?\d+", text)}
        conditions.append(lambda n: n in values)
    if not conditions:
        return None
    return lambda n: all(condition(n) for condition in conditions)


def _residues(congruence: re.Match) -> tuple[int, frozenset[int]]:
    modulus = int(next(g for g in congruence.groups()[1:] if g))
    allowed = set()
    for term in re.split(r"\s*(?:,|\bor\b|\band\b)\s*", congruence.group(1)):
        value = int(re.sub(r"\\pm|±|\s", "", term))
        allowed.add(value % modulus)
        if "pm" in term or "±" in term:
            allowed.add(-value % modulus)
    return modulus, frozenset(allowed)


def _signed(sign: str | None, value: str | None) -> int:
    return -int(value) if sign == "-" else int(value or 0)


def _bound(match: re.Match) -> Callable[[int], bool]:
    low, low_sign, relation, value = match.groups()
    limit = int(value)
    tests = {
        ">": lambda n: n > limit,
        "<": lambda n: n < limit,
        "≥": lambda n: n >= limit,
        "≤": lambda n: n <= limit,
    }
    test = tests[_RELATIONS.get(relation, relation)]
    if low is None:
        return test
    strict = low_sign == "<"
    return lambda n: (n > int(low) if strict else n >= int(low)) and test(n)


_RELATIONS = {
    "\\ge": "≥",
    "\\geq": "≥",
    "\\geqslant": "≥",
    "\\le": "≤",
    "\\leq": "≤",
    "\\leqslant": "≤",
}


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))
