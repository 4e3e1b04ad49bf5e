"""Yes/no, true/false and multiple-choice letters, graded as MSQA grades them: by the word the
output commits to, case-insensitively.

The committed answer is the one after an explicit marker ("the answer is B", "Answer: (B)",
``\\boxed{B}``), else the answer word the output opens with, else (yes/no) its first answer
word or (letters) its last stand-alone option letter. An output that offers both ("yes or no",
"A or B") or says "it depends" commits to nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from grading.evaluators import TimedEvaluator
from grading.evaluators.extraction import MAX_OUTPUT_CHARS, output_tail
from grading.types import Status, Verdict

# Long golds are not choice answers; looking at a prefix keeps this cheap on any input.
_GOLD_PREFIX_CHARS = 300
_YES_NO_WORD = r"(?:yes|no|true|false)"
_SAME_MEANING = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
# A dataset in another language stores its yes/no golds in that language ("Faux", "Nein").
_GOLD_MEANING = _SAME_MEANING | {
    **dict.fromkeys(
        "oui vrai ja wahr sí verdadero sim verdadeiro да верно 是 对 はい".split(), "yes"
    ),
    **dict.fromkeys("non faux nein falsch falso não нет неверно 否 不是 错 いいえ".split(), "no"),
}

_GOLD_YES_NO = re.compile(
    r"^[^\w\u3040-\u30ff\u4e00-\u9fff]*("
    + "|".join(sorted(_GOLD_MEANING, key=len, reverse=True))
    + r")[^\w\u3040-\u30ff\u4e00-\u9fff]*$",
    re.IGNORECASE,
)
_GOLD_LETTER = re.compile(
    r"^\s*(?:\\text\{)?\s*\(?([A-E])\)?\s*\}?\s*(?:$|[.:)]|\s+[A-Za-z])"
    r"|(?i:answer\s+is)\W*\(?([A-E])\)?(?![A-Za-z])"
)

# "the answer is yes or no depending on …" offers both: no marked answer
_NOT_OFFERED_BOTH = rf"(?!\s*(?:or|/)\s*{_YES_NO_WORD}\b)"
_YES_NO_MARKER = re.compile(
    rf"\\boxed\{{\s*(?:\\text(?:bf)?\{{)?\s*({_YES_NO_WORD})\b"
    rf"|(?:answer|réponse|respuesta|antwort)\W{{0,3}}(?:is\W+|est\W+|es\W+|ist\W+)?\**({_YES_NO_WORD})\b"
    + _NOT_OFFERED_BOTH,
    re.IGNORECASE,
)
_YES_NO_WORDS = re.compile(rf"\b({_YES_NO_WORD})\b", re.IGNORECASE)
# "no" before a word: "There is no largest prime", "has no prime factors", "no es múltiplo"
# (the first word of four letters or more says what it denies); a pronoun after it ("No it
# isn't") leaves it the answer.
_NO_BEFORE_A_WORD = re.compile(
    r"[ \t]+(?!(?i:it|this|that|these|those|there|they|he|she|we|you|i)\b)"
    r"(?:[a-zß-ÿ]{1,3}[ \t]+)?([a-zß-ÿ]{4,}|[a-zß-ÿ]{1,3}\b)"
)
_YES_NO_HEDGE = re.compile(
    rf"\b{_YES_NO_WORD}\s*(?:or|/)\s*{_YES_NO_WORD}\b|\bit depends\b", re.IGNORECASE
)

_LETTER_MARKER = re.compile(
    r"\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*\(?([A-E])\)?"
    r"|(?i:answer|réponse|respuesta|antwort)\W{0,3}(?:[^\W\d_]+\W+){0,3}?\**\(?([A-E])\)?(?![A-Za-z'’])"
    r"|答案\s*(?:是|为|:|：)?\s*\(?([A-E])"
)
# "D. because", "(B) Alina", "B。", "B不是": a letter the output opens with, not the article "A".
_LEADING_LETTER = re.compile(
    r"^\W*?\**\(?([A-E])\)?\**(?:[.:)\]。，,]|\s*$|(?=[^\x00-\x7f])|\s+(?![a-z]))"
)
_LETTER_HEDGE = re.compile(r"(?<![A-Za-z])[A-E]\s+or\s+[A-E](?![A-Za-z])|\bit depends\b", re.I)
_STANDALONE_LETTER = re.compile(r"(?<![A-Za-z'’])\(?([A-E])\)?(?![A-Za-z'’])(?!\s+[a-z])")


# Read once per gold: a run grades several outputs against each.
@lru_cache(maxsize=1024)
def gold_choice(gold: str) -> tuple[str, str] | None:
    """("yes_no", "yes"|"no") or ("letter", "A".."E") when the gold is a choice answer."""
    text = gold[:_GOLD_PREFIX_CHARS].strip()
    text = re.sub(r"^\$+|\$+$|^\\boxed\{(.*)\}$", r"\1", text).strip()
    yes_no = _GOLD_YES_NO.match(re.sub(r"\\text(?:bf)?\{([^{}]*)\}", r"\1", text))
    if yes_no:
        return "yes_no", _GOLD_MEANING[yes_no.group(1).lower()]
    letter = _GOLD_LETTER.search(text)
    if letter:
        return "letter", letter.group(1) or letter.group(2)
    return None


def committed_answer(kind: str, output: str, problem: str | None = None) -> tuple[str | None, str]:
    """The answer ``output`` commits to for a question of ``kind``, and why not when None.

    Given the ``problem``, a "no" before a word answers only when the word is the question's
    ("There is no largest prime" for "Is there a largest prime?"); the "no" of "7/40 has no
    prime factors other than 2 and 5" for "Is 7/40 a terminating decimal?" is passed over."""
    if kind == "yes_no":
        marked = _last(_YES_NO_MARKER, output)
        if marked:
            return _SAME_MEANING[marked.lower()], ""
        if _YES_NO_HEDGE.search(output):
            return None, "the output does not commit to one answer"
        first = next(
            (m for m in _YES_NO_WORDS.finditer(output) if _answers(output, m, problem)), None
        )
        if first:
            return _SAME_MEANING[first.group(1).lower()], ""
        return None, "no yes/no answer found"
    marked = _last(_LETTER_MARKER, output)
    if marked:
        return marked, ""
    leading = _LEADING_LETTER.match(output)
    if leading:
        return leading.group(1), ""
    if _LETTER_HEDGE.search(output):
        return None, "the output does not commit to one option"
    last = _last(_STANDALONE_LETTER, output)
    if last:
        return last, ""
    return None, "no option letter found"


def _answers(output: str, word: re.Match, problem: str | None) -> bool:
    if problem is None or word.group(1).lower() != "no":
        return True
    denied = _NO_BEFORE_A_WORD.match(output, word.end())
    return (
        denied is None or re.search(rf"\b{denied.group(1)}\b", problem, re.IGNORECASE) is not None
    )


def _last(pattern: re.Pattern, text: str) -> str | None:
    found = None
    for match in pattern.finditer(text):
        found = next((g for g in match.groups() if g), found)
    return found


class ChoiceMatch(TimedEvaluator):
    """The committed yes/no/true/false or option letter against the gold's."""

    name = "choice"
    version = "1"

    def __init__(self, *, max_output_chars: int = MAX_OUTPUT_CHARS) -> None:
        self.max_output_chars = max_output_chars

    def _evaluate(self, gold: str, output: str) -> dict:
        choice = gold_choice(gold)
        if choice is None:
            return {"status": Status.NO_ANSWER, "detail": "not a choice question"}
        kind, expected = choice
        text, _ = output_tail(output, self.max_output_chars)
        answer, why_not = committed_answer(kind, text)
        if answer is None:
            return {"status": Status.NO_ANSWER, "gold_latex": expected, "detail": why_not}
        verdict = Verdict.CORRECT if answer == expected else Verdict.INCORRECT
        return {
            "status": Status.OK,
            "verdict": verdict,
            "extracted": answer,
            "extracted_latex": answer,
            "gold_latex": expected,
        }
