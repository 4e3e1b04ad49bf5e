"""The dataset card that goes beside an export: counts, accuracy before and after review,
evaluator agreement and who reviewed, gathered while the rows stream past (no Django)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from operator import itemgetter

from reviewer.services.exports.formats import Column, evaluator_column
from reviewer.services.exports.written import KEY_SEPARATOR, WrittenRows, message_key

VERDICTS = ("correct", "incorrect", "gold_wrong", "unclear")
# The columns the card counts from, in the order CardTally._count takes them.
_FIXED = (
    "grade_state",
    "jury_needs_review",
    "jury_verdict",
    "final_verdict",
    "final_source",
    "reviewed_by",
    "reviewed_at",
)
# The values of a written row's key (``WrittenRows``), in order: these columns, then each
# evaluator's verdict, then the newest review's time (YYYY-MM-DD HH:MM:SS.ffffff, UTC) if a
# person decided the row; each written as text (flags as t or f, NULL as nothing) and
# separated by KEY_SEPARATOR.
KEY_COLUMNS = _FIXED[:-1]


@dataclass
class CardTally:
    """Counts for the dataset card, gathered while the rows stream past (one pass, flat memory)."""

    evaluators: Sequence[str]
    rows: int = 0
    graded: int = 0
    not_graded: int = 0
    flagged: int = 0
    human: int = 0
    jury: Counter = field(default_factory=Counter)
    final: Counter = field(default_factory=Counter)
    reviewers: Counter = field(default_factory=Counter)
    first_review: datetime | None = None
    last_review: datetime | None = None
    # evaluator -> rows where it and the final verdict are both correct/incorrect, and agree
    compared: Counter = field(default_factory=Counter)
    agreed: Counter = field(default_factory=Counter)
    answered: Counter = field(default_factory=Counter)
    unanimous: int = 0
    split: int = 0

    def counted(self, rows: Iterable[dict]) -> Iterator[dict]:
        """Pass ``rows`` through, counting each."""
        for row in rows:
            self.add(row)
            yield row

    def counted_records(
        self, values: Iterable[tuple] | WrittenRows, columns: Sequence[Column]
    ) -> Iterator[tuple] | WrittenRows:
        """Pass records (tuples in ``columns`` order), or rows the database wrote, through,
        counting each.

        Rows are grouped by the values the card reads (a few hundred kinds in a large run, the
        review times apart) and each kind counted once at the end: a C-level tally per row
        instead of a Python call.
        """
        if isinstance(values, WrittenRows):
            return self.counted_written(values)
        return self._counted_records(values, columns)

    def _counted_records(self, values: Iterable[tuple], columns: Sequence[Column]):
        where = {column.name: i for i, column in enumerate(columns)}
        read = itemgetter(
            *[where[name] for name in _FIXED],
            *[where[evaluator_column(name, "verdict")] for name in self.evaluators],
        )
        kinds: Counter = Counter()
        for record in values:
            kinds[read(record)] += 1
            yield record
        fixed = len(_FIXED)
        for kind, rows in kinds.items():
            self._count(*kind[:fixed], list(kind[fixed:]), rows=rows)

    def counted_written(self, rows: WrittenRows) -> WrittenRows:
        """Pass rows the database wrote (``WrittenRows``) through, counting each by its key."""
        return rows.passing(partial(self._counted_messages, key=message_key(rows.format)))

    def _counted_messages(self, messages: Iterable, key) -> Iterator:
        kinds: Counter = Counter()
        first = last = b""
        separator = KEY_SEPARATOR.encode()
        for message in messages:
            kind, _, at = key(message).rpartition(separator)
            kinds[kind] += 1
            if at:
                first = min(at, first or at)
                last = max(at, last)
            yield message
        fixed = len(KEY_COLUMNS)
        for kind, rows in kinds.items():
            values = [value or None for value in kind.decode().split(KEY_SEPARATOR)]
            state, needs_review, *others = values[:fixed]
            self._count(state, needs_review == "t", *others, None, values[fixed:], rows=rows)
        if first:
            self.first_review = min(_utc(first), self.first_review or _utc(first))
            self.last_review = max(_utc(last), self.last_review or _utc(last))

    def add(self, row: dict) -> None:
        verdicts = [row.get(evaluator_column(name, "verdict")) for name in self.evaluators]
        self._count(*[row.get(name) for name in _FIXED], verdicts)

    def _count(
        self, state, needs_review, jury, final, source, reviewed_by, at, verdicts: list, rows=1
    ) -> None:
        """Count ``rows`` rows that all have these values."""
        self.rows += rows
        self.graded += rows * (state == "graded")
        self.not_graded += rows * (state == "quarantined")
        self.flagged += rows * bool(needs_review)
        self.jury[jury or "none"] += rows
        final = final or "none"
        self.final[final] += rows
        if source == "human":
            self.human += rows
            self.reviewers[reviewed_by or "(deleted user)"] += rows
            if at is not None:
                self.first_review = min(at, self.first_review or at)
                self.last_review = max(at, self.last_review or at)
        answered = []
        for name, verdict in zip(self.evaluators, verdicts, strict=True):
            if verdict in ("correct", "incorrect"):
                answered.append(verdict)
                self.answered[name] += rows
                if final in ("correct", "incorrect"):
                    self.compared[name] += rows
                    self.agreed[name] += rows * (verdict == final)
        if len(answered) >= 2:
            if len(set(answered)) == 1:
                self.unanimous += rows
            else:
                self.split += rows

    def card(self, *, about: dict, evaluator_versions: dict[str, list[str]]) -> dict:
        """The card as plain JSON data; ``about`` says which run, export and filters."""
        before = _ratio(self.jury["correct"], self.jury["correct"] + self.jury["incorrect"])
        after = _ratio(self.final["correct"], self.final["correct"] + self.final["incorrect"])
        return {
            **about,
            "counts": {
                "rows": self.rows,
                "graded": self.graded,
                "not_graded": self.not_graded,
                "flagged_for_review": self.flagged,
                "reviewed_by_a_person": self.human,
                "jury_verdicts": _verdict_counts(self.jury, ("correct", "incorrect")),
                "final_verdicts": _verdict_counts(self.final, VERDICTS),
                "gold_errata": self.final["gold_wrong"],
            },
            "accuracy": {
                "before_adjudication": before,
                "after_adjudication": after,
                "note": "correct / (correct + incorrect); before = the jury's verdicts, after = "
                "the final verdicts (gold-wrong and unclear rows are left out)",
            },
            "evaluator_agreement": {
                "all_evaluators_agree": _ratio(self.unanimous, self.unanimous + self.split),
                "rows_with_two_or_more_verdicts": self.unanimous + self.split,
                "with_final_verdict": {
                    name: {
                        "agreement": _ratio(self.agreed[name], self.compared[name]),
                        "rows_compared": self.compared[name],
                        "rows_answered": self.answered[name],
                    }
                    for name in self.evaluators
                },
            },
            "review": {
                "reviewers": dict(self.reviewers.most_common()),
                "first_review_at": _iso(self.first_review),
                "last_review_at": _iso(self.last_review),
            },
            "evaluator_versions": evaluator_versions,
        }


def _utc(at: bytes) -> datetime:
    return datetime.fromisoformat(at.decode("ascii")).replace(tzinfo=UTC)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


def _verdict_counts(counter: Counter, verdicts: Sequence[str]) -> dict[str, int]:
    return {**{v: counter[v] for v in verdicts}, "none": counter["none"]}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def card_json(card: dict) -> bytes:
    return (json.dumps(card, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


def card_markdown(card: dict) -> str:
    """The card for people: what the dataset is, how it was decided, and by whom."""
    counts, accuracy = card["counts"], card["accuracy"]
    agreement, review = card["evaluator_agreement"], card["review"]
    lines = [
        f"# {card['run']['name']}",
        "",
        "Adjudicated dataset exported from MathJury: model outputs to math problems, graded by "
        "several evaluators, combined by a jury, and reviewed by people where the jury asked.",
        "",
        "| | |",
        "|---|---|",
        f"| project | {_md(card['run']['project'])} |",
        f"| model | {_md(card['run']['model'] or '–')} |",
        f"| dataset | {_md(card['run']['dataset'] or '–')} |",
        f"| source file | {_md(card['run']['source_filename'])} (SHA-256 "
        f"`{card['run']['source_sha256'][:16]}…`) |",
        f"| exported | {card['export']['created_at']} as {card['export']['format']} |",
        f"| rows chosen | {_md(card['export']['filters_text'])} |",
        "",
        "## Counts",
        "",
        "| rows | graded | not graded | flagged for review | reviewed by a person | gold errata |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {counts['rows']} | {counts['graded']} | {counts['not_graded']} | "
        f"{counts['flagged_for_review']} | {counts['reviewed_by_a_person']} | "
        f"{counts['gold_errata']} |",
        "",
        "| final verdict | rows |",
        "|---|---:|",
        *(f"| {verdict} | {n} |" for verdict, n in counts["final_verdicts"].items()),
        "",
        "## Accuracy",
        "",
        f"- before adjudication (the jury): {_percent(accuracy['before_adjudication'])}",
        f"- after adjudication (final verdicts): {_percent(accuracy['after_adjudication'])}",
        "",
        "Accuracy is correct / (correct + incorrect); rows whose gold is wrong or that are "
        "unclear are left out.",
        "",
        "## Evaluator agreement",
        "",
        f"All evaluators that gave a verdict agree on "
        f"{_percent(agreement['all_evaluators_agree'])} of the "
        f"{agreement['rows_with_two_or_more_verdicts']} rows with two or more verdicts.",
        "",
        "| evaluator | version | agrees with the final verdict | rows compared |",
        "|---|---|---:|---:|",
        *(
            f"| {name} | {', '.join(card['evaluator_versions'].get(name, [])) or '–'} | "
            f"{_percent(stats['agreement'])} | {stats['rows_compared']} |"
            for name, stats in agreement["with_final_verdict"].items()
        ),
        "",
        "## Review",
        "",
    ]
    if review["reviewers"]:
        lines += [
            f"Reviewed between {review['first_review_at']} and {review['last_review_at']}.",
            "",
            "| reviewer | rows decided |",
            "|---|---:|",
            *(f"| {_md(name)} | {n} |" for name, n in review["reviewers"].items()),
        ]
    else:
        lines.append("No row was reviewed by a person: every final verdict is the jury's.")
    lines += [
        "",
        "## Columns",
        "",
        "`id`, `problem`, `gold`, `output` and the source file's other columns as uploaded; "
        "`jury_verdict` and `jury_reasons` from the automatic grading; "
        "`eval_<evaluator>_verdict|status|extracted` per evaluator; `final_verdict` with "
        "`final_source` (`auto` or `human`), and the newest review's `reviewed_by`, "
        "`review_note` and `reviewed_at`; `msu` (how close the output's notions are to the "
        "human solution's, docs/msu.md) with `msu_keywords_model`, `msu_keywords_human`, "
        "`msu_extractor` and `msu_embedding_model`.",
        "",
    ]
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _md(text: str) -> str:
    """Text inside a Markdown table cell: no pipes or line breaks to break the table."""
    return " ".join(str(text).replace("|", "\\|").split())
