"""factory-boy factories for the reviewer's models."""

import factory
from django.contrib.auth import get_user_model

from reviewer.models import (
    Assignment,
    Evaluation,
    EvaluatorScore,
    GradingChunk,
    Item,
    Membership,
    Project,
    Review,
    Run,
    evaluator_scores_parse,
    evaluator_scores_text,
)
from reviewer.services.grading import chunk_grade
from reviewer.services.grading.chunks import chunks_record


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"reviewer{n}")
    password = factory.django.Password("correct horse battery staple")


# The user the ``user`` fixture logs in as. Projects are made by this user, who is their owner,
# unless a test names another creator: tests about anything but roles see their own data.
TEST_USERNAME = "reviewer"


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Project {n}")
    created_by = factory.SubFactory(UserFactory, username=TEST_USERNAME)

    @factory.post_generation
    def members(project, create, extracted, **kwargs):
        """The creator is owner, as project_get_or_create makes them; ``members={user: role}``
        adds others."""
        if not create:
            return
        roles = {project.created_by: Membership.Role.OWNER} if project.created_by else {}
        roles.update(extracted or {})
        Membership.objects.bulk_create(
            [Membership(project=project, user=user, role=role) for user, role in roles.items()]
        )


class RunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Run

    project = factory.SubFactory(ProjectFactory)
    name = factory.Sequence(lambda n: f"run {n}")
    source_filename = "outputs.csv"
    source_sha256 = factory.Sequence(lambda n: f"{n:064x}")
    column_mapping = factory.LazyFunction(lambda: {"gold": "gold", "output": "output"})
    evaluators = factory.LazyFunction(lambda: ["math_verify", "exact"])


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Item

    run = factory.SubFactory(RunFactory)
    row_number = factory.Sequence(lambda n: n + 1)
    source_line = factory.LazyAttribute(lambda item: item.row_number + 1)
    problem = "What is 6 times 7?"
    gold = "42"
    output = "6 times 7 is 42, so the answer is $\\boxed{42}$."


class GradedItemFactory(ItemFactory):
    grade_state = Item.GradeState.GRADED
    graded_generation = 1
    answer_type = "integer"
    auto_verdict = "correct"
    final_verdict = "correct"
    final_source = Item.FinalSource.AUTO


class EvaluationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Evaluation
        skip_postgeneration_save = True

    item = factory.SubFactory(GradedItemFactory)
    evaluator = "math_verify"
    evaluator_version = "1"
    status = "ok"
    verdict = "correct"
    extracted = "42"

    @factory.post_generation
    def item_scores(evaluation, create, extracted, **kwargs):
        """Keep the item's evaluator_scores in step, as grading_results_save does."""
        if not create:
            return
        item = evaluation.item
        scores = evaluator_scores_parse(item.evaluator_scores)
        scores[evaluation.evaluator] = EvaluatorScore.of_result(
            status=evaluation.status, verdict=evaluation.verdict
        )
        item.evaluator_scores = evaluator_scores_text(scores)
        item.save(update_fields=["evaluator_scores"])


class ReviewFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Review

    item = factory.SubFactory(GradedItemFactory)
    annotator = factory.SubFactory(UserFactory)
    verdict = "correct"


class AssignmentFactory(factory.django.DjangoModelFactory):
    """A row in an annotator's queue, as reviewer.services.assignments.run_assign hands it out."""

    class Meta:
        model = Assignment

    item = factory.SubFactory(GradedItemFactory, needs_review=True)
    annotator = factory.SubFactory(UserFactory)


def grade_in_process(run, item_ids=None) -> int:
    """Grade ``item_ids`` (default: every row) of ``run`` here, as a worker's chunk task would:
    the chunk is recorded as the upload records it, and no message is sent."""
    if item_ids is None:
        item_ids = list(run.items.order_by("row_number").values_list("pk", flat=True))
    chunks = chunks_record(
        run_id=run.pk,
        generation=run.grading_generation,
        item_ids=item_ids,
        origin=GradingChunk.Origin.UPLOAD,
    )
    return sum(chunk_grade(chunk_id=chunk.pk) for chunk in chunks)
