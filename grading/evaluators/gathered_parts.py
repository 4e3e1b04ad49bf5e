"""The parts of a multi-part answer that an output states one by one rather than together.

A question that asks for two things ("the mean and the median", "the quotient and the
remainder", "how many boys and how many girls", "x and y") is often answered part by part:
"So the mean is 22 books and the median is 20 books.", "* Median = 7" then "* Mode = 8", a
closing table, "203 R 5", "4096 = 10 \\times 409 + 6". The final candidate then holds one part.
Here each part is found by its name, where the gold or the question names it, in the closing
lines of the output, and the parts are given in the gold's order, so they are compared with the
gold's part by part and in the right places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grading.equivalence.check import compare_values
from grading.equivalence.rewrite import thousands_separators, top_level_parts

# How much of the output's end is read for the parts: the closing lines, not the working.
_CLOSING_CHARS = 900
_TEXT = re.compile(r"\\(?:text|mathrm|textbf|mbox)\s*\{([^{}]*)\}")
_SPACES = re.compile(r"\\[,;:! ]|~")
# A gold part named by words before its value ("mean 7", "quotient x^2 + 4", "axis x = 3") or
# after it ("23 chickens", "14 boys").
_NAME = r"[A-Za-z][A-Za-z\-]{1,}(?: [A-Za-z][A-Za-z\-]{1,}){0,2}"
_NAME_FIRST = re.compile(
    rf"^\s*(?:the\s+)?({_NAME})\s*(?:=|:|\bis\b)?\s*((?:[-−$\\\d(]|[a-z](?![A-Za-z])).*)$"
)
_NAME_AFTER = re.compile(rf"^\s*(-?\d[\d.,]*)\s+({_NAME})\s*$")
_TUPLE = re.compile(r"\s*(?:\\left)?\((.*)(?:\\right)?\)\s*")
# "minimum 5 at x = 4": a value, then where it is reached.
_AT_PLACE = re.compile(r"^(.*?)\s+at\s+([a-z])\s*=\s*(.+)$")
_ARTICLE = r"(?:the|its|their|el|la|los|las|le|les|den|die|das|der)"
# What the question asks for, in order: "the mean and the median", "how many boys and how
# many girls", "the quotient and the remainder", "$x$ and $y$".
_ASKED_PAIR = re.compile(
    r"\b(?:find|determine|compute|calculate|give|state|what (?:is|are)|how many"
    r"|encuentra|halla|calcula|determina|trouve[rz]?|calcule[rz]?|détermine[rz]?"
    r"|berechne|bestimme|finde)\s+"
    rf"(?:both\s+)?(?:{_ARTICLE}\s+)?(?:value\s+of\s+)?"
    r"(\$?[^\W\d][\w\- ]{0,40}?\$?)\s*,?\s+(?:and|y|et|und)\s+(?:how many\s+)?"
    rf"(?:{_ARTICLE}\s+)?(?:value\s+of\s+)?"
    r"(\$?[^\W\d][\w\- ]{0,40}?\$?)"
    r"(?=\s*(?:[.,?;:]|\b(?:of|when|at|for|if|that|in|are|is|do|does|will|can|there|del?|des?|der)\b|$))",
    re.IGNORECASE,
)
# The quotient and the remainder, asked in other languages.
_QUOTIENT_AND_REMAINDER = re.compile(
    r"商と余り|商和余数|商(?:与|及)余数|몫과 나머지|cociente y (?:el )?resto"
    r"|quotient et (?:le )?reste|Quotienten? und (?:den )?Rest",
    re.IGNORECASE,
)
_SOLVE_FOR = re.compile(
    r"\b(?:solve\s+for|find|values?\s+of)\s+\$?([a-z])\$?\s+and\s+\$?([a-z])\$?\b", re.I
)
# Other names of what a question asks for.
_GREATEST_COMMON_DIVISOR = (
    "gcd",
    "greatest common divisor",
    "greatest common factor",
    "gcf",
    "hcf",
)
_ALIASES = {
    "greatest common divisor": _GREATEST_COMMON_DIVISOR,
    "greatest common factor": _GREATEST_COMMON_DIVISOR,
    "least common multiple": ("lcm", "least common multiple"),
    "minimum": ("minimum", "min", "minimum value", "least value", "smallest value"),
    "maximum": ("maximum", "max", "maximum value", "greatest value", "largest value"),
    "axis": ("axis", "axis of symmetry"),
    "length": ("length", "long"),  # "9 cm wide and 18 cm long"
    "width": ("width", "wide"),
    "expected value": ("expected value", "expectation", "expected"),
    "standard deviation": ("standard deviation", "sd", "σ"),
}
# A value as an output writes it: a math span, or a number with its sign, decimals and
# fraction bar ("$549", "-4", "2,315.25", "3/8").
_VALUE = (
    r"(\$[^$\n]{1,80}\$|\\\(.{1,80}?\\\)|\\\[.{1,80}?\\\]"
    r"|-?(?:\\?\$\s?)?\d+(?:,\d{3})*(?:\.\d+)?(?:\s*/\s*\d+)?%?)"
)
_VARIABLE_VALUE = re.compile(r"\$?\s*([a-z])\s*=")
_ONE_VARIABLE_EQUATION = re.compile(r"([a-z])\s*=\s*[^=]+")
_BOX = re.compile(r"\\(?:boxed|fbox|mathbf|textbf)\s*\{([^{}]*)\}")
_VERB = (
    r"(?:=|:|≈|\b(?:is|are|was|were|equals?|be)\b"
    r"|\b(?:beträgt|ist|es|est|vaut|vale|sont|são|é|равн[оаы])\b)"
)
_QUOTIENT_REMAINDER = re.compile(
    r"(-?\d+)\s*(?:\\text\s*\{\s*R\s*\}|\bR\b|\\,\\text\{\s*remainder\s*\}|\s+remainder\b)\s*(\d+)"
)
_DIVISION_IDENTITY = re.compile(
    r"(\d+)\s*=\s*(\d+)\s*(?:\\times|×|\\cdot|\*|·)\s*(\d+)\s*\+\s*(\d+)"
)
_DIVISOR = re.compile(r"divided\s+by\s+\$?(\d+)|\bby\s+\$?(\d+)\$?\s*[.?]|(\d+)\s*で割", re.I)
# "13 cm × 6 cm", "25 m by 25 m": the two sides of a rectangle.
_DIMENSIONS = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:\\text\{\s*)?([a-z]{1,2})\b\}?\s*(?:\\times|×|x|\bby\b)\s*"
    r"(\d+(?:\.\d+)?)\s*(?:\\text\{\s*)?\2\b"
)


@dataclass(frozen=True)
class GatheredParts:
    gold: str  # the gold's values, in its order
    stated: str  # the output's value of each part, in the same order

    def equal(self) -> bool:
        """Each part equals the gold's part in its place (a list would be compared as a set,
        and "x = 3, y = 2" is not "x = 2, y = 3")."""
        gold, stated = top_level_parts(self.gold), top_level_parts(self.stated)
        return len(gold) == len(stated) and all(
            not _other_variables(g, s) and compare_values(g, s).equal
            for g, s in zip(gold, stated, strict=True)
        )


def _other_variables(gold: str, stated: str) -> bool:
    """Two parts that set different variables: "y = -2" is not the axis x = -2."""
    variables = [_ONE_VARIABLE_EQUATION.fullmatch(part.strip()) for part in (gold, stated)]
    return all(variables) and variables[0].group(1) != variables[1].group(1)


def gather_parts(gold: str, output: str, problem: str) -> GatheredParts | None:
    """The output's value of each part of ``gold``, found by the part's name in its closing
    lines, or None when a part is not found (or the gold has no two named parts)."""
    closing = output[-_CLOSING_CHARS:]
    named = _gold_parts(gold, problem)
    if named is None:
        return None
    names = [name for name, _ in named]
    gold_values = ", ".join(_plain_value(value) for _, value in named)
    if set(names) <= {"quotient", "remainder"}:
        by_division = _quotient_and_remainder(closing, problem)
        if by_division is not None:
            stated = dict(zip(("quotient", "remainder"), by_division, strict=True))
            return GatheredParts(gold_values, ", ".join(stated[n] for n in names))
    sides = _DIMENSIONS.findall(closing)
    if len(named) == 2 and sides and {"length", "width"} >= set(names):
        first, _, second = sides[-1]
        return GatheredParts(gold_values, f"{first}, {second}")
    values = []
    for name in names:
        own = {wording for wordings in _wordings(name) for wording in wordings}
        others = {
            wording
            for other in names
            if other != name
            for wordings in _wordings(other)
            for wording in wordings
            if wording not in own
        }
        stated = _stated_value(name, others, set(names), closing)
        if stated is None:
            return None
        values.append(stated)
    return GatheredParts(gold_values, ", ".join(values))


def _gold_parts(gold: str, problem: str) -> list[tuple[str, str]] | None:
    """[(name, value), …] of a gold of two or more parts that words name, its own or the
    question's ("\\text{mean } 7, \\text{ median } 6"; "12, 840" for "the greatest common
    divisor and the least common multiple")."""
    plain = _SPACES.sub(" ", _TEXT.sub(r" \1 ", gold)).replace("$", "")
    plain = re.sub(r"\s+", " ", plain).strip()
    pieces = [p.strip() for part in top_level_parts(plain) for p in re.split(r"\s+and\s+|;", part)]
    pieces = [p for p in pieces if p]
    if len(pieces) == 1 and (at := _AT_PLACE.match(pieces[0])) is not None:
        pieces = [at.group(1), f"{at.group(2)} = {at.group(3)}"]
    if len(pieces) == 1 and _TUPLE.fullmatch(pieces[0]) and len(_asked_names(problem)) > 1:
        pieces = top_level_parts(_TUPLE.fullmatch(pieces[0]).group(1))  # (4, 2) for "x and y"
    if len(pieces) < 2:
        return None
    named = []
    for piece in pieces:
        first = _NAME_FIRST.match(piece)
        after = _NAME_AFTER.match(piece)
        if first is not None and not first.group(1).lower().startswith(("and ", "or ")):
            named.append((first.group(1).lower(), first.group(2).strip()))
        elif after is not None:
            named.append((after.group(2).lower(), after.group(1)))
        elif re.fullmatch(r"[a-z]\s*=\s*.+", piece):
            name, _, value = piece.partition("=")
            named.append((name.strip(), value.strip()))
        else:
            break
    else:
        return named
    asked = _asked_names(problem)
    if len(asked) != len(pieces):
        return None
    return list(zip(asked, pieces, strict=True))


def _asked_names(problem: str) -> list[str]:
    """The two things the question asks for, in its order, or [] when it asks for one."""
    question = problem[-600:]
    solved_for = _SOLVE_FOR.search(question)
    if solved_for is not None and solved_for.group(1).lower() > solved_for.group(2).lower():
        return []  # "Solve for y and x": whether an unnamed gold pair is (y, x) is unclear
    if solved_for is not None:
        return [solved_for.group(1), solved_for.group(2)]
    if _QUOTIENT_AND_REMAINDER.search(question):
        return ["quotient", "remainder"]
    pairs = _ASKED_PAIR.findall(question)
    if not pairs:
        return []
    return [_head(name) for name in pairs[-1]]


def _head(name: str) -> str:
    """ "number of boys" → "boys"; "the axis of symmetry" → "axis of symmetry"."""
    name = name.strip(" $").lower()
    name = re.sub(r"^(?:number of|value of|the|its)\s+", "", name)
    return name


def _stated_value(name: str, others: set[str], taken: set[str], closing: str) -> str | None:
    """The value the closing lines give last for ``name`` ("the mean is 22", "Median = 7",
    "| GCD(84, 120) | **12** |", "14 boys"); ``others`` are the words that name the other
    parts ("profit percentage" names the percentage, not the profit), and a shorter wording
    that is another part's name is not this part's ("profit" for "profit as a percentage")."""
    for wordings in _wordings(name):
        wordings = [w for w in wordings if w == name or w not in taken]
        found = [hit for wording in wordings for hit in _values_named(wording, closing, others)]
        if found:
            return max(found)[1]
    return None


def _wordings(name: str) -> list[tuple[str, ...]]:
    """The name as asked with its other names, then shorter: "balance after 3 years" →
    "balance"; "profit as a percentage" → "percentage"."""
    aliases = _ALIASES.get(name, (name,))
    head = re.split(r"\s+(?:after|as|of|in|on|at|for|per|earned|paid|used|de|du)\b", name)[0]
    last = name.split()[-1]
    shorter = [(w,) for w in dict.fromkeys((head, last)) if w not in aliases and len(w) >= 4]
    return [aliases, *shorter]


def _values_named(name: str, closing: str, others: set[str]) -> list[tuple[int, str]]:
    words = re.escape(name).replace(r"\ ", r"\s+")
    if len(name) == 1:  # a variable: "x = 4", "$y = 2$"
        pattern = rf"(?<![\w\\]){words}\s*(?:=|:)\s*\$?\s*{_VALUE}"
    else:
        pattern = (
            rf"\b{words}(?:e?s)?\b(?:\([^()\n]*\))?([^\n.;:=|,]{{0,30}}?)\**\s*"
            rf"(?:{_VERB}|(?=\$))\**\s*"  # "axis of symmetry $x = 3$": a span says it
            rf"(?:[A-Za-z]+\s+){{0,2}}?\**\s*{_VALUE}"
            rf"|^\|\s*\**{words}[^|\n]*\|\s*\**\s*{_VALUE}"
            # "**Profit** = Selling price − Cost price = $320 − $250 = **$70**": its result
            rf"|^\W*(?:\w+\s+){{0,2}}{words}\W*\s*(?:=|:)[^\n,;]*=\s*\**\s*{_VALUE}\**[ \t]*$"
            rf"|(?<![\w.,]){_VALUE}(?=[ \t]+(?:[\w\-]+[ \t]+)?{words}(?:e?s)?\b)"
        )
    found = []
    for match in re.finditer(pattern, closing, re.IGNORECASE | re.MULTILINE):
        gap = (match.group(1) or "").lower() if len(name) > 1 else ""
        if any(re.search(rf"\b{re.escape(other)}\b", gap) for other in others):
            continue  # "profit percentage is 28%" names the percentage
        raw = next(g for g in match.groups()[len(name) > 1 :] if g)
        variable = _VARIABLE_VALUE.match(raw)
        if len(name) > 1 and variable is not None and variable.group(1) in others:
            continue  # "the minimum is attained at $x = 3$": where, not what
        value = _plain_value(raw)
        if any(char.isdigit() for char in value):  # "the width be $w$" names no value
            found.append((match.end(), value))
    return found


def _plain_value(text: str) -> str:
    """ "$2 \\times 9 = 18$" → "18": the value a span states, without its delimiters."""
    value = _BOX.sub(r"\1", text.strip().strip("$").strip())
    if value.startswith(("\\(", "\\[")):
        value = value[2:-2]
    if not _ONE_VARIABLE_EQUATION.fullmatch(value):  # "y = -2" for an axis stays a line
        value = value.rpartition("=")[2]
    value = value.strip().rstrip(".,")
    value = re.sub(r"^\\?\$\s*", "", value)  # "\\$2,315.25": the dollar sign
    return thousands_separators(value)


def _quotient_and_remainder(closing: str, problem: str) -> tuple[str, str] | None:
    """ "203 R 5", "16 remainder 3", or the division identity "4096 = 10 \\times 409 + 6" (the
    factor that is not the divisor is the quotient)."""
    written = list(_QUOTIENT_REMAINDER.finditer(closing))
    if written:
        return written[-1].group(1), written[-1].group(2)
    identity = list(_DIVISION_IDENTITY.finditer(closing))
    divisor = _DIVISOR.search(problem[-400:])
    if identity and divisor is not None:
        _, first, second, remainder = identity[-1].groups()
        by = next(group for group in divisor.groups() if group)
        if by in (first, second):
            return (second if first == by else first), remainder
    return None
