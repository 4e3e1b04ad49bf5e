"""``manage.py import_run FILE --project NAME``: a CSV or JSONL file becomes a run, for pipelines."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from grading.reader import CHOSEN_ENCODINGS, EncodingError, IngestError
from reviewer import services


class Command(BaseCommand):
    help = "Import a CSV or JSONL file of model outputs as a run and queue it for grading."
    # Pipelines call this for every file: the system checks (which import every URL and view,
    # about 0.7 s of CPU) check the web site, not an import.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--project", required=True, help="Project name; created if new.")
        parser.add_argument("--name", default="", help="Run name (default: the file name).")
        parser.add_argument("--model", default="", help="Model that wrote the outputs.")
        parser.add_argument("--dataset", default="", help="Benchmark the problems come from.")
        parser.add_argument(
            "--evaluators", default="", help="Comma-separated evaluators (default: all)."
        )
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="FIELD=COLUMN",
            help="Column of a field, e.g. --map gold=answer (repeat); other fields are guessed.",
        )
        parser.add_argument("--delimiter", default=None, help="CSV delimiter (default: detect).")
        parser.add_argument(
            "--encoding",
            default=None,
            choices=CHOSEN_ENCODINGS,
            help="Encoding of a file that is not UTF-8 (default: UTF-8 or its byte-order mark).",
        )
        parser.add_argument(
            "--skip-bad-lines",
            action="store_true",
            help="Leave out rows with a problem (kept on the run) instead of refusing the file.",
        )
        parser.add_argument(
            "--user", default="", help="Username recorded as the uploader (default: none)."
        )

    def handle(self, *args, file: Path, project: str, **options):
        if not file.is_file():
            raise CommandError(f"{file}: no such file")
        overrides = self._mapping(options["map"])
        user = None
        if options["user"]:
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"no user named {options['user']!r}")
        evaluators = [e.strip() for e in options["evaluators"].split(",") if e.strip()] or None
        stored = services.upload_store_path(path=file)
        try:
            uploaded = services.run_upload(
                stored=stored,
                project_name=project,
                user=user,
                mapping=overrides or None,
                guess_other_fields=True,
                name=options["name"] or file.name,
                model_name=options["model"],
                dataset=options["dataset"],
                evaluators=evaluators,
                delimiter=options["delimiter"],
                encoding=options["encoding"],
                skip_bad_lines=options["skip_bad_lines"],
            )
        except IngestError as error:
            hint = ""
            if isinstance(error, EncodingError):
                hint = f"\nIf it is, run again with --encoding {error.suggested}."
            raise CommandError(f"{file}: " + "\n".join(error.problems) + hint) from None
        except (
            services.UnknownEvaluatorsError,
            services.ProjectNameTakenError,
            PermissionDenied,
        ) as error:
            raise CommandError(str(error)) from None
        run = uploaded.run
        if uploaded.duplicate:
            self.stderr.write(f"{file} is already run {run.pk} of project {project}")
        else:
            self.stderr.write(f"run {run.pk}: {run.total_rows} rows queued for grading")
            for skipped in run.skipped_lines:
                self.stderr.write(f"skipped: {skipped['problem']}")
        self.stdout.write(str(run.pk))

    @staticmethod
    def _mapping(pairs: list[str]) -> dict[str, str]:
        mapping = {}
        for pair in pairs:
            field, sep, column = pair.partition("=")
            if not sep or not field.strip() or not column:
                raise CommandError(f"--map {pair!r}: write it as FIELD=COLUMN, e.g. gold=answer")
            mapping[field.strip()] = column
        return mapping
