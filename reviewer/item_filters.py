"""The run table's filters, listed once: the run page's form, the API's query parameters, the
export form and exports' stored filters are all built from ``ITEM_FILTERS``, and
``reviewer.selectors.item_filter`` applies them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from grading.evaluators import AVAILABLE as AVAILABLE_EVALUATORS
from grading.reasons import MESSAGES as REASON_MESSAGES
from grading.types import AnswerType
from reviewer.models import ReviewVerdict

YES_NO = "yes_no"  # a yes / no / any filter
CHOICE = "choice"  # one of ``choices``, or any
TEXT = "text"  # free text
ORDERS = ("flagged", "row")
# MSU bands of the "msu" filter and the stats page: right answers below MSU_LOW and wrong
# answers at MSU_HIGH or above are the rows whose reasoning and verdict disagree.
MSU_LOW = 0.4
MSU_HIGH = 0.7


@dataclass(frozen=True)
class ItemFilter:
    """One filter: its query-string name, its label, and what it accepts."""

    name: str
    label: str
    kind: str
    choices: tuple[tuple[str, str], ...] = ()  # (value, label) for CHOICE, "any" left out
    any_label: str = "any"
    help: str = ""
    # False for the row order and a person's queue: how to look at rows, not which rows an
    # export holds.
    narrows_rows: bool = True


ITEM_FILTERS: tuple[ItemFilter, ...] = (
    ItemFilter("needs_review", "Needs review", YES_NO),
    ItemFilter("disagree", "Evaluators disagree", YES_NO),
    ItemFilter(
        "verdict",
        "Final verdict",
        CHOICE,
        (*ReviewVerdict.choices, ("none", "none yet")),
        help="'none': no verdict yet",
    ),
    ItemFilter(
        "answer_type",
        "Answer type",
        CHOICE,
        tuple((t.value, t.value.replace("_", " ")) for t in AnswerType),
    ),
    ItemFilter("reviewed", "Reviewed", YES_NO),
    ItemFilter("q", "Search", TEXT, help="text in the problem, gold or output, or the row's id"),
    ItemFilter(
        "order",
        "Order",
        CHOICE,
        (("flagged", "review queue"), ("row", "row number")),
        any_label="",
        help="Review queue: evaluators split, then other flags, then a spot check.",
        narrows_rows=False,
    ),
    # The stats page's confusion-matrix cells link to the run page with these.
    ItemFilter("evaluator", "Evaluator", CHOICE, tuple((n, n) for n in AVAILABLE_EVALUATORS)),
    ItemFilter(
        "evaluator_verdict",
        "Evaluator said",
        CHOICE,
        (("correct", "correct"), ("incorrect", "incorrect or no answer")),
        help="with evaluator: what it said",
    ),
    ItemFilter("human_verdict", "Human said", CHOICE, tuple(ReviewVerdict.choices)),
    ItemFilter(
        "reason",
        "Review reason",
        CHOICE,
        tuple((code, code.replace("_", " ")) for code in REASON_MESSAGES),
    ),
    ItemFilter(
        "msu",
        "MSU",
        CHOICE,
        (
            ("low", f"low (below {MSU_LOW})"),
            ("middle", f"middle ({MSU_LOW} to {MSU_HIGH})"),
            ("high", f"high ({MSU_HIGH} and above)"),
            ("none", "no score"),
        ),
        help="how close the output's notions are to the human solution's (docs/msu.md)",
    ),
    ItemFilter(
        "queue",
        "Queue",
        CHOICE,
        (("mine", "my queue, to do"), ("conflicts", "conflicts")),
        any_label="every row",
        help="'mine': rows in your queue you have not reviewed; 'conflicts': rows whose "
        "blind reviews disagree",
        narrows_rows=False,
    ),
)


@dataclass(frozen=True)
class ItemFilters:
    """Values of ITEM_FILTERS; None or "" means "any"."""

    needs_review: bool | None = None
    disagree: bool | None = None
    verdict: str = ""  # a final verdict, or "none" for rows without one
    answer_type: str = ""
    reviewed: bool | None = None
    q: str = ""
    # "flagged", the review queue: evaluators split, then other flags, then the spot check,
    # then the rest, each by row; "row": by row
    order: str = "flagged"
    evaluator: str = ""  # with evaluator_verdict: what this evaluator said
    evaluator_verdict: str = ""  # "correct", or "incorrect" (incorrect, no answer, parse error)
    human_verdict: str = ""  # the final verdict of a row a human decided
    reason: str = ""  # a review reason code the row carries
    msu: str = ""  # "low", "middle", "high" (bands of MSU_LOW, MSU_HIGH) or "none"
    # "mine": rows in user_id's queue they have not reviewed; "conflicts": rows whose blind
    # reviews disagree
    queue: str = ""
    user_id: int | None = None

    @property
    def every_row(self) -> bool:
        """True when no filter is set: every row of the run, in either order."""
        return self == ItemFilters(order=self.order, user_id=self.user_id)


ROW_FILTER_NAMES = tuple(f.name for f in ITEM_FILTERS if f.narrows_rows)
_YES_NO = {"yes": True, "no": False, True: True, False: False}


def item_filters_from(
    values: Mapping[str, object], *, user_id: int | None = None, order: str = "flagged"
) -> ItemFilters:
    """ItemFilters from checked values by filter name (a form's or a serializer's, yes/no as
    "yes"/"no" or booleans); a missing or empty value is "any", and ``order`` the default."""
    chosen: dict[str, object] = {}
    for spec in ITEM_FILTERS:
        value = values.get(spec.name)
        if value is None or value == "":
            continue
        chosen[spec.name] = _YES_NO.get(value) if spec.kind == YES_NO else value
    return ItemFilters(**{"order": order, **chosen, "user_id": user_id})
