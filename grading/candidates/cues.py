"""The cues an answer is stated with, their weights, and the patterns that find them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# The final answer lives at the end; a first-line answer at the start.
TAIL_CHARS = 3000


HEAD_CHARS = 300


# A box holding more than this is not a final answer; stops brace matching early.
MAX_BOX_CHARS = 400


# How far after an answer marker the stated answer may run.
MAX_STATEMENT_CHARS = 160


# Bold text counts as an answer only near the end.
CLOSING_CHARS = 300


# A first line longer than this is prose, not an answer given up front.
MAX_FIRST_LINE_CHARS = 48


# Cues, strongest first. Weight 3 commits; weight 2 is an answer put plainly; weight 1 is what
# the last sentence happens to say.
FINAL_MARKER = "final_marker"


ANSWER_MARKER = "answer_marker"


BOXED = "boxed"


BOLD = "bold"


FIRST_LINE = "first_line"


CONCLUSION = "conclusion"


STATEMENT = "statement"


LAST_SENTENCE = "last_sentence"


# Cues of sentences that state something without committing to it as the answer.
PLAIN_CUES = frozenset({STATEMENT, LAST_SENTENCE})


WEIGHTS = {
    FINAL_MARKER: 3,
    ANSWER_MARKER: 3,
    BOXED: 3,
    BOLD: 2,
    FIRST_LINE: 2,
    CONCLUSION: 2,
    STATEMENT: 2,
    LAST_SENTENCE: 1,
}


BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
# Conjunctions between listed answers, in the languages outputs are written in: "$x = 3$ et
# $y = -1$", "$y = -1$ y $x = 6$", "$x < 2$ o $x > 6$", "$x = 2$ и $y = 5$". Patterns, not
# compiled: each use puts them in its own context.
OR_WORDS = "or|ou|o|oder|или"
AND_OR_WORDS = f"and|et|y|e|und|и|{OR_WORDS}"
# A value set in bold inside a sentence: "So 12 pencils cost **$420**".
BOLD_VALUE = re.compile(r"\*\*([^*\n]{0,40}\d[^*\n]{0,40})\*\*")


# "#### 42" closes a GSM8K answer; "#### Practice ideas" is a Markdown heading.
FINAL_MARKER_PATTERN = re.compile(
    r"(?:\bfinal[\s_]+answer\"?|réponse\s+finale|respuesta\s+final|resposta\s+final|最终答案"
    r"|^[ \t]*#{4}(?![ \t]*[A-Za-z]{2}))[\s*:：]*(?:is\b|est\b|es\b|é\b)?[\s*:：]*",
    re.IGNORECASE | re.MULTILINE,
)


ANSWER_MARKER_PATTERN = re.compile(
    r"(?:\b(?:the\s+)?answer\"?\s*(?:is\b|:|=)|\bcorrect\s+(?:answer|option|choice)\s+is\b"
    r"|\b(?:answer|option|choice)\s+is\b|\bla\s+réponse\s+est\b|\bréponse\s*:|\bla\s+respuesta\s+es\b"
    r"|\brespuesta\s*:|\ba\s+resposta\s+é\b|\bresposta\s*:|\bdie\s+antwort\s+ist\b|\bantwort\s*:"
    r"|\bответ\s*:|答案\s*(?:是|为|:|：)|答え\s*(?:は|:|：)|^[ \t*]*答\s*[:：]"
    r"|^[ \t*]*(?:정?답|ตอบ|উত্তর|jibu)\s*[:：]?(?=\s*\S)"
    r"|\b(?:ergebnis|resultado|résultat|risposta|antwoord|odpowiedź)\s*\**\s*[:：]"
    r"|\b(?:đáp\s+(?:án|số)|cevap|yanıt|jawaban|svar)\s*\**\s*[:：]|(?:उत्तर|الإجابة|الجواب)\s*[:：])"
    r"[\s*:：]*",
    re.IGNORECASE | re.MULTILINE,
)
# Substrings (lower-cased) that every match of the marker patterns contains.
FINAL_MARKER_HINTS = ("final", "####", "finale", "最终")
ANSWER_MARKER_HINTS = (
    "answer",
    "option",
    "choice",
    "réponse",
    "respuesta",
    "resposta",
    "antwort",
    "ответ",
    "答",
    "ergebnis",
    "resultado",
    "résultat",
    "risposta",
    "antwoord",
    "odpowied",
    "답",
    "ตอบ",
    "উত্তর",
    "jibu",
    "đáp",
    "cevap",
    "yanıt",
    "jawaban",
    "svar",
    "उत्तर",
    "الإجابة",
    "الجواب",
)


# Words that make a stated answer a guess: "probably yes", "12, or possibly 18", "I think it
# is 5". Read only in the statement of the answer, where they qualify it, not in the working.
HEDGE_WORDS = re.compile(
    r"\b(?:probably|possibly|perhaps|maybe|presumably|most likely|likely|my best guess"
    r"|i (?:think|believe|guess|suspect)|if i'?m not mistaken|depending on|it depends"
    r"|(?:might|could) be(?=\s+[-−$\\\d(])"  # "x might be 20", not "one might be tempted"
    # "B, though D could also work": a second option left open
    r"|(?:could|might|may)\s+also\s+(?:work|fit|be\s+(?:correct|right|valid|acceptable))"
    r"|not (?:completely |entirely |totally |fully |quite |100% )?(?:sure|certain|confident)"
    r"|probablement|probablemente|probabilmente|provavelmente|wahrscheinlich|vielleicht"
    r"|peut-être|quizás|tal vez|talvez|вероятно|наверное)\b",
    re.IGNORECASE,
)
# Lower-case words one of which every match of HEDGE_WORDS contains.
_HEDGE_HINTS = (
    "probabl", "possibl", "perhaps", "maybe", "presumabl", "likely", "guess", "think", "believe",
    "suspect", "mistaken", "depend", "sure", "certain", "confident", "might", "could", "may also",
    "provavel", "wahrscheinlich", "vielleicht", "peut-être", "quizás", "tal vez", "talvez",
    "вероятно", "наверное",
)  # fmt: skip


def may_contain(text: str, hints: tuple[str, ...]) -> bool:
    """Whether ``text`` may hold one of ``hints`` (lower case) in any case: the cheap test
    before a case-insensitive pattern each match of which contains a hint, which the regular
    expression engine would try at every position. Letters that such a pattern takes for
    ASCII ones though ``lower()`` does not make them so (ſ, ı, İ) always pass."""
    lowered = text.lower()
    return (
        any(hint in lowered for hint in hints)
        or len(lowered) != len(text)
        or "ſ" in lowered
        or "ı" in lowered
    )


def hedge_words(text: str) -> bool:
    """``text`` qualifies what it says as a guess ("probably", "I think", "not sure")."""
    return may_contain(text, _HEDGE_HINTS) and HEDGE_WORDS.search(text) is not None


# A sentence ends at ., ! or ? before a space, or at a line break; a decimal point never does,
# nor the stops of "i.e." and "e.g.", nor a German ordinal's ("am 1. Januar"). Written to open
# on one character class, which the regular expression engine scans for directly, instead of
# trying an alternation at every position.
SENTENCE_END = re.compile(
    r"[\n.!?。！？](?:(?<=\n)|(?<!i\.e\.)(?<!e\.g\.)(?=\s|$)(?!\s+(?:Januar|Februar|März|April|Mai"
    r"|Juni|Juli|August|September|Oktober|November|Dezember)\b))"
)


@dataclass(frozen=True)
class Candidate:
    """One place the output states an answer."""

    text: str  # the stated answer, raw (delimiters and words still there)
    start: int  # offset in the output
    cue: str
    in_think: bool = False  # inside a <think> block: reasoning, not the reply

    @property
    def weight(self) -> int:
        return WEIGHTS[self.cue]


def boxes(text: str) -> Iterator[tuple[int, str]]:
    """(start, content) of each closed top-level box, in order."""
    position = 0
    while (match := BOX.search(text, position)) is not None:
        depth, index = 1, match.end()
        limit = min(len(text), index + MAX_BOX_CHARS)
        while index < limit and depth:
            depth += (text[index] == "{") - (text[index] == "}")
            index += 1
        content = text[match.end() : index - 1].strip()
        if not depth and content:
            yield match.start(), content
        position = index
