"""Where a grading process spends its time, by stage, for ``bench/grading.py --profile``.

Off unless the environment names a directory in ``MATHJURY_STAGE_PROFILE``. Then ``start``
wraps a fixed list of functions (ours and math-verify's) with timers that count each call's
own time, without the stages called inside it, so a process's stages add up to its wall time.
Each process writes ``<role>-<pid>.json`` into the directory as it goes and when it ends.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import time
from collections import defaultdict
from pathlib import Path

ENVIRONMENT_VARIABLE = "MATHJURY_STAGE_PROFILE"
# How often a process rewrites its file while it works, in seconds: children are killed at
# the end of a run, so their last figures must already be on disk.
DUMP_INTERVAL = 0.2

# (module, attribute path, stage). Functions that do not exist (in another version of the
# code) are skipped. Order matters only for readability.
_TARGETS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "parent": (
        ("grading.cli", "read_sample_file", "read input"),
        ("grading.cli", "grade_many", "dedup and order"),
        ("grading.sandbox", "_GradingRun._dispatch", "dispatch"),
        ("grading.sandbox", "_GradingRun._on_line", "receive"),
        ("grading.sandbox", "_GradingRun._on_lines", "receive"),
        ("grading.sandbox", "_Child.read_lines", "receive"),
        ("grading.sandbox", "_Child.flush", "dispatch"),
        ("grading.sandbox", "SandboxPool._start_child", "start children"),
        ("grading.sandbox", "_GradingRun._decide_unfinished", "jury (unfinished rows)"),
        ("selectors", "EpollSelector.select", "wait for children"),
        ("grading.cli", "_output_record", "serialise output"),
        ("grading.cli", "_output_lines", "serialise output"),
        ("grading.cli", "_write_jsonl_atomically", "write output"),
    ),
    "child": (
        ("grading.child", "_RowGrader.grade_batch", "child loop"),
        ("grading.child", "_decode_batch", "read batch"),
        ("grading.child", "_send", "serialise results"),
        ("grading.child", "_RowGrader._send", "serialise results"),
        ("grading.types", "Evaluation.to_dict", "serialise results"),
        ("grading.types", "GradedSample.to_dict", "serialise results"),
        ("grading.child", "_wait_for_input", "idle"),
        ("grading.pipeline", "run_evaluator", "evaluators: extraction and logic"),
        ("math_verify.parser", "parse_latex_cached", "evaluators: LaTeX parse"),
        ("math_verify.parser", "parse_expr_cached", "evaluators: LaTeX parse"),
        ("grading.evaluators.symbolic", "verify", "evaluators: verify"),
        ("grading.answer_type", "classify", "classify gold"),
        ("grading.detectors", "detect", "detectors"),
        ("grading.jury", "decide", "jury"),
    ),
}

_own = defaultdict(float)
_calls = defaultdict(int)
_stack: list[float] = []  # time spent in nested stages, per open call
_state: dict = {}


def enabled() -> bool:
    return bool(os.environ.get(ENVIRONMENT_VARIABLE))


def start(role: str) -> None:
    """Wrap the role's functions and start the clock, if profiling is on; otherwise nothing."""
    if not enabled() or _state:
        return
    _state.update(role=role, started=time.perf_counter(), dumped=0.0)
    _state["before_main"] = _own["process start-up before main"] = _seconds_since_process_start()
    for module_name, path, stage in _TARGETS[role]:
        _wrap(module_name, path, stage)


def restart(role: str) -> None:
    """In a forked process: forget the figures inherited from the parent, keep the wrappers."""
    if not _state:
        return
    _own.clear()
    _calls.clear()
    _stack.clear()
    _state.update(role=role, started=time.perf_counter(), dumped=0.0)


def dump() -> None:
    """Write this process's figures now."""
    if not _state:
        return
    directory = Path(os.environ[ENVIRONMENT_VARIABLE])
    directory.mkdir(parents=True, exist_ok=True)
    figures = {
        "role": _state["role"],
        "pid": os.getpid(),
        "wall": time.perf_counter() - _state["started"] + _state.get("before_main", 0.0),
        "stages": {stage: {"seconds": _own[stage], "calls": _calls[stage]} for stage in _own},
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
        began = time.perf_counter()
        _stack.append(0.0)
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - began
            nested = _stack.pop()
            _own[stage] += elapsed - nested
            _calls[stage] += 1
            if _stack:
                _stack[-1] += elapsed
            elif began - _state["dumped"] > DUMP_INTERVAL:
                dump()

    timed._stage = stage
    setattr(owner, name, staticmethod(timed) if is_static else timed)
