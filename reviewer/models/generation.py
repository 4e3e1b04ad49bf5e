"""Generating runs from a model server: problem sets, a project's saved endpoints, the
generation job of a run, what each request brought, and the LLM judge's cached verdicts."""

from django.conf import settings
from django.db import models

from reviewer.models.items import Item
from reviewer.models.projects import Project
from reviewer.models.runs import Run


class ProblemSet(models.Model):
    """Problems with their gold answers, uploaded once and generated from by many runs."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="problem_sets")
    name = models.CharField(max_length=200)
    source_filename = models.CharField(max_length=255)
    source_sha256 = models.CharField(max_length=64)
    problem_count = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "source_sha256"], name="problem_set_unique_source"
            )
        ]

    def __str__(self) -> str:
        return self.name


class Problem(models.Model):
    problem_set = models.ForeignKey(ProblemSet, on_delete=models.CASCADE, related_name="problems")
    position = models.PositiveIntegerField()  # 0-based order in the file
    source_line = models.PositiveIntegerField()
    external_id = models.CharField(max_length=200, blank=True)
    problem = models.TextField()
    gold = models.TextField()
    solution = models.TextField(blank=True)  # a human solution, when the file has one
    subject = models.CharField(max_length=200, blank=True)
    level = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["problem_set", "position"]
        constraints = [
            models.UniqueConstraint(fields=["problem_set", "position"], name="problem_unique_pos")
        ]

    def __str__(self) -> str:
        return f"{self.problem_set_id}:{self.position}"


class Endpoint(models.Model):
    """A project's saved model server. The key is stored encrypted (reviewer.services.endpoints)
    or not at all, when ``api_key_env`` names the environment variable of the workers that
    holds it; it is never shown again."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="endpoints")
    name = models.CharField(max_length=200)
    base_url = models.CharField(max_length=500)
    model = models.CharField(max_length=200)
    api_key_encrypted = models.TextField(blank=True)
    api_key_env = models.CharField(max_length=100, blank=True)
    # Prices per million tokens, for the run page's cost estimate.
    price_input = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    price_output = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="endpoint_unique_name")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def has_key(self) -> bool:
        return bool(self.api_key_encrypted or self.api_key_env)


class GenerationJob(models.Model):
    """How a run's outputs are generated, and how far it got."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        GENERATING = "generating"
        DONE = "done"
        INCOMPLETE = "incomplete", "stopped with pairs missing"  # resume asks for them
        CANCELLED = "cancelled"
        FAILED = "failed"  # the server refused (key, model, parameters): resume after fixing

    run = models.OneToOneField(Run, on_delete=models.CASCADE, related_name="generation")
    problem_set = models.ForeignKey(ProblemSet, on_delete=models.RESTRICT, related_name="jobs")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.RESTRICT, related_name="jobs")
    template_name = models.CharField(max_length=200)
    template_text = models.TextField()
    system_prompt = models.TextField(blank=True)
    temperature = models.FloatField(null=True, blank=True)
    top_p = models.FloatField(null=True, blank=True)
    max_tokens = models.PositiveIntegerField(null=True, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    stop = models.JSONField(default=list, blank=True)
    samples = models.PositiveSmallIntegerField(default=1)
    timeout_s = models.FloatField(default=120)
    concurrency = models.PositiveSmallIntegerField(default=8)

    status = models.CharField(max_length=16, choices=Status, default=Status.QUEUED)
    # Bumped by every start and resume: a task of an earlier dispatch stops.
    dispatch = models.PositiveIntegerField(default=1)
    requests_sent = models.PositiveIntegerField(default=0)
    requests_failed = models.PositiveIntegerField(default=0)
    retries = models.PositiveIntegerField(default=0)  # attempts repeated before an answer
    errors = models.JSONField(default=dict, blank=True)  # {ErrorKind: count}
    error_message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"generation of run {self.run_id}"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.GENERATING)


class GeneratedOutput(models.Model):
    """What the server returned for one (problem, sample) pair; stored with its item, once."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="generated_outputs")
    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="generated")
    problem = models.ForeignKey(Problem, on_delete=models.RESTRICT, related_name="+")
    sample_index = models.PositiveSmallIntegerField()
    prompt_tokens = models.PositiveIntegerField(null=True, blank=True)
    completion_tokens = models.PositiveIntegerField(null=True, blank=True)
    usage_shared_by = models.PositiveSmallIntegerField(default=1)
    latency_s = models.FloatField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    reasoning = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "problem", "sample_index"], name="generated_output_unique_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.problem_id}:{self.sample_index}"


class JudgeVerdict(models.Model):
    """The LLM judge's answer, cached by grading.llm.judge_cache_key (problem, gold, extracted
    answer, model, prompt version), so a pair already judged is never asked again."""

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=32)
    status = models.CharField(max_length=16)
    verdict = models.CharField(max_length=16, blank=True)
    detail = models.TextField(blank=True)
    ms = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"judge {self.key[:8]}: {self.verdict or self.status}"
