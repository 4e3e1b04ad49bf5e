"""Candidate answers: every place an output states a final answer, found in one pass.

Evaluators, detectors and the jury read the same candidates, so they agree on what the output
says before they disagree on whether it is right. A candidate has a cue (how it was stated: a
box, "the answer is", a first line that is a bare answer, the last sentence) and a weight;
``final`` is the answer the output commits to. Only bounded windows of the output are read
(its head and its tail) and every pattern is linear-time, so any output costs about the same.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from dataclasses import dataclass

from grading.candidates.cues import (
    ANSWER_MARKER,
    ANSWER_MARKER_HINTS,
    ANSWER_MARKER_PATTERN,
    BOLD,
    BOX,
    BOXED,
    CLOSING_CHARS,
    CONCLUSION,
    FINAL_MARKER,
    FINAL_MARKER_HINTS,
    FINAL_MARKER_PATTERN,
    FIRST_LINE,
    LAST_SENTENCE,
    MAX_BOX_CHARS,
    MAX_STATEMENT_CHARS,
    PLAIN_CUES,
    SENTENCE_END,
    STATEMENT,
    TAIL_CHARS,
    WEIGHTS,
    Candidate,
    boxes,
    hedge_words,
    may_contain,
)
from grading.candidates.sentences import (
    MATH_SPAN,
    PROSE_WORD,
    first_line,
    last_sentence,
    statement_after,
    what_is_asked,
)
from grading.evaluators.extraction import last_match

__all__ = [
    "ANSWER_MARKER",
    "BOLD",
    "BOXED",
    "CONCLUSION",
    "FINAL_MARKER",
    "FIRST_LINE",
    "LAST_SENTENCE",
    "PLAIN_CUES",
    "STATEMENT",
    "TAIL_CHARS",
    "Candidate",
    "Candidates",
    "find_candidates",
    "hedge_words",
    "hedges",
    "last_self_correction",
    "may_contain",
    "sentence_of",
    "statement_after",
    "text_end",
    "what_is_asked",
]

_BOLD = re.compile(r"\*\*([^*\n]{1,80})\*\*")
_FENCE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
# A block of a program: "```python" up to its closing fence, or to the end of the output.
_CODE_BLOCK = re.compile(
    r"^[ \t]*```(?:python|py|python3|sympy|sage|julia|matlab|r|cpp|c|java|javascript|js)[ \t]*\n"
    r"(.*?)(?:^[ \t]*```[ \t]*$|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
# The answer tags of reasoning-model prompts and harnesses: "<answer>26</answer>",
# "<final_answer>...</final_answer>". What a tag holds is committed to, as a box is.
# "<result unit="weeks">16</result>" in an XML reply; a tag left open at the very end holds
# the answer too ("<answer>1/\sqrt{2}").
_TAG_NAMES = r"answer|final_answer|final-answer|final|result"
_ANSWER_TAG = re.compile(
    rf"<({_TAG_NAMES})(?:\s[^<>]*)?>(.{{0,{MAX_BOX_CHARS}}}?)(?:</\1\s*>|(?<=\S)\s*\Z)",
    re.DOTALL | re.IGNORECASE,
)
# The tags of a structured reply, which hold its working, not its answer.
_LAYOUT_TAG_NAMES = r"solution|response|output|steps?|reasoning|explanation|work"
_TAG_MARKUP = re.compile(rf"</?(?:{_TAG_NAMES}|{_LAYOUT_TAG_NAMES})(?:\s[^<>]*)?>", re.IGNORECASE)
_BRACKETS = re.compile(r"[\s{}\[\]().,;:\"'“”‘’]*")
# The option named before its verdict: "Option C is correct.", "(B) is the right answer.",
# "C is the correct choice."
_DECLARED = re.compile(r"\s+is\s+(?:the\s+)?(?:correct|right)\b(\s+(?:answer|option|choice)\b)?")
_DECLARED_OPTION = re.compile(r"(?:\b(?:[Oo]ption|[Cc]hoice|[Aa]nswer)\s+\(?|\()([A-E])\)?$")
_DECLARED_LETTER = re.compile(r"(?<![\w'’(])([A-E])$")
_DECLARED_REACH = 12
_DECLARED_HINTS = (" is correct", " is the correct", " is right", " is the right")
_MATH_PARENS = re.compile(r"\\[()]")  # the delimiters of \( x \), not parentheses
_LIST_ITEM = re.compile(r"\s*(?:[-*•]|\d+[.)])\s*")
_STEP = re.compile(r"(?:step|case|part)\b|\d+[.)]\s", re.IGNORECASE)
# What a bold phrase holds when it is the answer: a number, LaTeX, a choice, or a word answer
# ("**undefined**", "**no solution**").
_BOLD_ANSWER = re.compile(
    r"\d|\\|\b(?:yes|no|true|false|undefined|no (?:real )?solutions?|does not exist|DNE"
    r"|infinitely many)\b|^\(?[A-E]\)?$",
    re.IGNORECASE,
)
# Words that show the model went back on what it said before.
_SELF_CORRECTION = re.compile(
    r"\b(?:wait|actually|on second thought|let me re(?:check|consider|do|compute|calculate|think)"
    r"|i made an? (?:mistake|error)|correct(?:ing)? myself|correction)\b",
    re.IGNORECASE,
)
# Substrings every match of _SELF_CORRECTION contains (lower-cased).
# How far a marker reaches on either side of the substring it contains (ample: the longest,
# "the correct answer is:", is 22 characters).
_HINT_REACH = 100
_CORRECTION_HINTS = ("wait", "actually", "second thought", "let me re", "made a", "correct")


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


def find_candidates(output: str, problem: str = "") -> Candidates:
    """Every stated answer in ``output`` and the final one; the ``problem`` tells what the
    question asks for, where two closing sentences state different quantities."""
    code: list[tuple[int, int]] = []
    if "```" in output:  # a fence line ("```", "```json") is layout, never an answer
        # the program in a code block states nothing; what it printed may
        code = [m.span(1) for m in _CODE_BLOCK.finditer(output)]
        output = _FENCE.sub(_blank, output)
    offset = max(0, len(output) - TAIL_CHARS)
    items: list[Candidate] = []
    if "<" in output:
        # A tag's content is an answer; the tags themselves are layout, like a fence.
        for tag in _ANSWER_TAG.finditer(output, offset):
            content = tag.group(2).strip()
            if content and not BOX.match(content):  # a box inside is found as a box
                items.append(Candidate(content, tag.start(2), BOXED))
        output = _TAG_MARKUP.sub(_blank, output)
    tail = output[offset:]
    think_end = _reply_start(output)
    for start, content in boxes(tail):
        items.append(Candidate(content, offset + start, BOXED))
    items.extend(_marked(tail, offset))
    items.extend(_declared_options(tail, offset))
    closing = max(0, len(tail) - CLOSING_CHARS)
    for match in _BOLD.finditer(tail, closing):
        text = match.group(1).strip(" :")
        if (
            _BOLD_ANSWER.search(text)
            and not ANSWER_MARKER_PATTERN.search(text)
            and not FINAL_MARKER_PATTERN.search(text)
            and not _is_heading(match, tail)
            and len(PROSE_WORD.findall(MATH_SPAN.sub(" ", text))) <= 2
        ):
            items.append(Candidate(text, offset + match.start(), BOLD))
    first = first_line(output, think_end)
    if first is not None:
        items.append(first)
    items.extend(last_sentence(tail, offset, what_is_asked(problem)))
    ticked = _ticked_row(tail, offset) if "|" in tail else None
    if ticked is not None:  # the row a closing table ticks, not the table's last row
        items = [c for c in items if c.start < ticked[1]] + [ticked[0]]
    # "}" closing a JSON object, ")" closing a list: a line of brackets states nothing
    items = _dedup(
        sorted(
            (
                c
                for c in items
                if not _BRACKETS.fullmatch(c.text)
                and not _in_an_aside(c)
                and not _in_code(c, code, output)
            ),
            key=_position,
        )
    )
    items = [
        Candidate(c.text, c.start, c.cue, in_think=c.start < think_end) if think_end else c
        for c in items
    ]
    items = _without_sections_after_the_answer(items, tail, offset)
    standing = _standing(items, tail, offset, think_end)
    return Candidates(tuple(items), _final(standing), tuple(standing))


_TICK = re.compile(r"[✓✔☑✅]")
_CROSS = re.compile(r"[✗✘❌☒]")
_TABLE_ROW = re.compile(r"[ \t]*\|.*\|[ \t]*")


def _ticked_row(tail: str, offset: int) -> tuple[Candidate, int] | None:
    """The one row that a table the output ends on ticks ("| B | 7 | ✓ |" among rows crossed
    ✗), as a conclusion in its other cells ("B 7"), and where the table starts."""
    lines = tail.rstrip().split("\n")
    rows = []
    for line in reversed(lines):
        if not _TABLE_ROW.fullmatch(line):
            break
        rows.append(line)
    ticked = [row for row in rows if _TICK.search(row)]
    if len(ticked) != 1 or not any(_CROSS.search(row) for row in rows):
        return None  # a table of checks, every row ticked, chooses nothing
    table_start = offset + len(tail.rstrip()) - len("\n".join(reversed(rows)))
    cells = [cell.strip() for cell in ticked[0].strip().strip("|").split("|")]
    text = " ".join(cell for cell in cells if cell and not _TICK.search(cell))
    start = table_start + tail[table_start - offset :].find(ticked[0])
    return Candidate(text, start, CONCLUSION), table_start


def _in_code(candidate: Candidate, code: list[tuple[int, int]], output: str) -> bool:
    """Inside a program, unless it is the agent's call that submits the answer
    (``final_answer("0.6")``)."""
    return any(start <= candidate.start < end for start, end in code) and not output.startswith(
        "final_answer(", candidate.start
    )


def _blank(layout: re.Match) -> str:
    """Spaces in place of layout, so that positions in the output stay where they were."""
    return " " * len(layout.group(0))


def _in_an_aside(candidate: Candidate) -> bool:
    """A statement inside parentheses that close after it ("**undefined** (the graph has a
    vertical asymptote at x = 1.5)"): a remark on the answer, not the answer."""
    if candidate.cue != STATEMENT:
        return False
    text = _MATH_PARENS.sub("", candidate.text)
    return text.count(")") > text.count("(") + text.count("[")  # "[3, ∞)" is an interval


def _declared_options(tail: str, offset: int) -> Iterator[Candidate]:
    """Options the text declares correct; a bare letter only with "answer", "option" or
    "choice" after the verdict ("C is the correct choice", not "Statement C is correct")."""
    if not any(hint in tail for hint in _DECLARED_HINTS):
        return
    for verdict in _DECLARED.finditer(tail):
        before = tail[max(0, verdict.start() - _DECLARED_REACH) : verdict.start()]
        named = _DECLARED_OPTION.search(before) or (
            _DECLARED_LETTER.search(before) if verdict.group(1) else None
        )
        if named is not None:
            start = verdict.start() - len(before) + named.start(1)
            yield Candidate(named.group(1), offset + start, ANSWER_MARKER)


def hedges(output: str, candidate: Candidate) -> bool:
    """The sentence that states ``candidate`` qualifies it as a guess ("The answer is probably
    12", "12, or possibly 18", "I think it is yes")."""
    return hedge_words(sentence_of(output, candidate))


def text_end(output: str, candidate: Candidate) -> int | None:
    """Where ``candidate``'s text ends in ``output``: a candidate starts at its cue ("Answer:
    (B)"), not always at its text; None when the text is not there as written (a display
    block flattened)."""
    text = candidate.text
    text_at = output.find(text, candidate.start)
    while text_at >= 0 and _inside_a_word(output, text_at, text_at + len(text)):
        text_at = output.find(text, text_at + 1)  # the letter of "Answer: A", not of "Answer"
    return text_at + len(text) if text_at >= 0 else None


def _inside_a_word(output: str, start: int, end: int) -> bool:
    return (output[start].isalpha() and output[start - 1 : start].isalpha()) or (
        output[end - 1].isalpha() and output[end : end + 1].isalpha()
    )


def sentence_of(output: str, candidate: Candidate) -> str:
    """The sentence of ``output`` that states ``candidate``, its words around the answer."""
    before = output[max(0, candidate.start - MAX_STATEMENT_CHARS) : candidate.start]
    ends = list(SENTENCE_END.finditer(before))
    opening = before[ends[-1].end() :] if ends else before
    end = text_end(output, candidate)
    end = candidate.start + len(candidate.text) if end is None else end
    rest = output[end : end + MAX_STATEMENT_CHARS]
    closing = SENTENCE_END.search(rest)
    return opening + output[candidate.start : end] + rest[: closing.start() if closing else None]


_OPTION_LABEL = re.compile(r"\(?[A-E]\)?[.:)]?")
_LABELLED_TEXT = 8  # characters after an option label that make it the label of a discussion


def _is_heading(match: re.Match, text: str) -> bool:
    """A bold step title ("**Divide by -13:**", "**Step 2.**") or the label of a list item
    ("- **(A) 144** = 12²"), not an answer."""
    inner = match.group(1).strip()
    after = text[match.end() : match.end() + 1]
    line_start = text.rfind("\n", 0, match.start()) + 1
    opens_item = _LIST_ITEM.fullmatch(text[line_start : match.start()]) is not None
    # "**(C)** $f(x) = |x|$: even." opens the discussion of one option: a label, not a choice
    line_end = text.find("\n", match.end())
    rest_of_line = text[match.end() : line_end if line_end >= 0 else len(text)]
    labels_option = (
        _OPTION_LABEL.fullmatch(inner) is not None
        and not text[line_start : match.start()].strip()
        and len(rest_of_line.strip()) >= _LABELLED_TEXT
    )
    return (
        inner.endswith((":", "."))
        or after == ":"
        or bool(_STEP.match(inner))
        or opens_item
        or labels_option
    )


def _reply_start(output: str) -> int:
    """Where the reply starts after a <think> block (0 without one); an unclosed block covers
    everything, so nothing in it is a reply."""
    end = output.rfind("</think>")
    if end >= 0:
        return end + len("</think>")
    return len(output) if output.find("<think>") >= 0 else 0


_BOUND = re.compile(
    r"[\s*$]*(?:somewhere\s+)?(?:between|less\s+than|more\s+than|greater\s+than|smaller\s+than"
    r"|at\s+least|at\s+most|not)\b",
    re.IGNORECASE,
)


def _marked(tail: str, offset: int) -> Iterator[Candidate]:
    """Answers after markers ("the answer is", "Final answer:", "####"); a marker followed by
    another before its answer ends ("Final answer: the answer is 5") yields only the inner."""
    lowered = tail.lower()
    markers = [
        (m, FINAL_MARKER)
        for m in _near_hints(FINAL_MARKER_PATTERN, tail, lowered, FINAL_MARKER_HINTS)
    ]
    markers += [
        (m, ANSWER_MARKER)
        for m in _near_hints(ANSWER_MARKER_PATTERN, tail, lowered, ANSWER_MARKER_HINTS)
    ]
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
        if text and _BOUND.match(text):
            continue  # "so the answer is between 1 and 2": a bound on it, not the answer
        if text and following >= end:
            yield Candidate(text, offset + match.start(), cue)
        elif text and cue == FINAL_MARKER and following < end:
            continue


def _near_hints(
    pattern: re.Pattern, text: str, lowered: str, hints: tuple[str, ...]
) -> Iterator[re.Match]:
    """The matches ``pattern.finditer(text)`` finds, found by trying the pattern only near the
    substrings every match contains: a pattern tried at every position of a long reply costs
    more than all the rest of the candidate search."""
    if len(lowered) != len(text):  # lower() changed the length: positions do not line up
        yield from pattern.finditer(text)
        return
    position = 0
    # The next place of each hint, nearest first; a place behind ``position`` is looked up
    # again from there, so each hint's text is scanned once, not once per match.
    places = [(at, hint) for hint in hints if (at := lowered.find(hint)) >= 0]
    heapq.heapify(places)
    while places:
        hint_at, hint = places[0]
        if hint_at < position:
            later = lowered.find(hint, position)
            if later < 0:
                heapq.heappop(places)
            else:
                heapq.heapreplace(places, (later, hint))
            continue
        # A match ends at most _HINT_REACH characters after the hint it contains and starts at
        # most _HINT_REACH before it; the bounded search finds where, the unbounded match
        # reads the whole of it.
        start = max(position, hint_at - _HINT_REACH)
        window_end = hint_at + _HINT_REACH
        found = None
        while start <= hint_at:
            located = pattern.search(text, start, window_end)
            if located is None or located.start() > hint_at:
                break
            found = pattern.match(text, located.start())
            if found is not None:
                break
            start = located.start() + 1
        if found is None:
            position = hint_at + 1
            continue
        yield found
        position = max(found.end(), found.start() + 1)


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


# A Markdown heading that opens a section of commentary ("### Summary", "## ✅ Quick check"),
# not one that concludes ("### Conclusion", "## Final answer").
_SECTION_HEADING = re.compile(
    r"^[ \t]*#{1,6}[ \t]+[^\w\n]*(?:summary|recap|(?:quick |sanity |double[- ])?check"
    r"|verification|key (?:insight|takeaway|point)s?|notes?|tips?|takeaways?|breakdown|overview)\b",
    re.MULTILINE | re.IGNORECASE,
)


def _without_sections_after_the_answer(
    items: list[Candidate], tail: str, offset: int
) -> list[Candidate]:
    """Drop what a section after a marked or boxed answer states in passing: "### Final
    Answer … **$29**" then "### Summary" with a table whose rows end on other amounts. A
    marked or boxed statement there still counts, and so does a conclusion outside a table
    ("Therefore, the solution is (3, 2).") and anything after the output goes back on its
    answer ("Wait, …")."""
    strong = [c for c in items if c.weight >= WEIGHTS[BOXED]]
    if not strong:
        return items
    answer_end = strong[-1].start - offset + len(strong[-1].text)
    heading = _SECTION_HEADING.search(tail, max(0, answer_end))
    if heading is None or last_self_correction(tail) >= answer_end:
        return items
    section = offset + heading.start()
    return [
        c
        for c in items
        if c.start < section
        or c.weight >= WEIGHTS[BOXED]
        or _stands_in_a_section(c, _line_of(tail, c.start - offset))
    ]


def _stands_in_a_section(candidate: Candidate, line: str) -> bool:
    """A conclusion outside a table, or a row that calls itself the answer ("| **4 weeks
    (answer)** | **$2,250** |")."""
    return (candidate.cue == CONCLUSION and not line.startswith("|")) or (
        _CALLED_THE_ANSWER.search(line) is not None
    )


_CALLED_THE_ANSWER = re.compile(r"\banswer\b|\bfinal\b", re.IGNORECASE)


def _line_of(tail: str, at: int) -> str:
    """The line of ``tail`` that holds position ``at``, without its indentation."""
    end = tail.find("\n", at)
    return tail[tail.rfind("\n", 0, at) + 1 : end if end >= 0 else None].lstrip()


def _standing(items: list[Candidate], tail: str, offset: int, think_end: int) -> list[Candidate]:
    standing = [c for c in items if not c.in_think] or items
    corrected = last_self_correction(tail)
    if corrected >= 0:
        after = [c for c in standing if c.start >= offset + corrected]
        if after and not _adds_to_the_answer(tail[corrected:], standing, after):
            standing = after
    return standing


# A correction that finds one more solution rather than another one: "Wait — dividing by x
# needs x ≠ 0. Let me check x = 0: … so x = 0 also works."
_ALSO_A_SOLUTION = re.compile(
    r"\balso\s+(?:works|satisfies|checks\s+out|valid|(?:is\s+)?an?\s+(?:valid\s+)?"
    r"(?:solution|root|zero|answer))\b|\bis\s+also\s+an?\s+(?:solution|root|zero)\b",
    re.IGNORECASE,
)


def _adds_to_the_answer(correction: str, standing: list[Candidate], after: list[Candidate]) -> bool:
    """The correction says its value is one more solution, and what it states after it leaves
    out the answer stated before it: the two stand together."""
    if _ALSO_A_SOLUTION.search(correction) is None:
        return False
    later = " ".join(_core_text(c.text) for c in after)
    return all(_core_text(c.text) not in later for c in standing if c not in after)


def last_self_correction(text: str) -> int:
    """Where ``text`` last goes back on what it said ("Wait", "Actually", "I made a
    mistake"), or -1."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _CORRECTION_HINTS):
        return -1
    found = last_match(_SELF_CORRECTION, text)
    return found.start() if found else -1


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


def _position(candidate: Candidate) -> int:
    return candidate.start
