"""The one path from an uploaded file to a run, shared by the upload page, the API and
``manage.py import_run``: check, then create the project (if new), the run, its rows and the
audit events in one transaction. A refused file leaves nothing behind, not even its stored
copy; a file the project already has returns that run."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import transaction

from grading.reader import IngestError
from reviewer import access
from reviewer.models import Project, Run
from reviewer.services.members import ProjectNameTakenError, project_get_or_create
from reviewer.services.runs import (
    DuplicateRunError,
    UnknownEvaluatorsError,
    checked_evaluators,
    run_create,
)
from reviewer.services.upload_store import StoredUpload, upload_discard, upload_preview

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunUpload:
    """The run a file became, or the run the project already had for the same file."""

    run: Run
    duplicate: bool


def upload_allowed(*, project_name: str, user) -> None:
    """Raise before a file is stored or read unless ``user`` may upload to the project named
    ``project_name`` (an upload role in it, or a new name, which makes them its owner).

    Raises ProjectNameTakenError for another team's project, PermissionDenied for a role that
    may not upload. run_upload checks again inside its transaction.
    """
    project = Project.objects.filter(name=project_name.strip()).first()
    if project is None or user is None:
        return
    role = access.role_in(user, project)
    if role is None:
        raise ProjectNameTakenError(name=project.name)
    access.require_role(role, access.UPLOAD)


def run_upload(
    *,
    stored: StoredUpload,
    project_name: str,
    user,
    mapping: Mapping[str, str] | None = None,
    guess_other_fields: bool = False,
    name: str = "",
    model_name: str = "",
    dataset: str = "",
    evaluators: Sequence[str] | None = None,
    delimiter: str | None = None,
    encoding: str | None = None,
    skip_bad_lines: bool = False,
) -> RunUpload:
    """Make ``stored`` a run of the project named ``project_name``, created with ``user`` as
    owner if new, and queue it for grading.

    ``mapping`` None (nobody to confirm it) takes the guessed mapping; with
    ``guess_other_fields`` the fields it names override the guess for those columns. ``user``
    None is an operator at the command line; anyone else needs the upload role. ``encoding``
    is a person's choice for a file that is not UTF-8; with ``skip_bad_lines`` bad rows are
    left out and listed on the run. Raises IngestError, UnknownEvaluatorsError,
    ProjectNameTakenError or PermissionDenied after deleting the stored file, with nothing
    written. The stored file is deleted once the run is made: its rows are in the database.
    """
    try:
        checked_evaluators(evaluators)
        if mapping is None or guess_other_fields:
            mapping = _mapping_guessed(
                stored, delimiter=delimiter, encoding=encoding, named=mapping or {}
            )
        with transaction.atomic():
            project = project_get_or_create(name=project_name, user=user)
            if user is not None:
                access.require_role(access.role_in(user, project), access.UPLOAD)
            run = run_create(
                project=project,
                user=user,
                upload_token=stored.token,
                mapping=dict(mapping),
                name=name,
                model_name=model_name,
                dataset=dataset,
                evaluators=evaluators,
                delimiter=delimiter,
                encoding=encoding,
                skip_bad_lines=skip_bad_lines,
            )
    except DuplicateRunError as duplicate:
        upload_discard(stored=stored)
        logger.info("%s is already run %s", stored.filename, duplicate.run.pk)
        return RunUpload(run=duplicate.run, duplicate=True)
    except (IngestError, UnknownEvaluatorsError, ProjectNameTakenError, PermissionDenied):
        upload_discard(stored=stored)
        raise
    upload_discard(stored=stored)  # its rows are in the database now
    return RunUpload(run=run, duplicate=False)


def _mapping_guessed(
    stored: StoredUpload, *, delimiter: str | None, encoding: str | None, named: Mapping[str, str]
) -> dict[str, str]:
    """The guessed column mapping (grading.reader's alias table and its rule for ``answer``)
    with the ``named`` fields put in; refused without a gold or an output column."""
    preview = upload_preview(stored=stored, delimiter=delimiter, encoding=encoding)
    guessed = {f: c for f, c in preview.guessed_mapping.items() if c not in named.values()}
    mapping = {**guessed, **named}
    problems = [
        f"no column looks like the {field} (columns found: {', '.join(preview.columns)}); "
        f'send a mapping such as {{"{field}": "<column>"}}'
        for field in ("gold", "output")
        if field not in mapping
    ]
    if problems:
        raise IngestError(problems)
    return mapping
