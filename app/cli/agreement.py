"""``accord agreement`` and ``accord compare``: the agreement report, as text or JSON.

Both share the set options (``--threshold``, ``--budget``, ``--seed``, ``--truth``); the
report is computed by :func:`app.core.agreement.report.agreement_report` and formatted
by :mod:`app.report` (text, or ``-o FILE`` as CSV, JSON or HTML).

``accord agreement PROJECT --consensus FILE.jsonl [--consensus-method majority|dawid_skene]``
writes the consensus of every scheme (:mod:`app.core.agreement.consensus`) to FILE,
atomically and never inside the project, and prints one line saying what it wrote; the
report itself is then printed only when asked for (``--json`` or ``-o``). The target is
checked before the project is read, so bad input writes nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.progress import with_bar
from app.core.errors import InputError

if TYPE_CHECKING:
    from app.core.agreement.consensus.export import Consensus
    from app.core.agreement.result import AgreementReport
    from app.core.agreement.sets.structured import SetOptions
    from app.core.progress import Job

DEFAULT_BUDGET = 200_000
"""The comparison budget's default (``app.core.agreement.sets.agreement.DEFAULT_BUDGET``;
a test keeps the two equal without importing the core here)."""
CONSENSUS_METHODS = ("majority", "dawid_skene")
"""``app.core.agreement.consensus.categorical.METHODS``, kept equal by a test."""


def add_agreement_commands(commands: Any) -> None:
    """Register ``agreement`` and ``compare`` on the CLI's subcommands."""
    agreement = commands.add_parser("agreement", help="agreement report of a project")
    agreement.add_argument("project", type=Path, help="Potato project folder")
    agreement.add_argument("--json", action="store_true", help="print the report as JSON")
    agreement.add_argument("--scheme", help="only this scheme")
    agreement.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="write the report to FILE instead: .csv, .json or .html "
        "(the format follows the suffix)",
    )
    agreement.add_argument(
        "--consensus",
        type=Path,
        metavar="FILE.jsonl",
        help="write the consensus of every scheme (majority or "
        "Dawid-Skene labels, STAPLE masks, matched objects, with "
        "who agreed) to FILE.jsonl, outside the project",
    )
    agreement.add_argument(
        "--consensus-method",
        choices=CONSENSUS_METHODS,
        default=None,
        help="how categorical answers are combined (default majority; "
        "ties are named, never broken)",
    )
    _set_options(agreement)

    compare = commands.add_parser("compare", help="two pilot rounds side by side")
    compare.add_argument("project_a", type=Path, help="the earlier round's project folder")
    compare.add_argument("project_b", type=Path, help="the later round's project folder")
    compare.add_argument("--json", action="store_true", help="print JSON")
    _set_options(compare)


def _set_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="SCHEME=IOU",
        help="matching threshold for one scheme (repeatable); defaults: "
        "cuboids 0.25, segments, tiers and regions 0.5",
    )
    parser.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        help="comparison budget: object comparisons at most (default "
        f"{DEFAULT_BUDGET:,}); items over it are skipped whole",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=20261129,
        help="seed for resampling (bootstrap intervals, chance baselines)",
    )
    parser.add_argument(
        "--truth",
        metavar="ANNOTATOR",
        help="an annotator whose masks are the known truth: left out of "
        "STAPLE, and Dice of consensus and majority vote reported",
    )


def _options(args: argparse.Namespace) -> SetOptions:
    from app.core.agreement.sets.structured import SetOptions

    thresholds: dict[str, float] = {}
    for text in args.threshold:
        name, sep, value = text.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if not sep or not name or not 0.0 < number <= 1.0:
            raise InputError(
                f"expected SCHEME=IOU with IOU in (0, 1], found '{text}'", key="--threshold"
            )
        thresholds[name] = number
    if args.budget < 0:
        raise InputError(f"expected a comparison budget ≥ 0, found {args.budget}", key="--budget")
    return SetOptions(thresholds=thresholds, budget=args.budget, seed=args.seed, truth=args.truth)


def run_agreement(args: argparse.Namespace) -> int:
    """``accord agreement PROJECT``: the report printed, or written to ``-o FILE``.

    The report's formatters are imported only when used: ``--json`` needs none of them
    (their imports were a tenth of a second of a small study's run)."""
    options = _options(args)
    output: Path | None = args.output
    fmt = None
    if output is not None:
        from app.report.agreement_export import format_for

        fmt = format_for(output)  # a bad suffix fails first
    consensus: Path | None = args.consensus
    if consensus is None and args.consensus_method is not None:
        raise InputError(
            "--consensus-method needs --consensus FILE.jsonl", key="--consensus-method"
        )
    if consensus is not None:
        _write_consensus(args, consensus, options, quiet=output is None and not args.json)
        if output is None and not args.json:
            return 0
    report = with_bar(report_job(args.project, args.scheme, str(args.project), options))
    if output is not None:
        from app.report.agreement_export import write_report

        write_report(report, output, fmt)
        print(f"wrote {fmt} report to {output}")
    elif args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        from app.report.agreement_text import render

        sys.stdout.write(render(report))
    return 0


def _write_consensus(
    args: argparse.Namespace, path: Path, options: SetOptions, quiet: bool
) -> None:
    """Check the target, compute the consensus, write it; one line on what was written
    (on stderr when stdout carries the report)."""
    from app.core.agreement.consensus.export import check_method
    from app.core.agreement.consensus.writer import check_output, write_consensus

    method = args.consensus_method or "majority"
    check_method(method)
    check_output(path, args.project)
    result = with_bar(consensus_job(args.project, args.scheme, method, options))
    write_consensus(result.rows, path, args.project)
    line = (
        f"wrote the {method} consensus to {path}: {len(result.rows)} rows, "
        f"{result.n_decided} with a consensus"
    )
    print(line, file=sys.stdout if quiet else sys.stderr)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)


def consensus_job(
    project: Path, scheme: str | None, method: str, options: SetOptions | None = None
) -> Job[Consensus]:
    """Read the Potato project at ``project`` and compute its consensus rows."""
    from app.core.agreement.consensus.export import consensus_job as job
    from app.core.formats.potato.project import read_potato
    from app.core.progress import scaled

    study = yield from scaled(read_potato(project, whole_files=True), 0, 40, 100)
    return (
        yield from scaled(job(study, method=method, scheme=scheme, options=options), 40, 100, 100)
    )


def report_job(
    project: Path, scheme: str | None, shown: str, options: SetOptions | None = None
) -> Job[AgreementReport]:
    """Read the Potato project at ``project`` and compute its agreement report."""
    from app.core.agreement.report import agreement_report
    from app.core.formats.potato.project import read_potato
    from app.core.progress import scaled

    study = yield from scaled(read_potato(project, whole_files=True), 0, 40, 100)
    job = agreement_report(study, project=shown, scheme=scheme, options=options)
    return (yield from scaled(job, 40, 100, 100))


def run_compare(args: argparse.Namespace) -> int:
    """``accord compare A B``: two pilot rounds side by side."""
    from app.core.agreement.compare import compare
    from app.report.agreement_text import render_comparison

    options = _options(args)
    a, b = args.project_a, args.project_b
    first = with_bar(report_job(a, None, str(a), options))
    second = with_bar(report_job(b, None, str(b), options))
    comparison = compare(first, second)
    if args.json:
        print(json.dumps(comparison.to_json(), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write(render_comparison(comparison))
    return 0
