"""MSU through a real Celery worker: a run uploaded with human solutions gets a score per row."""

from __future__ import annotations

import pytest

from grading.msu import HashedNotionEmbedder, LexicalExtractor, msu_score
from reviewer.models import ItemMsu
from tests.reviewer.test_msu import ROWS, upload
from tests.reviewer.test_worker import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_worker_scores_every_row_of_a_run_uploaded_with_solutions(
    user, store_upload, celery_worker_process
):
    # Given a worker, and a run uploaded with human solutions (its tasks sent on commit)
    celery_worker_process(MATHJURY_CHUNK_SIZE="2")
    run = upload(user, store_upload)
    rows = ItemMsu.objects.filter(item__run=run)

    # When the worker has taken every MSU task
    wait_for(
        lambda: rows.count() == len(ROWS) and not rows.filter(state="pending").exists(),
        timeout=300,
        what="MSU on every row",
    )

    # Then each row with a human solution has the score grading.msu gives, the other says why
    results = list(rows.order_by("item__row_number"))
    extractor, embedder = LexicalExtractor(), HashedNotionEmbedder()
    for result, (_, _, _, _, human, output, _) in zip(results, ROWS, strict=True):
        if not human:
            assert (result.state, result.note) == ("no_score", "this row has no human solution")
            continue
        expected = msu_score(extractor.extract(output), extractor.extract(human), embedder)
        assert result.state == "scored"
        assert result.score == pytest.approx(expected.score, abs=1e-6)
        assert result.attempts == 1
