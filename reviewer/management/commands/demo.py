"""``manage.py demo``: a demo user with a fresh password, and the demo run queued for grading."""

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from reviewer import access, services
from reviewer.models import Membership

# Annotators made beside the demo user (as "<username>-ann", ...), to try team review with.
DEMO_ANNOTATORS = ("ann", "bea")


class Command(BaseCommand):
    help = "Create or reset the demo user, print its credentials, and load the demo run."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument(
            "--password",
            default="",
            help="Password to set; by default a new random one, printed at the end.",
        )

    def handle(self, *args, username: str, password: str, **options):
        password = password or secrets.token_urlsafe(12)
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.set_password(password)
        user.save(update_fields=["password"])
        run = services.demo_load(user=user)
        annotators = [f"{username}-{suffix}" for suffix in DEMO_ANNOTATORS]
        for name in annotators:
            annotator, _ = get_user_model().objects.get_or_create(username=name)
            annotator.set_password(password)
            annotator.save(update_fields=["password"])
            if access.role_in(annotator, run.project) is None:
                services.membership_set(
                    project=run.project, user=annotator, role=Membership.Role.ANNOTATOR, by=user
                )
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo run “{run.name}” ({run.total_rows} rows) is in project “{run.project.name}”.\n"
                f"Log in with username: {username}  password: {password}\n"
                f"To try team review, {' and '.join(annotators)} are annotators of the project, "
                "with the same password."
            )
        )
