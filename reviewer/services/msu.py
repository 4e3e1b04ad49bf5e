"""MSU of a run's rows (docs/msu.md): how close each model solution is to the human one.

A run whose file has a human solution column gets one ``ItemMsu`` per row when it is created,
and one ``reviewer.msu_chunk`` task per chunk, sent by name after the commit like the grading
tasks. A task counts an attempt on each pending row, reads notions with the configured
extractor (a chat endpoint, else lexical), embeds each keyword set with the configured
embedder (a local model, an /embeddings endpoint, else the hashed bag of notions), and stores
the score with the names of both. Notions and set vectors are cached per (solution text,
extractor, embedding model) in ``MsuSolutionCache``, so a human solution shared by many rows
is read once. A failure (endpoint down, model missing, a reply with no list) is stored on the
rows it touches, with its message; nothing is left pending.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from grading.llm import (
    ChatRequest,
    EndpointClient,
    EndpointConfig,
    EndpointError,
    SamplingParams,
    complete_many,
)
from reviewer.celery import app as celery_app
from reviewer.models import Item, ItemMsu, MsuSolutionCache, Run
from reviewer.services.batches import batches

if TYPE_CHECKING:
    from grading.msu import Embedder

# grading.msu and numpy are imported by the functions that compute MSU, not with the module:
# every upload imports it (reviewer.services), and they cost about 0.15 s of CPU to import.

logger = logging.getLogger(__name__)

MSU_CHUNK_TASK = "reviewer.msu_chunk"  # reviewer.tasks.msu_chunk
MAX_ATTEMPTS = 3
ROWS_PER_SAVE = 25  # rows scored and saved together, so a slow endpoint keeps its progress
NO_SOLUTION_ROW = "this row has no human solution"


@dataclass(frozen=True)
class MsuMethod:
    """The configured extractor and embedder. ``extract_many`` maps solution texts to their
    notions or to the error that stopped them."""

    extractor: str
    extractor_version: str
    embedder: Embedder
    extract_many: Callable[[Sequence[str]], dict[str, tuple[str, ...] | str]]


def msu_method() -> MsuMethod:
    """The extractor and embedder the settings choose; raises ``MsuConfigError`` with the
    setting to fix when one cannot be built (a model directory that is not a model)."""
    return _method(
        settings.MATHJURY_MSU_BASE_URL,
        settings.MATHJURY_MSU_MODEL,
        settings.MATHJURY_MSU_API_KEY,
        settings.MATHJURY_MSU_TIMEOUT,
        settings.MATHJURY_MSU_CONCURRENCY,
        settings.MATHJURY_EMBEDDING_MODEL,
        settings.MATHJURY_EMBEDDING_BASE_URL,
        settings.MATHJURY_EMBEDDING_ENDPOINT_MODEL,
        settings.MATHJURY_EMBEDDING_API_KEY,
    )


class MsuConfigError(ValueError):
    """The MSU settings name something that cannot be used; the message says which."""


@lru_cache(maxsize=4)  # a worker loads its model once, not once per task
def _method(
    chat_url, chat_model, chat_key, timeout, concurrency, model_dir, embed_url, embed_model, key
) -> MsuMethod:
    from grading.msu import (
        PROMPT_VERSION,
        EmbeddingModelError,
        EndpointEmbedder,
        HashedNotionEmbedder,
        LexicalExtractor,
        NotionReplyError,
        load_local_embedder,
        notion_messages,
        parse_notion_reply,
    )

    try:
        if model_dir:
            embedder: Embedder = load_local_embedder(model_dir)
        elif embed_url:
            client = EndpointClient(
                EndpointConfig(
                    base_url=embed_url, model=embed_model, api_key=key, timeout_s=timeout
                )
            )
            embedder = EndpointEmbedder(lambda texts: client.embed(texts).vectors, embed_model)
        else:
            embedder = HashedNotionEmbedder()
    except EmbeddingModelError as error:
        raise MsuConfigError(f"MATHJURY_EMBEDDING_MODEL: {error}") from None
    except ValueError as error:
        raise MsuConfigError(f"MATHJURY_EMBEDDING_BASE_URL: {error}") from None
    if not chat_url:
        lexical = LexicalExtractor()
        return MsuMethod(
            lexical.name,
            lexical.version,
            embedder,
            lambda texts: {text: lexical.extract(text).notions for text in texts},
        )
    try:
        chat = EndpointClient(
            EndpointConfig(base_url=chat_url, model=chat_model, api_key=chat_key, timeout_s=timeout)
        )
    except ValueError as error:
        raise MsuConfigError(f"MATHJURY_MSU_BASE_URL: {error}") from None

    def extract_many(texts: Sequence[str]) -> dict[str, tuple[str, ...] | str]:
        requests = (ChatRequest(key=t, messages=tuple(notion_messages(t))) for t in texts)
        found: dict[str, tuple[str, ...] | str] = {}
        sampling = SamplingParams(temperature=0)
        for outcome in complete_many(chat, requests, concurrency=concurrency, sampling=sampling):
            text = outcome.request.key
            try:
                if outcome.error is not None:
                    raise outcome.error
                found[text] = parse_notion_reply(outcome.completions[0].text)
            except (EndpointError, NotionReplyError) as error:
                found[text] = f"keyword extraction failed: {error}"
        return found

    return MsuMethod(f"llm:{chat_model}", PROMPT_VERSION, embedder, extract_many)


def msu_rows_queue(*, run_id: int) -> list[int]:
    """Give each row of a run with human solutions a pending MSU (rows that have one keep it);
    returns the ids of the rows pending, in row order. A run without solutions gets nothing."""
    run = Run.objects.filter(pk=run_id).only("column_mapping").first()
    if run is None or not run.column_mapping.get("solution"):
        return []
    item_ids = list(
        Item.objects.filter(run_id=run_id).order_by("row_number").values_list("pk", flat=True)
    )
    for chunk in batches(item_ids, 5000):
        ItemMsu.objects.bulk_create([ItemMsu(item_id=pk) for pk in chunk], ignore_conflicts=True)
    return list(
        ItemMsu.objects.filter(item__run_id=run_id, state=ItemMsu.State.PENDING)
        .order_by("item__row_number")
        .values_list("item_id", flat=True)
    )


def msu_enqueue(*, run_id: int) -> int:
    """Queue the run's MSU (``msu_rows_queue``) and send one task per chunk of pending rows,
    by name (called after commit). Returns the rows queued."""
    pending = msu_rows_queue(run_id=run_id)
    if not pending:
        return 0
    with celery_app.producer_or_acquire() as producer:
        for chunk in batches(pending, settings.MATHJURY_CHUNK_SIZE):
            celery_app.send_task(MSU_CHUNK_TASK, args=(run_id, list(chunk)), producer=producer)
    return len(pending)


def msu_recompute(*, run: Run) -> None:
    """Compute the run's MSU again, with the extractor and embedder configured now."""
    with transaction.atomic():
        ItemMsu.objects.filter(item__run=run).update(
            state=ItemMsu.State.PENDING, attempts=0, computed_at=None
        )
        transaction.on_commit(lambda: msu_enqueue(run_id=run.pk))


def msu_attempt_start(*, item_ids: Sequence[int]) -> list[tuple[int, str, str]]:
    """Count an attempt on each pending row and return (item id, output, human solution) of
    those to compute; rows that used up their attempts (each crashed its worker) become errors."""
    with transaction.atomic():
        rows = list(
            ItemMsu.objects.select_for_update(of=("self",))
            .filter(item_id__in=item_ids, state=ItemMsu.State.PENDING)
            .values_list("item_id", "attempts", "item__output", "item__human_solution")
        )
        exhausted = [pk for pk, attempts, *_ in rows if attempts >= MAX_ATTEMPTS]
        if exhausted:
            ItemMsu.objects.filter(item_id__in=exhausted).update(
                state=ItemMsu.State.ERROR,
                note=f"stopped after {MAX_ATTEMPTS} attempts that each crashed the worker",
                computed_at=timezone.now(),
            )
        todo = [(pk, output, solution) for pk, a, output, solution in rows if pk not in exhausted]
        ItemMsu.objects.filter(item_id__in=[pk for pk, *_ in todo]).update(
            attempts=F("attempts") + 1
        )
    return todo


def msu_chunk(*, run_id: int, item_ids: Sequence[int]) -> int:
    """Compute MSU for one chunk of a run's rows (the task's work); a re-delivered chunk
    computes only the rows still pending. Returns how many rows were stored."""
    rows = msu_attempt_start(item_ids=item_ids)
    if not rows:
        return 0
    try:
        method = msu_method()
    except MsuConfigError as error:
        return _store_errors([pk for pk, *_ in rows], str(error))
    stored = 0
    for position, group in enumerate(batches(rows, ROWS_PER_SAVE)):
        try:
            stored += _compute(list(group), method)
        except Exception as error:  # the soft time limit or a bug: no row is left pending
            logger.exception("run %s: MSU failed", run_id)
            rest = [pk for pk, *_ in rows[position * ROWS_PER_SAVE :]]
            return stored + _store_errors(rest, f"MSU could not be computed: {error}")
    return stored


def _compute(rows: list[tuple[int, str, str]], method: MsuMethod) -> int:
    """Score rows (item id, output, human solution) and store the results."""
    import numpy as np

    from grading.msu import Notions, msu_cache_key, msu_from_set_vectors, notion_set_vectors

    embedding = method.embedder.name
    texts = {
        text for _, output, solution in rows if solution.strip() for text in (output, solution)
    }
    keys = {
        text: msu_cache_key(text, method.extractor, method.extractor_version, embedding)
        for text in texts
    }
    cached = {entry.key: entry for entry in MsuSolutionCache.objects.filter(key__in=keys.values())}
    known: dict[str, tuple[tuple[str, ...], np.ndarray | None]] = {}
    for text, key in keys.items():
        if key in cached:
            vector = bytes(cached[key].vector)
            known[text] = (
                tuple(cached[key].notions),
                np.frombuffer(vector, dtype=np.float32) if vector else None,
            )
    failures: dict[str, str] = {}
    missing = sorted(texts - known.keys())
    if missing:
        extracted = method.extract_many(missing)
        good = [t for t in missing if not isinstance(extracted[t], str)]
        failures = {t: extracted[t] for t in missing if isinstance(extracted[t], str)}
        try:
            vectors = notion_set_vectors([extracted[t] for t in good], method.embedder)
        except (EndpointError, ValueError) as error:
            message = f"embedding with {embedding} failed: {error}"
            failures.update(dict.fromkeys(good, message))
            good, vectors = [], []
        new = []
        for text, vector in zip(good, vectors, strict=True):
            vector = None if vector is None else vector.astype(np.float32)
            known[text] = (extracted[text], vector)
            new.append(
                MsuSolutionCache(
                    key=keys[text],
                    extractor=method.extractor,
                    extractor_version=method.extractor_version,
                    embedding_model=embedding,
                    notions=list(extracted[text]),
                    vector=b"" if vector is None else vector.tobytes(),
                )
            )
        MsuSolutionCache.objects.bulk_create(new, ignore_conflicts=True)
    now = timezone.now()
    results = []
    for pk, output, solution in rows:
        result = ItemMsu(
            item_id=pk,
            computed_at=now,
            extractor=method.extractor,
            extractor_version=method.extractor_version,
            embedding_model=embedding,
            embedding_semantic=method.embedder.semantic,
        )
        failure = failures.get(output) or failures.get(solution)
        if not solution.strip():
            result.state, result.note = ItemMsu.State.NO_SCORE, NO_SOLUTION_ROW
        elif failure:
            result.state, result.note = ItemMsu.State.ERROR, failure
        else:
            (model_notions, model_vector), (human_notions, human_vector) = (
                known[output],
                known[solution],
            )
            score = msu_from_set_vectors(
                Notions(model_notions, method.extractor, method.extractor_version),
                model_vector,
                Notions(human_notions, method.extractor, method.extractor_version),
                human_vector,
                embedding_model=embedding,
                embedding_is_semantic=method.embedder.semantic,
            )
            result.state = (
                ItemMsu.State.SCORED if score.score is not None else ItemMsu.State.NO_SCORE
            )
            result.score, result.overlap, result.note = (
                score.score,
                score.overlap,
                score.no_score_reason,
            )
            result.model_notions, result.human_notions = (
                list(model_notions),
                list(human_notions),
            )
        results.append(result)
    # An upsert: one INSERT ... ON CONFLICT, several times cheaper to build than bulk_update's
    # CASE per field and row.
    ItemMsu.objects.bulk_create(
        results, update_conflicts=True, unique_fields=["item"], update_fields=_RESULT_FIELDS
    )
    return len(results)


_RESULT_FIELDS = [
    "state",
    "score",
    "overlap",
    "model_notions",
    "human_notions",
    "extractor",
    "extractor_version",
    "embedding_model",
    "embedding_semantic",
    "note",
    "computed_at",
]


def _store_errors(item_ids: Sequence[int], message: str) -> int:
    ItemMsu.objects.filter(item_id__in=item_ids, state=ItemMsu.State.PENDING).update(
        state=ItemMsu.State.ERROR,
        score=None,
        overlap=None,
        note=message,
        computed_at=timezone.now(),
    )
    return len(item_ids)
