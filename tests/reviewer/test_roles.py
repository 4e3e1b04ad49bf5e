"""Every URL and API endpoint, asked by every kind of user (RELIABILITY G1, G2).

The URL patterns are read from the resolver, so a new page or endpoint fails
``test_every_url_pattern_is_in_the_matrix`` until it is given its expected answers here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from grading.pairs import pair_key
from reviewer import access, services
from reviewer.models import Endpoint, GenerationJob, Membership, ProblemSet
from reviewer.selectors import ItemFilters
from reviewer.services import exports, rulings
from tests.factories import (
    EvaluationFactory,
    GradedItemFactory,
    ProjectFactory,
    RunFactory,
    UserFactory,
)

ROLES = [role.value for role in Membership.Role]
REVIEWERS = sorted(access.ROLES_FOR[access.REVIEW])
WHO = ["anonymous", "non-member", *ROLES]
CSV = b"gold,output\n42,the answer is 42\n"

# Not about a project: open to everyone, or Django's own (the admin is staff-only).
PUBLIC = {"login", "logout", "healthz", "api:token", "api:schema", "api:docs", "admin"}


@dataclass(frozen=True)
class Case:
    """One request and who may make it: ``action`` None means any signed-in user."""

    name: str
    method: str
    action: str | None
    ok: int
    kwargs: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    query: str = ""

    @property
    def api(self) -> bool:
        return self.name.startswith("api:")


CASES = [
    # pages
    Case("run_list", "get", None, 200),
    # A person's own API tokens: anyone signed in; nobody revokes someone else's (newcomer's)
    Case("api_tokens", "get", None, 200),
    Case("api_tokens", "post", None, 200, data={"name": "ci"}),
    Case("api_token_revoke", "post", None, 404, {"token_id": "token"}),
    Case("upload", "get", None, 200),
    Case("upload", "post", access.UPLOAD, 302, data={"step": "create"}),
    Case("run_detail", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("run_skipped_lines", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("run_regrade", "post", access.REGRADE, 302, {"run_id": "run"}, {"evaluators": ["exact"]}),
    Case("run_msu_recompute", "post", access.REGRADE, 302, {"run_id": "run"}),
    Case("run_stats", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("runs_compare", "get", access.VIEW, 200, query="a={run}&b={run}"),
    Case("item_detail", "get", access.VIEW, 200, {"item_id": "item"}),
    Case("item_detail", "post", access.REVIEW, 302, {"item_id": "item"}, {"verdict": "correct"}),
    Case("run_assignments", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("run_assignments", "post", access.ASSIGN, 302, {"run_id": "run"}),
    Case("ruling_apply", "post", access.RULE, 302, {"item_id": "item"}),
    # Whoever made a ruling may undo it, and so may adjudicators; the owner made this one.
    Case("ruling_undo", "post", access.ADJUDICATE, 302, {"ruling_id": "ruling"}),
    Case("project_audit", "get", access.VIEW, 200, {"project_id": "project"}),
    Case(
        "export_create",
        "post",
        access.EXPORT,
        302,
        {"run_id": "run"},
        {"format": "csv", "variant": "raw", "rows": "all", "how": "job"},
    ),
    Case("export_detail", "get", access.EXPORT, 200, {"export_id": "export"}),
    Case("export_file", "get", access.EXPORT, 200, {"export_id": "export", "part": "data"}),
    Case("project_members", "get", access.MANAGE, 200, {"project_id": "project"}),
    Case(
        "project_members",
        "post",
        access.MANAGE,
        302,
        {"project_id": "project"},
        {"username": "newcomer", "role": "viewer"},
    ),
    Case(
        "project_delete",
        "post",
        access.MANAGE,
        302,
        {"project_id": "project"},
        {"confirm_name": "Guarded"},
    ),
    # generation (reviewer.pages.generation)
    Case("generate", "get", None, 200),
    Case("endpoint_test", "post", access.UPLOAD, 302, {"endpoint_id": "endpoint"}),
    Case("run_generation", "get", access.VIEW, 200, {"run_id": "run"}),
    Case(
        "run_generation_action",
        "post",
        access.REGRADE,
        302,
        {"run_id": "run", "action": "cancel"},
    ),
    # API
    Case("api:project_list", "get", None, 200),
    Case("api:project_list", "post", None, 201, data={"name": "A new one"}),
    Case("api:project_detail", "get", access.VIEW, 200, {"project_id": "project"}),
    Case("api:project_detail", "delete", access.MANAGE, 204, {"project_id": "project"}),
    Case("api:project_members", "get", access.VIEW, 200, {"project_id": "project"}),
    Case(
        "api:project_members",
        "post",
        access.MANAGE,
        200,
        {"project_id": "project"},
        {"username": "newcomer", "role": "annotator"},
    ),
    Case(
        "api:project_member",
        "delete",
        access.MANAGE,
        204,
        {"project_id": "project", "username": "member-viewer"},
    ),
    Case("api:run_list", "get", None, 200),
    Case(
        "api:run_list",
        "post",
        access.UPLOAD,
        201,
        data={"project": "Guarded", "name": "rows", "rows": [{"gold": "1", "output": "1"}]},
    ),
    Case("api:run_compare", "get", access.VIEW, 200, query="run_a={run}&run_b={run}"),
    Case("api:run_detail", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("api:run_stats", "get", access.VIEW, 200, {"run_id": "run"}),
    Case(
        "api:run_regrade", "post", access.REGRADE, 202, {"run_id": "run"}, {"evaluators": ["exact"]}
    ),
    Case("api:item_list", "get", access.VIEW, 200, {"run_id": "run"}),
    Case("api:run_exports", "get", access.EXPORT, 200, {"run_id": "run"}),
    Case("api:run_exports", "post", access.EXPORT, 202, {"run_id": "run"}, {"format": "csv"}),
    Case("api:run_export_stream", "get", access.EXPORT, 200, {"run_id": "run"}, query="format=csv"),
    Case("api:item_detail", "get", access.VIEW, 200, {"item_id": "item"}),
    Case("api:item_reviews", "get", access.VIEW, 200, {"item_id": "item"}),
    Case(
        "api:item_reviews", "post", access.REVIEW, 201, {"item_id": "item"}, {"verdict": "correct"}
    ),
    Case("api:run_assignments", "get", access.VIEW, 200, {"run_id": "run"}),
    Case(
        "api:run_assignments",
        "post",
        access.ASSIGN,
        200,
        {"run_id": "run"},
        {"annotators": {"member-annotator": 1}, "scope": "all"},
    ),
    Case("api:item_ruling", "post", access.RULE, 201, {"item_id": "item"}),
    Case("api:ruling_undo", "post", access.ADJUDICATE, 200, {"ruling_id": "ruling"}),
    Case("api:project_rulings", "get", access.VIEW, 200, {"project_id": "project"}),
    Case("api:project_audit", "get", access.VIEW, 200, {"project_id": "project"}),
    Case("api:export_detail", "get", access.EXPORT, 200, {"export_id": "export"}),
    Case(
        "api:export_download", "get", access.EXPORT, 200, {"export_id": "export"}, query="part=data"
    ),
    # generation (reviewer.api.views.generation)
    Case("api:problem_set_list", "get", access.VIEW, 200, {"project_id": "project"}),
    Case("api:endpoint_list", "get", access.UPLOAD, 200, {"project_id": "project"}),
    Case("api:endpoint_test", "post", access.UPLOAD, 200, {"endpoint_id": "endpoint"}),
    Case("api:run_generate", "post", access.UPLOAD, 201),
    Case("api:run_generation", "get", access.VIEW, 200, {"run_id": "run"}),
    Case(
        "api:run_generation_action",
        "post",
        access.REGRADE,
        202,
        {"run_id": "run", "action": "cancel"},
    ),
    Case("api:run_judge", "post", access.REGRADE, 202, {"run_id": "run"}),
]


def _url_names(patterns, prefix: str = "") -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace == "admin":
                names.add("admin")
                continue
            namespace = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            names |= _url_names(pattern.url_patterns, namespace)
        elif isinstance(pattern, URLPattern):
            # The API's catch-all (JSON 404 for unknown paths) has no name.
            names.add(f"{prefix}{pattern.name}" if pattern.name else f"{prefix}<unnamed>")
    return names


def test_every_url_pattern_is_in_the_matrix():
    # Given every URL pattern the site answers
    names = _url_names(get_resolver().url_patterns)

    # Then each is in the matrix or known to be public, and the matrix names no stale URL
    classified = {case.name for case in CASES} | PUBLIC | {"api:<unnamed>"}
    assert names - classified == set(), "give these URLs their expected answers in CASES"
    assert classified - names == set()


@pytest.fixture
def world(db, settings, tmp_path, store_upload):
    """A project with one member of each role, a graded run, and a finished export."""
    settings.MATHJURY_EXPORT_DIR = tmp_path / "exports"
    # Nobody here logs in with a password: a fast hasher keeps 200 cases quick.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Tests run with DEBUG off; static URLs must not need collectstatic's manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    members = {role: UserFactory(username=f"member-{role}") for role in ROLES}
    project = ProjectFactory(
        name="Guarded",
        created_by=members["owner"],
        members={user: role for role, user in members.items()},
    )
    run = RunFactory(project=project, status="done", total_rows=4, evaluators=["exact"])
    # Row 1 was decided by a person and row 2 has the same answer: a ruling can be made.
    # Rows 3 and 4 are the same, and the owner already made that ruling: it can be undone.
    decided = {"final_source": "human", "final_verdict": "correct"}
    half, third = pair_key("\\frac{1}{2}", "0.5"), pair_key("\\frac{1}{3}", "1/3")
    item = GradedItemFactory(run=run, row_number=1, pair_key=half, **decided)
    GradedItemFactory(run=run, row_number=2, pair_key=half, final_source="auto")
    ruled = GradedItemFactory(run=run, row_number=3, pair_key=third, **decided)
    GradedItemFactory(run=run, row_number=4, pair_key=third, final_source="auto")
    ruling = rulings.ruling_apply(item=ruled, user=members["owner"])
    EvaluationFactory(item=item, evaluator="exact")
    job = exports.export_start(
        run=run,
        user=members["owner"],
        format="csv",
        variant="raw",
        filters=ItemFilters(order="row"),
        in_background=False,
    )
    exports.export_write(export_id=job.pk)
    newcomer = UserFactory(username="newcomer")
    token, _ = services.api_token_create(user=newcomer, name="newcomer's")
    # The run was generated: a problem set, an endpoint (nothing listens on port 9) and a job.
    problem_set = ProblemSet.objects.create(
        project=project, name="problems", source_filename="p.csv", source_sha256="p"
    )
    endpoint = Endpoint.objects.create(
        project=project, name="nowhere", base_url="http://127.0.0.1:9/v1", model="m"
    )
    GenerationJob.objects.create(
        run=run,
        problem_set=problem_set,
        endpoint=endpoint,
        template_name="math",
        template_text="{problem}",
    )
    ids = {
        "token": token.pk,
        "project": project.pk,
        "run": run.pk,
        "item": item.pk,
        "export": job.pk,
        "ruling": ruling.pk,
        "endpoint": endpoint.pk,
        "problem_set": problem_set.pk,
    }
    return {"members": members, "ids": ids, "upload": store_upload(CSV, "more.csv")}


def _request(client, case: Case, world):
    ids = world["ids"]
    kwargs = {key: ids.get(value, value) for key, value in case.kwargs.items()}
    url = reverse(case.name, kwargs=kwargs)
    if case.query:
        url += "?" + case.query.format(**ids)
    data = dict(case.data)
    if case.name == "upload" and case.method == "post":
        data |= {
            "token": world["upload"].token,
            "project": "Guarded",
            "name": "more",
            "map_gold": "gold",
            "map_output": "output",
            "evaluators": ["exact"],
        }
    if case.name == "run_assignments" and case.method == "post":
        members = world["members"]
        data |= {
            "reviews_per_flagged_row": 1,
            "scope": "all",
            **{f"share_{members[role].pk}": int(role == "annotator") for role in REVIEWERS},
        }
    if case.name == "api:run_generate":
        data |= {"problem_set": ids["problem_set"], "endpoint": ids["endpoint"]}
    if case.name == "api:run_judge":
        data |= {"endpoint": ids["endpoint"]}
    if case.api and case.method != "get":
        return getattr(client, case.method)(url, data, content_type="application/json")
    return getattr(client, case.method)(url, data)


def _expected(case: Case, who: str) -> int:
    if who == "anonymous":
        return 401 if case.api else 302
    if case.action is None:
        return case.ok
    if who == "non-member":
        # Creating a run names the project: a name someone else's project has is taken (409).
        return 409 if case.name in ("upload", "api:run_list") else 404
    return case.ok if access.allows(who, case.action) else 403


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.method.upper()} {c.name}")
def test_each_role_gets_the_answer_the_matrix_gives(client, world, case: Case, who: str):
    # Given a user in this position towards the project
    if who == "non-member":
        client.force_login(UserFactory(username="stranger"))
    elif who != "anonymous":
        client.force_login(world["members"][who])

    # When they make the request
    response = _request(client, case, world)

    # Then they get the matrix's answer: login for strangers to the site, 404 for
    # non-members, 403 for members whose role does not allow it, success otherwise
    expected = _expected(case, who)
    assert response.status_code == expected, getattr(response, "content", b"")[:500]
    if who == "anonymous" and not case.api:
        assert response["Location"].startswith(reverse("login"))
    if case.api and expected in (401, 403, 404, 409):
        assert set(response.json()["error"]) >= {"code", "message"}


def test_an_export_is_refused_when_its_user_lost_the_role_before_the_worker_started(world):
    # Given an adjudicator asked for an export, and was made a viewer before it was written
    project = Membership.objects.get(user=world["members"]["adjudicator"]).project
    job = exports.export_start(
        run=project.runs.get(),
        user=world["members"]["adjudicator"],
        format="csv",
        variant="raw",
        filters=ItemFilters(order="row"),
        in_background=False,
    )
    Membership.objects.filter(user=world["members"]["adjudicator"]).update(role="viewer")

    # When the worker runs it
    job = exports.export_write(export_id=job.pk)

    # Then nothing is written and the export says why
    assert job.status == "failed" and not job.file_name
    assert "may no longer export" in job.error_message
