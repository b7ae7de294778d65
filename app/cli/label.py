"""``accord label status | certify | migrate-config | export`` (argument parsing only).

Exit status (``cli.md``, ``contracts.md``): 0 whatever the contracts' states; 1 only for
a damaged ledger (status reports it, certify refuses to test until
``--acknowledge-ledger``); 2 for bad input, and for a certify that could not run now:
another certify holds the project's lock (``ledger/lock.py``, an ``InputError``), or a
look was recorded meanwhile by a writer that ignores the lock (``LookConflictError``).
Each is one line on stderr, never a traceback, and the acknowledge hint is given once.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.core.contracts.label_report import LabelReport

EXIT_LEDGER = 1
EXIT_BAD_INPUT = 2


def add_label_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    label = commands.add_parser("label", help="machine labels certified against people")
    sub = label.add_subparsers(dest="label_command", required=True,
                               parser_class=type(label))
    status = sub.add_parser("status", help="every contract's state (never spends a look)")
    status.add_argument("project", type=Path)
    status.add_argument("--json", action="store_true")
    certify = sub.add_parser("certify", help="test the contracts that are due")
    certify.add_argument("project", type=Path)
    certify.add_argument("--retest", action="store_true",
                         help="test the rule dev now chooses, at the next look")
    certify.add_argument("--contract", metavar="ID", help="test only this contract")
    certify.add_argument("--acknowledge-ledger", action="store_true",
                         help="record the ledger's damage as an event and carry on")
    certify.add_argument("--json", action="store_true")
    migrate = sub.add_parser("migrate-config", help="icl_labeling → labeling/engine.yaml")
    migrate.add_argument("project", type=Path)
    export = sub.add_parser("export", help="one line per item and schema with its status")
    export.add_argument("project", type=Path)
    export.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.jsonl")
    export.add_argument("--training", type=Path, metavar="FILE.jsonl",
                        help="also write verification and outside labels as training data")


def run_label(args: argparse.Namespace) -> int:
    # Imported here, not at the top: `accord --help` and the GUI's launch skip the core.
    from app.core.atomic import write_atomically
    from app.core.contracts.config.migrate import migrate_config
    from app.core.contracts.label_report import label_report
    from app.core.contracts.ledger.chain import LedgerDamagedError, LookConflictError
    from app.core.formats.potato.project import load_study

    command = args.label_command
    if command == "migrate-config":
        target = migrate_config(args.project, load_study(args.project))
        print(f"wrote {target}")
        return 0
    try:
        report = label_report(args.project, certify=command == "certify",
                              retest=getattr(args, "retest", False),
                              only=getattr(args, "contract", None),
                              acknowledge_ledger=getattr(args, "acknowledge_ledger", False))
    except LedgerDamagedError as damage:
        print(f"accord: ledger damaged: {damage}", file=sys.stderr)  # the hint is in it
        return EXIT_LEDGER
    except LookConflictError as conflict:
        print(f"accord: error: {conflict}; nothing was recorded", file=sys.stderr)
        return EXIT_BAD_INPUT
    if command == "export":
        for path, rows in ((args.output, report.export()),
                           (args.training, report.training() if args.training else None)):
            if path is None or rows is None:
                continue
            text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                           for r in rows)
            write_atomically(path, text.encode("utf-8"))
            print(f"wrote {len(rows)} lines to {path}")
        return 0
    _print(report, as_json=args.json)
    if not report.ledger.get("ok", True):
        print(f"accord: ledger damaged: {report.ledger.get('problem')}; `accord label certify "
              "--acknowledge-ledger` records the damage and carries on from the intact lines",
              file=sys.stderr)
        return EXIT_LEDGER
    return 0


def _print(report: LabelReport, *, as_json: bool) -> None:
    data = report.to_json()
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))
        return
    for ident, entry in data["contracts"].items():
        print(f"{ident:<24} {entry['kind']:<20} {entry['schema']:<16} {entry['state']:<12} "
              f"looks {entry['looks']}  level spent {entry['level_spent']:.4f}")
        if "potato" in entry:
            record = entry["potato"]
            audit = entry.get("audit") or {}
            verdict = f" · {audit['verdict']}" if audit.get("verdict") else ""
            print("  Potato recorded: " + ("nothing (never evaluated)" if record is None else
                                           f"{record['state']} at look {record['looks']}")
                  + verdict)
            for difference in audit.get("differences", []):
                print(f"    audit: {difference}")
        for note in entry["notes"]:
            print(f"  note: {note}")
    for schema, accepted in data["accepted"].items():
        by = ", ".join(f"{k} {v}" for k, v in accepted["by_source"].items()) or "none"
        print(f"accepted on {schema}: {by}")
        if "resolved" in accepted:
            resolved = ", ".join(f"{k} {v}" for k, v in accepted["resolved"].items())
            print(f"  Potato's resolved labels on {schema}: {resolved or 'none'}")
    for note in data.get("notes", []):
        print(f"note: {note}")
    if data["unsupported_schemas"]:
        print("unsupported schemas: " + ", ".join(data["unsupported_schemas"]))



