"""``manage.py reconcile``: one pass that re-sends the rows the database says wait to be
graded and no live task holds, and deletes stored uploads never confirmed within
MATHJURY_UPLOAD_KEEP_HOURS; ``--every 60`` repeats it (bin/start and docker-compose)."""

import time

from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from reviewer import services


class Command(BaseCommand):
    help = (
        "Re-send grading work the broker lost or a lost worker held, and delete abandoned "
        "uploads: one pass, or one pass every --every seconds."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=float,
            default=0,
            metavar="SECONDS",
            help="Repeat every SECONDS until stopped (default: one pass).",
        )

    def handle(self, *args, every: float, **options):
        while True:
            try:
                report = services.grading_reconcile()
            except DatabaseError as error:
                if not every:
                    raise
                self.stderr.write(f"reconcile: the database failed: {error}")
                close_old_connections()
            else:
                self.stdout.write(report.summary())
            purged = services.uploads_purge()
            if purged:
                self.stdout.write(f"{purged} abandoned uploads deleted")
            if not every:
                return
            close_old_connections()
            time.sleep(every)
