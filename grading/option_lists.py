"""Answers that name several options: a select-all set ("A, C, D", "ACD", "①③④", "i, iii"), a
sequence (a true/false string "TFTF", an ordering "C, A, D, B") or a matching ("1-C, 2-D").

Such a gold is compared label by label, never by value: read as mathematics, "ACD" is the
product A·C·D and "T, F, T, F" a tuple of symbols, so "A, C, D" and "TFTF" look wrong against
them. The output's labels are read where it states its answer, in the gold's alphabet; a set
ignores order and repeats, a sequence does not, a matching compares what each item is paired
with. Only regular expressions over a bounded window: no SymPy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from grading import options
from grading.candidates import (
    ANSWER_MARKER,
    BOXED,
    FINAL_MARKER,
    Candidate,
    Candidates,
    hedge_words,
    text_end,
)
from grading.equivalence.rewrite import LATEX_SPACE
from grading.types import Sample, Status, Verdict

_GOLD_CHARS = 200
_REGION_CHARS = 600
_ITEM_CHARS = 40  # an item of an answer list ("1. T"), not of reasons
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"
_ROMAN = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_ROMAN_WORD = r"(?:viii|vii|vi|iv|ix|iii|ii|i|v|x)"

_GOLD_WRAPPER = re.compile(r"^\\(?:boxed|text|textbf|mathrm)\{(.*)\}$", re.DOTALL)
_GOLD_PAIR = re.compile(r"(\d+)\s*(?:-|–|→|:|=)\s*\(?([A-Ha-h])\)?")
_GOLD_PAIRS = re.compile(r"(?:\s*\d+\s*(?:-|–|→|:|=)\s*\(?[A-Ha-h]\)?\s*[,;]?)+")
_TRUTH_WORD = r"(?:true|false|yes|no|t|f)"
_GOLD_TRUTHS = re.compile(
    rf"\s*{_TRUTH_WORD}(?:(?:\s*[,;]\s*|\s+){_TRUTH_WORD})+\s*[,;]?\s*", re.IGNORECASE
)
_GOLD_TRUTH_STRING = re.compile(r"[TF]{2,12}")
_GOLD_LETTER_STRING = re.compile(r"[A-H]{2,8}")
_GOLD_LETTERS = re.compile(r"\(?[A-H]\)?(?:\s*(?:,|;|\band\b|&|\s)\s*\(?[A-H]\)?)+")
_GOLD_CIRCLED = re.compile(rf"[{_CIRCLED}](?:[\s,、]*[{_CIRCLED}])*")
_GOLD_NUMBERED = re.compile(r"\(\d\)(?:[\s,、]*(?:and\s*)?\(\d\))+")
_GOLD_ROMAN = re.compile(
    rf"\(?{_ROMAN_WORD}\)?(?:\s*(?:,|;|\band\b|&)\s*\(?{_ROMAN_WORD}\)?)+", re.IGNORECASE
)

# Inside an output's answer.
_MARKUP = re.compile(
    rf"\\(?:text|textbf|mathrm|mathbf|textit|operatorname)\s*\{{|{LATEX_SPACE}|\\q?quad\b|\\[()\[\]]"
    r"|\\(?:left|right)\b|\*\*|[{}$`]"
)
_ARROW = re.compile(r"\\(?:to|rightarrow|Rightarrow|mapsto|longrightarrow)\b|->|⟶|⇒")
_PAREN_LETTER = re.compile(r"\(([A-Ha-h])\)")
_LETTER_TOKEN = re.compile(r"(?<![A-Za-z\\])([A-H]{1,8})(?![A-Za-z])")
_LOWER_LIST = re.compile(r"\s*\(?[a-h]\)?(?:\s*(?:,|;|&|\band\b|\s)\s*\(?[a-h]\)?)*\s*[.]?\s*")
_LIST_LEAD = re.compile(r"^.*?(?::|\bare\b|\bis\b)\s*", re.IGNORECASE)
_TRUTH_TOKEN = re.compile(
    r"(?<![A-Za-z])(?:(?i:true|false|yes|no|correct|incorrect|wrong)|([TF]{1,12}))(?![A-Za-z])"
    r"|[✓✔√✗✘×]|正确|错误|对|错"
)
_TRUTH_MEANING = dict.fromkeys(
    ("true", "yes", "correct", "✓", "✔", "√", "正确", "对"), "T"
) | dict.fromkeys(("false", "no", "incorrect", "wrong", "✗", "✘", "×", "错误", "错"), "F")
_PAIR = re.compile(r"(\d+)\s*(?:[-–—→:=).]|->)?\s*\(?([A-Ha-h])\)?(?![A-Za-z])")
_PAIR_IN_PARENS = re.compile(r"\(\s*(\d+)\s*,\s*\(?([A-Ha-h])\)?\s*\)")
_REVERSED_PAIR = re.compile(r"(?<![A-Za-z])([A-Ha-h])\s*(?:[-–—→:=]|->)\s*(\d+)")
_PAREN_NUMBER = re.compile(r"\((\d{1,2})\)")
_NAMED_NUMBERS = re.compile(
    r"\b(?:options?|choices?|statements?|numbers?)\s+(\d{1,2}(?:\s*(?:,|and|&)\s*\d{1,2})*)",
    re.IGNORECASE,
)
_PAREN_ROMAN = re.compile(rf"\(({_ROMAN_WORD})\)", re.IGNORECASE)
_ROMAN_TOKEN = re.compile(rf"(?<![A-Za-z])({_ROMAN_WORD})(?![A-Za-z])")
_UPPER_ROMAN_TOKEN = re.compile(r"(?<![A-Za-z])(VIII|VII|VI|IV|IX|III|II|V|X|I)(?![A-Za-z])")
_ALL_BUT = re.compile(r"\ball\b[^.\n]*?\b(?:except|but)\b(.*)", re.IGNORECASE)
_ALL = re.compile(
    r"\ball\s+(?:(?:three|four|five|six|of\s+the\s+\w+|the\s+\w+|options|choices|statements)\b"
    r"|of\s+them\b)|\ball\s+of\s+the\s+above\b|全部|都正确|都对",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\bor\b|\bpossibly\b|\bmaybe\b|\bperhaps\b|\?|\beither\b|\bdepend|或|\boder\b|\bou\b",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"\s*(?:\d{1,2}[.):]|\(\d{1,2}\)|[-*•]|[A-Ha-h][.)]|\([A-Ha-h]\))\s*\S")
# "Arrange the following in ascending order", "Order them from smallest to largest", "Put the
# steps in the correct order"; not "second-order" or "which sequences are arithmetic".
_ORDER_ASKED = re.compile(
    r"\b(?:arrange|order|sort|rank|put|list|write)\b[^.?\n]{0,60}?\b(?:order|from)\b"
    r"|\bin\s+(?:ascending|descending|increasing|decreasing|chronological|the\s+correct)\s+order"
    r"|\bfrom\s+(?:least|smallest|largest|greatest|highest|lowest|first|earliest|oldest)\s+to\b"
    r"|排序|排列|顺序",
    re.IGNORECASE,
)
_ASCENDING = re.compile(
    r"\b(?:ascending|increasing|least to greatest|smallest to largest|lowest to highest)\b"
    r"|从小到大|由小到大",
    re.IGNORECASE,
)
_DESCENDING = re.compile(
    r"\b(?:descending|decreasing|greatest to least|largest to smallest|highest to lowest)\b"
    r"|从大到小|由大到小",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class OptionList:
    """A gold that names several options, in the alphabet its labels come from."""

    alphabet: str  # "letter", "number" (①, (2)), "roman", "truth" (T/F), "pair" (1-C)
    labels: tuple[str, ...]  # upper-case letters, digits, lower-case numerals, T/F, "1C"


@lru_cache(maxsize=1024)
def gold_option_list(gold: str) -> OptionList | None:
    """The option labels ``gold`` names, or None when it is not such an answer."""
    text = gold[:_GOLD_CHARS].strip().strip("$").strip()
    wrapped = _GOLD_WRAPPER.match(text)
    text = (wrapped.group(1) if wrapped else text).strip().rstrip(".").strip()
    if _GOLD_PAIRS.fullmatch(text):
        pairs = tuple(f"{n}{letter.upper()}" for n, letter in _GOLD_PAIR.findall(text))
        return OptionList("pair", pairs) if len(pairs) >= 2 else None
    if _GOLD_TRUTH_STRING.fullmatch(text):
        return OptionList("truth", tuple(text))
    if _GOLD_TRUTHS.fullmatch(text):
        return OptionList("truth", _truths(text))
    if _GOLD_LETTER_STRING.fullmatch(text) or _GOLD_LETTERS.fullmatch(text):
        letters = tuple(re.findall(r"[A-H]", text))
        return OptionList("letter", letters) if len(set(letters)) == len(letters) else None
    if _GOLD_CIRCLED.fullmatch(text):
        return OptionList(
            "number", tuple(str(_CIRCLED.index(c) + 1) for c in text if c in _CIRCLED)
        )
    if _GOLD_NUMBERED.fullmatch(text):
        return OptionList("number", tuple(_PAREN_NUMBER.findall(text)))
    if _GOLD_ROMAN.fullmatch(text):
        return OptionList("roman", tuple(m.lower() for m in _ROMAN_TOKEN.findall(text.lower())))
    return None


def grade_option_list(sample: Sample, candidates: Candidates) -> dict:
    """The Evaluation fields for an output whose gold names several options (a select-all
    set, a true/false string, an ordering or a matching)."""
    gold = gold_option_list(sample.gold)
    if gold is None:
        return {"status": Status.NO_ANSWER, "detail": "the gold names no options"}
    gold_text = ", ".join(gold.labels)
    final = _final(candidates)
    region = _answer_region(sample.output, candidates, final)
    labels = stated_labels(region, gold.alphabet, sample.problem)
    if not labels and final is not None and final.cue != BOXED:
        labels = stated_labels(final.text, gold.alphabet, sample.problem)
    if not labels:
        return {
            "status": Status.NO_ANSWER,
            "detail": f"no option labels found in the stated answer ({gold.alphabet})",
            "gold_latex": gold_text,
        }
    ordered = _ordered(gold, sample.problem)
    if ordered and gold.alphabet != "truth":
        labels = _read_in_asked_direction(labels, region, sample.problem)
    signals = []
    if _HEDGE.search(_clean(region)) or hedge_words(region):
        signals.append("hedged")
    if _states_other_labels(sample, candidates, final, labels, gold, ordered):
        signals.append("multiple_answers")
    if not ordered and len(set(labels)) < len(labels) and gold.alphabet != "pair":
        signals.append("multiple_answers")  # "A, B, C, E, A": two answers run together
    same = _same(labels, gold, ordered)
    return {
        "status": Status.OK,
        "verdict": Verdict.CORRECT if same else Verdict.INCORRECT,
        "extracted": ", ".join(labels),
        "extracted_latex": ", ".join(labels),
        "gold_latex": gold_text,
        "signals": tuple(signals),
    }


def stated_labels(text: str, alphabet: str, problem: str = "") -> tuple[str, ...]:
    """The labels of ``alphabet`` that ``text`` (a stated answer) names, in order."""
    clean = _ARROW.sub("→", _clean(text))
    if alphabet == "pair":
        found = _PAIR_IN_PARENS.findall(clean) or _PAIR.findall(clean)
        if found:
            return tuple(f"{n}{letter.upper()}" for n, letter in found)
        return tuple(f"{n}{letter.upper()}" for letter, n in _REVERSED_PAIR.findall(clean))
    if alphabet == "truth":
        return _truths(clean)
    if alphabet == "number":
        circled = [str(_CIRCLED.index(c) + 1) for c in clean if c in _CIRCLED]
        if circled:
            return tuple(circled)
        in_parens = _PAREN_NUMBER.findall(clean)
        if in_parens:
            return tuple(in_parens)
        named = _NAMED_NUMBERS.search(clean)
        return tuple(re.findall(r"\d+", named.group(1))) if named else ()
    if alphabet == "roman":
        found = _PAREN_ROMAN.findall(clean) or _ROMAN_TOKEN.findall(clean)
        found = found or _UPPER_ROMAN_TOKEN.findall(clean)
        return tuple(numeral.lower() for numeral in found)
    return _letters(clean, problem)


def _letters(clean: str, problem: str) -> tuple[str, ...]:
    offered = tuple(options.problem_options(problem)) if problem else ()
    all_but = _ALL_BUT.search(clean)
    if all_but and offered:
        left_out = set(_letters(all_but.group(1), ""))
        return tuple(letter for letter in offered if letter not in left_out)
    in_parens = _PAREN_LETTER.findall(clean)
    if in_parens:
        return tuple(letter.upper() for letter in in_parens)
    tokens = _LETTER_TOKEN.findall(clean)
    letters = [
        c for token in tokens if len(token) == 1 or len(set(token)) == len(token) for c in token
    ]
    if letters:
        return tuple(letters)
    listed = _LIST_LEAD.sub("", clean, count=1)
    if _LOWER_LIST.fullmatch(listed):
        return tuple(
            letter.upper() for letter in re.findall(r"(?<![A-Za-z])[a-h](?![A-Za-z])", listed)
        )
    if offered and _ALL.search(clean):
        return offered
    return ()


def _truths(text: str) -> tuple[str, ...]:
    found = []
    for match in _TRUTH_TOKEN.finditer(text):
        if match.group(1):
            found.extend(match.group(1))  # "TFTF", or one "T"
        else:
            found.append(_TRUTH_MEANING[match.group(0).lower()])
    return tuple(found)


def _clean(text: str) -> str:
    return _MARKUP.sub(" ", text)


def _final(candidates: Candidates) -> Candidate | None:
    final = candidates.final
    return final if final is not None and not final.in_think else None


def _answer_region(output: str, candidates: Candidates, final: Candidate | None) -> str:
    """Where the output states its answer: a short numbered list it ends on after a line that
    announces it ("So:" / "1. T" / "2. F"), the boxes it ends on, or the line from the
    answer's cue to its end."""
    reply = output[output.rfind("</think>") + 1 :] if "</think>" in output else output
    closing = _closing_items(reply[-_REGION_CHARS * 2 :])
    if closing:
        return closing
    if final is None:
        lines = [line for line in reply.splitlines() if line.strip()]
        return lines[-1][-_REGION_CHARS:] if lines else ""
    if final.cue == BOXED:
        boxes = candidates.closing_boxes()
        return ", ".join(box.text for box in boxes) if boxes else final.text
    end = text_end(output, final) or final.start + len(final.text)
    line_end = output.find("\n", end)
    return output[final.start : len(output) if line_end < 0 else line_end][:_REGION_CHARS]


def _closing_items(tail: str) -> str:
    """The short numbered lines a reply ends on after a line that announces them ("So:",
    "Final answers:"), joined; "" otherwise."""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    count = 0
    while count < len(lines) and _LIST_ITEM.match(lines[len(lines) - 1 - count]):
        count += 1
    items = lines[len(lines) - count :]
    announced = count < len(lines) and lines[-count - 1].rstrip("*").endswith(":")
    if count >= 2 and announced and all(len(item) <= _ITEM_CHARS for item in items):
        return "\n".join(items)
    return ""


def _ordered(gold: OptionList, problem: str) -> bool:
    """A sequence, not a set: true/false strings and matchings always; labels when the
    question asks for an order, or when the gold lists them out of order ("C, A, D, B")."""
    if gold.alphabet in ("truth", "pair"):
        return True
    return list(gold.labels) != sorted(gold.labels, key=_label_rank) or bool(
        _ORDER_ASKED.search(problem[-2000:])
    )


def _label_rank(label: str) -> tuple[int, str]:
    return (_ROMAN.index(label), "") if label in _ROMAN else (len(label), label)


def _read_in_asked_direction(labels: tuple[str, ...], region: str, problem: str) -> tuple[str, ...]:
    """ "A > B > D > C" for an ascending order is "C, D, B, A": a chain of < or > is read in
    the direction the question asks."""
    if ">" in region and "<" not in region and _ASCENDING.search(problem):
        return labels[::-1]
    if "<" in region and ">" not in region and _DESCENDING.search(problem):
        return labels[::-1]
    return labels


def _same(labels: tuple[str, ...], gold: OptionList, ordered: bool) -> bool:
    if gold.alphabet == "pair":
        return sorted(set(labels)) == sorted(gold.labels) and len(labels) == len(gold.labels)
    if ordered:
        return labels == gold.labels
    return set(labels) == set(gold.labels)


def _states_other_labels(
    sample: Sample,
    candidates: Candidates,
    final: Candidate | None,
    labels: tuple[str, ...],
    gold: OptionList,
    ordered: bool,
) -> bool:
    """Another box or answer line of the reply names other options ("**Answer: B, C**" at the
    top, "So the answer is B, C, D." at the end)."""
    stating = {id(final)} | {id(box) for box in candidates.closing_boxes()}
    for candidate in candidates.standing:
        if id(candidate) in stating or candidate.cue not in (BOXED, ANSWER_MARKER, FINAL_MARKER):
            continue
        other = stated_labels(candidate.text, gold.alphabet, sample.problem)
        if (
            other
            and max(len(other), len(labels)) >= 2
            and not _same(other, OptionList(gold.alphabet, labels), ordered)
        ):
            return True
    return False
