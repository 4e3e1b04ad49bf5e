"""Writes: every change a user or a worker makes goes through one of these functions, one
module per feature. Services raise domain exceptions (never HTTP errors); pages and the API
turn them into responses.

- ``members``: projects and their members
- ``upload_store``: uploaded files kept on disk by token
- ``uploads``: ``run_upload``, the one path from an uploaded file to a run (page, API, command)
- ``runs``: creating a run from a stored upload, re-grading; ``items_insert`` bulk-inserts rows
- ``grading``: chunks and their leases, a grading task's work, attempts, results, finishing a
  run, and the reconciler that re-sends rows no live task holds
- ``reviews``: human verdicts, blind double review
- ``assignments``: splitting a run's review queue
- ``rulings``: equivalence rulings and their undoing
- ``exports``: export jobs, streamed exports, file formats and the dataset card
- ``demo``: the demo run
- ``msu``: MSU of a run's rows against the human solutions (tasks, cache)
- ``tokens``: personal API tokens
- ``problem_sets``, ``endpoints``, ``generation`` (with ``generation_work`` and
  ``generation_store``), ``judging``: generating runs from model servers and the LLM judge
  (docs/endpoints.md); imported by module, not re-exported here
"""

from reviewer.services.assignments import (
    AssignmentError,
    QueueProgress,
    Scope,
    conflict_count,
    my_queue,
    queue_progress,
    run_assign,
)
from reviewer.services.demo import DEMO_FILE, demo_load
from reviewer.services.grading import (
    chunk_grade,
    grading_attempt_start,
    grading_enqueue,
    grading_reconcile,
    grading_results_save,
    run_finish_if_done,
)
from reviewer.services.members import (
    LastOwnerError,
    ProjectNameTakenError,
    membership_remove,
    membership_set,
    project_delete,
    project_get_or_create,
)
from reviewer.services.msu import msu_chunk, msu_enqueue, msu_recompute, msu_rows_queue
from reviewer.services.reviews import StaleVersionError, blind_review_settle, item_review
from reviewer.services.rulings import (
    RulingError,
    ruling_apply,
    ruling_candidates,
    ruling_undo,
    rulings_undoable_by,
)
from reviewer.services.runs import (
    DuplicateRunError,
    UnknownEvaluatorsError,
    run_create,
    run_regrade,
)
from reviewer.services.tokens import (
    TokenNameTakenError,
    api_token_authenticate,
    api_token_create,
    api_token_revoke,
)
from reviewer.services.upload_store import (
    StoredUpload,
    UnknownUploadError,
    upload_discard,
    upload_get,
    upload_preview,
    upload_store,
    upload_store_path,
    uploads_purge,
)
from reviewer.services.uploads import RunUpload, run_upload, upload_allowed

__all__ = [
    "TokenNameTakenError",
    "api_token_authenticate",
    "api_token_create",
    "api_token_revoke",
    "DEMO_FILE",
    "AssignmentError",
    "DuplicateRunError",
    "LastOwnerError",
    "ProjectNameTakenError",
    "QueueProgress",
    "RulingError",
    "Scope",
    "StaleVersionError",
    "RunUpload",
    "StoredUpload",
    "UnknownEvaluatorsError",
    "UnknownUploadError",
    "blind_review_settle",
    "chunk_grade",
    "conflict_count",
    "demo_load",
    "grading_attempt_start",
    "grading_enqueue",
    "grading_reconcile",
    "grading_results_save",
    "item_review",
    "membership_remove",
    "membership_set",
    "msu_chunk",
    "msu_enqueue",
    "msu_recompute",
    "msu_rows_queue",
    "my_queue",
    "project_delete",
    "project_get_or_create",
    "queue_progress",
    "run_assign",
    "run_create",
    "run_finish_if_done",
    "run_regrade",
    "run_upload",
    "upload_allowed",
    "uploads_purge",
    "ruling_apply",
    "ruling_candidates",
    "ruling_undo",
    "rulings_undoable_by",
    "upload_discard",
    "upload_get",
    "upload_preview",
    "upload_store",
    "upload_store_path",
]
