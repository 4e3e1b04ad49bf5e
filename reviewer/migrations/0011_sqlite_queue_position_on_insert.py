"""SQLite: the queue-position trigger on insert updates a new row only when its position is
not already right, as the trigger on update does (migration 0009). Uploads now insert their
rows with their position (reviewer.services.items_insert), so the trigger no longer writes
every row of an upload twice, and no longer counts each in the run's tally a second time.

PostgreSQL sets the position before the row is written (a BEFORE trigger): nothing changes.
"""

# ruff: noqa: S608 -- the SQL is built from this module's constants, never from input

from django.db import migrations

ITEMS, RUNS = "reviewer_item", "reviewer_run"
# Migration 0009's position of row NEW, as SQLite runs it.
POSITION = (
    "(CASE WHEN NEW.evaluators_disagree THEN 0 WHEN NEW.needs_review THEN 1 "
    "WHEN NEW.grade_state = 'graded' AND (NEW.id * 2654435761 % 4294967296) * 100 / 4294967296 "
    f"< (SELECT spot_check_percent FROM {RUNS} WHERE id = NEW.run_id) THEN 2 ELSE 3 END) "
    "* 4294967296 + NEW.row_number"
)
UPDATE = f"UPDATE {ITEMS} SET queue_position = {POSITION} WHERE id = NEW.id;"
DROP = "DROP TRIGGER IF EXISTS reviewer_item_queue_position_insert"
CONDITIONAL = f"""CREATE TRIGGER reviewer_item_queue_position_insert AFTER INSERT ON {ITEMS}
    WHEN NEW.queue_position IS NOT ({POSITION})
    BEGIN {UPDATE} END"""
ALWAYS = f"""CREATE TRIGGER reviewer_item_queue_position_insert AFTER INSERT ON {ITEMS}
    BEGIN {UPDATE} END"""


def _replace(create: str):
    def replace(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(DROP, params=None)
            schema_editor.execute(create, params=None)

    return replace


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0010_drop_duplicate_foreign_key_indexes"),
    ]

    operations = [migrations.RunPython(_replace(CONDITIONAL), _replace(ALWAYS))]
