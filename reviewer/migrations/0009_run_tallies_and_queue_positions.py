"""Counts kept by the database, and the review queue's order stored on each row.

Pages of a large run used to count its rows and sort them by a computed queue rank on every
request. Now triggers keep both as rows are written, whatever writes them (grading, reviews,
rulings, re-grading, raw SQL):

- ``Item.queue_position``: rank * 2**32 + row_number, the rank being 0 evaluators split,
  1 flagged, 2 in the spot check (a hash of the row's id below the run's
  ``spot_check_percent``), 3 the rest; computed before each insert and each update of the
  columns it depends on.
- ``RunTally``: after each statement that writes items, reviews or assignments, one row per
  run it touched with how the run's counts changed (PostgreSQL: from the statement's
  transition tables; SQLite, one writer at a time: added to the run's newest row). A run's
  counts are the sums.

Existing rows get their positions and their runs one tally each.
"""

# ruff: noqa: S608 -- the SQL is built from this module's constants, never from input

import django.db.models.deletion
from django.db import migrations, models

import reviewer.models.runs

ITEMS, RUNS, REVIEWS, ASSIGNMENTS, TALLIES = (
    "reviewer_item",
    "reviewer_run",
    "reviewer_review",
    "reviewer_assignment",
    "reviewer_runtally",
)
STRIDE = 2**32
# A copy of reviewer.models.runs.TALLY_COUNTS as it stood: column -> condition on an item.
COUNTS = {
    "total": "TRUE",
    "pending": "grade_state = 'pending'",
    "graded": "grade_state = 'graded'",
    "quarantined": "grade_state = 'quarantined'",
    "auto_correct": "auto_verdict = 'correct'",
    "auto_incorrect": "auto_verdict = 'incorrect'",
    "flagged": "needs_review",
    "reviewed": "final_source = 'human'",
    "final_correct": "final_verdict = 'correct'",
    "final_incorrect": "final_verdict = 'incorrect'",
}
# The columns the queue position depends on: an update that sets one of them recomputes it.
POSITION_INPUTS = "evaluators_disagree, needs_review, grade_state, row_number, queue_position"
TALLY_COLUMNS = ", ".join(["run_id", "changes", *COUNTS, "graded_generation", "last_graded_at"])


def _position(row: str, percent: str) -> str:
    """The queue position of item ``row`` (NEW, or a table alias), in SQL both databases run."""
    bucket = f"({row}.id * 2654435761 % 4294967296) * 100 / 4294967296"
    return (
        f"(CASE WHEN {row}.evaluators_disagree THEN 0 WHEN {row}.needs_review THEN 1 "
        f"WHEN {row}.grade_state = 'graded' AND {bucket} < ({percent}) THEN 2 ELSE 3 END) "
        f"* {STRIDE} + {row}.row_number"
    )


def _run_percent(row: str) -> str:
    return f"SELECT spot_check_percent FROM {RUNS} WHERE id = {row}.run_id"


# ---- PostgreSQL ---------------------------------------------------------------------------

_PG_SIDES = ", ".join(["run_id", *(f"({c})::int AS {n}" for n, c in COUNTS.items())])
_PG_GRADED = "grade_state <> 'pending'"
POSTGRESQL = f"""
CREATE FUNCTION reviewer_item_queue_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.queue_position := {_position("NEW", _run_percent("NEW"))};
    RETURN NEW;
END;
$$;
CREATE TRIGGER reviewer_item_queue_position_insert BEFORE INSERT ON {ITEMS}
    FOR EACH ROW EXECUTE FUNCTION reviewer_item_queue_position();
CREATE TRIGGER reviewer_item_queue_position_update BEFORE UPDATE OF {POSITION_INPUTS} ON {ITEMS}
    FOR EACH ROW EXECUTE FUNCTION reviewer_item_queue_position();

-- One tally row per run a statement wrote: +1 for each count a new row is in, -1 for each an
-- old row was in, and the newest grading among the rows it graded.
CREATE FUNCTION reviewer_item_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {TALLIES} ({TALLY_COLUMNS})
        SELECT run_id, count(*), {", ".join(f"count(*) FILTER (WHERE {c})" for c in COUNTS.values())},
            max(graded_generation) FILTER (WHERE {_PG_GRADED}),
            max(graded_at) FILTER (WHERE {_PG_GRADED})
        FROM new_rows GROUP BY run_id ORDER BY run_id;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO {TALLIES} ({TALLY_COLUMNS})
        SELECT run_id, count(*) FILTER (WHERE side = 1), {", ".join(f"sum(side * {n})" for n in COUNTS)},
            max(graded_generation) FILTER (WHERE side = 1 AND is_graded),
            max(graded_at) FILTER (WHERE side = 1 AND is_graded)
        FROM (
            SELECT 1 AS side, {_PG_SIDES}, graded_generation, graded_at, {_PG_GRADED} AS is_graded
            FROM new_rows
            UNION ALL
            SELECT -1, {_PG_SIDES}, graded_generation, graded_at, FALSE FROM old_rows
        ) AS sides GROUP BY run_id ORDER BY run_id;
    ELSE
        INSERT INTO {TALLIES} ({TALLY_COLUMNS})
        SELECT run_id, count(*), {", ".join(f"-count(*) FILTER (WHERE {c})" for c in COUNTS.values())},
            NULL, NULL
        FROM old_rows GROUP BY run_id ORDER BY run_id;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER reviewer_item_tally_insert AFTER INSERT ON {ITEMS}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_item_tally();
CREATE TRIGGER reviewer_item_tally_update AFTER UPDATE ON {ITEMS}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION reviewer_item_tally();
CREATE TRIGGER reviewer_item_tally_delete AFTER DELETE ON {ITEMS}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_item_tally();

-- Reviews change no count, but they change the statistics: a change for their runs.
CREATE FUNCTION reviewer_review_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {TALLIES} (run_id, changes)
        SELECT i.run_id, count(*) FROM new_rows AS r JOIN {ITEMS} AS i ON i.id = r.item_id
        GROUP BY i.run_id ORDER BY i.run_id;
    ELSE
        INSERT INTO {TALLIES} (run_id, changes)
        SELECT i.run_id, count(*) FROM old_rows AS r JOIN {ITEMS} AS i ON i.id = r.item_id
        GROUP BY i.run_id ORDER BY i.run_id;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER reviewer_review_tally_insert AFTER INSERT ON {REVIEWS}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_review_tally();
CREATE TRIGGER reviewer_review_tally_delete AFTER DELETE ON {REVIEWS}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_review_tally();

-- Assignments: how many a run has (a run with any has its review queue split).
CREATE FUNCTION reviewer_assignment_tally() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO {TALLIES} (run_id, assigned)
        SELECT i.run_id, count(*) FROM new_rows AS a JOIN {ITEMS} AS i ON i.id = a.item_id
        GROUP BY i.run_id ORDER BY i.run_id;
    ELSE
        INSERT INTO {TALLIES} (run_id, assigned)
        SELECT i.run_id, -count(*) FROM old_rows AS a JOIN {ITEMS} AS i ON i.id = a.item_id
        GROUP BY i.run_id ORDER BY i.run_id;
    END IF;
    RETURN NULL;
END;
$$;
CREATE TRIGGER reviewer_assignment_tally_insert AFTER INSERT ON {ASSIGNMENTS}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_assignment_tally();
CREATE TRIGGER reviewer_assignment_tally_delete AFTER DELETE ON {ASSIGNMENTS}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION reviewer_assignment_tally();

-- Deleting a run deletes its items, whose triggers tally them once more: drop what is left.
CREATE FUNCTION reviewer_run_tallies_drop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM {TALLIES} WHERE run_id = OLD.id;
    RETURN NULL;
END;
$$;
CREATE TRIGGER reviewer_run_tallies_drop AFTER DELETE ON {RUNS}
    FOR EACH ROW EXECUTE FUNCTION reviewer_run_tallies_drop();
"""
POSTGRESQL_DROP = f"""
DROP TRIGGER IF EXISTS reviewer_run_tallies_drop ON {RUNS};
DROP TRIGGER IF EXISTS reviewer_assignment_tally_insert ON {ASSIGNMENTS};
DROP TRIGGER IF EXISTS reviewer_assignment_tally_delete ON {ASSIGNMENTS};
DROP TRIGGER IF EXISTS reviewer_review_tally_insert ON {REVIEWS};
DROP TRIGGER IF EXISTS reviewer_review_tally_delete ON {REVIEWS};
DROP TRIGGER IF EXISTS reviewer_item_tally_insert ON {ITEMS};
DROP TRIGGER IF EXISTS reviewer_item_tally_update ON {ITEMS};
DROP TRIGGER IF EXISTS reviewer_item_tally_delete ON {ITEMS};
DROP TRIGGER IF EXISTS reviewer_item_queue_position_insert ON {ITEMS};
DROP TRIGGER IF EXISTS reviewer_item_queue_position_update ON {ITEMS};
DROP FUNCTION IF EXISTS reviewer_run_tallies_drop();
DROP FUNCTION IF EXISTS reviewer_assignment_tally();
DROP FUNCTION IF EXISTS reviewer_review_tally();
DROP FUNCTION IF EXISTS reviewer_item_tally();
DROP FUNCTION IF EXISTS reviewer_item_queue_position();
"""


# ---- SQLite -------------------------------------------------------------------------------


def _sqlite_newest_tally(run_id: str) -> str:
    return f"SELECT max(id) FROM {TALLIES} WHERE run_id = {run_id}"


def _sqlite_tally_ensure(run_id: str) -> str:
    return (
        f"INSERT INTO {TALLIES} ({TALLY_COLUMNS}) SELECT {run_id}, "
        + ", ".join(["0"] * (1 + len(COUNTS)))
        + f", NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM {TALLIES} WHERE run_id = {run_id});"
    )


def _sqlite_tally_add(*, new: bool, old: bool) -> str:
    """Add the NEW row's counts and take away the OLD row's, in the run's newest tally."""
    sets = ["changes = changes + 1"]
    for name, condition in COUNTS.items():
        terms = [name]
        if new:
            terms.append(f"+ ({_on('NEW', condition)})")
        if old:
            terms.append(f"- ({_on('OLD', condition)})")
        sets.append(f"{name} = {' '.join(terms)}")
    if new:
        graded, newer = (
            "NEW.grade_state <> 'pending'",
            "NEW.graded_generation > coalesce(graded_generation, -1)",
        )
        sets.append(
            f"graded_generation = CASE WHEN {graded} AND {newer} THEN NEW.graded_generation "
            "ELSE graded_generation END"
        )
        # SET expressions see the tally as it was, so graded_generation here is the old one.
        sets.append(
            f"last_graded_at = CASE WHEN NOT ({graded}) THEN last_graded_at "
            f"WHEN {newer} THEN NEW.graded_at "
            "WHEN NEW.graded_generation = graded_generation THEN "
            "coalesce(max(last_graded_at, NEW.graded_at), last_graded_at, NEW.graded_at) "
            "ELSE last_graded_at END"
        )
    run_id = "NEW.run_id" if new else "OLD.run_id"
    return f"UPDATE {TALLIES} SET {', '.join(sets)} WHERE id = ({_sqlite_newest_tally(run_id)});"


def _on(row: str, condition: str) -> str:
    """An item condition of COUNTS on the trigger's NEW or OLD row."""
    if condition == "TRUE":
        return "1"
    column, _, rest = condition.partition(" ")
    return f"{row}.{column} {rest}".strip()


_SQLITE_POSITION = _position("NEW", _run_percent("NEW"))
SQLITE = [
    # AFTER triggers cannot change NEW, so they update the row; the WHEN clause stops the
    # update from firing the trigger again.
    f"""CREATE TRIGGER reviewer_item_queue_position_insert AFTER INSERT ON {ITEMS}
    BEGIN UPDATE {ITEMS} SET queue_position = {_SQLITE_POSITION} WHERE id = NEW.id; END""",
    f"""CREATE TRIGGER reviewer_item_queue_position_update AFTER UPDATE OF {POSITION_INPUTS}
    ON {ITEMS} WHEN NEW.queue_position IS NOT ({_SQLITE_POSITION})
    BEGIN UPDATE {ITEMS} SET queue_position = {_SQLITE_POSITION} WHERE id = NEW.id; END""",
    f"""CREATE TRIGGER reviewer_item_tally_insert AFTER INSERT ON {ITEMS} BEGIN
    {_sqlite_tally_ensure("NEW.run_id")}
    {_sqlite_tally_add(new=True, old=False)}
    END""",
    f"""CREATE TRIGGER reviewer_item_tally_update AFTER UPDATE ON {ITEMS} BEGIN
    {_sqlite_tally_ensure("NEW.run_id")}
    {_sqlite_tally_add(new=True, old=True)}
    END""",
    f"""CREATE TRIGGER reviewer_item_tally_delete AFTER DELETE ON {ITEMS} BEGIN
    {_sqlite_tally_add(new=False, old=True)}
    END""",
    f"""CREATE TRIGGER reviewer_review_tally_insert AFTER INSERT ON {REVIEWS} BEGIN
    UPDATE {TALLIES} SET changes = changes + 1 WHERE id = ({
        _sqlite_newest_tally(f"(SELECT run_id FROM {ITEMS} WHERE id = NEW.item_id)")
    });
    END""",
    f"""CREATE TRIGGER reviewer_review_tally_delete AFTER DELETE ON {REVIEWS} BEGIN
    UPDATE {TALLIES} SET changes = changes + 1 WHERE id = ({
        _sqlite_newest_tally(f"(SELECT run_id FROM {ITEMS} WHERE id = OLD.item_id)")
    });
    END""",
    *(
        f"""CREATE TRIGGER reviewer_assignment_tally_{event.lower()} AFTER {event}
    ON {ASSIGNMENTS} BEGIN
    UPDATE {TALLIES} SET assigned = assigned {sign} 1 WHERE id = ({
            _sqlite_newest_tally(f"(SELECT run_id FROM {ITEMS} WHERE id = {row}.item_id)")
        });
    END"""
        for event, sign, row in (("INSERT", "+", "NEW"), ("DELETE", "-", "OLD"))
    ),
    f"""CREATE TRIGGER reviewer_run_tallies_drop AFTER DELETE ON {RUNS} BEGIN
    DELETE FROM {TALLIES} WHERE run_id = OLD.id;
    END""",
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "reviewer_item_queue_position_insert",
        "reviewer_item_queue_position_update",
        "reviewer_item_tally_insert",
        "reviewer_item_tally_update",
        "reviewer_item_tally_delete",
        "reviewer_review_tally_insert",
        "reviewer_review_tally_delete",
        "reviewer_assignment_tally_insert",
        "reviewer_assignment_tally_delete",
        "reviewer_run_tallies_drop",
    )
]


def _execute(schema_editor, sql: str) -> None:
    """Run ``sql`` as it is: with no parameters, its ``%`` are SQL's modulo."""
    schema_editor.execute(sql, params=None)


def triggers_create(apps, schema_editor) -> None:
    """The triggers, then every existing row's position (the update trigger computes it) and
    one tally per run, counted from its items and assignments."""
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        _execute(schema_editor, POSTGRESQL)
    elif vendor == "sqlite":
        for statement in SQLITE:
            _execute(schema_editor, statement)
    else:
        raise NotImplementedError(f"no tally triggers for {vendor}")
    _execute(schema_editor, f"UPDATE {ITEMS} SET queue_position = 0")
    if vendor == "postgresql":  # the planner's figures for the new positions
        _execute(schema_editor, f"ANALYZE {ITEMS}")
    _execute(schema_editor, f"DELETE FROM {TALLIES}")
    counts = ", ".join(f"sum(CASE WHEN {c} THEN 1 ELSE 0 END)" for c in COUNTS.values())
    graded = "grade_state <> 'pending'"
    _execute(
        schema_editor,
        f"INSERT INTO {TALLIES} ({TALLY_COLUMNS}) SELECT run_id, count(*), {counts}, "
        f"max(CASE WHEN {graded} THEN graded_generation END), "
        f"max(CASE WHEN {graded} THEN graded_at END) FROM {ITEMS} GROUP BY run_id",
    )
    _execute(
        schema_editor,
        f"UPDATE {TALLIES} SET assigned = (SELECT count(*) FROM {ASSIGNMENTS} AS a "
        f"JOIN {ITEMS} AS i ON i.id = a.item_id WHERE i.run_id = {TALLIES}.run_id)",
    )


def triggers_drop(apps, schema_editor) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        _execute(schema_editor, POSTGRESQL_DROP)
    else:
        for statement in SQLITE_DROP:
            _execute(schema_editor, statement)


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0008_gradingchunk_generated_origin"),
    ]

    operations = [
        migrations.CreateModel(
            name="RunTally",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("changes", models.BigIntegerField(db_default=0)),
                ("total", models.BigIntegerField(db_default=0)),
                ("pending", models.BigIntegerField(db_default=0)),
                ("graded", models.BigIntegerField(db_default=0)),
                ("quarantined", models.BigIntegerField(db_default=0)),
                ("auto_correct", models.BigIntegerField(db_default=0)),
                ("auto_incorrect", models.BigIntegerField(db_default=0)),
                ("flagged", models.BigIntegerField(db_default=0)),
                ("reviewed", models.BigIntegerField(db_default=0)),
                ("final_correct", models.BigIntegerField(db_default=0)),
                ("final_incorrect", models.BigIntegerField(db_default=0)),
                ("assigned", models.BigIntegerField(db_default=0)),
                ("graded_generation", models.PositiveIntegerField(null=True)),
                ("last_graded_at", models.DateTimeField(null=True)),
            ],
        ),
        migrations.AddField(
            model_name="item",
            name="queue_position",
            field=models.BigIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="run",
            name="spot_check_percent",
            field=models.PositiveSmallIntegerField(
                default=reviewer.models.runs.spot_check_percent_now
            ),
        ),
        migrations.AddField(
            model_name="runtally",
            name="run",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="tallies",
                to="reviewer.run",
            ),
        ),
        # The index before the rows' positions are written: written after, it could not serve
        # queries until every transaction older than the migration had ended.
        migrations.AddIndex(
            model_name="item",
            index=models.Index(fields=["run", "queue_position"], name="item_queue_order"),
        ),
        migrations.RunPython(triggers_create, triggers_drop),
    ]
