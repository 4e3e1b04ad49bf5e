"""Generation: problem sets, endpoints (the API key is write-only), generating a run, its
report, and the LLM judge."""

from __future__ import annotations

from rest_framework import serializers

from reviewer.api.serializers.runs import AVAILABLE_EVALUATORS
from reviewer.models import Endpoint, ProblemSet
from reviewer.services.generation import MAX_CONCURRENCY, MAX_SAMPLES
from reviewer.services.judging import JUDGE_SCOPES


class ProblemSetSerializer(serializers.ModelSerializer):
    class Meta:
        model = ProblemSet
        fields = ["id", "project", "name", "source_filename", "problem_count", "created_at"]


class ProblemSetUploadSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV or JSONL: problem and gold (answer) per row.")
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)


class EndpointSerializer(serializers.ModelSerializer):
    """An endpoint as the API shows it: never its key, only whether it has one."""

    has_key = serializers.BooleanField(read_only=True)

    class Meta:
        model = Endpoint
        fields = [
            "id",
            "project",
            "name",
            "base_url",
            "model",
            "api_key_env",
            "has_key",
            "price_input",
            "price_output",
            "created_at",
        ]


class EndpointCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    base_url = serializers.CharField(max_length=500)
    model = serializers.CharField(max_length=200)
    api_key = serializers.CharField(
        required=False, default="", allow_blank=True, write_only=True, max_length=2000
    )
    api_key_env = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=100
    )
    price_input = serializers.DecimalField(
        max_digits=12, decimal_places=4, min_value=0, required=False, allow_null=True
    )
    price_output = serializers.DecimalField(
        max_digits=12, decimal_places=4, min_value=0, required=False, allow_null=True
    )


class GenerateSerializer(serializers.Serializer):
    problem_set = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    endpoint = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    model = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    name = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    template = serializers.CharField(
        max_length=20000,
        required=False,
        default="math",
        help_text="math, yesno, or a custom template holding {problem}.",
    )
    system_prompt = serializers.CharField(
        max_length=20000, required=False, default="", allow_blank=True
    )
    temperature = serializers.FloatField(min_value=0, max_value=2, required=False, allow_null=True)
    top_p = serializers.FloatField(min_value=0, max_value=1, required=False, allow_null=True)
    max_tokens = serializers.IntegerField(
        min_value=1, max_value=10_000_000, required=False, allow_null=True
    )
    seed = serializers.IntegerField(
        min_value=-(2**62), max_value=2**62, required=False, allow_null=True
    )
    stop = serializers.ListField(
        child=serializers.CharField(max_length=200), max_length=16, required=False, default=list
    )
    samples = serializers.IntegerField(min_value=1, max_value=MAX_SAMPLES, default=1)
    timeout_s = serializers.FloatField(min_value=1, max_value=3600, default=120)
    concurrency = serializers.IntegerField(min_value=1, max_value=MAX_CONCURRENCY, default=8)
    evaluators = serializers.ListField(
        child=serializers.ChoiceField(choices=AVAILABLE_EVALUATORS),
        allow_empty=False,
        required=False,
    )


class JudgeSerializer(serializers.Serializer):
    endpoint = serializers.IntegerField(min_value=1, max_value=2**31 - 1)
    scope = serializers.ChoiceField(choices=JUDGE_SCOPES, default="flagged")


class EndpointTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    models = serializers.ListField(child=serializers.CharField())
    error = serializers.CharField(required=False)


class GenerationReportSerializer(serializers.Serializer):
    """A generated run's figures (reviewer.generation_report.GenerationReport)."""

    run = serializers.IntegerField(required=False)
    status = serializers.CharField()
    status_label = serializers.CharField()
    active = serializers.BooleanField()
    error_message = serializers.CharField()
    pairs_done = serializers.IntegerField()
    pairs_total = serializers.IntegerField()
    percent = serializers.IntegerField()
    requests = serializers.IntegerField()
    requests_failed = serializers.IntegerField()
    retries = serializers.IntegerField()
    requests_per_second = serializers.FloatField(allow_null=True)
    errors = serializers.DictField(child=serializers.IntegerField())
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    mean_completion_tokens = serializers.FloatField(allow_null=True)
    graded = serializers.IntegerField()
    with_answer = serializers.IntegerField()
    coverage = serializers.FloatField(allow_null=True)
    truncated = serializers.IntegerField()
    auto_correct = serializers.IntegerField()
    score = serializers.FloatField(allow_null=True)
    cost = serializers.FloatField(allow_null=True)
