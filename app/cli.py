"""The command line: argument parsing only; the core computes, ``app.report`` formats.

Exit status (``cli.md``): 0 success; 1 a check failed; 2 bad input, with one line on
stderr naming the file, line or key and what was expected, and no traceback.

The core (numpy, scipy, the contracts) is imported inside the commands, not at the top:
plain ``accord`` must paint its window without waiting for scipy (it imports the core on
a worker after the first paint), and ``accord --help`` should be instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app import __version__
from app.cli_certificate import add_certificate_commands, run_certificate, run_verify
from app.cli_label import add_label_commands, run_label
from app.cli_open import add_open_command, default_demo, run_gui, run_open
from app.core.errors import InputError

if TYPE_CHECKING:
    from app.core.agreement.result import AgreementReport
    from app.core.agreement.structured import SetOptions
    from app.core.progress import Job, T

DEFAULT_BUDGET = 200_000
"""The comparison budget's default (``app.core.agreement.sets.DEFAULT_BUDGET``; a test keeps
the two equal without importing the core here)."""

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same one-line, exit-2 path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{message} (see 'accord --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="accord", description="Inter-annotator agreement and machine-label "
                     "certification for annotation studies, offline.")
    parser.add_argument("--version", action="version", version=f"accord {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)

    agreement = commands.add_parser("agreement", help="agreement report of a project")
    agreement.add_argument("project", type=Path, help="Potato project folder")
    agreement.add_argument("--json", action="store_true", help="print JSON (cli.md)")
    agreement.add_argument("--scheme", help="only this scheme")
    agreement.add_argument("-o", "--output", type=Path, metavar="FILE",
                           help="write the report to FILE instead: .csv, .json or .html "
                                "(the format follows the suffix)")
    _set_options(agreement)

    compare = commands.add_parser("compare", help="two pilot rounds side by side")
    compare.add_argument("project_a", type=Path, help="the earlier round's project folder")
    compare.add_argument("project_b", type=Path, help="the later round's project folder")
    compare.add_argument("--json", action="store_true", help="print JSON")
    _set_options(compare)

    add_label_commands(commands)
    add_certificate_commands(commands)
    add_open_command(commands)

    demo = commands.add_parser("demo", help="the desktop app on the bundled demo study "
                               "(--json: the report; --export: the project folders)")
    demo.add_argument("--export", type=Path, metavar="DIR",
                      help="write the demo projects to DIR/<study>/ instead")
    demo.add_argument("--json", action="store_true", help="print JSON (cli.md)")
    return parser


def _set_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--threshold", action="append", default=[], metavar="SCHEME=IOU",
                        help="matching threshold for one scheme (repeatable); defaults: "
                             "cuboids 0.25, segments, tiers and regions 0.5")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help="comparison budget: object comparisons at most (default "
                             f"{DEFAULT_BUDGET:,}); items over it are skipped whole")
    parser.add_argument("--seed", type=int, default=20261129,
                        help="seed for resampling (bootstrap intervals, chance baselines)")
    parser.add_argument("--truth", metavar="ANNOTATOR",
                        help="an annotator whose masks are the known truth: left out of "
                             "STAPLE, and Dice of consensus and majority vote reported")


def _options(args: argparse.Namespace) -> SetOptions:
    from app.core.agreement.structured import SetOptions

    thresholds: dict[str, float] = {}
    for text in args.threshold:
        name, sep, value = text.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not sep or not name or not 0.0 < number <= 1.0:
            raise InputError(f"expected SCHEME=IOU with IOU in (0, 1], found '{text}'",
                             key="--threshold")
        thresholds[name] = number
    if args.budget < 0:
        raise InputError(f"expected a comparison budget ≥ 0, found {args.budget}",
                         key="--budget")
    return SetOptions(thresholds=thresholds, budget=args.budget, seed=args.seed,
                      truth=args.truth)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "agreement":
            return _agreement(args.project, as_json=args.json, scheme=args.scheme,
                              shown=str(args.project), options=_options(args),
                              output=args.output)
        if args.command == "label":
            return run_label(args)
        if args.command == "certificate":
            return run_certificate(args)
        if args.command == "verify":
            return run_verify(args)
        if args.command == "open":
            return run_open(args)
        if args.command is None:
            return run_gui(None)
        if args.command == "demo" and args.export is None and not args.json:
            return run_gui(default_demo())
        if args.command == "compare":
            return _compare(args.project_a, args.project_b, as_json=args.json,
                            options=_options(args))
        return _demo(getattr(args, "export", None), as_json=getattr(args, "json", False))
    except InputError as error:
        print(f"accord: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader of our output went away (``accord ... | head``): not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        print("accord: interrupted", file=sys.stderr)
        return 130


def _with_bar(job: Job[T]) -> T:
    from app.core.progress import run
    from app.report.progress_bar import ProgressBar

    bar = ProgressBar(sys.stderr)
    try:
        return run(job, bar)
    finally:
        bar.close()


def _agreement(project: Path, *, as_json: bool, scheme: str | None, shown: str,
               options: SetOptions, output: Path | None = None) -> int:
    from app.report.agreement_export import format_for, write_report
    from app.report.agreement_text import render

    fmt = format_for(output) if output is not None else None  # a bad suffix fails first
    report = _with_bar(_report_job(project, scheme, shown, options))
    if output is not None:
        write_report(report, output, fmt)
        print(f"wrote {fmt} report to {output}")
    elif as_json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write(render(report))
    return EXIT_OK


def _report_job(project: Path, scheme: str | None, shown: str,
                options: SetOptions | None = None) -> Job[AgreementReport]:
    from app.core.agreement.report import agreement_report
    from app.core.formats.potato import read_potato
    from app.core.progress import scaled

    study = yield from scaled(read_potato(project), 0, 40, 100)
    job = agreement_report(study, project=shown, scheme=scheme, options=options)
    return (yield from scaled(job, 40, 100, 100))


def _compare(a: Path, b: Path, *, as_json: bool, options: SetOptions) -> int:
    from app.core.agreement.compare import compare
    from app.report.agreement_text import render_comparison

    first = _with_bar(_report_job(a, None, str(a), options))
    second = _with_bar(_report_job(b, None, str(b), options))
    comparison = compare(first, second)
    if as_json:
        print(json.dumps(comparison.to_json(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write(render_comparison(comparison))
    return EXIT_OK


def _demo(export: Path | None, *, as_json: bool) -> int:
    from app.demo import export_demo
    from app.paths import demo_studies
    from app.report.agreement_text import render

    studies = demo_studies()
    if not studies:
        raise InputError("the bundled demo studies are missing from this installation",
                         file="resources/demo")
    if export is not None:
        for name, path in export_demo(studies, export).items():
            print(f"{name}: {path}")
        return EXIT_OK
    reports = {name: _with_bar(_report_job(path, None, f"demo:{name}"))
               for name, path in studies.items()}
    if as_json:
        documents = {name: r.to_json() for name, r in reports.items()}
        single = next(iter(documents.values())) if len(documents) == 1 else documents
        print(json.dumps(single, indent=2, ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write("\n".join(render(r) for r in reports.values()))
    return EXIT_OK
