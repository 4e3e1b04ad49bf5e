"""The lettered options of a multiple-choice problem, and the options an answer names.

"(A) 3/5 (B) 5/8", "Choices: A: 12, B: 16" and one option per line ("A) 4") are all read;
options must run A, B, C... from the start, so a stray "A." in a sentence is not an option.
"""

from __future__ import annotations

import re

MAX_PROBLEM_CHARS = 20_000
MAX_OPTION_CHARS = 200

# "(A)", "A." or "A:" before a space; "A)24" with none, as AQuA-RAT writes its options
# ("Options: A)24, B)26") after a space, comma, colon, bracket or quote.
_LABEL = re.compile(
    r"\(([A-Ea-e])\)|(?<![\w'’(])([A-E])\s*[:.)](?=\s)|(?:^|(?<=[\s,:\['\"]))([A-E])\)(?=[^\s),])"
)
# An answer's option letters: "(C)", "C)", "C:", "C." or a lone capital C.
_ANSWER_LETTER = re.compile(r"\(([A-Ea-e])\)|(?<![\w'’\\{])([A-E])(?![\w'’])(?!\s+[a-z])")
_OPTION_END = re.compile(r"[\s,;]+$")
_OPTION_LEAD = re.compile(r"^(?:\}|\\[ ,;:!]|~|\s|\\q?quad\b)+")
_OPTION_TAIL = re.compile(
    r"(?:\\q?quad\b|\\(?:textbf|mathrm|text|mathbf)\s*\{|\\\\|\\[ ,;:!]|~|\s)+$"
)
# Two letters offered: "A or B", "C (possibly D)", "C (50%), or B (33 1/3%) if …", "B (21%)
# — or A (20%) under …".
_ALTERNATIVE_LETTERS = re.compile(
    r"^\W*(?:(?:either|entweder|soit|o bien|o)\s+)?\(?[A-Ea-e]\)?"
    r"(?:\s*[:.)]\s*[^,;\n]{0,30}?|\s*\([^()\n]{1,30}\)\s*,?|\s+[-−\d$\\][^,;\n()]{0,15}?,?)?"
    r"\s*,?\s*(?:[—–]\s*)?\(?\s*"
    r"(?:(?:\bor\b|\band\b|/|&|或|和|\bou\b|\bet\b)\s*(?:(?:possibly|perhaps|maybe)\s+)?"
    r"|(?:possibly|perhaps|maybe)\s+)\(?[A-Ea-e]\)?(?![\w'’])"
)


def problem_options(problem: str) -> dict[str, str]:
    """{"A": "3/5", "B": "5/8", ...} from the problem text; {} when it lists no options."""
    text = problem[-MAX_PROBLEM_CHARS:]
    labels = [(m, (m.group(1) or m.group(2) or m.group(3)).upper()) for m in _LABEL.finditer(text)]
    # The last run that starts at A and goes on letter by letter is the option list.
    best: list[tuple[re.Match, str]] = []
    run: list[tuple[re.Match, str]] = []
    for match, letter in labels:
        if letter == "A":
            run = [(match, letter)]
        elif run and ord(letter) == ord(run[-1][1]) + 1:
            run.append((match, letter))
        else:
            continue
        if len(run) >= 2:
            best = list(run)
    options = {}
    for index, (match, letter) in enumerate(best):
        end = best[index + 1][0].start() if index + 1 < len(best) else len(text)
        body = text[match.end() : end]
        if index + 1 == len(best):
            body = body.split("\n", 1)[0]
            body = re.split(r"(?<=\S)[.?!]\s", body, maxsplit=1)[0]
        options[letter] = _clean(body)[:MAX_OPTION_CHARS]
    return options


# "1) 6.5", "(2) 7": a numbered option at the start of a line.
_NUMBERED = re.compile(
    rf"^[ \t]*\(?([1-9])\)[ \t]*(\S[^\n]{{0,{MAX_OPTION_CHARS}}})$", re.MULTILINE
)


def numbered_options(problem: str) -> dict[str, str]:
    """{"1": "6.5", "2": "7", ...} for options numbered one per line from 1; {} otherwise."""
    if ")" not in problem:
        return {}
    listed = {
        m.group(1): m.group(2).strip() for m in _NUMBERED.finditer(problem[-MAX_PROBLEM_CHARS:])
    }
    in_order = [str(n) for n in range(1, len(listed) + 1)]
    return listed if len(listed) >= 2 and list(listed) == in_order else {}


def _clean(body: str) -> str:
    """An option's text without the LaTeX of the option list around it: AMC problems write
    ``$\\textbf{(A)}\\ 12 \\qquad \\textbf{(B)}\\ 18$``."""
    body = _OPTION_TAIL.sub("", _OPTION_LEAD.sub("", body.strip()))
    if len(re.findall(r"(?<!\\)\$", body)) % 2:  # the list's math span, opened or closed
        body = body.strip("$").strip()
    return _OPTION_END.sub("", body)


def named_letters(answer: str) -> list[str]:
    """The option letters an answer names, in order and without repeats."""
    letters = []
    for match in _ANSWER_LETTER.finditer(answer):
        letter = (match.group(1) or match.group(2)).upper()
        if letter not in letters:
            letters.append(letter)
    return letters


def offers_several(answer: str) -> bool:
    """True when an answer opens with two options joined as alternatives: "(A) or (C)",
    "either (A) or (B)", "B and D", "B: 12 or D: 24", "(A) 9, or (C) 11", "(C), or (A) if …",
    "A (or B if …)"; not "D, it cannot be A or B"."""
    return _ALTERNATIVE_LETTERS.match(_TEXT_WORD.sub(r" \1 ", answer)) is not None


def strip_letter(answer: str) -> str:
    """The answer without its option label: "(C) 70°", "\\text{(C) 70°}" and
    "\\(\\textbf{(C)}\\ 70°\\)" are "70°"."""
    answer = _TEXT_WRAPPER.sub(r"\1", _MATH_DELIMITERS.sub("", answer))
    return _LETTER_LABEL.sub("", answer, count=1).strip()


_MATH_DELIMITERS = re.compile(r"^\s*(?:\\\(|\$)\s*|\s*(?:\\\)|\$)\s*$")
_TEXT_WRAPPER = re.compile(r"^\s*\\(?:text|textbf|mathrm|mathbf)\s*\{(.*)\}\s*$")
# An option's label at the start of an answer: "(C) ", "C: ", "\textbf{(C)}\ " (AMC's).
_LETTER_LABEL = re.compile(
    r"^\s*(?:\\text(?:bf)?\s*\{\s*)?\(?[A-Ea-e]\)?(?:\s*\})?\s*(?:\\ )?\s*[:.)]?\s*"
    r"(?:(?:[—–]|-(?=\s))\s*)?"  # "(A) — Quantity B is greater."
)
# "A \text{ or } B": a word set in LaTeX text.
_TEXT_WORD = re.compile(r"\\text\s*\{\s*(or|and|oder|ou|et)\s*\}")
