"""Doubt detectors: signs in the output text that an automatic verdict should not stand alone.

Detectors read the output's candidate answers (``grading.candidates``) and its tail, never
the whole text, and every regular expression here is linear-time, so a 400 kB output or
thousands of nested braces cost no more than a normal one. They return reason codes from
grading.reasons. What the stated answer itself says (hedges, yes/no, letters, equivalence)
is ``answer_check``'s; detectors look at the output around it: truncation, listed options,
two different final answers, numbers that only nearly match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from fractions import Fraction

from grading.answer_type import is_multi_part
from grading.answers import beyond_rounding, is_sentence, read_answer
from grading.candidates import (
    ANSWER_MARKER,
    BOLD,
    BOXED,
    FINAL_MARKER,
    PLAIN_CUES,
    TAIL_CHARS,
    Candidate,
    Candidates,
    find_candidates,
    sentence_of,
    what_is_asked,
)
from grading.equivalence import real_sets
from grading.equivalence.check import compare_values, numeric_value
from grading.equivalence.rewrite import LATEX_SPACE, number_words
from grading.types import SINGLE_VALUE_TYPES, AnswerType, Sample

# A box holding more than this is not a final answer; stops brace matching early.
MAX_BOX_CHARS = 400


_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
# A program's printed output the reply ends on: a fenced block after code, or labelled output.
_PRINTED_WINDOW = 2000
_PRINTED_AT_END = re.compile(
    r"(?:```(?:output|text|console)?|\bOutput:?\s*\n```)[ \t]*\n((?:[^`\n]*\n){2,40}?)```\s*$"
)
_NUMBER_LINE = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*")
_CUT_NUMBER_CHARS = 24
_CUT_THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})*,\d{1,2}\s*$")
_THOUSANDS_WRITTEN = re.compile(r"\d,\d{3}(?![\d,])")
# A sentence that gives the answer again, in other words or another notation.
_RESTATES = re.compile(
    r"\W*(?:that is,|i\.e\.|equivalently|in (?:interval|set-builder|set) notation\b"
    r"|in summary\b|to summari[sz]e\b|in conclusion\b|to sum up\b)",
    re.IGNORECASE,
)
_OPENS_CHECK = re.compile(
    r"\W*(?:let(?:'s| me| us)\s+(?:double[- ]?)?(?:check|verify|confirm)|to (?:double[- ]?)?"
    r"(?:check|verify|confirm)|(?:double[- ]?)?check(?:ing)?\b|verif(?:y|ication)|alternatively)",
    re.IGNORECASE,
)
_GOLD_WINDOW = 600  # the end of a cut-off text, where a gold it reached would be written
_DOLLAR = re.compile(r"(?<!\\)\$")
_MATH_REST = re.compile(r"\\[A-Za-z]|[\^_{]|^[^A-Za-z]*=[^A-Za-z]*$")  # LaTeX, or a bare relation
_CLOSED = re.compile(r"\\[)\]]")
_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?")
_FRAC = re.compile(r"\\frac\{(-?\d{1,40})\}\{(\d{1,40})\}")
_NUMBER_WITH_UNIT = re.compile(r"^(-?\d+(?:\.\d+)?)[a-zA-Z]{2,}$")  # "18marbles"
_DECIMAL_COMMA = re.compile(r"^(-?\d+),(\d{1,2})$")  # "2,5" in French is 2.5
_PLAIN_NUMBER = re.compile(r"(-?\d{1,40}(?:\.\d{1,40})?)(?:/(\d{1,40}))?")
_THOUSANDS = re.compile(r"^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
_DECORATION = re.compile(
    r"\\(?:left|right|displaystyle|[,;!: ])|\\(?:phantom|[hv]space)\s*\{[^{}]*\}|\\text\s*\{\s*\}|\$|\\\(|\\\)|\\\[|\\\]|\{,\}|\s+"
)
_UNIT_TEXT = re.compile(r"\\(?:text|mathrm|textbf)\s*\{[^{}]*\}")
_DEGREES = re.compile(r"\^\s*\{?\\circ\}?|°")
_TRAILING = re.compile(r"[.,;:!?。]+$")
_ASSIGNMENT = re.compile(r"^[a-zA-Z](?:_\w+)?\s*=\s*(?=\S)")
_OPTION_LINE = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?\(?([A-Ea-e])[).:][ \t]*\S", re.MULTILINE)
_INLINE_OPTION = re.compile(r"\(([A-E])\)\s*[^\s()]")
_FINAL_SUM = re.compile(
    r"(?:^|[^\w.^/])((?:[-−]?\s*\d+(?:\.\d+)?\s*[-+−]\s*)+\d+(?:\.\d+)?)\s*=\s*(-?\d+(?:\.\d+)?)\s*$"
)
_TERMS = re.compile(r"([-+−]?)\s*(\d+(?:\.\d+)?)")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)|\n")
_CLOSING_DELIMITER = re.compile(r"\s*(?:\$\$?|\\\)|\\\])$")
# "… so he makes 15 *": a star after a space multiplies (Markdown's "**bold**" has none).
# A "[" after a number or \infty closes an interval with outward brackets ("]3, +\infty[").
_ENDS_WITH_OPERATOR = re.compile(r"(?:[-+−=×/÷,({^\\]|(?<![\dy])\[|\\times|\\cdot|(?<=[\w)]\s)\*)$")
# Words a finished sentence does not end on: an output ending on one was cut off.
_DANGLING_WORDS = frozenset(
    "an the is are was were be of to and or but for with by from into in on at as than"
    " that which then so thus therefore hence because since plus minus times over equals"
    " gives get we our its this these each when if where while whose whether unless until"
    " although though whereas"
    # the same in the other languages outputs come in: "Per n = 20 otteniamo", "damit ist"
    " otteniamo abbiamo obtenemos tenemos obtenons obtient erhalten erhält ergibt obtemos"
    " temos sono es son ist sind est sont".split()
)
# Characters a finished line ends with; a long line ending otherwise was cut off.
_SENTENCE_CLOSERS = frozenset(".!?)]}$*\"'✓。！？")
_CUT_LINE_WORDS = 8
# "… = Rs. 5, so the correct": an adjective that waits for its noun ("answer", "option").
_DANGLING_ADJECTIVE = re.compile(r"\bthe\s+(?:correct|final|right)$", re.IGNORECASE)
# A table whose last row stops before its closing bar, where the row above has one: cut off.
_CUT_TABLE_ROW = re.compile(r"\|[ \t]*\n[ \t]*\|[^\n|]*(?:\|[^\n|]*)*[^\s|][ \t]*$")
_TABLE_ROWS_CHARS = 400
_WORDS = re.compile(r"[^\W\d_]+")
_LAST_WORD = re.compile(r"([A-Za-z]+)\W*$")
_SO_CLAUSE = re.compile(r",\s*(?:so|therefore|thus|hence)\b", re.IGNORECASE)
_HEAD_NOISE = re.compile(rf"\s|{LATEX_SPACE}|^(?:therefore|thus|so|hence)", re.IGNORECASE)
_MAX_HEAD_CHARS = 30
# A line this long written this often, among the last lines, is a loop.
_LOOP_LINES = 8
_LOOP_LINE_CHARS = 40
_LOOP_REPEATS = 3
# Above a final answer: a heading that announces it, and a line of mathematics that solves for
# one letter ("$$z = 2 + 2i.$$").
_ABOVE_CHARS = 300
_HEADING = re.compile(r"[\s*#>]*(?:final\s+)?answer\s*[*:]*\s*", re.IGNORECASE)
# "So the ratio of red to green apples is 3:2.": the verb after the name, and what follows
# it when that is one plain value (no words or variables, list, ±, approximation or chain of
# equalities, and not a line that introduces the next).
_CONCLUDING_VERB = re.compile(r"\b(?:is|are|equals)\b")
_NAME_TO_VERB_CHARS = 40
# Golds that may be a set of reals: "(1, 4)" reads as a point or an open interval.
_SET_OF_REALS_TYPES = (AnswerType.INTERVAL_OR_SET, AnswerType.EQUATION, AnswerType.TUPLE)
_SOLUTION_IS = re.compile(r"\bsolutions?(?:\s+set)?\s+(?:is|are)\s+(.+?)[\s.]*$", re.IGNORECASE)
_NOT_ONE_PLAIN_VALUE = re.compile(
    r"(?<![\\A-Za-z])[A-Za-z]|[,;±≈=]|:\s*$|\\(?:pm|approx|text)\b|^\s*$"
)
_SOLVED_LINE = re.compile(
    r"\s*(?:\$\$?|\\\[|\\\()\s*([A-Za-z])\s*=\s*([^=$]*?)[\s.,]*"
    r"(?:\$\$?|\\\]|\\\))[\s.]*"
)
# Emoji, their joiners and variation selectors, and other symbols.
_SYMBOL_CATEGORIES = frozenset({"So", "Sk", "Mn", "Cf"})
_GSM8K_ANSWER_LINE = re.compile(r"[ \t]*#{4}[ \t]*[-−$\d]")
_LAST_NUMBER = re.compile(r"(?<![\d.,])(\d+)$")
# One operation worked out: its first operand and its result ("120 - 18 = 102").
_OPERATION = re.compile(
    r"(?<![\w.^{=])(?<!=\s)(-?\d+(?:\.\d+)?)\s*(?:[-+×*−]|\\times|\\cdot)\s*\d+(?:\.\d+)?"
    r"\s*=\s*(-?\d+(?:\.\d+)?)(?![\d.])"
)
_CALLED_APPROXIMATE = re.compile(
    r"\b(?:about|approximately|roughly|around|nearly|almost|just\s+(?:under|over)"
    r"|a\s+(?:bit|little)\s+(?:under|over|more\s+than|less\s+than))\s+\S",
    re.IGNORECASE,
)
_CHECKS = re.compile(r"check|verif|✓|✔|indeed|confirm|consistent", re.IGNORECASE)
_WORKING_REACH = 300


def detect(
    sample: Sample,
    answer_type: AnswerType,
    candidates: Candidates | None = None,
) -> tuple[str, ...]:
    """The doubt codes (from grading.reasons) that the output's text raises."""
    if candidates is None:
        candidates = find_candidates(sample.output, sample.problem)
    tail = sample.output[-TAIL_CHARS:]
    findings = []
    cut_off = (
        is_truncated(sample.finish_reason, tail)
        or ends_in_false_arithmetic(tail, candidates)
        or stops_after_the_answer(sample.output, candidates)
        or sample.output.rfind("<think>") > sample.output.rfind("</think>")  # reply never began
        or stops_inside_the_gold(sample.gold, tail)
        or stops_inside_a_number(tail)
        or loops(sample.output, tail)
    )
    if cut_off:
        findings.append("truncated")
    if restates_another_problem(sample.output, sample.problem):
        findings.append("other_problem")
    if answer_type is AnswerType.OPTION_LIST:  # listing options is how it answers
        return tuple(findings)
    if lists_options(sample.output, candidates, sample.problem):
        findings.append("options_listed")
    if answer_type in (AnswerType.YES_NO, AnswerType.LETTER):
        return tuple(findings)
    single_valued = answer_type in SINGLE_VALUE_TYPES and not is_multi_part(sample.gold)
    asked_name = what_is_asked(sample.problem).name
    if (
        states_different_answers(sample.output, candidates, single_valued, asked_name)
        or (
            single_valued
            and (
                solved_otherwise_above(sample.output, candidates, sample.problem)
                or concluded_otherwise_above(sample.output, candidates, sample.problem)
                or boxes_an_operand(sample.output, candidates)
                or ends_on_printed_values(sample.output)
            )
        )
        or (
            answer_type in _SET_OF_REALS_TYPES
            and solution_set_otherwise_above(sample.output, candidates)
        )
    ):
        findings.append("multiple_answers")
    return tuple(findings)


# An output that opens by stating a problem: "Problem:\n…", "Question: …", "Q: …".
_OPENS_WITH_A_PROBLEM = re.compile(
    r"\s*(?:#{1,4}\s*(?:Problem|Question|Exercise)\b[^\n]*\n"
    r"|(?:\*\*)?(?:Problem|Question|Q|Exercise)\b\s*\d*\s*(?:\*\*)?\s*:(?:\*\*)?)\s*"
    r"(.{20,400}?)(?:\n\s*\n|\n\s*(?:#{1,4}\s*|\*\*)?(?:Solution|Answer|A)\s*:|$)",
    re.DOTALL,
)
_CONTENT_WORD = re.compile(r"[^\W\d_]{4,}|\d+")
_SHARED_WORDS_NEEDED = 0.3


def restates_another_problem(output: str, problem: str) -> bool:
    """True when the output opens by stating a problem that shares few of the asked problem's
    words: a few-shot exemplar copied, or another question answered ("Problem: If det A = 2
    and det B = 12 …" where the letters of MATH are to be arranged)."""
    opening = _OPENS_WITH_A_PROBLEM.match(output[:600])
    if opening is None:
        return False
    stated = {w.lower() for w in _CONTENT_WORD.findall(opening.group(1))}
    asked = {w.lower() for w in _CONTENT_WORD.findall(problem)}
    if len(stated) < 4 or len(asked) < 4:
        return False
    return len(stated & asked) < _SHARED_WORDS_NEEDED * len(stated)


def is_truncated(finish_reason: str, tail: str) -> bool:
    """True when generation stopped on its length limit or the text stops mid-sentence."""
    if finish_reason.strip().lower() == "length":
        return True
    text = _without_closing_symbols(tail)
    if not text:
        return False
    if _ENDS_WITH_OPERATOR.search(_CLOSING_DELIMITER.sub("", text[-12:])[-8:]):
        return True  # "… = 249 - 24 = $": the operator before the closing delimiter
    last_word = _LAST_WORD.search(text[-40:])
    if last_word and text[-1].isalpha() and last_word.group(1).lower() in _DANGLING_WORDS:
        return True
    table_rows = text[-_TABLE_ROWS_CHARS:]
    if _DANGLING_ADJECTIVE.search(text[-40:]) or (
        "|" in table_rows and _CUT_TABLE_ROW.search(table_rows)
    ):
        return True
    return _ends_inside_box(text[-MAX_BOX_CHARS:]) or _ends_inside_math(text)


def loops(output: str, tail: str) -> bool:
    """True when the longest of the last lines was written three times or more: a model stuck
    in a loop, which only its length limit stops, so where it ends is no answer."""
    lines = tail.splitlines()[-_LOOP_LINES:-1]  # the last line may be cut short
    longest = max((line.strip() for line in lines), key=len, default="")
    return len(longest) >= _LOOP_LINE_CHARS and output.count(longest) >= _LOOP_REPEATS


def _without_closing_symbols(text: str) -> str:
    """The text without the emoji and other symbols a chatty reply ends on ("… (11, -10). 🌀"),
    which close a sentence as a full stop does."""
    text = text.rstrip()
    while (
        text
        and text[-1] not in _SENTENCE_CLOSERS
        and unicodedata.category(text[-1]) in _SYMBOL_CATEGORIES
    ):
        text = text[:-1].rstrip()
    return text


def stops_inside_the_gold(gold: str, tail: str) -> bool:
    """True when the text stops, unpunctuated, on the first digits of a gold it wrote out
    before ("Boys: 3 × 4 = 12 … the number of boys is 1"): cut off while writing it."""
    text = tail[-_GOLD_WINDOW:].rstrip()
    digits = gold.strip().strip("$").replace(",", "")
    if not text[-1:].isdigit() or not digits.isdigit():
        return False
    last = _LAST_NUMBER.search(text, len(text) - len(digits) - 1)
    if last is None or len(last.group(1)) >= len(digits):
        return False
    written = text[: last.start()].replace(",", "")
    return (
        digits.startswith(last.group(1))
        and re.search(rf"(?<![\d.]){digits}(?![\d.]\d|\d)", written) is not None
    )


def ends_on_printed_values(output: str) -> bool:
    """True when the output ends on a program's printed output with two different numbers on
    lines of their own, and no sentence after it says which answers ("33", "41")."""
    end = output[-_PRINTED_WINDOW:]
    block = _PRINTED_AT_END.search(end) if "```" in end else None  # a fence, found fast
    if block is None:
        return False
    values = {line.strip() for line in block.group(1).splitlines() if _NUMBER_LINE.fullmatch(line)}
    return len(values) >= 2


def stops_inside_a_number(tail: str) -> bool:
    """True when the text stops on a group of thousands with fewer than three digits, where it
    writes thousands with commas ("$1,020 + $230 = $1,2"): cut off while writing a number."""
    end = tail.rstrip()[-_CUT_NUMBER_CHARS:]  # the pattern has no literal to find it by
    cut = _CUT_THOUSANDS.search(end)
    start = len(tail.rstrip()) - len(end) + cut.start() if cut is not None else 0
    return cut is not None and _THOUSANDS_WRITTEN.search(tail, 0, start) is not None


def _ends_inside_math(text: str) -> bool:
    """The text stops inside mathematics: an unclosed ``$`` whose rest is LaTeX or a relation
    ("Squaring: $210^2 = 44100"; "costs $5" is an amount)."""
    blank = text.rfind("\n\n")
    paragraph = text[blank + 2 :] if blank >= 0 else text
    if paragraph.rfind("\\(") > paragraph.rfind("\\)") or paragraph.rfind("\\[") > paragraph.rfind(
        "\\]"
    ):
        return True  # "\\(990 \\div 15 = 6": an inline or display span never closed
    if paragraph.count("$$") % 2:
        return True  # "$$V = \\frac{1}{3}\\pi (6)^2": a display never closed
    dollars = [m.start() for m in _DOLLAR.finditer(paragraph)]
    if len(dollars) % 2 == 0:
        return False
    rest = paragraph[dollars[-1] + 1 :]
    # On the same line, LaTeX that no \) or \] closes ("$15 each." followed by a line of
    # sums, or "$<<15*6=90>>90", are amounts); "$\boxed{28}" lacks only its closing dollar
    return (
        "\n" not in rest
        and _MATH_REST.search(rest) is not None
        and not _CLOSED.search(rest)
        and not _ends_on_a_box(rest)
    )


def _ends_on_a_box(text: str) -> bool:
    """The text ends on a whole ``\\boxed{…}``: the answer was written out."""
    text = text.rstrip(" .")
    return "\\boxed" in text and text.endswith("}") and text.count("{") == text.count("}")


_QUOTED_CONTEXT = 20  # characters of the question quoted before its options


def _normal_space(text: str) -> str:
    return " ".join(text.split())


def _restates(line: str, problem: str) -> bool:
    """A line that quotes the problem's options: its lettered part is in the problem's text."""
    first = _INLINE_OPTION.search(line)
    if first is None or first.start() < _QUOTED_CONTEXT:
        return False
    # The question's words before the options are quoted too, not just the options.
    return line[first.start() - _QUOTED_CONTEXT :].rstrip(" .") in problem


def stops_after_the_answer(output: str, candidates: Candidates) -> bool:
    """True when the output goes on past its answer and stops mid-sentence: a check or
    another attempt cut off ("Let me double-check: ... gives 4"), whose end is unknown."""
    text = _without_closing_symbols(output)
    final = candidates.final
    if final is None or not text or text[-1] in _SENTENCE_CLOSERS:
        return False
    last_line_start = text.rfind("\n") + 1
    last_line = text[last_line_start:]
    # The final statement is before the cut line, or inside a cut line that opens a check
    # ("Let me double-check another way: ... gives 4"), where its number may be cut too.
    past_answer = final.start < last_line_start or (
        final.weight < 3 and _OPENS_CHECK.match(last_line) is not None
    )
    return past_answer and len(_WORDS.findall(last_line)) >= _CUT_LINE_WORDS


def lists_options(output: str, candidates: Candidates, problem: str = "") -> bool:
    """True when the output ends with a list of lettered options and commits to none. Lines
    that restate the problem ("**Problem:** … (A) 6 (B) 36 (C) 72") list the question's
    options, not the output's."""
    final = candidates.final
    after = final.start + len(final.text) if final and final.weight >= 2 else 0
    rest = output[max(after, len(output) - TAIL_CHARS) :]
    if problem.strip():
        asked = _normal_space(problem)
        rest = "\n".join(
            line for line in rest.split("\n") if not _restates(_normal_space(line), asked)
        )
    labels = {m.group(1).upper() for m in _OPTION_LINE.finditer(rest)}
    inline = {m.group(1) for m in _INLINE_OPTION.finditer(rest)}
    return len(labels) >= 2 or len(inline) >= 3


def boxes_an_operand(output: str, candidates: Candidates) -> bool:
    """True when the box holds the number the last line of working started from, not the one
    it reached ("$120 - 18 = 102$ books remain." and then ``\\boxed{120}``); a check of the
    answer ("Check: 5 + 3 = 8 ✓") is no such line."""
    final = candidates.final
    value = final.text.strip() if final is not None and final.cue == BOXED else ""
    if not _PLAIN_NUMBER.fullmatch(value):
        return False
    line_start = output.rfind("\n", 0, final.start)
    window_start = max(0, line_start - _WORKING_REACH)
    reply_start = output.rfind("</think>", window_start, final.start) + 1
    before = output[max(window_start, reply_start) : max(line_start, 0)]
    working = [line for line in before.splitlines() if "=" in line]
    if not working or _CHECKS.search(working[-1]):
        return False
    steps = list(_OPERATION.finditer(working[-1]))
    if not steps or steps[-1].group(1) != value or steps[-1].group(2) == value:
        return False
    # "110 - 10 = 100, so 110 is the 100th": the line goes on to state the value itself
    return (
        re.search(rf"(?<![\d.]){re.escape(value)}(?![\d.])", working[-1][steps[-1].end() :]) is None
    )


def states_different_answers(
    output: str, candidates: Candidates, single_valued: bool, asked_name: str = ""
) -> bool:
    """True when the output plainly states two different final answers.

    A marked statement ("the answer is") outranks bare boxes before it, which are often
    intermediate results; for multi-part golds, values in one sentence are one answer. A
    sentence after the answer that names what the question asks for (``asked_name``, "The
    perimeter of the hexagon is 25 units.") says the answer again.
    """
    stated = list(candidates.weighty())
    marks = [i for i, c in enumerate(stated) if c.cue in (FINAL_MARKER, ANSWER_MARKER)]
    if marks:
        stated = [c for i, c in enumerate(stated) if c.cue != BOXED or i > marks[-1]]
    final = candidates.final
    if final is not None and final.cue != BOLD:
        # A bold number inside a sentence of the working ("That's **9** numbers"), before
        # the answer stated plainly, is emphasis; a bold line of its own is a headline answer
        stated = [
            c
            for c in stated
            if c.cue != BOLD or c.start >= final.start or _on_its_own_line(output, c)
        ]
    if final is not None and final.cue == BOXED:
        # "f(1) = \boxed{0}" before "f(f(1)) = \boxed{1}": a box of another quantity, on a
        # line of the working; on the final box's own line ("f^{-1}(4) = \boxed{2} and
        # f^{-1}(-100) = \boxed{-10}") the two are the answer together
        final_head = _box_head(output, final)
        final_line = output.rfind("\n", 0, final.start)
        stated = [
            c
            for c in stated
            if c.cue != BOXED
            or c is final
            or not final_head
            or _box_head(output, c) in ("", final_head)
            or output.rfind("\n", 0, c.start) == final_line
        ]
    committed = [c.start for c in stated if c.weight >= 3]
    if committed:
        # A plain sentence after a committed answer elaborates on it ("If he buys 2 more…"),
        # unless it says the answer again ("That is, the solution set is 2 ≤ x ≤ 5").
        # One that calls its value approximate rounds it for the reader ("So you'd have a bit
        # under $2,972").
        stated = [
            c
            for c in stated
            if c.start < committed[0]
            or c is final
            or (
                (
                    c.cue not in PLAIN_CUES
                    or _RESTATES.match(sentence_of(output, c))
                    or _mentions(sentence_of(output, c), asked_name)
                )
                and not (
                    _CALLED_APPROXIMATE.search(sentence_of(output, c)) and not _far_apart(c, final)
                )
            )
        ]
    if not single_valued:
        closing = candidates.closing_boxes()
        stated = [c for c in stated if c not in closing] + (
            [_merged(list(closing))] if closing else []
        )
        stated = list(_join_by_sentence(output, stated))
    keys = {
        _answer_key(c.text): c for c in stated if not is_sentence(read_answer(c.text).expression)
    }
    keys.pop("", None)
    if len(keys) > 1 and not _all_equal([read_answer(c.text).expression for c in keys.values()]):
        return True
    return (
        final is not None
        and final.cue == FINAL_MARKER
        and _hashes_contradict_line_before(output, final)
    )


def _far_apart(candidate: Candidate, final: Candidate | None) -> bool:
    """Two numbers further apart than a rounding takes one from the other: "roughly a 5 in 7
    chance" after $\\boxed{\\frac{2}{7}}$ is another answer, "about 0.29" is the same."""
    if final is None:
        return False
    read = [read_answer(c.text) for c in (candidate, final)]
    values = [numeric_value(r.expression) for r in read]
    if None in values or read[0].units != read[1].units:  # "about 54 cents" after $0.54
        return False
    return beyond_rounding(*values)


def _mentions(sentence: str, name: str) -> bool:
    return bool(name) and re.search(rf"\b{re.escape(name)}\b", sentence, re.IGNORECASE) is not None


def solved_otherwise_above(output: str, candidates: Candidates, problem: str) -> bool:
    """True when the final answer's heading ("**Final answer:**") follows a line that gives the
    unknown the question asks for another value ("$$z = 2 + 2i.$$" above ``\\boxed{2 - 2i}``)."""
    final = candidates.final
    variable = what_is_asked(problem).variable if problem else ""
    if final is None or final.cue not in (FINAL_MARKER, BOXED) or not variable:
        return False
    line = _line_above(output, final)
    solved = _SOLVED_LINE.fullmatch(line)
    if solved is None or solved.group(1) != variable:
        return False
    return not compare_values(solved.group(2), read_answer(final.text).expression).equal


def concluded_otherwise_above(output: str, candidates: Candidates, problem: str) -> bool:
    """True when the answer line follows a sentence that names what the question asks for and
    gives it another value ("So the ratio of red to green apples is 3:2." above "**Answer:**
    2:3"). Only a plain value counts: not a list, an approximation or more words."""
    final = candidates.final
    name = what_is_asked(problem).name if problem else ""
    if final is None or final.cue not in (FINAL_MARKER, ANSWER_MARKER, BOXED) or not name:
        return False
    answer = read_answer(final.text).expression
    line = _line_above(output, final)
    named = re.search(rf"\b{re.escape(name)}\b", line)
    verb = _CONCLUDING_VERB.search(line, named.end()) if named else None
    if verb is None or verb.start() - named.end() > _NAME_TO_VERB_CHARS:
        return False
    value = line[verb.end() :].strip().strip("$.* ").strip()
    if not value or _NOT_ONE_PLAIN_VALUE.search(value) or _NOT_ONE_PLAIN_VALUE.search(answer):
        return False
    return compare_values(answer, value).equal is False


def solution_set_otherwise_above(output: str, candidates: Candidates) -> bool:
    """True when the answer line follows a sentence that says the solution is another set of
    reals ("so the solution is $x < 2$ or $x > 3$." above ``\\boxed{(2, 3)}``)."""
    final = candidates.final
    if final is None or final.cue not in (FINAL_MARKER, ANSWER_MARKER, BOXED):
        return False
    said = _SOLUTION_IS.search(_line_above(output, final))
    return said is not None and real_sets.same_reals(said.group(1), final.text) is False


def _line_above(output: str, final: Candidate) -> str:
    """The last line with text above the final answer's line, headings ("**Answer:**") skipped."""
    lines = output[max(0, final.start - _ABOVE_CHARS) : final.start].split("\n")[:-1]
    lines = [line for line in lines if line.strip()]
    while lines and _HEADING.fullmatch(lines[-1]):
        lines.pop()
    return lines[-1] if lines else ""


def _on_its_own_line(output: str, candidate: Candidate) -> bool:
    line_start = output.rfind("\n", 0, candidate.start) + 1
    line_end = output.find("\n", candidate.start)
    line = output[line_start : line_end if line_end >= 0 else len(output)]
    return _value_key(line.strip(" *#>-:")) == _value_key(candidate.text)


def _box_head(output: str, box: Candidate) -> str:
    """What a box is the value of: the left side of the equation it holds ("x" in
    "\\boxed{x = 7}") or ends on its line ("f(f(1))" in "Therefore $f(f(1)) = \\boxed{1}$"), or
    "" when it ends none."""
    named, equals, _ = box.text.partition("=")
    if equals and len(_HEAD_NOISE.sub("", named)) <= _MAX_HEAD_CHARS:
        return _HEAD_NOISE.sub("", named)
    line = output[output.rfind("\n", 0, box.start) + 1 : box.start]
    # the math span the box closes ("$s = \frac{6}{\sqrt{2}} = \boxed{…}$"), not an earlier
    # one on its line ("then $s\sqrt{2} = 6$, so …")
    span = line.rsplit("$", 1)[-1].rsplit("\\(", 1)[-1].rsplit("\\[", 1)[-1]
    left, equals, _ = span.partition("=")
    head = _HEAD_NOISE.sub("", left)
    return head if equals and len(head) <= _MAX_HEAD_CHARS else ""


def ends_in_false_arithmetic(tail: str, candidates: Candidates) -> bool:
    """True when an output with no marked answer ends on an equation between numbers that
    is false ("285 + 100 = 3"): it was cut off mid-result, or its last result is wrong."""
    if candidates.final is not None and candidates.final.weight >= 3:
        return False
    last_line = tail.rstrip().rsplit("\n", 1)[-1]
    match = _FINAL_SUM.search(last_line)
    if match is None:
        return False
    try:
        left = sum(
            Fraction(number) * (-1 if sign in "-−" and sign else 1)
            for sign, number in _TERMS.findall(match.group(1))
        )
        right = Fraction(match.group(2))
    except (ValueError, ZeroDivisionError):
        return False
    return left != right


def _ends_inside_box(text: str) -> bool:
    last = _last_match(_BOX, text)
    if last is None:
        return False
    rest = text[last.end() :]
    return rest.count("{") >= rest.count("}")


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def _join_by_sentence(output: str, stated: list[Candidate]) -> Iterator[Candidate]:
    """Merge statements that sit in one sentence, such as "x = \\boxed{3} and \\boxed{-2}"."""
    group: list[Candidate] = []
    for candidate in stated:
        if group and _SENTENCE_END.search(output, group[-1].start, candidate.start) is None:
            group.append(candidate)
            continue
        if group:
            yield _merged(group)
        group = [candidate]
    if group:
        yield _merged(group)


def _merged(group: list[Candidate]) -> Candidate:
    keys = sorted({_value_key(c.text) for c in group})
    return Candidate(",".join(keys), group[0].start, max(group, key=lambda c: c.weight).cue)


def _hashes_contradict_line_before(output: str, final: Candidate) -> bool:
    """True when a GSM8K-style ``#### 42`` follows a line whose result is another number."""
    line_start = output.rfind("\n", 0, final.start) + 1
    if not _GSM8K_ANSWER_LINE.match(output, line_start):
        return False  # a Markdown heading ("### Final Answer") is no "#### 42"
    previous = output[max(0, line_start - 500) : line_start].rstrip().rsplit("\n", 1)[-1]
    if _OPENS_CHECK.match(previous):
        return False  # "Check: in 12 years she is 48, and 48 = 2 * 24." checks, not answers
    if not _NUMBER.search(previous):
        # "So the box holds forty-two chocolates." (not "one", which is as often no count)
        in_digits = number_words(previous)
        previous = in_digits if "1" not in _NUMBER.findall(in_digits) else previous
    # The line's result: what a closing "so …" clause states ("= 12.5, so she finishes on
    # the 13th day"), else the first number after its last equals sign, else its last number.
    result = previous.rpartition("=")[2]
    concluded = _SO_CLAUSE.search(result)
    numbers = _NUMBER.findall(result[concluded.end() :]) if concluded else []
    if numbers:
        return _value_key(numbers[-1]) != _value_key(final.text)
    numbers = _NUMBER.findall(result) or _NUMBER.findall(previous)
    return bool(numbers) and _value_key(numbers[0 if "=" in previous else -1]) != _value_key(
        final.text
    )


def _all_equal(expressions: list[str]) -> bool:
    """True when statements that read differently have one value ("x < 3", "(-\\infty, 3)")."""
    first, *rest = expressions
    return all(compare_values(first, other).equal for other in rest)


def _answer_key(text: str) -> str:
    """The comparison key of a stated answer; a chain ("2 + 8 = 10") states its last side."""
    expression = read_answer(text).expression
    if "=" in expression and not re.search(r"[<>,]", expression):
        expression = expression.rpartition("=")[2]
    return _value_key(expression)


def _value_key(text: str) -> str:
    """A comparison key: equal keys mean the same answer written differently."""
    text = _TRAILING.sub("", _DEGREES.sub("", _DECORATION.sub("", text)))
    if text.startswith("\\boxed{") and text.endswith("}"):
        text = text[7:-1]
    stripped_units = _UNIT_TEXT.sub("", text)  # "14\\text{ cm}" is the answer 14
    text = (
        _ASSIGNMENT.sub("", stripped_units or text).replace("−", "-").replace("\\dfrac", "\\frac")
    )
    text = text.replace("\\tfrac", "\\frac").replace("\\%", "").replace("%", "").lstrip("\\$")
    if _THOUSANDS.match(text):
        text = text.replace(",", "")
    text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    text = _NUMBER_WITH_UNIT.sub(r"\1", text)
    fraction = _FRAC.fullmatch(text) or _PLAIN_NUMBER.fullmatch(text)
    if fraction is None:
        return text
    try:
        return str(Fraction(fraction.group(1)) / Fraction(fraction.group(2) or 1))
    except ZeroDivisionError:
        return text
