# Joins the migrations of the branches merged on 2026-11-25.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reviewer", "0006_generation_problem_sets_endpoints"),
        ("reviewer", "0006_hardening_skipped_lines"),
        ("reviewer", "0006_msu_scores"),
        ("reviewer", "0006_pipeline_grading_chunk"),
        ("reviewer", "0006_reading_api_tokens"),
    ]

    operations = []
