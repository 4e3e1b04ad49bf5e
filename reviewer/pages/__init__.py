"""The reviewer's htmx pages, one module per page or feature. Each view parses the request,
calls selectors or one service, and renders its page, or, for an htmx request, the partial of
that page the request targets. Access checks live in reviewer.access; login is required by
middleware for every view not marked ``login_not_required``.

- ``runs``: the run list and a run's page; ``items``: the item page; ``upload``: the upload page
- ``team``: queue split, rulings, the audit trail; ``members``: a project's members
- ``stats``: statistics and comparison; ``exports``: the export form, progress and files
- ``generation``: problem sets, endpoints, generating a run, a run's generation section
- ``health``: the health check; ``login``: the locked-out login page
- ``tokens``: the user's personal API tokens
"""

from reviewer.pages.exports import export_create, export_detail, export_file
from reviewer.pages.generation import (
    endpoint_test,
    generate,
    run_generation,
    run_generation_action,
)
from reviewer.pages.health import healthz
from reviewer.pages.items import item_detail
from reviewer.pages.login import locked_out_page
from reviewer.pages.members import project_delete, project_members
from reviewer.pages.msu import run_msu_recompute
from reviewer.pages.runs import run_detail, run_list, run_regrade
from reviewer.pages.stats import run_stats, runs_compare
from reviewer.pages.team import project_audit, ruling_apply, ruling_undo, run_assignments
from reviewer.pages.tokens import api_token_revoke, api_tokens
from reviewer.pages.upload import run_skipped_lines, upload

__all__ = [
    "api_token_revoke",
    "api_tokens",
    "endpoint_test",
    "generate",
    "run_generation",
    "run_generation_action",
    "export_create",
    "export_detail",
    "export_file",
    "healthz",
    "item_detail",
    "locked_out_page",
    "project_audit",
    "project_delete",
    "project_members",
    "run_assignments",
    "run_detail",
    "run_list",
    "run_msu_recompute",
    "run_regrade",
    "run_stats",
    "runs_compare",
    "ruling_apply",
    "ruling_undo",
    "upload",
    "run_skipped_lines",
]
