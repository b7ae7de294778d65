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
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from app import __version__
from app.core.errors import InputError
from app.core.memory_tuning import tune_allocator

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2

GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("agreement", ("add_agreement_commands",)),
    ("label", ("add_label_commands",)),
    ("certificate", ("add_certificate_commands",)),
    ("gui", ("add_open_command", "add_demo_command")),
    ("importing", ("add_import_command",)),
    ("keygen", ("add_keygen_command",)),
)
"""Each command group's module under ``app.cli`` and the functions that register its
subcommands, in the order ``accord --help`` lists them."""

COMMANDS: dict[str, tuple[str, str]] = {
    "agreement": ("agreement", "run_agreement"), "compare": ("agreement", "run_compare"),
    "label": ("label", "run_label"), "certificate": ("certificate", "run_certificate"),
    "verify": ("certificate", "run_verify"), "open": ("gui", "run_open"),
    "demo": ("gui", "run_demo"), "import": ("importing", "run_import"),
    "keygen": ("keygen", "run_keygen"),
}
"""Each subcommand's module and handler; no command at all opens the window
(:func:`app.cli.gui.run_gui`). Modules are imported when their command runs: the
agreement command of a small study spent a tenth of its run importing the others (the
window's logging, the importers' registry for ``import``'s help)."""


def _function(module: str, name: str) -> Callable[..., Any]:
    function: Callable[..., Any] = getattr(importlib.import_module(f"app.cli.{module}"), name)
    return function


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors go through the same one-line, exit-2 path."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError(f"{message} (see 'accord --help')")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``command`` (a subcommand's name), only its group's
    subcommands are registered: the same parsing of a command line that starts with it
    (everything after the name goes to its own parser), without importing the others."""
    parser = _Parser(prog="accord", description="Inter-annotator agreement and machine-label "
                     "certification for annotation studies, offline.")
    parser.add_argument("--version", action="version", version=f"accord {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    only = COMMANDS[command][0] if command in COMMANDS else None
    for module, adders in GROUPS:
        if only is None or module == only:
            for adder in adders:
                _function(module, adder)(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    tune_allocator()  # glibc's heap thresholds pinned for the whole process: see its module
    try:
        given = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(given[0] if given else None).parse_args(given)
        if args.command is None:
            return int(_function("gui", "run_gui")(None))
        return int(_function(*COMMANDS[args.command])(args))
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
