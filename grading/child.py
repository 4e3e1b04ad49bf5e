"""The grading child's loop: rows in, results out, in a process forked by grading.forkserver.

Protocol, one compact JSON object per line. The parent (grading.sandbox) writes batches::

    {"evaluators": [names], "options": {name: {...}}, "rows": [[id, gold, output, finish, problem], ...]}

and the child answers, in this order for each row::

    {"t":"config","names":[...],"versions":[...]}    once per evaluator set, before its rows
    {"t":"done","id":id,"at":T,"graded":{...},"recycle":false}
    {"t":"fail","id":id,"at":T,"detail":"...","evaluations":[...]}   instead, if a step crashed
    {"t":"config_error","detail":"..."}               the evaluators could not be built

Each row goes through ``pipeline.grade_sample``. Answers are buffered and written once per
batch, or within FLUSH_INTERVAL of being ready, so a fast batch costs one write; as each
evaluation finishes it is copied into the child's shared row record (grading.row_record),
which the parent reads if it kills the child, so a row stopped at its limit keeps what
finished. ``at`` is when the row ended (``time.monotonic``, the same clock in every
process). The child exits when its input closes or the parent stops reading its output.
Time and memory are bounded by the parent (wall clock, by killing the process group) and by
the address-space limit the fork server sets; ``recycle`` asks the parent to replace a child
whose heap ran out once.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Sequence
from typing import BinaryIO

import orjson

from grading import pipeline
from grading.evaluators import Evaluator, build_evaluators
from grading.protocol import EXIT_OUT_OF_MEMORY, decode, encode, evaluator_set_key
from grading.row_record import RowRecord
from grading.types import Evaluation, Sample, Status

__all__ = ["EXIT_OUT_OF_MEMORY", "decode", "encode", "evaluator_set_key", "serve"]

FLUSH_INTERVAL = 0.1


def serve(
    batches: BinaryIO,
    protocol_fd: int,
    record: RowRecord,
    evaluator_sets: dict[str, tuple[Evaluator, ...]],
) -> int:
    """Grade every batch read from ``batches`` until it closes; returns the exit status."""
    outbox = _Outbox(protocol_fd)
    grader = _RowGrader(outbox, record, evaluator_sets)
    _watch_in_background(outbox)
    outbox.write(encode({"t": "ready", "pid": os.getpid()}))
    outbox.flush()
    try:
        while line := _wait_for_input(batches):
            if line.strip():
                grader.grade_batch(_decode_batch(line))
    except MemoryError:
        return EXIT_OUT_OF_MEMORY
    return 0


def _wait_for_input(batches: BinaryIO) -> bytes:
    return batches.readline()


def _decode_batch(line: bytes) -> dict:
    return decode(line)


class _Outbox:
    """Answers waiting to be written to the parent; shared with the watcher thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        self.pending = bytearray()
        self.pending_since = 0.0

    def write(self, data: bytes) -> None:
        with self.lock:
            if not self.pending:
                self.pending_since = time.monotonic()
            self.pending += data

    def flush(self) -> None:
        with self.lock:
            self.flush_locked()

    def flush_locked(self) -> None:
        view = memoryview(self.pending)
        written = 0
        try:
            while written < len(view):
                written += os.write(self.fd, view[written:])
        finally:
            view.release()
            del self.pending[:written]


class _RowGrader:
    """Grades batches row by row, recording each evaluation in the shared row record."""

    def __init__(
        self,
        outbox: _Outbox,
        record: RowRecord,
        evaluator_sets: dict[str, tuple[Evaluator, ...]],
    ) -> None:
        self.outbox = outbox
        self.record = record
        self.evaluator_sets = evaluator_sets
        self.announced: set[str] = set()  # evaluator sets described to the parent

    def grade_batch(self, batch: dict) -> None:
        try:
            evaluators = self._evaluators(batch["evaluators"], batch.get("options") or {})
        except (ValueError, TypeError) as exc:  # unknown names or options: the caller's error
            self.outbox.write(encode({"t": "config_error", "detail": str(exc)}))
            self.outbox.flush()
            return
        for row_id, gold, output, finish_reason, problem in batch["rows"]:
            self._grade_row(row_id, Sample(gold, output, finish_reason, problem), evaluators)
        self.outbox.flush()

    def _evaluators(self, names: list[str], options: dict) -> tuple[Evaluator, ...]:
        key = evaluator_set_key(names, options)
        if key not in self.evaluator_sets:
            self.evaluator_sets[key] = build_evaluators(names, options)
        evaluators = self.evaluator_sets[key]
        if key not in self.announced:
            self.announced.add(key)
            message = {
                "t": "config",
                "names": [e.name for e in evaluators],
                "versions": [e.version for e in evaluators],
            }
            self.outbox.write(encode(message))
        return evaluators

    def _grade_row(self, row_id: int, sample: Sample, evaluators: Sequence[Evaluator]) -> None:
        self.record.start_row(row_id, time.monotonic(), time.process_time())
        finished: list[Evaluation] = []
        encoded: dict[int, tuple[Evaluation, orjson.Fragment]] = {}

        def keep(evaluation: Evaluation) -> None:
            finished.append(evaluation)
            line = encode(evaluation)  # orjson writes the dataclass as to_dict() would
            self.record.add(line, time.monotonic())
            encoded[id(evaluation)] = (evaluation, orjson.Fragment(line[:-1]))

        def as_encoded(evaluation: Evaluation) -> object:
            """Each evaluation is serialised once, for the row record, and reused here."""
            kept = encoded.get(id(evaluation))
            return kept[1] if kept is not None and kept[0] is evaluation else evaluation.to_dict()

        try:
            graded = pipeline.grade_sample(sample, evaluators, on_evaluation=keep)
            message = {
                "t": "done",
                "id": row_id,
                "graded": graded.to_dict(as_encoded),
                "recycle": any(_ran_out_of_memory(e) for e in finished),
            }
        except MemoryError:
            self._end_row(self._failure(row_id, "out of memory", finished))
            self.outbox.flush()
            raise
        except Exception as exc:  # a bug in one step costs this row, not the child
            detail = f"{type(exc).__name__}: {exc}"[:500]
            self._end_row(self._failure(row_id, detail, finished))
            return
        self._end_row(message)

    @staticmethod
    def _failure(row_id: int, detail: str, finished: list[Evaluation]) -> dict:
        evaluations = [e.to_dict() for e in finished]
        return {"t": "fail", "id": row_id, "detail": detail, "evaluations": evaluations}

    def _end_row(self, message: dict) -> None:
        message["at"] = time.monotonic()
        self.record.end_row()
        self.outbox.write(encode(message))


def _ran_out_of_memory(evaluation: Evaluation) -> bool:
    return evaluation.status is Status.ERROR and evaluation.detail == pipeline.OUT_OF_MEMORY_DETAIL


def _watch_in_background(outbox: _Outbox) -> None:
    """Write answers that waited FLUSH_INTERVAL, and exit once the parent stops reading (its
    end of the pipe closed), even in the middle of a row."""
    poller = select.poll()
    poller.register(outbox.fd, 0)  # POLLERR and POLLHUP are always reported

    def watch() -> None:
        while not poller.poll(FLUSH_INTERVAL * 1000):
            with outbox.lock:
                if outbox.pending and time.monotonic() - outbox.pending_since >= FLUSH_INTERVAL:
                    outbox.flush_locked()
        os._exit(0)

    threading.Thread(target=watch, name="watcher", daemon=True).start()
