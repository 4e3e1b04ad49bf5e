"""The demo run shipped with MathJury (``manage.py demo`` and ``bin/start`` load it)."""

from __future__ import annotations

from pathlib import Path

from reviewer.models import Membership, Project, Run
from reviewer.services.runs import DuplicateRunError, run_create
from reviewer.services.upload_store import upload_discard, upload_store_path

DEMO_FILE = Path(__file__).resolve().parent.parent / "demo" / "demo_run.csv"
DEMO_PROJECT = "Demo"


def demo_load(*, user) -> Run:
    """Load the demo run shipped with MathJury (or return it if it is already loaded), in a
    project that ``user`` owns."""
    project, _ = Project.objects.get_or_create(name=DEMO_PROJECT, defaults={"created_by": user})
    Membership.objects.get_or_create(
        project=project, user=user, defaults={"role": Membership.Role.OWNER}
    )
    stored = upload_store_path(path=DEMO_FILE)
    try:
        return run_create(
            project=project,
            user=user,
            upload_token=stored.token,
            mapping={
                "id": "id",
                "problem": "problem",
                "gold": "gold",
                "output": "output",
                "model": "model",
                "subject": "subject",
                "finish_reason": "finish_reason",
                "solution": "solution",
            },
            name="Demo: what the jury agrees and disagrees on",
            model_name="hand-written examples",
            dataset="MathJury demo",
        )
    except DuplicateRunError as exc:
        upload_discard(stored=stored)
        return exc.run
