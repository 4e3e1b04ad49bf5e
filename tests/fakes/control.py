"""Start the fake OpenAI-compatible server in its own process and drive it from a test.

Its own process, so a Celery worker or a benchmark's client threads reach it over loopback
like a real server, without sharing the test's GIL.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import urllib.request
from collections import Counter
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


class FakeOpenAIServer:
    """A running ``tests.fakes.openai_server`` process: ``base_url`` for clients, methods for
    the control API."""

    def __init__(self, process: subprocess.Popen, api_port: int, control_port: int) -> None:
        self.process = process
        self.api_port = api_port
        self.control_port = control_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.api_port}/v1"

    @classmethod
    def start(cls, startup_timeout_s: float = 60.0) -> FakeOpenAIServer:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.openai_server"],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        ready, _, _ = select.select([process.stdout], [], [], startup_timeout_s)
        line = process.stdout.readline() if ready else b""
        if not line:
            process.kill()
            raise RuntimeError("the fake OpenAI server did not start")
        ports = json.loads(line)
        return cls(process, ports["api_port"], ports["control_port"])

    def stop(self) -> None:
        """Close its standard input (it exits), then make sure it is gone."""
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def _control(self, path: str, payload: dict | None = None) -> dict:
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.control_port}{path}",
            data=data,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def reset(self) -> None:
        """Forget faults, scripts, options and counts."""
        self._control("/reset", {})

    def configure(self, **options) -> None:
        """Set ``latency_s``, ``ignore_n``, ``reject_n``, ``reasoning_field``, ``api_key``,
        ``models``, ``gate_in_flight`` (see ServerState)."""
        self._control("/configure", options)

    def fail_next(self, *faults: dict) -> None:
        """Queue faults for the next API requests, one each, in order."""
        self._control("/faults", {"faults": list(faults)})

    def script(self, match: str, *replies: dict | str) -> None:
        """Answer prompts containing ``match`` with ``replies`` (sample k gets reply k mod
        len); a reply is the content, or a dict of content, reasoning, finish_reason."""
        replies = [r if isinstance(r, dict) else {"content": r} for r in replies]
        self._control("/script", {"match": match, "replies": replies})

    def outage(self, seconds: float, after_requests: int = 0) -> None:
        """Refuse connections for ``seconds``: now, or once ``after_requests`` more chat
        requests have been answered."""
        self._control("/outage", {"seconds": seconds, "after_requests": after_requests})

    def state(self) -> dict:
        """Counts: requests per path, the chat log, answered pairs, most in flight at once."""
        return self._control("/state")

    def answered(self) -> Counter[tuple[str, int]]:
        """How many times each (prompt, sample) was answered."""
        return Counter({(p, s): n for p, s, n in self.state()["answered"]})
