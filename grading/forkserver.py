"""A warm parent for the grading children: it imports and warms the engine once, then forks.

Importing SymPy, latex2sympy and math-verify and building ANTLR's prediction tables costs
about a second, which each child used to pay for itself, again for every replacement. The
fork server (``python -m grading.forkserver``, started by the sandbox with ``subprocess``,
never ``multiprocessing``, so it works from any thread and inside a daemonic Celery worker)
pays it once, then forks each child on request: children start in milliseconds and start
identical, with the same caches, hash seed and random state.

The pool talks to it over a Unix socket (``SOCK_SEQPACKET``, one JSON message per packet):
``{"t": "fork", "memory_mb": N}`` carrying the child's input, output and stderr descriptors
and its shared row record (grading.row_record),
answered by ``{"t": "forked", "pid": P}``; the server reaps its children and reports each
``{"t": "exit", "pid": P, "status": S}`` (statuses as ``subprocess`` gives them: negative for
a signal). When the pool's end of the socket closes, the server kills its children and exits.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from grading import stage_profile
from grading.row_record import RowRecord

# How long the fork server may take to import the engine and warm it up.
STARTUP_TIMEOUT = 60.0
# How long a fork, or the news that a killed child was reaped, may take.
REPLY_TIMEOUT = 10.0
_PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
# The order in which SymPy walks sets of facts follows string hashes; with one seed for every
# server, a row graded alone in a fresh child gets the same result in every run. (A known seed
# would let crafted text collide in a dictionary; the children's dictionaries keyed by text
# are bounded caches, so the worst case is a slow row, which its time limit ends.)
HASH_SEED = "0"
_MESSAGE_BYTES = 1 << 16
# Graded once before forking, so that every child inherits the grammar's deserialised tables
# and the prediction paths of the commonest answers instead of building them on its first
# rows. Kept short: the server is not ready until they are done, and paths that a run never
# needs would only delay it; the children learn the rest as they meet it.
_WARM_UP = (
    ("$\\frac{1}{2}$", "So $x = 0.5$ and the answer is $\\boxed{\\frac{1}{2}}$."),
    ("$3\\sqrt{2}$", "Hence $\\sqrt{18} = \\boxed{3\\sqrt{2}}$."),
    ("$12$", "The answer is 12. #### 12"),
)


class ForkServerError(RuntimeError):
    """The fork server died, hung, or could not start; the message has its last words."""


# --- the pool's side ------------------------------------------------------------------------


@dataclass
class ForkedChild:
    """A child the fork server started: its pid and the parent's ends of its pipes."""

    pid: int
    input_fd: int  # the parent writes batches here
    output_fd: int  # and reads answers here
    stderr: BinaryIO  # what the child printed, kept for the error message if it dies
    record: RowRecord  # the row in progress and what finished in it, shared with the child


class ForkServer:
    """The pool's handle on its fork server process; starts it at once, without waiting."""

    def __init__(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        env["PYTHONHASHSEED"] = HASH_SEED
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "grading.forkserver", "--control-fd", str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=self.stderr,
                stderr=self.stderr,
                pass_fds=[theirs.fileno()],
                start_new_session=True,  # Ctrl-C in a terminal is the pool's to handle
                env=env,
            )
        self.control = ours
        self.started = time.monotonic()
        self.ready = False
        self.exits: dict[int, int] = {}  # reaped children the pool has not asked about yet

    @property
    def pid(self) -> int:
        return self.process.pid

    def fork(self, memory_mb: int) -> ForkedChild:
        """A new child limited to ``memory_mb`` of address space; waits for the server to be
        ready first. Raises ForkServerError if the server is dead or does not answer."""
        if not self.ready:
            self._receive("ready", self.started + STARTUP_TIMEOUT)
            self.ready = True
        input_read, input_write = os.pipe()
        output_read, output_write = os.pipe()
        stderr = tempfile.TemporaryFile()
        record = RowRecord.create()
        try:
            request = json.dumps({"t": "fork", "memory_mb": memory_mb}).encode()
            theirs = [input_read, output_write, stderr.fileno(), record.fd]
            try:
                socket.send_fds(self.control, [request], theirs)
            except OSError as exc:
                raise self._failure(f"cannot reach the fork server ({exc})") from None
            reply = self._receive("forked", time.monotonic() + REPLY_TIMEOUT)
        except BaseException:
            for fd in (input_write, output_read):
                os.close(fd)
            stderr.close()
            record.close()
            raise
        finally:
            os.close(input_read)
            os.close(output_write)
        return ForkedChild(reply["pid"], input_write, output_read, stderr, record)

    def exit_status(self, pid: int, timeout: float = REPLY_TIMEOUT) -> int | None:
        """The exit status of a child that ended or was killed, once the server reaped it;
        None if the server is gone or does not say in time."""
        if pid not in self.exits:
            try:
                self._receive("exit", time.monotonic() + timeout, pid=pid)
            except ForkServerError:
                return None
        return self.exits.pop(pid, None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        """Stop the server; it kills and reaps any child still running. A server still
        warming up (it has no children yet) would notice only when done, so it is killed."""
        self.control.close()
        try:
            if not self.ready:
                raise subprocess.TimeoutExpired(self.process.args, 0)
            self.process.wait(timeout=REPLY_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
        self.stderr.close()

    def kill(self) -> None:
        """End a server that hangs or misbehaves (its children live on until the pool kills them)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()

    def last_words(self) -> str:
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - 2000))
        return self.stderr.read().decode("utf-8", "replace")

    def _receive(self, kind: str, deadline: float, pid: int | None = None) -> dict:
        """Read messages until one of ``kind`` (for ``pid``) arrives, keeping exit notices."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._failure(f"the fork server did not answer within its limit ({kind})")
            self.control.settimeout(remaining)
            try:
                data = self.control.recv(_MESSAGE_BYTES)
            except TimeoutError:
                continue
            except OSError as exc:
                raise self._failure(f"the fork server connection failed ({exc})") from None
            if not data:
                self.process.wait()
                raise self._failure(f"the fork server exited with status {self.process.returncode}")
            message = json.loads(data)
            if message["t"] == "exit":
                self.exits[message["pid"]] = message["status"]
                if kind == "exit" and message["pid"] == pid:
                    return message
            elif message["t"] == kind:
                return message

    def _failure(self, what: str) -> ForkServerError:
        return ForkServerError(f"{what}; it said:\n{self.last_words()}")


_started_early: list[ForkServer] = []


def start_early() -> None:
    """Start a fork server now, before the caller's own imports, for the first pool of this
    process to take: the command line's imports and input then load while the engine warms."""
    if not _started_early:
        _started_early.append(ForkServer())
        atexit.register(_close_untaken)


def take_early_or_start() -> ForkServer:
    """The server ``start_early`` started, the first time it is asked for; a new one after."""
    return _started_early.pop() if _started_early else ForkServer()


def _close_untaken() -> None:
    """A command that ended before making a pool (a usage error) leaves no server behind."""
    for server in _started_early:
        server.close()
    _started_early.clear()


# --- the fork server process --------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grading.forkserver")
    parser.add_argument("--control-fd", type=int, required=True)
    args = parser.parse_args(argv)
    control = socket.socket(fileno=args.control_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stage_profile.start("forkserver")
    evaluator_sets = _warm_up()
    stage_profile.dump()
    # Objects made so far live as long as the server: keeping them out of the collector's
    # generations spares each child from copying the pages the collector would touch.
    gc.collect()
    gc.freeze()
    _send(control, {"t": "ready", "pid": os.getpid()})
    return _serve(control, evaluator_sets)


def _warm_up() -> dict:
    """Import the engine, build the default evaluators and grade a few answers with them."""
    import sympy.core.random

    from grading import child, pipeline
    from grading.evaluators import DEFAULT_EVALUATORS, build_evaluators
    from grading.types import Sample

    evaluators = build_evaluators(DEFAULT_EVALUATORS)
    for gold, output in _WARM_UP:
        pipeline.grade_sample(Sample(gold, output), evaluators)
    # SymPy's assumption system checks facts in an order drawn from its own random generator,
    # seeded from the operating system; every server starts its children from the same state.
    sympy.core.random.seed(0)
    return {child.evaluator_set_key(DEFAULT_EVALUATORS, {}): evaluators}


def _serve(control: socket.socket, evaluator_sets: dict) -> int:
    wake_read, wake_write = os.pipe()
    for fd in (wake_read, wake_write):
        os.set_blocking(fd, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    children: set[int] = set()
    while True:
        readable, _, _ = select.select([control, wake_read], [], [])
        if wake_read in readable:
            while True:
                try:
                    os.read(wake_read, 512)
                except BlockingIOError:
                    break
        _reap(control, children)
        if control not in readable:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(control, _MESSAGE_BYTES, 4)
        except OSError:
            data, fds = b"", []
        if not data:  # the pool closed its end, or died
            _end_children(children)
            return 0
        request = json.loads(data)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _become_child(control, (wake_read, wake_write), fds, request, evaluator_sets)
        for fd in fds:
            os.close(fd)
        children.add(pid)
        _send(control, {"t": "forked", "pid": pid})


def _reap(control: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        _send(control, {"t": "exit", "pid": pid, "status": os.waitstatus_to_exitcode(status)})


def _end_children(children: set[int]) -> None:
    for pid in children:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _send(control: socket.socket, message: dict) -> None:
    try:
        control.send(json.dumps(message).encode())
    except OSError:  # the pool is gone; the next receive says so
        pass


def _become_child(
    control: socket.socket,
    wake_fds: tuple[int, int],
    fds: list[int],
    request: dict,
    evaluator_sets: dict,
) -> None:
    """In the forked process: cut the ties to the server, set the limits, grade; never returns."""
    status = 1
    try:
        from grading import child

        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        control.close()
        for fd in wake_fds:
            os.close(fd)
        os.setsid()  # its own process group, so a kill takes any grandchild
        input_fd, output_fd, stderr_fd, record_fd = fds
        os.dup2(stderr_fd, 1)  # stray prints from libraries must not reach the protocol
        os.dup2(stderr_fd, 2)
        os.close(stderr_fd)
        limit = request["memory_mb"] * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        stage_profile.restart("child")
        with os.fdopen(input_fd, "rb") as batches:
            status = child.serve(batches, output_fd, RowRecord(record_fd), evaluator_sets)
        stage_profile.dump()
    except MemoryError:
        status = 75  # child.EXIT_OUT_OF_MEMORY, without a lookup that could allocate
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
