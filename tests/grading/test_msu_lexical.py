"""Lexical notion extraction: what a reviewer would expect to be read from MATH-style solutions."""

from __future__ import annotations

import re

import pytest

from grading.msu.lexical import (
    MAX_QUANTITIES,
    NUMBER_SET_NOTIONS,
    SYMBOL_NOTIONS,
    LexicalExtractor,
    final_answer,
    key_quantities,
    latex_notions,
)
from grading.msu.notions import normalise_notions
from grading.msu.word_list import (
    KINDS,
    SUBJECTS,
    WordListError,
    default_word_list,
    parse_latex_commands,
    parse_terms,
    parse_word_list,
)

# Solutions written for these tests in the style of MATH's human solutions, one per subject.
COUNTING = r"""There are $\binom{10}{3} = 120$ ways to choose the committee. We use complementary
counting: the probability that no woman is chosen is $\frac{\binom{6}{3}}{120} = \frac{1}{6}$, so the
probability that at least one woman is chosen is $1 - \frac{1}{6} = \boxed{\frac{5}{6}}$."""

NUMBER_THEORY = r"""By Fermat's Little Theorem, $2^{10} \equiv 1 \pmod{11}$. Since $2^{100} = (2^{10})^{10}$,
we have $2^{100} \equiv 1 \pmod{11}$, so the remainder when $2^{100}$ is divided by 11 is
$\boxed{1}$."""

GEOMETRY = r"""Triangle $ABC$ is a right triangle with legs 5 and 12, so by the Pythagorean
Theorem the hypotenuse is $\sqrt{5^2 + 12^2} = 13$. Its area is $\frac{1}{2}\cdot 5 \cdot 12 = 30$.
Since $\angle C = 90^\circ$, the circumcircle has the hypotenuse as a diameter, and the
circumradius is $\boxed{\dfrac{13}{2}}$."""

INTERMEDIATE_ALGEBRA = r"""By Vieta’s formulas, the roots $r$ and $s$ of $x^2 - 7x + 10 = 0$ satisfy
$r + s = 7$ and $rs = 10$. By AM–GM, $\frac{r+s}{2} \ge \sqrt{rs}$, and the polynomial factored
as $(x-2)(x-5)$ gives the maximum root $\boxed{5}$."""

PRECALCULUS = r"""The matrix is $\begin{pmatrix} \cos \theta & -\sin \theta \\ \sin \theta & \cos \theta
\end{pmatrix}$, a rotation matrix, so its determinant is $\cos^2 \theta + \sin^2 \theta = 1$ by the
Pythagorean identity. The answer is $\boxed{1}$."""

PREALGEBRA = r"""The least common multiple of 4 and 6 is 12, so we write both fractions over the common
denominator 12: $\frac{3}{4} = \frac{9}{12}$ and $\frac{5}{6} = \frac{10}{12}$. Their sum is
$\frac{19}{12}$, which is about $158\%$ of 1. So the answer is $\boxed{\frac{19}{12}}$."""


@pytest.fixture(scope="module")
def extractor() -> LexicalExtractor:
    return LexicalExtractor()


@pytest.mark.parametrize(
    ("solution", "expected"),
    [
        (
            COUNTING,
            {
                "binomial coefficient",
                "combination",
                "complementary counting",
                "probability",
                "fraction",
                "120",
                "1/6",
                "final answer 5/6",
            },
        ),
        (
            NUMBER_THEORY,
            {"fermat's little theorem", "modular arithmetic", "remainder", "final answer 1"},
        ),
        (
            GEOMETRY,
            {
                "right triangle",
                "pythagorean theorem",
                "hypotenuse",
                "square root",
                "area",
                "angle",
                "angle measure",
                "circumcircle",
                "diameter",
                "circumradius",
                "13",
                "30",
                "final answer 13/2",
            },
        ),
        (
            INTERMEDIATE_ALGEBRA,
            {
                "vieta's formulas",
                "root",
                "am-gm inequality",
                "inequality",
                "polynomial",
                "factoring",
                "maximum",
                "7",
                "10",
                "final answer 5",
            },
        ),
        (
            PRECALCULUS,
            {
                "matrix",
                "rotation matrix",
                "determinant",
                "sine",
                "cosine",
                "pythagorean identity",
                "final answer 1",
            },
        ),
        (
            PREALGEBRA,
            {
                "least common multiple",
                "common denominator",
                "fraction",
                "percent",
                "9/12",
                "10/12",
                "final answer 19/12",
            },
        ),
    ],
    ids=[
        "counting",
        "number_theory",
        "geometry",
        "intermediate_algebra",
        "precalculus",
        "prealgebra",
    ],
)
def test_realistic_solutions_yield_their_notions(extractor, solution, expected):
    notions = extractor.extract(solution)

    assert expected <= set(notions.notions), expected - set(notions.notions)
    assert notions.extractor == "lexical"


def test_notions_are_sorted_unique_and_lower_case(extractor):
    notions = extractor.extract(GEOMETRY + "\n" + GEOMETRY.upper()).notions

    assert list(notions) == sorted(set(notions))
    assert all(n == n.lower() and n == n.strip() for n in notions)


def test_no_words_from_the_lists_of_common_words_or_plain_prose(extractor):
    notions = extractor.extract("We compute the value of the expression and the sum of the terms.")

    assert notions.notions == ()


@pytest.mark.parametrize(
    ("text", "notion"),
    [
        ("the matrices commute", "matrix"),
        ("both radii are equal", "radius"),
        ("the vertices of the polygon", "vertex"),
        ("we factored the quadratic", "factoring"),
        ("completed the square", "completing the square"),
        ("by Vieta's formula", "vieta's formulas"),
        ("by Vieta formulas", "vieta's formulas"),
        ("the probabilities add up", "probability"),
        ("both foci of the ellipse", "focus"),
        ("the Law of Sines", "law of sines"),
        ("using the CAUCHY-SCHWARZ inequality", "cauchy-schwarz inequality"),
        ("Bézout's identity", "bezout's identity"),
        ("a 30-60-90 triangle", "30-60-90 triangle"),
        ("by Menelaus' theorem", "menelaus' theorem"),
    ],
)
def test_plurals_possessives_inflections_and_spellings_are_recognised(extractor, text, notion):
    assert notion in extractor.extract(text).notions


def test_the_longest_phrase_wins(extractor):
    notions = extractor.extract("Use the rational root theorem.").notions

    assert "rational root theorem" in notions
    assert "root" not in notions and "rational number" not in notions


def test_a_phrase_never_spans_punctuation_or_math(extractor):
    assert "right triangle" not in extractor.extract("Turn right. Triangle ABC is small.").notions
    assert "right triangle" not in extractor.extract("right $x$ triangle").notions


def test_latex_command_names_are_not_read_as_words():
    # "choose" in prose is a combination; {n \choose k} is a binomial coefficient.
    notions = LexicalExtractor().extract(r"${10 \choose 3}$").notions

    assert "binomial coefficient" in notions
    assert "combination" not in notions


@pytest.mark.parametrize(
    ("latex", "notion"),
    [
        (r"\sqrt{2}", "square root"),
        (r"\sqrt[3]{2}", "cube root"),
        (r"\sqrt [4]{2}", "nth root"),
        (r"30^\circ", "angle measure"),
        (r"30^{\circ}", "angle measure"),
        (r"f \circ g", "composition of functions"),
        (r"x \in \mathbb{R}", "real number"),
        (r"\left| x \right|", "absolute value"),
        (r"|x - 3| < 2", "absolute value"),
        (r"5! = 120", "factorial"),
        (r"n!", "factorial"),
        (r"25\%", "percent"),
        ("25%", "percent"),
        (r"\begin{bmatrix} 1 \end{bmatrix}", "matrix"),
        (r"\begin{vmatrix} 1 \end{vmatrix}", "determinant"),
        (r"\begin{cases} 1 \end{cases}", "piecewise function"),
        (r"\lfloor x \rfloor", "floor function"),
        (r"a \mid b", "divisibility"),
        ("π r²", "pi"),
        ("x ≤ 3", "inequality"),
    ],
)
def test_latex_and_symbols_give_notions(latex, notion):
    assert notion in LexicalExtractor().extract(latex).notions


def test_an_exclamation_in_prose_is_not_a_factorial():
    assert "factorial" not in LexicalExtractor().extract("Great! So we are done.").notions


def test_every_notion_read_from_latex_is_a_notion_of_the_word_list():
    words = default_word_list()
    commands = " ".join(
        f"\\begin{{{key[6:-1]}}}" if key.startswith("begin{") else f"\\{key}" for key in words.latex
    )
    symbols = "".join(SYMBOL_NOTIONS)
    special = r"\sqrt{2} \sqrt[3]{2} \sqrt[4]{2} 30^\circ f\circ g \left|x\right| |y| 5! 3% \%"
    sets = " ".join(f"\\mathbb{{{letter}}}" for letter in NUMBER_SET_NOTIONS)

    found = latex_notions(f"{commands} {symbols} {special} {sets}", words.latex)

    assert found <= {t.notion for t in words.terms}
    assert len(found) > 50


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"so $x = 5$.", ["5"]),
        (r"\[ 60 \cdot 7 = 420 \]", ["420"]),
        (r"$y = 10{,}000$ and $z=2,500$.", ["10000", "2500"]),
        (r"$p = \dfrac{3}{4}$, $q = -\frac{1}{2}$.", ["3/4", "-1/2"]),
        (r"$x^2 - 5x + 6 = 0$", []),  # "= 0" states an equation to solve
        (r"$2x = y + 3$", []),  # not a result: more follows the number
    ],
)
def test_key_quantities_are_numbers_that_end_an_equation(text, expected):
    assert key_quantities(text) == expected


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (r"first $\boxed{3}$, then corrected: $\boxed{\dfrac{7}{10}}$", "7/10"),
        (r"$\boxed{x^2 + \frac{1}{2}}$", r"x^2 + \frac{1}{2}"),
        (r"$\boxed{10{,}000}$", "10000"),
        (r"\fbox{12}", "12"),
        ("So the answer is $42$.", "42"),
        ("#### 1,234", "1234"),
        ("no answer here", ""),
        (r"\boxed{" + "x" * 500 + "}", ""),  # not a short answer
    ],
)
def test_final_answer(text, answer):
    assert final_answer(text) == answer


def test_only_the_last_distinct_equation_results_are_kept():
    text = " ".join(f"$x_{{{i}}} = {i}$." for i in range(1, 101))

    quantities = key_quantities(text)

    assert len(quantities) == MAX_QUANTITIES
    assert quantities[-1] == "100"


@pytest.mark.parametrize(
    "text",
    [
        (COUNTING + GEOMETRY + PRECALCULUS) * 200,
        "\\" * 100_000,
        "{" * 100_000,
        "\\boxed{" * 14_000,
        "=" * 100_000,
        "= 1" * 33_000,
        "|" * 100_000,
        "x! " * 33_000,
        "right " * 16_000,
        "\\sqrt" * 20_000,
        "1,000" * 20_000,
        "answer is " * 10_000,
        "```" * 33_000,
    ],
    ids=[
        "solutions",
        "backslashes",
        "braces",
        "boxed",
        "equals",
        "equals-one",
        "bars",
        "factorials",
        "words",
        "sqrt",
        "thousands",
        "answer-is",
        "fences",
    ],
)
def test_a_100000_character_input_is_read_in_one_pass(extractor, text):
    # A quadratic pattern would take hours on these; the suite's time-out would fail the test.
    assert len(text) >= 90_000

    notions = extractor.extract(text)

    assert len([n for n in notions.notions if n[0].isdigit()]) <= MAX_QUANTITIES


def test_the_word_list_covers_math_subjects_with_theorems_and_methods():
    terms = default_word_list().terms
    notions = {t.notion for t in terms}

    assert len(terms) >= 300
    for subject in SUBJECTS:
        assert sum(t.subject == subject for t in terms) >= 20, subject
    for kind in KINDS:
        assert sum(t.kind == kind for t in terms) >= 20, kind
    assert {
        "pythagorean theorem",
        "vieta's formulas",
        "complementary counting",
        "am-gm inequality",
        "modular arithmetic",
    } <= notions


def test_the_version_changes_when_the_word_list_changes():
    terms = "[algebra]\nslope | term |\n"
    changed = "[algebra]\nslope | term | gradient\n"

    first = LexicalExtractor(parse_word_list(terms, ""))
    second = LexicalExtractor(parse_word_list(changed, ""))

    assert first.version != second.version
    assert first.version == LexicalExtractor(parse_word_list(terms, "")).version
    assert second.extract("the gradient").notions == ("slope",)


@pytest.mark.parametrize(
    ("terms", "message"),
    [
        ("slope | term |", "line 1: a notion before the first [subject] heading"),
        ("[calculus]\n", "line 1: unknown subject [calculus]"),
        ("[algebra]\nslope | term", "line 2: expected 'notion | kind | synonyms'"),
        ("[algebra]\nslope | idea |", "line 2: unknown kind 'idea'"),
        ("[algebra]\nSlope | term |", "line 2: the notion must be written in lower case"),
        ("[algebra]\nslope | term |\n\nslope | term |", "line 4: 'slope' is listed twice"),
    ],
)
def test_a_bad_word_list_line_is_refused_with_its_line_number(terms, message):
    with pytest.raises(WordListError, match=re.escape(f"math_terms.txt, {message}")):
        parse_terms(terms)


def test_a_phrase_that_names_two_notions_is_refused():
    terms = "[algebra]\nslope | term | gradients\ngradient | term |\n"

    with pytest.raises(WordListError, match="'gradient' .* reads the same as a name of 'slope'"):
        parse_word_list(terms, "")


def test_a_latex_command_for_an_unknown_notion_is_refused():
    with pytest.raises(WordListError, match=r"line 2: 'calculus' is not a notion"):
        parse_latex_commands("# comment\ncalculus | \\int", {"integral"})
    with pytest.raises(WordListError, match=r"line 1: 'frac' is not a \\command"):
        parse_latex_commands("fraction | frac", {"fraction"})


def test_word_list_notions_are_stored_as_written():
    # Both extractors' lists go through the same normalisation; the list's names must survive it.
    notions = [t.notion for t in default_word_list().terms]

    assert list(normalise_notions(notions)) == sorted(notions)
