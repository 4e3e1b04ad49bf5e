"""Notion lists: the value both extractors return, and the one normalisation they share.

MSU compares the notions (keywords) of a model's solution with those of the human solution,
so both lists must be written alike: lower case, single spaces, no duplicates, sorted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

MAX_NOTION_CHARS = 100  # longer than any notion: a sentence or a pasted solution, not a keyword

_SPACES = re.compile(r"\s+")
_LIST_MARKER = re.compile(r"^(?:[-*\u2022]+|\d{1,3}[.)])\s+")
_EDGE_PUNCTUATION = " \t\n\"'`.,;:!?*_"
# Typographic quotes and dashes become ASCII so "Vieta’s" and "Vieta's" are one notion.
_ASCII_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)


@dataclass(frozen=True)
class Notions:
    """The notions read from one solution, with the extractor (name and version) that read them."""

    notions: tuple[str, ...]
    extractor: str
    extractor_version: str

    def to_dict(self) -> dict:
        return {
            "notions": list(self.notions),
            "extractor": self.extractor,
            "extractor_version": self.extractor_version,
        }


class NotionExtractor(Protocol):
    """Reads the notions of a solution; ``name`` and ``version`` are stored with every score."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def extract(self, solution: str) -> Notions: ...


def ascii_punctuation(text: str) -> str:
    """Typographic apostrophes, quotes and dashes as their ASCII forms."""
    return text.translate(_ASCII_PUNCTUATION)


def normalise_notion(text: str) -> str:
    """One notion as stored: NFKC, lower case, single spaces, no list marker or edge punctuation."""
    text = ascii_punctuation(unicodedata.normalize("NFKC", text)).lower()
    text = _SPACES.sub(" ", text).strip()
    text = _LIST_MARKER.sub("", text)
    return text.strip(_EDGE_PUNCTUATION)


def normalise_notions(items: Iterable[str]) -> tuple[str, ...]:
    """A sorted list without duplicates or empty entries; entries over 100 characters are dropped."""
    notions = {normalise_notion(item) for item in items}
    return tuple(sorted(n for n in notions if n and len(n) <= MAX_NOTION_CHARS))
