r"""Lexical notion extraction: the notions a solution names in its own text.

This is not the MSU method's extractor. The method asks an LLM for the mathematical notions a
solution relies on (see ``grading.msu.chat``); this extractor only reads what is written: LaTeX
commands that carry meaning (``\binom`` is "binomial coefficient"), named theorems, methods and
terms from the word list (``math_terms.txt``), and key quantities (numbers that end an equation,
and the final answer). It is offline, deterministic and linear in the length of the text: every
pattern is a single pass with bounded look-around, and phrases are matched greedily, longest
first, over a token list.
"""

from __future__ import annotations

import re
import unicodedata

from grading.msu.notions import Notions, ascii_punctuation, normalise_notions
from grading.msu.word_list import PhraseIndex, WordList, default_word_list

# Bump when the rules in this module change; the word list's own digest is added to it.
RULES_VERSION = "1"
MAX_QUANTITIES = 25  # the last distinct equation results kept, so a long text cannot flood the list
MAX_ANSWER_CHARS = 60

_LATEX = re.compile(r"\\(?:begin\s*\{\s*([A-Za-z]+)\*?\s*\}|([A-Za-z]+)|(%))")
_FACTORIAL = re.compile(r"(?:[0-9)}]|(?<![A-Za-z\\])[A-Za-z])!(?!=)")
_PERCENT = re.compile(r"[0-9] ?%")
_ABSOLUTE_VALUE = re.compile(r"\|[^|\n$&]{1,40}\|")
SYMBOL_NOTIONS = {
    "π": "pi",
    "√": "square root",
    "∛": "cube root",
    "∑": "summation",
    "∏": "product notation",
    "∫": "integral",
    "∞": "infinity",
    "≤": "inequality",
    "≥": "inequality",
    "≡": "modular arithmetic",
    "°": "angle measure",
    "∠": "angle",
    "△": "triangle",
    "⊥": "perpendicular lines",
    "∥": "parallel lines",
    "≅": "congruent triangles",
    "∪": "union",
    "∩": "intersection",
    "∅": "empty set",
    "⌊": "floor function",
    "⌈": "ceiling function",
    "≈": "approximation",
}
_SYMBOL = re.compile("[" + "".join(SYMBOL_NOTIONS) + "]")
NUMBER_SET_NOTIONS = {
    "R": "real number",
    "Z": "integer",
    "N": "natural number",
    "Q": "rational number",
    "C": "complex number",
}

_NUMBER = r"-?\d+(?:(?:\{,\}|,)\d{3})*(?:\.\d+)?"
_SIMPLE_FRACTION = r"-?\\[dt]?frac\s*\{\s*-?\d+\s*\}\s*\{\s*\d+\s*\}"
# A number (or a fraction of integers) right of "=" that ends the equation: a result, not a term.
_EQUATION_RESULT = re.compile(
    rf"=\s*({_NUMBER}|{_SIMPLE_FRACTION})\s*(?=$|[$.,;:)\]\n]|\\[\])]|\\\\|\\quad|\\text)"
)
_FRACTION_PARTS = re.compile(r"(-?)\\[dt]?frac\s*\{\s*(-?\d+)\s*\}\s*\{\s*(\d+)\s*\}")
_ANSWER_IS = re.compile(r"(?i)\banswer is:?\s*\$?\s*(-?\d+(?:\.\d+)?(?:/\d+)?)")
_HASHES = re.compile(r"####\s*(" + _NUMBER + ")")
_LATEX_SPACING = re.compile(r"\\[,;:! ]|\\left\b|\\right\b|\$")
_SPACES = re.compile(r"\s+")
_LATEX_COMMAND = re.compile(r"\\[a-z]+")
_WORD_RUN = re.compile(r"[a-z0-9][a-z0-9' \t\r\n-]*")  # words joined by spaces and hyphens


class LexicalExtractor:
    """Notions read from the solution's own words and LaTeX; see the module docstring."""

    name = "lexical"

    def __init__(self, word_list: WordList | None = None) -> None:
        self._words = word_list or default_word_list()
        self.version = f"{RULES_VERSION}+{self._words.digest}"

    def extract(self, solution: str) -> Notions:
        found = latex_notions(solution, self._words.latex)
        found |= term_notions(solution, self._words)
        found |= set(key_quantities(solution))
        return Notions(normalise_notions(found), self.name, self.version)


def latex_notions(text: str, commands: dict[str, str]) -> set[str]:
    r"""Notions of LaTeX commands, environments and symbols (``\sqrt[3]``, ``n!``, ``|x|``, ``%``)."""
    found: set[str] = set()
    for match in _LATEX.finditer(text):
        environment, command, percent = match.groups()
        if percent:
            found.add("percent")
        elif environment:
            _add(found, commands.get(f"begin{{{environment}}}"))
        else:
            _add(found, _command_notion(text, match, command, commands))
    found.update(SYMBOL_NOTIONS[m[0]] for m in _SYMBOL.finditer(text))
    if _FACTORIAL.search(text):
        found.add("factorial")
    if _PERCENT.search(text):
        found.add("percent")
    if _ABSOLUTE_VALUE.search(text):
        found.add("absolute value")
    return found


def _command_notion(text: str, match: re.Match, command: str, commands: dict[str, str]) -> str:
    """A command whose meaning depends on its neighbours, or else the data file's notion."""
    after = text[match.end() : match.end() + 12].lstrip()
    if command == "sqrt":
        if after.startswith("[3]"):
            return "cube root"
        return "nth root" if after.startswith("[") else "square root"
    if command == "circ":
        before = text[max(0, match.start() - 3) : match.start()].replace(" ", "")
        return "angle measure" if before.endswith(("^", "^{")) else "composition of functions"
    if command == "mathbb":
        return NUMBER_SET_NOTIONS.get(after.lstrip("{").lstrip()[:1], "")
    if command == "left":
        return "absolute value" if after.startswith("|") else ""
    return commands.get(command, "")


def _add(found: set[str], notion: str | None) -> None:
    if notion:
        found.add(notion)


def term_notions(text: str, words: WordList) -> set[str]:
    """Word-list notions named in the prose, matched on canonical words, longest phrase first.

    A phrase never spans punctuation, math or a LaTeX command: only spaces, hyphens and
    apostrophes may stand between its words, so "turn right. Triangle" is no "right triangle".
    """
    folded = unicodedata.normalize("NFKD", ascii_punctuation(text))
    folded = folded.encode("ascii", "ignore").decode("ascii").lower()
    folded = _LATEX_COMMAND.sub("|", folded)  # a command name is never a word and ends a phrase
    index = words.index
    found: set[str] = set()
    for run in _WORD_RUN.finditer(folded):
        _match_phrases(index.canonical_words(run[0]), index, found)
    return found


def _match_phrases(run: list[str], index: PhraseIndex, found: set[str]) -> None:
    position = 0
    while position < len(run):
        longest = index.starts.get(run[position], 0)
        for length in range(min(longest, len(run) - position), 0, -1):
            notion = index.phrases.get(tuple(run[position : position + length]))
            if notion:
                found.add(notion)
                position += length - 1
                break
        position += 1


def key_quantities(text: str) -> list[str]:
    """Numbers that end an equation (the last 25 distinct, zero left out) and the final answer."""
    results = dict.fromkeys(_quantity(m[1]) for m in _EQUATION_RESULT.finditer(text))
    results.pop("0", None)  # "... = 0" states an equation to solve far more often than a result
    quantities = list(results)[-MAX_QUANTITIES:]
    answer = final_answer(text)
    if answer:
        quantities.append(f"final answer {answer}")
    return quantities


def final_answer(text: str) -> str:
    r"""The last ``\boxed{...}`` (or ``\fbox``, "the answer is", ``####``), normalised; "" if none."""
    start = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if start >= 0:
        return _answer_value(_braced(text, text.find("{", start, start + 12)))
    matches = [m[1] for m in _ANSWER_IS.finditer(text)] or [m[1] for m in _HASHES.finditer(text)]
    return _answer_value(matches[-1]) if matches else ""


def _braced(text: str, opening: int) -> str:
    """The group that starts at ``opening`` (a "{"), read at most 4 times the answer limit."""
    if opening < 0:
        return ""
    depth = 0
    for position in range(opening, min(len(text), opening + 4 * MAX_ANSWER_CHARS)):
        depth += {"{": 1, "}": -1}.get(text[position], 0)
        if depth == 0:
            return text[opening + 1 : position]
    return ""


def _answer_value(raw: str) -> str:
    value = _LATEX_SPACING.sub("", raw.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac"))
    value = _SPACES.sub(" ", value).strip()
    if re.fullmatch(rf"{_NUMBER}|{_SIMPLE_FRACTION}", value):
        value = _quantity(value)
    return value if len(value) <= MAX_ANSWER_CHARS else ""


def _quantity(raw: str) -> str:
    """A number as one string however it was written: 10{,}000 and 10,000 are 10000, \\frac{3}{4} is 3/4."""
    fraction = _FRACTION_PARTS.fullmatch(raw.strip())
    if fraction:
        sign = "-" if (fraction[1] == "-") != fraction[2].startswith("-") else ""
        return f"{sign}{fraction[2].lstrip('-')}/{fraction[3]}"
    return raw.replace("{,}", "").replace(",", "").replace(" ", "")
