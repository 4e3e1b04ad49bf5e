"""``manage.py generate_run PROBLEMS_FILE --project NAME --base-url URL --model MODEL``: a
problem file becomes a problem set and a generated run; prints ``run <id>``. With ``--resume
RUN_ID`` it asks only for the pairs still missing. ``--wait`` blocks until generation and
grading are done. The output contract is relied on by scripts: keep it."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.exceptions import PermissionDenied
from django.core.management.base import BaseCommand, CommandError

from grading.reader import IngestError
from reviewer.generation_report import generation_report
from reviewer.models import GenerationJob, Run
from reviewer.services import endpoints, generation, problem_sets
from reviewer.services.members import ProjectNameTakenError
from reviewer.services.upload_store import upload_store_path


class Command(BaseCommand):
    help = "Generate a run from an OpenAI-compatible server, then grade it."

    def add_arguments(self, parser):
        parser.add_argument("problems_file", nargs="?", type=Path)
        parser.add_argument("--resume", type=int, metavar="RUN_ID", help="Resume this run.")
        parser.add_argument("--project", help="Project name; created if new.")
        parser.add_argument("--base-url", help="e.g. http://127.0.0.1:8000/v1")
        parser.add_argument("--model", help="Model name the server knows.")
        parser.add_argument("--name", default="", help="Run name.")
        parser.add_argument("--samples", type=int, default=1, help="Samples per problem.")
        parser.add_argument("--concurrency", type=int, default=8, help="Requests in flight.")
        parser.add_argument(
            "--template", default="math", help="math, yesno, or a file holding {problem}."
        )
        parser.add_argument("--system-prompt", default="")
        parser.add_argument("--max-tokens", type=int, default=None)
        parser.add_argument("--temperature", type=float, default=None)
        parser.add_argument("--top-p", type=float, default=None)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--stop", action="append", default=[], help="A stop string (repeat).")
        parser.add_argument("--timeout", type=float, default=120.0, help="Seconds per request.")
        parser.add_argument(
            "--api-key-env", default="", help="Environment variable holding the API key."
        )
        parser.add_argument("--evaluators", default="", help="Comma-separated (default: all).")
        parser.add_argument("--wait", action="store_true", help="Block until graded.")

    def handle(self, *args, problems_file: Path | None, **options):
        if options["resume"] is not None:
            if problems_file is not None:
                raise CommandError("give either PROBLEMS_FILE or --resume RUN_ID, not both")
            run = self._resume(options["resume"])
        else:
            run = self._start(problems_file, options)
        self.stdout.write(f"run {run.pk}")
        self.stdout.flush()
        if options["wait"]:
            self._wait(run)

    def _start(self, problems_file: Path | None, options) -> Run:
        missing = [
            flag
            for flag, key in (
                ("--project", "project"),
                ("--base-url", "base_url"),
                ("--model", "model"),
            )
            if not options[key]
        ]
        if problems_file is None or missing:
            raise CommandError(
                "usage: generate_run PROBLEMS_FILE --project NAME --base-url URL --model MODEL "
                f"(missing: {', '.join(['PROBLEMS_FILE'] * (problems_file is None) + missing)})"
            )
        if not problems_file.is_file():
            raise CommandError(f"{problems_file}: no such file")
        template = options["template"]
        if template not in ("math", "yesno"):
            path = Path(template)
            if not path.is_file():
                raise CommandError(f"--template {template}: not math, yesno or a file")
            template = path.read_text("utf-8")
        evaluators = [e.strip() for e in options["evaluators"].split(",") if e.strip()] or None
        stored = upload_store_path(path=problems_file)
        try:
            uploaded = problem_sets.problem_set_upload(
                stored=stored, project_name=options["project"], user=None
            )
            endpoint = endpoints.endpoint_for_command(
                project=uploaded.problem_set.project,
                base_url=options["base_url"],
                model=options["model"],
                api_key_env=options["api_key_env"],
            )
            return generation.generation_start(
                problem_set=uploaded.problem_set,
                endpoint=endpoint,
                user=None,
                name=options["name"],
                model=options["model"],
                options=generation.GenerationOptions(
                    template=template,
                    system_prompt=options["system_prompt"],
                    temperature=options["temperature"],
                    top_p=options["top_p"],
                    max_tokens=options["max_tokens"],
                    seed=options["seed"],
                    stop=tuple(options["stop"]),
                    samples=options["samples"],
                    timeout_s=options["timeout"],
                    concurrency=options["concurrency"],
                    evaluators=evaluators,
                ),
            )
        except IngestError as error:
            raise CommandError(f"{problems_file}: " + "\n".join(error.problems)) from None
        except (
            endpoints.EndpointSetupError,
            generation.GenerationSetupError,
            ProjectNameTakenError,
            PermissionDenied,
        ) as error:
            raise CommandError(str(error)) from None

    def _resume(self, run_id: int) -> Run:
        run = Run.objects.filter(pk=run_id).first()
        if run is None or not GenerationJob.objects.filter(run=run).exists():
            raise CommandError(f"run {run_id} does not exist or was not generated")
        generation.generation_resume(run=run, user=None)
        return run

    def _wait(self, run: Run) -> None:
        """A progress line on stderr until generation has stopped and every row is graded."""
        while True:
            run.refresh_from_db()
            report = generation_report(run=run)
            graded_all = run.status in (Run.Status.DONE, Run.Status.FAILED)
            bar = "#" * (report.percent // 5)
            self.stderr.write(
                f"\r[{bar:<20}] {report.pairs_done}/{report.pairs_total} generated, "
                f"{report.graded} graded, {report.status_label}   ",
                ending="",
            )
            self.stderr.flush()
            if not report.active and graded_all:
                break
            time.sleep(1)
        self.stderr.write("")
        if report.error_message:
            self.stderr.write(report.error_message)
        if report.status != GenerationJob.Status.DONE:
            raise CommandError(f"run {run.pk}: generation {report.status_label}")
