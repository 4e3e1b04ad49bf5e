"""The forms of the generation page: a problem set, a saved endpoint, a generated run, and the
LLM judge."""

from __future__ import annotations

from django import forms

from grading.evaluators import AVAILABLE, DEFAULT_EVALUATORS
from grading.llm import BUILTIN_TEMPLATES
from reviewer.models import Endpoint, ProblemSet
from reviewer.services.generation import GenerationOptions
from reviewer.services.judging import JUDGE_SCOPES


class ProblemSetForm(forms.Form):
    file = forms.FileField(help_text="CSV or JSONL with a problem and a gold answer per row.")
    name = forms.CharField(max_length=200, required=False)


class EndpointForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)
    base_url = forms.CharField(max_length=500, label="Base URL", initial="http://127.0.0.1:8000/v1")
    model = forms.CharField(max_length=200)
    api_key = forms.CharField(
        required=False,
        label="API key",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Stored encrypted and never shown again.",
    )
    api_key_env = forms.CharField(
        required=False,
        max_length=100,
        label="or the environment variable holding it",
        help_text="Read by the workers, e.g. OPENAI_API_KEY.",
    )
    price_input = forms.DecimalField(
        required=False, min_value=0, label="Price per million input tokens"
    )
    price_output = forms.DecimalField(
        required=False, min_value=0, label="Price per million output tokens"
    )


TEMPLATE_CHOICES = [*((name, name) for name in BUILTIN_TEMPLATES), ("custom", "custom")]


class GenerateForm(forms.Form):
    problem_set = forms.ModelChoiceField(queryset=ProblemSet.objects.none())
    endpoint = forms.ModelChoiceField(queryset=Endpoint.objects.none())
    model = forms.CharField(
        max_length=200, required=False, help_text="Leave empty for the endpoint's model."
    )
    name = forms.CharField(max_length=200, required=False, label="Run name")
    template = forms.ChoiceField(choices=TEMPLATE_CHOICES, initial="math")
    custom_template = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="With {problem} where the problem goes (for the custom template).",
    )
    system_prompt = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    temperature = forms.FloatField(required=False, min_value=0, max_value=2)
    top_p = forms.FloatField(required=False, min_value=0, max_value=1)
    max_tokens = forms.IntegerField(required=False, min_value=1)
    seed = forms.IntegerField(required=False)
    stop = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), help_text="One per line."
    )
    samples = forms.IntegerField(min_value=1, max_value=64, initial=1)
    timeout_s = forms.FloatField(min_value=1, max_value=3600, initial=120, label="Time-out (s)")
    concurrency = forms.IntegerField(min_value=1, max_value=256, initial=8)
    evaluators = forms.MultipleChoiceField(
        choices=[(name, name) for name in AVAILABLE],
        initial=list(DEFAULT_EVALUATORS),
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args, project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["problem_set"].queryset = ProblemSet.objects.filter(project=project)
        self.fields["endpoint"].queryset = Endpoint.objects.filter(project=project)

    def clean(self):
        data = super().clean()
        if data.get("template") == "custom" and not data.get("custom_template", "").strip():
            self.add_error("custom_template", "Write the custom template, with {problem}.")
        return data

    def options(self) -> GenerationOptions:
        data = self.cleaned_data
        template = data["custom_template"] if data["template"] == "custom" else data["template"]
        return GenerationOptions(
            template=template,
            system_prompt=data["system_prompt"],
            temperature=data["temperature"],
            top_p=data["top_p"],
            max_tokens=data["max_tokens"],
            seed=data["seed"],
            stop=tuple(line for line in data["stop"].splitlines() if line),
            samples=data["samples"],
            timeout_s=data["timeout_s"],
            concurrency=data["concurrency"],
            evaluators=data["evaluators"],
        )


class JudgeForm(forms.Form):
    endpoint = forms.ModelChoiceField(queryset=Endpoint.objects.none())
    scope = forms.ChoiceField(choices=JUDGE_SCOPES, initial="flagged")

    def __init__(self, *args, project, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["endpoint"].queryset = Endpoint.objects.filter(project=project)
