"""The columns of an adjudicated dataset: the source row, the jury's decision, one trio per
evaluator, MSU and the final decision, with each column's kind. Plain Python, like
``formats`` (which writes them) and ``dataset_card``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "str", "int", "float", "bool", "datetime" or "list" (of strings)


# The source row under the canonical names the upload page guesses, so an export uploads again.
SOURCE_COLUMNS = (
    Column("item_id", "int"),
    Column("run_id", "int"),
    Column("row_number", "int"),
    Column("id", "str"),
    Column("problem", "str"),
    Column("gold", "str"),
    Column("output", "str"),
    Column("model", "str"),
    Column("subject", "str"),
    Column("sample_index", "int"),
    Column("finish_reason", "str"),
    Column("solution", "str"),
)
JURY_COLUMNS = (
    Column("grade_state", "str"),
    Column("answer_type", "str"),
    Column("jury_verdict", "str"),
    Column("jury_needs_review", "bool"),
    Column("jury_reasons", "list"),
    Column("evaluators_disagree", "bool"),
    Column("graded_at", "datetime"),
)
# MSU against the human solution (docs/msu.md): empty when the run has none. The extractor is
# "lexical" when notions were read from the text rather than by an LLM, and the embedding
# model "hashed-bag-of-notions-..." when no semantic embedding was configured.
MSU_COLUMNS = (
    Column("msu", "float"),
    Column("msu_overlap", "float"),
    Column("msu_keywords_model", "list"),
    Column("msu_keywords_human", "list"),
    Column("msu_extractor", "str"),
    Column("msu_extractor_version", "str"),
    Column("msu_embedding_model", "str"),
)
EVALUATOR_FIELDS = (("verdict", "str"), ("status", "str"), ("extracted", "str"))
DECISION_COLUMNS = (
    Column("final_verdict", "str"),
    Column("final_source", "str"),
    Column("reviewed_by", "str"),
    Column("review_note", "str"),
    Column("reviewed_at", "datetime"),
    Column("review_count", "int"),
)


@dataclass(frozen=True)
class DatasetSchema:
    """The columns of one run's export, and the column each extra (unmapped) source key gets."""

    columns: tuple[Column, ...]
    extra_columns: dict[str, str]  # source key -> column name
    evaluators: tuple[str, ...]


def evaluator_column(evaluator: str, part: str) -> str:
    return f"eval_{evaluator}_{part}"


def dataset_schema(*, evaluators: Sequence[str], extra_keys: Iterable[str]) -> DatasetSchema:
    """Fixed columns, then the source file's other columns, then one trio per evaluator.

    An extra key that collides with a fixed column is exported as ``extra_<key>``.
    """
    evaluator_columns = [
        Column(evaluator_column(name, part), kind)
        for name in evaluators
        for part, kind in EVALUATOR_FIELDS
    ]
    taken = {c.name for c in (*SOURCE_COLUMNS, *JURY_COLUMNS, *MSU_COLUMNS, *DECISION_COLUMNS)}
    taken.update(c.name for c in evaluator_columns)
    extra_columns: dict[str, str] = {}
    for key in sorted(set(extra_keys)):
        name = key
        while name in taken:
            name = f"extra_{name}"
        taken.add(name)
        extra_columns[key] = name
    columns = (
        *SOURCE_COLUMNS,
        *(Column(name, "str") for name in extra_columns.values()),
        *JURY_COLUMNS,
        *evaluator_columns,
        *MSU_COLUMNS,
        *DECISION_COLUMNS,
    )
    return DatasetSchema(tuple(columns), extra_columns, tuple(evaluators))
