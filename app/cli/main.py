"""The command line's entry point: build the parser, run the command, map errors to exits.

Exit status (``cli.md``): 0 success; 1 a check failed; 2 bad input, with one line on
stderr naming the file, line or key and what was expected, and no traceback.

Each command group lives in its own module and registers its subcommands here:
:mod:`app.cli.agreement` (agreement, compare), :mod:`app.cli.label` (label ...),
:mod:`app.cli.certificate` (certificate, verify), :mod:`app.cli.keygen` (keygen),
:mod:`app.cli.gui` (plain ``accord``, open, demo). The core (numpy, scipy, the
contracts) is imported inside the commands, not at the top: plain ``accord`` must paint
its window without waiting for scipy (it imports the core on a worker after the first
paint), and ``accord --help`` should be instant.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from app import __version__
from app.cli.agreement import add_agreement_commands, run_agreement, run_compare
from app.cli.certificate import add_certificate_commands, run_certificate, run_verify
from app.cli.gui import add_demo_command, add_open_command, run_demo, run_gui, run_open
from app.cli.importing import add_import_command, run_import
from app.cli.keygen import add_keygen_command, run_keygen
from app.cli.label import add_label_commands, run_label
from app.core.errors import InputError

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "agreement": run_agreement, "compare": run_compare, "label": run_label,
    "certificate": run_certificate, "verify": run_verify, "open": run_open,
    "demo": run_demo, "import": run_import, "keygen": run_keygen,
}
"""Each subcommand's handler; no command at all opens the window (:func:`run_gui`)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same one-line, exit-2 path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{message} (see 'accord --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="accord", description="Inter-annotator agreement and machine-label "
                     "certification for annotation studies, offline.")
    parser.add_argument("--version", action="version", version=f"accord {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    add_agreement_commands(commands)
    add_label_commands(commands)
    add_certificate_commands(commands)
    add_open_command(commands)
    add_demo_command(commands)
    add_import_command(commands)
    add_keygen_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command is None:
            return run_gui(None)
        return COMMANDS[args.command](args)
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
