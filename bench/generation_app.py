"""Generated runs end to end: completions per second stored by the app's generation slice
(``reviewer.services.generation_work``: each answer written to PostgreSQL as an item and a
GeneratedOutput the moment it lands, progress and heartbeat updated), against the fake
OpenAI-compatible server answering after a fixed latency, beside the client alone
(``complete_many``, nothing stored) measured in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
        .venv/bin/python bench/generation_app.py [--latency 0.15] [--repeat 3] [--seconds 3]

Grading tasks are sent to an in-memory broker and dropped: this measures generation and
storage only. Uses a fresh database of its own (bench/benchdb.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchdb import bench_database, django_setup

CONCURRENCIES = (1, 8, 64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=0.15, help="seconds per answer")
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency")
    parser.add_argument("--seconds", type=float, default=3.0, help="ideal seconds of work per run")
    args = parser.parse_args()
    os.environ["CELERY_BROKER_URL"] = "memory://"
    with tempfile.TemporaryDirectory() as workdir, bench_database("mj_bench_generation") as url:
        django_setup(url, Path(workdir))
        run_bench(args)


def run_bench(args) -> None:
    from django.contrib.auth import get_user_model

    from grading.llm import (
        MATH_TEMPLATE,
        ChatRequest,
        EndpointClient,
        EndpointConfig,
        chat_messages,
        complete_many,
    )
    from reviewer.models import GeneratedOutput, GenerationJob
    from reviewer.services import endpoints, generation, problem_sets
    from reviewer.services.members import project_get_or_create
    from reviewer.services.upload_store import upload_store_path
    from tests.fakes.control import FakeOpenAIServer

    user = get_user_model().objects.create(username="bench")
    project = project_get_or_create(name="bench", user=user)
    server = FakeOpenAIServer.start()
    endpoint = endpoints.endpoint_create(
        project=project, user=user, name="fake", base_url=server.base_url, model="fake"
    )

    def app_rate(concurrency: int, count: int, repetition: int) -> float:
        path = Path(tempfile.mkdtemp()) / f"p{concurrency}-{repetition}.csv"
        path.write_text(
            "id,problem,answer\n"
            + "".join(f"q{i},Run {repetition}: what is {i} + 1?,{i + 1}\n" for i in range(count))
        )
        problem_set = problem_sets.problem_set_upload(
            stored=upload_store_path(path=path), project_name="bench", user=user
        ).problem_set
        run = generation.generation_start(
            problem_set=problem_set,
            endpoint=endpoint,
            user=user,
            options=generation.GenerationOptions(concurrency=concurrency),
        )
        job = GenerationJob.objects.get(run=run)
        started = time.perf_counter()
        stored = generation.generation_work(run_id=run.pk, dispatch=job.dispatch)
        elapsed = time.perf_counter() - started
        if stored != count or GeneratedOutput.objects.filter(run=run).count() != count:
            raise SystemExit(f"expected {count} stored outputs, got {stored}")
        return count / elapsed

    def client_rate(concurrency: int, count: int, repetition: int) -> float:
        config = EndpointConfig(base_url=server.base_url, model="fake")
        requests = [
            ChatRequest(
                key=i, messages=chat_messages(MATH_TEMPLATE, f"Client {repetition}: {i} + 1?")
            )
            for i in range(count)
        ]
        with EndpointClient(config) as client:
            started = time.perf_counter()
            done = sum(
                len(o.completions) for o in complete_many(client, requests, concurrency=concurrency)
            )
            elapsed = time.perf_counter() - started
        assert done == count
        return count / elapsed

    try:
        print(
            f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at start; "
            f"server latency {args.latency * 1000:.0f} ms per answer; median of {args.repeat}"
        )
        print(
            f"{'concurrency':>11}{'requests':>10}{'stored/s':>10}{'client/s':>10}"
            f"{'ideal/s':>9}{'stored/client':>15}"
        )
        for concurrency in CONCURRENCIES:
            count = max(concurrency, round(args.seconds * concurrency / args.latency))
            app, client = [], []
            for repetition in range(args.repeat):
                for measure, into in ((client_rate, client), (app_rate, app)):
                    server.reset()
                    server.configure(latency_s=args.latency)
                    into.append(measure(concurrency, count, repetition))
            a, c = statistics.median(app), statistics.median(client)
            print(
                f"{concurrency:>11}{count:>10}{a:>10.1f}{c:>10.1f}"
                f"{concurrency / args.latency:>9.1f}{a / c:>15.2f}",
                flush=True,
            )
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
