"""The audit trail the app cannot erase (issue 12 part 4, RELIABILITY F3): connected as the role
``grant_app_role`` makes, the app does its ordinary work, and TRUNCATE, DELETE, UPDATE and
DROP TRIGGER on the trail all fail. PostgreSQL only: SQLite has no roles."""

from __future__ import annotations

import os

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from reviewer.audit import Action, audit_record
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def app_role(settings):
    """The app's role, made by the command, and a connection to the test database as it."""
    if connection.vendor != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    role = f"mj_app_test_{os.getpid()}"
    settings.MATHJURY_APP_DATABASE_URL = f"postgres://{role}@127.0.0.1/x"
    call_command("grant_app_role")
    db = connection.settings_dict
    as_app = psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        dbname=db["NAME"],
        user=role,
        autocommit=True,
    )
    yield as_app
    as_app.close()
    with connection.cursor() as cursor:
        cursor.execute(f'DROP OWNED BY "{role}"')
        cursor.execute(f'DROP ROLE "{role}"')


def refused(as_app, statement: str) -> str:
    with pytest.raises(psycopg.Error) as caught:
        as_app.execute(statement)
    return str(caught.value)


def test_the_apps_role_works_but_cannot_erase_or_unguard_the_audit_trail(app_role):
    # Given a project with an audit event, written as the owner
    project = ProjectFactory(name="Audited")
    audit_record(Action.PROJECT_CREATE, actor=None, project=project, summary="created")

    # The app's role reads and writes ordinary tables and appends to the trail
    app_role.execute("UPDATE reviewer_project SET name = 'Renamed' WHERE id = %s", [project.pk])
    app_role.execute(
        "INSERT INTO reviewer_auditevent (at, actor_name, action, project_name, summary, data)"
        " VALUES (now(), '', 'project_create', 'x', 'appended', '{}')"
    )
    assert app_role.execute("SELECT count(*) FROM reviewer_auditevent").fetchone() == (2,)

    # but cannot empty, delete, rewrite or unguard it
    assert "permission denied" in refused(app_role, "TRUNCATE reviewer_auditevent")
    assert "permission denied" in refused(app_role, "DELETE FROM reviewer_auditevent")
    assert "permission denied" in refused(app_role, "UPDATE reviewer_auditevent SET summary = ''")
    assert "must be owner" in refused(
        app_role, "DROP TRIGGER reviewer_audit_append_only ON reviewer_auditevent"
    )
    assert "must be owner" in refused(
        app_role, "ALTER TABLE reviewer_auditevent DISABLE TRIGGER ALL"
    )
    assert "must be owner" in refused(app_role, "DROP TABLE reviewer_auditevent")
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM reviewer_auditevent")
        assert cursor.fetchone() == (2,)


def test_the_role_cannot_be_the_tables_owner(settings):
    if connection.vendor != "postgresql":
        pytest.skip("roles are PostgreSQL's")
    from django.core.management import CommandError

    owner = connection.settings_dict["USER"] or "postgres"
    settings.MATHJURY_APP_DATABASE_URL = f"postgres://{owner}@127.0.0.1/x"
    with pytest.raises(CommandError, match="must not be the tables' owner"):
        call_command("grant_app_role")
