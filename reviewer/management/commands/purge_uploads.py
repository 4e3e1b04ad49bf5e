"""``manage.py purge_uploads``: delete stored uploads that never became a run (one pass)."""

from django.core.management.base import BaseCommand

from reviewer import services


class Command(BaseCommand):
    help = (
        "Delete stored uploads older than MATHJURY_UPLOAD_KEEP_HOURS (default 24): files left "
        "at the mapping step and never confirmed. Each pass of `reconcile` does this too."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than-hours",
            type=int,
            default=None,
            help="Age in hours past which a stored upload is deleted (default: the setting).",
        )

    def handle(self, *args, older_than_hours: int | None, **options):
        deleted = services.uploads_purge(older_than_hours=older_than_hours)
        self.stdout.write(f"{deleted} stored uploads deleted")
