"""Team review: assignments, blind double review, equivalence rulings and the audit trail.

The database itself refuses to change or delete an audit event (a trigger on PostgreSQL and
on SQLite), so no code path, admin action or stray SQL can rewrite the trail. Rows graded
before this migration get their answer-pair key from their stored evaluations."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from grading.pairs import pair_key_of

AUDIT_TABLE = "reviewer_auditevent"
REFUSAL = "audit events are append-only: they cannot be changed or deleted"

POSTGRESQL_TRIGGERS = f"""
CREATE FUNCTION reviewer_audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '{REFUSAL}' USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER reviewer_audit_append_only BEFORE UPDATE OR DELETE ON {AUDIT_TABLE}
    FOR EACH ROW EXECUTE FUNCTION reviewer_audit_refuse_change();
"""
POSTGRESQL_TRIGGERS_DROP = f"""
DROP TRIGGER IF EXISTS reviewer_audit_append_only ON {AUDIT_TABLE};
DROP FUNCTION IF EXISTS reviewer_audit_refuse_change();
"""
SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER reviewer_audit_no_{event.lower()} BEFORE {event} ON {AUDIT_TABLE}
    BEGIN SELECT RAISE(ABORT, '{REFUSAL}'); END"""
    for event in ("UPDATE", "DELETE")
]
SQLITE_TRIGGERS_DROP = [
    f"DROP TRIGGER IF EXISTS reviewer_audit_no_{event}" for event in ("update", "delete")
]


def audit_triggers_create(apps, schema_editor) -> None:
    _execute(schema_editor, POSTGRESQL_TRIGGERS, SQLITE_TRIGGERS)


def audit_triggers_drop(apps, schema_editor) -> None:
    _execute(schema_editor, POSTGRESQL_TRIGGERS_DROP, SQLITE_TRIGGERS_DROP)


def _execute(schema_editor, postgresql: str, sqlite: list[str]) -> None:
    vendor = schema_editor.connection.vendor
    if vendor == "postgresql":
        schema_editor.execute(postgresql)
    elif vendor == "sqlite":
        for statement in sqlite:
            schema_editor.execute(statement)
    else:
        raise NotImplementedError(f"no append-only audit trigger for {vendor}")


def pair_keys_backfill(apps, schema_editor) -> None:
    Item = apps.get_model("reviewer", "Item")
    Evaluation = apps.get_model("reviewer", "Evaluation")
    graded = Item.objects.exclude(grade_state="pending").only("pk", "gold").order_by("pk")
    batch = []
    for item in graded.iterator(chunk_size=2000):
        batch.append(item)
        if len(batch) == 2000:
            _pair_keys_save(Item, Evaluation, batch)
            batch = []
    _pair_keys_save(Item, Evaluation, batch)


def _pair_keys_save(Item, Evaluation, items) -> None:
    evaluations = {}
    for evaluation in Evaluation.objects.filter(item__in=items).order_by("evaluator"):
        evaluations.setdefault(evaluation.item_id, []).append(evaluation)
    for item in items:
        item.pair_key = pair_key_of(item.gold, evaluations.get(item.pk, []))
    Item.objects.bulk_update(items, ["pair_key"])


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0004_membership"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Assignment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("done_at", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["item__row_number", "annotator__username"],
            },
        ),
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("actor_name", models.CharField(blank=True, max_length=150)),
                (
                    "action",
                    models.CharField(
                        choices=[
                            ("upload", "Upload"),
                            ("regrade", "Regrade"),
                            ("graded", "grading finished"),
                            ("verdict", "verdict changed"),
                            ("blind_verdict", "blind verdict"),
                            ("conflict", "reviews disagree"),
                            ("ruling", "ruling applied"),
                            ("ruling_undo", "ruling undone"),
                            ("assignment", "queue split"),
                            ("export", "Export"),
                            ("project_create", "project created"),
                            ("project_delete", "project deleted"),
                            ("member_set", "member role set"),
                            ("member_remove", "member removed"),
                        ],
                        max_length=32,
                    ),
                ),
                ("project_name", models.CharField(blank=True, max_length=200)),
                ("summary", models.TextField()),
                ("data", models.JSONField(blank=True, default=dict)),
            ],
            options={
                "ordering": ["-at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="Ruling",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("pair_key", models.CharField(max_length=64)),
                ("gold", models.TextField()),
                ("prediction", models.TextField()),
                (
                    "verdict",
                    models.CharField(
                        choices=[
                            ("correct", "Correct"),
                            ("incorrect", "Incorrect"),
                            ("gold_wrong", "gold is wrong"),
                            ("unclear", "Unclear"),
                        ],
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("rows_applied", models.PositiveIntegerField(default=0)),
                ("undone_at", models.DateTimeField(blank=True, null=True)),
                ("rows_restored", models.PositiveIntegerField(default=0)),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.CreateModel(
            name="RulingChange",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("previous_verdict", models.CharField(blank=True, max_length=16)),
                ("previous_source", models.CharField(blank=True, max_length=8)),
                ("version_after", models.PositiveIntegerField()),
            ],
        ),
        migrations.AddField(
            model_name="item",
            name="pair_key",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AddField(
            model_name="item",
            name="review_stage",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "open"),
                    ("blind", "blind double review"),
                    ("conflict", "reviews disagree"),
                ],
                default="",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="review",
            name="kind",
            field=models.CharField(
                choices=[
                    ("review", "Review"),
                    ("blind", "blind review"),
                    ("adjudication", "Adjudication"),
                    ("ruling", "Ruling"),
                ],
                default="review",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="run",
            name="reviews_per_flagged_row",
            field=models.PositiveSmallIntegerField(default=1),
        ),
        migrations.AddIndex(
            model_name="item",
            index=models.Index(fields=["pair_key"], name="reviewer_it_pair_ke_7afa93_idx"),
        ),
        migrations.AddField(
            model_name="assignment",
            name="annotator",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="assignment",
            name="assigned_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="assignment",
            name="item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="assignments",
                to="reviewer.item",
            ),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="actor",
            field=models.ForeignKey(
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="item",
            field=models.ForeignKey(
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="reviewer.item",
            ),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="project",
            field=models.ForeignKey(
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="reviewer.project",
            ),
        ),
        migrations.AddField(
            model_name="auditevent",
            name="run",
            field=models.ForeignKey(
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="reviewer.run",
            ),
        ),
        migrations.AddField(
            model_name="ruling",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="rulings",
                to="reviewer.project",
            ),
        ),
        migrations.AddField(
            model_name="ruling",
            name="source_item",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="rulings_made",
                to="reviewer.item",
            ),
        ),
        migrations.AddField(
            model_name="ruling",
            name="undone_by",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="ruling",
            name="user",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="review",
            name="ruling",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="reviews",
                to="reviewer.ruling",
            ),
        ),
        migrations.AddField(
            model_name="rulingchange",
            name="item",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="reviewer.item"
            ),
        ),
        migrations.AddField(
            model_name="rulingchange",
            name="ruling",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="changes",
                to="reviewer.ruling",
            ),
        ),
        migrations.AddIndex(
            model_name="assignment",
            index=models.Index(
                fields=["annotator", "done_at"], name="reviewer_as_annotat_488a80_idx"
            ),
        ),
        migrations.AddConstraint(
            model_name="assignment",
            constraint=models.UniqueConstraint(
                fields=("item", "annotator"), name="assignment_unique"
            ),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["project", "-at"], name="reviewer_au_project_1be4b3_idx"),
        ),
        migrations.AddIndex(
            model_name="auditevent",
            index=models.Index(fields=["item", "-at"], name="reviewer_au_item_id_48d1b4_idx"),
        ),
        migrations.AddConstraint(
            model_name="rulingchange",
            constraint=models.UniqueConstraint(
                fields=("ruling", "item"), name="ruling_change_unique"
            ),
        ),
        migrations.AddIndex(
            model_name="item",
            index=models.Index(
                condition=models.Q(("review_stage", ""), _negated=True),
                fields=["review_stage"],
                name="item_under_double_review",
            ),
        ),
        migrations.RunPython(audit_triggers_create, audit_triggers_drop),
        migrations.RunPython(pair_keys_backfill, migrations.RunPython.noop),
    ]
