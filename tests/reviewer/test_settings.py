"""Settings: the Celery guarantees the reliability table asks for, and environment rules."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

from reviewer.celery import app

REPO_ROOT = Path(__file__).resolve().parents[2]


def settings_in_subprocess(env: dict[str, str], expression: str) -> subprocess.CompletedProcess:
    """Import the settings module fresh, with exactly ``env`` (plus PATH), and print something."""
    code = f"import reviewer.settings as s; print({expression})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_celery_redelivers_tasks_of_lost_workers_one_at_a_time():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.worker_cancel_long_running_tasks_on_connection_loss is True
    assert app.conf.worker_max_tasks_per_child == 100
    assert app.conf.worker_max_memory_per_child == 1024 * 1024


def test_a_chunk_has_room_for_its_slowest_row_before_its_soft_limit():  # A3
    # A chunk stops starting batches before its soft limit (tests/reviewer/test_worker.py
    # shows one split), so the limit only has to fit a row that times out, graded twice.
    slowest_row = 2 * settings.MATHJURY_GRADING_TIMEOUT + 1
    assert 2 * slowest_row < app.conf.task_soft_time_limit < app.conf.task_time_limit


def test_redis_visibility_timeout_is_minutes_and_above_the_hard_limit():  # A3, issue 12 part 5
    def limits(env: dict[str, str]) -> tuple[int, int]:
        result = settings_in_subprocess(
            {"SECRET_KEY": "x", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", **env},
            "s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'], s.CELERY_TASK_TIME_LIMIT",
        )
        visibility, hard_limit = map(int, result.stdout.split())
        return visibility, hard_limit

    visibility, hard_limit = limits({})
    assert hard_limit < visibility <= 5 * 60
    visibility, hard_limit = limits({"MATHJURY_TASK_TIME_LIMIT": "300"})
    assert hard_limit == 300 and 300 < visibility <= 300 + 120


def test_secret_key_is_required_when_debug_is_off():
    result = settings_in_subprocess({}, "s.DEBUG")
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_defaults_run_with_no_servers_inside_the_data_folder(tmp_path):
    result = settings_in_subprocess(
        {"DEBUG": "1", "MATHJURY_DATA_DIR": str(tmp_path)},
        "s.DATABASES['default']['NAME'], s.CELERY_BROKER_URL, s.UPLOAD_DIR, "
        "s.MATHJURY_UPLOAD_MAX_BYTES, s.MATHJURY_API_UPLOAD_MAX_BYTES",
    )
    database, broker, uploads, limit, api_limit = result.stdout.split()
    assert database == str(tmp_path / "mathjury.sqlite3")
    assert broker == "filesystem://"
    assert uploads == str(tmp_path / "uploads") and Path(uploads).is_dir()
    # 50 MiB from the web form; scripts through the API may send more
    assert (int(limit), int(api_limit)) == (50 * 1024 * 1024, 200 * 1024 * 1024)


def test_a_malformed_number_names_the_variable():
    result = settings_in_subprocess({"SECRET_KEY": "x", "MATHJURY_CHUNK_SIZE": "lots"}, "1")
    assert "MATHJURY_CHUNK_SIZE='lots' is not a whole number" in result.stderr


def test_spot_check_share_comes_from_the_environment_and_must_be_a_percentage():
    default = settings_in_subprocess({"SECRET_KEY": "x"}, "s.MATHJURY_SPOT_CHECK_PERCENT")
    chosen = settings_in_subprocess(
        {"SECRET_KEY": "x", "MATHJURY_SPOT_CHECK_PERCENT": "12"}, "s.MATHJURY_SPOT_CHECK_PERCENT"
    )
    too_big = settings_in_subprocess({"SECRET_KEY": "x", "MATHJURY_SPOT_CHECK_PERCENT": "120"}, "1")

    assert (default.stdout.strip(), chosen.stdout.strip()) == ("5", "12")
    assert "MATHJURY_SPOT_CHECK_PERCENT=120 is not a percentage from 0 to 100" in too_big.stderr


def test_the_spot_checks_earlier_name_still_works_and_the_new_name_wins():
    # Given a deployment that still sets the setting's earlier name
    old_name = {"SECRET_KEY": "x", "MATHJURY_AUDIT_PERCENT": "7"}

    # When the settings are read with it alone, with both names, and with a bad old value
    alone = settings_in_subprocess(old_name, "s.MATHJURY_SPOT_CHECK_PERCENT")
    both = settings_in_subprocess(
        {**old_name, "MATHJURY_SPOT_CHECK_PERCENT": "9"}, "s.MATHJURY_SPOT_CHECK_PERCENT"
    )
    bad = settings_in_subprocess({"SECRET_KEY": "x", "MATHJURY_AUDIT_PERCENT": "150"}, "1")

    # Then the old name is honoured, the new one takes precedence, and errors name the variable
    assert (alone.stdout.strip(), both.stdout.strip()) == ("7", "9")
    assert "MATHJURY_AUDIT_PERCENT=150 is not a percentage from 0 to 100" in bad.stderr


def test_content_security_policy_allows_no_inline_script():
    directives = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    assert directives["script-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
