"""A grading chunk: the rows one grading task was sent for, and who holds them now."""

from django.db import models

from reviewer.models.runs import Run


class GradingChunk(models.Model):
    """The rows one grading task was sent for, and the lease of the worker grading them.

    The broker may lose a message (a flush, a restart without persistence) and a worker may
    die with a task in hand; the database knows which rows wait, and these records say which
    of them a live task still holds, so ``manage.py reconcile`` re-sends only the others.
    """

    class State(models.TextChoices):
        QUEUED = "queued"  # sent, no worker has started it
        RUNNING = "running"  # a worker holds it and reports a heartbeat
        DONE = "done"  # finished, or its unfinished rows were sent on in a new chunk
        ABANDONED = "abandoned"  # lost (see origin of the chunk that replaced it); ignored

    class Origin(models.TextChoices):
        UPLOAD = "upload", "sent when the run was queued"
        GENERATED = "generated", "sent as a generated run's outputs arrived"
        SPLIT = "split", "the rest of a chunk that reached its time limit"
        RETRY = "retry", "the rest of a chunk whose task failed"
        NO_MESSAGE = "no_message", "re-sent: the broker had no message for them"
        WORKER_LOST = "worker_lost", "re-sent: the worker grading them stopped reporting"
        UNSENT = "unsent", "re-sent: no task had been sent for them"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="grading_chunks")
    generation = models.PositiveIntegerField()
    item_ids = models.JSONField(default=list)
    origin = models.CharField(max_length=16, choices=Origin, default=Origin.UPLOAD)
    state = models.CharField(max_length=16, choices=State, default=State.QUEUED)
    sent_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The delivery holding the lease (host, process, a random part): a second delivery of the
    # same message leaves a chunk alone while its holder still reports.
    holder = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["run", "generation", "state"]),
            models.Index(fields=["heartbeat_at"]),
        ]

    def __str__(self) -> str:
        return f"chunk {self.pk} of run {self.run_id} ({self.state})"
