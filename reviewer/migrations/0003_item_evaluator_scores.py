"""Item.evaluator_scores: each evaluator's score kept on the item, filled from the evaluations
items already have."""

from django.db import migrations, models

BATCH = 5000
# The scoring rule and the text format as they stood when the field was added
# (EvaluatorScore.of_result, evaluator_scores_text), copied so that this migration gives the
# same result whatever the model later becomes.
SCORED_STATUSES = ("ok", "no_answer", "parse_error")


def _score(status: str, verdict: str) -> str:
    if verdict == "correct":
        return "c"
    return "i" if status in SCORED_STATUSES else "x"


def evaluator_scores_fill(apps, schema_editor) -> None:
    """Write the scores of every item that has evaluations, a batch of items at a time; the
    items of a batch with the same scores (a jury gives few distinct ones) share one UPDATE."""
    Item = apps.get_model("reviewer", "Item")
    Evaluation = apps.get_model("reviewer", "Evaluation")
    last = 0
    while True:
        item_ids = list(
            Item.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:BATCH]
        )
        if not item_ids:
            return
        last = item_ids[-1]
        scores: dict[int, dict[str, str]] = {}
        evaluations = Evaluation.objects.filter(item_id__in=item_ids).values_list(
            "item_id", "evaluator", "status", "verdict"
        )
        for item_id, evaluator, status, verdict in evaluations:
            scores.setdefault(item_id, {})[evaluator] = _score(status, verdict)
        items_by_text: dict[str, list[int]] = {}
        for item_id, by_evaluator in scores.items():
            text = " ".join(f"{name}:{score}" for name, score in sorted(by_evaluator.items()))
            items_by_text.setdefault(text, []).append(item_id)
        for text, ids in items_by_text.items():
            Item.objects.filter(pk__in=ids).update(evaluator_scores=text)


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0002_export_and_review_idempotency"),
    ]

    operations = [
        migrations.AddField(
            model_name="item",
            name="evaluator_scores",
            field=models.TextField(blank=True, default=""),
            preserve_default=False,
        ),
        migrations.RunPython(evaluator_scores_fill, migrations.RunPython.noop, elidable=True),
    ]
