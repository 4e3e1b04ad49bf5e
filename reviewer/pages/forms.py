"""Forms for the reviewer pages: they parse and validate input; services do the writing."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from grading.evaluators import AVAILABLE as AVAILABLE_EVALUATORS
from grading.evaluators import DEFAULT_EVALUATORS
from grading.reader import CANONICAL_FIELDS, REQUIRED_FIELDS
from reviewer.item_filters import ITEM_FILTERS, TEXT, YES_NO, ItemFilter
from reviewer.models import Membership, ReviewVerdict
from reviewer.services.assignments import MAX_REVIEWS_PER_FLAGGED_ROW, Scope

DELIMITER_CHOICES = [
    ("", "Detect automatically"),
    (",", "Comma ,"),
    (";", "Semicolon ;"),
    ("\t", "Tab"),
    ("|", "Pipe |"),
]

# Canonical fields of an upload (grading.reader), in the order the mapping step shows them.
OPTIONAL_FIELDS = tuple(field for field in CANONICAL_FIELDS if field not in REQUIRED_FIELDS)
FIELD_LABELS = {
    "gold": "Gold answer",
    "output": "Model output",
    "problem": "Problem",
    "id": "Problem id",
    "model": "Model column",
    "subject": "Subject",
    "sample_index": "Sample index",
    "finish_reason": "Finish reason",
    "solution": "Human solution (for MSU)",
}

EVALUATOR_CHOICES = [(name, name) for name in AVAILABLE_EVALUATORS]


ENCODING_CHOICES = [
    ("", "UTF-8 (or as its byte-order mark says)"),
    ("cp1252", "Windows-1252 (Excel on Windows)"),
    ("latin-1", "Latin-1 (ISO-8859-1)"),
]


class UploadForm(forms.Form):
    """Step one of an upload: the file and where it belongs."""

    project = forms.CharField(max_length=200, help_text="An existing project or a new name.")
    file = forms.FileField(help_text="CSV, JSONL or .xlsx, one model output per row.")
    delimiter = forms.ChoiceField(choices=DELIMITER_CHOICES, required=False)
    encoding = forms.ChoiceField(choices=ENCODING_CHOICES, required=False)


class MappingForm(forms.Form):
    """Step two: which column holds which field, and the run's name and evaluators.

    Built from a preview: the column choices are the file's header, the initial values are the
    guessed mapping, and every field whose guess is ambiguous gets a box the user must tick.
    """

    token = forms.CharField(widget=forms.HiddenInput)
    project = forms.CharField(max_length=200, widget=forms.HiddenInput)
    delimiter = forms.ChoiceField(choices=DELIMITER_CHOICES, required=False)
    encoding = forms.ChoiceField(choices=ENCODING_CHOICES, required=False)
    skip_bad_lines = forms.BooleanField(
        required=False,
        label="Skip bad lines",
        help_text="Leave out rows with a problem instead of refusing the file; their line "
        "numbers are kept on the run for download.",
    )
    name = forms.CharField(max_length=200, label="Run name")
    model_name = forms.CharField(
        max_length=200,
        required=False,
        label="Model",
        help_text="Left empty, it is taken from the model column when every row names the "
        "same model.",
    )
    dataset = forms.CharField(max_length=200, required=False)
    evaluators = forms.MultipleChoiceField(
        choices=EVALUATOR_CHOICES,
        initial=list(DEFAULT_EVALUATORS),
        widget=forms.CheckboxSelectMultiple,
    )

    # The server says in words which column is missing; the browser's own "Please select an
    # item in the list." would say nothing about it.
    use_required_attribute = False

    def __init__(self, *args, columns: list[str], needs_confirmation: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.needs_confirmation = list(needs_confirmation)
        column_choices = [(c, c) for c in columns]
        for field in REQUIRED_FIELDS:
            label = FIELD_LABELS[field]
            self.fields[f"map_{field}"] = forms.ChoiceField(
                choices=[("", "— choose a column —"), *column_choices],
                label=label,
                error_messages={
                    "required": f"Choose the column that holds the {label.lower()}: every "
                    "row needs one to be graded."
                },
            )
        for field in OPTIONAL_FIELDS:
            self.fields[f"map_{field}"] = forms.ChoiceField(
                choices=[("", "— none —"), *column_choices],
                label=FIELD_LABELS[field],
                required=False,
            )
        for field in self.needs_confirmation:
            self.fields[f"confirm_{field}"] = forms.BooleanField(
                label=f"Yes, this column is the {FIELD_LABELS.get(field, field).lower()}",
                error_messages={
                    "required": "This column name is ambiguous: confirm it or choose another."
                },
            )

    def mapping_fields(self):
        """(bound field, its confirmation box or None) for each canonical field, in order."""
        for field in (*REQUIRED_FIELDS, *OPTIONAL_FIELDS):
            confirm = f"confirm_{field}"
            yield self[f"map_{field}"], (self[confirm] if confirm in self.fields else None)

    def clean(self):
        cleaned = super().clean()
        used: dict[str, str] = {}
        for field in (*REQUIRED_FIELDS, *OPTIONAL_FIELDS):
            column = cleaned.get(f"map_{field}")
            if not column:
                continue
            if column in used:
                self.add_error(
                    f"map_{field}",
                    f"Column {column!r} is already mapped to {FIELD_LABELS[used[column]].lower()}.",
                )
            used[column] = field
        return cleaned

    def mapping(self) -> dict[str, str]:
        """Canonical field -> column, only for the fields the user mapped."""
        return {
            field: self.cleaned_data[f"map_{field}"]
            for field in (*REQUIRED_FIELDS, *OPTIONAL_FIELDS)
            if self.cleaned_data.get(f"map_{field}")
        }


class RegradeForm(forms.Form):
    evaluators = forms.MultipleChoiceField(
        choices=EVALUATOR_CHOICES, widget=forms.CheckboxSelectMultiple
    )


class MemberForm(forms.Form):
    """Add a user to a project with a role, or change the role of a member."""

    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Membership.Role.choices)

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(f"There is no active user named “{username}”.")
        return user


class AssignForm(forms.Form):
    """Split a run's review queue: a share for each member who may review (0 leaves them
    out), how many blind reviews each flagged row gets, and which rows."""

    reviews_per_flagged_row = forms.TypedChoiceField(
        choices=[(k, str(k)) for k in range(1, MAX_REVIEWS_PER_FLAGGED_ROW + 1)],
        coerce=int,
        initial=1,
        label="Reviews per flagged row",
        help_text="2 or more: each flagged row goes to that many annotators, who review it "
        "blind; rows where they disagree go to an adjudicator.",
    )
    scope = forms.ChoiceField(choices=Scope.choices, initial=Scope.QUEUE, label="Rows")

    def __init__(self, *args, reviewers, **kwargs):
        """``reviewers``: (user, role) of each member who may review, by name."""
        super().__init__(*args, **kwargs)
        self.reviewers = [user for user, _ in reviewers]
        for user, role in reviewers:
            self.fields[self.share_field(user)] = forms.IntegerField(
                min_value=0,
                max_value=100,
                initial=1 if role == Membership.Role.ANNOTATOR else 0,
                label=f"{user.get_username()} ({role})",
            )

    @staticmethod
    def share_field(user) -> str:
        return f"share_{user.pk}"

    def shares(self) -> dict:
        return {user: self.cleaned_data[self.share_field(user)] for user in self.reviewers}


class ReviewForm(forms.Form):
    verdict = forms.ChoiceField(choices=ReviewVerdict.choices)
    note = forms.CharField(required=False, max_length=5000, widget=forms.Textarea)
    expected_version = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)


class ItemFilterForm(forms.Form):
    """The run table's filters (reviewer.item_filters.ITEM_FILTERS), read from the query
    string."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for spec in ITEM_FILTERS:
            self.fields[spec.name] = _filter_field(spec)


def _filter_field(spec: ItemFilter) -> forms.Field:
    if spec.kind == TEXT:
        return forms.CharField(required=False, max_length=200, label=spec.label)
    choices = [("yes", "yes"), ("no", "no")] if spec.kind == YES_NO else list(spec.choices)
    if spec.any_label:
        choices = [("", spec.any_label), *choices]
    return forms.ChoiceField(choices=choices, required=False, label=spec.label, help_text=spec.help)
