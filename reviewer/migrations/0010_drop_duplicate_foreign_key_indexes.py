"""Drop the indexes Django made for Item.run and Evaluation.item: item_unique_row (run,
row_number) and evaluation_unique (item, evaluator) start with the same column and serve the
same lookups, and each index is one more write for every row graded.

The state changes with AlterField, the database with DROP INDEX: on SQLite, AlterField would
rebuild the table, and with it drop the triggers of migration 0009.
"""

from django.db import migrations, models

# The names Django gave them (the same on PostgreSQL and SQLite).
INDEXES = (
    ("reviewer_item_run_id_24d50853", "reviewer_item", "run_id"),
    ("reviewer_evaluation_item_id_aff22a3b", "reviewer_evaluation", "item_id"),
)


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0009_run_tallies_and_queue_positions"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="item",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.CASCADE,
                        related_name="items",
                        to="reviewer.run",
                    ),
                ),
                migrations.AlterField(
                    model_name="evaluation",
                    name="item",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.CASCADE,
                        related_name="evaluations",
                        to="reviewer.item",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {name}",
                    reverse_sql=f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column})",
                )
                for name, table, column in INDEXES
            ],
        ),
    ]
