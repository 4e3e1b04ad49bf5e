"""The lexical extractor's word list: parsing its two data files and indexing their phrases.

``math_terms.txt`` holds notions with their kind, subject and synonyms; ``latex_commands.txt``
maps LaTeX commands to the same notions. Phrases are indexed by canonical words (singular, no
possessive, no -ed/-ing), generated from the list itself so no stemmer can invent a match.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

SUBJECTS = (
    "prealgebra",
    "algebra",
    "counting_and_probability",
    "geometry",
    "intermediate_algebra",
    "number_theory",
    "precalculus",
)
KINDS = ("term", "theorem", "method")
TERMS_FILE = "math_terms.txt"
LATEX_FILE = "latex_commands.txt"

WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|[0-9]+")
_LATEX_ITEM = re.compile(r"\\(?:begin\{([A-Za-z]+)\}|([A-Za-z]+))")
# Endings whose plural is not "-s": radius/radii, matrix/matrices, axis/axes, maximum/maxima.
_IRREGULAR_PLURALS = (
    ("us", "i"),
    ("ix", "ices"),
    ("ex", "ices"),
    ("is", "es"),
    ("um", "a"),
    ("on", "a"),
)
# Short words that only glue phrases together: their made-up inflections ("thing") must not match.
_GLUE_WORDS = frozenset({"the", "and", "for", "than", "with", "onto"})


class WordListError(ValueError):
    """A line of a data file that cannot be read; the message names the file and the line."""


@dataclass(frozen=True)
class Term:
    """One notion of the word list and the phrases that name it (its own name first)."""

    notion: str
    kind: str
    subject: str
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class PhraseIndex:
    """Phrases as tuples of canonical words, and the map from any word form to its canonical word."""

    canonical: dict[str, str]
    phrases: dict[tuple[str, ...], str]
    starts: dict[str, int]  # first word of a phrase -> the longest phrase that starts with it

    def canonical_words(self, text: str) -> list[str]:
        """The canonical form of each word of a lower-case text."""
        words = []
        for token in WORD.findall(text):
            token = strip_possessive(token)
            words.append(self.canonical.get(token, token))
        return words


@dataclass(frozen=True)
class WordList:
    """Both data files, parsed and indexed, with a digest that changes whenever either changes."""

    terms: tuple[Term, ...]
    latex: dict[str, str]  # "frac" -> "fraction"; environments as "begin{pmatrix}"
    index: PhraseIndex
    digest: str


def strip_possessive(token: str) -> str:
    return token[:-2] if token.endswith("'s") else token


def parse_terms(text: str, source: str = TERMS_FILE) -> tuple[Term, ...]:
    """Read ``notion | kind | synonyms`` lines under ``[subject]`` headings."""
    terms: list[Term] = []
    seen: set[str] = set()
    subject = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {number}"
        if line.startswith("["):
            subject = line.strip("[]").strip()
            if subject not in SUBJECTS:
                raise WordListError(
                    f"{where}: unknown subject [{subject}]; expected one of {SUBJECTS}"
                )
            continue
        if not subject:
            raise WordListError(f"{where}: a notion before the first [subject] heading")
        fields = [field.strip() for field in line.split("|")]
        if len(fields) != 3:
            raise WordListError(f"{where}: expected 'notion | kind | synonyms', got {line!r}")
        notion, kind, synonyms = fields
        if kind not in KINDS:
            raise WordListError(f"{where}: unknown kind {kind!r}; expected one of {KINDS}")
        if not notion or notion != notion.lower():
            raise WordListError(f"{where}: the notion must be written in lower case: {notion!r}")
        if notion in seen:
            raise WordListError(f"{where}: {notion!r} is listed twice")
        seen.add(notion)
        phrases = (notion, *(s.strip() for s in synonyms.split(";") if s.strip()))
        terms.append(Term(notion=notion, kind=kind, subject=subject, phrases=phrases))
    return tuple(terms)


def parse_latex_commands(text: str, notions: set[str], source: str = LATEX_FILE) -> dict[str, str]:
    r"""Read ``notion | \command \begin{environment} ...`` lines; every notion must be in the list."""
    commands: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}, line {number}"
        notion, _, items = (part.strip() for part in line.partition("|"))
        if notion not in notions:
            raise WordListError(f"{where}: {notion!r} is not a notion of {TERMS_FILE}")
        for item in items.split():
            match = _LATEX_ITEM.fullmatch(item)
            if not match:
                raise WordListError(
                    f"{where}: {item!r} is not a \\command or \\begin{{environment}}"
                )
            key = f"begin{{{match[1]}}}" if match[1] else match[2]
            if commands.setdefault(key, notion) != notion:
                raise WordListError(f"{where}: {item} already means {commands[key]!r}")
    return commands


def word_forms(word: str) -> set[str]:
    """The inflections of a base word that the text may use: plurals, possessives, -ed, -ing."""
    forms = {word + "s", word + "es", word + "'"}
    if word.endswith("y") and word[-2] not in "aeiou":
        forms |= {word[:-1] + "ies", word[:-1] + "ied"}
    if word.endswith("e"):
        forms |= {word + "d", word[:-1] + "ing"}
    else:
        forms |= {word + "ed", word + "ing"}
        if word[-1] not in "aeiouwxy":  # sum -> summed, plug -> plugging
            forms |= {word + word[-1] + "ed", word + word[-1] + "ing"}
    for ending, plural in _IRREGULAR_PLURALS:
        if word.endswith(ending) and len(word) > len(ending) + 2:
            forms.add(word[: -len(ending)] + plural)
    return forms


def build_phrase_index(terms: tuple[Term, ...], source: str = TERMS_FILE) -> PhraseIndex:
    """Index every phrase by canonical words; a phrase that names two notions is an error."""
    vocabulary = {strip_possessive(w) for t in terms for p in t.phrases for w in WORD.findall(p)}
    canonical: dict[str, str] = {}
    # Shorter words first, so "formula" claims "formulas" before "formulas" stands for itself.
    for word in sorted(vocabulary, key=lambda w: (len(w), w)):
        base = canonical.setdefault(word, word)
        if len(word) >= 3 and word not in _GLUE_WORDS and not word.isdigit():
            for form in word_forms(word):
                canonical.setdefault(form, base)
    phrases: dict[tuple[str, ...], str] = {}
    for term in terms:
        for phrase in term.phrases:
            key = tuple(canonical[strip_possessive(w)] for w in WORD.findall(phrase))
            if not key:
                raise WordListError(f"{source}: {term.notion!r} has a synonym with no words")
            if phrases.setdefault(key, term.notion) != term.notion:
                raise WordListError(
                    f"{source}: {phrase!r} (a name of {term.notion!r}) reads the same as a name"
                    f" of {phrases[key]!r}"
                )
    starts: dict[str, int] = {}
    for key in phrases:
        starts[key[0]] = max(starts.get(key[0], 0), len(key))
    return PhraseIndex(canonical=canonical, phrases=phrases, starts=starts)


def parse_word_list(terms_text: str, latex_text: str) -> WordList:
    """Both data files as one indexed word list."""
    terms = parse_terms(terms_text)
    latex = parse_latex_commands(latex_text, {t.notion for t in terms})
    digest = hashlib.sha256(f"{terms_text}\0{latex_text}".encode()).hexdigest()[:10]
    return WordList(terms=terms, latex=latex, index=build_phrase_index(terms), digest=digest)


@cache
def default_word_list() -> WordList:
    """The word list shipped in this package, read once per process."""
    folder = resources.files(__package__)
    return parse_word_list(
        (folder / TERMS_FILE).read_text(encoding="utf-8"),
        (folder / LATEX_FILE).read_text(encoding="utf-8"),
    )
