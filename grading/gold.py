"""Gold sanity: a gold answer that looks malformed, so an "incorrect" against it is in doubt.

Datasets carry typos (``4:30p..``), truncated LaTeX and golds of the wrong kind for their
question. A row whose gold is suspect is never silently "incorrect": the jury flags it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from grading import options
from grading.evaluators.symbolic import parse_answer
from grading.types import Sample

_STRAY_END = re.compile(r"(?:\.\.|[,;:=+\-*/^_\\(\[{]|\?)\s*$")
_REPEATED_PUNCTUATION = re.compile(r"[?!]{2,}|,,")
_YES_NO_QUESTION = re.compile(
    r"^\s*(?:is|are|does|do|can|will|was|were|has|have)\b[^?]*\?\s*$", re.IGNORECASE
)
_NUMERIC = re.compile(r"^-?\d+(?:\.\d+)?$")
_RATIO = re.compile(r"\d+\s*(?::|\\colon)\s*\d+")
_PROBABILITY_ASKED = re.compile(
    r"\bprobabilit|\bchance\b|probabilidad|probabilité|wahrscheinlichkeit|probabilità|вероятност"
    r"|概率|確率",
    re.IGNORECASE,
)
_ODDS_ASKED = re.compile(r"\bodds\b|\bratio\b|\bcotes?\b|\bquote\b|\bVerhältnis\b", re.IGNORECASE)
_LOWER_CASE_LABEL = re.compile(r"\s*\$?\(?([a-e])\)?\$?\s*")


def gold_is_suspect(gold: str, problem: str) -> bool:
    """True when ``gold`` carries stray punctuation, unbalanced brackets, does not parse as
    an answer at all, or is not the kind of answer its question asks for (a number for a
    yes/no question, a ratio for a probability)."""
    text = gold.strip()
    if not text:
        return True
    bare = text.strip("$").strip()
    if _STRAY_END.search(bare) or _REPEATED_PUNCTUATION.search(bare) or not _balanced(bare):
        return True
    parsed = parse_answer(text)
    if parsed.empty:
        return True
    question = problem.strip().rsplit("\n", 1)[-1][-300:]
    if _RATIO.fullmatch(bare) and _PROBABILITY_ASKED.search(question):
        return not _ODDS_ASKED.search(question)  # "1:2" for a probability: odds, or a ratio?
    return bool(_YES_NO_QUESTION.match(question)) and bool(_NUMERIC.match(bare))


def _balanced(text: str) -> bool:
    pairs = {")": "(", "]": "[", "}": "{"}
    depth: list[str] = []
    for char in text:
        if char in "([{":
            depth.append(char)
        elif char in pairs:
            # Half-open intervals ("[2, 5)") close with the other kind of bracket.
            if not depth or (depth[-1] != pairs[char] and {depth[-1], char} - set("[()]")):
                return False
            depth.pop()
    return not depth


def with_option_letter(sample: Sample) -> Sample:
    """``sample`` with a gold written as a lower-case option label ("b", where the problem
    lists "(a) 24 (b) 48") as the capital letter every choice reader compares; read as
    mathematics, "b" is a variable, and "(B)" looks wrong against it."""
    label = _LOWER_CASE_LABEL.fullmatch(sample.gold)
    if label is None or not sample.problem:
        return sample
    letter = label.group(1).upper()
    if letter not in options.problem_options(sample.problem):
        return sample
    return replace(sample, gold=letter)
