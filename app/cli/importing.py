"""``accord import FORMAT SOURCE... -o PROJECT [--annotator NAME]...`` (``cli.md``).

Reads another tool's export with the importer of FORMAT
(:mod:`app.core.formats.importers.registry`) and writes PROJECT as a Potato-layout
project (:mod:`app.core.formats.importers.writer`), then prints what was imported and
what the format could not carry. Bad input is one line and exit 2, with no PROJECT left
behind.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_import_command(commands: Any) -> None:
    """Register ``import`` on the CLI's subcommands."""
    from app.core.formats.importers.registry import FORMATS

    parser = commands.add_parser("import", help="another tool's export as a Potato project")
    parser.add_argument("format", metavar="FORMAT", help=f"one of {', '.join(FORMATS)}")
    parser.add_argument("sources", nargs="+", type=Path, metavar="SOURCE",
                        help="the export's files or folders (one per annotator where the "
                             "format does not say who annotated)")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="PROJECT",
                        help="the new project folder (must not exist, or be empty)")
    parser.add_argument("--annotator", action="append", default=[], metavar="NAME",
                        help="the annotator of the SOURCE in the same position")


def summary(study: Any, project: Path) -> str:
    """What was written, in a few lines."""
    objects = {name: len(items) for name, items in study.answers.items()}
    lines = [f"wrote {project}: {len(study.items)} items, {len(study.schemes)} schemes "
             f"({', '.join(f'{s.name} ({s.annotation_type})' for s in study.schemes)}), "
             f"{len(study.answers)} annotators"]
    lines += [f"  {name}: answers on {n} items" for name, n in objects.items()]
    lines += [f"  note: {note}" for note in study.notes]
    return "\n".join(lines)


def run_import(args: argparse.Namespace) -> int:
    from app.core.formats.importers.registry import read_study
    from app.core.formats.importers.writer import write_project

    study = read_study(args.format, args.sources, args.annotator)
    write_project(study, args.output)
    print(summary(study, args.output))
    return 0
