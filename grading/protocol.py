"""The lines a grading child and its parent exchange (the protocol is described in
grading/child.py): encoding and decoding them, and the names both sides share.

Kept apart from the child's loop so that the parent side (grading.sandbox, the command line,
a Celery worker process) never imports the engine and SymPy, which only the fork server and
its children need.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import orjson

# Exit status when the child's own loop runs out of memory outside an evaluator.
EXIT_OUT_OF_MEMORY = 75


def encode(message: object) -> bytes:
    """One protocol line: a dictionary, or a value with ``to_dict`` (an Evaluation, which
    orjson writes field by field itself). orjson is several times faster than json; it refuses
    lone surrogates, which json escapes (an ``orjson.Fragment`` holds JSON encoded already)."""
    try:
        return orjson.dumps(message) + b"\n"
    except TypeError:
        return json.dumps(message, default=_fragment_value).encode("ascii") + b"\n"


def _fragment_value(value: object) -> object:
    if isinstance(value, orjson.Fragment):
        return json.loads(orjson.dumps([value])[1:-1])
    if hasattr(value, "to_dict"):
        return value.to_dict()
    raise TypeError(f"cannot encode {type(value).__name__}")


def decode(line: bytes) -> dict:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:  # an escaped lone surrogate, which orjson refuses
        return json.loads(line)


def evaluator_set_key(names: Sequence[str], options: dict) -> str:
    """How a child recognises an evaluator set it has built, the fork server's included."""
    return json.dumps([list(names), options], sort_keys=True)
