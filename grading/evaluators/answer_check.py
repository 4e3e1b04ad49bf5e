"""``answer_check``: MathJury's own grader, the jury's first juror.

It grades the answer the output states (``grading.candidates``), not whatever a library's
extraction found, and compares it with the gold by value (``grading.equivalence``): an answer
in another notation is right, and the rewrite or the numeric probe that showed it is named in
the signals. It also says which other evaluators read that same answer, so the jury can tell
a literal comparison that failed (not a real disagreement) from a different reading of the
output (a real one). For choice golds it reads the committed letter or yes/no, checks a letter
against the value it names and a yes/no against hedges and self-contradiction.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import replace

from grading import options
from grading.answer_type import classify, is_multi_part
from grading.answers import (
    StatedAnswer,
    bound_in_words,
    counted,
    is_sentence,
    percent_of,
    proportion,
    read_answer,
)
from grading.candidates import (
    BOXED,
    MAX_STATEMENT_CHARS,
    PLAIN_CUES,
    Candidate,
    Candidates,
    hedges,
    sentence_of,
    text_end,
    what_is_asked,
)
from grading.equivalence import calendar, integer_sets, real_sets, relation
from grading.equivalence.check import (
    Comparison,
    chain_sides,
    compare_values,
    equal_up_to_constant,
    names_a_value,
    numeric_value,
    one_of_many,
    same_family,
    same_ratio,
)
from grading.equivalence.rewrite import (
    LATEX_SPACE,
    thousands_separators,
    top_level_parts,
    unicode_to_latex,
)
from grading.evaluators import forms
from grading.evaluators.committed_choice import declines, grade_choice
from grading.evaluators.gathered_parts import GatheredParts, gather_parts
from grading.evaluators.nearmiss import (
    COMPLEX_UNIT,
    NO_REAL,
    ROUNDING_ASKED,
    near_miss_signals,
)
from grading.gold import gold_is_suspect
from grading.option_lists import grade_option_list
from grading.types import (
    CHOICE_ANSWER_TYPES,
    SINGLE_VALUE_TYPES,
    AnswerType,
    Evaluation,
    Sample,
    Status,
    Verdict,
)
from grading.units import asked_unit, base_unit, conversion_factor, named_unit

# Evaluators whose reading of the output is compared with the stated answer.
MATH_READERS = frozenset({"math_verify", "math_verify_strict", "strict", "flex", "exact"})
TAIL_CHARS = 3000  # where an output rounds the exact value it found
_MERIDIEM = re.compile(r"(?:\\text\{\s*)?[ap]\.?\s*m\.?\}?", re.IGNORECASE)
_CENTS = re.compile(r"(?:cents?|¢|c)\b", re.IGNORECASE)  # "60 cents in change"
_OFFERS_ANOTHER = re.compile(
    r"\bor\b|\bou\b|\boder\b|\band\s+(?:possibly|perhaps|maybe)\b", re.IGNORECASE
)
_DECIMAL_COMMA = re.compile(r"-?\d+,\d{1,2}")
# The words just before a stated answer that call it approximate ("approximately **15**").
_APPROXIMATELY = re.compile(
    r"(?:\b(?:approximately|about|roughly|around|nearly|almost|etwa|ungefähr|environ"
    r"|aproximadamente|circa|около|примерно)|约|約|≈|\\approx)[\s*$(\\]*$",
    re.I,
)
_COMMA_DECIMAL = re.compile(r"-?\d+,\d+")
_DECIMAL_GOLD = re.compile(r"\d\.\d")
_DOLLARS = re.compile(r"\\\$|\$\s*\d|dollars?|USD", re.IGNORECASE)
# "1/4 (i.e., 0.2)", "3/8 (= 0.375)": the answer's value restated as a decimal in parentheses.
_RESTATED_DECIMAL = re.compile(
    r"\(\s*(?:(?P<approx>≈|\\approx)|i\.\s?e\.|that is|=)\s*,?\s*\$?\s*(?P<decimal>-?\d+(?:\.\d+)?)"
    r"\s*\$?\s*\)"
)


class AnswerCheck:
    """The stated final answer, compared with the gold by value."""

    name = "answer_check"
    version = "1"

    def evaluate_in_context(
        self, sample: Sample, candidates: Candidates, evaluations: tuple[Evaluation, ...]
    ) -> Evaluation:
        """Grade ``sample`` from its candidates; ``evaluations`` are the others' results."""
        started = time.perf_counter()
        kind = classify(sample.gold)
        if kind in CHOICE_ANSWER_TYPES:
            fields = grade_choice(sample, kind, candidates, evaluations)
        elif kind is AnswerType.OPTION_LIST:
            fields = grade_option_list(sample, candidates)
        else:
            fields = _grade_math(sample, kind, candidates, evaluations)
        return Evaluation(
            evaluator=self.name,
            version=self.version,
            ms=(time.perf_counter() - started) * 1000,
            **fields,
        )


_LONE_OPTION_LETTER = re.compile(r"\(?([A-E])\)?")
_TWO_NUMBERS = re.compile(r"\d\D+\d")  # what a duration in two units has, "3 h 35 min"
_LATEX_SPACE = re.compile(LATEX_SPACE)
_PERCENT_SIGN = re.compile(r"\s*\\?%\s*$")
_NEGATIVE_GOLD = re.compile(r"\s*-\s*\d+(?:\.\d+)?\s*(?:\\?%)?\s*")
_DECREASE = re.compile(
    r"\b(?:decrease[ds]?|fell|falls?|dropp?e?d?|declined?|lost|down(?:\s+by)?|reduc(?:ed|tion)"
    r"|gesunken|gefallen|disminuy[óo]|baj[óo]|diminu[ée]|baiss[ée]"
    # the change named as a noun: "une baisse de 4 %", "ein Rückgang um 4 %"
    r"|baisse|diminution|r[üu]ckgang|abnahme|senkung|disminuci[óo]n|descenso|ca[íi]da"
    r"|redu[çc][ãa]o|queda|diminui[çc][ãa]o|снижение|уменьшение|падение)\b"
    r"|下降|减少|降低|減少|低下|減った|下がっ",
    re.IGNORECASE,
)


def _told_as_a_decrease(gold: str, stated: StatedAnswer, output: str, final: Candidate) -> bool:
    """ "The price decreased by 16%" where the gold is the change, -16: the sign is in words."""
    return (
        _NEGATIVE_GOLD.fullmatch(gold) is not None
        and not stated.expression.lstrip().startswith("-")
        and _DECREASE.search(sentence_of(output, final)) is not None
    )


def _named_option_text(answer: str, problem: str) -> str:
    """The text of the option a lone letter names, where the problem lists options (the gold
    is then an option's text, not a letter); "" otherwise."""
    letter = _LONE_OPTION_LETTER.fullmatch(answer.strip())
    if letter is None:
        return ""
    return options.problem_options(problem).get(letter.group(1), "")


# An answer that is only the name of an unknown, or a tuple of them: "x", "(x, y)".
_ONLY_NAMES = re.compile(r"([a-df-hj-z])|\(\s*([a-z])(?:\s*,\s*[a-z])+\s*\)")


def _grade_math(
    sample: Sample,
    kind: AnswerType,
    candidates: Candidates,
    evaluations: tuple[Evaluation, ...],
) -> dict:
    # "60^\circ或120^\circ": a gold of two values joined by "or", both of them the answer
    gold = _GOLD_OR.sub(", ", sample.gold.strip())
    final = candidates.final
    if final is None:
        return {"status": Status.NO_ANSWER, "gold_latex": gold, "detail": "no stated answer"}
    if final.cue in PLAIN_CUES and _only_restates_the_question(
        final.text, sample.output, sample.problem
    ):
        return {"status": Status.NO_ANSWER, "gold_latex": gold, "detail": "only the givens"}
    multi_part = is_multi_part(gold)
    # Only a gold whose parts words name ("center (3, -5), radius 5") is read part by part;
    # the closing lines are split only for one.
    named_parts = (
        _parts_named_as_in_gold(final.text, gold)
        or _parts_named_as_in_gold(_closing_labelled_lines(sample.output), gold)
        if multi_part and _named_parts(gold)
        else _parts_labelled_in_sentence(sentence_of(sample.output, final), gold)
        if multi_part
        else None
    )
    joined = (
        (named_parts[1] if named_parts else "")
        or _joined_parts(candidates, multi_part)
        or (_labelled_parts(final.text, gold) if multi_part else "")
    )
    stated = read_answer(joined or final.text, boxed=final.cue == BOXED and not joined)
    named = _named_option_text(stated.expression, sample.problem)
    if named:  # "**B**" where the gold is the text of option B ("Right")
        stated = replace(stated, expression=named)
    compared_gold = named_parts[0] if named_parts else gold
    compound_gold = (
        read_answer(_TEXT_COMMAND.sub(r"\1", gold)) if _TWO_NUMBERS.search(gold) else None
    )
    # "2.75 hours" for "2 hours 45 minutes", where the question asks for hours and minutes
    in_one_unit = (
        compound_gold is not None
        and compound_gold.compound
        and not stated.compound
        and len(_NUMBERS.findall(stated.raw)) == 1
        and _TWO_UNITS_ASKED.search(sample.problem[-300:]) is not None
    )
    if (
        compound_gold is not None
        and compound_gold.compound
        and stated.compound
        and not calendar.compare(gold, stated.raw)  # "1 day, 2 hours and 50 minutes"
    ):
        # "3 h 35 min" against "3 Stunden und 35 Minuten": both read in hours
        compared_gold = compound_gold.expression
        stated = replace(stated, compound=False)
    shown = {
        "extracted": stated.expression,
        "extracted_latex": stated.expression,
        "gold_latex": gold,
    }
    signals: list[str] = []
    if stated.hedged and _all_equal(stated.alternatives):
        # "$\\frac{1}{2}$ (or 0.5)": one value written two ways, not a choice between values
        stated = replace(stated, alternatives=(), afterthought=False)
    if stated.afterthought:
        signals.append("hedged")
    if (
        stated.hedged
        and multi_part
        and not _ONE_BRACKETED.fullmatch(gold)
        and not any(_SEVERAL_VALUES.search(option) for option in stated.alternatives)
        and not (
            all(_SET_OR_INTERVAL.match(option) for option in stated.alternatives)
            and not real_sets.PLUS_MINUS.search(stated.raw)  # "{1 ± √5, -2}" lists three roots
        )
    ):
        # "either 3 or 5" for the gold "3, 5" lists its values; two intervals for one interval
        # ("[0, \infty), or (0, \infty) if …"), two sets for a union ("(-∞, -3) ∪ [1, ∞) or
        # (-∞, -3] ∪ [1, ∞)") and two lists ("5 and 12, or -12 and -5") are a choice between them
        stated = read_answer(", ".join(stated.alternatives))
    elif stated.hedged:
        signals.append("hedged")
    if _NONE.fullmatch(stated.expression) and _COUNT_ASKED.search(sample.problem[-300:]):
        stated = replace(stated, expression="0")  # "none" answers "How many …?"
    raised = _RAISED_POINT_READ.fullmatch(stated.expression.strip())
    if raised and _RAISED_POINT.search(stated.raw) and _RAISED_POINT.search(sample.problem):
        # "2·5 m" where the question writes "7·5 m": the British raised decimal point
        stated = replace(stated, expression=f"{raised.group(1)}.{raised.group(2)}")
    # "-1{,}5": LaTeX's decimal comma; "(2;\, -1)": LaTeX's thin space, no comma at all
    commas = _LATEX_SPACE.sub(" ", stated.expression.replace("{,}", ","))
    result = commas.rpartition("=")[2].strip()
    semicolons = ";" in commas and "," in commas
    latex_comma = _LATEX_DECIMAL_COMMA.search(stated.expression) and not semicolons
    # The output's language is asked only where a comma could be a decimal one.
    decimal_commas = (latex_comma or _COMMA_DECIMAL.fullmatch(result) or semicolons) and (
        forms.comma_convention(f"{sample.problem} {sample.output}") == "decimal"
    )
    if decimal_commas and latex_comma:
        # "6{,}02 \times 10^{23}" in French: a decimal comma inside a longer expression
        stated = replace(stated, expression=_LATEX_DECIMAL_COMMA.sub(".", stated.expression))
    elif decimal_commas:
        # "3,33" in German, "2,5 × 3 = 7,5" in Spanish: its result; "\mathbb{L} =
        # \{2{,}5;\ 3\}": values listed with semicolons, decimal commas
        decimal = result if _COMMA_DECIMAL.fullmatch(result) else commas
        stated = replace(stated, expression=decimal.replace(",", ".").replace(";", ","))
    if kind is not AnswerType.TEXT and is_sentence(stated.expression):
        return {**shown, "status": Status.PARSE_ERROR, "detail": "the stated answer is a sentence"}
    word = _LONE_WORD.fullmatch(stated.expression.strip())
    if word and kind is not AnswerType.TEXT and not _word_of(word.group(0), gold):
        # "covers", left of a sentence the reading could not reduce, is no product c·o·v·e·r·s
        return {**shown, "status": Status.PARSE_ERROR, "detail": "the stated answer is a word"}
    comparison = _compare(compared_gold, stated)
    gathered = gather_parts(gold, sample.output, sample.problem) if not comparison.equal else None
    parts_gathered = gathered is not None and _states_parts(stated.expression, gathered)
    if parts_gathered:
        # "So the mean is 22 books and the median is 20 books.": the final candidate holds
        # one part; each part is read by its name, in the gold's order
        stated = read_answer(gathered.stated)
        compared_gold = gathered.gold
        comparison = Comparison(gathered.equal(), "parts")
        shown = {**shown, "extracted": stated.expression, "extracted_latex": stated.expression}
    count = counted(stated.raw) if not comparison.equal and kind is AnswerType.INTEGER else None
    if count is not None:  # "3 out of 5" where a count is asked
        stated = replace(stated, expression=count)
        comparison = _compare(compared_gold, stated)
        shown = {**shown, "extracted": count, "extracted_latex": count}
    amount = percent_of(stated.raw) if not comparison.equal else None
    if amount is not None and _compare(compared_gold, replace(stated, expression=amount)).equal:
        # "15% of 80, which is 12" where the gold is 12
        stated = replace(stated, expression=amount)
        comparison = _compare(compared_gold, stated)
        shown = {**shown, "extracted": amount, "extracted_latex": amount}
    defined = (
        _with_definition(sample.output, final, stated.expression) if not comparison.equal else ""
    )
    if defined and _compare(compared_gold, replace(stated, expression=defined)).equal:
        # "\boxed{\dfrac{\varphi}{2}}, where \varphi = \frac{1+\sqrt5}{2}"
        stated = replace(stated, expression=defined)
        comparison = _compare(compared_gold, stated)
    if not comparison.equal and ":" in compared_gold and _RATIO_ASKED.search(sample.problem[-300:]):
        if same_ratio(compared_gold, stated.expression):  # "18:24:28" for the ratio 9:12:14
            comparison = Comparison(True, "ratio")
    restricted = _DOMAIN_GIVEN.match(stated.expression) if not comparison.equal else None
    if restricted is not None and _within_same_domain(compared_gold, restricted):
        # "f^{-1}(x) = x^2 + 1 \quad (x \ge 0)" for "x^2+1,\ x\ge 0": the value, then where
        # it holds, as the gold gives it or where the gold names no domain
        stated = replace(stated, expression=restricted["value"])
        comparison = _compare(_DOMAIN_GIVEN.sub(r"\g<value>", compared_gold), stated)
    on_the_curve = (
        relation.equal_on_the_curve(compared_gold, stated.expression, sample.problem)
        if not comparison.equal
        else relation.OnTheCurve.NOWHERE
    )
    if on_the_curve is not relation.OnTheCurve.NOWHERE:
        # "-\frac{1}{x^2}" for -y/x on xy = 1; "-x/\sqrt{25 - x^2}" on the upper half of a circle
        some = on_the_curve is relation.OnTheCurve.SOME_BRANCHES
        comparison = Comparison(True, "numeric_probe", positive_only=some)
    bound = (
        # "whenever $x$ is non-negative": the variable may be named before the answer's words
        bound_in_words(stated.raw) or bound_in_words(sentence_of(sample.output, final))
        if not comparison.equal and kind is AnswerType.INTERVAL_OR_SET
        else ""
    )
    if bound:  # "x ist größer als 4" for (4, \infty): the bound, said in words
        stated = replace(stated, expression=bound)
        comparison = _compare(compared_gold, stated)
        shown = {**shown, "extracted": bound, "extracted_latex": bound}
    if not comparison.equal and (
        kind is AnswerType.INTERVAL_OR_SET
        or (kind is AnswerType.EQUATION and _INEQUALITY.search(compared_gold))
    ):
        # "every real number x", "2 \le |x| \le 4", "\{x \mid x < -3\} \cup \{x \mid x \ge
        # 3\}": the same set of reals however it is described; an inequality gold ("x \le 4")
        # is one, in its own letter
        described = next(
            (
                text
                for text in (stated.expression, stated.raw, sentence_of(sample.output, final))
                if real_sets.same_reals(compared_gold, text)
                and (
                    kind is AnswerType.INTERVAL_OR_SET or _letters(text) == _letters(compared_gold)
                )
            ),
            "",
        )
        if described:
            comparison = Comparison(True, "real_set")
            shown = {**shown, "extracted": described.strip(), "extracted_latex": described.strip()}
            if _INTERVAL_NOTATION_ASKED.search(sample.problem[-600:]) and _INEQUALITY.search(
                described
            ):
                signals.append("form_requested")  # "[-2, 2], x ≠ 1" where intervals are asked
    proportion_said = proportion(stated.raw) if not comparison.equal else ""
    if (
        proportion_said
        and _compare(compared_gold, replace(stated, expression=proportion_said, units="")).equal
    ):
        # "3 out of 8 slices" where the fraction 3/8 is the gold: the count of a total
        comparison = Comparison(True, "proportion")
        shown = {**shown, "extracted": proportion_said, "extracted_latex": proportion_said}
    asked_one = _one_asked(sample.problem) if not comparison.equal else ""
    if asked_one and one_of_many(compared_gold, stated.expression, asked_one):
        # "Find an eigenvector": (1/√2, 1/√2) for (1, 1); "a basis", "an antiderivative"
        comparison = Comparison(True, "one_of_many")
    elif (
        not comparison.equal
        and _CONSTANT_NAME.search(gold)
        and same_family(gold, stated.expression)
    ):
        # "y = A\sin x + B\cos x" for "y = C_1\cos x + C_2\sin x": constants renamed
        comparison = Comparison(True, "same_family")
    elif not comparison.equal and integer_sets.describes_integers(gold, stated.raw):
        # "n is odd" for "all odd n", "x \equiv \pm 1 \pmod 6", "every prime p \ge 5"
        if integer_sets.same_integers(gold, stated.raw):
            comparison = Comparison(True, "integer_set")
            stated = replace(stated, alternatives=())  # "\pm 2 \pmod 5" lists residues
    converted = _in_gold_unit(gold, stated, sample.problem) if not comparison.equal else ""
    in_gold_unit = (
        # in the gold's unit now ("500 ml" against "0.5 L" is 0.5, and no longer millilitres)
        _compare(compared_gold, replace(stated, expression=converted, units=""))
        if converted
        else None
    )
    if in_gold_unit is not None and in_gold_unit.equal and _unit_asked(sample.problem):
        signals.append("unit_mismatch")  # "300,000 J" where kilojoules are asked: a person decides
    elif in_gold_unit is not None and in_gold_unit.equal:
        comparison = in_gold_unit  # "100 MHz" for 1.00 × 10^8 Hz; "90 TJ" for 9.0 × 10^13 J
    in_words = (
        _RATIO_IN_WORDS.fullmatch(stated.expression.strip()) if not comparison.equal else None
    )
    if in_words is not None and _RATIO_ANSWER.fullmatch(gold):
        # "3 to 2" for the ratio 3:2
        stated = replace(stated, expression=f"{in_words.group(1)}:{in_words.group(2)}")
        comparison = _compare(compared_gold, stated)
    ratio = _RATIO_ANSWER.fullmatch(stated.expression.strip()) if not comparison.equal else None
    if ratio is not None and _FRACTION_GOLD.fullmatch(gold):
        as_fraction = f"\\frac{{{ratio.group(1)}}}{{{ratio.group(2)}}}"
        if _compare(compared_gold, replace(stated, expression=as_fraction)).equal:
            # "19:20" for \frac{19}{20}: the value, in a ratio's notation
            comparison = Comparison(True, "rewrite")
            signals.append("form_requested")
    factorial = _FACTORIAL_SAID.search(stated.raw) if not comparison.equal else None
    if (
        factorial is not None
        and _compare(compared_gold, replace(stated, expression=f"{factorial.group(1)}!")).equal
    ):
        # "**Answer: 5!**" for 120: an exclamation mark only if 5 were the answer
        stated = replace(stated, expression=f"{factorial.group(1)}!")
        comparison = Comparison(True, "rewrite")
        shown = {**shown, "extracted": stated.expression, "extracted_latex": stated.expression}
    numbered = (
        _numbered_option_text(gold, stated.expression, sample.problem)
        if not comparison.equal
        else ""
    )
    if numbered and _compare(numbered, stated).equal:
        # "the closest option is 7" where the gold is 2, the label of option "2) 7"
        comparison = Comparison(True, "synonym")
    if not comparison.equal and _on_the_hour(gold, stated.expression, sample.problem):
        comparison = Comparison(True, "synonym")  # "17:00" for "at what hour … afternoon?" 5
    if not comparison.equal and _told_as_a_decrease(gold, stated, sample.output, final):
        # "-16\%" fails against -16 where "16\%" passes, so the sign goes on the number, and
        # the percent stays only where the gold has one ("une baisse de 4 %" for -4\%)
        negated = f"-{_PERCENT_SIGN.sub('', stated.expression)}"
        negated += "\\%" if "%" in gold else ""
        comparison = _compare(compared_gold, replace(stated, expression=negated))
    if (
        kind is AnswerType.TEXT
        and not comparison.equal
        and (
            _names_the_gold(gold, stated.expression, sample.problem)
            # "$$\sum \frac{n^2+1}{n^4+3}\ \textbf{converges.}$$": the words set in the math
            or _names_the_gold(gold, _words_in_math(stated.expression), sample.problem)
            # "3" for the quadrant "III"
            or _ROMAN_NUMERALS.get(_gold_words(gold)) == stated.expression.strip()
            # "Carol is the tallest." for "Who is the tallest?": the predicate is the question's;
            # "…, so the system has infinitely many solutions: every pair $(t, t - 2)$" and
            # "Since $1.45 < $1.49, Store B has the lower price per pound, by $0.04.": a clause
            or any(
                _names_the_gold(gold, clause, sample.problem)
                for clause in _clauses(sentence_of(sample.output, final))
            )
        )
    ):
        comparison = Comparison(True, "synonym")
    if (
        kind is AnswerType.TEXT
        and not comparison.equal
        and _names_part_of_the_gold(gold, stated.expression)
    ):
        signals.append("partial_match")  # "Converges" where it is "conditionally convergent"
    if comparison.equal and _percent_taken_as_fraction(compared_gold, stated, sample.problem):
        # "2 %" for "Ile to procent?" with the gold 0.02 (percent): 0.02 only as a fraction
        comparison = replace(comparison, equal=False)
        signals.append("unit_mismatch")
    if comparison.equal is None:
        return {**shown, "status": Status.PARSE_ERROR, "detail": "the stated answer does not parse"}
    names = _ONLY_NAMES.fullmatch(stated.expression.strip())
    if (
        not comparison.equal
        and names
        and not re.search(rf"(?<![A-Za-z\\]){names[1] or names[2]}(?![A-Za-z])", gold)
    ):
        # "every real number $x$ is a solution": the sentence names the unknown, not its value
        return {**shown, "status": Status.NO_ANSWER, "detail": "only a variable's name"}
    correct = bool(comparison.equal) and not (stated.hedged and not multi_part)
    if (
        _offered_after(sample.output, final)
        or _reopened_after(sample.output, final)
        or _TORN_BETWEEN.search(sentence_of(sample.output, final)) is not None
        or _answers_on_conditions(sample.output, final)
        or (kind in SINGLE_VALUE_TYPES and _values_on_conditions(sample.output, final))
        or _GENERAL_ANSWER_ASIDE.search(final.text)
        or real_sets.nested_choice(stated.expression)
    ):
        # "the area is **24** (or $6\sqrt{7}$ if 8 is the hypotenuse)", "x (assuming x ≥ 0; in
        # general it's |x|)", "x > 0 or x ≥ 0"
        signals.append("hedged")
    if _false_arithmetic(final.text):
        signals.append("multiple_answers")  # "\boxed{5 \times 8 \times 12 = 460}": 480 or 460
    if hedges(sample.output, final) and (correct or _OFFERS_ANOTHER.search(final.text)):
        # "probably 12" is a guess a person confirms when it is right; a wrong guess is just
        # wrong, unless it offers another answer too ("12, or possibly 18")
        signals.append("hedged")
    signals.extend(
        _comparison_signals(comparison, stated, gold, sample.problem, sample.output[-TAIL_CHARS:])
    )
    called_approximate = stated.approximate or _APPROXIMATELY.search(
        sample.output[max(0, final.start - 30) : final.start]
    )
    if (
        correct
        and called_approximate
        and not _DECIMAL_GOLD.search(gold)
        and not ROUNDING_ASKED.search(sample.problem[-2000:])
    ):
        signals.append("hedged")  # "approximately 15" for 15: the output did not commit to it
    signals.extend(forms.unit_signals(gold, stated, sample.problem, sample.output))
    if comparison.equal and calendar.two_dates(stated.raw):
        signals.append("two_readings")  # "03/06/2024": 3 June or 6 March
    if _restates_another_value(stated):
        signals.append("multiple_answers")
    if (
        correct
        and "decimal_commas" in comparison.rewrites
        and forms.comma_convention(f"{sample.problem} {sample.output}") != "decimal"
    ):
        # "2,5": a decimal comma, or the list 2, 5; only a language that writes decimal
        # commas says which
        signals.append("number_format")
    if _restated_otherwise(stated):
        signals.append("multiple_answers")  # "2000万円（200,000,000円）": the same unit, two values
    if correct and in_one_unit:
        signals.append("form_requested")
    if correct and NO_REAL.search(final.text) and COMPLEX_UNIT.search(gold):
        # "No real solution (in complex numbers, x = ±2i).": which of the two is the answer?
        signals.append("no_real_solution")
    if correct and _counts_another_group(stated, sample.problem, sample.output):
        signals.append("other_quantity")  # "There are 18 boys." where girls are asked, and 18
    if correct:
        # parts named as the gold names them (or gathered by their names) are compared in
        # its order
        form_gold = named_parts[0] if named_parts else compared_gold if parts_gathered else gold
        signals.extend(forms.form_signals(form_gold, stated, comparison, sample.problem))
        if _float_error(stated.expression):
            signals.append("rounding_differs")  # "3.3000000000000003", a program's float
    if not correct:
        if not multi_part and kind in SINGLE_VALUE_TYPES and _lists_values(stated.expression):
            signals.append("multiple_answers")  # "7 and 13" where one value is asked
        elif _one_point_among(gold, stated.expression):
            # "(2, 2) and (-1, -1)" where the question's condition leaves one point, (2, 2)
            signals.append("multiple_answers")
        signals.extend(near_miss_signals(sample, gold, stated, candidates))
        if gold_is_suspect(gold, sample.problem):
            signals.append("gold_suspect")
    if declines(final.text) or declines(sample.output[-300:]):
        signals.append("declined")
    return {
        **shown,
        "status": Status.OK,
        "verdict": Verdict.CORRECT if correct else Verdict.INCORRECT,
        "signals": tuple(dict.fromkeys(signals)),
        **(
            _other_readings(
                stated,
                final.weight,
                candidates,
                evaluations,
                sample.problem,
                decimal_commas,
                gathered=parts_gathered,
            )
            if correct
            else {}
        ),
        "detail": f"equal by {comparison.method}" if comparison.equal else "",
    }


_LONE_WORD = re.compile(r"[A-Za-z]{4,}")
# A number with a factorial sign where text would put an exclamation mark: "Answer: 5!".
_FACTORIAL_SAID = re.compile(r"(?<![\d.])(\d{1,2})!\W*$")
_OFFERED_AFTER = re.compile(
    r"[*$}\s]*\(\s*or\s+(?!about\b|approximately\b|roughly\b)([^()\n]{1,60})\)"  # after "\boxed{55}"
    # "…, or $(-\infty, -1] \cup [2, \infty)$ if the boundary is counted"
    r"|[*$\s]*,?\s*or\s+(\$[^$\n]{1,80}\$|\\\(.{1,80}?\\\))\s*,?\s*(?:if|when|depending|assuming)\b"
)


# A clause that sets a condition, at the start of a sentence or of a clause in it
# An aside that gives the answer again for the general case: "(assuming x ≥ 0; in general
# it's |x|)", "(otherwise it is 12)".
_GENERAL_ANSWER_ASIDE = re.compile(
    r"\([^()]*?\b(?:in\s+general|otherwise|more\s+generally)\b,?\s*(?:it'?s|it\s+is|the\s+answer"
    r"\s+is|=|is)\s+[^()\s][^()]*\)",
    re.IGNORECASE,
)
_CONDITION_OPENS = re.compile(r"(?:^|[;,:]\s*|\bbut\s+)\W*(?:if|when|assuming|otherwise)\b", re.I)
_CONDITION_WORDS = ("if", "when", "assuming", "otherwise")
_CONDITION_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def _answers_on_conditions(output: str, final: Candidate) -> bool:
    """The sentence gives an answer for each of two readings ("If the empty set is counted,
    the answer is $377$; if only nonempty subsets are intended, it is $376$")."""
    near = output[max(0, final.start - MAX_STATEMENT_CHARS) : final.start + MAX_STATEMENT_CHARS]
    if sum(near.lower().count(word) for word in _CONDITION_WORDS) < 2:
        return False  # the cheap test first: most answers set no condition at all
    sentence = sentence_of(output, final)
    return (
        len(_CONDITION_OPENS.findall(sentence)) >= 2
        and len(set(_CONDITION_NUMBER.findall(sentence))) >= 2
    )


# A value with the reading it holds under after it: "$\\frac{2}{3}$ without replacement and
# $\\frac{4}{9}$ with replacement".
_VALUE_ON_A_CONDITION = re.compile(
    r"(\$[^$]+\$|(?<![\w.])\d+(?:\.\d+)?)\s+(?:with|without|under|assuming|if|when)\b", re.I
)


def _values_on_conditions(output: str, final: Candidate) -> bool:
    """The answer's sentence gives two values, each for a reading of its own."""
    near = output[max(0, final.start - MAX_STATEMENT_CHARS) : final.start + MAX_STATEMENT_CHARS]
    if sum(near.lower().count(word) for word in ("with", "under", "assuming", "if", "when")) < 2:
        return False  # the cheap test first
    sentence = sentence_of(output, final)
    values = {m.group(1).strip("$ ") for m in _VALUE_ON_A_CONDITION.finditer(sentence)}
    return len(values) >= 2


# The amount again in brackets, in its unit: "2000万円（200,000,000円）", "$45 (45 dollars)".
_BRACKETED_AMOUNT = re.compile(
    r"[(（]\s*\$?\s*([-−]?\d[\d,.]*)\s*([^\d\s()（）]{0,8})\s*[)）]\s*[.。]?\s*$"
)


def _restated_otherwise(stated: StatedAnswer) -> bool:
    """The answer says its amount again in brackets, in the same unit, as another number."""
    again = _BRACKETED_AMOUNT.search(stated.raw) if stated.units else None
    if again is None or again.group(2).strip() != stated.units:
        return False
    before = stated.raw[: again.start()].rstrip()
    return (
        before.endswith(stated.units)
        and compare_values(stated.expression, again.group(1).replace(",", "")).equal is False
    )


# A binary floating-point result printed in full: "0.30000000000000004", "2.9999999999999996":
# fifteen or more significant digits, a run of zeros or nines, and one to four digits after it.
_LONG_DECIMAL = re.compile(r"(?<![\d.])(\d+)\.(\d{12,})(?![\d.])")
_ROUNDING_RESIDUE = re.compile(r"\d*?(?:0{6,}|9{6,})\d{1,4}")


def _float_error(expression: str) -> bool:
    for number in _LONG_DECIMAL.finditer(expression):
        significant = (number.group(1) + number.group(2)).lstrip("0")
        if len(significant) >= 15 and _ROUNDING_RESIDUE.fullmatch(significant):
            return True
    return False


# A part's label: "(1)", "(b)"; what separates parts: "；", ",", "。".
_PART_LABEL = re.compile(r"\(\s*([1-9]|[a-h])\s*\)")
_PART_SEPARATORS = " \t\n;,；，。.、"
_RATIO_ANSWER = re.compile(r"(\d+)\s*:\s*(\d+)")
_RATIO_IN_WORDS = re.compile(r"(\d+)\s*(?:\s(?:to|à|zu|a|к|на)\s|比)\s*(\d+)", re.IGNORECASE)
_FRACTION_GOLD = re.compile(r"\$?\s*\\[dt]?frac\s*\{\d+\}\s*\{\d+\}\s*\$?|\d+\s*/\s*\d+")
# "…, where \varphi = \frac{1+\sqrt5}{2} is the golden ratio": a symbol the answer is
# written in, defined right after it
_DEFINED_AFTER = re.compile(
    r"\b(?:where|with)\b[}\s]*(?:\$|\\\()?\s*(\\[A-Za-z]+|[A-Za-z])\s*=\s*"
    r"(.{1,80}?)\s*(?=\\text|\\\)|\$|,\s|\.\s|\.?$|\n|\s(?:is|are)\b)"
)
_DEFINITION_REACH = 160


def _with_definition(output: str, final: Candidate, expression: str) -> str:
    """The answer with the symbol defined right after it put in ("" when there is none)."""
    end = text_end(output, final)
    found = _DEFINED_AFTER.search(output, end, end + _DEFINITION_REACH) if end is not None else None
    if found is None:
        return ""
    symbol, definition = found.groups()
    occurrence = re.compile(rf"{re.escape(symbol)}(?![A-Za-z])")
    if not occurrence.search(expression):
        return ""
    return occurrence.sub(lambda _: f"({definition})", expression)


def _offered_after(output: str, final: Candidate) -> bool:
    """Another value offered right after the stated one, which the reading did not see: in
    brackets after a bold or boxed value ("**24** (or $6\\sqrt{7}$ if …)"), or after a comma
    on a condition (", or $[2, \\infty)$ if the boundary is counted")."""
    end = text_end(output, final)
    offered = _OFFERED_AFTER.match(output, end, end + 80) if end is not None else None
    if offered is None:
        return False
    return _another_value(offered.group(1) or offered.group(2), final)


def _another_value(text: str, final: Candidate) -> bool:
    """``text`` states a value, and not the one of the final answer."""
    other = read_answer(text).expression
    return bool(other) and not compare_values(other, read_answer(final.text).expression).equal


_RATIO_ASKED = re.compile(r"\bratio\b", re.IGNORECASE)  # where "18:24:28" is no clock time
# An expression and the domain it holds on: "x^2+1,\ x\ge 0", "\sqrt{x} \quad (x > 0)",
# "2x \text{ for } x \le 3"; the value is no relation itself.
_DOMAIN_GIVEN = re.compile(
    r"^(?P<value>[^<>≤≥]+?)(?:\s*,|\s*\\q?quad|\s*\\[,;: ]|\s)+\(?\s*"
    r"(?:\\text\s*\{\s*(?:for|where|when|if)\s*\}|for|where|when|if)?\s*"
    r"(?P<domain>[a-z]\s*(?:\\[gl]eq?(?![a-z])|[<>≤≥]=?)\s*-?[\d.]+)\s*\)?[\s.$]*$"
)
_RELATION_WRITTEN = {"\\geq": ">=", "\\ge": ">=", "≥": ">=", "\\leq": "<=", "\\le": "<=", "≤": "<="}


def _within_same_domain(gold: str, restricted: re.Match) -> bool:
    """The gold names no domain, or the one the answer names."""
    gold_restricted = _DOMAIN_GIVEN.match(gold)
    if gold_restricted is None:
        return "," not in gold
    return _domain(gold_restricted["domain"]) == _domain(restricted["domain"])


def _domain(condition: str) -> str:
    for written, relation_sign in _RELATION_WRITTEN.items():
        condition = condition.replace(written, relation_sign)
    return re.sub(r"\s+", "", condition)


def _false_arithmetic(answer: str) -> bool:
    """The answer works a sum out wrong in its own words: its sides are plain arithmetic and
    two of them differ, so it states two values."""
    sides = chain_sides(answer.strip().strip("$"))
    if len(sides) != 2 or not all(_ARITHMETIC.fullmatch(side) for side in sides):
        return False  # "x = 5+5+1 = 7 = 11" is a chain that corrects itself as it goes
    values = [numeric_value(side) for side in sides]
    # "\frac{1}{3} = 0.33" rounds; half a unit of the last decimal written is no difference
    decimals = max((len(d) for d in _DECIMALS.findall(answer)), default=0)
    tolerance = 0.5 * 10**-decimals if decimals else 1e-12
    return None not in values and any(
        not math.isclose(value, values[-1], rel_tol=1e-9, abs_tol=tolerance) for value in values
    )


_DECIMALS = re.compile(r"\d\.(\d+)")
# Numbers and the operations between them, read as SymPy reads them: no "·" or "**", no
# repeating digits in brackets ("0.(36)"), no operator left hanging at the start ("× 2^3").
_ARITHMETIC = re.compile(
    r"(?![\s+*/×÷^])(?:[\d\s+\-/×÷()^{}]|\.(?!\()|\\(?:times|cdot|div|[dt]?frac)(?![A-Za-z]))+"
)


def _reopened_after(output: str, final: Candidate) -> bool:
    """After its answer the output doubts it and names another ("P.S. On reflection, the set
    itself should probably not count either. That would make the answer 126."): two answers,
    the later one only half taken."""
    end = text_end(output, final)
    after = output[end : end + _REOPEN_REACH] if end is not None else ""
    for reopened in _REOPENED.finditer(after):
        doubted = reopened.group(1) is not None or _SECOND_THOUGHTS.search(
            after[: reopened.start()]
        )
        if doubted and _another_value(reopened.group(2), final):
            return True
    return False


# "So the area is probably $16$, but it might be $16\sqrt{3}$ depending on …": two values
_TORN_BETWEEN = re.compile(
    r"\b(?:probably|likely|perhaps|maybe)\b[^.;]{1,80}?,?\s+(?:but|or)\s+(?:it\s+|this\s+)?"
    r"(?:might|could|may)\s+(?:also\s+|instead\s+)?be\b",
    re.IGNORECASE,
)
_REOPEN_REACH = 600  # characters after the answer where a second thought is looked for
# "could also be (C)", "That would make the answer 126", "the answer should instead be 12"
_REOPENED = re.compile(
    r"(?:\b((?:could|might|may)\s+also\s+be)"
    r"|\bwould\s+(?:then\s+)?make\s+the\s+(?:answer|result|count|total)(?:\s+be)?"
    r"|\banswer\s+(?:would|should|might|may)\s+(?:then\s+|instead\s+|actually\s+)?be)"
    r"\s*:?\s*(\$[^$\n]{1,60}\$|\\\(.{1,60}?\\\)|-?\d[\d,]*(?:\.\d+)?)",
    re.IGNORECASE,
)
_SECOND_THOUGHTS = re.compile(
    r"\b(?:probably|perhaps|maybe|arguably|on\s+(?:reflection|second\s+thought)|actually)\b",
    re.IGNORECASE,
)


_GIVEN_NUMBER = re.compile(r"(?<![\d.,])\d+(?:[.,]\d+)*(?![\d.,]*\d)")
_WORKED = re.compile(r"[=+×÷*/^]|\\(?:times|cdot|frac|div)|\s[-−]\s")
_COUNT_OF_THINGS = re.compile(r"\d+(?:[.,]\d+)*\s+[A-Za-z]{3,}")


def _only_restates_the_question(answer: str, output: str, problem: str) -> bool:
    """The output repeats the question's numbers, works nothing out, and ends on a count of
    things ("Mr. Lee teaches 3 classes. Each class has 28 students. …" for how many worksheets
    he needs): it never answers. A median or a set picked from the givens is no count."""
    if _COUNT_OF_THINGS.search(answer) is None or _WORKED.search(output):
        return False
    numbers = set(_GIVEN_NUMBER.findall(output))
    return len(numbers) >= 2 and numbers <= set(_GIVEN_NUMBER.findall(problem))


def _word_of(word: str, gold: str) -> bool:
    """The word is an answer of its own, or one the gold itself uses (\\theta, "none")."""
    return names_a_value(word) or word.lower() in gold.lower()


_RAISED_POINT = re.compile(r"\d·\d")
_RAISED_POINT_READ = re.compile(r"(\d+)\s*(?:\\cdot|·)\s*(\d+)")
# One interval, pair or set, its commas all inside its brackets: "[0, \infty)", "(2, -3)".
_ONE_BRACKETED = re.compile(r"\$?\s*(?:\\left)?[\[(]\s*[^\[\]()]*[\])]\s*\$?")
_GOLD_OR = re.compile(r"(?<=[\w}°])\s*(?:或者?|\\text\{\s*或\s*\})\s*(?=[-\d\\])")
_LATEX_DECIMAL_COMMA = re.compile(r"(?<=\d)\{,\}(?=\d|\\overline)")
_CLOCK_HOUR = re.compile(r"(\d{1,2}):00(?::00)?\s*(?:\\text\s*\{\s*)?([ap])?", re.IGNORECASE)
_HOUR_ASKED = re.compile(r"\b(?:what|which)\s+(?:time|hour)\b|o'clock", re.IGNORECASE)


def _numbered_option_text(gold: str, answer: str, problem: str) -> str:
    """The text of the option a gold numbers ("2" where the problem lists "1) 6.5", "2) 7"),
    where that text is not the number itself and the answer is no option's number ("(3)");
    "" otherwise."""
    label = gold.strip().strip("$").strip("()")
    if not label.isdigit():
        return ""
    listed = options.numbered_options(problem)
    text = listed.get(label, "")
    return "" if text == label or answer.strip().strip("()") in listed else text


def _on_the_hour(gold: str, answer: str, problem: str) -> bool:
    """A clock time on the hour where the question asks for the hour and the gold is its
    number on a twelve-hour clock ("17:00" or "5:00 p.m." for 5)."""
    clock = _CLOCK_HOUR.match(answer.strip())
    if clock is None or not gold.isdigit() or not _HOUR_ASKED.search(problem[-300:]):
        return False
    hour = int(clock.group(1)) + (12 if (clock.group(2) or "").lower() == "p" else 0)
    return 0 < int(gold) <= 12 and hour % 12 == int(gold) % 12


_NONE = re.compile(r"none|no (?:real )?solutions?|no such \w+", re.IGNORECASE)
_COUNT_ASKED = re.compile(r"\bhow many\b|\bnumber of\b", re.IGNORECASE)
_TEXT_WORD = re.compile(r"[^\W\d_]+")
_ARTICLES = frozenset("a an the".split())
_WORDS_ONLY = re.compile(r"[^\W\d_]{2,}(?:[ '-][^\W\d_]+)*")
_JOINS_OR_DENIES = frozenset("and or nor but not no never neither".split())
# Words an answer names its subject with, whatever the question's words: "the limit does not
# exist" for the gold "does not exist".
_SUBJECTS = frozenset(
    "answer limit value result solution it this integral series sequence sum function system"
    " die der das reihe folge funktion la le el il serie série suite fonction función".split()
)
# Words that make a statement a guess ("It most likely diverges"); the hedge detector flags it.
_GUESS_WORDS = frozenset({"most", "likely", "probably", "possibly", "perhaps", "maybe"})
# Words a concluding statement opens with and its verbs, whatever the question's words: "Hence
# the system has infinitely many solutions" for "How many solutions does the system have?".
_STATING_WORDS = frozenset(
    "so hence thus therefore is are has have there will be represents called named ist es est".split()
)


_ROMAN_NUMERALS = {
    numeral: str(value)
    for value, numeral in enumerate("i ii iii iv v vi vii viii ix x".split(), start=1)
}
_TEXT_IN_MATH = re.compile(r"\\(?:text|textbf|textit|mathrm|mbox)\s*\{([^{}]*)\}")


def _words_in_math(expression: str) -> str:
    """The words an expression sets in ``\\text{}`` and its kin, joined; "" without them."""
    return " ".join(_TEXT_IN_MATH.findall(expression)) if "\\" in expression else ""


def _names_the_gold(gold: str, expression: str, problem: str) -> bool:
    """A text answer that is the gold's words with only articles, a subject ("the limit does
    not exist") and words of the question around them: "a thursday" for "Thursday", "an odd
    function" for "odd" when the question asks whether "the function" is even, odd, or
    neither. Another option or a negation ("odd and even", "not odd") is not the gold."""
    gold_text = _gold_words(gold)
    if not _WORDS_ONLY.fullmatch(gold_text):  # "-i" is mathematics
        return False
    gold_words = _TEXT_WORD.findall(gold_text)
    answer_words = _TEXT_WORD.findall(_same_words(expression.lower()))
    if not gold_words or len(answer_words) > len(gold_words) + 6:
        return False
    size = len(gold_words)
    at = next(
        (
            i
            for i in range(len(answer_words) - size + 1)
            if answer_words[i : i + size] == gold_words
        ),
        None,
    )
    if at is None:
        return False
    rest = (
        set(answer_words[:at] + answer_words[at + size :])
        - _ARTICLES
        - _SUBJECTS
        - _STATING_WORDS
        - _GUESS_WORDS
    )
    question = set(_TEXT_WORD.findall(problem.lower()))
    return not rest & _JOINS_OR_DENIES and rest <= question


# One classification in the words a verb or an adjective gives it: "converges conditionally"
# is "conditionally convergent".
_WORD_FORMS = (
    (re.compile(r"\bconverges?,?\s+but\s+not\s+absolutely\b"), "conditionally convergent"),
    (re.compile(r"\bconverges?\s+(conditionally|absolutely)\b"), r"\1 convergent"),
    (re.compile(r"\b(?:does\s*n[o']t|do\s*n[o']t)\s+converge\b|\bnot\s+convergent\b"), "divergent"),
    (re.compile(r"\bconverges?\b|\bkonvergiert\b|\bkonvergent\b|\bconvergente?\b"), "convergent"),
    (
        re.compile(r"\bdiverges?\b|\bdivergiert\b|\bdivergente?\b|расходится|发散|発散"),
        "divergent",
    ),
    # other names of one class ("not prime" is composite; "inconsistent" has no solution)
    (re.compile(r"\bnot\s+(?:a\s+)?prime(?:\s+number)?\b"), "composite"),
    (re.compile(r"\binconsistent\b"), "no solution"),
    (re.compile(r"\benneagon\b"), "nonagon"),
    (re.compile(r"\b(?:regular\s+)?hexahedron\b"), "cube"),
    (re.compile(r"\bsaddle\b(?!\s+point)"), "saddle point"),
    (re.compile(r"奇函数|奇関数|\bungerade\b|\bimpaire?\b"), " odd "),
    (re.compile(r"偶函数|偶関数"), " even "),
    # "neither even nor odd", "ni par ni impar": the answer "neither", with what it denies
    (re.compile(r"\b(?:neither|ni)\s+[a-zé]+\s+(?:nor|ni)\s+[a-zé]+\b"), "neither"),
)


def _same_words(text: str) -> str:
    for pattern, words in _WORD_FORMS:
        text = pattern.sub(words, text)
    return text


def _gold_words(gold: str) -> str:
    """A text gold's words, lower case, in the forms ``_same_words`` gives them."""
    return _same_words(re.sub(r"\\text(?:bf)?\{([^{}]*)\}", r"\1", gold).strip().lower())


def _clauses(sentence: str) -> list[str]:
    """The sentence, then each of its clauses between commas, semicolons, colons, dashes and
    brackets ("Leo has more money — 5 cents more than Maya", "Priya is the oldest (Tom is
    in the middle …)")."""
    return [sentence, *re.split(r"[,;:，；：()—–]", sentence)]


def _names_part_of_the_gold(gold: str, expression: str) -> bool:
    """A text answer whose words are some of the gold's, not all: "Converges" for
    "conditionally convergent"."""
    gold_words = set(_TEXT_WORD.findall(_gold_words(gold)))
    answer_words = set(_TEXT_WORD.findall(_same_words(expression.lower()))) - _ARTICLES
    return bool(answer_words) and answer_words < gold_words


_NUMBERS = re.compile(r"\d+(?:[.,]\d+)?")
_TWO_UNITS_ASKED = re.compile(
    r"\bin (?:hours|minutes) and (?:minutes|seconds)|\bStunden und Minuten|horas y minutos"
    r"|heures et minutes|часах и минутах|часов и минут|何時間何分|几小时几分",
    re.IGNORECASE,
)
_PLURAL_NOUN = re.compile(r"[a-z]{2,}s")
_COUNTED_NOUN = re.compile(r"(?<![\w.])\d[\d,.]*\**\s+([a-z]{2,}s)\b")


def _counts_another_group(stated: StatedAnswer, problem: str, output: str) -> bool:
    """The gold's value said of another group the question names: "So there are 12 girls and
    18 boys. There are 18 boys." for "How many girls …?" (gold 18) answers about boys."""
    asked = what_is_asked(problem).unit
    counted = _COUNTED_NOUN.search(stated.raw)
    named = counted.group(1) if counted else ""
    if not named or named == asked or not _PLURAL_NOUN.fullmatch(asked):
        return False
    return (
        re.search(rf"\b{named}\b", problem.lower()) is not None
        and re.search(rf"\d\s+{asked}\b", output[-TAIL_CHARS:].lower()) is not None
    )


_DECIMAL_AND_UNIT = re.compile(
    r"(-?\d+(?:\.\d+)?)(?:\s*((?:(?:square|cubic)\s+)?(?:\\text\s*\{[^{}]*\}|[A-Za-z]+)"
    r"(?:\^\{?[23]\}?|[²³])?))?"
)


def _restates_another_value(stated: StatedAnswer) -> bool:
    """The answer gives its value twice and the two disagree ("x = \\frac{19}{6} \\approx 3.83",
    "1/4 (i.e., 0.2)"): one of them is a slip, and which one the output meant is unknown. A
    decimal after ≈ may be rounded or cut to its digits ("\\sqrt{2} \\approx 1.4"); one said
    to be the value ("i.e.", "=") may only be rounded ("1/3 (= 0.33)")."""
    restated = _RESTATED_DECIMAL.search(stated.raw)
    number = _DECIMAL_AND_UNIT.fullmatch(
        (restated.group("decimal") if restated else stated.approximation) or ""
    )
    if number is None:
        return False
    decimal = number.group(1)  # "≈ 48.27 cm²": the number, without its unit
    if number.group(2) and stated.units and number.group(2) != stated.units:
        return False  # "5 miles ≈ 3.11 km": a conversion, not the value said again
    value = numeric_value(stated.expression)
    if value is None:
        return False
    gap = abs(value - float(decimal))
    step = 10.0 ** -len(decimal.partition(".")[2])
    if restated is not None and not restated.group("approx"):
        return (
            gap >= step / 2 - 1e-12 and compare_values(stated.expression, decimal).equal is not True
        )
    # π taken as 3.14 or 22/7 is off by less than 0.05%; "10π ≈ 31.14" by 0.9%: a slip
    return gap >= step and not math.isclose(value, float(decimal), rel_tol=0.005)


# Questions whose answer is one of many: any nonzero multiple of an eigenvector or a normal
# vector, any basis of a space, any antiderivative; unless the question fixes which one.
_ONE_OF_MANY = re.compile(
    r"\b(?:an?|one|any)\s+(?:(?:nonzero|non-zero|corresponding|associated)\s+)*"
    r"(?:(antiderivative|anti-derivative|primitive)"
    r"|(basis|spanning set)|eigenvector|(?:normal|direction|nonzero|non-zero) vector"
    r"|vector (?:parallel|orthogonal|perpendicular|normal))\b",
    re.IGNORECASE,
)
_ONE_FIXED = re.compile(
    r"\bunit\b|normali[sz]ed|\b(?:length|magnitude|norm)\s+(?:of\s+)?1\b|first (?:component|entry"
    r"|coordinate)|integer (?:entries|components)|\bwhose\b|\bwith\s+(?:first|last|positive)",
    re.IGNORECASE,
)


# A gold with an arbitrary constant: "y = Ce^x", "C_1\cos x + C_2\sin x", "x^2 + K".
_CONSTANT_NAME = re.compile(r"(?<![A-Za-z\\])[CK](?:_\{?\d\}?)?(?![A-Za-z])")


def _states_parts(expression: str, gathered: GatheredParts) -> bool:
    r"""Whether the parts gathered by name stand for the final answer: it holds fewer parts
    than the gold, or it labels them otherwise ("x = 4, f_{\min} = 5" for "minimum 5 at x = 4")
    and states each value gathered."""
    parts = top_level_parts(thousands_separators(expression))
    if len(parts) < len(top_level_parts(gathered.gold)):
        return True
    return (
        "=" in expression
        and all(value in expression for value in top_level_parts(gathered.stated))
        and gathered.equal()
    )


def _one_asked(problem: str) -> str:
    """What a question asking for one of many answers asks for ("antiderivative", "basis",
    "vector"), or empty."""
    asked = _ONE_OF_MANY.search(problem[-400:])
    if asked is None or _ONE_FIXED.search(problem[-400:]):
        return ""
    return "antiderivative" if asked.group(1) else "basis" if asked.group(2) else "vector"


def _unit_asked(problem: str) -> str:
    """The unit the question asks for, by name ("in kilohms", "how many hours")."""
    asked = asked_unit(problem)
    return named_unit(problem) or (asked.name if asked is not None else "")


_INTERVAL_NOTATION_ASKED = re.compile(r"\binterval\s+notation\b|\bas\s+an?\s+interval", re.I)
_INEQUALITY = re.compile(r"[<>≤≥≠]|\\(?:[lg]eq?|neq?)(?![A-Za-z])")
_LETTER = re.compile(r"(?<![\\A-Za-z{])[a-z](?![A-Za-z])")


def _letters(text: str) -> set[str]:
    """The one-letter variables a text names ("x" in "\\{x \\in \\mathbb{R} \\mid x \\le 4\\}")."""
    return set(_LETTER.findall(text))


# An option that is itself several values: "5 and 12" ("(2 and 3)" is inside one value).
_SEVERAL_VALUES = re.compile(r"^[^()\[\]{}]*\band\b")
_OF_WHAT = re.compile(r"\s+of\b.*$")  # "mL of water": the unit, then what it measures
_RATE_IN_WORDS = re.compile(r"\d\s*([A-Za-z]+)\s+per\s+([A-Za-z]+)")


def _in_gold_unit(gold: str, stated: StatedAnswer, problem: str) -> str:
    """The stated value in the gold's unit, where the answer gives it in another unit of the
    same quantity ("1.728 MJ" for 0.48 kWh). A bare gold is taken in the unit the question
    names ("in kilohms"), else in the base unit of the answer's (TJ: joules). Empty when
    nothing converts."""
    rate = _RATE_IN_WORDS.search(stated.raw)
    units = f"{rate.group(1)}/{rate.group(2)}" if rate else _OF_WHAT.sub("", stated.units)
    if not units:  # "400 meters per minute": a rate the reading cut as a clause
        return ""
    words = units.split()
    if stated.compound:  # "7 hours and 30 minutes" reads as 7.5 in the larger unit
        words = words[:1]
    wanted = read_answer(gold).units or _unit_asked(problem)
    factor = None
    # "60 minutes to type the essay": the unit is the longest run of leading words naming one
    for end in range(len(words), 0, -1):
        units = " ".join(words[:end])
        target = wanted or base_unit(units)
        factor = conversion_factor(units, target) if target else None
        if factor is not None:
            break
    value = (
        numeric_value(thousands_separators(stated.expression))
        if factor not in (None, 1.0)
        else None
    )
    return f"{value * factor:.12g}" if value is not None else ""


_POINT = re.compile(r"\(\s*[-−]?[\d.]+\s*,\s*[-−]?[\d.]+\s*\)")


def _one_point_among(gold: str, expression: str) -> bool:
    """The gold is one point and the answer lists several, the gold among them."""
    points = _POINT.findall(expression.replace("\\left", "").replace("\\right", ""))
    return (
        _POINT.fullmatch(gold.strip().strip("$").replace("\\left", "").replace("\\right", ""))
        is not None
        and len(points) > 1
        and any(compare_values(gold, point).equal for point in points)
    )


# An interval or a set, not a point: a square bracket, an infinite end, a union or braces.
_SET_OR_INTERVAL = re.compile(
    r"^\s*(?=.*(?:[\[\]]|\\infty|\\cup|\\\{))(?:[\[(].*,.*[\])]|\\\{.*\\\})\s*$"
)


def _lists_values(expression: str) -> bool:
    """True for "7 and 13" or "3, 5", not for "14{,}916", "32,\\! 349" or the decimal comma
    of "8,25"."""
    if _DECIMAL_COMMA.fullmatch(expression.strip()):
        return False
    if ";" in expression and "," not in expression:
        expression = expression.replace(";", ",")  # "4;\\ -1": values listed as in Russian
    # A spacing command inside a number goes ("32,\! 349"); "\ " after a comma spaces a list.
    return is_multi_part(thousands_separators(re.sub(r"\\[!,;:]|(?<=,)\s+", "", expression)))


# A gold that is an equation for one letter ("x=3", "y = 2x + 1").
_GOLD_HEAD = re.compile(r"\s*([A-Za-z])\s*=(?!.*=)")


def _compare(gold: str, stated: StatedAnswer) -> Comparison:
    expression = stated.expression
    # "10:15 \text{ AM}", "4:15 AM on Wednesday", "1 day, 2 hours and 50 minutes": the words
    # the reading left out say which day, which half of it, how long
    named = calendar.compare(gold, stated.raw)
    if named is not None:
        return Comparison(named, "synonym")
    if _MERIDIEM.fullmatch(stated.units):  # "08:34 P.M." is read as a time of day, not 08:34
        expression = f"{expression} {stated.units}"
    gold_head = _GOLD_HEAD.match(gold)
    if gold_head and len(stated.head) == 1 and stated.head != gold_head[1]:
        # "y = 3" for the line "x = 3": the letter the equation names is part of the answer
        return compare_values(gold, f"{stated.head} = {expression}")
    comparison = compare_values(gold, expression, allow_rename=bool(stated.head_variable))
    if not comparison.equal:
        # A gold written with its unit ("10 cm^2", "3 weeks") states the number the answer
        # gives, when the answer names no other unit.
        gold_read = read_answer(gold)
        if (
            gold_read.units
            and stated.units.lower() in ("", gold_read.units.lower())
            and not _MERIDIEM.fullmatch(gold_read.units)  # "1:12 p.m.": a time, not 1:12 in "p.m."
        ):
            bare = compare_values(gold_read.expression, expression)
            if bare.equal:
                return bare
    if comparison.equal is False and stated.approximation:
        rounded = compare_values(gold, stated.approximation)
        if rounded.equal:
            return rounded
    if not comparison.equal and equal_up_to_constant(gold, expression):
        return Comparison(True, "numeric_probe")
    if comparison.equal is False and _CENTS.match(stated.units) and _DOLLARS.search(gold):
        # "60 cents" for "$0.60": one amount of money in the smaller unit
        in_dollars = compare_values(gold, f"\\frac{{{stated.expression}}}{{100}}")
        if in_dollars.equal:
            return in_dollars
    return comparison


# A question that asks for a percent in words ("What percent …?", "Ile to procent?").
_PERCENT_ASKED = re.compile(
    r"\b(?:percent(?:age)?|per cent|prozent|pourcentage|porcentaje|porcentagem|percentuale"
    r"|procent|процентов)\b[^.?!]*\?",
    re.IGNORECASE,
)


def _percent_taken_as_fraction(gold: str, stated: StatedAnswer, problem: str) -> bool:
    """A percent equal to a bare gold only as a fraction, where the question asks for a
    percent, so the gold is one: "2 %" (0.02) for the gold 0.02 %."""
    if "%" not in stated.expression or "%" in gold or not _PERCENT_ASKED.search(problem[-300:]):
        return False
    number = _PERCENT_SIGN.sub("", stated.expression).strip().lstrip("-")
    # either sign: "decreased by 4%" is the change -4 (percent)
    return not any(compare_values(gold, value).equal for value in (number, f"-{number}"))


def _written_in(gold: str, text: str) -> bool:
    """``text`` states the gold, as written (spaces and dollars aside), as the value of an
    equation: "= \\sqrt{74} \\approx", not "A = \\pi r^2"."""
    bare = re.escape(re.sub(r"[\s$]", "", gold))
    # the value may be followed by its unit ("= 10π cm")
    pattern = rf"=\{{?{bare}\}}?(?:\\approx|≈|\\\)|\\\]|[.,;]|[A-Za-z]{{2}}|$)"
    return re.search(pattern, re.sub(r"[\s$]", "", unicode_to_latex(text))) is not None


_DECIMAL_PLACES = re.compile(r"-?\d*\.(\d+)")


def _rounded_alike(gold: str, answer: str) -> bool:
    """Two decimals, the answer with no more places than the gold ("7.38" for 7.39): another
    rounding, so a wrong one, not an approximation of the gold."""
    gold_places, answer_places = (
        _DECIMAL_PLACES.fullmatch(gold.strip()),
        _DECIMAL_PLACES.fullmatch(answer.strip()),
    )
    return (
        gold_places is not None
        and answer_places is not None
        and len(answer_places.group(1)) <= len(gold_places.group(1))
    )


def _comparison_signals(
    comparison: Comparison, stated: StatedAnswer, gold: str, problem: str, output_tail: str
) -> list[str]:
    found = []
    if comparison.undefined:
        found.append("undefined_value")
    if comparison.renamed and not comparison.equal:
        found.append("variable_name")
    if (
        comparison.approximately
        and not _rounded_alike(gold, stated.expression)
        and (not forms.demands_exact_form(problem) or _written_in(gold, output_tail))
    ):
        # A decimal where the question asks for an exact value is wrong, unless the output
        # wrote the exact value too and then rounded it ("c = \\sqrt{74} \\approx 8.602"):
        # then it knew the answer and a person decides.
        found.append("approximate_answer")
    if comparison.equal and comparison.method == "numeric_probe":
        found.append("numeric_probe")
    if comparison.positive_only:
        found.append("equal_if_positive")
    if comparison.string_only:
        found.append("string_fallback")
    if comparison.rounded:
        found.append("rounding_match")
    return found


def _other_readings(
    stated: StatedAnswer,
    weight: int,
    candidates: Candidates,
    evaluations: tuple[Evaluation, ...],
    problem: str = "",
    decimal_commas: bool = False,
    gathered: bool = False,
) -> dict[str, tuple[str, ...]]:
    """Of the evaluators that reject an answer shown correct, which read the stated answer
    itself (equal in value) and which read a value the output never states as an answer
    although it states one plainly (weight 2 or more). Only those can explain a disagreement
    to the jury, so the others are not compared."""
    same, misread = [], []
    evaluations = tuple(e for e in evaluations if e.verdict is Verdict.INCORRECT)
    parts = {read_answer(box.text).expression for box in candidates.closing_boxes()}
    # "(1) 8, (2) 7.5": the parts of a statement that labels them
    parts.update(part.strip(" ,") for part in _PART_LABEL.split(stated.expression)[2::2])
    if gathered:  # each part of an answer gathered by the parts' names
        parts.update(read_answer(part).expression for part in top_level_parts(stated.expression))
    stated_values = [read_answer(c.text).expression for c in candidates.standing]
    stated_values = [value for value in stated_values if not is_sentence(value)]
    for evaluation in evaluations:
        if evaluation.evaluator not in MATH_READERS or not evaluation.extracted.strip():
            continue
        theirs = read_answer(evaluation.extracted).expression
        if decimal_commas:  # "2{,}5" read as 25 by a reader that knows no decimal comma
            theirs = theirs.replace("{,}", ".").replace(",", ".")
        if _equal(stated.expression, theirs):
            same.append(evaluation.evaluator)
        elif (
            theirs in parts
            or (gathered and thousands_separators(theirs) in parts)
            or (weight >= 2 and not any(_equal(value, theirs) for value in stated_values))
            or _given_in(theirs, problem)
        ):
            # Only part of an answer stated in several boxes, or a value stated nowhere.
            misread.append(evaluation.evaluator)
    return {"same_reading": tuple(same), "misread": tuple(misread)}


def _given_in(value: str, problem: str) -> bool:
    """A value written in the problem statement itself ("uses $\\frac{3}{8}$ cup of oil"):
    a reader that took it from a restated question read the data, not the answer."""
    bare = re.sub(r"\s|\$", "", value)
    return len(bare) >= 2 and bare in re.sub(r"\s|\$", "", problem)


def _all_equal(values: tuple[str, ...]) -> bool:
    """Alternatives that state one value ("g(2) = +4" and "g(2) = -4" do not: their values,
    the heads read off, differ)."""
    first, *rest = (read_answer(value).expression for value in values)
    return all(_equal(first, other) for other in rest)


def _equal(first: str, second: str) -> bool:
    return first == second or bool(compare_values(first, second).equal)


def _joined_parts(candidates: Candidates, multi_part: bool) -> str:
    """For a gold of several parts stated in several closing boxes, those boxes as one."""
    boxes = candidates.closing_boxes() if multi_part else ()
    return ", ".join(box.text for box in boxes)


# A part named by a word: "\text{mean } 6.14", "Median = 6", "mode: 8", "Mean ≈ 6.14".
_NAMED_PART = re.compile(
    r"^\W*([A-Za-z](?:-?[A-Za-z]){2,}(?:\s[A-Za-z]{2,}){0,2})\s*(?:=|:|≈|\\approx|\bis\b)?\s*"
    r"([-−$\\\d(].*)$"
)
# A closing list of labelled values: "- **Center:** $(3, -5)$" then "- **Radius:** $5$".
_LABELLED_LINE = re.compile(r"^\s*(?:[-*•]\s+)?\**([A-Za-z][\w\- ]{1,30}?)\**\s*:\**\s*(\S.*)$")


def _closing_labelled_lines(output: str) -> str:
    """The labelled lines an output ends on, as one statement ("Center (3, -5); Radius 5"),
    or "" when its last line is no labelled value."""
    parts = []
    for line in reversed(output.rstrip().splitlines()[-_MOST_LABELLED_LINES:]):
        labelled = _LABELLED_LINE.match(line.replace("$", ""))
        if labelled is None:
            break
        parts.append(f"{labelled.group(1).strip()} {labelled.group(2).strip(' .*')}")
    return "; ".join(reversed(parts)) if len(parts) >= 2 else ""


_MOST_LABELLED_LINES = 6
_TEXT_COMMAND = re.compile(r"\\(?:text|mathrm|textbf)\{([^{}]*)\}")


def _named_parts(text: str) -> dict[str, str]:
    """{"mean": "6.14", "median": "6", …} for a statement whose every part a word names."""
    plain = _TEXT_COMMAND.sub(r"\1", text.replace("\\ ", " ").replace("\\,", " ")).strip("*$ .")
    parts = {}
    pieces = [p for part in top_level_parts(plain) for p in re.split(r";\s*", part)]
    for piece in pieces:
        named = _NAMED_PART.match(piece.strip())
        if named is None:
            return {}
        parts[named.group(1).strip().lower()] = named.group(2).strip()
    return parts if len(parts) >= 2 else {}


def _parts_named_as_in_gold(text: str, gold: str) -> tuple[str, str] | None:
    """The gold's values and the statement's, in the gold's order, when both name the same
    parts by words ("mean 6.14, median 6, mode 8" and "Mean ≈ 6.14, median = 6, mode = 8")."""
    gold_parts = _named_parts(gold)
    stated = _named_parts(text) if gold_parts else {}
    if not stated or stated.keys() != gold_parts.keys():
        return None
    # Each part is compared alone ("Radius: \sqrt{25} = 5", "Foci: (2 - \sqrt5, -1) and
    # (2 + \sqrt5, -1)"); a part equal to the gold's is given in the gold's words.
    values = []
    for name, gold_value in gold_parts.items():
        value = chain_sides(stated[name])[-1]
        values.append(gold_value if compare_values(gold_value, value).equal else value)
    return ", ".join(gold_parts.values()), ", ".join(values)


# A part named without a colon: "Center (2, -3)", "radius 5", "radius is 5".
# The value is mathematics alone: "25% or 20%" and "-12 and -5" go on in words.
_LABEL_BEFORE_VALUE = re.compile(
    r"^\s*([A-Za-z][A-Za-z\- ]{1,30}?)\s+(?:is\s+|=\s*)?([-−(\[\d\\](?!.*[A-Za-z]{2}).*)$"
)


def _parts_labelled_in_sentence(sentence: str, gold: str) -> tuple[str, str] | None:
    """The gold's values and the sentence's, when the sentence labels each of as many parts
    as the gold has ("Center: (−3, 2), radius: 5" or "Center (2, -3), radius 5" for
    "(-3,2),\\ r=5")."""
    gold_parts = top_level_parts(gold.replace("\\ ", " "))
    pieces = top_level_parts(sentence.replace("$", "").strip(" .*"))
    if len(gold_parts) < 2 or len(pieces) != len(gold_parts):
        return None
    labelled = [_LABELLED_LINE.match(piece) or _LABEL_BEFORE_VALUE.match(piece) for piece in pieces]
    if not all(labelled):
        return None
    gold_values = ", ".join(read_answer(part).expression for part in gold_parts)
    if _TEXT_COMMAND.search(gold_values):
        return None  # parts the gold names in words, read by _parts_named_as_in_gold or not at all
    return gold_values, ", ".join(label.group(2).strip() for label in labelled)


def _labelled_parts(text: str, gold: str) -> str:
    """For a gold of several parts, a statement that labels its parts ("(1) 众数为 8；(2) 中位数为
    7.5") as each part's value, labelled as the gold labels them ("(1) 8, (2) 7.5"); "" if
    it labels fewer than two or a part states nothing."""
    labels = list(_PART_LABEL.finditer(text))
    if len(labels) < 2:
        return ""
    keep_labels = _PART_LABEL.match(gold.strip()) is not None
    parts = []
    for label, following in zip(labels, [*labels[1:], None], strict=True):
        piece = text[label.end() : following.start() if following else len(text)]
        value = read_answer(piece.strip(_PART_SEPARATORS)).expression
        if not value:
            return ""
        parts.append(f"({label.group(1)}) {value}" if keep_labels else value)
    return ", ".join(parts)
