"""Reading sentences for the answer they state: after a marker, on the first line, and in the
last sentence (its predicate, a conclusion clause, a label and colon, a line of mathematics).

Each function takes a bounded window of the output and returns a Candidate or text; every
pattern is linear-time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from grading.candidates.cues import (
    AND_OR_WORDS,
    ANSWER_MARKER_PATTERN,
    BOLD_VALUE,
    BOX,
    CONCLUSION,
    FINAL_MARKER_PATTERN,
    FIRST_LINE,
    HEAD_CHARS,
    LAST_SENTENCE,
    MAX_FIRST_LINE_CHARS,
    MAX_STATEMENT_CHARS,
    SENTENCE_END,
    STATEMENT,
    Candidate,
    boxes,
)
from grading.evaluators.extraction import last_match

_CONCLUSION_WORDS = re.compile(
    r"^\W*(?:so|thus|therefore|hence|consequently|overall|in total|in all|altogether|donc"
    r"|in summary|to summari[sz]e|in conclusion|to sum up"
    r"|por lo tanto|portanto|also|所以|因此)\b[\s,:]*",
    re.IGNORECASE,
)


# A closing count of the answers just listed: "There are 4 solutions in total."
_ANSWERS_COUNTED = re.compile(
    r"^\W*(?:so\s+|thus\s+|hence\s+)?there\s+are\s+(?:\$?\d+\$?|two|three|four|five|six)\s+"
    r"(?:distinct\s+|real\s+|such\s+)?(solutions?|roots?|values?|angles?|zeros?|answers?)"
    r"(?:\s+in\s+(?:total|all))?\W*$",
    re.IGNORECASE,
)
# A sentence that opens like this is an aside, not the conclusion.
_DIGRESSION = re.compile(
    r"^\s*\((?=[A-Z]?[a-z]+\s(?![-+=−×*/^<>])|[A-Z][a-z]+[:,])"  # not "(x − 3)² + …"
    r"|^\W*(?:by the way|incidentally|as an aside|fun fact|(?:as a |on a )?side note"
    r"|in (?:other )?words|if (?:you|we) also|for (?:comparison|completeness|reference)"
    r"|note that|p\.?s\.?|here(?:['’]s| is) why"
    r"|btw|i hope|hope this|let me know|feel free|good luck|check(?:ing)?|verif(?:y|ication)"
    r"|if you(?:['’]d| would)? (?:like|want|prefer|need)|i can also|would you like|shall i"
    r"|to (?:check|verify)|double[- ]check(?:ing)?|sanity check"
    r"|comprobaci[óo]n|verificaci[óo]n|v[ée]rification|[üu]berpr[üu]fung|probe|kontrolle"
    r"|verifica[çc][ãa]o|prova|проверка|確認|检验|验证|검산|확인"
    # "by the way" and "a remark" in other languages
    r"|nebenbei|[üu]brigens|anmerkung|por cierto|a prop[óo]sito|au passage|d['’]ailleurs"
    r"|en passant|remarque|кстати|между прочим|примечание|ちなみに|顺便|顺带|ali[áa]s"
    r"|tra l['’]altro|per inciso)\b",
    re.IGNORECASE,
)


# Mathematics set in delimiters. Two dollar signs around prose are amounts, not a span
# ("Weekly pay is $420, so Omar earns $840"), and an escaped one (``\$12``) is an amount.
MATH_SPAN = re.compile(
    r"\$\$.*?\$\$|(?<!\\)\$(?!\s*\d[^$]*?[A-Za-z]{2,}\s+[A-Za-z]{2,}[^$]*\$)[^$]*\$"
    r"|\\\(.*?\\\)|\\\[.*?\\\]",
    re.DOTALL,
)


# A line that opens with a short label and a colon states what the label names.
_OPTION_LINE = re.compile(r"^\s*\(?[A-E]\)?\s*[.:)]\s*\S")
_OPTION_LABEL = re.compile(r"[ \t*]*\(?[A-E]\)?")
_LABEL_ENDS = frozenset("ABCDE)")  # the last character of an option label


_LABEL = re.compile(r"^[\s*]*[A-Za-z][A-Za-z ]{1,30}\**:\**(?=\s*\S)(?![^:]*:)")


PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")


# What the last sentence says the answer is: the part after its last "is", "=" or ":" (a
# colon between digits is part of a time or a ratio, "4:30", "7:32", "3 : 2"; "Part 2: 15"
# is a label).
_VERB = re.compile(
    r"\bis\b|\bare\b|\bequals?\b|\bgives?\b|\bget\b|\bbe\b|\best\b|\bes\b|\bé\b|\bist\b"
    r"|\bwas\b|\bhas\b|\bhave\b|\bmakes?\b|\bsind\b|\bson\b|\bsont\b|\bsão\b"
    r"|\b(?:contains|holds|costs|weighs|measures)\b"  # not "would cost": a supposition
    # "(3, 4) goes to (−4, 3)", not "$480,000 goes to parks"
    r"|\b(?:goes|maps|is\s+(?:mapped|sent))\s+to\b(?=\s*[-−(\[$\\\d])"
    r"|\bbeträgt\b|\bergibt\b|\bcuestan?\b|\bcustam?\b|\bcoûtent?\b|\bсоставляет\b"
    r"|\bравн[оаы]\b"
    r"|(?<!\d)(?<!\d\s):|(?<=\d):(?!\d)|(?<=\d\s):(?!\s?\d)|：|是|为",
    re.IGNORECASE,
)


# A clause whose verb states a value: "The 100th digit is 8", not "You need 5 pizzas!".
_CLAUSE_STATING_A_VALUE = re.compile(r"[A-Za-z]\s+(?:is|are|was|were|equals?)\s+(?=[-$\\\d])")
# A verb followed by what it states ("is Carol", "are 12").
_STATED_BY_VERB = re.compile(r"\b(?:is|are|was|were|equals?)\s+\S")
_STATED_BY_VERB_OR_HAS = re.compile(r"\b(?:is|are|was|were|equals?|has|have|gets?|makes?)\s+\S")
# A relative clause that compares what the sentence stated with something else: ", which is
# 31 fewer than it started with" (not ", which equals seven hundred twenty"), writes it in
# another base (", which is 39 in decimal"), or checks it.
_RELATIVE_CLAUSE = re.compile(
    r",\s+(?:which|that)\s+(?:is|are|was|were|means)\b"
    r"(?=[^.;]*\b(?:than|fewer|times as|in\s+(?:decimal|binary|base)))"
    # or checks it: ", which checks: $6+3+2=11$", ", which satisfies the equation"
    r"|,\s+(?:which|that|and this)\s+"
    r"(?:checks|confirms|satisfies|works|is (?:correct|consistent))\b"
)
_WHICH_IS = re.compile(r",\s+(?:which|that)\s+(?:is|comes\s+to|works\s+out\s+to)\b")
_STATES_A_VALUE = re.compile(r"\d|\\[A-Za-z]|\$")
# Something a verb can state: a word, a number, LaTeX, masked mathematics or a symbol ("∞").
_STATES_SOMETHING = re.compile(r"[^\W_]|\\|[\x00∞π√∅ℝℤℕℚℂ±−½⅓⅔¼¾]")


# A sentence that opens on its reason: "Since the one-sided limits are different, the limit
# does not exist" states its main clause, after the comma.
_OPENING_REASON = re.compile(r"^\W*(?:since|because|given that|now that)\b[^,]*,\s*", re.IGNORECASE)


# A conclusion inside a sentence: "The expression is positive, so x < 2 or x > 5".
_INNER_CONCLUSION = re.compile(
    r"[,;]\s*(?:so|thus|therefore|hence|giving|which gives|yielding|resulting in"
    r"|for a total of)\b[\s,:]*",
    re.IGNORECASE,
)


# A clause after the answer that sets another value aside: "…, and $x = -2$ is rejected",
# "(x = -2 is extraneous)", "…, since $x = -3$ does not satisfy the domain".
_REJECTED_CLAUSE = re.compile(
    r"(?:[,;]\s*(?:and|while|whereas|but|since|because|as)?|\s\(|\s(?:and|while|whereas|but))\s*"
    r"[^,;()]{0,60}?\b(?:is|are|was|were|must be|gets?|being)\s+(?:rejected|discarded|extraneous"
    r"|excluded|ruled out|invalid|not (?:a |an )?(?:valid |allowed |admissible )?(?:solutions?|roots?))"
    r"\b.*$|[,;]\s*(?:and|while|but|since|because|as)?\s*[^,;]{0,60}?\b(?:does not|doesn't"
    r"|do not|don't|cannot|can't) (?:work|satisfy|check)\b.*$",
    re.IGNORECASE,
)
# A condition after the answer: "…is 1/12 or 2/21, depending on whether the dice are told
# apart", "…is 13, if both ends count". What it states is before it.
_CONDITION_CLAUSE = re.compile(
    r"(?:,\s*|\s+)(?:depending on|assuming|provided|if|unless|as long as)\b.*$"
    # where an extremum is reached: "…, đạt được khi x = 2", "…, достигается при x = 3"
    r"|,\s*(?:(?:attained|achieved|reached|obtained)\s+(?:at|when|for)|đạt(?:\s+được)?\s+khi"
    r"|достига\w*\s+при|atteint\w*\s+(?:en|pour|quand|lorsque)|(?:se\s+)?alcanza\w*\s+(?:en|cuando|para)"
    r"|erreicht\s+(?:bei|für|wenn)|raggiunt\w*\s+(?:in|per|quando)|atingid\w*\s+(?:em|quando|para))"
    r"\b.*$",
    re.IGNORECASE,
)
# Why, after what the sentence states: ", since …", ", because …".
_REASON_CLAUSE = re.compile(r",\s*(?:since|because)\b.*$", re.IGNORECASE)
# A closing remark in brackets that states something else ("(the least would be $-7$)");
# not another answer offered ("(or $555$ if …)"), which the reading of the answer weighs.
_CLOSING_ASIDE = re.compile(
    r"\s*\((?!\s*(?:or|and\s+also|also|possibly|maybe|perhaps|either)\b)[^()]*"
    r"\b(?:would|is|are|was|were|be)\b[^()]*\)\s*$",
    re.IGNORECASE,
)
_FIRST_EQUALS = re.compile(r"[^=]*?=(?!=)")


# A first line that is an answer given up front: a number with a few words of unit, a choice
# letter, or a yes/no word.
_FIRST_LINE_ANSWER = re.compile(
    r"^[\s*#>]*"
    r"(?:\$?[-−]?\$?\d[\d,.]*(?:\s*/\s*\d+)?\$?(?:\s+[A-Za-z]+){0,3}"
    r"|\(?[A-E]\)?|yes|no|true|false|oui|non|sí|si|ja|nein)\W{0,3}$",
    re.IGNORECASE,
)


# What opens the explanation of an answer given first: "Explanation:", "Here's why:".
_EXPLAINED_NEXT = re.compile(
    r"\s*[*#>]*\s*(?:explanation|reasoning|justification|working(?: it out)?|work"
    r"|here(?:'s| is) (?:why|how)|why)\b"
    r"[*\s]*[:：]",
    re.IGNORECASE,
)
_LEADING_YES_NO = re.compile(r"^[\s*#>\"'(]*(yes|no|true|false)\b", re.IGNORECASE)


_DISPLAY_MATH = re.compile(r"(?:\\\[|\$\$)(.{0,300}?)(?:\\\]|\$\$)", re.DOTALL)


_INLINE_MATH = re.compile(r"(?:\$|\\\()(.{0,200}?)(?:(?<!\\)\$|\\\))", re.DOTALL)


_LEAD = re.compile(r"[\s$*:(\\\[]*")


LAST_SENTENCES_CHARS = 1500

# The stops a sentence's last word may end on ("…is 42."); stripped from text that ends on no
# whitespace, where str.rstrip is the pattern [.!?。]+$ without a scan of every position.
_STOPS = ".!?。"


_DISPLAY_BLOCK = re.compile(r"\\\[.{0,1000}?\\\]|\$\$.{0,1000}?\$\$", re.DOTALL)


_FACTORIAL_THEN_WORD = re.compile(r"\d! [a-z]")
_MORE_SPANS = re.compile(rf"(?:\s*(?:[,;]\s*)?(?:(?:{AND_OR_WORDS})\s+)?\$[^$\n]+\$)+\s*")


def statement_after(text: str, start: int) -> tuple[str, int]:
    """The answer stated from ``start`` on: a box or math span right there, else the rest of
    the sentence; and where it ends."""
    window = text[start : start + MAX_STATEMENT_CHARS]
    lead = _LEAD.match(window).end()
    box = next(boxes(window), None)
    if box is not None and box[0] <= lead:
        return box[1], start + box[0] + len(box[1]) + 1
    stripped = len(window) - len(window.lstrip())
    end = SENTENCE_END.search(window, stripped)
    sentence = window[: end.start() if end else len(window)]
    in_sentence = list(boxes(sentence))
    if len(in_sentence) == 1:  # "the largest integer $n$ satisfying $\boxed{n^2 < 50}$"
        return in_sentence[0][1], start + in_sentence[0][0] + len(in_sentence[0][1]) + 1
    for pattern in (_DISPLAY_MATH, _INLINE_MATH):
        span = pattern.match(window, stripped)
        # A span that runs over a sentence end is two currency signs, not mathematics.
        if span and span.group(1).strip() and not SENTENCE_END.search(span.group(1)):
            rest = window[span.end() :]
            more = SENTENCE_END.search(rest)
            tail_words = rest[: more.start() if more else len(rest)]
            # "$y = 5$, $x = 2$", "$x = 3$ et $y = -1$": more spans listed are the answer too
            if _MORE_SPANS.fullmatch(tail_words):
                return (span.group(0) + tail_words).strip(), start + span.end() + len(tail_words)
            # "$12$ dollars" keeps its unit words; "$x=3$, so ..." stops at the math.
            if tail_words.strip() and not re.match(r"\s*[,;]", tail_words):
                return (span.group(0) + tail_words).strip(), start + span.end() + len(tail_words)
            return span.group(0).strip(), start + span.end()
    end = SENTENCE_END.search(window, stripped)
    while end is not None and _FACTORIAL_THEN_WORD.match(window, end.start() - 1):
        end = SENTENCE_END.search(window, end.end())  # "5! ways": a factorial, not a stop
    stop = end.start() if end else len(window)
    statement = window[:stop].strip()
    # "the answer is expected to be an integer" states no answer.
    if statement[:1].islower() and len(statement.split()) > 4 and not re.search(r"\d", statement):
        statement = ""
    return statement, start + stop


def first_line(output: str, reply_start: int) -> Candidate | None:
    """A reply whose first line is a bare answer ("5 buses.", "No.", "(B)"), or a sentence
    the reply then explains ("Anna will be 56 years old in 8 years." then "Explanation: …")."""
    head = output[reply_start : reply_start + HEAD_CHARS]
    stripped = head.lstrip()
    line, _, rest = stripped.partition("\n")
    if not rest:
        return None  # a one-line reply is covered by the last sentence
    if ANSWER_MARKER_PATTERN.search(line) or FINAL_MARKER_PATTERN.search(line):
        return None  # "Answer: B" is found as a marked answer
    start = reply_start + len(head) - len(stripped)
    if len(line) <= MAX_FIRST_LINE_CHARS:
        if _FIRST_LINE_ANSWER.match(line):
            return Candidate(line.strip(), start, FIRST_LINE)
        yes_no = _LEADING_YES_NO.match(line)
        if yes_no:
            return Candidate(yes_no.group(1), start, FIRST_LINE)
    if not _EXPLAINED_NEXT.match(rest) or len(SENTENCE_END.findall(line.rstrip())) > 1:
        return None
    stated = _predicate(line.rstrip().rstrip(_STOPS), start, True)
    return Candidate(stated.text, stated.start, FIRST_LINE) if stated else None


_ASKED_UNIT = re.compile(
    r"\bhow\s+(?:many|much)\s+(?:more\s+|fewer\s+|less\s+|of\s+(?:the\s+)?)?([a-z]{3,})",
    re.IGNORECASE,
)
# "If 5 more get on, 8 seats would still be empty", "If you host 12 people instead, the same
# rate gives 900 g": what would follow from a change the question does not make remarks on
# the statement before it
_HYPOTHETICAL = re.compile(
    r"^\W*(?:if|suppose|supposing|assuming)\b[^.?!]*\b(?:would|could|might|instead)\b",
    re.IGNORECASE,
)
# A rate or a share: "$12 per person", "3 each".
_PER_UNIT = re.compile(r"\b(?:per|each|apiece|every|average|rate)\b", re.IGNORECASE)
# "the value of $k$", not "the minimum value of $x^2 + 8x + 21$" (an expression's value)
_ASKED_VARIABLE = re.compile(
    r"\b(?:value|values)\s+of\s+(?:\$([A-Za-z])\$|\\\(([A-Za-z])\\\)|([A-Za-z])(?![\w^_+\-*/(]))"
    r"|\b(?:solve\s+for|find)\s+\$([A-Za-z])\$",
    re.IGNORECASE,
)
# What the question names as the thing it asks for: "Find the real part of …", "What is the
# center of …", "How old is the son now?". Words that name any answer ("value", "answer") do
# not tell one value of a sentence from another.
_ASKED_NAME = re.compile(
    r"\b(?:find|compute|determine|calculate|give|state|what\s+(?:is|are|was|were|will\s+be))"
    r"\s+(?:the|its|their)\s+((?:[a-z]+[\s-]){0,2}?[a-z]{3,})\s+(?:of|for|in|on|that|when|if|at)\b"
    r"|\bhow\s+old\s+(?:is|was|will)\s+(?:the\s+)?([a-z]{3,})\b",
    re.IGNORECASE,
)
# A measure's name says less than what it measures: "What is the length of the longer leg?"
# is answered "the longer leg is $5\sqrt{3}$ and the shorter leg is $5$"; "Find the
# coordinates of the focus" by "the focus is at $(0, 2)$ and the directrix is $y = -2$".
_MEASURE_NAMES = frozenset("length measure size coordinates location position".split())
_MEASURED = re.compile(
    r"\b(?:length|measure|size|coordinates|location|position)\s+of\s+(?:the\s+|its\s+)?"
    r"((?:[a-z]+[\s-]){0,2}?[a-z]{3,})"
    r"(?=\s+(?:of|for|in|on|that|when|if|at)\b|\s*[?.,]|\s*$)",
    re.IGNORECASE,
)
_ANY_ANSWER_NAMES = frozenset(
    "value values answer answers number numbers result solution solutions expression".split()
)


@dataclass(frozen=True)
class Asked:
    """What the question asks for, as far as the closing sentences need it."""

    unit: str = ""  # what it counts or measures: "days" in "How many days does it take?"
    variable: str = ""  # the unknown it names: "k" in "For what value of $k$ …?"
    per_unit: bool = False  # it asks for a rate or a share: "How much does each pay?"
    name: str = ""  # what it names: "real part" in "Find the real part of $(2 + i)^3$."


NOTHING_ASKED = Asked()


# Read once per problem: a run grades several outputs of each.
@lru_cache(maxsize=1024)
def what_is_asked(problem: str) -> Asked:
    """The unit, the unknown and the name of what the question's last part asks for (any may
    be empty)."""
    question = problem[-600:]
    units = _ASKED_UNIT.findall(question)
    variables = ["".join(groups) for groups in _ASKED_VARIABLE.findall(question)]
    asking = _asking_sentence(question)
    names = [a or b for a, b in _ASKED_NAME.findall(asking)]
    name = names[-1].lower() if names else ""
    if name in _MEASURE_NAMES and (measured := _MEASURED.search(asking)) is not None:
        name = measured.group(1).lower()  # "the length of the longer leg": the leg is named
    return Asked(
        units[-1].lower() if units else "",
        variables[-1] if variables else "",
        _PER_UNIT.search(_asking_sentence(question)) is not None,
        "" if name in _ANY_ANSWER_NAMES else name,
    )


def _labels_option(text: str, end: re.Match) -> bool:
    """The full stop of an option label at the start of a line ("C. 63"), not a sentence's."""
    if end.group() != "." or text[end.start() - 1 : end.start()] not in _LABEL_ENDS:
        return False
    line_start = text.rfind("\n", 0, end.start()) + 1
    return _OPTION_LABEL.fullmatch(text[line_start : end.start()]) is not None


def _line_before(text: str, start: int) -> str:
    """The last line with something on it before ``start``."""
    lines = [line for line in text[:start].splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _asking_sentence(question: str) -> str:
    """The sentence that asks (its last question, else its last sentence): "at $9 each" in
    the statement does not ask for a share."""
    sentences = re.split(r"(?<=[.!?])\s+", question.strip())
    return next((s for s in reversed(sentences) if "?" in s), sentences[-1])


_PLAIN_FUNCTION_TERM = r"\\?(?:ln|log|lg|sin|cos|tan|sqrt|exp|pi)(?![A-Za-z])\s*[\w.\\{}/^()]*"


def _assignment(sentence: str, begin: int, variable: str) -> Candidate | None:
    """The sentence's last statement of the unknown's value ("k = −3", "$k = 4$"), if it has
    one; "3x = 15 \\Rightarrow x = 5" states x = 5 (a coefficient is not a statement)."""
    if not variable:
        return None
    pattern = (
        rf"(?<![A-Za-z\\\d]){re.escape(variable)}\s*=\s*[-−]?[\w.\\{{}}/^]+"
        # and a function or constant after a coefficient, written plainly: "k = ¼ ln 3"
        rf"(?:\s*{_PLAIN_FUNCTION_TERM})*"
    )
    found = last_match(re.compile(pattern), sentence)
    if found is None:
        return None
    cue = CONCLUSION if _CONCLUSION_WORDS.match(sentence) else STATEMENT
    return Candidate(found.group(0), begin + found.start(), cue)


# A value a sentence gives: mathematics, a number or an amount ("14π", "1,200", "30%"), a
# bracketed pair, a bold one.
_GIVEN_VALUE = r"(?:\x00+|[-−]?\$?\d(?:[\d.]|,\d{3})*[^\s,;()]*|\([^()]{1,40}\)|\*\*[^*]{1,40}\*\*)"
_VALUES = re.compile(_GIVEN_VALUE)
# It goes on: "the roots are $2$ and $3$" names two values; "3 to 2", "4 in 13" and "3 out of
# 10" are one, and so is a factor of a product ("inverse = (1/2)·[[2, −2], [−3, 4]]").
_VALUE_GOES_ON = re.compile(
    r"\s*[,;]?\s*(?:(?:and|or|to|by|x|in|out\s+of|over|per|times)\s|[&:/×+\-−–]|\\times)?\s*"
    + _GIVEN_VALUE
    + r"|\s*(?:[·×*^]|\\cdot(?![A-Za-z])|\\times(?![A-Za-z]))"
)
# Another value offered after it: "the sum is $592$ (or $555$ if …)".
_OFFERED = re.compile(r"\b(?:or|if|unless|either)\b", re.IGNORECASE)
_STATING_VERB = r"(?:is|are|was|were|equals)\b"


def _masked(text: str) -> str:
    """The text with each span of mathematics blanked out to as many NULs (same length), so
    the patterns for prose do not read inside it."""
    return MATH_SPAN.sub(lambda m: "\x00" * len(m.group(0)), text)


def _named_value(sentence: str, begin: int, name: str) -> Candidate | None:
    """The value a sentence of several values gives to what the question asks for: "its real
    part is $2$ and its imaginary part is $11$" for "Find the real part", "the maximum value is
    $11$, attained at $x = 3$" for "Find the maximum value"."""
    if not name:
        return None
    masked = _masked(sentence)
    if len(_VALUES.findall(masked)) < 2:
        return None
    found = _name_pattern(name).search(masked)
    if (
        found is None
        or _VALUE_GOES_ON.match(masked, found.end())
        or _OFFERED.search(masked, found.end())
    ):
        return None
    inner = last_match(_INNER_CONCLUSION, masked, found.end())
    if inner is not None and _STATES_SOMETHING.search(masked[inner.end() :]):
        return None  # "… with probability 1/12, so P(same month) = 1/144": the "so" concludes
    value = sentence[found.start(1) : found.end(1)]
    stars = len(value) - len(value.lstrip("*"))
    cue = CONCLUSION if _CONCLUSION_WORDS.match(sentence) else STATEMENT
    return Candidate(value.strip("*"), begin + found.start(1) + stars, cue)


def _mentions(sentence: str, name: str) -> bool:
    """The sentence names the quantity, with or without a value ("the area of the sector")."""
    words = r"[\s-]+".join(re.escape(word) for word in name.split())
    return re.search(rf"\b{words}\b", sentence, re.IGNORECASE) is not None


# A sentence that gives the value of a named quantity: "its y-intercept is 5".
_NAMES_ANOTHER = re.compile(
    r"\b(?:its|the|their)\s+[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?\s+(?:is|are|was|equals)\b",
    re.IGNORECASE,
)


def _asked_name_stated_before(text: str, start: int, offset: int, name: str) -> Candidate | None:
    """The value the sentence before ``start`` gives to what the question asks for."""
    previous = next(
        (at for at in _sentence_starts_backwards(text, start) if text[at:start].strip()), None
    )
    if previous is None:
        return None
    sentence = text[previous:start].rstrip().rstrip(_STOPS)
    found = _name_pattern(name).search(_masked(sentence))
    if found is None or not _STATES_A_VALUE.search(found.group(1)):
        return None
    value = sentence[found.start(1) : found.end(1)]
    cue = CONCLUSION if _CONCLUSION_WORDS.match(sentence) else STATEMENT
    return Candidate(value.strip("*"), offset + previous + found.start(1), cue)


@lru_cache(maxsize=256)
def _name_pattern(name: str) -> re.Pattern[str]:
    """The name, then the value it is given: "the sum of its digits is 13", "the center
    $(3, -2)$", "the son is 16"."""
    words = r"[\s-]+".join(re.escape(word) for word in name.split())
    return re.compile(
        rf"\b{words}\b(?:\s+of\s+[^,;.\x00]{{1,40}}?\s+{_STATING_VERB}"
        rf"|\s*(?:{_STATING_VERB}(?:\s+(?:located\s+)?at\b)?|=|:)?)"
        # "the focus is at the point $F = (0, 2)$"
        rf"(?:\s*the\s+point)?(?:\s*(?-i:[A-Z])\s*=)?\s*({_GIVEN_VALUE})",
        re.IGNORECASE,
    )


def _names_another(named: Candidate, candidate: Candidate | None) -> bool:
    """The sentence's predicate is not the named value: a later or an earlier one, or the
    named value and another after it ("$(3, -2)$ and radius $5$")."""
    if candidate is None:
        return True
    named_end, candidate_end = named.start + len(named.text), candidate.start + len(candidate.text)
    if candidate.start >= named_end or candidate_end <= named.start:
        return True
    rest = candidate.text[max(0, named_end - candidate.start) :]
    return _VALUES.search(_masked(rest)) is not None


def _assigns(text: str, variable: str) -> bool:
    """``text`` gives the value of ``variable`` ("$k = 4$")."""
    return bool(variable) and re.match(rf"\W*{re.escape(variable)}\s*=", text) is not None


def _before_closing_asides(text: str) -> int:
    """Where the text ends once the lines it closes on that open as asides are left out: a
    "Verification: …" line is an aside to its last sentence ("… The second printer's share is
    720."), not only to its first; a closing paragraph that opens as one ("For comparison, …
    is only" over a display line) is an aside as a whole."""
    stop = len(text)
    while True:
        line_start = text.rfind("\n", 0, stop) + 1
        paragraph_start = text.rfind("\n\n", 0, stop) + 2
        if paragraph_start >= 2 and _DIGRESSION.match(text[paragraph_start:stop]):
            line_start = paragraph_start
        elif line_start == 0 or not _DIGRESSION.match(text[line_start:stop]):
            return stop
        stop = len(text[:line_start].rstrip())


def last_sentence(tail: str, offset: int, asked: Asked = NOTHING_ASKED) -> tuple[Candidate, ...]:
    """What the last sentence says the answer is (a side remark after it does not count).

    The predicate is what follows the sentence's last verb or colon outside mathematics; a
    sentence that is all mathematics ("Total = 48 = 8 \\times 6") is itself the statement. A
    last line that is a bare answer ("YES", "(B)") is stated plainly, like a first line.
    When the last sentence only remarks on something ("On the last day she reads 10 pages")
    and the sentence just before it concludes with the quantity the question asks for
    (``asked.unit``: "days" in "How many days …?", "So it takes her 17 days"), the conclusion
    is the statement and the remark elaborates on it.
    """
    # The last sentences live in the last stretch of the tail; a sentence longer than that is
    # no answer statement, so the rest is not split into sentences at all.
    window = max(0, len(tail) - LAST_SENTENCES_CHARS)
    offset += window
    text = flatten_display(tail[window:].rstrip()).rstrip(_STOPS)
    stop = _before_closing_asides(text)
    remark: Candidate | None = None  # the last sentence, when it only remarks
    hypothetical = False  # the remark supposes a change ("If 5 more get on, … would …")
    for start in _sentence_starts_backwards(text, stop):
        sentence = text[start:stop].rstrip().rstrip(_STOPS)
        stop = start
        if not sentence.strip():
            continue
        if _DIGRESSION.match(sentence):
            continue  # "By the way, my favourite number is 50."
        counted = _ANSWERS_COUNTED.match(sentence)
        if counted and not asked.unit.lower().startswith(counted.group(1).lower()[:4]):
            continue  # "There are 4 solutions in total." after listing them, not asked how many
        if (
            BOX.search(sentence)
            or ANSWER_MARKER_PATTERN.search(sentence)
            or FINAL_MARKER_PATTERN.search(sentence)
        ):
            break  # a statement already found with a stronger cue
        own_line = start == 0 or text[start - 1] == "\n"
        if remark is None:
            if _OPTION_LINE.match(sentence) and (
                (offset == 0 and text.strip() == sentence.strip())
                or (own_line and not _OPTION_LINE.match(_line_before(text, start)))
            ):
                # A reply that is one option ("(C) 12"), or ends on one option line after its
                # working ("9 × 7 = 63.\n\nC. 63"), chooses it; a line of a list of options
                # does not.
                return (Candidate(sentence.strip(), offset + start, CONCLUSION),)
            candidate = _predicate(sentence, offset + start, own_line)
            named = _named_value(sentence, offset + start, asked.name)
            if named is not None and _names_another(named, candidate):
                # "So the circle has center $(3, -2)$ and radius $5$." for "Find the center"
                candidate = named if candidate is None else replace(named, cue=candidate.cue)
            share = _WHICH_IS.search(sentence) if candidate is not None else None
            if share is not None and not asked.per_unit and _PER_UNIT.search(candidate.text):
                # "… spends $66 in total, which is $13.20 per ticket": a share not asked for
                total = _value_stated(sentence[: share.start()], offset + start, own_line)
                candidate = replace(total, cue=candidate.cue) if total is not None else candidate
            given = _assignment(sentence, offset + start, asked.variable)
            if given is not None and (
                candidate is None or not _assigns(candidate.text, asked.variable)
            ):
                # "So k = −3 makes x = 2 a solution" for "For what value of k …?"
                return (given,)
            hypothetical = _HYPOTHETICAL.match(sentence) is not None
            named_before = (
                _asked_name_stated_before(text, start, offset, asked.name)
                if candidate is not None
                and asked.name
                and _NAMES_ANOTHER.search(sentence)
                and not _mentions(sentence, asked.name)
                else None
            )
            if named_before is not None:
                # "Vertex: (3, −4)" then "… and its y-intercept is 5." for "Find the vertex":
                # the last sentence states another quantity
                return (named_before, replace(candidate, cue=LAST_SENTENCE))
            if candidate is not None and candidate.cue != LAST_SENTENCE and not hypothetical:
                first = _first_clause(sentence, offset + start, own_line)
                if first and _assigns(first[0].text, asked.variable):
                    return first  # "Therefore $k = 4$, and the line is …" for "what value of k"
                return (*first, candidate)
            if candidate is None:
                return ()
            remark = candidate
            continue
        if hypothetical:
            # the statement before stands; the supposition only follows it
            statement = _value_stated(sentence, offset + start, own_line)
            if statement is not None:
                return (statement, replace(remark, cue=LAST_SENTENCE))
        # Only the sentence right before the remark, and not one that introduces what
        # follows ("So we need 4 times as much oil:").
        elif _CONCLUSION_WORDS.match(sentence) and not sentence.rstrip().endswith(":"):
            statement = _value_stated(sentence, offset + start, own_line)
            if (
                statement is not None
                and statement.cue == CONCLUSION
                and _names(statement.text, asked.unit)
                and not _names(remark.text, asked.unit)
            ):
                return (statement, remark)
        elif not asked.per_unit and _PER_UNIT.search(remark.text):
            # "4 × 9 = $36 total. That's $12 per person if they split it evenly." for the
            # total: a share the question does not ask for remarks on the statement before it
            statement = _value_stated(sentence, offset + start, own_line)
            if statement is not None:
                return (statement, remark)
        break
    return (remark,) if remark is not None else ()


_BACKWARD_STEP = 256


def _sentence_starts_backwards(text: str, stop: int) -> Iterator[int]:
    """Where the sentences of ``text[:stop]`` start, the last first. Found a stretch at a time
    from the end, because the reading stops after a sentence or two of the 1,500 characters."""
    high = stop
    while high > 0:
        low = max(0, high - _BACKWARD_STEP)
        starts = []
        for end in SENTENCE_END.finditer(text, low, stop):
            if end.start() >= high:
                break
            if not _labels_option(text, end):
                starts.append(end.end())
        yield from reversed(starts)
        high = low
    yield 0


def _value_stated(sentence: str, begin: int, own_line: bool) -> Candidate | None:
    """What the sentence states, where that is a value (a number, LaTeX, an amount)."""
    statement = _predicate(sentence, begin, own_line)
    return statement if statement is not None and _STATES_A_VALUE.search(statement.text) else None


def _names(text: str, unit: str) -> bool:
    """``text`` gives a number of the unit ("17 days", "1 day", "$1\\frac{1}{2}$ cups")."""
    stem = unit[:-1] if unit.endswith("s") else unit
    return bool(unit) and (
        re.search(rf"[\d}}$]\s*(?:[a-z]+\s+)?{re.escape(stem)}", text, re.IGNORECASE) is not None
    )


# ", and" between two clauses that each state something ("the tallest is Carol, and Dan is
# the shortest").
_AND_CLAUSE = re.compile(r",\s+(?:and|while|whereas)\s+")


def _first_clause(sentence: str, begin: int, own_line: bool) -> tuple[Candidate, ...]:
    """What the first of two joined clauses states, when each states something: the predicate
    of the whole sentence reads only the second, and either may answer the question."""
    masked = _masked(sentence)
    joints = list(_AND_CLAUSE.finditer(masked))
    if not joints or _REJECTED_CLAUSE.search(masked):
        return ()
    joint = joints[-1]
    first, second = masked[: joint.start()], masked[joint.end() :]
    # "The integers are 44, 46, and 48, and the largest is 48": a list first states no rival
    if "," in first or not (
        _states(first, sentence[: joint.start()]) and _STATED_BY_VERB.search(second)
    ):
        return ()
    clause = _predicate(sentence[: joint.start()], begin, own_line)
    return (clause,) if clause is not None and clause.cue != LAST_SENTENCE else ()


def _states(masked: str, text: str) -> bool:
    """A clause states a value: by a verb, or by an equation in mathematics ("$k = 4$")."""
    return _STATED_BY_VERB.search(masked) is not None or any(
        "=" in span.group(0) for span in MATH_SPAN.finditer(text)
    )


def _predicate(sentence: str, begin: int, own_line: bool) -> Candidate | None:
    lead = _CONCLUSION_WORDS.match(sentence)
    conclusive = lead is not None
    body_start = lead.end() if lead else 0
    body = sentence[body_start:]
    if len(body.strip()) <= MAX_FIRST_LINE_CHARS and _FIRST_LINE_ANSWER.match(body.strip()):
        return Candidate(body.strip(), begin + body_start, CONCLUSION)
    if _OPTION_LINE.match(body):
        return None  # "D: 32", one line of a list of options, states no choice
    masked = _masked(body)
    rejected = _REJECTED_CLAUSE.search(masked)
    if rejected is not None:  # "x = 4, and x = -2 is rejected": the rejected value is no answer
        body, masked = body[: rejected.start()], masked[: rejected.start()]
    condition = _CONDITION_CLAUSE.search(masked)
    if condition is not None and _STATES_SOMETHING.search(masked[: condition.start()]):
        body, masked = body[: condition.start()], masked[: condition.start()]
    reason = _REASON_CLAUSE.search(masked)
    if reason is not None and _STATES_SOMETHING.search(masked[: reason.start()]):
        # "$\sin(\pi/3) = \frac{1}{2}$, since the side opposite is half the hypotenuse"
        body, masked = body[: reason.start()], masked[: reason.start()]
    aside = _CLOSING_ASIDE.search(masked)
    if aside is not None and _STATES_SOMETHING.search(masked[: aside.start()]):
        # "The greatest is $k = 7$ (the least would be $-7$)": the aside states another thing
        body, masked = body[: aside.start()], masked[: aside.start()]
    reason = _OPENING_REASON.match(masked)
    if reason is not None and _STATES_SOMETHING.search(masked[reason.end() :]):
        body_start += reason.end()
        body, masked = body[reason.end() :], masked[reason.end() :]
    dash = _DASH.search(masked)
    if dash is not None and _answer_then_why(masked[: dash.start()], masked[dash.end() :]):
        # "No solution — the lines are parallel": the answer, then why
        cue = CONCLUSION if conclusive else STATEMENT
        return Candidate(body[: dash.start()].strip(), begin + body_start, cue)
    semicolon = masked.find(";")
    if semicolon > 0:
        first = _predicate(body[:semicolon], begin + body_start, own_line)
        if first is not None and _ANSWER_PHRASE.fullmatch(first.text):
            return first  # "There are none; the discriminant is $-16 < 0$": the answer, then why
    label = _LABEL.match(masked)
    if label is not None:  # "Solution set: [-3, \\infty)", "**Domain:** ...", "Remainder: 13"
        inner = last_match(_INNER_CONCLUSION, masked, label.end())
        if inner is not None and _STATES_SOMETHING.search(masked[inner.end() :]):
            # "Combined rate: 40 + 60 = 100 pages a minute, so 2,400 pages take 24 minutes"
            return _predicate(body[inner.end() :], begin + body_start + inner.end(), own_line)
        return Candidate(body[label.end() :].strip(), begin + body_start + label.end(), CONCLUSION)
    if len(PROSE_WORD.findall(masked)) < 2:  # all mathematics: the statement itself
        inner = last_match(_INNER_CONCLUSION, masked)
        if inner is not None and _STATES_SOMETHING.search(masked[inner.end() :]):
            # "$s^2 = 49$, so $s = \\pm 7$"
            return _predicate(body[inner.end() :], begin + body_start + inner.end(), own_line)
        # A line of mathematics the output ends on ("Total = 48 = 8 \\times 6") states it.
        cue = CONCLUSION if conclusive or own_line else LAST_SENTENCE
        return Candidate(body.strip(), begin + body_start, cue) if body.strip() else None
    bold = [m for m in BOLD_VALUE.finditer(body) if "\x00" not in masked[m.start() : m.end()]]
    if len(bold) == 1 and _CLAUSE_STATING_A_VALUE.search(masked[bold[0].start(1) : bold[0].end(1)]):
        # "**The 100th digit is 8** (the 4th digit of 142857, …)": the bold clause is what
        # the sentence states, read as a sentence
        inner = bold[0]
        body_start += inner.start(1)
        body, masked = body[inner.start(1) : inner.end(1)], masked[inner.start(1) : inner.end(1)]
    elif len(bold) == 1:  # "So 12 pencils cost **$420**": the sentence states what it bolds
        cue = CONCLUSION if conclusive else STATEMENT
        return Candidate(bold[0].group(1).strip(), begin + body_start + bold[0].start(), cue)
    relative = _RELATIVE_CLAUSE.search(masked)
    if relative is not None and _STATED_BY_VERB_OR_HAS.search(masked[: relative.start()]):
        # "…has 1,219 books, which is 31 fewer than before": the remark after "which" is not
        # what the sentence states
        body, masked = body[: relative.start()], masked[: relative.start()]
    inner = last_match(_INNER_CONCLUSION, masked)
    if inner is not None:  # "…, so x < 2 or x > 5": the clause after "so" concludes
        return _predicate(body[inner.end() :], begin + body_start + inner.end(), own_line)
    # What follows the last verb that is followed by something ("the total is 42", not "as
    # 4 × 16 would also give"), else the first equals sign ("the total = 42").
    verb = next(
        (
            verb
            for verb in reversed(list(_VERB.finditer(masked)))
            if _STATES_SOMETHING.search(masked[verb.end() :])
        ),
        None,
    )
    cut = verb.end() if verb is not None else None
    if verb is not None and _is_subject_value(masked[: verb.start()], masked[verb.end() :]):
        # "Three-fourths of the pizza is left": what is left is said by the subject
        subject = body[: verb.start()].strip()
        cue = CONCLUSION if conclusive else STATEMENT
        return Candidate(subject, begin + body_start + len(body) - len(body.lstrip()), cue)
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


# A quantity in words: a number or a fraction ("three-fourths", "twelve").
_QUANTITY_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|hundred|thousand|half|halves|thirds?|fourths?|quarters?)\b",
    re.IGNORECASE,
)


# What a sentence says of a quantity it names as its subject: "… is left", "… are needed".
_SAID_OF_A_QUANTITY = re.compile(
    r"\W*(?:still\s+)?(?:left(?:\s+over)?|remaining|needed|required|missing|shaded|unshaded"
    r"|eaten|spent|saved|used|unused)\W*",
    re.IGNORECASE,
)


# A subject that counts something ("13 seats", not "the 3 numbers"), and a predicate of a few
# words that says what they are or where ("empty", "on the shelf")
_COUNTED = re.compile(r"(?<!the )(?<![\w.,])\d+(?:[.,]\d+)*\s+[A-Za-z]{3,}\s*$")
_FEW_WORDS = re.compile(r"\W*[A-Za-z]{2,}(?:\s+[A-Za-z]+){0,4}\W*")
_SPELLED_NUMBER = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:thir|fif)teen"
    r"|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|half)\b",
    re.IGNORECASE,
)
_DASH = re.compile(r"\s[—–]\s")
# Answers that are no number: "no solution", "none", "infinitely many".
_ANSWER_PHRASE = re.compile(
    r"\W*(?:no (?:real )?solutions?|none|no such \w+|undefined|does not exist"
    r"|infinitely many(?: solutions)?)\W*",
    re.IGNORECASE,
)


def _answer_then_why(head: str, rest: str) -> bool:
    """A short answer with no verb, then words that explain it."""
    return (
        0 < len(head.strip()) <= MAX_FIRST_LINE_CHARS
        and _VERB.search(head) is None
        and (_states_quantity(head) or _ANSWER_PHRASE.fullmatch(head) is not None)
        and len(PROSE_WORD.findall(rest)) >= 2
    )


def _is_subject_value(subject: str, predicate: str) -> bool:
    """The subject states a quantity and what follows the verb only says what became of it
    ("Three-fourths of the pizza is left", "12 liters are still needed")."""
    if (
        _FEW_WORDS.fullmatch(predicate)
        and _COUNTED.search(subject)
        and not _SPELLED_NUMBER.search(predicate)
    ):
        return True  # "so 42 − 29 = 13 seats are empty", "12 books are on the shelf"
    return _SAID_OF_A_QUANTITY.fullmatch(predicate) is not None and _states_quantity(subject)


def _states_quantity(masked: str) -> bool:
    return (
        "\x00" in masked
        or _STATES_A_VALUE.search(masked) is not None
        or _QUANTITY_WORD.search(masked) is not None
    )


def flatten_display(text: str) -> str:
    """``text`` with line breaks inside display math blocks turned into spaces (same length),
    so a display block is part of the sentence that introduces it."""
    if "\\[" not in text and "$$" not in text:
        return text
    return _DISPLAY_BLOCK.sub(lambda m: m.group(0).replace("\n", " "), text)
