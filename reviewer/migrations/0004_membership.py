"""Project members with roles. Every existing project's creator becomes its owner, so that
installs from before roles keep access to what they made."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def creators_become_owners(apps, schema_editor) -> None:
    Project = apps.get_model("reviewer", "Project")
    Membership = apps.get_model("reviewer", "Membership")
    Membership.objects.bulk_create(
        [
            Membership(project_id=project_id, user_id=user_id, role="owner")
            for project_id, user_id in Project.objects.filter(created_by__isnull=False)
            .values_list("pk", "created_by_id")
            .iterator()
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0003_item_evaluator_scores"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Membership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("owner", "Owner"),
                            ("adjudicator", "Adjudicator"),
                            ("annotator", "Annotator"),
                            ("viewer", "Viewer"),
                        ],
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to="reviewer.project",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["project", "user__username"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("project", "user"), name="membership_unique_user"
                    )
                ],
            },
        ),
        migrations.RunPython(creators_become_owners, migrations.RunPython.noop),
    ]
