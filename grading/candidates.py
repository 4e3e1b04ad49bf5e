"""Candidate answers: every place an output states a final answer, found in one pass.

Evaluators, detectors and the jury read the same candidates, so they agree on what the output
says before they disagree on whether it is right. A candidate has a cue (how it was stated: a
box, "the answer is", a first line that is a bare answer, the last sentence) and a weight;
``final`` is the answer the output commits to. Only bounded windows of the output are read
(its head and its tail) and every pattern is linear-time, so any output costs about the same.
"""

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

_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_FINAL_MARKER = re.compile(
    r"(?:\bfinal\s+answer|réponse\s+finale|respuesta\s+final|resposta\s+final|最终答案"
    r"|^[ \t]*#{4})[\s*:：]*(?:is\b|est\b|es\b|é\b)?[\s*:：]*",
    re.IGNORECASE | re.MULTILINE,
)
_ANSWER_MARKER = re.compile(
    r"(?:\b(?:the\s+)?answer\s*(?:is\b|:|=)|\bcorrect\s+(?:answer|option|choice)\s+is\b"
    r"|\b(?:answer|option|choice)\s+is\b|\bla\s+réponse\s+est\b|\bréponse\s*:|\bla\s+respuesta\s+es\b"
    r"|\brespuesta\s*:|\ba\s+resposta\s+é\b|\bresposta\s*:|\bdie\s+antwort\s+ist\b|\bantwort\s*:"
    r"|\bответ\s*:|答案\s*(?:是|为|:|：)|答え\s*(?:は|:|：))[\s*:：]*",
    re.IGNORECASE,
)
_BOLD = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s*")
_STEP = re.compile(r"(?:step|case|part)\b|\d+[.)]\s", re.IGNORECASE)
_BOLD_ANSWER = re.compile(r"\d|\\|\b(?:yes|no|true|false)\b|^\(?[A-E]\)?$", re.IGNORECASE)
# Words that show the model went back on what it said before.
_SELF_CORRECTION = re.compile(
    r"\b(?:wait|actually|on second thought|let me re(?:check|consider|do|compute|calculate|think)"
    r"|i made an? (?:mistake|error)|correct(?:ing)? myself|correction)\b",
    re.IGNORECASE,
)
END_OF_TURN_TOKENS = (
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|end_of_turn|>",
    "<|end|>",
    "</s>",
    "<end_of_turn>",
)
# A sentence ends at ., ! or ? before a space, or at a line break; a decimal point never does.
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|\n")
_CONCLUSION_WORDS = re.compile(
    r"^\W*(?:so|thus|therefore|hence|consequently|overall|in total|in all|altogether|donc"
    r"|por lo tanto|portanto|also|所以|因此)\b[\s,:]*",
    re.IGNORECASE,
)
# A sentence that opens like this is an aside, not the conclusion.
_DIGRESSION = re.compile(
    r"^\s*\((?=[A-Z]?[a-z]+\s)|^\W*(?:by the way|incidentally|as an aside|fun fact|side note"
    r"|note that|p\.?s\.?"
    r"|btw|i hope|hope this|let me know|feel free|good luck|check(?:ing)?|verif(?:y|ication)"
    r"|to (?:check|verify)|double[- ]check(?:ing)?|sanity check)\b",
    re.IGNORECASE,
)
_MATH_SPAN = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]", re.DOTALL)
# A line that opens with a short label and a colon states what the label names.
_OPTION_LINE = re.compile(r"^\s*\(?[A-E]\)?\s*[.:)]\s*\S")
_LABEL = re.compile(r"^[\s*]*[A-Za-z][A-Za-z ]{1,30}\**:\**(?=\s*\S)(?![^:]*:)")
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
# What the last sentence says the answer is: the part after its last "is", "=" or ":".
_VERB = re.compile(
    r"\bis\b|\bare\b|\bequals?\b|\bgives?\b|\bget\b|\bbe\b|\best\b|\bes\b|\bé\b|\bist\b"
    r"|\bwas\b|\bhas\b|\bhave\b|\bmakes?\b|:|：|是|为",
    re.IGNORECASE,
)
_STATES_SOMETHING = re.compile(r"[^\W_]|\\|[\x00]")
# A conclusion inside a sentence: "The expression is positive, so x < 2 or x > 5".
_INNER_CONCLUSION = re.compile(r"[,;]\s*(?:so|thus|therefore|hence)\b[\s,:]*", re.IGNORECASE)
_FIRST_EQUALS = re.compile(r"[^=]*?=(?!=)")
# A first line that is an answer given up front: a number with a few words of unit, a choice
# letter, or a yes/no word.
_FIRST_LINE_ANSWER = re.compile(
    r"^[\s*#>]*"
    r"(?:\$?[-−]?\$?\d[\d,.]*(?:\s*/\s*\d+)?\$?(?:\s+[A-Za-z]+){0,3}"
    r"|\(?[A-E]\)?|yes|no|true|false|oui|non|sí|si|ja|nein)\W{0,3}$",
    re.IGNORECASE,
)
_LEADING_YES_NO = re.compile(r"^[\s*#>\"'(]*(yes|no|true|false)\b", re.IGNORECASE)
_DISPLAY_MATH = re.compile(r"(?:\\\[|\$\$)(.{0,300}?)(?:\\\]|\$\$)", re.DOTALL)
_INLINE_MATH = re.compile(r"(?:\$|\\\()(.{0,200}?)(?:(?<!\\)\$|\\\))", re.DOTALL)
_LEAD = re.compile(r"[\s$*:(\\\[]*")
_TRAILING_STOP = re.compile(r"[.!?。]+$")
_DISPLAY_BLOCK = re.compile(r"\\\[.{0,1000}?\\\]|\$\$.{0,1000}?\$\$", re.DOTALL)


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


@dataclass(frozen=True)
class Candidates:
    """All candidates of one output, in order, and the one it commits to."""

    items: tuple[Candidate, ...]
    final: Candidate | None
    # Candidates that count: outside <think> (when the reply states any) and after the last
    # self-correction (when anything is stated after it).
    standing: tuple[Candidate, ...]

    def weighty(self) -> tuple[Candidate, ...]:
        """Standing candidates stated plainly (weight 2 or more)."""
        return tuple(c for c in self.standing if c.weight >= 2)

    def closing_boxes(self) -> tuple[Candidate, ...]:
        """The boxes the output ends on, when it ends on several (``\\boxed{x = 3}`` …
        ``\\boxed{y = 2}``): for a gold of several parts, together they are the answer."""
        boxes = []
        for candidate in reversed(self.standing):
            if candidate.cue != BOXED:
                break
            boxes.append(candidate)
        return tuple(reversed(boxes)) if len(boxes) > 1 else ()


def find_candidates(output: str) -> Candidates:
    """Every stated answer in ``output`` and the final one."""
    output = _reply_only(output)
    offset = max(0, len(output) - TAIL_CHARS)
    tail = output[offset:]
    think_end = _reply_start(output)
    items: list[Candidate] = []
    for start, content in _boxes(tail):
        items.append(Candidate(content, offset + start, BOXED))
    items.extend(_marked(tail, offset))
    closing = max(0, len(tail) - CLOSING_CHARS)
    for match in _BOLD.finditer(tail, closing):
        text = match.group(1).strip(" :")
        if (
            _BOLD_ANSWER.search(text)
            and not _ANSWER_MARKER.search(text)
            and not _FINAL_MARKER.search(text)
            and not _is_heading(match, tail)
            and len(_PROSE_WORD.findall(_MATH_SPAN.sub(" ", text))) <= 2
        ):
            items.append(Candidate(text, offset + match.start(), BOLD))
    first = _first_line(output, think_end)
    if first is not None:
        items.append(first)
    last = _last_sentence(tail, offset)
    if last is not None:
        items.append(last)
    items = _dedup(sorted(items, key=lambda c: c.start))
    items = [
        Candidate(c.text, c.start, c.cue, in_think=c.start < think_end) if think_end else c
        for c in items
    ]
    standing = _standing(items, tail, offset, think_end)
    return Candidates(tuple(items), _final(standing), tuple(standing))


def _is_heading(match: re.Match, text: str) -> bool:
    """A bold step title ("**Divide by -13:**", "**Step 2.**") or the label of a list item
    ("- **(A) 144** = 12²"), not an answer."""
    inner = match.group(1).strip()
    after = text[match.end() : match.end() + 1]
    line_start = text.rfind("\n", 0, match.start()) + 1
    opens_item = _LIST_ITEM.fullmatch(text[line_start : match.start()]) is not None
    return inner.endswith((":", ".")) or after == ":" or bool(_STEP.match(inner)) or opens_item


def _reply_only(output: str) -> str:
    """The output up to the first end-of-turn token: what follows it ("<|im_start|>user …")
    is another turn the model made up, not its answer. Plain ``str.find`` scans, so a 200 MB
    output costs milliseconds."""
    found = [i for i in (output.find(token) for token in END_OF_TURN_TOKENS) if i > 0]
    end = min(found, default=-1)
    return output[:end] if end > 0 and not output[:end].isspace() else output


def _reply_start(output: str) -> int:
    """Where the reply starts after a <think> block (0 without one); an unclosed block covers
    everything, so nothing in it is a reply."""
    end = output.rfind("</think>")
    if end >= 0:
        return end + len("</think>")
    return len(output) if output.find("<think>") >= 0 else 0


def _boxes(text: str) -> Iterator[tuple[int, str]]:
    """(start, content) of each closed top-level box, in order."""
    position = 0
    while (match := _BOX.search(text, position)) is not None:
        depth, index = 1, match.end()
        limit = min(len(text), index + MAX_BOX_CHARS)
        while index < limit and depth:
            depth += (text[index] == "{") - (text[index] == "}")
            index += 1
        content = text[match.end() : index - 1].strip()
        if not depth and content:
            yield match.start(), content
        position = index


def _marked(tail: str, offset: int) -> Iterator[Candidate]:
    """Answers after markers ("the answer is", "Final answer:", "####"); a marker followed by
    another before its answer ends ("Final answer: the answer is 5") yields only the inner."""
    markers = [(m, FINAL_MARKER) for m in _FINAL_MARKER.finditer(tail)]
    markers += [(m, ANSWER_MARKER) for m in _ANSWER_MARKER.finditer(tail)]
    markers.sort(key=lambda pair: pair[0].start())
    kept: list[tuple[re.Match, str]] = []
    for match, cue in markers:
        if kept and kept[-1][0].end() > match.start():  # overlapping: keep the longer
            if match.end() - match.start() > kept[-1][0].end() - kept[-1][0].start():
                kept[-1] = (match, cue)
            continue
        kept.append((match, cue))
    for index, (match, cue) in enumerate(kept):
        text, end = statement_after(tail, match.end())
        following = kept[index + 1][0].start() if index + 1 < len(kept) else len(tail)
        if text and following >= end:
            yield Candidate(text, offset + match.start(), cue)
        elif text and cue == FINAL_MARKER and following < end:
            continue


def statement_after(text: str, start: int) -> tuple[str, int]:
    """The answer stated from ``start`` on: a box or math span right there, else the rest of
    the sentence; and where it ends."""
    window = text[start : start + MAX_STATEMENT_CHARS]
    lead = _LEAD.match(window).end()
    box = next(_boxes(window), None)
    if box is not None and box[0] <= lead:
        return box[1], start + box[0] + len(box[1]) + 1
    stripped = len(window) - len(window.lstrip())
    end = _SENTENCE_END.search(window, stripped)
    sentence = window[: end.start() if end else len(window)]
    boxes = list(_boxes(sentence))
    if len(boxes) == 1:  # "the largest integer $n$ satisfying $\boxed{n^2 < 50}$"
        return boxes[0][1], start + boxes[0][0] + len(boxes[0][1]) + 1
    for pattern in (_DISPLAY_MATH, _INLINE_MATH):
        span = pattern.match(window, stripped)
        # A span that runs over a sentence end is two currency signs, not mathematics.
        if span and span.group(1).strip() and not _SENTENCE_END.search(span.group(1)):
            rest = window[span.end() :]
            more = _SENTENCE_END.search(rest)
            tail_words = rest[: more.start() if more else len(rest)]
            # "$12$ dollars" keeps its unit words; "$x=3$, so ..." stops at the math.
            if tail_words.strip() and not re.match(r"\s*[,;]", tail_words):
                return (span.group(0) + tail_words).strip(), start + span.end() + len(tail_words)
            return span.group(0).strip(), start + span.end()
    end = _SENTENCE_END.search(window, stripped)
    stop = end.start() if end else len(window)
    statement = window[:stop].strip()
    # "the answer is expected to be an integer" states no answer.
    if statement[:1].islower() and len(statement.split()) > 4 and not re.search(r"\d", statement):
        statement = ""
    return statement, start + stop


def _first_line(output: str, reply_start: int) -> Candidate | None:
    """A reply whose first line is a bare answer ("5 buses.", "No.", "(B)")."""
    head = output[reply_start : reply_start + HEAD_CHARS]
    stripped = head.lstrip()
    line = stripped.split("\n", 1)[0]
    if len(line) > MAX_FIRST_LINE_CHARS or "\n" not in stripped:
        return None  # a one-line reply is covered by the last sentence
    if _ANSWER_MARKER.search(line) or _FINAL_MARKER.search(line):
        return None  # "Answer: B" is found as a marked answer
    start = reply_start + len(head) - len(stripped)
    if _FIRST_LINE_ANSWER.match(line):
        return Candidate(line.strip(), start, FIRST_LINE)
    yes_no = _LEADING_YES_NO.match(line)
    if yes_no:
        return Candidate(yes_no.group(1), start, FIRST_LINE)
    return None


def _last_sentence(tail: str, offset: int) -> Candidate | None:
    """What the last sentence says the answer is (a side remark after it does not count).

    The predicate is what follows the sentence's last verb or colon outside mathematics; a
    sentence that is all mathematics ("Total = 48 = 8 \\times 6") is itself the statement. A
    last line that is a bare answer ("YES", "(B)") is stated plainly, like a first line.
    """
    text = _TRAILING_STOP.sub("", _flatten_display(tail.rstrip()))
    ends = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    stop = len(text)
    for start in reversed(ends):
        sentence = _TRAILING_STOP.sub("", text[start:stop].rstrip())
        stop = start
        if not sentence.strip():
            continue
        if _DIGRESSION.match(sentence):
            continue  # "By the way, my favourite number is 50."
        if (
            _BOX.search(sentence)
            or _ANSWER_MARKER.search(sentence)
            or _FINAL_MARKER.search(sentence)
        ):
            return None  # a statement already found with a stronger cue
        own_line = start == 0 or text[start - 1] == "\n"
        return _predicate(sentence, offset + start, own_line)
    return None


def _predicate(sentence: str, begin: int, own_line: bool) -> Candidate | None:
    lead = _CONCLUSION_WORDS.match(sentence)
    conclusive = lead is not None
    body_start = lead.end() if lead else 0
    body = sentence[body_start:]
    if len(body.strip()) <= MAX_FIRST_LINE_CHARS and _FIRST_LINE_ANSWER.match(body.strip()):
        return Candidate(body.strip(), begin + body_start, CONCLUSION)
    if _OPTION_LINE.match(body):
        return None  # "D: 32", one line of a list of options, states no choice
    masked = _MATH_SPAN.sub(lambda m: "\x00" * len(m.group(0)), body)
    label = _LABEL.match(masked)
    if label is not None:  # "Solution set: [-3, \\infty)", "**Domain:** ...", "Remainder: 13"
        return Candidate(body[label.end() :].strip(), begin + body_start + label.end(), CONCLUSION)
    if len(_PROSE_WORD.findall(masked)) < 2:  # all mathematics: the statement itself
        # A line of mathematics the output ends on ("Total = 48 = 8 \\times 6") states it.
        cue = CONCLUSION if conclusive or own_line else LAST_SENTENCE
        return Candidate(body.strip(), begin + body_start, cue) if body.strip() else None
    inner = _last_match(_INNER_CONCLUSION, masked)
    if inner is not None:  # "…, so x < 2 or x > 5": the clause after "so" concludes
        return _predicate(body[inner.end() :], begin + body_start + inner.end(), own_line)
    # What follows the last verb that is followed by something ("the total is 42", not "as
    # 4 × 16 would also give"), else the first equals sign ("the total = 42").
    cut = next(
        (
            verb.end()
            for verb in reversed(list(_VERB.finditer(masked)))
            if _STATES_SOMETHING.search(masked[verb.end() :])
        ),
        None,
    )
    if cut is None and (equals := _FIRST_EQUALS.match(masked)) is not None:
        cut = equals.end()
    if cut is None:
        if not conclusive and len(body.strip()) > MAX_FIRST_LINE_CHARS:
            return None  # a sentence that states nothing in particular
        cut = 0
    predicate = body[cut:].strip()
    if not predicate:
        return None
    cue = CONCLUSION if conclusive else (STATEMENT if cut else LAST_SENTENCE)
    return Candidate(predicate, begin + body_start + cut, cue)


def _last_match(pattern: re.Pattern, text: str) -> re.Match | None:
    found = None
    for found in pattern.finditer(text):  # noqa: B007 - the loop keeps the last match
        pass
    return found


def _dedup(items: list[Candidate]) -> list[Candidate]:
    """One candidate per stated answer: a marker and the box it introduces are one statement,
    and the last sentence repeating a marked answer adds nothing."""
    kept: list[Candidate] = []
    for candidate in items:
        duplicate = next(
            (
                k
                for k in kept
                if _core_text(k.text) == _core_text(candidate.text)
                and (abs(k.start - candidate.start) < MAX_STATEMENT_CHARS)
            ),
            None,
        )
        if duplicate is None:
            kept.append(candidate)
        elif candidate.weight > duplicate.weight:
            kept[kept.index(duplicate)] = Candidate(
                candidate.text, duplicate.start, candidate.cue, duplicate.in_think
            )
    return kept


def _standing(items: list[Candidate], tail: str, offset: int, think_end: int) -> list[Candidate]:
    standing = [c for c in items if not c.in_think] or items
    corrections = [offset + m.start() for m in _SELF_CORRECTION.finditer(tail)]
    if corrections:
        after = [c for c in standing if c.start >= corrections[-1]]
        if after:
            standing = after
    return standing


def _final(standing: list[Candidate]) -> Candidate | None:
    """The answer the output commits to: the last of its strongest cue, except that a plain
    last sentence never outranks an answer given up front."""
    if not standing:
        return None
    best = max(c.weight for c in standing)
    strongest = [c for c in standing if c.weight == best]
    if best == 2:
        # A conclusion, else an answer given up front, else the last plain statement.
        for cue in (CONCLUSION, FIRST_LINE):
            ranked = [c for c in strongest if c.cue == cue]
            if ranked:
                return ranked[-1]
    return strongest[-1]


_CORE_STRIP = re.compile(r"[\s$*.,;:!?(){}#\\]|boxed|text|mathrm")


def _core_text(text: str) -> str:
    return _CORE_STRIP.sub("", text).lower()


def _flatten_display(text: str) -> str:
    """``text`` with line breaks inside display math blocks turned into spaces (same length),
    so a display block is part of the sentence that introduces it."""
    return _DISPLAY_BLOCK.sub(lambda m: m.group(0).replace("\n", " "), text)
