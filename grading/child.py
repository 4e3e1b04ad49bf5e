"""The grading child: ``python -m grading.child --memory-mb N``, driven by grading.sandbox.

Protocol, one JSON object per line. The parent writes batches::

    {"evaluators": [names], "options": {name: {...}}, "rows": [[id, gold, output, finish, problem], ...]}

and the child answers, in this order for each row::

    {"t": "config", "names": [...], "versions": [...]}    once per evaluator set, before rows
    {"t": "eval", "id": id, "evaluation": {...}}           one per evaluator, as each finishes
    {"t": "done", "id": id, "graded": {...}, "recycle": false}
    {"t": "fail", "id": id, "detail": "..."}               instead of "done" if a step crashed
    {"t": "config_error", "detail": "..."}                 the evaluators could not be built

Each row goes through ``pipeline.grade_sample``. Rows run back to back, so the parent times
a row from the end of the one before. "eval" lines are buffered and reach the parent with the
row's "done" (one write per row), or within FLUSH_INTERVAL once a row runs long, so a row
that is killed still shows what finished.
The child starts with {"t": "ready"} and exits when its stdin closes. Time and memory are
bounded by the parent (wall clock, by killing this process group) and by the address-space
limit set here; ``recycle`` asks the parent to replace a child whose heap ran out once.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import sys
import threading
import time
from collections.abc import Sequence
from typing import BinaryIO

from grading import pipeline, stage_profile
from grading.evaluators import Evaluator, build_evaluators
from grading.types import Evaluation, Sample, Status

# Exit status when the child's own loop runs out of memory outside an evaluator.
EXIT_OUT_OF_MEMORY = 75
FLUSH_INTERVAL = 0.1


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    stage_profile.start("child")
    _limit_address_space(args.memory_mb)
    # Ctrl-C in a terminal is the parent's to handle; it then closes or kills this child.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    protocol_out = _claim_stdout()
    grader = _RowGrader(protocol_out)
    _watch_in_background(os.getppid(), grader)
    _send(protocol_out, {"t": "ready", "pid": os.getpid()})
    try:
        for line in sys.stdin.buffer:
            if line.strip():
                grader.grade_batch(json.loads(line))
    except MemoryError:
        return EXIT_OUT_OF_MEMORY
    stage_profile.dump()
    return 0


class _RowGrader:
    """Grades batches row by row, streaming each result to the parent as soon as it exists."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.evaluator_sets: dict[str, tuple[Evaluator, ...]] = {}
        self.row_started: float | None = None  # read by the watcher thread

    def grade_batch(self, batch: dict) -> None:
        try:
            evaluators = self._evaluators(batch["evaluators"], batch.get("options") or {})
        except (ValueError, TypeError) as exc:  # unknown names or options: the caller's error
            _send(self.out, {"t": "config_error", "detail": str(exc)})
            return
        for row_id, gold, output, finish_reason, problem in batch["rows"]:
            sample = Sample(gold, output, finish_reason, problem)
            self._grade_row(row_id, sample, evaluators)

    def _evaluators(self, names: list[str], options: dict) -> tuple[Evaluator, ...]:
        key = json.dumps([names, options], sort_keys=True)
        if key not in self.evaluator_sets:
            evaluators = build_evaluators(names, options)
            self.evaluator_sets[key] = evaluators
            _send(
                self.out,
                {
                    "t": "config",
                    "names": [e.name for e in evaluators],
                    "versions": [e.version for e in evaluators],
                },
            )
        return self.evaluator_sets[key]

    def _grade_row(self, row_id: int, sample: Sample, evaluators: Sequence[Evaluator]) -> None:
        self.row_started = time.monotonic()
        ran_out = False

        def stream(evaluation: Evaluation) -> None:
            nonlocal ran_out
            ran_out = ran_out or (
                evaluation.status is Status.ERROR
                and evaluation.detail == pipeline.OUT_OF_MEMORY_DETAIL
            )
            message = {"t": "eval", "id": row_id, "evaluation": evaluation.to_dict()}
            _send(self.out, message, flush=False)

        try:
            graded = pipeline.grade_sample(sample, evaluators, on_evaluation=stream)
        except MemoryError:
            self.row_started = None
            _send(self.out, {"t": "fail", "id": row_id, "detail": "out of memory"})
            raise
        except Exception as exc:  # a bug in one step costs this row, not the child
            self.row_started = None
            detail = f"{type(exc).__name__}: {exc}"[:500]
            _send(self.out, {"t": "fail", "id": row_id, "detail": detail})
            return
        self.row_started = None
        _send(
            self.out,
            {"t": "done", "id": row_id, "graded": graded.to_dict(), "recycle": ran_out},
        )


def _send(out: BinaryIO, message: dict, *, flush: bool = True) -> None:
    out.write(json.dumps(message).encode("ascii") + b"\n")
    if flush:
        out.flush()


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m grading.child")
    parser.add_argument("--memory-mb", type=int, required=True)
    return parser.parse_args(argv)


def _limit_address_space(memory_mb: int) -> None:
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _claim_stdout() -> BinaryIO:
    """Keep the real stdout for the protocol and send stray prints from libraries to stderr."""
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return os.fdopen(protocol_fd, "wb", buffering=1 << 16)


def _watch_in_background(parent_pid: int, grader: _RowGrader) -> None:
    """Flush a long row's finished evaluations, and exit soon after the parent dies even while
    busy in a row (stdin EOF covers idle time). Buffered writers are thread-safe."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(FLUSH_INTERVAL)
            started = grader.row_started
            if started is not None and time.monotonic() - started > FLUSH_INTERVAL:
                grader.out.flush()
        os._exit(0)

    threading.Thread(target=watch, name="watcher", daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
