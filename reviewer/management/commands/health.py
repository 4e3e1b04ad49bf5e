"""manage.py health: queue lengths, workers seen and rows graded per second."""

from __future__ import annotations

import json
from dataclasses import asdict

from django.core.management.base import BaseCommand

from reviewer.health import health_check


class Command(BaseCommand):
    help = "Show tasks waiting per Celery queue, the workers that answer, and grading speed."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--window", type=int, default=60, help="seconds to average over")
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, *args, window: int, json: bool, **options) -> None:
        health = health_check(window_seconds=window)
        if json:
            self.stdout.write(_dumps({**asdict(health), "rows_per_second": health.rows_per_second}))
        else:
            self.stdout.write("\n".join(health.lines()))


def _dumps(data: dict) -> str:
    return json.dumps(data, indent=2)
