"""A page of memory shared by a grading child and its parent: the row in progress and what
has finished in it.

A child stuck in big-integer arithmetic holds Python's interpreter lock, so no thread of its
own can send anything; and writing each evaluation to the pipe as it finishes would cost a
system call and a parent wake-up per evaluator. Instead the child copies each finished
evaluation into this shared page (a memory write, no system call), and the parent reads the
page when it kills the child, so a row stopped at its time limit keeps what finished. The
page also says when the row started, on the wall clock and on the child's CPU clock, so the
parent times it exactly even when the answers of the rows before it are still buffered in the
child.

Layout: row id (int64, -1 when no row is in progress), row start and last update
(``time.monotonic``, float64), the child's CPU time at the row's start
(``time.process_time``, float64), length of the evaluations (uint32), then the evaluations as
protocol JSON lines. The child writes the payload before the length, and the starts before
the row id, so a reader never sees a length or an id before what it covers.
"""

from __future__ import annotations

import mmap
import os
import struct

SIZE = 1 << 18
_HEADER = struct.Struct("<qdddI")
_NO_ROW = -1


class RowRecord:
    """One child's shared page; the parent creates it, the child attaches to its descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.memory = mmap.mmap(fd, SIZE)
        self.length = 0  # the child's own count, so it never reads the page back

    @classmethod
    def create(cls) -> RowRecord:
        fd = os.memfd_create("mathjury-row", os.MFD_CLOEXEC)
        os.ftruncate(fd, SIZE)
        record = cls(fd)
        _HEADER.pack_into(record.memory, 0, _NO_ROW, 0.0, 0.0, 0.0, 0)
        return record

    def close(self) -> None:
        self.memory.close()
        os.close(self.fd)

    # --- the child's side -----------------------------------------------------------------

    def start_row(self, row_id: int, now: float, cpu_now: float) -> None:
        self.length = 0
        struct.pack_into("<dddI", self.memory, 8, now, now, cpu_now, 0)
        struct.pack_into("<q", self.memory, 0, row_id)

    def add(self, line: bytes, now: float) -> None:
        """Append one finished evaluation; one that does not fit is left out."""
        start = _HEADER.size + self.length
        if start + len(line) > SIZE:
            return
        self.memory[start : start + len(line)] = line
        self.length += len(line)
        struct.pack_into("<d", self.memory, 16, now)
        struct.pack_into("<I", self.memory, 32, self.length)

    def end_row(self) -> None:
        struct.pack_into("<q", self.memory, 0, _NO_ROW)

    # --- the parent's side ----------------------------------------------------------------

    def current_row(self) -> int | None:
        """The row the child is on, if any."""
        (current,) = struct.unpack_from("<q", self.memory, 0)
        return None if current == _NO_ROW else current

    def row_started(self, row_id: int) -> tuple[float, float] | None:
        """When the child started ``row_id`` (wall clock) and its CPU time then, if that is the
        row it is on now; read at once, so both belong to that row."""
        current, started, _, cpu_started = struct.unpack_from("<qddd", self.memory, 0)
        return (started, cpu_started) if current == row_id else None

    def finished(self, row_id: int) -> tuple[list[bytes], float | None]:
        """The evaluation lines the child finished in ``row_id`` and when it added the last,
        if that is the row it was on; read once the child is stopped."""
        current, _, updated, _, length = _HEADER.unpack_from(self.memory, 0)
        if current != row_id:
            return [], None
        payload = self.memory[_HEADER.size : _HEADER.size + min(length, SIZE)]
        return [line for line in payload.split(b"\n") if line], updated
