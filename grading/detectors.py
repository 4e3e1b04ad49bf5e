"""Doubt detectors: signs in the output text that an automatic verdict should not stand alone.

Each detector reads only the tail of the output (the final answer lives there), and every
regular expression here is linear-time, so a 400 kB output or thousands of nested braces
cost no more than a normal one. Detectors return reason codes from grading.reasons.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from grading.answer_type import is_multi_part
from grading.types import AnswerType, Evaluation, Sample, Verdict

# The final answer lives in the last part of an output; longer outputs are read from here.
TAIL_CHARS = 3000
# The opening of an output, where a yes/no answer often comes first.
HEAD_CHARS = 300
MAX_PROBLEM_CHARS = 20_000
# The evaluator whose extraction is checked against the answer the output states.
CHECKED_EXTRACTOR = "math_verify"
# A box holding more than this is not a final answer; stops brace matching early.
MAX_BOX_CHARS = 400
# How far after an answer marker the stated answer may run.
MAX_STATEMENT_CHARS = 120

SINGLE_VALUE_TYPES = frozenset(
    {AnswerType.INTEGER, AnswerType.DECIMAL, AnswerType.FRACTION, AnswerType.EXPRESSION}
)

_BOX = re.compile(r"\\(?:boxed|fbox)\s*\{")
_DISPLAY_MATH = re.compile(r"(?:\\\[|\$\$)([^$]{0,100}?)(?:\\\]|\$\$)")
_BOX_LEAD = re.compile(r"[\s$*:(\\\[]*")
# "the answer is", "Answer:", "final answer", and the same in a few other languages.
_MARKER = re.compile(
    r"(?:final\s+answer|\banswer\s*(?:is|:|=)|correct\s+(?:answer|option|choice)\s+is"
    r"|réponse\s*(?:est|:)|respuesta\s*(?:es|:)|resposta\s*(?:é|:)|antwort\s*(?:ist|:)"
    r"|答案\s*(?:是|为|:|：)?|^\s*####)"
    r"[\s:*：]*(?:is\s*)?[:*：]?",
    re.IGNORECASE | re.MULTILINE,
)
# Words that show the model went back on what it said before.
_SELF_CORRECTION = re.compile(
    r"\b(?:wait|actually|on second thought|let me re\w*|i made an? (?:mistake|error)"
    r"|correct myself|correction)\b",
    re.IGNORECASE,
)
# Substrings that every match of _MARKER / _SELF_CORRECTION contains (lower-cased).
_MARKER_HINTS = ("answer", "correct", "réponse", "respuesta", "resposta", "antwort", "答案", "####")
_CORRECTION_HINTS = (
    "wait",
    "actually",
    "second thought",
    "let me re",
    "mistake",
    "error",
    "correct",
)
_EXACT_FORM_REQUEST = re.compile(
    r"\bexact\b|\bin terms of\b|simplest (?:radical )?form|radical form|common fraction"
    r"|as a (?:reduced |simplified )?fraction",
    re.IGNORECASE,
)
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
_ALTERNATIVE = re.compile(r"\b(?:either|or|ou|oder|o|или)\b|或者|或|\\pm|±|\\mp|∓", re.IGNORECASE)
_EITHER = re.compile(r"\beither\b", re.IGNORECASE)
_TWO_VALUES = re.compile(
    r"(?<![\d.,])([-−]?\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?)[^\w\n]{0,12}"
    r"(?:\\text\s*\{\s*)?(?:and|or|ou|et|y|o|oder|und|или|и|或者|或|和)(?:\s*\})?"
    r"[^\w\n]{0,12}(?:[a-z]\s*=\s*)?([-−]?\d+(?:[.,]\d+)*(?:\s*/\s*\d+)?)",
    re.IGNORECASE,
)
_PLUS_MINUS = re.compile(r"\\pm|±|\\mp|∓")
_TWO_LETTERS = re.compile(
    r"(?<![\w\\])\(?([A-E])\)?\s*(?:,|&|/|\band\b|\bor\b|\bet\b|\bou\b|\by\b|和|或)\s*"
    r"\(?([A-E])\)?(?!\w)"
)
_OPTION_LINE = re.compile(r"^[ \t]*(?:[-*•][ \t]*)?\(?([A-Ea-e])[).:][ \t]*\S", re.MULTILINE)
_INLINE_OPTION = re.compile(r"\(([A-E])\)\s*[^\s()]")
_MIXED_NUMBER = re.compile(
    r"(?<![\d.,/^_])(\d+)(?:\s+(\d+)\s*/\s*(\d+)|\s*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\})"
)
_EQUATION_RESULT = re.compile(r"=\s*\$?\s*([-−]?\d+(?:[.,]\d+)*)(?![\w^(/]|\.\d)")
_YES_NO_HEDGE = re.compile(
    r"\b(?:yes or no|no or yes|true or false|false or true|it depends|depends on|neither)\b",
    re.IGNORECASE,
)
_YES_NO_WORD = re.compile(r"\b(yes|no|true|false)\b", re.IGNORECASE)
_COMMITTED_WORD = re.compile(
    r"\b(yes|true|false|no)\b(?:(?<=no)(?=\s*(?:[.!,;:—–-]|$))|(?<!no))", re.IGNORECASE
)
_LAST_VERB = re.compile(r".*(?:\bis\b|\bare\b|\bequals\b|:|：)", re.DOTALL)
_EXACT_FORM = re.compile(r"\\frac|\\sqrt|\\pi|/|√|π")
_DECIMAL = re.compile(r"-?\d*\.\d+")
_PI = re.compile(r"\\pi|π")
_DOTTED_THOUSANDS = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:\.\d{3})+(?![\d.])")
_SCALES = frozenset(Fraction(10) ** k for k in (-3, -2, -1, 1, 2, 3))
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}(?![A-Za-z])|\*\*|\\text\s*\{[^{}]*\}")
_UNICODE_MATH = str.maketrans(
    {
        "−": "-",
        "×": "\\times",
        "·": "\\cdot",
        "²": "^2",
        "³": "^3",
        "π": "\\pi",
        "√": "\\sqrt",
        "∞": "\\infty",
        "≥": "\\geq",
        "≤": "\\leq",
        "{": "",
        "}": "",
        "⟨": "(",
        "⟩": ")",
    }
)
_EQUALS_CHAIN = re.compile(r"=[^=]*=")
_EXACT_FRACTION = re.compile(r"\\frac|/")
_FRAC_VARIANT = re.compile(r"\\[dt]frac")
_LEADING_COUNT = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s+[A-Za-z]{2,}")
_LETTER = re.compile(r"[A-Za-z]")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_RADICAND = re.compile(r"\\sqrt(\d{1,6})(?!\d)")
_RADICAL_TERM = re.compile(r"\\sqrt\d{1,6}|\\sqrt[a-z]")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s)|\n")
_ENDS_WITH_OPERATOR = re.compile(r"(?:[-+−=×/÷,(\[{^\\]|\\times|\\cdot)$")
# Words a finished sentence does not end on: an output ending on one was cut off.
_DANGLING_WORDS = frozenset(
    "an the is are was were be of to and or but for with by from into in on at as than"
    " that which then so thus therefore hence because since plus minus times over equals"
    " gives get we our its this these each".split()
)
_LAST_WORD = re.compile(r"([A-Za-z]+)\W*$")


@dataclass(frozen=True)
class Statement:
    """A place where the output states a final answer."""

    start: int
    text: str
    marked: bool  # introduced by words such as "the answer is", not just a box


def detect(
    sample: Sample, answer_type: AnswerType, evaluations: tuple[Evaluation, ...]
) -> tuple[str, ...]:
    """The doubt codes (from grading.reasons) that the output's text raises."""
    tail = sample.output[-TAIL_CHARS:]
    statements = final_statements(tail)
    findings = []
    if is_truncated(sample.finish_reason, tail):
        findings.append("truncated")
    if lists_options(tail, statements):
        findings.append("options_listed")
    if answer_type is AnswerType.YES_NO:
        if hedges_yes_no(tail, statements):
            findings.append("hedged")
        if changes_yes_no(sample.output[:HEAD_CHARS], tail):
            findings.append("multiple_answers")
    elif answer_type is AnswerType.LETTER:
        if statements and _names_two_letters(statements[-1].text):
            findings.append("multiple_answers")
    else:
        single_valued = answer_type in SINGLE_VALUE_TYPES and not is_multi_part(sample.gold)
        if gives_different_answers(tail, statements, single_valued, sample.gold):
            findings.append("multiple_answers")
        if single_valued and hedges_between_values(tail, statements):
            findings.append("hedged")
        if not _MIXED_NUMBER.search(sample.gold) and has_mixed_number(tail, statements):
            findings.append("mixed_number")
        answer = final_answer(tail, statements)
        checked = next((e for e in evaluations if e.evaluator == CHECKED_EXTRACTOR), None)
        rejected = checked is not None and checked.verdict is Verdict.INCORRECT
        # A stated number other than the gold is wrong however an extractor read the output.
        stated, gold_number = _stated_number(answer), _number(sample.gold)
        settled = rejected and None not in (stated, gold_number) and stated != gold_number
        # An answer that is the gold verbatim is right however an extractor misread it.
        verbatim = _core(answer) == _core(sample.gold)
        if (
            checked is not None
            and checked.extracted
            and not settled
            and (
                (verbatim and rejected)
                or (
                    not verbatim
                    and misreads(checked.extracted, answer, _one_sentence(tail, statements))
                )
            )
        ):
            findings.append("extraction_mismatch")
        if answer_type is AnswerType.TEXT and rejected and stated is None:
            findings.append("text_answer")
        compared = compare_with_gold(sample.gold, answer)
        if "approximate_answer" in compared and demands_exact_form(sample.problem):
            # The question itself rules a decimal out: only credit for one is in doubt.
            credited = any(e.verdict is Verdict.CORRECT for e in evaluations)
            compared = tuple(c for c in compared if c != "approximate_answer" or credited)
        findings.extend(compared)
        if answer_type is AnswerType.EXPRESSION and less_simplified(sample.gold, answer):
            findings.append("form_differs")
    return tuple(findings)


def demands_exact_form(problem: str) -> bool:
    """True when the question asks for an exact form ("exact value", "in terms of pi")."""
    return _EXACT_FORM_REQUEST.search(problem[:MAX_PROBLEM_CHARS]) is not None


def final_answer(tail: str, statements: list[Statement]) -> str:
    """The answer the output ends on: its last stated answer, else its last clause."""
    if statements:
        return statements[-1].text
    text = _TRAILING.sub("", tail.rstrip())[-MAX_STATEMENT_CHARS * 2 :]
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    sentence = text[ends[-1] :] if ends else text
    verb = _LAST_VERB.search(sentence)
    return sentence[verb.end() :].strip() if verb else sentence.strip()


def misreads(extracted: str, answer: str, several_in_last_sentence: bool) -> bool:
    """True when an evaluator's extracted answer is not the answer the output states.

    Equal numbers in other spellings (``1,250`` and ``\\$1{,}250``) and the result of a
    purely numeric chain (``17 × 23 = 391``) count as the same answer.
    """
    if several_in_last_sentence or not answer:
        return False
    if _EQUALS_CHAIN.search(extracted):  # "a = b = c" is a working, not one answer
        return True
    stated, taken = _core(answer), _core(extracted)
    if not stated:  # an answer in words only ("seven hundred twenty") was not what was taken
        return bool(_WORD.search(answer)) and bool(taken)
    if stated == taken or _value_key(answer) == _value_key(extracted):
        return False
    left, equals, result = stated.rpartition("=")
    return not (equals and not _LETTER.search(_COMMAND.sub("", left)) and result == taken)


def less_simplified(gold: str, answer: str) -> bool:
    """True when the answer keeps a radical, like terms or factors that the gold resolved.

    Simplifying is often the task itself, so an equal value in a rawer form needs a human.
    """
    gold_core, answer_core = _core(gold), _core(answer)
    reducible = any(_has_square_factor(int(n)) for n in _RADICAND.findall(answer_core))
    if reducible and not any(_has_square_factor(int(n)) for n in _RADICAND.findall(gold_core)):
        return True
    terms = _RADICAL_TERM.findall(answer_core)
    if len(terms) != len(set(terms)) and len(_RADICAL_TERM.findall(gold_core)) < len(terms):
        return True
    if "\\frac" in answer_core and not _EXACT_FRACTION.search(gold_core):
        return True
    return answer_core.count("(") < gold_core.count("(") and gold_core.count(")(") > 0


def compare_with_gold(gold: str, answer: str) -> tuple[str, ...]:
    """Doubts visible by comparing the stated answer with the gold as plain numbers.

    No algebra here: only answers and golds that are numbers, fractions or percentages.
    """
    gold_value, answer_value = _number(gold), _number(_core(answer))
    exact_gold = _EXACT_FORM.search(gold) and not _DECIMAL.search(gold)
    if exact_gold and _DECIMAL.fullmatch(_core(answer)):
        return ("approximate_answer",)
    if (_PI.search(gold) and _DEGREES.search(answer)) or (
        _DEGREES.search(gold) and _PI.search(answer)
    ):
        return ("unit_mismatch",)
    findings = []
    if _DOTTED_THOUSANDS.search(answer):
        findings.append("number_format")
    if gold_value is None or answer_value is None or gold_value == answer_value:
        return tuple(findings)
    if gold_value and answer_value and abs(answer_value / gold_value) in _SCALES:
        findings.append("unit_mismatch")
    elif gold_value and "." in gold + answer and abs(answer_value / gold_value - 1) < 0.01:
        findings.append("near_miss")
    return tuple(findings)


def changes_yes_no(head: str, tail: str) -> bool:
    """True when a yes/no output opens with one answer word and ends on the other."""
    first = _COMMITTED_WORD.search(head)
    last = _last_match(_COMMITTED_WORD, tail)
    return bool(first and last) and _polarity(first.group(1)) != _polarity(last.group(1))


def final_statements(tail: str) -> list[Statement]:
    """Boxed answers and marked answer statements, in order, after the last self-correction."""
    statements = [
        Statement(start, content, marked=False) for _, start, content in _boxes(tail) if content
    ]
    lowered = tail.lower()
    # The two patterns below scan every position; a substring test skips most outputs.
    markers = list(_MARKER.finditer(tail)) if _mentions(lowered, _MARKER_HINTS) else []
    for match, following in zip(markers, [*markers[1:], None], strict=False):
        text, end = _statement_text(tail, match.end())
        # "Final answer: the answer is 5" states one answer: the inner marker gives it.
        if text and (following is None or following.start() >= end):
            statements.append(Statement(match.start(), text, marked=True))
    statements.sort(key=lambda s: s.start)
    corrections = (
        [m.end() for m in _SELF_CORRECTION.finditer(tail)]
        if _mentions(lowered, _CORRECTION_HINTS)
        else []
    )
    if corrections and any(s.start > corrections[-1] for s in statements):
        statements = [s for s in statements if s.start > corrections[-1]]
    return statements


def _mentions(lowered: str, hints: tuple[str, ...]) -> bool:
    return any(hint in lowered for hint in hints)


def is_truncated(finish_reason: str, tail: str) -> bool:
    """True when generation stopped on its length limit or the text stops mid-sentence."""
    if finish_reason.strip().lower() == "length":
        return True
    text = tail.rstrip()
    if not text:
        return False
    if _ENDS_WITH_OPERATOR.search(text[-8:]):
        return True
    last_word = _LAST_WORD.search(text[-40:])
    if last_word and text[-1].isalpha() and last_word.group(1).lower() in _DANGLING_WORDS:
        return True
    return _ends_inside_box(text[-MAX_BOX_CHARS:])


def lists_options(tail: str, statements: list[Statement]) -> bool:
    """True when the output ends with a list of lettered options and commits to none."""
    after = statements[-1].start + len(statements[-1].text) if statements else 0
    rest = tail[after:]
    labels = {m.group(1).upper() for m in _OPTION_LINE.finditer(rest)}
    inline = {m.group(1) for m in _INLINE_OPTION.finditer(rest)}
    return len(labels) >= 2 or len(inline) >= 3


def hedges_yes_no(tail: str, statements: list[Statement]) -> bool:
    """True when a yes/no output says "it depends" and never commits, or says both."""
    hedge = _last_match(_YES_NO_HEDGE, tail)
    if hedge is not None and not _YES_NO_WORD.search(tail, hedge.end()):
        return True
    if statements:
        words = {_polarity(m.group(1)) for m in _YES_NO_WORD.finditer(statements[-1].text)}
        return len(words) > 1
    return False


def gives_different_answers(
    tail: str, statements: list[Statement], single_valued: bool, gold: str
) -> bool:
    """True when the output states two different final answers.

    A marked statement ("the answer is") outranks bare boxes before it, which are often
    intermediate results; for multi-part golds, values in one sentence are one answer.
    """
    marked = [s for s in statements if s.marked]
    chosen = marked or statements
    if not single_valued:
        chosen = list(_join_by_sentence(tail, chosen))
    values = {_value_key(s.text) for s in chosen} - {""}
    if len(values) > 1:
        return True
    if statements:
        return _hashes_contradict_line_before(tail, statements[-1])
    return single_valued and _side_remark_after_result(tail, gold)


def hedges_between_values(tail: str, statements: list[Statement]) -> bool:
    """True when the final answer offers alternatives ("24 or 6", "±4") for one gold value."""
    answer = statements[-1].text if statements else _last_predicate(tail)
    if _PLUS_MINUS.search(answer):
        return True
    if statements and _EITHER.search(answer):
        return True
    match = _TWO_VALUES.search(answer)
    return bool(match) and _value_key(match.group(1)) != _value_key(match.group(2))


def has_mixed_number(tail: str, statements: list[Statement]) -> bool:
    """True when the final answer is a mixed number (``4 4/9``), which parsers misread.

    A gold written the same way is misread the same way, so callers check the gold first.
    """
    answer = statements[-1].text if statements else _last_predicate(tail)
    for match in _MIXED_NUMBER.finditer(answer):
        numerator = match.group(2) or match.group(4)
        denominator = match.group(3) or match.group(5)
        if 0 < int(numerator) < int(denominator):
            return True
    return False


def _boxes(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, content start, content) of each closed top-level box, in order."""
    position = 0
    while (match := _BOX.search(text, position)) is not None:
        depth, index = 1, match.end()
        limit = min(len(text), index + MAX_BOX_CHARS)
        while index < limit and depth:
            depth += (text[index] == "{") - (text[index] == "}")
            index += 1
        if not depth:
            yield match.start(), match.end(), text[match.end() : index - 1]
        position = index


def _ends_inside_box(text: str) -> bool:
    last = _last_match(_BOX, text)
    if last is None:
        return False
    rest = text[last.end() :]
    return rest.count("{") >= rest.count("}")


def _last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    matches = list(pattern.finditer(text))
    return matches[-1] if matches else None


def _statement_text(tail: str, start: int) -> tuple[str, int]:
    """The answer stated after a marker, up to the end of its sentence or line, and its end."""
    window = tail[start : start + MAX_STATEMENT_CHARS]
    box = next(_boxes(window), None)
    if box is not None and _BOX_LEAD.fullmatch(window[: box[0]]):
        return box[2], start + box[1] + len(box[2]) + 1
    lead = len(window) - len(window.lstrip())
    display = _DISPLAY_MATH.match(window, lead)
    if display:
        text, end = display.group(1), display.end()
    else:
        sentence_end = _SENTENCE_END.search(window, lead)
        end = sentence_end.start() if sentence_end else len(window)
        text = window[:end]
    text = text.strip()
    # "the answer is expected to be an integer" states no answer.
    if text[:1].islower() and len(text.split()) > 3:
        text = ""
    return text, start + end


def _join_by_sentence(tail: str, statements: list[Statement]) -> Iterator[Statement]:
    """Merge statements that sit in one sentence, such as "x = \\boxed{3} and \\boxed{-2}"."""
    group: list[Statement] = []
    for statement in statements:
        if group and _SENTENCE_END.search(tail, group[-1].start, statement.start) is None:
            group.append(statement)
            continue
        if group:
            yield _merged(group)
        group = [statement]
    if group:
        yield _merged(group)


def _merged(group: list[Statement]) -> Statement:
    keys = sorted({_value_key(s.text) for s in group})
    return Statement(group[0].start, ",".join(keys), any(s.marked for s in group))


def _hashes_contradict_line_before(tail: str, statement: Statement) -> bool:
    """True when a GSM8K-style ``#### 42`` follows a line whose result is another number."""
    line_start = tail.rfind("\n", 0, statement.start) + 1
    if not tail[line_start : statement.start + 1].lstrip().startswith("#"):
        return False
    previous = tail[:line_start].rstrip().rsplit("\n", 1)[-1]
    numbers = _NUMBER.findall(previous)
    return bool(numbers) and _value_key(numbers[-1]) != _value_key(statement.text)


def _side_remark_after_result(tail: str, gold: str) -> bool:
    """With no stated answer, True when the last result (``= 40``) is the gold but a later
    number is not: extractors take the last number, which may be a side remark ("my
    favourite number is 50"), and would mark a right answer wrong.
    """
    results = _EQUATION_RESULT.findall(tail)
    numbers = _NUMBER.findall(tail)
    if not results or not numbers:
        return False
    gold_key = _value_key(gold)
    return _value_key(results[-1]) == gold_key != _value_key(numbers[-1])


def _last_predicate(tail: str) -> str:
    """What the last sentence says the answer is: the part after its last "is", "are" or "="."""
    text = _TRAILING.sub("", tail.rstrip())
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    sentence = text[ends[-1] :] if ends else text
    cut = max(
        sentence.rfind(" is "), sentence.rfind(" are "), sentence.rfind("="), sentence.rfind(":")
    )
    return sentence[cut + 1 :] if cut >= 0 else sentence


def _names_two_letters(text: str) -> bool:
    match = _TWO_LETTERS.match(text.lstrip(" *:$("))
    return bool(match) and match.group(1) != match.group(2)


def _polarity(word: str) -> bool:
    return word.lower() in ("yes", "true")


def _has_square_factor(n: int) -> bool:
    return n < 10**6 and any(n % (k * k) == 0 for k in range(2, int(n**0.5) + 1))


def _one_sentence(tail: str, statements: list[Statement]) -> bool:
    """True when the last two stated answers share a sentence ("3 and -2")."""
    return len(statements) > 1 and not _SENTENCE_END.search(
        tail, statements[-2].start, statements[-1].start
    )


def _core(text: str) -> str:
    """The mathematics of an answer, for comparing two spellings of it: no words, no spaces."""
    text = _DECORATION.sub("", _WORD.sub("", text.replace("\\boxed", "")))
    text = _ASSIGNMENT.sub("", _TRAILING.sub("", _FRAC_VARIANT.sub(r"\\frac", text)))
    text = text.translate(_UNICODE_MATH).replace("\\geq", "\\ge").replace("\\leq", "\\le")
    return text.strip(",;:.")


def _stated_number(answer: str) -> Fraction | None:
    """The number an answer states: the whole answer, a numeric chain's result, or a leading
    count ("9 prime numbers less than 20")."""
    core = _core(answer)
    _, _, result = core.rpartition("=")
    numeric_chain = not _LETTER.search(_COMMAND.sub("", core))
    for candidate in (core, result if numeric_chain else ""):
        if (value := _number(candidate)) is not None:
            return value
    leading = _LEADING_COUNT.match(answer)
    return _number(leading.group(1)) if leading else None


def _number(text: str) -> Fraction | None:
    key = _value_key(text)
    try:
        return Fraction(key) if _PLAIN_NUMBER.fullmatch(key) else None
    except (ValueError, ZeroDivisionError):
        return None


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
