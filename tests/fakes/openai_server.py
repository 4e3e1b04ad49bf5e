"""A small OpenAI-compatible server for tests and benchmarks: deterministic answers, and faults
switched on at run time.

    python -m tests.fakes.openai_server [--port P] [--control-port C]

prints ``{"api_port": P, "control_port": C}`` on its first line and serves until its standard
input closes (so it dies with the test process that started it). The API (``/v1/models``,
``/v1/chat/completions`` with ``n`` and streaming, ``/v1/embeddings``) listens on one port and a
control API on another, which stays up during an outage. ``FakeOpenAIServer`` in
``tests/fakes/control.py`` starts it and drives the control API from a test or a benchmark.

Answers: a scripted reply when the prompt contains a scripted text; otherwise, for a prompt
that asks for YES or NO, YES when the sum of the integers in the prompt is even; otherwise
"The final answer is $\\boxed{S}$" where S is that sum. Faults are queued and each applies to
one API request, in order: ``{"status": 429, "retry_after": 1}``, ``{"status": 500}``,
``{"drop": true}`` (close without answering), ``{"drop_mid_answer": true}`` (close halfway
through the body), ``{"delay_s": 5}`` (answer late), ``{"status": 200, "html": "..."}`` (a
proxy's page where JSON was expected). Every request is counted: per path, per
(prompt, sample) answered, and the most requests in flight at once.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.fakes.fake_answers import (
    choice_for,
    completion_body,
    embeddings_body,
    stream_events,
    usage_for,
)

SAMPLES_HEADER = "X-MathJury-Samples"


class ServerState:
    """Everything the control API can change or read, behind one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.gate = threading.Condition(self.lock)
        self.reset()

    def reset(self) -> None:
        self.latency_s = 0.0
        self.ignore_n = False  # answer one choice whatever n asks
        self.reject_n = False  # answer 400 to n > 1, as some servers do
        self.reasoning_field = ""  # "reasoning_content" or "reasoning": send reasoning there
        self.api_key = ""  # when set, any other key gets a 401 that echoes it
        # Hold the first requests until this many are in flight at once (then never again),
        # so a test can show that concurrency was reached without relying on timing.
        self.gate_in_flight = 0
        self.models = ["fake-model"]
        self.faults: deque[dict] = deque()
        self.scripts: list[tuple[str, list[dict]]] = []
        self.outage_after: tuple[int, float] | None = None
        self.requests: Counter[str] = Counter()
        self.chat_log: list[dict] = []  # chat requests answered
        self.arrivals: list[dict] = []  # every API request: when, where, which fault it met
        self.answered: Counter[tuple[str, int]] = Counter()
        # Requests that arrived before a reset (a slow one of an earlier test) are answered
        # but not counted after it.
        self.epoch = getattr(self, "epoch", 0) + 1
        self.in_flight = 0  # of this epoch's requests
        self.max_in_flight = 0

    def snapshot(self) -> dict:
        with self.lock:
            return {
                "requests": dict(self.requests),
                "chat_log": list(self.chat_log),
                "arrivals": list(self.arrivals),
                "answered": [[p, s, n] for (p, s), n in self.answered.items()],
                "max_in_flight": self.max_in_flight,
                "in_flight": self.in_flight,
                "faults_left": len(self.faults),
            }


class LoopbackServer(ThreadingHTTPServer):
    """A threaded server whose backlog takes a burst of 64 clients connecting at once."""

    daemon_threads = True
    request_queue_size = 256


class ApiListener:
    """The API port: a threaded HTTP server that an outage closes and reopens on the same port."""

    def __init__(self, state: ServerState, port: int = 0) -> None:
        self.state = state
        self.port = port
        self.down = False
        self._lock = threading.Lock()
        self._open()

    def _open(self) -> None:
        server = LoopbackServer(("127.0.0.1", self.port), ApiHandler)
        server.listener = self
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def outage(self, seconds: float) -> None:
        """Refuse connections for ``seconds`` (and drop requests on open connections); returns
        at once, with requests already being refused."""
        with self._lock:
            if self.down:
                return
            self.down = True
        threading.Thread(target=self._close_then_reopen, args=(seconds,), daemon=True).start()

    def _close_then_reopen(self, seconds: float) -> None:
        with self._lock:
            self.server.shutdown()
            self.server.server_close()
        time.sleep(seconds)
        self._restore()

    def _restore(self) -> None:
        with self._lock:
            self._open()
            self.down = False


class ApiHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm on, the second
    # waits for the client's delayed ACK (40 ms), which would dwarf the latency under test.
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass

    @property
    def state(self) -> ServerState:
        return self.server.listener.state

    def do_GET(self) -> None:
        self._handle(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._handle(json.loads(self.rfile.read(length) or b"{}"))

    def _handle(self, body: dict | None) -> None:
        state = self.state
        if self.server.listener.down:
            self._drop()
            return
        with state.lock:
            self.epoch = state.epoch
            state.requests[self.path] += 1
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
            if state.gate_in_flight:
                state.gate.notify_all()
                state.gate.wait_for(lambda: state.in_flight >= state.gate_in_flight, 30)
                state.gate_in_flight = 0
            fault = state.faults.popleft() if state.faults else {}
            latency = state.latency_s
            state.arrivals.append({"t": time.monotonic(), "path": self.path, "fault": fault})
        try:
            time.sleep(latency + fault.get("delay_s", 0))
            if fault.get("drop"):
                self._drop()
            elif "status" in fault:
                self._send_fault(fault)
            elif state.api_key and self.headers.get("Authorization") != f"Bearer {state.api_key}":
                key = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
                self._json(401, {"error": {"message": f"Incorrect API key provided: {key}"}})
            elif self.path == "/v1/models" and body is None:
                data = [
                    {"id": m, "object": "model", "created": 0, "owned_by": "fake"}
                    for m in state.models
                ]
                self._json(200, {"object": "list", "data": data}, fault)
            elif self.path == "/v1/chat/completions" and body is not None:
                self._chat(body, fault)
            elif self.path == "/v1/embeddings" and body is not None:
                self._embeddings(body, fault)
            else:
                self._json(404, {"error": {"message": f"no route {self.command} {self.path}"}})
        finally:
            with state.lock:
                if self.epoch == state.epoch:
                    state.in_flight -= 1

    def _chat(self, body: dict, fault: dict) -> None:
        state = self.state
        messages = body.get("messages") or []
        prompt = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        n = int(body.get("n") or 1)
        header = self.headers.get(SAMPLES_HEADER)
        samples = [int(s) for s in header.split(",")] if header else list(range(n))
        if state.reject_n and n > 1:
            self._json(400, {"error": {"message": "Only one completion choice is allowed"}})
            return
        samples = samples[: 1 if state.ignore_n else n]
        choices = [
            choice_for(
                prompt,
                sample,
                max_tokens=body.get("max_tokens"),
                scripts=state.scripts,
                reasoning_field=state.reasoning_field,
            )
            for sample in samples
        ]
        with state.lock:
            stale = self.epoch != state.epoch
        if stale:
            self._json(200, completion_body(choices, body.get("model", ""), {}))
            return
        with state.lock:
            for sample in samples:
                state.answered[(prompt, sample)] += 1
            state.chat_log.append(
                {
                    "t": time.monotonic(),
                    "prompt": prompt,
                    "samples": samples,
                    "n": n,
                    "seed": body.get("seed"),
                    "stream": bool(body.get("stream")),
                    "model": body.get("model"),
                }
            )
            outage = state.outage_after
            if outage:
                left, seconds = outage
                state.outage_after = (left - 1, seconds) if left > 1 else None
        usage = usage_for(messages, choices)
        model = body.get("model") or state.models[0]
        if body.get("stream"):
            include_usage = (body.get("stream_options") or {}).get("include_usage")
            self._stream(stream_events(choices, model, usage if include_usage else None), fault)
        else:
            self._json(200, completion_body(choices, model, usage), fault)
        if outage and outage[0] <= 1:
            self.server.listener.outage(outage[1])

    def _stream(self, events: list[bytes], fault: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if fault.get("drop_mid_answer"):
            events = events[: max(1, len(events) // 2)]
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        if fault.get("drop_mid_answer"):
            self._drop()

    def _embeddings(self, body: dict, fault: dict) -> None:
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        as_base64 = body.get("encoding_format") == "base64"
        self._json(200, embeddings_body(texts, body.get("model", ""), as_base64), fault)

    def _send_fault(self, fault: dict) -> None:
        if "html" in fault:  # a proxy's page where JSON was expected
            data = fault["html"].encode()
            self.send_response(fault["status"])
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        headers = {}
        if "retry_after" in fault:
            headers["Retry-After"] = str(fault["retry_after"])
        message = fault.get("message", f"injected fault {fault['status']}")
        self._json(fault["status"], {"error": {"message": message}}, headers=headers)

    def _json(self, status: int, payload: dict, fault: dict | None = None, headers=None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if fault and fault.get("drop_mid_answer"):
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self._drop()
            return
        self.wfile.write(data)

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class ControlHandler(BaseHTTPRequestHandler):
    """``GET /state``; ``POST /reset``, ``/configure``, ``/faults``, ``/script``, ``/outage``."""

    def log_message(self, format, *args):  # noqa: A002
        pass

    def do_GET(self) -> None:
        if self.path == "/state":
            self._reply(self.server.state.snapshot())
        else:
            self._reply({"error": f"no route {self.path}"}, 404)

    def do_POST(self) -> None:
        state: ServerState = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with state.lock:
            if self.path == "/reset":
                state.reset()
            elif self.path == "/configure":
                for name, value in body.items():
                    if name not in (
                        "latency_s",
                        "ignore_n",
                        "reject_n",
                        "reasoning_field",
                        "api_key",
                        "models",
                        "gate_in_flight",
                    ):
                        self._reply({"error": f"unknown option {name}"}, 400)
                        return
                    setattr(state, name, value)
            elif self.path == "/faults":
                state.faults.extend(body["faults"])
            elif self.path == "/script":
                state.scripts.append((body["match"], body["replies"]))
            elif self.path == "/outage" and body.get("after_requests"):
                state.outage_after = (int(body["after_requests"]), float(body["seconds"]))
            elif self.path != "/outage":
                self._reply({"error": f"no route {self.path}"}, 404)
                return
        if self.path == "/outage" and not body.get("after_requests"):
            self.server.api.outage(float(body["seconds"]))
        self._reply({"ok": True})

    def _reply(self, payload: dict, status: int = 200) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--control-port", type=int, default=0)
    args = parser.parse_args()
    state = ServerState()
    api = ApiListener(state, args.port)
    control = LoopbackServer(("127.0.0.1", args.control_port), ControlHandler)
    control.state, control.api = state, api
    threading.Thread(target=control.serve_forever, daemon=True).start()
    print(json.dumps({"api_port": api.port, "control_port": control.server_address[1]}), flush=True)
    sys.stdin.read()  # returns when the parent closes the pipe or dies
    os._exit(0)


if __name__ == "__main__":
    main()
