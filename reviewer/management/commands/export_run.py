"""``manage.py export_run RUN_ID --format jsonl -o FILE``: the adjudicated dataset, for pipelines.

Writes in this process (no worker needed) from one snapshot of the run, with the gold errata
and the dataset card beside FILE.
"""

import shutil
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from reviewer.models import Export, ReviewVerdict, Run
from reviewer.selectors import ItemFilters
from reviewer.services import exports


class Command(BaseCommand):
    help = "Export a run's adjudicated rows as CSV, JSONL or Parquet, with its dataset card."

    def add_arguments(self, parser):
        parser.add_argument("run_id", type=int)
        parser.add_argument("--format", required=True, choices=Export.Format.values)
        parser.add_argument("-o", "--output", required=True, type=Path, help="File to write.")
        parser.add_argument(
            "--variant",
            default=Export.Variant.RAW,
            choices=Export.Variant.values,
            help="CSV only: raw (byte-exact, default) or spreadsheet (formulas neutralised).",
        )
        parser.add_argument("--reviewed", action="store_true", help="Only rows a person decided.")
        parser.add_argument("--flagged", action="store_true", help="Only rows flagged for review.")
        parser.add_argument(
            "--verdict",
            default="",
            choices=ReviewVerdict.values,
            help="Only rows with this final verdict.",
        )

    def handle(self, *args, run_id: int, output: Path, **options):
        run = Run.objects.filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"there is no run {run_id}")
        filters = ItemFilters(
            reviewed=True if options["reviewed"] else None,
            needs_review=True if options["flagged"] else None,
            verdict=options["verdict"],
        )
        job = exports.export_start(
            run=run,
            user=None,
            format=options["format"],
            variant=options["variant"],
            filters=filters,
        )
        job = exports.export_write(export_id=job.pk)
        output.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(exports.export_path(job, "data"), output)
        stem = output.with_suffix("")
        shutil.copyfile(exports.export_path(job, "card.md"), f"{stem}.card.md")
        shutil.copyfile(exports.export_path(job, "card.json"), f"{stem}.card.json")
        written = [output, Path(f"{stem}.card.md"), Path(f"{stem}.card.json")]
        if job.errata_file_name:
            errata = Path(f"{stem}.gold-errata{output.suffix}")
            shutil.copyfile(exports.export_path(job, "errata"), errata)
            written.append(errata)
        self.stderr.write(f"{job.rows_done} rows; wrote " + ", ".join(str(p) for p in written))
