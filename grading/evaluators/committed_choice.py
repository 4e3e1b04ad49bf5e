"""answer_check for letter and yes/no golds: the option or word the output commits to.

The committed letter is the first of the final statement (later letters are options ruled
out); a bare value names the one option that has it. A yes/no comes from the statements the
output makes plainly, and is in doubt when hedged, changed, or denied by its own explanation.
"""

from __future__ import annotations

import re

from grading import options, recompute
from grading.answers import read_answer
from grading.candidates import (
    Candidate,
    Candidates,
    hedge_words,
    hedges,
    last_self_correction,
    may_contain,
    sentence_of,
    text_end,
)
from grading.candidates.sentences import what_is_asked
from grading.equivalence.check import compare_values
from grading.equivalence.rewrite import number_words
from grading.evaluators import choice
from grading.evaluators.extraction import last_match
from grading.types import AnswerType, Evaluation, Sample, Status, Verdict
from grading.units import other_unit_than_asked

_YES_NO_WORD = re.compile(
    r"\b(yes|no|true|false|oui|non|sí|ja|nein|correct|incorrect|да|нет|sim|não|verdadero|falso"
    r"|vrai|faux|wahr|falsch)\b(?!\s+(?:or|and)\s+\w)",
    re.IGNORECASE,
)


_POLARITY = {word: True for word in "yes true oui sí ja correct да sim verdadero vrai wahr".split()}
# A reply that opens on a yes or a no of a language written without spaces ("是。91 不能被
# 2 整除", "いいえ、…"), where the word has no boundary to find it by.
_OPENING_YES_NO = re.compile(
    r"^[\s*#>\"'(「]*(是的|是|不是|否|对|不对|はい|いいえ|네|아니요|아니오)(?=[\s,.。，、!！:：*」]|$)"
)
_OPENING_POLARITY = {"是的": True, "是": True, "对": True, "はい": True, "네": True}
# "答案：是", "回答：いいえ": the answer marked in such a language.
_MARKED_CJK_YES_NO = re.compile(
    r"(?:答案|回答|答)\s*[:：]?\s*[*「\"]*(是的|不是|是|否|不对|对|はい|いいえ)(?=[\s,.。，、!！*」\"]|$)"
)
# A reply that opens on the word alone: "Faux. Contre-exemple : …", "Nein, denn …", or on a
# qualified one ("Mathematically, yes: …").
_OPENING_WORD = re.compile(
    r"^[\s*#>\"'(]*(?:[A-Za-z]+ly,\s+)?"
    r"(yes|no|true|false|oui|non|vrai|faux|ja|nein|wahr|falsch|sí|verdadero|falso"
    r"|sim|não|да|нет)[\s*]*[.,!:;—–-]",
    re.IGNORECASE,
)


_STATEMENT_JUDGED = re.compile(
    r"\b(?:this|the|that)\s+(?:statement|claim|assertion)\s+is\s+(not\s+)?"
    r"(true|false|correct|incorrect|wrong|right|valid|invalid)\b",
    re.IGNORECASE,
)
_TRUE_WORDS = frozenset({"true", "correct", "right", "valid"})
_NEGATED_QUESTION = re.compile(r"\bis it (?:false|not true|untrue) that\b", re.IGNORECASE)
_TRUTH_WORD = re.compile(r"^\W*(?:true|false)\W*$", re.IGNORECASE | re.MULTILINE)
# Three-letter words that are no predicate ("odd" and "sum" are).
_SHORT_WORDS = frozenset(
    "the and for all any one two are not has was its yes can get set own per use way".split()
)
# Words of a yes/no question that are not its subject or predicate.
_QUESTION_WORDS = frozenset(
    "answer true false this that these those with from have does than then there their what"
    " which when where statement correct always never more less most least".split()
)


_IS_PRIME = re.compile(r"\bis\s+(\d{2,9})\s+(?:a\s+)?prime\b", re.IGNORECASE)
_PRODUCT = re.compile(r"(\d{1,9})\s*(?:×|\\times|\*|·|\\cdot|x)\s*(\d{1,9})(?!\d|\.\d)")
_QUOTIENT = re.compile(r"(\d{1,9})\s*(?:÷|/|\\div)\s*(\d{1,9})\s*=\s*(\d{1,9})(?!\d|\.\d)")
# Both answers, or either on a condition: "yes or no", "it depends", "sí o no, según …".
_BOTH_WAYS = (
    r"yes or no|no or yes|it depends|depends on|sí o no|oui ou non|ja oder nein|sim ou não"
    r"|да или нет|depende|según|selon|je nach"
)
_YES_NO_HEDGE = re.compile(
    r"\b(?:mostly|partly|partially|somewhat|sometimes|generally|usually|often|in some cases"
    rf"|depending on|yes and no|true or false|{_BOTH_WAYS}"
    r"|both|neither|not (?:always|necessarily|entirely)"
    r"|more or less|kind of|sort of|technically|strictly speaking|loosely speaking"
    r"|(?:almost|nearly) (?:all|always|every)|fast (?:alle|immer)|presque (?:tous|toujours)"
    r"|casi (?:todos|siempre)|quase (?:todos|sempre)|почти (?:все|всегда)"
    r"|for (?:all )?practical purposes|in (?:a|one|some|certain)\s+(?:[a-z]+\s+)?sense"
    r"|hängt (?:davon )?ab|teilweise|(?:ça|cela) dépend|dépend de|en partie"
    r"|parcialmente|en parte|зависит|частично)\b",
    re.IGNORECASE,
)
_BOTH_ANSWERS = re.compile(rf"\b(?:{_BOTH_WAYS})\b", re.IGNORECASE)
# A yes or no qualified where it is said: "so essentially yes", "basically true".
_QUALIFIED_ANSWER = re.compile(
    r"\b(?:essentially|basically|practically|virtually|mostly|largely|roughly|more or less"
    r"|kind of|sort of|probably|arguably)\s*,?\s*(?:yes|no|true|false)\b",
    re.IGNORECASE,
)
# "in one sense yes, and in another sense no": both answers in the closing sentence ("no" as
# an answer, not "no real solution")
_YES_AND_NO = re.compile(
    r"\byes\b(?=.*\bno\b(?!\s*[a-z]))|\bno\b(?!\s*[a-z])(?=.*\byes\b)", re.IGNORECASE
)
# "true when x is nonnegative": an answer that holds only under a condition.
_CONDITIONAL = re.compile(
    r"\b(?:true|false|yes|no),?\s+(?:only\s+)?(?:when|if|provided|as long as|unless|except"
    r"|but not (?:at|for|when|if)|apart from|other than"
    r"|under (?:certain|some|good|ideal|special|the right)|for (?!all\b|every\b|any\b|each\b))",
    re.IGNORECASE,
)


DECLINES = re.compile(
    r"\b(?:not (?:confident|sure|certain)|cannot (?:determine|decide|tell|be sure)"
    r"|can't (?:determine|decide|tell)|none of the (?:(?:listed|given|answer) )?(?:options|choices"
    r"|answers)|i don't know"
    r"|unable to (?:determine|decide)|(?:has|have) no (?:valid|well-defined) answer"
    # "I can't give a definitive cost", "there is not enough information to say"
    r"|(?:cannot|can't|unable to) (?:give|provide|state|compute) (?:a|an|one) (?:definitive|definite"
    r"|single|unique)|(?:not enough|insufficient) information"
    r"|(?:cannot|can't|could not|couldn't) (?:possibly )?exist|(?:is|are) ill-posed"
    # agents that end without an answer: "No consensus was reached", "Could you clarify …?"
    r"|no consensus|(?:could|can) you (?:please )?clarify|please clarify)\b",
    re.IGNORECASE,
)
# Lower-case words one of which every match of DECLINES contains.
_DECLINE_HINTS = (
    "confident", "sure", "certain", "determine", "decide", "tell", "none of the", "know",
    "answer", "exist", "ill-posed", "consensus", "clarify", "definit", "single", "unique",
    "information",
)  # fmt: skip


def declines(text: str) -> bool:
    """``text`` says the question cannot be answered ("cannot determine", "none of the options",
    "such a triangle cannot exist")."""
    return may_contain(text, _DECLINE_HINTS) and DECLINES.search(text) is not None


def grade_choice(
    sample: Sample,
    kind: AnswerType,
    candidates: Candidates,
    evaluations: tuple[Evaluation, ...],
) -> dict:
    gold_choice = choice.gold_choice(sample.gold)
    if gold_choice is None:
        return {"status": Status.NO_ANSWER, "detail": "not a choice question"}
    expected = gold_choice[1]
    if kind is AnswerType.YES_NO:
        answer, signals = _committed_yes_no(sample, candidates)
    else:
        answer, signals = _committed_letter(sample, candidates)
    if answer is None:
        return {"status": Status.NO_ANSWER, "gold_latex": expected, "signals": tuple(signals)}
    if (
        kind is AnswerType.LETTER
        and answer != expected
        and _same_value(sample.problem, answer, expected)
    ):
        signals.append("many_answers")  # "(A) 1/2 (B) 0.5": the other letter is as right
    if answer != expected and recompute.contradicts(sample.gold, sample.problem):
        signals.append("gold_suspect")  # "Is 1 a prime number?" stored as Yes
    return {
        "misread": _choice_misreads(answer, kind, candidates, evaluations),
        "status": Status.OK,
        "verdict": Verdict.CORRECT
        if answer == expected and "hedged" not in signals
        else Verdict.INCORRECT,
        "extracted": answer,
        "extracted_latex": answer,
        "gold_latex": expected,
        "signals": tuple(dict.fromkeys(signals)),
    }


_DECIMAL_COMMA = re.compile(r"\d,\d")


def _same_value(problem: str, letter: str, other: str) -> bool:
    """Two options of the problem have the same value (a flawed question)."""
    listed = options.problem_options(problem)
    if (
        letter not in listed
        or other not in listed
        or _DECIMAL_COMMA.search(" ".join(listed.values()))
    ):
        return False  # "(A) 0,6 (B) 6": a comma that may be a decimal point
    value, other_value = (read_answer(listed[key]).expression for key in (letter, other))
    return bool(value and other_value) and compare_values(value, other_value).equal


def _choice_misreads(
    answer: str,
    kind: AnswerType,
    candidates: Candidates,
    evaluations: tuple[Evaluation, ...],
) -> tuple[str, ...]:
    """The choice evaluator, when it took a letter or word the output never commits to (the
    "(A)" a discussion of each option opens with) while the output commits plainly."""
    if candidates.final is None or candidates.final.weight < 2:
        return ()
    stated = set()
    for candidate in candidates.weighty():
        if kind is AnswerType.LETTER:
            stated.update(options.named_letters(candidate.text)[:1])
        else:
            stated.update(
                "yes" if _stated_polarity(candidate.text, m) else "no"
                for m in _YES_NO_WORD.finditer(candidate.text[:80])
            )
    return tuple(
        e.evaluator
        for e in evaluations
        if e.evaluator == "choice"
        and e.extracted
        and e.extracted != answer
        and e.extracted not in stated
    )


_LABELLED_OPTION = re.compile(r"\(([A-E])\)\s*[^\s()]")
_RULES_OUT = re.compile(r"\bnot\b|\brather than\b|\binstead of\b|\bexcluded?\b", re.IGNORECASE)
_A_LIST = 3  # labelled options in one statement that make it a list of them
# "Answer: C, D", "(B) & (D)": two letters given as the answer of a single-answer question
_BOTH_OPTIONS = re.compile(
    r"\bboth\s+(?:(?:options?|choices?|answers?)\s+\(?[A-E]\)?|\([A-E]\))\s+and\s+\(?[A-E]\)?(?![\w(])"
    r"|\([A-E]\)\s+and\s+\([A-E]\)\s+(?:are|were)\s+both\b"
)
_MANY_ASKED = re.compile(r"\ball that apply\b|\bselect all\b|\bwhich (?:two|three)\b", re.I)
_LETTERS_GIVEN = re.compile(
    r"[\s*(]*[A-E][\s.)*]*(?:(?:,|&|/|\band\b)[\s*(]*[A-E][\s.)*]*)+", re.IGNORECASE
)


def _committed_letter(sample: Sample, candidates: Candidates) -> tuple[str | None, list[str]]:
    listed = options.problem_options(sample.problem)
    signals = []
    weighty = [c for c in candidates.standing if c.weight >= 2]
    final = candidates.final
    letter = None
    if final is not None:
        letters = options.named_letters(final.text) if listed or final.weight >= 2 else []
        lone = _LONE_LETTER.fullmatch(final.text)
        if not letters and lone and lone.group(1).upper() in listed:
            letters = [lone.group(1).upper()]  # "The answer is b." where (B) is an option
        if options.offers_several(final.text):  # "(A) or (C)", "B: 12 or D: 24"
            signals.append("hedged")
        elif (
            _LETTERS_GIVEN.fullmatch(final.text)
            and not _LETTERS_GIVEN.fullmatch(sample.gold)
            and not _MANY_ASKED.search(sample.problem)
        ):
            signals.append("multiple_answers")
        if len(_LABELLED_OPTION.findall(final.text)) >= _A_LIST and not _RULES_OUT.search(
            final.text
        ):
            # "The options are (A) 6 (B) 36 (C) 72": the list itself, no choice from it
            signals.append("options_listed")
        if letters:
            # The letter it opens with; later ones are options it rules out ("D, not A").
            letter = letters[0]
            value = _FULL_WIDTH_BRACKETS.sub(r"\1", options.strip_letter(final.text))
            end = text_end(sample.output, final)
            after = sample.output[end:] if end is not None else ""
            working = _working_before(sample.output, final)
            named = (
                _option_with_value(listed, value)
                or _option_with_value(listed, _last_result(working))
                # "Answer: (B)" and then the working, which ends on (D)'s value
                or _option_with_value(listed, _last_result(after[-_RESULT_REACH:]))
                # "So the range is $[4, \infty)$, which is option A."
                or _option_with_value(listed, _value_named_before(working))
                # "… = ln x + 1." then "This matches choice (D).": the value of the sentence before
                or _option_with_value(listed, _value_before_naming(working))
                # "The answer is (C): the diagonals are perpendicular.", (D)'s text
                or _option_said(listed, value)
                # "Answer: A. No", where "No" is (B)
                or _option_said(listed, _rest_of_line(after))
                # "So $x = 5$ or $x = -3$." before "(A)", where (B) is "$-3$ and $5$"
                or _option_with_these_values(listed, working)
                # "Divide by 3: $x = 3$. … So the answer is **(C)**." for "what is x?", (B) 3
                or _option_with_value(listed, _asked_value_found(working, sample.problem))
                # "So exactly one prime works, namely $p = 3$." for "How many primes …?", (B) 1
                or _option_with_value(listed, _count_found(working, sample.problem))
                # "This is a parabola opening to the right." before "\boxed{(D)}", (C) Parabola
                or _option_word_named(listed, working)
                # "$2^{10} \equiv 1 \pmod{11}$" in the working, where (B) is 1
                or _option_with_value(listed, _residue_found(working, sample.problem))
                # "\boxed{A}" and then "In other words, … in 1.5 hours.", (D)'s value
                or _option_with_value(listed, _restated_value(after[:_RESULT_REACH]))
            )
            if (named and named != letter) or _other_than_its_option(listed, letter, final.text):
                signals.append("letter_value_mismatch")
        elif listed:
            sentence = sentence_of(sample.output, final)
            letter = (
                _option_with_value(listed, final.text)
                # "The two quantities are equal." is option C's own sentence
                or _option_said(listed, sentence)
                # "16 > −16, so Quantity A is greater.": its last clause
                or _option_said(listed, _CLAUSE_LEAD.split(sentence)[-1])
            )
            if letter and _LETTER_ONLY.search(sample.problem):
                signals.append("form_requested")  # the option's value, where its letter is asked
            if letter and other_unit_than_asked(sample.problem, final.text):
                signals.append("unit_mismatch")  # "1.5 m" is (A) 1.5, where centimetres are asked
            if letter and _written_in_another_option(listed, letter, final.text):
                # "0.375" is (A) 37.5% by value but is written in (D) 0.375%
                signals.append("letter_value_mismatch")
    earlier = {
        named
        for c in weighty
        if c is not final
        for named in options.named_letters(c.text)[:1]
        if listed or c.weight >= 3
    }
    if final is not None:
        # "… = 4, which is choice (B)." and then \boxed{C}
        working = sample.output[max(0, final.start - _RESULT_REACH) : final.start]
        earlier.update(m.group(1).upper() for m in _OPTION_NAMED.finditer(working))
        # "**Answer: (B)**" and then "**Summary:** … is 9, option D."
        end = text_end(sample.output, final)
        for line in _CONCLUDING_LINE.finditer(sample.output[end:] if end is not None else ""):
            if not _DENIED.search(line.group(0)):
                earlier.add(line.group(1).upper())
    if letter and earlier - {letter}:
        signals.append("multiple_answers")
    elif (
        letter
        and final is not None
        and not _MANY_ASKED.search(sample.problem)
        and _BOTH_OPTIONS.search(sample.output[max(0, final.start - _RESULT_REACH) : final.start])
    ):
        # "So both (A) and (B) are solutions. I'll choose (B).": two options hold, one is taken
        signals.append("multiple_answers")
    doubt = _doubt_after(sample.output, final) if letter and final is not None else None
    if doubt is not None and doubt.group(2).upper() != letter:
        # "Answer: C … maybe B?", "The answer is B. … That points to (A)."
        signals.append("hedged" if doubt.group(1).lower() in _GUESSES else "multiple_answers")
    if letter and final is not None and hedge_words(final.text):
        signals.append("hedged")  # "Answer: B, though D could also work."
    if letter is None:
        letter, _ = choice.committed_answer("letter", sample.output)
        if letter is not None and _TWO_LETTERS_OFFERED.search(sample.output[-_RESULT_REACH:]):
            signals.append("hedged")  # "the answer is either B or D, depending on …"
    if declines(sample.output[-300:]):
        signals.append("declined")
    return letter, signals


_LETTER_ONLY = re.compile(
    r"\b(?:letter|choice) (?:of the (?:correct )?(?:option|answer|choice) )?only\b"
    r"|\bonly (?:the|its|a single) letter\b|\bjust the letter\b",
    re.IGNORECASE,
)
# After the committed letter, another one raised as a guess or as what a check points to.
_LATER_LETTER = re.compile(
    r"\b(maybe|perhaps|possibly|points? to|suggests?|indicates?|(?:could|might|may) also be)\s+"
    r"(?:option\s+|choice\s+)?"
    r"\(?([A-E])\)?(?!\w)",
    re.IGNORECASE,
)
_GUESSES = frozenset(
    {"maybe", "perhaps", "possibly", "could also be", "might also be", "may also be"}
)


def _doubt_after(output: str, final: Candidate) -> re.Match | None:
    end = text_end(output, final)
    return _LATER_LETTER.search(output, end, end + _RESULT_REACH) if end is not None else None


# How far before the committed letter the result it should name is looked for.
_RESULT_REACH = 300
# "b", "(C)", "\\text{A}" (a boxed letter in text mode)
_LONE_LETTER = re.compile(
    r"[\s*(]*(?:\\(?:text|textbf|mathrm|mathbf)\s*\{[\s(]*)?([a-e])[\s.)}*]*", re.IGNORECASE
)
# What opens the sentence of the answer itself ("So the answer is (C)"), not working.
_CONNECTIVE = re.compile(r"\W*(?:so|thus|therefore|hence|then|and)?\W*", re.IGNORECASE)
_TRUE_FALSE_INITIAL = re.compile(r"[\s*(]*([TF])[\s.)*]*")
_BARE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# The number a sentence ends on, maybe with its unit ("… = 15 days.").
_RESULT = re.compile(
    r"(?:=|\b(?:is|equals|measures|has(?:\s+(?:a\s+)?(?:length|value|area|volume)(?:\s+of)?)?))\s*\$?\s*"
    r"(-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?|-?\\[dt]?frac\{\d+\}\{\d+\})\s*\$?(?:\s+[A-Za-z][A-Za-z-]*){0,2}"
    r"\s*[.!，。]?\s*\$?\s*$"  # "… = \frac{1}{2}$，" before "故选 D"
)
# A sentence that only leads in to the letter ("The answer is", "So the correct option is").
_LEAD_IN = re.compile(
    r"\W*(?:so|thus|therefore|hence)?\W*(?:the\s+)?(?:final\s+|correct\s+)?"
    r"(?:answer|choice|option)(?:\s+is)?\W*",
    re.IGNORECASE,
)
# The working naming an option as its result ("7 - 3 = 4, which is choice (B).").
_OPTION_NAMED = re.compile(
    r"\b(?:which is|that is|this is|corresponds to|matches|giving)\s+(?:the\s+)?"
    r"(?:choice|option|answer)\s*\(?([A-E])\)?(?![A-Za-z])",
    re.IGNORECASE,
)
# A line after the answer that concludes on an option ("**Summary:** … is 9, option D.").
_CONCLUDING_LINE = re.compile(
    r"^\W*(?:summary|in summary|to summari[sz]e|conclusion|in conclusion|so|thus|therefore|hence)"
    r"\b[^\n]*?\b(?:option|choice|answer)\s*\(?([A-E])\)?(?![A-Za-z])[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
_TWO_LETTERS_OFFERED = re.compile(
    r"\b(?:either|entweder|soit|o bien)\s+\(?[A-E]\)?\s*(?:or|oder|ou|o)\s+\(?[A-E]\)?(?![A-Za-z])"
    r"|\b[A-E]\)?\s+or\s+(?:maybe|perhaps|possibly)\s+\(?[A-E]\b"  # "it's B or maybe A"
)
# A sentence after the letter that says its value again ("In other words, … in 1.5 hours.").
_RESTATED = re.compile(
    r"(?:^|[.!?]\s+|\n)\W*(?:in other words|that is|i\.e\.)\b[^.!?\n]*?(-?\d+(?:\.\d+)?)"
    r"(?:\s+[A-Za-z][A-Za-z-]*){0,2}\s*[.!]?\s*$",
    re.IGNORECASE,
)
_CONCLUDING_CLAUSE = re.compile(
    r",?\s*\b(?:so|thus|therefore|hence|which means)\b[^.!?]*$", re.IGNORECASE
)
# A sentence that denies the value it ends on ("it is not (3 + 4)^2 = 49"); "no heads" is a
# noun phrase, not a denial.
_DENIED = re.compile(r"\b(?:not|never|cannot)\b|n't\b", re.IGNORECASE)
_OPTION_MENTION = re.compile(r"\(?\b[A-E]\)|\b[A-E]\s*[:.]\s|\boptions?\b", re.IGNORECASE)


_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n")  # between sentences, or lines


# The opening of the box or emphasis the final letter sits in ("… = 3/2.\n\n$\boxed{\text{").
_OPENING = re.compile(r"(?:\s|\$|\*\*|\\boxed\s*\{|\\(?:text|textbf|mathrm)\s*\{|\\\(|\\\[)*$")


def _working_before(output: str, final: Candidate) -> str:
    """The working the final answer follows, without the box or emphasis it opens."""
    working = output[max(0, final.start - _RESULT_REACH) : final.start]
    return working[: _OPENING.search(working).start()]


def _last_result(working: str) -> str:
    """The number the working's last sentence ends on ("… so 24 / 2 = 12." just before "The
    answer is (D)"); none when the working goes through the options, or the sentence denies
    it ("Note it is not (3 + 4)^2 = 49")."""
    if _OPTION_MENTION.search(working):
        return ""
    sentences = [
        s
        for s in _SENTENCE_BREAK.split(working)
        if not (_CONNECTIVE.fullmatch(s) or _LEAD_IN.fullmatch(s))
    ]
    if not sentences or _DENIED.search(sentences[-1]):
        return ""
    # "The LCM is 18, so the answer is" before "(B)": the result is the clause before "so"
    result = _RESULT.search(sentences[-1]) or _RESULT.search(
        _CONCLUDING_CLAUSE.sub("", sentences[-1])
    )
    return result.group(1) if result else ""


# What leads from a value to the option it names ("…, which is option A").
_NAMING_TAIL = re.compile(
    r"[,\s]*\b(?:which|that|this)\s+(?:is|corresponds\s+to|matches)\b\s*(?:the\s+)?"
    r"(?:(?:choice|option|answer)\b)?\W*$"
    # "$\sqrt{2}$ corresponds to option **(B)**.": the value names its letter itself
    r"|\s(?:corresponds\s+to|matches)\s+(?:the\s+)?(?:choice|option)\b(?:\s*[*(]*[A-E][)*]*)?\W*$",
    re.IGNORECASE,
)


_NUMBER = re.compile(r"(?<![\w^_{.])-?\d+(?:\.\d+)?(?![\w.])")
# "x = 5", "$x = -3$": a value given to an unknown
_ASSIGNED = re.compile(r"(?<![\w\\])[a-z]\s*=\s*(-?\d+(?:\.\d+)?)(?![\w.])")


def _asked_value_found(working: str, problem: str) -> str:
    """The number the working last gives the unknown the question asks for ("$x = 3$" where
    it asks "what is the value of $x$?")."""
    unknown = what_is_asked(problem).variable
    if len(unknown) != 1:
        return ""
    found = last_match(
        re.compile(rf"(?<![\w\\]){unknown}\s*=\s*(-?\d+(?:\.\d+)?)(?![\w.]|\s*[-+*/^])"), working
    )
    return found.group(1) if found else ""


def _count_found(working: str, problem: str) -> str:
    """The count the working's last sentence says exactly ("So exactly one prime works"),
    where the question asks how many."""
    if not _HOW_MANY.search(problem):
        return ""
    found = _EXACT_COUNT.search(number_words(_last_line(working)))
    return found.group(1) if found else ""


def _last_line(working: str) -> str:
    """The working's last sentence or line that says anything."""
    lines = [s for s in _SENTENCE_BREAK.split(working.strip()) if s.strip()]
    return lines[-1] if lines else ""


_HOW_MANY = re.compile(r"\bhow\s+many\b", re.IGNORECASE)
_EXACT_COUNT = re.compile(r"\b(?:exactly|precisely|only)\s+(\d+)\b(?!\s*[%/.,]\d)", re.IGNORECASE)


def _option_with_these_values(listed: dict[str, str], working: str) -> str | None:
    """The one option of several numbers ("$-3$ and $5$") whose numbers are exactly the values
    the working's last sentence gives its unknown ("So $x = 5$ or $x = -3$.")."""
    found = set(_ASSIGNED.findall(_last_line(working).replace("−", "-")))
    if len(found) < 2:
        return None
    matching = [
        letter
        for letter, text in listed.items()
        if len(numbers := _NUMBER.findall(text.replace("−", "-"))) >= 2 and set(numbers) == found
    ]
    return matching[0] if len(matching) == 1 else None


# "2^{10} \equiv 1 \pmod{11}", "\equiv 1 \cdot 2 = 2 \pmod 7": the residue a congruence ends
# on, and its modulus
_RESIDUE = re.compile(r"(?:\\equiv|=)\s*(-?\d+)\s*(?:\\pmod|\\mod|\(\s*\\?mod\b)\s*\{?\s*(\d+)")


def _residue_found(working: str, problem: str) -> str:
    """The residue the working's last congruence arrives at, modulo a number the question
    names (not "2025 ≡ 1 (mod 4)" on the way to a units digit)."""
    found = last_match(_RESIDUE, working)
    named = found is not None and re.search(rf"(?<!\d){found.group(2)}(?!\d)", problem)
    return found.group(1) if named else ""


def _restated_value(after: str) -> str:
    """The number a sentence after the answer says it again with ("In other words, they finish
    the room in 1.5 hours."); none without such a sentence."""
    restated = _RESTATED.search(after.strip())
    return restated.group(1) if restated else ""


def _value_named_before(text: str) -> str:
    """The value a sentence states just before it names its option ("So the range is
    $[4, \\infty)$, which is" before "option A"); none when the sentence names no value."""
    sentence = _SENTENCE_BREAK.split(text)[-1]
    naming = _NAMING_TAIL.search(sentence)
    return read_answer(sentence[: naming.start()]).expression if naming else ""


# A sentence that only names the option the sentence before arrived at.
_NAMING_SENTENCE = re.compile(
    r"^\W*(?:(?:looking\s+at|comparing\s+with|among)\s+the\s+(?:options|choices)\s*,\s*)?"
    r"(?:this|that|which|it)\s+(?:is|matches|corresponds\s+to|agrees\s+with)\s+(?:the\s+)?"
    r"(?:choice|option|answer)?\s*(?:[*(]*[A-E][)*]*)?\W*$",
    re.IGNORECASE,
)
_LAST_SIDE = re.compile(r"(?:=|\bis\b)([^=]*)$")
_NAMING_LOOKBACK = 3  # sentences


def _value_before_naming(text: str) -> str:
    """The value the sentence before a naming sentence ends on ("… = ln x + 1." before "This
    matches choice (D)."); none where no such pair closes the text."""
    sentences = [s for s in _SENTENCE_BREAK.split(text) if s.strip()]
    for index in range(len(sentences) - 1, max(0, len(sentences) - _NAMING_LOOKBACK), -1):
        if _NAMING_SENTENCE.match(sentences[index]):
            side = _LAST_SIDE.search(sentences[index - 1])
            return read_answer(side.group(1).strip(" .$")).expression if side else ""
    return ""


def _other_than_its_option(listed: dict[str, str], letter: str, answer: str) -> bool:
    """The value written beside the letter is mathematics and not the letter's own option
    ("\\textbf{(B)}\\ x^2 - 2x + 2" where (B) is $x^2 + 2x + 2$), even if no option has it."""
    own = listed.get(letter)
    value = _DELIMITERS.sub("", options.strip_letter(answer.replace("**", "").replace("~", " ")))
    if (
        not own
        or _DIGITS_APART.search(value)  # "3,456 18": thousands, or two numbers
        or value.count("{") != value.count("}")  # a label's braces taken for a wrapper's
        or not _FORMULA.fullmatch(value)
        or not _WRITTEN_IN_MATHS.fullmatch(value)
        or options.named_letters(value)
    ):
        return False  # no value beside the letter, or words ("故选 D", "la (B)")
    stated = read_answer(value).expression
    return bool(stated) and not _has_value(own, stated)


# Mathematics without words: LaTeX commands, digits, operators and one- or two-letter names.
_FORMULA = re.compile(r"(?:\\[A-Za-z]+|[^A-Za-z\n]|(?<![A-Za-z])[A-Za-z]{1,2}(?![A-Za-z]))+")
_DELIMITERS = re.compile(r"^[\s$]*(?:\\\()?|(?:\\\))?[\s$.]*$")
_DIGITS_APART = re.compile(r"\d[\s,]+\d")
_WRITTEN_IN_MATHS = re.compile(r"[\x20-\x7eπ√°±×÷−≤≥≠∞]*[\d\\a-z][\x20-\x7eπ√°±×÷−≤≥≠∞]*")


def _written_in_another_option(listed: dict[str, str], letter: str, value: str) -> bool:
    """The stated number is written, as it is, in an option other than the one it equals."""
    number = _BARE_NUMBER.fullmatch(read_answer(value).expression.strip())
    if number is None:
        return False
    written = re.compile(rf"(?<![\d.]){re.escape(number.group(0))}(?![\d]|\.\d)")
    return any(written.search(text) for other, text in listed.items() if other != letter)


_FULL_WIDTH_BRACKETS = re.compile(r"^\s*（(.*)）\s*$")  # "B（24 种）"
_CLAUSE_LEAD = re.compile(r"[,;:]\s*(?:(?:so|thus|hence|therefore)\b,?\s*)?", re.IGNORECASE)


def _rest_of_line(after: str) -> str:
    """What follows a letter on its line, without the label's own punctuation."""
    return after.split("\n", 1)[0].lstrip(" \t.:)]*").rstrip(" \t*")


def _option_said(listed: dict[str, str], sentence: str) -> str | None:
    """The one option whose text is the sentence itself, words and all."""
    said = _normal(sentence).rstrip(".!")
    matching = [letter for letter, text in listed.items() if _normal(text).rstrip(".!") == said]
    return matching[0] if len(matching) == 1 else None


def _option_word_named(listed: dict[str, str], working: str) -> str | None:
    """The one option, of options that are each one word (Line, Circle, Parabola), that the
    working says the answer is ("This is a parabola")."""
    words = {text.strip(" $.").lower(): letter for letter, text in listed.items()}
    if len(words) < 2 or not all(word.isalpha() for word in words):
        return None
    named = {
        words[match.group(1).lower()]
        for match in _IS_A_WORD.finditer(working)
        if match.group(1).lower() in words
    }
    return named.pop() if len(named) == 1 else None


_IS_A_WORD = re.compile(r"\b(?:this|it|which)\s+is\s+(?:a|an)\s+([A-Za-z]+)\b", re.IGNORECASE)


def _option_with_value(listed: dict[str, str], value: str) -> str | None:
    """The one option whose text has the value of ``value`` ("12" names "B) 12")."""
    stated = read_answer(value).expression
    if not stated or not listed:
        return None
    matching = [letter for letter, text in listed.items() if _has_value(text, stated)]
    return matching[0] if len(matching) == 1 else None


def _has_value(option: str, stated: str) -> bool:
    """The option's text is the stated value, as written or by value."""
    return (
        _normal(option) == _normal(stated)
        or compare_values(read_answer(option).expression, stated).equal
    )


def _committed_yes_no(sample: Sample, candidates: Candidates) -> tuple[str | None, list[str]]:
    signals = []
    polarities = []
    # the reply after a reasoning block: "<think> … True. </think> **False.** …" says False
    reply = _reply(sample.output)
    for candidate in candidates.standing:
        words = {
            _stated_polarity(candidate.text, m) for m in _YES_NO_WORD.finditer(candidate.text[:80])
        }
        initial = _TRUE_FALSE_INITIAL.fullmatch(candidate.text)
        if initial:  # "Answer: F" on a true-or-false question
            words = {initial.group(1).upper() == "T"}
        if len(words) == 1 and candidate.weight >= 2:
            polarities.append((candidate, words.pop()))
        elif len(words) > 1 and candidate is candidates.final:
            signals.append("hedged")
    if polarities:
        answer = polarities[-1][1]
        # "True. A negative times a negative is positive … So the statement is false.", not
        # "True. … Actually, I need to correct myself: … False."
        opening = last_self_correction(sample.output) < 0 and _OPENING_WORD.match(sample.output)
        opened = {_POLARITY.get(opening.group(1).lower(), False)} if opening else set()
        if len({p for _, p in polarities} | opened) > 1:
            signals.append("multiple_answers")
        end = text_end(sample.output, polarities[-1][0])
        if end is not None and _taken_back(sample.output, end):
            signals.append("contradicts_itself")
    elif marked := _MARKED_CJK_YES_NO.findall(sample.output[-300:]):
        answer = _OPENING_POLARITY.get(marked[-1], False)
    elif (opening_word := _OPENING_YES_NO.match(reply)) is not None:
        answer = _OPENING_POLARITY.get(opening_word.group(1), False)
    elif (word := _OPENING_WORD.match(reply)) is not None:
        answer = _POLARITY.get(word.group(1).lower(), False)
        if _taken_back(reply, word.end()):
            signals.append("contradicts_itself")
    elif (judged := _STATEMENT_JUDGED.search(reply)) is not None:
        # "This statement is incorrect. In diamond …": the claim judged, in so many words
        answer = (judged.group(2).lower() in _TRUE_WORDS) != bool(judged.group(1))
    else:
        committed, _ = choice.committed_answer("yes_no", reply, sample.problem)
        answer = None if committed is None else committed == "yes"
    # Hedges in the answer itself ("Mostly true."), in its first or last statement; the
    # explanation may well say "generally" without hedging the answer.
    opening = re.split(r"(?<=[.!?])\s|\n", sample.output[:400].lstrip(), maxsplit=1)[0][:80]
    stated = [c.text for c in candidates.weighty()] + [opening]
    if candidates.final is not None:
        stated.append(candidates.final.text[:80])
    final = candidates.final
    closing = sentence_of(sample.output, final) if final is not None else ""
    if (
        any(_YES_NO_HEDGE.search(text) for text in stated)
        or hedge_words(opening)
        or _CONDITIONAL.search(opening)
        or any(hedges(sample.output, c) for c in candidates.weighty())
        or _CONDITIONAL.search(closing)
        or _YES_AND_NO.search(closing)
        or _QUALIFIED_ANSWER.search(closing)
        # no stated answer found: both answers offered on the reply's last line ("Respuesta:
        # sí o no, según la definición")
        or (final is None and _BOTH_ANSWERS.search(reply.strip().rpartition("\n")[2]))
    ):
        signals.append("hedged")
    if _NEGATED_QUESTION.search(sample.problem[-300:]) and _TRUTH_WORD.search(
        (candidates.final.text if candidates.final else "") + "\n" + reply[-200:]
    ):
        # "Is it false that 1 is prime?" answered "True": true that it is false, or the claim?
        signals.append("two_readings")
    if answer is not None and _contradicts_question(sample, answer):
        signals.append("contradicts_itself")
    if answer is None:
        return None, signals
    return ("yes" if answer else "no"), signals


def _taken_back(output: str, verdict_end: int) -> bool:
    """A yes or no, ending at ``verdict_end``, that a later sentence opens by taking back
    ("**False.** … Actually, every horizontal line meets the graph once …"), with no verdict
    after that."""
    after = _reply(output[verdict_end:])
    taken_back = last_match(_TAKES_BACK, after)
    return taken_back is not None and not _YES_NO_WORD.search(after[taken_back.end() :])


def _reply(output: str) -> str:
    """What follows the output's reasoning block, if it closes one; else all of it."""
    think_end = output.rfind("</think>")
    return output[think_end + len("</think>") :] if think_end >= 0 else output


def _contradicts_question(sample: Sample, answer: bool) -> bool:
    """A "yes" whose explanation denies the question's own term ("Is glass crystalline?" …
    "Yes. … so it is not crystalline", "Is √2 rational?" … "Yes. … so it is irrational"), or
    calls a number prime while factoring it."""
    implied = _comparison_implied(sample)
    if implied is not None and implied != answer:
        return True
    if not answer:
        return _affirms_question(sample)
    if (
        _factors_the_prime(sample)
        or _reverses_the_comparison(sample)
        or _limits_a_universal_claim(sample)
    ):
        return True
    terms = {
        word.lower()
        for word in re.findall(r"[A-Za-z][A-Za-z-]{3,}", sample.problem[-300:])
        if not word.lower().startswith(("non", "un", "in")) and word.lower() not in _QUESTION_WORDS
    }
    for term in terms:
        # "does not converge" denies "converges"
        stem = re.escape(term[:-1] if term.endswith("s") else term)
        denied = (
            rf"(?:\b(?:not|never|cannot|kein\w*|nicht|pas|jamais|nunca|não)|n't)"
            rf"\s+(?:\w+\s+){{0,3}}{stem}"
        )
        opposite = rf"\b(?:ir|un|in|im|il|dis|non-?){re.escape(term)}\b"  # "irrational"
        if re.search(f"{denied}|{opposite}", sample.output[-600:], re.I):
            return True
    return False


# A claim about every case, and an explanation that finds one where it fails.
_UNIVERSAL = re.compile(
    r"\bfor (?:all|every|each|any)\b|\balways\b|\bevery\b|\bno matter\b"
    r"|\b(?:are|do|does|is|will)\s+all\b"
    # in the other languages questions come in: "para todo x", "pour tout", "für alle"
    r"|\bpara tod[oa]s?\b|\bpara qualquer\b|\bpour tou[st]\b|\bfür alle\b|\bper ogni\b"
    r"|\bsiempre\b|\bsempre\b|\btoujours\b|\bimmer\b|\bдля (?:всех|любого)\b|对所有|对任意",
    re.IGNORECASE,
)
_EXCEPTION = re.compile(
    r"(?<!if and )\bonly (?:when|if|for)\b|\bcounter-?example\b|\bnot always\b|\bfails (?:for|when)\b"
    r"|\bexcept(?:\s+for)?\b|\bapart from\b|\bexceptions?\b"
    r"|\bexcepto\b|\bsalvo\b|\bexceto\b|\bsauf\b|\baußer\b|\bausgenommen\b|\btranne\b"
    r"|\bкроме\b|除了|\bcontra-?ejemplo\b|\bcontre-exemple\b|\bgegenbeispiel\b|\bcontraexemplo\b"
    r"|\bno siempre\b|\bcasi siempre\b|\bpas toujours\b|\bnicht immer\b|\bnem sempre\b",
    re.IGNORECASE,
)


def _limits_a_universal_claim(sample: Sample) -> bool:
    """A "true" to "… for every real number x" whose explanation says the equality holds
    "only when x ≥ 0", or gives a counterexample."""
    return bool(
        _UNIVERSAL.search(sample.problem[-300:]) and _EXCEPTION.search(sample.output[-600:])
    )


# "Is copper harder than diamond?": what is compared, how, and with what.
_COMPARISON_ASKED = re.compile(
    r"\b(?:is|are|was|were)\s+(?:the\s+)?(?:[\w-]+\s+)?([\w-]+)\s+(\w+er|more\s+\w+|less\s+\w+)"
    r"\s+than\s+(?:that\s+of\s+)?(?:the\s+)?([\w-]+)[^?]*\?",
    re.IGNORECASE,
)


# A sentence that opens by going back on what came before it.
_TAKES_BACK = re.compile(
    r"(?:^|[.!?]\s+|\n)\s*(?:actually|wait|hmm+|on second thought)\b\s*[,.!]", re.IGNORECASE
)
# "Is the melting point of tungsten higher than that of iron?": the last word before the
# comparative is what is compared, the first word after "than (that of)" what it is compared
# with.
_DIRECTED_COMPARISON_ASKED = re.compile(
    r"\b(?:is|are|was|were)\b[^?]{0,60}?\b([\w-]+)\$?\s+((?:more|less)\s+\w+|\w+)\s+than\s+"
    r"(?:(?:that|those)\s+of\s+)?(?:the\s+)?\$?([\w-]+)[^?]*\?",
    re.IGNORECASE,
)
_MORE = frozenset(
    "higher greater larger bigger more heavier denser above faster longer taller older hotter"
    " stronger harder exceeds exceed".split()
)
_LESS = frozenset(
    "lower less smaller fewer lighter below slower shorter younger colder weaker softer".split()
)
# Signs compare too: "1000 < 1024 = 2^{10}".
_MORE_SIGNS = (">", "≥", "\\gt", "\\ge", "\\geq")
_LESS_SIGNS = ("<", "≤", "\\lt", "\\le", "\\leq")
_COMPARATIVE = re.compile(
    r"\b(?:" + "|".join(sorted(_MORE | _LESS)) + r")\b|[<>≤≥]|\\[lg](?:t|eq?)(?![A-Za-z])",
    re.IGNORECASE,
)
_QUANTITY = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")


def _direction(word: str) -> int:
    """+1 for a comparative that says "more" (higher, denser, above, >), -1 for "less", else
    0."""
    first = word.lower().split()[0]
    if first in _MORE or first in _MORE_SIGNS:
        return 1
    return -1 if first in _LESS or first in _LESS_SIGNS else 0


def _comparison_implied(sample: Sample) -> bool | None:
    """The answer to "Is A higher than B?" that the explanation's own comparison of A and B
    implies ("aluminium is much lighter than copper", "tungsten melts at 3422 °C, far above
    iron's 1538 °C", or A's figure and then B's in one sentence); None when it compares them
    in no such way."""
    asked = _DIRECTED_COMPARISON_ASKED.search(sample.problem[-300:])
    if asked is None or not (direction := _direction(asked.group(2))):
        return None
    first, second = asked.group(1).lower(), asked.group(3).lower()
    for sentence in reversed(re.split(r"(?<=[.!?;])\s+|\n", sample.output[-600:])):
        lowered = sentence.lower()
        a, b = _word_at(lowered, first), _word_at(lowered, second)
        if a < 0 or b < 0 or sentence.rstrip().endswith("?"):
            continue  # "So is titanium heavier than steel?" asks, it does not say
        between = sentence[min(a, b) : max(a, b)]
        said = [_direction(m.group(0)) for m in _COMPARATIVE.finditer(between)]
        if len(said) == 1:
            claimed = said[0] if a < b else -said[0]
        else:
            figures = _QUANTITY.findall(sentence[a:b]), _QUANTITY.findall(sentence[b:])
            if a > b or said or not figures[0] or not figures[1]:
                continue
            difference = float(figures[0][0]) - float(figures[1][0])
            claimed = (difference > 0) - (difference < 0)
        if claimed:
            return claimed == direction
    return None


def _word_at(text: str, word: str) -> int:
    found = re.search(rf"\b{re.escape(word)}(?![\d.]\d)", text)
    return found.start() if found else -1


def _reverses_the_comparison(sample: Sample) -> bool:
    """A "yes" to "Is copper harder than diamond?" whose explanation says "diamond … is far
    harder than copper", or "so diamond is much harder"."""
    asked = _COMPARISON_ASKED.search(sample.problem[-300:])
    if asked is None:
        return False
    first, how, second = (re.escape(group) for group in asked.groups())
    reversed_ = (
        rf"\b{second}\b[^.;?!]{{0,60}}\b{how}\s+than\s+[^.;?!]{{0,20}}\b{first}\b"
        rf"|\b{second}\s+(?:is|are|was|were)\s+(?:(?:much|far|a lot|a bit|even|\w+ly)\s+)?"
        rf"{how}\b(?!\s+than\b)"
    )
    return re.search(reversed_, sample.output[-600:], re.IGNORECASE) is not None


# What a question's subject is a kind of, not what is asked of it ("Is 0 a positive number?"
# … "No. It is a number that is neither positive nor negative").
_KINDS = frozenset("number numbers integer integers function value real shape figure".split())


_DENIED_BEFORE = re.compile(r"\bnot\b|n't\b|\bnever\b", re.IGNORECASE)


def _affirms_question(sample: Sample) -> bool:
    """A "no" whose explanation says the question's own term of its subject ("Is 2^61 - 1
    prime?" … "No. … Pervushin proved that it is prime")."""
    explanation = sample.output[-600:]
    for term in _predicate_term(sample.problem):
        # "is a Mersenne prime" says "a prime number"; "an amorphous solid" is no "crystalline
        # solid": a word of kind before the term, where the question has none of its own
        unqualified = re.search(rf"\b(?:a|an)\s+{re.escape(term)}\b", sample.problem[-300:], re.I)
        kind = r"(?:(?!not\b|non\b|never\b)[A-Za-z-]+\s+)?" if unqualified else ""
        for match in re.finditer(
            rf"(?:\b(?:it|this number|this|which|the \w+)|\$([^$\n]{{1,40}})\$)\s+is\s+"
            rf"(?:(?:a|an|indeed|also|actually|therefore|thus|always|clearly)\s+)?"
            rf"{kind}{re.escape(term)}\b",
            explanation,
            re.I,
        ):
            # "Therefore $f$ is one-to-one", not "if $f$ is one-to-one" or "whether it is", nor
            # "$\\sqrt{2}$ is irrational" of a number the question does not name
            # "$2^{31} - 1 = 2{,}147{,}483{,}647$ is prime": the question's number, worked out
            worked = match.group(1).partition("=")[0].strip() if match.group(1) else ""
            named = (
                match.group(1) is None
                or match.group(1).strip() in sample.problem
                or (len(worked) > 1 and worked in sample.problem)
            )
            # not "if $p$ is prime", nor "that does not guarantee that $2^{31} - 1$ is prime"
            if (
                named
                and not _CONDITION.search(explanation[max(0, match.start() - 12) : match.start()])
                and not _DENIED_BEFORE.search(
                    explanation[max(0, match.start() - 40) : match.start()]
                )
            ):
                return True
    return _affirms_the_verb(sample.problem, explanation) or _restates_the_question(
        sample.problem, explanation
    )


# "Does the series … converge?": the verb a yes or a no answers.
_DOES_QUESTION = re.compile(r"\b(?:does|do)\s[^?]{1,160}?\s([a-z]{4,})\s*\?\s*$", re.IGNORECASE)
# "Does 3 divide $2^6 - 1$?": the verb after a number or a formula, where the question ends on
# what it is said of
_DOES_NUMBER = re.compile(r"\b(?:does|do)\s+(?:\$[^$?]{1,40}\$|\d+)\s+([a-z]{4,})\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|neither|nor|no)\b|n't\b", re.IGNORECASE)


def _affirms_the_verb(problem: str, explanation: str) -> bool:
    """A "no" to "Does the series converge?" whose explanation says "so the series converges"."""
    # The question ends at its question mark, before any "Answer YES or NO."
    question = problem[-300:].rpartition("?")[0] + "?"
    asked = _DOES_QUESTION.search(question) or _DOES_NUMBER.search(question)
    if asked is None:
        return False
    verb = asked.group(1).lower()
    said = {verb + "s", verb + "es", verb[:-1] + "ies" if verb.endswith("y") else verb + "s"}
    for match in re.finditer(rf"\b(?:{'|'.join(sorted(said))})\b", explanation, re.IGNORECASE):
        clause = re.split(r"[.;:,]", explanation[max(0, match.start() - 40) : match.start()])[-1]
        if not _NEGATED.search(clause) and not _CONDITION.search(clause):
            return True
    return False


_CONDITION = re.compile(r"\b(?:if|whether|when|unless)\s+$", re.IGNORECASE)


_QUESTION = re.compile(r"(?:[^.!?\n]|\.(?=\d)){8,300}\?")  # "Is 0.5 …?" is one question
_ELLIPSIS = re.compile(r"\.{3}|…|\\[lc]?dots\b")
# What a restatement leaves out: an aside in words in brackets ("(with the 9s repeating)"), a
# LaTeX command.
_ASIDE = re.compile(r"\((?=[^()]*[A-Za-z]{3,}\s)[^()]*\)|\\[A-Za-z]+")
_MATH = re.compile(r"\$[^$]*\$|\\\(.*?\\\)|\\[A-Za-z]+")
_STATEMENT_WORD = re.compile(r"\d+|[A-Za-z]{2,}")
_FILLER = frozenset("is are the an of does do it its be exactly indeed precisely really".split())
_RESTATED_SHARE = 0.8  # of the question's words, in one plain sentence of the explanation


def _restates_the_question(problem: str, explanation: str) -> bool:
    """A "no" to "Is 2 the only even prime number?" whose explanation ends "That makes 2 the
    only even prime": a sentence, not negated, that repeats nearly all of the question's words
    in the question's own order."""
    questions = _QUESTION.findall(_ELLIPSIS.sub(" ", problem[-400:]))
    if not questions:
        return False
    # Filler words left out, so "Is A greater than B?" and "A is larger than B" line up.
    question = _plain_words(questions[-1])
    asked = set(question) - _QUESTION_WORDS
    if len(asked) < 3 or not any(len(word) > 3 and word.isalpha() for word in asked):
        return False  # "Is √2 + √3 > √5?" asks of numbers alone: "2 + 3 = 5" restates nothing
    for sentence in re.split(r"[;!?\n]|\.(?!\d)", _ELLIPSIS.sub(" ", explanation)):
        if _NEGATED.search(sentence):
            continue
        run = _longest_common_run(question, _plain_words(sentence))
        if len(asked.intersection(run)) >= _RESTATED_SHARE * len(asked):
            return True
    return False


# Words that say the same of a comparison, as the question's word.
_SYNONYMS = {
    "larger": "greater",
    "bigger": "greater",
    "more": "greater",
    "higher": "greater",
    "exceeds": "greater",
    "smaller": "less",
    "fewer": "less",
    "lower": "less",
}


def _plain_words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, fillers left out and comparatives made one word."""
    words = (word.lower() for word in _STATEMENT_WORD.findall(_ASIDE.sub(" ", text)))
    return [_SYNONYMS.get(word, word) for word in words if word not in _FILLER]


def _longest_common_run(first: list[str], second: list[str]) -> list[str]:
    """The longest run of words both lists hold in the same order, side by side."""
    best, best_end = 0, 0
    lengths = [0] * (len(second) + 1)
    for word in first:
        previous = 0
        for index, other in enumerate(second, start=1):
            current = lengths[index]
            lengths[index] = previous + 1 if word == other else 0
            if lengths[index] > best:
                best, best_end = lengths[index], index
            previous = current
    return second[best_end - best : best_end]


def _predicate_term(problem: str) -> tuple[str, ...]:
    """What the question asks of its subject: its last term ("prime" in "Is 2^61 - 1 a prime
    number?", "square" in "Is every rectangle a square?"), not the subject, which an
    explanation names freely ("a rectangle with sides 2 and 5 … is a rectangle")."""
    question = re.split(r"(?<=[.!])\s", problem[-300:])[-1].split("?")[0]
    words = re.findall(r"[A-Za-z][A-Za-z-]{2,}", _MATH.sub(" ", question))
    for word in reversed(words):
        term = word.lower()
        if term not in _QUESTION_WORDS and term not in _KINDS and term not in _SHORT_WORDS:
            return () if term.startswith(("non", "un", "in")) else (term,)
    return ()


def _factors_the_prime(sample: Sample) -> bool:
    """ "Is 187 prime?" answered yes while the explanation writes 187 = 11 × 17 (or 187 ÷ 11
    = 17): the reply's own working says no."""
    asked = _IS_PRIME.search(sample.problem[-300:])
    if asked is None:
        return False
    number = asked.group(1)
    for left, right in _PRODUCT.findall(sample.output[-2000:].replace(",", "")):
        if int(left) > 1 and int(right) > 1 and int(left) * int(right) == int(number):
            return True
    for dividend, divisor, quotient in _QUOTIENT.findall(sample.output[-2000:]):
        if dividend == number and int(divisor) > 1 and int(quotient) > 1:
            if int(divisor) * int(quotient) == int(number):
                return True
    return False


# "not true", "isn't correct", "is not false": a negated truth word says the opposite.
_NEGATES = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:\w+\s+)?$", re.IGNORECASE)
_TRUTH_WORDS = frozenset({"true", "false", "correct", "incorrect"})


def _stated_polarity(text: str, match: re.Match) -> bool:
    """What a yes/no word found in ``text`` says, with "not" before a truth word counted."""
    polarity = _polarity(match.group(1))
    negated = match.group(1).lower() in _TRUTH_WORDS and _NEGATES.search(
        text[max(0, match.start() - 20) : match.start()]
    )
    return not polarity if negated else polarity


def _polarity(word: str) -> bool:
    return _POLARITY.get(word.lower(), False)


def _normal(text: str) -> str:
    return re.sub(r"[\s$\\{}]|\\text|\\mathrm", "", text).lower()
