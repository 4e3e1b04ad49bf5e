"""Generation throughput: completions per second through ``complete_many`` against the fake
OpenAI-compatible server answering each request after a fixed latency.

    .venv/bin/python bench/generation.py [--latency 0.15] [--repeat 3] [--stream]

For each concurrency (1, 8, 64) it sends enough one-sample requests for about three seconds of
ideal work, and prints the median completions/s of ``--repeat`` runs beside the ideal
(concurrency / latency: every slot busy all the time, no overhead), their ratio, and the
most requests the server saw in flight at once. The server runs in its own process, as a model
server would.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on the path; the repository must.
sys.path[0] = str(REPO)

from grading.llm import (  # noqa: E402
    MATH_TEMPLATE,
    ChatRequest,
    EndpointClient,
    EndpointConfig,
    chat_messages,
    complete_many,
)
from tests.fakes.control import FakeOpenAIServer  # noqa: E402

CONCURRENCIES = (1, 8, 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.15, help="seconds per answer")
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency")
    parser.add_argument("--seconds", type=float, default=3.0, help="ideal seconds of work per run")
    parser.add_argument("--stream", action="store_true", help="stream the answers")
    args = parser.parse_args()

    server = FakeOpenAIServer.start()
    try:
        print(
            f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start; "
            f"server latency {args.latency * 1000:.0f} ms per answer; "
            f"{'streamed' if args.stream else 'whole'} answers; median of {args.repeat}"
        )
        print(
            f"{'concurrency':>11}{'requests':>10}{'completions/s':>15}{'ideal/s':>10}"
            f"{'x ideal':>9}{'max in flight':>15}"
        )
        for concurrency in CONCURRENCIES:
            count = max(concurrency, round(args.seconds * concurrency / args.latency))
            rates, in_flight = [], []
            for repetition in range(args.repeat):
                server.reset()
                server.configure(latency_s=args.latency)
                rates.append(measure(server, concurrency, count, args.stream, repetition))
                in_flight.append(server.state()["max_in_flight"])
            rate = statistics.median(rates)
            ideal = concurrency / args.latency
            print(
                f"{concurrency:>11}{count:>10}{rate:>15.1f}{ideal:>10.1f}"
                f"{rate / ideal:>9.2f}{max(in_flight):>15}",
                flush=True,
            )
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        server.stop()


def measure(
    server: FakeOpenAIServer, concurrency: int, count: int, stream: bool, repetition: int
) -> float:
    """Completions per second for ``count`` distinct prompts at ``concurrency``."""
    config = EndpointConfig(base_url=server.base_url, model="fake-model", stream=stream)
    requests = [
        ChatRequest(
            key=i, messages=chat_messages(MATH_TEMPLATE, f"Run {repetition}: what is {i} + 1?")
        )
        for i in range(count)
    ]
    with EndpointClient(config) as client:
        started = time.perf_counter()
        completions = sum(
            len(outcome.completions)
            for outcome in complete_many(client, requests, concurrency=concurrency)
        )
        elapsed = time.perf_counter() - started
    if completions != count:
        raise SystemExit(f"expected {count} completions, got {completions}")
    return completions / elapsed


if __name__ == "__main__":
    main()
