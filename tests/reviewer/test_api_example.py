"""The pipeline example in docs/api.md, run as written against a live server and a real worker."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reviewer.models import Run
from tests.factories import UserFactory

REPO_ROOT = Path(__file__).resolve().parents[2]
OUTPUTS = (
    b"id,problem,gold,output\n"
    b'p1,What is 6 times 7?,42,"6 times 7 is 42, so $\\boxed{42}$."\n'
    b'p2,Half of 1?,\\frac{1}{2},"so the answer is $\\boxed{0.5}$"\n'
    b'p3,What is 2+2?,4,"I think it is $\\boxed{5}$."\n'
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def python_block(markdown: str, heading: str) -> str:
    section = markdown.split(heading, 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_pipeline_example_in_docs_api_md_works(
    live_server, celery_worker_process, settings, tmp_path
):
    # Given a server, a worker sharing its export folder, a user and a file of outputs
    settings.MATHJURY_EXPORT_DIR = tmp_path / "exports"
    celery_worker_process(MATHJURY_EXPORT_DIR=str(settings.MATHJURY_EXPORT_DIR))
    UserFactory(username="pipeline")
    workdir = tmp_path / "pipeline"
    workdir.mkdir()
    (workdir / "outputs.csv").write_bytes(OUTPUTS)
    example = python_block(
        (REPO_ROOT / "docs" / "api.md").read_text(), "## A pipeline, start to finish"
    )

    # When the example runs as a separate program
    result = subprocess.run(
        [sys.executable, "-c", example],
        cwd=workdir,
        env={
            **os.environ,
            "MATHJURY_URL": live_server.url,
            "MATHJURY_USER": "pipeline",
            "MATHJURY_PASSWORD": "correct horse battery staple",
        },
        capture_output=True,
        text=True,
        timeout=300,
    )

    # Then it graded the run, read its statistics, and downloaded the export and its card
    assert result.returncode == 0, result.stderr[-3000:]
    assert "wrote 3 rows to adjudicated.jsonl" in result.stdout
    assert "jury accuracy:" in result.stdout
    rows = [json.loads(line) for line in (workdir / "adjudicated.jsonl").read_text().splitlines()]
    assert [(r["id"], r["jury_verdict"]) for r in rows] == [
        ("p1", "correct"),
        ("p2", "correct"),
        ("p3", "incorrect"),
    ]
    assert "## Accuracy" in (workdir / "adjudicated.card.md").read_text()
    assert Run.objects.get().status == Run.Status.DONE
