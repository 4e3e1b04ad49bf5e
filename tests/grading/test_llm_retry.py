"""How long the client waits before asking again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import pytest

from grading.llm import RetryPolicy
from grading.llm.retry import retry_after_seconds


def response_with(**headers: str) -> SimpleNamespace:
    return SimpleNamespace(headers={k.replace("_", "-"): v for k, v in headers.items()})


def test_retry_after_is_read_in_seconds_milliseconds_or_as_a_date():
    assert retry_after_seconds(response_with(retry_after="7")) == 7.0
    assert retry_after_seconds(response_with(retry_after="1.5")) == 1.5
    assert retry_after_seconds(response_with(retry_after_ms="250", retry_after="9")) == 0.25
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=120), usegmt=True)
    assert 100 < retry_after_seconds(response_with(retry_after=later)) <= 120
    assert retry_after_seconds(response_with(retry_after="soon")) is None
    assert retry_after_seconds(response_with()) is None
    assert retry_after_seconds(response_with(retry_after="-3")) == 0.0


@pytest.mark.parametrize(("attempt", "low", "high"), [(1, 0.5, 1.0), (3, 2.0, 4.0), (9, 5.0, 10.0)])
def test_backoff_doubles_with_jitter_up_to_the_ceiling(attempt, low, high):
    policy = RetryPolicy(base_delay=1.0, max_delay=10.0)

    delays = [policy.delay(attempt, None) for _ in range(200)]

    assert all(low <= d <= high for d in delays)
    assert len(set(delays)) > 1  # jittered, so threads that failed together spread out


def test_a_retry_after_is_waited_in_full_and_a_too_long_one_is_not_waited_at_all():
    policy = RetryPolicy(max_delay=30.0)

    assert all(2.0 <= policy.delay(1, 2.0) <= 2.2 for _ in range(100))
    assert policy.delay(1, 31.0) is None


def test_a_policy_without_attempts_is_refused():
    with pytest.raises(ValueError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)
