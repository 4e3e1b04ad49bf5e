"""Celery tasks: each loads ids from its message and calls one service. Services send them by
name (reviewer.services.grading.GRADE_CHUNK_TASK, reviewer.services.exports.jobs
.EXPORT_WRITE_TASK), so no service imports this module.

Delivery guarantees are the app's settings (reviewer.settings, CELERY_*): acknowledged late,
re-delivered when a worker is lost; the services hold a lease on each chunk, count attempts and
upsert, so a re-delivered task writes nothing twice, and ``manage.py reconcile`` re-sends rows
whose message the broker lost."""

from __future__ import annotations

import gc

from celery import shared_task
from celery.signals import worker_process_init

from grading import stage_profile
from reviewer.services import exports, judging
from reviewer.services.exports.jobs import EXPORT_WRITE_TASK
from reviewer.services.generation_work import GENERATE_TASK, generation_work
from reviewer.services.grading import GRADE_CHUNK_TASK, chunk_grade, grading_pool
from reviewer.services.grading.work import PROFILED_STAGES
from reviewer.services.judging import JUDGE_TASK
from reviewer.services.msu import MSU_CHUNK_TASK, msu_chunk


@shared_task(name=GRADE_CHUNK_TASK)
def grade_chunk(chunk_id: int) -> int:
    """Grade one chunk of a run's items (reviewer.services.grading.chunk_grade)."""
    return chunk_grade(chunk_id=chunk_id)


@shared_task(name=EXPORT_WRITE_TASK)
def export_run_task(export_id: int) -> int:
    """Write one export's files; a re-delivered task writes them again, a finished one nothing."""
    return exports.export_write(export_id=export_id).rows_done


@shared_task(name=MSU_CHUNK_TASK)
def msu_chunk_task(run_id: int, item_ids: list[int]) -> int:
    """Compute MSU for one chunk of a run's rows (reviewer.services.msu.msu_chunk)."""
    return msu_chunk(run_id=run_id, item_ids=item_ids)


@shared_task(name=GENERATE_TASK)
def generate_run(run_id: int, dispatch: int) -> int:
    """One slice of a run's generation (reviewer.services.generation.generation_work)."""
    return generation_work(run_id=run_id, dispatch=dispatch)


@shared_task(name=JUDGE_TASK)
def judge_chunk(run_id: int, endpoint_id: int, item_ids: list[int]) -> int:
    """Ask the LLM judge about one chunk of rows (reviewer.services.judging.judge_chunk)."""
    return judging.judge_chunk(run_id=run_id, endpoint_id=endpoint_id, item_ids=item_ids)


@worker_process_init.connect
def start_grading_pool(**_kwargs) -> None:
    """Start each worker process's grading pool as the process starts (its fork server
    imports and warms the engine in the background), so the first chunk does not wait.

    What the process holds by then (Django, the app, Celery) lives as long as it does: frozen
    out of the collector's generations, a collection looks only at what tasks made since."""
    stage_profile.start("worker", PROFILED_STAGES)
    grading_pool()
    gc.freeze()
