"""Writes: every change a user or a worker makes goes through one of these functions."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from functools import partial
from itertools import islice
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from psycopg.types.json import Jsonb

from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS
from grading.pairs import pair_key_of
from grading.types import GradedSample
from reviewer import access
from reviewer.audit import Action, audit_event, audit_record, audit_record_many, verdict_change_data
from reviewer.ingest import IngestError, SourceRow, preview_file, read_rows
from reviewer.models import (
    Assignment,
    Evaluation,
    EvaluatorScore,
    Item,
    Membership,
    Project,
    Review,
    ReviewVerdict,
    Run,
    evaluator_scores_text,
)
from reviewer.uploads import upload_get, upload_store_path

logger = logging.getLogger(__name__)

DEMO_FILE = Path(__file__).resolve().parent / "demo" / "demo_run.csv"
DEMO_PROJECT = "Demo"
_INSERT_BATCH = 5000


class DuplicateRunError(Exception):
    """This file is already a run of the project; ``run`` is that run."""

    def __init__(self, *, run: Run):
        self.run = run
        super().__init__(f"this file was already uploaded to the project as run {run.pk}")


class StaleVersionError(Exception):
    """Someone else decided this item first; ``item`` holds what they decided."""

    def __init__(self, *, item: Item):
        self.item = item
        super().__init__(f"item {item.pk} changed since you loaded it (now version {item.version})")


class UnknownEvaluatorsError(ValueError):
    pass


class ProjectNameTakenError(Exception):
    """A project of this name exists and the user is not one of its members."""

    def __init__(self, *, name: str):
        self.name = name
        super().__init__(
            f"a project named “{name}” already exists and you are not a member of it; "
            "choose another name, or ask one of its owners to add you"
        )


class LastOwnerError(Exception):
    """The change would leave the project without an owner."""

    def __init__(self):
        super().__init__("a project needs at least one owner; make someone else owner first")


# ---- projects and members -------------------------------------------------------------------


def project_get_or_create(*, name: str, user) -> Project:
    """The project of this name; a new one has ``user`` as its owner.

    Names are unique across the site, so an existing project the user is not a member of
    raises ProjectNameTakenError. ``user`` None is the command line, run by an operator.
    """
    with transaction.atomic():
        project, created = Project.objects.get_or_create(
            name=name.strip(), defaults={"created_by": user}
        )
        if created:
            audit_record(
                Action.PROJECT_CREATE,
                actor=user,
                project=project,
                summary=f"Project “{project.name}” created",
            )
        if created and user is not None:
            Membership.objects.create(project=project, user=user, role=Membership.Role.OWNER)
    if not created and user is not None and access.role_in(user, project) is None:
        raise ProjectNameTakenError(name=project.name)
    return project


def project_delete(*, project: Project, by) -> None:
    """Delete the project with its runs, items, reviews and exports; its audit trail stays."""
    name, pk = project.name, project.pk
    with transaction.atomic():
        audit_record(
            Action.PROJECT_DELETE,
            actor=by,
            project=project,
            summary=f"Project “{name}” deleted with its {project.runs.count()} runs",
        )
        project.delete()
    logger.info("project %s (%s) deleted by %s", pk, name, by)


def membership_set(*, project: Project, user, role: str, by) -> Membership:
    """Add ``user`` to the project with ``role``, or change their role. Raises LastOwnerError
    when that would leave the project without an owner."""
    if role not in Membership.Role.values:
        raise ValueError(f"unknown role {role!r}; choose one of {Membership.Role.values}")
    with transaction.atomic():
        _owners_locked(project)
        membership = Membership.objects.filter(project=project, user=user).first()
        before = membership.role if membership else ""
        if membership is None:
            membership = Membership.objects.create(project=project, user=user, role=role)
        elif membership.role != role:
            if membership.role == Membership.Role.OWNER and _owner_count(project) == 1:
                raise LastOwnerError()
            membership.role = role
            membership.save(update_fields=["role"])
        if before != role:
            audit_record(
                Action.MEMBER_SET,
                actor=by,
                project=project,
                summary=f"{user.get_username()} is now {role}"
                + (f" (was {before})" if before else " (added)"),
                data={"user": user.get_username(), "before": before, "after": role},
            )
        if not access.allows(role, access.REVIEW):
            _open_assignments_drop(project=project, user=user)
    logger.info("%s is %s of project %s (set by %s)", user, role, project.pk, by)
    return membership


def membership_remove(*, project: Project, user, by) -> bool:
    """Take ``user`` out of the project; False if they were not a member. Raises
    LastOwnerError for the project's last owner."""
    with transaction.atomic():
        _owners_locked(project)
        membership = Membership.objects.filter(project=project, user=user).first()
        if membership is None:
            return False
        if membership.role == Membership.Role.OWNER and _owner_count(project) == 1:
            raise LastOwnerError()
        membership.delete()
        dropped = _open_assignments_drop(project=project, user=user)
        audit_record(
            Action.MEMBER_REMOVE,
            actor=by,
            project=project,
            summary=f"{user.get_username()} removed (was {membership.role})"
            + (f"; {dropped} rows left their queue" if dropped else ""),
            data={"user": user.get_username(), "before": membership.role, "open_rows": dropped},
        )
    logger.info("%s removed from project %s by %s", user, project.pk, by)
    return True


def _open_assignments_drop(*, project: Project, user) -> int:
    """Take the rows ``user`` has not reviewed out of their queues in ``project`` (they can no
    longer review them); a blind double review left waiting only for them is settled."""
    open_assignments = Assignment.objects.filter(
        item__run__project=project, annotator=user, done_at=None
    )
    item_ids = list(open_assignments.values_list("item_id", flat=True))
    open_assignments.delete()
    for item in (
        Item.objects.select_for_update(of=("self",))
        .select_related("run__project")
        .filter(pk__in=item_ids, review_stage=Item.ReviewStage.BLIND)
        .order_by("pk")
    ):
        blind_review_settle(item=item)
    return len(item_ids)


def _owners_locked(project: Project) -> None:
    """Lock the project row, so two owners demoting each other cannot both succeed."""
    Project.objects.select_for_update().filter(pk=project.pk).first()


def _owner_count(project: Project) -> int:
    return Membership.objects.filter(project=project, role=Membership.Role.OWNER).count()


# ---- runs and reviews -----------------------------------------------------------------------


def run_create(
    *,
    project: Project,
    user,
    upload_token: str,
    mapping: dict[str, str] | None,
    name: str,
    model_name: str = "",
    dataset: str = "",
    evaluators: Sequence[str] | None = None,
    delimiter: str | None = None,
) -> Run:
    """Validate every row of an upload, store them as a run and enqueue its grading.

    ``mapping`` None (the API and the command line, with nobody to confirm it) takes the
    guessed mapping. Raises IngestError (nothing is stored) or DuplicateRunError (same file,
    same project).
    """
    stored = upload_get(token=upload_token)
    evaluator_names = _checked_evaluators(evaluators)
    if mapping is None:
        mapping = _mapping_guessed(stored.path, delimiter=delimiter)
    existing = Run.objects.filter(project=project, source_sha256=stored.sha256).first()
    if existing is not None:
        raise DuplicateRunError(run=existing)
    with transaction.atomic():
        try:
            with transaction.atomic():
                run = Run.objects.create(
                    project=project,
                    name=name.strip() or stored.filename,
                    model_name=model_name,
                    dataset=dataset,
                    uploaded_by=user,
                    source_filename=stored.filename,
                    source_sha256=stored.sha256,
                    column_mapping=dict(mapping),
                    evaluators=evaluator_names,
                    grading_queued_at=timezone.now(),
                )
        except IntegrityError:
            # A concurrent upload of the same file (double click, client retry) won the race.
            run = Run.objects.get(project=project, source_sha256=stored.sha256)
            raise DuplicateRunError(run=run) from None
        rows = read_rows(
            stored.path,
            mapping=mapping,
            delimiter=delimiter,
            max_field_bytes=settings.MATHJURY_MAX_FIELD_BYTES,
        )
        run.total_rows = _items_insert(run_id=run.pk, rows=rows)
        run.save(update_fields=["total_rows"])
        audit_record(
            Action.UPLOAD,
            actor=user,
            project=project,
            run=run,
            summary=f"Run “{run.name}” uploaded from {run.source_filename}: "
            f"{run.total_rows} rows, graded by {', '.join(evaluator_names)}",
            data={
                "file": run.source_filename,
                "sha256": run.source_sha256,
                "rows": run.total_rows,
                "evaluators": evaluator_names,
            },
        )
        transaction.on_commit(partial(_grading_enqueue, run_id=run.pk, generation=1))
    logger.info("run %s created by %s: %s rows", run.pk, user, run.total_rows)
    return run


def run_regrade(*, run: Run, evaluators: Sequence[str], user) -> Run:
    """Grade the run again with ``evaluators``; human reviews are kept as they are."""
    evaluator_names = _checked_evaluators(evaluators)
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run.pk)
        run.grading_generation += 1
        run.evaluators = evaluator_names
        run.status = Run.Status.QUEUED
        run.grading_queued_at = timezone.now()
        run.grading_started_at = None
        run.grading_finished_at = None
        run.error_message = ""
        run.save()
        Item.objects.filter(run=run).update(grade_state=Item.GradeState.PENDING, grade_attempts=0)
        audit_record(
            Action.REGRADE,
            actor=user,
            project=run.project,
            run=run,
            summary=f"Run “{run.name}” re-graded with {', '.join(evaluator_names)}",
            data={"evaluators": evaluator_names, "generation": run.grading_generation},
        )
        transaction.on_commit(
            partial(_grading_enqueue, run_id=run.pk, generation=run.grading_generation)
        )
    logger.info("run %s re-graded by %s with %s", run.pk, user, ", ".join(evaluator_names))
    return run


def item_review(
    *,
    item: Item,
    user,
    verdict: str,
    note: str = "",
    expected_version: int | None = None,
    idempotency_key: str = "",
    role: str | None = None,
) -> Review:
    """Record a human verdict on an item, of the kind access.review_kind allows ``user``.

    A review or an adjudication becomes the final verdict. A blind review counts once all
    of the row's assignees have given theirs: if they agree, that is the final verdict; if not,
    the row waits for an adjudicator (stage "conflict").

    With ``expected_version`` (the version the reviewer saw), raises StaleVersionError if
    someone decided in between, so no decision is overwritten unseen; blind reviews skip the
    check, as they overwrite nobody's. A request repeated with the same ``idempotency_key`` (a
    client's retry) returns the review it already made. ``role`` defaults to ``user``'s role
    in the item's project.
    """
    if verdict not in ReviewVerdict.values:
        raise ValueError(f"unknown verdict {verdict!r}; choose one of {ReviewVerdict.values}")
    with transaction.atomic():
        current = (
            Item.objects.select_for_update(of=("self",))
            .select_related("run__project")
            .get(pk=item.pk)
        )
        if idempotency_key:
            earlier = Review.objects.filter(
                item=current, annotator=user, idempotency_key=idempotency_key
            ).first()
            if earlier is not None:
                return earlier
        if role is None:
            role = access.role_in(user, current.run.project)
        kind = access.review_kind(item=current, user=user, role=role)
        if (
            kind != Review.Kind.BLIND
            and expected_version is not None
            and current.version != expected_version
        ):
            raise StaleVersionError(item=current)
        review = Review.objects.create(
            item=current,
            annotator=user,
            verdict=verdict,
            kind=kind,
            note=note,
            idempotency_key=idempotency_key,
        )
        Assignment.objects.filter(item=current, annotator=user, done_at=None).update(
            done_at=timezone.now()
        )
        if kind == Review.Kind.BLIND:
            audit_record(
                Action.BLIND_VERDICT,
                actor=user,
                project=current.run.project,
                run=current.run,
                item=current,
                summary=f"Row {current.row_number}: blind verdict “{review.get_verdict_display()}”",
                data={"verdict": verdict, "note": note},
            )
            blind_review_settle(item=current)
        else:
            _final_verdict_set(
                current,
                verdict=verdict,
                actor=user,
                summary=f"Row {current.row_number}: "
                + ("adjudicated" if kind == Review.Kind.ADJUDICATION else "reviewed")
                + f" as “{review.get_verdict_display()}”",
                data={"kind": kind, "note": note},
            )
    return review


def blind_review_settle(*, item: Item) -> str:
    """Close the blind double review of a locked ``item`` once each assignee has a verdict:
    agreeing verdicts become final, differing ones make a conflict. Returns the stage."""
    if item.review_stage != Item.ReviewStage.BLIND:
        return item.review_stage
    assignees = set(Assignment.objects.filter(item=item).values_list("annotator_id", flat=True))
    if not assignees:  # everyone it waited on left the project: back to the ordinary queue
        item.review_stage = Item.ReviewStage.OPEN
        item.save(update_fields=["review_stage"])
        return item.review_stage
    latest: dict[int, str] = {}
    for annotator_id, verdict in (
        Review.objects.filter(item=item, kind=Review.Kind.BLIND, annotator_id__in=assignees)
        .order_by("created_at", "id")
        .values_list("annotator_id", "verdict")
    ):
        latest[annotator_id] = verdict
    if set(latest) != assignees:
        return item.review_stage
    verdicts = set(latest.values())
    names = dict(get_user_model().objects.filter(pk__in=assignees).values_list("pk", "username"))
    said = {names[pk]: verdict for pk, verdict in sorted(latest.items(), key=lambda p: names[p[0]])}
    if len(verdicts) == 1:
        (agreed,) = verdicts
        _final_verdict_set(
            item,
            verdict=agreed,
            actor=None,
            summary=f"Row {item.row_number}: the {len(said)} blind verdicts agree: "
            f"“{ReviewVerdict(agreed).label}”",
            data={"kind": "blind_agreement", "verdicts": said},
        )
        return item.review_stage
    item.review_stage = Item.ReviewStage.CONFLICT
    item.version += 1
    item.save(update_fields=["review_stage", "version"])
    audit_record(
        Action.CONFLICT,
        actor=None,
        project=item.run.project,
        run=item.run,
        item=item,
        summary=f"Row {item.row_number}: blind verdicts disagree ("
        + ", ".join(f"{name}: {ReviewVerdict(v).label}" for name, v in said.items())
        + "); an adjudicator decides",
        data={"verdicts": said},
    )
    return item.review_stage


def _final_verdict_set(item: Item, *, verdict: str, actor, summary: str, data: dict) -> None:
    """Make ``verdict`` the locked item's final, human verdict, ending any double review, and
    record the change."""
    before = item.final_verdict
    item.final_verdict = verdict
    item.final_source = Item.FinalSource.HUMAN
    item.review_stage = Item.ReviewStage.OPEN
    item.version += 1
    item.save(update_fields=["final_verdict", "final_source", "review_stage", "version"])
    audit_record(
        Action.VERDICT,
        actor=actor,
        project=item.run.project,
        run=item.run,
        item=item,
        summary=summary,
        data=verdict_change_data(
            before=before, after=verdict, source=Item.FinalSource.HUMAN, **data
        ),
    )


def grading_attempt_start(*, run_id: int, generation: int, item_ids: Sequence[int]) -> list[Item]:
    """Count an attempt on each pending item and return those to grade now.

    Committed before grading starts, so a worker that dies mid-row still leaves the count
    behind; items that already used up their attempts are quarantined instead.
    """
    with transaction.atomic():
        run = Run.objects.select_for_update().get(pk=run_id)
        if run.grading_generation != generation:
            return []
        items = list(
            Item.objects.filter(run_id=run_id, pk__in=item_ids, grade_state=Item.GradeState.PENDING)
            .only("pk", "gold", "output", "finish_reason", "problem", "grade_attempts")
            .order_by("row_number")
        )
        exhausted = [
            i.pk for i in items if i.grade_attempts >= settings.MATHJURY_MAX_GRADE_ATTEMPTS
        ]
        if exhausted:
            Item.objects.filter(pk__in=exhausted).update(
                grade_state=Item.GradeState.QUARANTINED,
                graded_generation=generation,
                graded_at=timezone.now(),
            )
            logger.warning("run %s: quarantined items %s", run_id, exhausted)
        to_grade = [i for i in items if i.pk not in set(exhausted)]
        Item.objects.filter(pk__in=[i.pk for i in to_grade]).update(
            grade_attempts=F("grade_attempts") + 1
        )
        if run.status == Run.Status.QUEUED:
            run.status = Run.Status.GRADING
            run.grading_started_at = timezone.now()
            run.save(update_fields=["status", "grading_started_at"])
    return to_grade


def grading_results_save(
    *, run_id: int, generation: int, results: list[tuple[int, GradedSample]]
) -> int:
    """Upsert the evaluations and the jury's result of graded items; returns how many saved.

    Safe to repeat (a re-delivered task writes the same rows again), writes nothing for an
    earlier generation, and leaves human decisions alone.
    """
    if not results:
        return 0
    now = timezone.now()
    with transaction.atomic():
        run = Run.objects.select_for_update(of=("self",)).select_related("project").get(pk=run_id)
        if run.grading_generation != generation:
            return 0
        item_ids = [item_id for item_id, _ in results]
        stored = Item.objects.filter(pk__in=item_ids).values_list(
            "pk", "gold", "final_verdict", "final_source"
        )
        golds, auto_before = {}, {}
        for item_id, gold, final_verdict, final_source in stored:
            golds[item_id] = gold
            if final_verdict and final_source != Item.FinalSource.HUMAN:
                auto_before[item_id] = final_verdict
        items = [
            Item(
                pk=item_id,
                grade_state=Item.GradeState.GRADED,
                graded_generation=generation,
                graded_at=now,
                answer_type=str(graded.answer_type),
                auto_verdict=str(graded.auto_verdict),
                needs_review=graded.needs_review,
                evaluators_disagree=any(
                    r.code == "evaluators_disagree" for r in graded.review_reasons
                ),
                review_reasons=[r.to_dict() for r in graded.review_reasons],
                evaluator_scores=evaluator_scores_text(
                    {
                        e.evaluator: EvaluatorScore.of_result(
                            status=e.status, verdict=e.verdict or ""
                        )
                        for e in graded.evaluations
                    }
                ),
                pair_key=pair_key_of(golds[item_id], graded.evaluations),
            )
            for item_id, graded in results
        ]
        Item.objects.bulk_update(
            items,
            fields=[
                "grade_state",
                "graded_generation",
                "graded_at",
                "answer_type",
                "auto_verdict",
                "needs_review",
                "evaluators_disagree",
                "review_reasons",
                "evaluator_scores",
                "pair_key",
            ],
        )
        Evaluation.objects.filter(item_id__in=item_ids).exclude(
            evaluator__in=run.evaluators
        ).delete()
        Evaluation.objects.bulk_create(
            [
                Evaluation(
                    item_id=item_id,
                    evaluator=e.evaluator,
                    evaluator_version=e.version,
                    status=str(e.status),
                    verdict=str(e.verdict) if e.verdict else "",
                    extracted=e.extracted,
                    extracted_latex=e.extracted_latex,
                    gold_latex=e.gold_latex,
                    ms=e.ms,
                    signals=list(e.signals),
                    detail=e.detail,
                )
                for item_id, graded in results
                for e in graded.evaluations
            ],
            update_conflicts=True,
            unique_fields=["item", "evaluator"],
            update_fields=[
                "evaluator_version",
                "status",
                "verdict",
                "extracted",
                "extracted_latex",
                "gold_latex",
                "ms",
                "signals",
                "detail",
            ],
        )
        # One UPDATE, so a human decision committed meanwhile is never replaced.
        Item.objects.filter(pk__in=item_ids).exclude(final_source=Item.FinalSource.HUMAN).update(
            final_verdict=F("auto_verdict"), final_source=Item.FinalSource.AUTO
        )
        audit_record_many(_auto_verdict_changes(run=run, before=auto_before, results=results))
    return len(results)


def _auto_verdict_changes(*, run: Run, before: dict[int, str], results) -> Iterable:
    """Events for rows whose automatic final verdict a re-grade changed (a first grading only
    sets them, and the upload's event stands for that)."""
    rows = dict(
        Item.objects.filter(pk__in=list(before), final_source=Item.FinalSource.AUTO).values_list(
            "pk", "row_number"
        )
    )
    for item_id, graded in results:
        after = str(graded.auto_verdict)
        if item_id in rows and before[item_id] != after:
            yield audit_event(
                Action.VERDICT,
                actor=None,
                project=run.project,
                run=run,
                item=Item(pk=item_id),
                summary=f"Row {rows[item_id]}: re-grading changed the automatic verdict to "
                f"“{after}”",
                data=verdict_change_data(
                    before=before[item_id],
                    after=after,
                    source=Item.FinalSource.AUTO,
                    generation=run.grading_generation,
                ),
            )


def run_finish_if_done(*, run_id: int, generation: int) -> bool:
    """Mark the run done when no item of this generation is left to grade."""
    with transaction.atomic():
        run = Run.objects.select_for_update(of=("self",)).select_related("project").get(pk=run_id)
        if run.grading_generation != generation or run.status == Run.Status.DONE:
            return run.status == Run.Status.DONE
        if run.items.filter(grade_state=Item.GradeState.PENDING).exists():
            return False
        run.status = Run.Status.DONE
        run.grading_finished_at = timezone.now()
        run.save(update_fields=["status", "grading_finished_at"])
        counts = run.items.aggregate(
            flagged=Count("pk", filter=Q(needs_review=True)),
            quarantined=Count("pk", filter=Q(grade_state=Item.GradeState.QUARANTINED)),
        )
        audit_record(
            Action.GRADED,
            actor=None,
            project=run.project,
            run=run,
            summary=f"Run “{run.name}” graded: {run.total_rows} rows, {counts['flagged']} "
            f"flagged, {counts['quarantined']} could not be graded",
            data={"generation": generation, **counts},
        )
    return True


def demo_load(*, user) -> Run:
    """Load the demo run shipped with MathJury (or return it if it is already loaded), in a
    project that ``user`` owns."""
    project, _ = Project.objects.get_or_create(name=DEMO_PROJECT, defaults={"created_by": user})
    Membership.objects.get_or_create(
        project=project, user=user, defaults={"role": Membership.Role.OWNER}
    )
    stored = upload_store_path(path=DEMO_FILE)
    try:
        return run_create(
            project=project,
            user=user,
            upload_token=stored.token,
            mapping={
                "id": "id",
                "problem": "problem",
                "gold": "gold",
                "output": "output",
                "model": "model",
                "subject": "subject",
                "finish_reason": "finish_reason",
            },
            name="Demo: what the jury agrees and disagrees on",
            model_name="hand-written examples",
            dataset="MathJury demo",
        )
    except DuplicateRunError as exc:
        stored.path.unlink(missing_ok=True)
        return exc.run


def _mapping_guessed(path: Path, *, delimiter: str | None) -> dict[str, str]:
    """The guessed column mapping, refused where only a person could confirm it."""
    preview = preview_file(path, delimiter=delimiter)
    mapping = preview.guessed_mapping
    problems = [
        f"column {mapping[field]!r} could hold the {field} or the other answer; "
        "send a mapping that names the gold and output columns"
        for field in preview.needs_confirmation
    ]
    problems += [
        f"no column looks like the {field} (columns found: {', '.join(preview.columns)}); "
        f'send a mapping such as {{"{field}": "<column>"}}'
        for field in ("gold", "output")
        if field not in mapping
    ]
    if problems:
        raise IngestError(problems)
    return mapping


def _checked_evaluators(evaluators: Sequence[str] | None) -> list[str]:
    names = list(dict.fromkeys(evaluators)) if evaluators is not None else list(DEFAULT_EVALUATORS)
    unknown = [name for name in names if name not in AVAILABLE]
    if unknown or not names:
        raise UnknownEvaluatorsError(
            f"unknown evaluator(s) {', '.join(unknown) or '(none chosen)'}; "
            f"available: {', '.join(AVAILABLE)}"
        )
    return names


def _items_insert(*, run_id: int, rows: Iterable[SourceRow]) -> int:
    """Insert rows in large batches (COPY on PostgreSQL); returns how many."""
    if connection.vendor == "postgresql":
        return _items_copy(run_id=run_id, rows=rows)
    count = 0
    for batch in _batches(rows, _INSERT_BATCH):
        Item.objects.bulk_create([_item_from_row(run_id, row) for row in batch])
        count += len(batch)
    return count


def _item_from_row(run_id: int, row: SourceRow) -> Item:
    fields = row.fields
    index = fields["sample_index"].strip()
    return Item(
        run_id=run_id,
        row_number=row.row_number,
        source_line=row.source_line,
        external_id=fields["id"],
        problem=fields["problem"],
        gold=fields["gold"],
        output=fields["output"],
        model_name=fields["model"],
        subject=fields["subject"],
        sample_index=int(index) if index else None,
        finish_reason=fields["finish_reason"],
        extra=row.extra,
    )


_COPY_COLUMNS = (
    "run_id",
    "row_number",
    "source_line",
    "external_id",
    "problem",
    "gold",
    "output",
    "model_name",
    "subject",
    "sample_index",
    "finish_reason",
    "extra",
    "grade_state",
    "grade_attempts",
    "graded_generation",
    "answer_type",
    "auto_verdict",
    "needs_review",
    "evaluators_disagree",
    "review_reasons",
    "evaluator_scores",
    "final_verdict",
    "final_source",
    "version",
    "review_stage",
    "pair_key",
)


def _items_copy(*, run_id: int, rows: Iterable[SourceRow]) -> int:
    """COPY is several times faster than multi-row INSERT for large uploads."""
    count = 0
    table = Item._meta.db_table
    pending = Item.GradeState.PENDING.value
    with connection.cursor() as cursor:
        # lz4 compresses long outputs several times faster than the default pglz (PostgreSQL
        # 14+, when built with lz4); it more than doubles the insert rate of long outputs.
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' "
            "AND 'lz4' = ANY(enumvals)"
        )
        if cursor.fetchone():
            cursor.execute("SET LOCAL default_toast_compression = 'lz4'")
        copy_sql = f"COPY {table} ({', '.join(_COPY_COLUMNS)}) FROM STDIN"
        with cursor.cursor.copy(copy_sql) as copy:
            for row in rows:
                fields = row.fields
                index = fields["sample_index"].strip()
                copy.write_row(
                    (
                        run_id,
                        row.row_number,
                        row.source_line,
                        fields["id"],
                        fields["problem"],
                        fields["gold"],
                        fields["output"],
                        fields["model"],
                        fields["subject"],
                        int(index) if index else None,
                        fields["finish_reason"],
                        Jsonb(row.extra),
                        pending,
                        0,
                        0,
                        "",
                        "",
                        False,
                        False,
                        Jsonb([]),
                        "",
                        "",
                        "",
                        0,
                        "",
                        "",
                    )
                )
                count += 1
    return count


def _grading_enqueue(*, run_id: int, generation: int) -> None:
    """Send one grading task per chunk of pending items (called after commit)."""
    from reviewer.tasks import grade_chunk  # tasks import this module

    item_ids = list(
        Item.objects.filter(run_id=run_id, grade_state=Item.GradeState.PENDING)
        .order_by("row_number")
        .values_list("pk", flat=True)
    )
    # One producer for all chunks: a connection per message costs more than the message.
    with grade_chunk.app.producer_or_acquire() as producer:
        for chunk in _batches(item_ids, settings.MATHJURY_CHUNK_SIZE):
            grade_chunk.apply_async((run_id, generation, list(chunk)), producer=producer)


def _batches(values: Iterable, size: int) -> Iterable[tuple]:
    """itertools.batched, which arrives only in Python 3.12."""
    iterator = iter(values)
    while batch := tuple(islice(iterator, size)):
        yield batch
