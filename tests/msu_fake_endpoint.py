"""A local stand-in for an OpenAI-compatible server, and stdlib callables that talk to it.

Until the shared fake server and the real client (issue 13) land, MSU's endpoint paths are
tested and benchmarked against this: ``/v1/chat/completions`` answers with whatever the test's
``reply`` function returns for the messages it received, and ``/v1/embeddings`` with
deterministic hashed vectors. It listens on 127.0.0.1 only, on a port the system picks.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from grading.msu.chat_notions import ChatFn
from grading.msu.embedding import EmbedFn, HashedNotionEmbedder

ReplyFn = Callable[[list[dict[str, str]]], str]


@dataclass
class FakeEndpoint:
    base_url: str
    requests: list[dict] = field(default_factory=list)


@contextmanager
def fake_openai_server(
    reply: ReplyFn, latency: float = 0.0, dimensions: int = 64
) -> Iterator[FakeEndpoint]:
    """Serves chat and embeddings until the block ends; ``latency`` seconds pass before each answer."""
    embedder = HashedNotionEmbedder(dimensions)
    received: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"path": self.path, **body})
            time.sleep(latency)
            if self.path == "/v1/chat/completions":
                content = reply(body["messages"])
                answer = {
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]
                }
            elif self.path == "/v1/embeddings":
                vectors = embedder.embed(body["input"]).tolist()
                answer = {"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}
            else:
                self.send_error(404)
                return
            payload = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield FakeEndpoint(f"http://127.0.0.1:{server.server_port}/v1", received)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def http_chat(base_url: str, model: str) -> ChatFn:
    """A minimal chat client (temperature 0) with the shape ChatNotionExtractor takes."""

    def chat(messages: list[dict[str, str]]) -> str:
        body = {"model": model, "messages": messages, "temperature": 0}
        return _post(f"{base_url}/chat/completions", body)["choices"][0]["message"]["content"]

    return chat


def http_embed(base_url: str, model: str) -> EmbedFn:
    """A minimal embeddings client with the shape EndpointEmbedder takes."""

    def embed(texts: list[str]) -> list[list[float]]:
        data = _post(f"{base_url}/embeddings", {"model": model, "input": texts})["data"]
        return [item["embedding"] for item in sorted(data, key=lambda item: item["index"])]

    return embed
