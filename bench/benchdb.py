"""The database and Django set-up the benchmarks share: each script gets a fresh PostgreSQL
database of its own on the server named by DATABASE_URL, so a run never touches real data and
never sees a previous run's rows.

The scripts run as ``python bench/x.py``, which puts bench/ first on the path: they import
this module by its bare name.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"


def bench_url(name: str) -> str:
    """The URL of database ``name`` on the server that DATABASE_URL names."""
    base, _, _ = os.environ.get("DATABASE_URL", DEFAULT_SERVER).rpartition("/")
    return f"{base}/{name}"


@contextmanager
def bench_database(name: str, *, keep: bool = False) -> Iterator[str]:
    """Create database ``name`` afresh (dropping what a crashed run left) and yield its URL;
    drop it afterwards unless ``keep``. WITH (FORCE) closes connections Django left open."""
    admin_url = bench_url("postgres")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield bench_url(name)
    finally:
        if not keep:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def kept_or_fresh_database(name: str, *, reuse: bool, keep: bool) -> Iterator[str]:
    """The URL of database ``name``: as an earlier ``--keep`` left it (``reuse``), else made
    afresh by ``bench_database``, for scripts that measure a large run more than once."""
    if reuse:
        yield bench_url(name)
        return
    with bench_database(name, keep=keep) as url:
        yield url


def django_setup(url: str, workdir: Path, *, migrate: bool = True) -> None:
    """Point reviewer.settings at database ``url`` and at folders under ``workdir``, start
    Django, and create the tables unless ``migrate`` is False (a child process measuring a
    database its parent already migrated)."""
    os.environ.update(
        DATABASE_URL=url,
        MATHJURY_DATA_DIR=str(workdir / "data"),
        MATHJURY_EXPORT_DIR=str(workdir / "exports"),
        SECRET_KEY="bench-only",
        DJANGO_SETTINGS_MODULE="reviewer.settings",
        LOG_LEVEL="WARNING",
    )
    # Before bench/, whose grading.py would otherwise hide the grading package.
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
