"""The fields a row of model outputs can have, the column names each is known by, and the
guess of which column holds which field.

The rule for a column named ``answer``, which some files use for the model's answer and others
for the reference: it is the model output, unless the file already has an output column (by
one of the names below) and no gold column, in which case it is the gold answer. A file with
both a gold and an output column keeps ``answer`` as an ordinary column.
"""

from __future__ import annotations

CANONICAL_FIELDS = (
    "gold",
    "output",
    "problem",
    "id",
    "model",
    "subject",
    "sample_index",
    "finish_reason",
    "solution",
)
REQUIRED_FIELDS = ("gold", "output")

# Column names recognised for each field, after normalise(), the canonical name first.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "output": (
        "output",
        "prediction",
        "pred",
        "response",
        "completion",
        "model_output",
        "generation",
        "generated_text",
    ),
    "gold": ("gold", "gt", "ground_truth", "target", "gold_answer", "reference", "expected"),
    "problem": ("problem", "question", "prompt", "input", "query"),
    "id": ("id", "problem_id", "unique_id", "uid", "idx"),
    "model": ("model", "model_name"),
    "subject": ("subject", "category", "type", "topic"),
    "sample_index": ("sample_index", "sample_idx", "sample", "sample_id"),
    "finish_reason": ("finish_reason", "stop_reason"),
    # The human (reference) solution MSU compares the output with; MATH calls it "solution".
    "solution": ("solution", "human_solution", "reference_solution"),
}
ANSWER_COLUMN = "answer"


def normalise(column: str) -> str:
    """A column name as the alias table writes it: ``Gold Answer`` is ``gold_answer``."""
    return column.strip().lower().replace(" ", "_").replace("-", "_")


def guess_mapping(columns: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    """Field -> column from the alias table and the ``answer`` rule, and the fields whose guess
    rests on the name ``answer`` alone (the upload page asks a person to confirm them)."""
    by_name = {normalise(column): column for column in reversed(columns)}
    mapping: dict[str, str] = {}
    for field, names in COLUMN_ALIASES.items():
        for name in names:
            if name in by_name and by_name[name] not in mapping.values():
                mapping[field] = by_name[name]
                break
    from_answer: list[str] = []
    if ANSWER_COLUMN in by_name:
        for field in ("output", "gold") if "gold" in mapping else ("gold", "output"):
            if field not in mapping and ("output" in mapping or field == "output"):
                mapping[field] = by_name[ANSWER_COLUMN]
                from_answer.append(field)
                break
    ordered = {field: mapping[field] for field in CANONICAL_FIELDS if field in mapping}
    return ordered, tuple(from_answer)
