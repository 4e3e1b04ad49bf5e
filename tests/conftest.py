"""Shared fixtures: isolated upload folders, a real Redis broker and real Celery workers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from reviewer.celery import app as celery_app
from reviewer.services.upload_store import StoredUpload, upload_store
from tests.factories import TEST_USERNAME, UserFactory
from tests.fakes.control import FakeOpenAIServer

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
SAMPLES = SHARED / "samples"
TEST_BROKER_URL = os.environ.get("MATHJURY_TEST_BROKER_URL", "redis://127.0.0.1:6379/9")


@pytest.fixture(autouse=True)
def _isolated_uploads(settings, tmp_path: Path) -> None:
    """Uploads go to the test's own folder, never to the developer's var/uploads."""
    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.UPLOAD_DIR.mkdir()


@pytest.fixture(autouse=True)
def _no_spot_check(settings) -> None:
    """The spot check picks rows by a hash of their id, and ids differ from run to run, so
    a test about the order of unflagged rows would pass or fail by chance; tests of the
    spot check set the share themselves."""
    settings.MATHJURY_SPOT_CHECK_PERCENT = 0


@pytest.fixture
def user(db):
    """The logged-in user of most tests: owner of every project ProjectFactory makes."""
    return UserFactory(username=TEST_USERNAME)


@pytest.fixture
def store_upload() -> Callable[..., StoredUpload]:
    """Store bytes as if they had been uploaded: ``store_upload(b"...", "name.csv")``."""

    def store(content: bytes, filename: str = "outputs.csv") -> StoredUpload:
        return upload_store(file=SimpleUploadedFile(filename, content))

    return store


@pytest.fixture
def celery_broker() -> Iterator[redis.Redis]:
    """Point this process's Celery app at a flushed Redis database; yields a client for it.

    Tasks sent from the test (on commit) then reach workers started by
    ``celery_worker_process``; the app's previous broker is restored afterwards.
    """
    client = redis.Redis.from_url(TEST_BROKER_URL)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.skip(f"Redis is not running at {TEST_BROKER_URL}")
    client.flushdb()
    previous = (celery_app.conf.broker_url, celery_app.conf.broker_transport_options)
    celery_app.close()
    celery_app.conf.broker_url = TEST_BROKER_URL
    celery_app.conf.broker_transport_options = {"visibility_timeout": 3600}
    yield client
    celery_app.close()
    celery_app.conf.broker_url, celery_app.conf.broker_transport_options = previous
    client.flushdb()
    client.close()


def _database_url() -> str:
    """A DATABASE_URL for the test database, so a worker process sees what the test commits."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return (
        f"postgres://{user}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    )


def each_process(processes: list[psutil.Process], action: Callable[[psutil.Process], None]) -> None:
    """Apply ``action`` (kill, suspend, resume) to each process that still exists."""
    for process in processes:
        try:
            action(process)
        except psutil.NoSuchProcess:
            pass


@dataclass
class WorkerProcess:
    """One ``celery -A reviewer worker`` process and the processes it started."""

    name: str
    process: subprocess.Popen
    log_path: Path
    pids_seen: set[int] = field(default_factory=set)

    @property
    def pid(self) -> int:
        return self.process.pid

    def tree(self) -> list[psutil.Process]:
        """The worker, its pool children and their grading sandboxes."""
        try:
            root = psutil.Process(self.pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def pool_children(self) -> list[psutil.Process]:
        """The prefork children that run tasks (not the sandboxes they start)."""
        try:
            return [
                p for p in psutil.Process(self.pid).children() if "celery" in " ".join(p.cmdline())
            ]
        except psutil.NoSuchProcess:
            return []

    def kill(self) -> None:
        """SIGKILL the whole tree at once, as if the machine had lost the worker."""
        each_process(self.tree(), psutil.Process.kill)
        self.process.wait(timeout=30)

    def freeze(self) -> None:
        """SIGSTOP the whole tree, so that nothing it does can race with what a test reads next."""
        each_process(self.tree(), psutil.Process.suspend)

    def thaw(self) -> None:
        each_process(self.tree(), psutil.Process.resume)

    def stop(self) -> None:
        """Warm shutdown, then kill whatever is left."""
        tree = self.tree()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        each_process(tree, psutil.Process.kill)
        if self.process.poll() is None:
            self.process.wait(timeout=10)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def celery_worker_process(
    transactional_db, celery_broker, tmp_path: Path
) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real Celery worker processes on the test database and a flushed Redis broker.

    Returns ``start(**env) -> WorkerProcess``: each call starts ``celery -A reviewer worker``
    (concurrency 1) with the given extra environment variables (e.g. MATHJURY_CHUNK_SIZE),
    waits until it answers a ping, and returns it; ``.kill()`` SIGKILLs its whole process
    tree, ``.stop()`` shuts it down. Every worker still running is stopped at teardown.
    Needs ``transactional_db`` because the worker only sees committed rows.
    """
    started: list[WorkerProcess] = []

    def start(**env: str) -> WorkerProcess:
        name = f"test{len(started) + 1}-{os.getpid()}@{socket.gethostname()}"
        log_path = tmp_path / f"worker{len(started) + 1}.log"
        worker_env = {
            **os.environ,
            "DATABASE_URL": _database_url(),
            # The broker the celery_broker fixture (or a module's override of it) set up.
            "CELERY_BROKER_URL": celery_app.conf.broker_url,
            "MATHJURY_DATA_DIR": str(tmp_path / "worker-data"),
            "MATHJURY_BROKER_RESTORE_INTERVAL": "2",
            "PYTHONUNBUFFERED": "1",
            **{key: str(value) for key, value in env.items()},
        }
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "reviewer",
                    "worker",
                    "--loglevel=INFO",
                    "--concurrency=1",
                    "--without-gossip",
                    "--without-mingle",
                    "-n",
                    name,
                ],
                cwd=REPO_ROOT,
                env=worker_env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        worker = WorkerProcess(name=name, process=process, log_path=log_path)
        started.append(worker)
        deadline = time.monotonic() + 90
        while not celery_app.control.ping(destination=[name], timeout=1.0):
            if process.poll() is not None or time.monotonic() > deadline:
                worker.stop()
                pytest.fail(f"worker {name} did not start:\n{worker.log()[-4000:]}")
        return worker

    yield start
    for worker in started:
        worker.stop()


@pytest.fixture(scope="session")
def _fake_openai_process() -> Iterator[FakeOpenAIServer]:
    server = FakeOpenAIServer.start()
    yield server
    server.stop()


@pytest.fixture
def openai_server(_fake_openai_process: FakeOpenAIServer) -> FakeOpenAIServer:
    """The fake OpenAI-compatible server (tests/fakes/openai_server.py), in its own process on
    127.0.0.1, with no faults, scripts or counts left from an earlier test."""
    _fake_openai_process.reset()
    return _fake_openai_process
