"""Value-preserving rewrites of an answer's text, tried before an "incorrect" stands.

Each rewrite turns one notation math-verify does not read into one it does, without changing
the value: a repeating decimal into a fraction, angle brackets into a tuple, ``1.2e7`` into
``1.2\\times10^{7}``, a mixed number into an improper fraction, Unicode signs into LaTeX, number
words into digits. Everything is a regular expression over a bounded string (linear time).
"""

from __future__ import annotations

import html
import re
from fractions import Fraction

from grading.candidates.cues import OR_WORDS

# LaTeX's spacing commands (`\,` `\;` `\:` `\!` and a backslash before a space): never part
# of a value, so readings drop them or read them as a space.
LATEX_SPACE = r"\\[,;:! ]"

# Answers longer than this are not rewritten: real final answers are short.
MAX_ANSWER_CHARS = 400

_UNICODE = str.maketrans(
    {
        "−": "-",
        "′": "'",  # the prime of "f′(x)"
        "″": "''",
        "–": "-",
        "×": "\\times ",
        "·": "\\cdot ",
        "÷": "\\div ",
        "²": "^{2}",
        "³": "^{3}",
        "π": "\\pi ",
        "∞": "\\infty ",
        "≥": "\\geq ",
        "≤": "\\leq ",
        "≠": "\\neq ",
        "≈": "\\approx ",
        "∪": "\\cup ",
        "∩": "\\cap ",
        "∅": "\\emptyset ",
        "∖": "\\setminus ",  # "U ∖ A"
        "ᶜ": "^{c}",  # "Aᶜ", the complement
        "⟨": "\\langle ",
        "⟩": "\\rangle ",
        "°": "^\\circ ",
        "√": "\\sqrt",
        "⁄": "/",  # the fraction slash of "2⁄3"
        "∛": "\\sqrt[3]",
        "∜": "\\sqrt[4]",
        "ℝ": "\\mathbb{R}",
        "¼": "\\frac{1}{4}",
        "½": "\\frac{1}{2}",
        "¾": "\\frac{3}{4}",
        "⅓": "\\frac{1}{3}",
        "⅔": "\\frac{2}{3}",
        "⅕": "\\frac{1}{5}",
        "⅛": "\\frac{1}{8}",
        "⅜": "\\frac{3}{8}",
        "⅝": "\\frac{5}{8}",
        "⅞": "\\frac{7}{8}",
        # Full-width forms of ASCII (Chinese and Japanese text: "（或 x = 0）", "１２", "："),
        # and the ideographic comma.
        **{chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)},
        "、": ",",
        # Arabic-Indic and Persian digits ("٤٣" is 43), with the Arabic decimal and thousands
        # separators ("٣٫٣٣" is 3.33)
        **{chr(0x0660 + digit): str(digit) for digit in range(10)},
        **{chr(0x06F0 + digit): str(digit) for digit in range(10)},
        "٫": ".",
        "٬": ",",
    }
)
# "√12", "√x" and "√(x² + 4)": the root sign and what it applies to, which LaTeX needs braced
_BARE_SQRT = re.compile(
    r"\\sqrt(\[\d\])?(\d+(?:\.\d+)?|[A-Za-z](?![A-Za-z])|\((?:[^()]|\([^()]*\))*\))"
)
# Digits under a combining overline ("0.1̅8̅"): the repeating block of a decimal.
_OVERLINED_DIGITS = re.compile("((?:\\d\u0305)+)")
# Runs of superscript and subscript characters: "10⁻¹⁹" is 10^{-19}, "x₁₂" is x_{12}.
# "e³ˣ" is e^{3x}: the modifier letters of exponents too (not ᶜ, a set's complement).
_SUPERSCRIPT_CHARS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿˣʸⁱᵗᵏᵐ", "0123456789-+nxyitkm")
_SUBSCRIPT_CHARS = str.maketrans("₀₁₂₃₄₅₆₇₈₉₋₊", "0123456789-+")
_SUPERSCRIPTS = re.compile(
    "[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿˣʸⁱᵗᵏᵐ]*[⁰¹⁴⁵⁶⁷⁸⁹⁻⁺ⁿˣʸⁱᵗᵏᵐ][⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ⁿˣʸⁱᵗᵏᵐ]*|[²³]{2,}"
)
_SUBSCRIPTS = re.compile("[₀₁₂₃₄₅₆₇₈₉₋₊]+")
# \langle a, b \rangle anywhere; bare < and > only around a whole answer ("<1, -2>"), since
# elsewhere they compare ("x < -1, x > 2").
_ANGLE_TUPLE = re.compile(
    r"\\(?:left)?\\?langle\s*(.*?)\s*\\(?:right)?\\?rangle|^\s*<\s*([^<>]*,[^<>]*)\s*>\s*$"
)
_REPEATING = re.compile(
    r"(?<![\d.])(-?)(\d*)\.(\d*)(?:\\overline\s*\{(\d+)\}|\\bar\s*\{(\d+)\}|\\dot\s*\{(\d)\}"
    r"|\((\d+)\))"
)
_ELLIPSIS_DECIMAL = re.compile(
    r"(?<![\d.])(-?)(\d*)\.(\d*?)(\d{1,3})\4{2,}\s*(?:\.{3}|\\ldots|\\dots|…)"
)
_SET_BUILDER = re.compile(  # braces escaped or, as plain-text outputs write them, not
    r"\\?\{\s*[a-z]\s*(?:\\in\s*\\mathbb\s*\{?R\}?\s*)?(?:\||\\mid|:)\s*(.+?)\s*\\?\}"
)
# "\{n \in \mathbb{Z} : -2 \le n \le 2\}": the integers between two bounds.
_INTEGER_RANGE = re.compile(
    r"\\\{\s*([a-z])\s*\\in\s*\\mathbb\s*\{?Z\}?\s*(?:\||\\mid|:)\s*(-?\d+)\s*(\\leq?|<|\\lt)"
    r"\s*\1\s*(\\leq?|<|\\lt)\s*(-?\d+)\s*\\\}"
)
_MOST_LISTED_INTEGERS = 50
_ASCII_POWER_OF_TEN = re.compile(
    r"(?<![\w.])(-?\d+(?:\.\d+)?)\s*(?:[xX*]|\\times|\\cdot)\s*10\s*\^\s*([+-]?\d{1,4})(?![\d.])"
)
_E_NOTATION = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)\s*[eE]\s*([+-]?\d{1,4})(?![\w.])")
_MIXED_LATEX = re.compile(
    r"(?<![\d.}^_/])(-?)(\d+)\s*(?:\\[ ,;!]\s*)*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}"
)
_MIXED_SLASH = re.compile(r"(?<![\d./^_])(-?)(\d+)\s+(\d+)\s*/\s*(\d+)(?![\d./])")
_BOLD_NUMBER = re.compile(r"\\(?:mathbf|boldsymbol|bm)\s*\{\s*(-?[\d.,]+)\s*\}")  # not \mathbf{v}
_COLOURED = re.compile(r"\\(?:textcolor|colorbox)\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_COLOUR_SWITCH = re.compile(r"\\color\s*\{[^{}]*\}\s*")
_ALIGNED = re.compile(
    r"\\begin\{(aligned|align\*?|gathered|gather\*?|split)\}(.*?)\\end\{\1\}", re.DOTALL
)
_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3}(?:(?:\{,\}|,)\d{3})+)(?![\d,]|\{,\})")
_DOTTED_THOUSANDS = re.compile(r"(?<![\d.,])([1-9]\d{0,2}(?:\.\d{3})+)(?![\d.,])")
_NUMBER_WORD_LIST = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty"
    r"|seventy|eighty|ninety|hundred|thousand|million|and)"
)
# Not the number in a compound word ("a four-digit number", "a six-sided die").
_NUMBER_WORD = re.compile(
    rf"\b{_NUMBER_WORD_LIST}(?:[\s-]+{_NUMBER_WORD_LIST})*\b(?!-[a-z])", re.IGNORECASE
)
# "p=5,q=2;p=7,q=2": a semicolon between groups of assignments separates two solutions.
_ASSIGNMENT_GROUPS = re.compile(r";\s*(?=\\?[A-Za-z]\w*\s*=)")
# Upright constants: "\mathrm{e}^{2}" is e squared, "\mathrm{i}" the imaginary unit.
_UPRIGHT_CONSTANT = re.compile(r"\\(?:mathrm|text|operatorname|rm|mathit)\s*\{\s*([ei])\s*\}")
# "|x - 2| < 3": an interval written as a bound on a distance.
_ABSOLUTE_BOUND = re.compile(
    r"^\s*(?:\\left)?(?:\||\\lvert|\\vert)\s*([a-z])\s*(?:([+-])\s*(\d+(?:\.\d+)?))?\s*"
    r"(?:\\right)?(?:\||\\rvert|\\vert)\s*(<|>|\\leq?|\\geq?)\s*(\d+(?:\.\d+)?)\s*$"
)
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)\b")
_DEGREES = re.compile(r"(\d+(?:\.\d+)?)\s*\^\s*\{?\\circ\}?")
_NESTED_LIST = re.compile(r"\[\s*((?:\[[^\[\]]*\]\s*,?\s*){2,})\]")
_ROW = re.compile(r"\[([^\[\]]*)\]")
_BASE = re.compile(r"^\(?([0-9A-Fa-f]+)\)?_\{?(\d{1,2})\}?$")


def unicode_to_latex(text: str) -> str:
    """Unicode mathematics (−, ×, √, π, ≤, ⟨⟩, ⁻¹⁹) in the LaTeX math-verify reads."""
    if text.isascii():
        return _BARE_SQRT.sub(_braced_root, text)
    text = _OVERLINED_DIGITS.sub(
        lambda m: f"\\overline{{{m.group(1).replace(chr(0x305), '')}}}", text
    )
    text = _SUPERSCRIPTS.sub(lambda m: f"^{{{m.group(0).translate(_SUPERSCRIPT_CHARS)}}}", text)
    text = _SUBSCRIPTS.sub(lambda m: f"_{{{m.group(0).translate(_SUBSCRIPT_CHARS)}}}", text)
    text = text.translate(_UNICODE)
    return _BARE_SQRT.sub(_braced_root, text)


def _braced_root(root: re.Match) -> str:
    return f"\\sqrt{root.group(1) or ''}{{{root.group(2)}}}"


def latex_layout(text: str) -> str:
    """Layout around an answer, undone: colour (``\\textcolor{red}{65^\\circ}``,
    ``\\colorbox{yellow}{12}``, ``{\\color{blue} 7}``), a number set in bold
    (``\\mathbf{0.375}``; ``\\mathbf{v}`` stays a vector) and an aligned environment of rows
    (``\\begin{aligned} x &= 3 \\\\ y &= -1 \\end{aligned}`` is "x = 3, y = -1"; a row that
    opens on "=" continues the row before)."""
    if "\\mathbf" in text or "\\boldsymbol" in text or "\\bm" in text:
        text = _BOLD_NUMBER.sub(r"\1", text)
    if "color" in text:
        text = _COLOUR_SWITCH.sub("", _COLOURED.sub(r"\1", text))
    if "\\begin" not in text:
        return text
    return _ALIGNED.sub(_aligned_rows, text)


def _aligned_rows(match: re.Match) -> str:
    rows = [
        row.replace("&", "").strip() for row in re.split(r"\\\\(?:\[[^\]]*\])?", match.group(2))
    ]
    joined = ""
    for row in filter(None, rows):
        joined += f" {row}" if not joined or row.startswith("=") else f", {row}"
    return joined.strip()


def plain_markup(text: str) -> str:
    """What logging and small models do to an answer, undone: HTML entities and tags
    ("&minus;3", "36&pi;", "x<sup>2</sup>"), LaTeX commands that lost their backslash
    ("frac{9}{4}", "sqrt3", "boxed{x + 3}") and Markdown's code ticks."""
    if "&" in text and ";" in text:
        text = html.unescape(text)
    if not text.isascii():  # no-break and thin spaces, as in "12&nbsp;000"
        text = text.translate(_UNICODE_SPACES)
    if "<" in text:
        text = _HTML_SCRIPT.sub(
            lambda m: f"{'^' if m.group(1) == 'sup' else '_'}{{{m.group(2)}}}", text
        )
        text = _HTML_TAG.sub("", text)
    if _LOST_BACKSLASH.search(text):
        text = _LOST_BACKSLASH.sub(r"\\\1", text)
    return text.strip("`") if text.startswith("`") and text.endswith("`") else text


_UNICODE_SPACES = str.maketrans(dict.fromkeys("\u00a0\u2009\u202f\u2007", " "))
_HTML_SCRIPT = re.compile(r"<(sup|sub)>([^<>]{1,20})</\1>", re.IGNORECASE)
_HTML_TAG = re.compile(
    r"</?(?:b|i|u|em|strong|span|p|br|div|code|font)\b[^<>]{0,60}>", re.IGNORECASE
)
_LOST_BACKSLASH = re.compile(r"(?<![\\A-Za-z])(d?frac|tfrac|sqrt|boxed)(?=\s*[{\d])")


def angle_brackets_to_tuple(text: str) -> str:
    """``\\langle 1, -2 \\rangle`` and ``<1, -2>`` are the tuple ``(1, -2)``."""
    return _ANGLE_TUPLE.sub(lambda m: f"({m.group(1) or m.group(2)})", text)


# A point with one sign left open: "(\\pm 4, 0)", "(1 \\pm \\sqrt{2}, 3)".
_SIGNED_TUPLE = re.compile(r"\s*(?:\\left)?\(([^()]*?,[^()]*?)(?:\\right)?\)\s*")
_OPEN_SIGN = re.compile(r"\\pm(?![a-z])|\\mp(?![a-z])")


def signed_tuples(text: str) -> str:
    """``(\\pm 4, 0)`` is the two points ``(4, 0), (-4, 0)``, as ``\\pm 4`` is two numbers."""
    point = _SIGNED_TUPLE.fullmatch(text) if "\\" in text else None
    if point is None or len(_OPEN_SIGN.findall(point.group(1))) != 1:
        return text
    points = []
    for sign, other in (("+", "-"), ("-", "+")):
        body = point.group(1).replace("\\pm", sign).replace("\\mp", other)
        parts = [re.sub(r"^\s*\+\s*", "", part).strip() for part in body.split(",")]
        points.append(f"({', '.join(parts)})")
    return ", ".join(points)


def repeating_decimals(text: str) -> str:
    """``0.\\overline{3}``, ``0.(3)``, ``0.1\\bar{6}`` and ``0.333...`` as exact fractions."""

    def exact(sign: str, whole: str, fixed: str, period: str) -> str:
        value = Fraction(int(whole or "0"))
        if fixed:
            value += Fraction(int(fixed), 10 ** len(fixed))
        value += Fraction(int(period), (10 ** len(period) - 1) * 10 ** len(fixed))
        value = -value if sign else value
        return f"\\frac{{{value.numerator}}}{{{value.denominator}}}"

    def from_marks(match: re.Match) -> str:
        period = next(g for g in match.groups()[3:] if g)
        return exact(match.group(1), match.group(2), match.group(3), period)

    def from_ellipsis(match: re.Match) -> str:
        return exact(match.group(1), match.group(2), match.group(3), match.group(4))

    text = _REPEATING.sub(from_marks, text)
    return _ELLIPSIS_DECIMAL.sub(from_ellipsis, text)


def assignment_groups(text: str) -> str:
    """``p=5,q=2;p=7,q=2`` lists two solutions, as ``p=5,q=2 \\text{ and } p=7,q=2`` does."""
    if "=" not in text.partition(";")[0]:
        return text
    return _ASSIGNMENT_GROUPS.sub(r" \\text{ and } ", text)


def upright_constants(text: str) -> str:
    """``\\mathrm{e}^{2}`` is ``e^{2}``: Euler's number and the imaginary unit set upright."""
    return _UPRIGHT_CONSTANT.sub(r"\1", text) if "{" in text else text


def absolute_bounds(text: str) -> str:
    """``|x - 2| < 3`` is the interval ``(-1, 5)``; ``|x| \\ge 3`` is ``(-\\infty, -3] \\cup [3,
    \\infty)``."""
    match = _ABSOLUTE_BOUND.match(text)
    if match is None:
        return text
    _, sign, shift, relation, radius = match.groups()
    centre = Fraction(shift or 0) * (-1 if sign == "+" else 1)
    low, high = (_plain(centre - Fraction(radius)), _plain(centre + Fraction(radius)))
    closed = relation in ("\\le", "\\leq", "\\ge", "\\geq")
    if relation in ("<", "\\le", "\\leq"):
        return f"[{low}, {high}]" if closed else f"({low}, {high})"
    if closed:
        return f"(-\\infty, {low}] \\cup [{high}, \\infty)"
    return f"(-\\infty, {low}) \\cup ({high}, \\infty)"


def _plain(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def integer_ranges(text: str) -> str:
    """``\\{n \\in \\mathbb{Z} : -2 \\le n \\le 2\\}`` lists its integers: ``\\{-2, -1, 0, 1, 2\\}``
    (up to fifty of them)."""
    match = _INTEGER_RANGE.fullmatch(text.strip())
    if match is None:
        return text
    low = int(match.group(2)) + (0 if "le" in match.group(3) else 1)
    high = int(match.group(5)) - (0 if "le" in match.group(4) else 1)
    if not 0 < high - low + 1 <= _MOST_LISTED_INTEGERS:
        return text
    return "\\{" + ", ".join(str(n) for n in range(low, high + 1)) + "\\}"


# A solution set's name before it: "S = ", "\mathcal{S} = ", "\mathbb{L} = " (Lösungsmenge).
_SOLUTION_SET_NAME = re.compile(r"^\s*(?:\\mathcal\s*\{?S\}?|\\mathbb\s*\{?[LS]\}?|S|L)\s*=\s*")
_ONE_POINT = re.compile(r"\\\{\s*(\((?:[^(){}]|\([^()]*\))*\))\s*\\\}")


def solution_set_notation(text: str) -> str:
    """``S = \\{(2, -3)\\}`` is the point ``(2, -3)``: a solution set's name goes, and the set
    of one point is that point, as the answer to a system."""
    text = _SOLUTION_SET_NAME.sub("", text, count=1)
    point = _ONE_POINT.fullmatch(text.strip())
    return point.group(1) if point else text


# "or" between two conditions, in any language: "x < -3 \text{ ou } x > 3", "x < 2 o x > 6"
_OTHER_OR = re.compile(
    rf"\s*\\text\s*\{{\s*(?:{OR_WORDS}|或)\s*\}}\s*"
    rf"|(?<=[\d}}])\s+(?:{OR_WORDS})\s+(?=[a-z]\s*(?:[<>≤≥]|\\[lg]e))"
)


def other_languages_or(text: str) -> str:
    """``x < -3 \\text{ ou } x > 3`` is ``x < -3 or x > 3``: the union of the two conditions."""
    return _OTHER_OR.sub(" or ", text)


# An interval as French and other continental schools write it: "]-2 ; 2,5]", "[5, +∞[",
# where a bracket turned outward leaves the endpoint out.
_OUTWARD_INTERVAL = re.compile(
    r"([\[\]])\s*([^\[\];]+?)\s*;\s*([^\[\];]+?)\s*([\[\]])"
    r"|(\])\s*([^\[\];,]+?)\s*,\s*([^\[\];,]+?)\s*([\[\]])"
    r"|(\[)\s*([^\[\];,]+?)\s*,\s*([^\[\];,]+?)\s*(\[)"
)
_LEFT_RIGHT = re.compile(rf"\\(?:left|right)(?=[\[\]])|{LATEX_SPACE}")


def outward_brackets(text: str) -> str:
    """``]-2 ; 2{,}5]`` is ``(-2, 2.5]`` and ``[5, +\\infty[`` is ``[5, +\\infty)``: an outward
    bracket is an open end; with ";" between the ends, a comma is a decimal comma."""
    if "[" not in text and "]" not in text:
        return text

    def standard(match: re.Match) -> str:
        groups = [g for g in match.groups() if g is not None]
        left, low, high, right = groups
        if match.group(1) is not None:  # "a ; b": decimal commas in the ends
            low, high = (end.replace("{,}", ".").replace(",", ".") for end in (low, high))
        return f"{'[' if left == '[' else '('}{low}, {high}{']' if right == ']' else ')'}"

    rewritten, count = _OUTWARD_INTERVAL.subn(standard, _LEFT_RIGHT.sub("", text))
    return rewritten if count else text


def set_builder(text: str) -> str:
    """``\\{x \\in \\mathbb{R} \\mid x \\le 2\\}``: the set of x with a condition is the
    condition, which is then read as the interval it describes."""
    match = _SET_BUILDER.fullmatch(text.strip())
    return match.group(1).strip() if match else text


def scale_words(text: str) -> str:
    """``2.5 million`` is ``2.5\\times 10^{6}``; ``3 thousand``, ``1.2 billion``, ``10.8 万``
    (ten thousands), ``3 亿`` (hundred millions), ``2.42 लाख`` (hundred thousands), ``1,2
    Milliarden``, ``45 ribu`` and ``$2.5M`` alike; a number written in myriads with more after
    them ("4万5800", "3만 5천") is its digits."""
    text = _MONEY_SCALE.sub(
        lambda m: f"{m.group(1)}\\times 10^{{{_MONEY_SCALE_EXPONENTS[m.group(2).lower()]}}}", text
    )
    text = _DECIMAL_SCALE_WORD.sub(
        lambda m: (
            f"{m.group(1).replace(',', '.')}\\times 10^{{"
            f"{_DECIMAL_SCALE_EXPONENTS[m.group(2).lower()]}}}"
        ),
        text,
    )
    if not _SCALE_HINT.search(text):
        return text
    text = _MYRIADS.sub(_myriads_value, text)
    return _SCALE_WORD.sub(
        lambda m: f"{m.group(1)}\\times 10^{{{_SCALE_EXPONENTS[m.group(2).lower()]}}}", text
    )


def unit_vectors(text: str) -> str:
    """``\\mathbf{i} - 2\\mathbf{j}`` (``3\\hat{i} + 4\\hat{j} - \\hat{k}``, ``2i + 3j``) is the
    tuple ``(1, -2)``: a vector written with the unit vectors. A lone ``i`` stays the
    imaginary unit: plain letters count only when ``j`` or ``k`` is there too."""
    plain = _DECORATED_UNIT.sub(r"\1", text)
    if not _UNIT_VECTOR_SUM.fullmatch(plain) or (plain == text and not re.search("[jk]", plain)):
        return text
    components = dict.fromkeys("ijk", "")
    for sign, coefficient, unit in _UNIT_VECTOR_TERM.findall(plain):
        if components[unit]:
            return text  # "i + i" names no vector by its components
        components[unit] = ("-" if sign == "-" else "") + (coefficient or "1")
    units = "ijk" if components["k"] else "ij"
    return f"({', '.join(components[u] or '0' for u in units)})"


def text_labels(text: str) -> str:
    """``\\text{center } (3, -2),\\ \\text{radius } 5`` is ``(3, -2), 5``: words that label the
    parts of a gold of several parts, in the order the question asks for them."""
    if "," not in text:
        return text
    unlabelled = _TEXT_LABEL.sub("", text)
    return unlabelled if unlabelled != text and unlabelled.strip() else text


def cis_notation(text: str) -> str:
    """``r\\operatorname{cis}\\theta`` is ``r(\\cos\\theta + i\\sin\\theta)``."""
    if "cis" not in text:
        return text
    return _CIS.sub(lambda m: f"(\\cos({m.group(1)}) + i\\sin({m.group(1)}))", text)


def e_notation(text: str) -> str:
    """``1.2e7`` is ``1.2\\times 10^{7}``."""
    return _E_NOTATION.sub(lambda m: f"{m.group(1)}\\times 10^{{{int(m.group(2))}}}", text)


def ascii_powers_of_ten(text: str) -> str:
    """``4.5 x 10^-4`` (typed, not typeset) is ``4.5\\times 10^{-4}``."""
    return _ASCII_POWER_OF_TEN.sub(lambda m: f"{m.group(1)}\\times 10^{{{m.group(2)}}}", text)


def mixed_numbers(text: str) -> str:
    """``3\\frac{1}{2}`` and ``2 1/2`` are the improper fractions 7/2 and 5/2."""

    def improper(sign: str, whole: str, numerator: str, denominator: str) -> str | None:
        top, bottom = int(numerator), int(denominator)
        if not 0 < top < bottom:
            return None
        value = int(whole) * bottom + top
        return f"{sign}\\frac{{{value}}}{{{bottom}}}"

    def replace(match: re.Match) -> str:
        return improper(*match.groups()) or match.group(0)

    return _MIXED_SLASH.sub(replace, _MIXED_LATEX.sub(replace, text))


def thousands_separators(text: str) -> str:
    """``1,234`` and ``9{,}000`` are 1234 and 9000 (three-digit groups only)."""
    return _THOUSANDS.sub(lambda m: m.group(1).replace("{,}", "").replace(",", ""), text)


def dotted_thousands(text: str) -> str:
    """``12.500`` as twelve thousand five hundred, as written in much of Europe."""
    return _DOTTED_THOUSANDS.sub(lambda m: m.group(1).replace(".", ""), text)


def fraction_words(text: str) -> str:
    """English fractions in words ("three-fourths", "two thirds", "one half") as fractions."""

    def replace(match: re.Match) -> str:
        numerator = _SMALL.get(match.group(1).lower())
        denominator = _ORDINAL_DENOMINATORS[match.group(2).lower()]
        return f"\\frac{{{numerator}}}{{{denominator}}}"

    return _FRACTION_WORD.sub(replace, text)


_ANGLE_WORD = re.compile(r"\b(?:an?\s+)?(right|straight)\s+angle\b", re.IGNORECASE)


def angle_words(text: str) -> str:
    """ "a right angle" and "a straight angle" as 90 and 180 degrees."""
    return _ANGLE_WORD.sub(
        lambda m: "90^{\\circ}" if m.group(1).lower() == "right" else "180^{\\circ}", text
    )


_HOUR_WORDS = "one two three four five six seven eight nine ten eleven twelve".split()
_HOUR = rf"(\d{{1,2}}|{'|'.join(_HOUR_WORDS)})"
_CLOCK_WORDS = re.compile(
    rf"\b(?:(?:a\s+)?(quarter|half)\s+(past|after|to|before)\s+{_HOUR}|{_HOUR}\s+o['’]\s*clock)"
    r"(?:\s+(?:in\s+the\s+(morning|afternoon|evening)|at\s+(night)))?\b",
    re.IGNORECASE,
)


def clock_words(text: str) -> str:
    """A time of day in words ("a quarter past three in the afternoon", "six o'clock") as a
    clock time (3:15 p.m., 6:00)."""

    def replace(match: re.Match) -> str:
        part, relation, hour_word, whole_hour, day_part, night = match.groups()
        hour_word = hour_word or whole_hour
        hour = int(hour_word) if hour_word.isdigit() else _HOUR_WORDS.index(hour_word.lower()) + 1
        minutes = 0
        if part is not None:
            minutes = 30 if part.lower() == "half" else 15
            if relation.lower() in ("to", "before"):
                hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
        half_of_day = ""
        if day_part or night:
            half_of_day = " a.m." if (day_part or "").lower() == "morning" else " p.m."
        return f"{hour}:{minutes:02d}{half_of_day}"

    return _CLOCK_WORDS.sub(replace, text)


def number_words(text: str) -> str:
    """English number words ("twelve", "forty-two", "one hundred and five") as digits."""

    def replace(match: re.Match) -> str:
        words = match.group(0)
        value = words_to_number(words)
        # the space after the words stays: "twenty-nine dollars" is "29 dollars"
        return words if value is None else f"{value}{words[len(words.rstrip()) :]}"

    return _NUMBER_WORD.sub(replace, text)


_CHINESE_DIGITS = dict(
    zip("零一二两三四五六七八九", (0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)
)
_CHINESE_UNITS = {"十": 10, "百": 100, "千": 1000}
# A numeral with a tens, hundreds or thousands sign, not right after Arabic digits and not the
# first sign of a unit ("4000千克" is 4000 kilograms, "百分之" opens a percent).
_CHINESE_NUMERAL = re.compile(
    "(?<![0-9.])(?:[零一二两三四五六七八九]+[十百千][零一二两三四五六七八九十百千]*"
    "|十[零一二两三四五六七八九]*)(?![克米分瓦])"
)
_SMALL = {
    word: index
    for index, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        " fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    word: 10 * index
    for index, word in enumerate(
        "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
    )
    if word != "_"
}
_SCALE = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_ORDINAL_DENOMINATORS = {
    name: denominator
    for denominator, names in (
        (2, "half halves"), (3, "third thirds"), (4, "fourth fourths quarter quarters"),
        (5, "fifth fifths"), (6, "sixth sixths"), (7, "seventh sevenths"),
        (8, "eighth eighths"), (9, "ninth ninths"), (10, "tenth tenths"),
        (12, "twelfth twelfths"), (100, "hundredth hundredths"),
    )
    for name in names.split()
}  # fmt: skip
_FRACTION_WORD = re.compile(
    rf"\b({'|'.join(list(_SMALL)[1:])})[\s-]+({'|'.join(_ORDINAL_DENOMINATORS)})\b", re.IGNORECASE
)


# Numbers a whole answer in Spanish, French, German, Portuguese or Italian names in one word
# ("Respuesta: seis."). Words that are also English answers ("once", "due", "cent") are left out.
_FOREIGN_NUMBER_WORDS = {
    word: value
    for words in (
        "cero uno dos tres cuatro cinco seis siete ocho nueve diez _ doce trece catorce quince"
        " dieciséis diecisiete dieciocho diecinueve veinte",
        "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze"
        " quinze seize dix-sept dix-huit dix-neuf vingt",
        "_ eins zwei drei vier fünf sechs sieben acht neun zehn _ zwölf dreizehn vierzehn"
        " fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig",
        "_ um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze"
        " dezesseis dezessete dezoito dezenove vinte",
        "_ uno _ tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici"
        " quindici sedici diciassette diciotto diciannove venti",
    )
    for value, word in enumerate(words.split())
    if word != "_"
} | {"una": 1, "une": 1, "uma": 1, "duas": 2, "zwei": 2}
_ONE_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")
# Tens of Spanish, Portuguese, Italian and French, which join their ones with "y", "e", "et"
# or a hyphen: "cincuenta y ocho", "cinquenta e oito", "cinquante-huit".
_FOREIGN_TENS = {
    word: (index + 2) * 10
    for words in (
        "veinte treinta cuarenta cincuenta sesenta setenta ochenta noventa",
        "vinte trinta quarenta cinquenta sessenta setenta oitenta noventa",
        "venti trenta quaranta cinquanta sessanta settanta ottanta novanta",
        "vingt trente quarante cinquante soixante",
    )
    for index, word in enumerate(words.split())
}
# German tens, which take their ones before them in one word: "sechsundvierzig" is 46.
_GERMAN_TENS = {
    word: (index + 2) * 10
    for index, word in enumerate(
        "zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
    )
}
_GERMAN_COMPOUND = re.compile(
    r"(?:(ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und)?("
    + "|".join(_GERMAN_TENS)
    + r")(?![^\W\d_])",
    re.IGNORECASE,
)
_FOREIGN_COMPOUND = re.compile(
    rf"({'|'.join(sorted(_FOREIGN_TENS, key=len, reverse=True))})(?:\s+(?:y|e|et)\s+|-)"
    r"([^\W\d_]+)\b",
    re.IGNORECASE,
)


def foreign_number_word(text: str) -> str:
    """A whole answer that is one number of another language in words ("doce", "cinquenta e
    oito", "cinquante-huit", "sechsundvierzig"), maybe with a few words of unit after it ("doce huevos"), as
    digits; else ``text``."""
    left, equals, right = text.rpartition("=")
    if equals:  # "23 \cdot 2 = sechsundvierzig": the result in words
        said = foreign_number_word(right)
        return text if said is right else f"{left}= {said}"
    stripped = text.strip().rstrip(".!")
    compound = _FOREIGN_COMPOUND.match(stripped)
    if compound is not None and len(stripped[compound.end() :].split()) <= 2:
        tens, ones = compound.group(1).lower(), compound.group(2).lower()
        if ones in _FOREIGN_NUMBER_WORDS and _FOREIGN_NUMBER_WORDS[ones] < 10:
            value = _FOREIGN_TENS[tens] + _FOREIGN_NUMBER_WORDS[ones]
            return f"{value}{stripped[compound.end() :]}".strip()
    german = _GERMAN_COMPOUND.match(stripped)
    if german is not None and len(stripped[german.end() :].split()) <= 2:
        ones = _FOREIGN_NUMBER_WORDS.get((german.group(1) or "").lower().replace("ein", "eins"), 0)
        value = _GERMAN_TENS[german.group(2).lower()] + ones
        return f"{value}{stripped[german.end() :]}".strip()
    first, _, rest = stripped.partition(" ")
    word = first.lower()
    if _ONE_WORD.fullmatch(word) and word in _FOREIGN_NUMBER_WORDS and len(rest.split()) <= 2:
        return f"{_FOREIGN_NUMBER_WORDS[word]} {rest}".strip()
    return text


def chinese_numerals(text: str) -> str:
    """Chinese numerals with a tens, hundreds or thousands sign ("十八", "二十五", "一百二十")
    as digits; a lone "一" is too often part of a word ("一共") to read as 1."""
    if not _CHINESE_NUMERAL.search(text):
        return text
    return _CHINESE_NUMERAL.sub(lambda m: str(_chinese_value(m.group(0))), text)


def _chinese_value(numeral: str) -> int:
    total = current = 0
    for char in numeral:
        if char in _CHINESE_DIGITS:
            current = _CHINESE_DIGITS[char]
        else:  # 十, 百, 千: "十八" starts with an implied one
            total += max(current, 1) * _CHINESE_UNITS[char]
            current = 0
    return total + current


def words_to_number(phrase: str) -> int | None:
    """The integer an English number phrase names, or None when it is not one."""
    words = [w for w in re.split(r"[\s-]+", phrase.lower()) if w and w != "and"]
    if not words:
        return None
    total = current = 0
    for word in words:
        if word in _SMALL:
            current += _SMALL[word]
        elif word in _TENS:
            current += _TENS[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in _SCALE:
            total += max(current, 1) * _SCALE[word]
            current = 0
        else:
            return None
    return total + current


def degrees_in_trigonometry(text: str) -> str:
    """``\\sin(90^\\circ - x)``: inside trigonometric functions, degrees as radians."""
    if not _TRIG.search(text):
        return text
    return _DEGREES.sub(lambda m: f"\\frac{{{m.group(1)}\\pi}}{{180}}", text)


def nested_lists_to_matrix(text: str) -> str:
    """``[[2, 1], [4, 3]]``, a matrix written as a list of rows, as a pmatrix; after an
    equals sign (``A^2 = [[1, 2], [0, 1]]``) the list is the value stated."""
    stripped = text.strip()
    match = _NESTED_LIST.search(stripped)
    if (
        match is None
        or match.end() != len(stripped)
        or not (match.start() == 0 or stripped[: match.start()].rstrip().endswith("="))
    ):
        return text
    rows = [row.split(",") for row in _ROW.findall(match.group(1))]
    if len({len(row) for row in rows}) != 1:
        return text
    body = " \\\\ ".join(" & ".join(cell.strip() for cell in row) for row in rows)
    return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"


def base_digits(text: str) -> tuple[str, int] | None:
    """``(400)_5``, ``400_{5}`` or ``1011_2`` as (digits, base); None for anything else."""
    match = _BASE.match(text.strip().replace(" ", ""))
    if not match:
        return None
    digits, base = match.group(1).upper(), int(match.group(2))
    if not 2 <= base <= 16 or any(int(d, 16) >= base for d in digits):
        return None
    return digits, base


# Rewrites that change the form of an answer (a fraction written as a repeating decimal),
# not just its spelling (Unicode signs, e-notation): a problem that asks for a form cares.
FORM_REWRITES = frozenset({"repeating_decimals", "mixed_numbers", "angle_brackets_to_tuple"})
# "cis" and its argument: a fraction, a group, or one term ("\\frac{3\\pi}{4}", "(60^\\circ)").
_CIS = re.compile(
    r"(?:\\(?:operatorname|mathrm|text)\s*\{\s*cis\s*\}|(?<![A-Za-z\\])cis)\s*(?:\\[,;!]\s*)*"
    r"(\\[dt]?frac\s*\{[^{}]*\}\s*\{[^{}]*\}|\([^()]*\)|\{[^{}]*\}"
    r"|-?[\d.]*\\?[A-Za-z]*(?:\s*/\s*\d+)?(?:\^\s*\{?\\circ\}?)?)"
)
# A label in words before a value: "\\text{radius } 5", "\\textbf{center:} (3, -2)".
_TEXT_LABEL = re.compile(
    r"\\(?:text|textbf|textrm|mathrm)\s*\{(?!\s*(?:and|or)\s*\})\s*[A-Za-z][A-Za-z ]{0,30}:?\s*\}"
    r"\s*(?:=|:)?\s*|(?<!\\)\\\s"  # LaTeX's space, not a row break "\\" before a space
)
_SCALE_EXPONENTS = {
    "thousand": 3,
    "million": 6,
    "billion": 9,
    "trillion": 12,
    "万": 4,
    "萬": 4,
    "亿": 8,
    "億": 8,
    # India's lakh and crore, in English and Hindi, written with a decimal point
    "lakh": 5,
    "lakhs": 5,
    "crore": 7,
    "crores": 7,
    "हज़ार": 3,
    "हजार": 3,
    "लाख": 5,
    "करोड़": 7,
}
_SCALE_WORD = re.compile(
    r"(\d+(?:\.\d+)?)\s*(thousand\b|million\b|billion\b|trillion\b|万|萬|亿|億|lakhs?\b|crores?\b"
    r"|हज़ार|हजार|लाख|करोड़)",
    re.IGNORECASE,
)
_SCALE_HINT = re.compile("illion|housand|lakh|crore|[万萬亿億만억천千]|हज़ार|हजार|लाख|करोड़")
# The same in languages that write a decimal comma ("1,2 Milliarden", "2,5 Mio.", "3 mln"):
# there a comma in the number is a decimal one. German "Billion" and Spanish "billón" are
# 10^12 (the long scale), so English "billion" is left to the pattern above.
_DECIMAL_SCALE_EXPONENTS = {
    **dict.fromkeys(
        "mio millionen millones milioni milione miljoen mln milionów miliony".split(), 6
    ),
    **dict.fromkeys(
        "mrd milliarde milliarden milliard milliards miliardi miliardo miljard mld miliard"
        " miliardy miliardów".split(),
        9,
    ),
    **dict.fromkeys("billionen billones billón".split(), 12),
    # Indonesian, Vietnamese, Russian, Turkish, Spanish and Portuguese: "Rp45 ribu", "3 triệu"
    **dict.fromkeys("ribu nghìn ngàn тыс тысяч тысячи mil bin".split(), 3),
    **dict.fromkeys("juta triệu млн milyon".split(), 6),
    **dict.fromkeys("miliar tỷ млрд milyar".split(), 9),
}
_DECIMAL_SCALE_WORD = re.compile(
    r"(\d+(?:,\d+)?)\s*("
    + "|".join(sorted(_DECIMAL_SCALE_EXPONENTS, key=len, reverse=True))
    + r")(?![^\W\d_])\.?",
    re.IGNORECASE,
)
# An amount of money with a letter for its scale: "$2.5M", "€300K", "$1.2bn".
_MONEY_SCALE_EXPONENTS = {"k": 3, "m": 6, "mm": 6, "mn": 6, "b": 9, "bn": 9}
_MONEY_SCALE = re.compile(
    r"((?:\\?\$|€|£|¥)\s*\d+(?:\.\d+)?)\s*(k|m|mm|mn|bn?)(?![A-Za-z])", re.IGNORECASE
)
# Digits with the CJK signs of 10^8, 10^4 and 10^3, at least two of them or one with digits
# after it: "4万5800", "1亿2000万", "3만 5천".
_MYRIAD_SIGNS = {"亿": 8, "億": 8, "억": 8, "万": 4, "萬": 4, "만": 4, "千": 3, "천": 3}
_MYRIADS = re.compile(
    r"(?<![\d.])\d+\s*[亿億억万萬만千천](?:\s*\d+\s*[亿億억万萬만千천])*(?:\s*\d+)?(?![\d.])"
)
_MYRIAD_PART = re.compile(r"(\d+)\s*([亿億억万萬만千천])")


def _myriads_value(match: re.Match) -> str:
    written = match.group(0)
    parts = _MYRIAD_PART.findall(written)
    tail = written[written.rfind(parts[-1][1]) + 1 :].strip()
    if len(parts) == 1 and not tail:
        return written  # "3 亿", "5 万": a scale word, read as such
    return str(sum(int(n) * 10 ** _MYRIAD_SIGNS[sign] for n, sign in parts) + int(tail or 0))


# The unit vectors i, j, k, written bold, with a hat or an arrow, and sums of their multiples.
_DECORATED_UNIT = re.compile(
    r"\\(?:mathbf|hat|vec|boldsymbol|bf|mathrm)\s*\{\s*([ijk])\s*\}|\\(?:hat|vec)\s+([ijk])\b"
)
_UNIT_VECTOR_TERM = re.compile(r"([-+]?)\s*(\d+(?:\.\d+)?)?\s*(?:\\,|\\cdot)?\s*([ijk])")
_UNIT_VECTOR_SUM = re.compile(
    r"\s*[-+]?\s*(?:\d+(?:\.\d+)?)?\s*(?:\\,|\\cdot)?\s*[ijk]"
    r"(?:\s*[-+]\s*(?:\d+(?:\.\d+)?)?\s*(?:\\,|\\cdot)?\s*[ijk])*\s*"
)
# "tan⁻¹(x)", "\sin^{-1} x": the inverse function, not a reciprocal.
_INVERSE_TRIG = re.compile(r"(?<![A-Za-z])\\?(sin|cos|tan|cot|sec|csc)\s*\^\s*\{?\s*-\s*1\s*\}?")


def inverse_trig_powers(text: str) -> str:
    """``\\tan^{-1}(x)`` is ``\\arctan(x)`` (and ``sin⁻¹`` ``\\arcsin``): the power -1 on a
    trigonometric function names its inverse, as calculators and textbooks write it."""
    if "-1" not in text.replace(" ", ""):
        return text
    return _INVERSE_TRIG.sub(r"\\arc\1", text)


# A function named in plain text: "ln x", "sin(2x)", "log_2 8"; not "sec" (seconds)
_PLAIN_FUNCTION = re.compile(
    r"(?<![A-Za-z\\])(arcsin|arccos|arctan|sin|cos|tan|cot|ln|log|exp)(?=[\s(_^{0-9\\|])"
)
_SINE_AS_SEN = re.compile(r"\\operatorname\s*\{\s*sen\s*\}|(?<![A-Za-z\\])sen(?=[\s(^{])")
_PLAIN_ROOT = re.compile(r"(?<![A-Za-z\\])sqrt\s*\(([^()]*)\)")  # "2 sqrt(3)"
_PLAIN_PI = re.compile(r"(?<![^\W\d_])(?<!\\)pi(?![^\W\d_])")  # "18pi", "90*pi"; not "pièces"


def plain_function_names(text: str) -> str:
    """``ln x`` is ``\\ln x``, ``sqrt(3)`` is ``\\sqrt{3}`` and ``18pi`` is ``18\\pi``: without its
    backslash a name reads as a product of letters (l·n·x), as plain-text outputs write it.
    Spanish, Portuguese and Italian write the sine "sen" (``\\operatorname{sen} x``)."""
    text = _SINE_AS_SEN.sub(r"\\sin", text) if "sen" in text else text
    return plain_pi(_PLAIN_ROOT.sub(r"\\sqrt{\1}", _PLAIN_FUNCTION.sub(r"\\\1", text)))


_ADJACENT_BINOMIAL = re.compile(r"(\\[dt]?binom\s*\{[^{}]*\}\s*\{[^{}]*\})\s*(?=\\[dt]?binom\b)")


def adjacent_binomials(text: str) -> str:
    """``\\binom{13}{2}\\binom{39}{3}`` is a product, which the LaTeX parser reads as a sum
    unless a ``\\cdot`` stands between them."""
    return _ADJACENT_BINOMIAL.sub(r"\1 \\cdot ", text) if "binom" in text else text


def plain_pi(text: str) -> str:
    """``18pi`` is ``18\\pi``, not 18 with a unit "pi"."""
    return _PLAIN_PI.sub(r"\\pi ", text) if "pi" in text else text


def top_level_parts(text: str) -> list[str]:
    """``text`` split at its commas outside any brackets."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char in "{([") - (char in "})]")
        if char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    return [*parts, text[start:].strip()]


def vector_notation(text: str) -> str:
    """A vector or matrix as linear algebra writes it in text: transposed ("(0, -5, 10)^T",
    "[1, 1, 1]ᵀ"), in square brackets ("[1, 1, 1]", three entries or more, so no interval),
    scaled (``\\frac{1}{2}(1, -1, 2)``, the vector of the products), as MATLAB's rows
    ("[0 -1; 1 0]") or as a diagonal ("diag(1/2, -1, 3)")."""
    if not any(mark in text for mark in "[(") or len(text) > MAX_ANSWER_CHARS:
        return text
    text = _TRANSPOSED.sub(r"\1", text)
    if (listed := _BRACKET_LIST.fullmatch(text)) is not None:
        return f"({listed.group(1)})"
    if (scaled := _SCALED_TUPLE.fullmatch(text)) is not None:
        entries = top_level_parts(scaled.group(2))
        if len(entries) >= 2 and all(entries):
            factor = scaled.group(1).strip()
            return "(" + ", ".join(f"{factor} \\cdot ({entry})" for entry in entries) + ")"
    if (rows := _MATLAB_MATRIX.fullmatch(text)) is not None:
        cells = [_MATLAB_CELLS.split(row.strip()) for row in rows.group(1).split(";")]
        # one entry a row is "[-3 ; 5]", an interval in French notation
        if len({len(row) for row in cells}) == 1 and len(cells[0]) > 1 and all(map(all, cells)):
            return _pmatrix(cells)
    if (diagonal := _DIAGONAL.fullmatch(text)) is not None:
        entries = top_level_parts(diagonal.group(1))
        cells = [[e if i == j else "0" for j, e in enumerate(entries)] for i in range(len(entries))]
        return _pmatrix(cells) if len(entries) >= 2 and all(entries) else text
    return text


def _pmatrix(cells: list[list[str]]) -> str:
    body = " \\\\ ".join(" & ".join(cell.strip() for cell in row) for row in cells)
    return f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}"


_TRANSPOSED = re.compile(
    r"(\)|\]|\\end\{[pbvB]?matrix\})\s*(?:\^\s*\{?\s*(?:T|\\top|\\intercal|\\mathsf\{T\})\s*\}?|ᵀ)\s*$"
)
_BRACKET_LIST = re.compile(
    r"\s*(?:\\left)?\[([^\[\]();]*,[^\[\]();]*,[^\[\]();]*?)(?:\\right)?\]\s*"
)
_SCALAR = r"-?\s*(?:\\[dt]?frac\{[^{}]*\}\{[^{}]*(?:\{[^{}]*\}[^{}]*)?\}|\d*\\sqrt\{[^{}]*\}|\d+(?:\.\d+)?)"
_SCALED_TUPLE = re.compile(
    rf"\s*({_SCALAR}(?:\s*{_SCALAR})*)\s*(?:\\cdot|\*)?\s*(?:\\left)?\(((?:[^()]|\([^()]*\))*)(?:\\right)?\)\s*"
)
_MATLAB_MATRIX = re.compile(r"\s*\[([^\[\];]+(?:;[^\[\];]+)+)\]\s*")
_MATLAB_CELLS = re.compile(r"\s*,\s*|\s+")
_DIAGONAL = re.compile(
    r"\s*(?:\\operatorname\{diag\}|\\(?:text|mathrm)\{diag\}|diag)\s*(?:\\left)?\(((?:[^()]|\([^()]*\))*)(?:\\right)?\)\s*"
)


_ORDER = (
    unicode_to_latex,
    plain_function_names,
    inverse_trig_powers,
    text_labels,
    angle_brackets_to_tuple,
    vector_notation,
    signed_tuples,
    assignment_groups,
    upright_constants,
    set_builder,  # "\{x : |x| < 1\}" leaves a condition the next rewrite reads
    absolute_bounds,
    integer_ranges,
    solution_set_notation,
    outward_brackets,
    other_languages_or,
    nested_lists_to_matrix,
    repeating_decimals,
    cis_notation,
    e_notation,
    ascii_powers_of_ten,
    scale_words,
    unit_vectors,
    mixed_numbers,
    degrees_in_trigonometry,
)


def all_rewrites(text: str) -> tuple[str, tuple[str, ...]]:
    """Every value-preserving rewrite above, in an order where none undoes another, and the
    names of those that changed something."""
    if len(text) > MAX_ANSWER_CHARS:
        return text, ()
    applied = []
    for rewrite in _ORDER:
        rewritten = rewrite(text)
        if rewritten != text:
            applied.append(rewrite.__name__)
            text = rewritten
    return text, tuple(applied)
