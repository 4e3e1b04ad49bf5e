"""Problem sets: a file of problems with gold answers, read by grading.reader (same formats,
encodings and limits as runs), stored once per project and generated from by many runs."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, transaction

from grading.reader import read_problems
from reviewer import access
from reviewer.models import Problem, ProblemSet
from reviewer.services.batches import batches
from reviewer.services.members import project_get_or_create
from reviewer.services.upload_store import StoredUpload, upload_discard

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProblemSetUpload:
    problem_set: ProblemSet
    duplicate: bool  # the project already had this file: that set is returned


def problem_set_upload(
    *,
    stored: StoredUpload,
    project_name: str,
    user,
    name: str = "",
    mapping: Mapping[str, str] | None = None,
    delimiter: str | None = None,
) -> ProblemSetUpload:
    """Make a stored file a problem set of the project (created with ``user`` as owner if new).

    ``user`` None is an operator at the command line. Raises IngestError (every bad line
    listed), ProjectNameTakenError or PermissionDenied with nothing written. The stored file
    is deleted either way: the problems are in the database.
    """
    try:
        rows = read_problems(
            Path(stored.path),
            mapping=dict(mapping or {}),
            delimiter=delimiter,
            max_field_bytes=settings.MATHJURY_MAX_FIELD_BYTES,
        )
        with transaction.atomic():
            project = project_get_or_create(name=project_name, user=user)
            if user is not None:
                access.require_role(access.role_in(user, project), access.UPLOAD)
            existing = ProblemSet.objects.filter(
                project=project, source_sha256=stored.sha256
            ).first()
            if existing is not None:
                return ProblemSetUpload(problem_set=existing, duplicate=True)
            try:
                with transaction.atomic():
                    problem_set = ProblemSet.objects.create(
                        project=project,
                        name=name.strip() or stored.filename,
                        source_filename=stored.filename,
                        source_sha256=stored.sha256,
                        problem_count=len(rows),
                        created_by=user,
                    )
            except IntegrityError:  # the same file, uploaded twice at once
                existing = ProblemSet.objects.get(project=project, source_sha256=stored.sha256)
                return ProblemSetUpload(problem_set=existing, duplicate=True)
            for batch in batches(rows, 2000):
                Problem.objects.bulk_create(
                    [
                        Problem(
                            problem_set=problem_set,
                            position=row.position,
                            source_line=row.source_line,
                            external_id=row.fields["id"],
                            problem=row.fields["problem"],
                            gold=row.fields["gold"],
                            solution=row.fields["solution"],
                            subject=row.fields["subject"],
                            level=row.fields["level"],
                        )
                        for row in batch
                    ]
                )
    finally:
        upload_discard(stored=stored)
    logger.info("problem set %s: %s problems", problem_set.pk, problem_set.problem_count)
    return ProblemSetUpload(problem_set=problem_set, duplicate=False)
