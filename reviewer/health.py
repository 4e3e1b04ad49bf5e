"""What an operator watches when workers run on several machines: how many tasks wait in each
queue, which workers answer, and how fast rows are being graded (read-only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from kombu.exceptions import ChannelError

from reviewer.celery import app as celery_app
from reviewer.models import Item, Run


@dataclass(frozen=True)
class Health:
    queues: dict[str, int | None]  # queue -> tasks waiting (None: the broker could not say)
    workers: dict[str, list[str]] | None  # worker -> queues it consumes; None: no answer
    broker_error: str
    runs_grading: int
    rows_pending: int  # in runs still grading
    rows_graded_recently: int
    window_seconds: int

    @property
    def rows_per_second(self) -> float:
        return self.rows_graded_recently / self.window_seconds

    def lines(self) -> list[str]:
        """The report as text, one fact a line."""
        lines = ["queues (tasks waiting):"]
        for name, waiting in self.queues.items():
            lines.append(f"  {name:<12}{'?' if waiting is None else waiting:>10}")
        if self.broker_error:
            lines.append(f"  broker: {self.broker_error}")
        if self.workers is None:
            lines.append("workers: not asked (the filesystem broker cannot broadcast)")
        else:
            lines.append(f"workers seen: {len(self.workers)}")
            for name, queues in sorted(self.workers.items()):
                lines.append(f"  {name}: {', '.join(queues) or '?'}")
        lines.append(
            f"grading: {self.runs_grading} runs, {self.rows_pending} rows pending, "
            f"{self.rows_per_second:.1f} rows/s over the last {self.window_seconds} s"
        )
        return lines


def health_check(*, window_seconds: int = 60, ping_timeout: float = 1.0) -> Health:
    """Ask the broker for queue lengths and the workers for their queues; count graded rows."""
    queues: dict[str, int | None] = dict.fromkeys(settings.MATHJURY_QUEUES)
    workers: dict[str, list[str]] | None = None
    error = ""
    try:
        with celery_app.connection_for_read() as connection:
            channel = connection.default_channel
            for name in queues:
                try:
                    queues[name] = channel.queue_declare(queue=name, passive=True).message_count
                except ChannelError:  # never declared: no task was ever sent to it
                    queues[name] = 0
        if not celery_app.conf.broker_url.startswith("filesystem"):
            answers = celery_app.control.inspect(timeout=ping_timeout).active_queues() or {}
            workers = {
                name: sorted(queue["name"] for queue in consumed)
                for name, consumed in answers.items()
            }
    except Exception as exc:  # noqa: BLE001 (any broker failure is what the report shows)
        error = f"{type(exc).__name__}: {exc}"
    since = timezone.now() - timedelta(seconds=window_seconds)
    grading = Run.objects.filter(status__in=[Run.Status.QUEUED, Run.Status.GRADING])
    in_grading = Item.objects.filter(run__in=grading)
    return Health(
        queues=queues,
        workers=workers,
        broker_error=error,
        runs_grading=grading.count(),
        rows_pending=in_grading.filter(grade_state=Item.GradeState.PENDING).count(),
        rows_graded_recently=in_grading.filter(graded_at__gte=since).count(),
        window_seconds=window_seconds,
    )
