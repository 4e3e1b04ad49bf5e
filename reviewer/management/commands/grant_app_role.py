"""``manage.py grant_app_role``: create (or update) the database role the app connects as, with
the rights it needs and no more, so the audit trail is one it cannot erase.

Run as the tables' owner, after ``migrate`` (docker-compose's migrate service does both). The
app's role gets SELECT, INSERT, UPDATE and DELETE on the app's tables and the use of their
sequences, but only SELECT and INSERT on the audit trail; it owns nothing, so it cannot
TRUNCATE, ALTER or DROP a table or drop the trigger that keeps the trail append-only.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from psycopg import sql

AUDIT_TABLE = "reviewer_auditevent"


class Command(BaseCommand):
    help = (
        "Create or update the app's database role from MATHJURY_APP_DATABASE_URL (or --role): "
        "ordinary rights on every table, only SELECT and INSERT on the audit trail. PostgreSQL "
        "only; run as the owner of the tables, after migrate."
    )

    def add_arguments(self, parser):
        parser.add_argument("--role", default="", help="Role name (default: from the URL).")

    def handle(self, *args, role: str, **options):
        if connection.vendor != "postgresql":
            raise CommandError("grant_app_role is for PostgreSQL; SQLite has no roles")
        url = settings.MATHJURY_APP_DATABASE_URL
        parts = urlsplit(url) if url else None
        role = role or (unquote(parts.username) if parts and parts.username else "")
        password = unquote(parts.password) if parts and parts.password else None
        if not role:
            raise CommandError("set MATHJURY_APP_DATABASE_URL (or pass --role)")
        owner = connection.settings_dict["USER"] or "postgres"
        if role == owner:
            raise CommandError(f"the app's role must not be the tables' owner ({owner})")
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            verb = "ALTER" if cursor.fetchone() else "CREATE"
            statement = sql.SQL("{} ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE").format(
                sql.SQL(verb), sql.Identifier(role)
            )
            if password is not None:
                statement += sql.SQL(" PASSWORD {}").format(sql.Literal(password))
            for query in _grants(statement, role):
                cursor.execute(query.as_string(cursor.connection))
        self.stdout.write(f"role {role}: {verb.lower()}d; audit trail {AUDIT_TABLE} append-only")


def _grants(statement: sql.Composable, role: str) -> list[sql.Composable]:
    who = sql.Identifier(role)
    audit = sql.Identifier(AUDIT_TABLE)
    return [
        statement,
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(connection.settings_dict["NAME"]), who
        ),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(who),
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}").format(who),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}").format(
            who
        ),
        sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE, TRIGGER, REFERENCES ON {} FROM {}").format(
            audit, who
        ),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(who),
    ]
