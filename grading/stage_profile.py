"""Where a grading process spends its time, by stage, for ``bench/grading.py --profile``.

Off unless the environment names a directory in ``MATHJURY_STAGE_PROFILE``. Then ``start``
wraps a fixed list of functions (ours and math-verify's) with timers that count each call's
own time (wall clock and this thread's CPU time), without the stages called inside it, so a
single-threaded process's stages add up to its wall time (each thread's are counted apart).
Each process writes ``<role>-<pid>.json`` into the directory as it goes and when it ends.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import threading
import time
from collections import defaultdict
from pathlib import Path

ENVIRONMENT_VARIABLE = "MATHJURY_STAGE_PROFILE"
# How often a process rewrites its file while it works, in seconds: children are killed at
# the end of a run, so their last figures must already be on disk.
DUMP_INTERVAL = 0.2

# (module, attribute path, stage). Functions that do not exist (in another version of the
# code) are skipped. Order matters only for readability.
_CHILD_TARGETS = (
    ("grading.child", "_RowGrader.grade_batch", "child loop"),
    ("grading.child", "_wait_for_input", "idle, waiting for rows"),
    ("grading.child", "_decode_batch", "read batches"),
    ("grading.child", "encode", "serialise results"),
    ("grading.child", "_send", "serialise results"),
    ("grading.child", "_Outbox.flush", "serialise results"),
    ("grading.types", "Evaluation.to_dict", "serialise results"),
    ("grading.types", "GradedSample.to_dict", "serialise results"),
    ("grading.pipeline", "without_continuation", "own reply (cut invented turns)"),
    ("grading.pipeline", "with_option_letter", "classify gold"),
    ("grading.pipeline", "find_candidates", "candidate extraction"),
    ("grading.pipeline", "run_evaluator", "evaluators: extraction and logic"),
    ("math_verify.parser", "parse_latex_cached", "evaluators: LaTeX parse"),
    ("math_verify.parser", "parse_expr_cached", "evaluators: LaTeX parse"),
    ("grading.evaluators.symbolic", "verify", "evaluators: verify"),
    ("grading.answer_type", "classify", "classify gold"),
    ("grading.detectors", "detect", "detectors"),
    ("grading.jury", "decide", "jury"),
)
_TARGETS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "parent": (
        ("grading.cli", "read_sample_file", "read input"),
        ("grading.cli", "grade_many", "dedup and order"),
        ("grading.sandbox_run", "GradingRun._dispatch", "dispatch"),
        ("grading.sandbox", "_Child.flush", "dispatch"),
        ("grading.sandbox_run", "GradingRun._on_lines", "receive"),
        ("grading.sandbox", "_Child.read_lines", "receive"),
        ("grading.sandbox", "SandboxPool._start_child", "start children (fork server ready)"),
        ("grading.sandbox_run", "GradingRun._decide_unfinished", "jury (unfinished rows)"),
        ("selectors", "EpollSelector.select", "wait for children"),
        ("grading.cli", "_output_record", "serialise output"),
        ("grading.cli", "_output_lines", "serialise output"),
        ("grading.cli", "_write_atomically", "write output"),
        ("grading.sandbox", "SandboxPool.close", "close the pool"),
    ),
    # The fork server warms up with the children's functions, which its children inherit.
    "forkserver": _CHILD_TARGETS,
    "child": _CHILD_TARGETS,
}

_wall: defaultdict[str, float] = defaultdict(float)
_cpu: defaultdict[str, float] = defaultdict(float)
_calls: defaultdict[str, int] = defaultdict(int)
_local = threading.local()  # .stack: [wall, cpu] spent in nested stages, per open call
_state: dict = {}


def _stack() -> list[list[float]]:
    """This thread's open stages: each thread's time is counted on its own."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def enabled() -> bool:
    return bool(os.environ.get(ENVIRONMENT_VARIABLE))


def start(role: str, targets: tuple[tuple[str, str, str], ...] | None = None) -> None:
    """Wrap the role's functions (or ``targets``: (module, attribute path, stage), for a
    caller outside this package) and start the clock, if profiling is on; otherwise nothing."""
    if not enabled() or _state:
        return
    _reset(role, before_main=_seconds_since_process_start())
    for module_name, path, stage in _TARGETS[role] if targets is None else targets:
        _wrap(module_name, path, stage)


def restart(role: str) -> None:
    """In a forked process: forget the figures inherited from the parent, keep the wrappers."""
    if _state:
        _reset(role, before_main=0.0)


def _reset(role: str, before_main: float) -> None:
    for table in (_wall, _cpu, _calls):
        table.clear()
    _stack().clear()
    _state.update(
        role=role,
        started=time.perf_counter(),
        started_cpu=time.process_time(),
        dumped=0.0,
        before_main=before_main,
    )
    if before_main:
        _wall["process start-up before main"] = before_main


def dump() -> None:
    """Write this process's figures now."""
    if not _state:
        return
    directory = Path(os.environ[ENVIRONMENT_VARIABLE])
    directory.mkdir(parents=True, exist_ok=True)
    figures = {
        "role": _state["role"],
        "pid": os.getpid(),
        "wall": time.perf_counter() - _state["started"] + _state["before_main"],
        "cpu": time.process_time() - _state["started_cpu"],
        "stages": {
            stage: {"wall": _wall[stage], "cpu": _cpu[stage], "calls": _calls[stage]}
            for stage in _wall
        },
    }
    path = directory / f"{_state['role']}-{os.getpid()}.json"
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(figures))
    os.replace(partial, path)
    _state["dumped"] = time.perf_counter()


def _seconds_since_process_start() -> float:
    """From the kernel's record of when this process started (10 ms resolution on Linux)."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except OSError:
        return 0.0
    return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))


def _wrap(module_name: str, path: str, stage: str) -> None:
    try:
        owner = importlib.import_module(module_name)
    except ImportError:
        return
    *parents, name = path.split(".")
    for parent in parents:
        owner = getattr(owner, parent, None)
    function = getattr(owner, name, None)
    if owner is None or function is None or getattr(function, "_stage", None):
        return
    # Functions defined on a class are wrapped on the class (bound on access, like the original).
    is_static = isinstance(owner, type) and isinstance(owner.__dict__.get(name), staticmethod)

    @functools.wraps(function)
    def timed(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        stack = _stack()
        stack.append([0.0, 0.0])
        try:
            return function(*args, **kwargs)
        finally:
            wall_spent = time.perf_counter() - wall
            cpu_spent = time.thread_time() - cpu
            nested_wall, nested_cpu = stack.pop()
            _wall[stage] += wall_spent - nested_wall
            _cpu[stage] += cpu_spent - nested_cpu
            _calls[stage] += 1
            if stack:
                stack[-1][0] += wall_spent
                stack[-1][1] += cpu_spent
            elif wall - _state["dumped"] > DUMP_INTERVAL:
                dump()

    timed._stage = stage
    setattr(owner, name, staticmethod(timed) if is_static else timed)
