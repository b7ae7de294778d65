"""The GUI doors of the command line: ``accord``, ``accord open`` and ``accord demo``.

- ``accord`` (no command): the window on the last project, or the bundled demo.
- ``accord open PROJECT [--screenshot FILE.png] [--view VIEW] [--item ID] [--size WxH]``:
  the window on that project; with ``--screenshot`` it renders to a PNG and exits
  (:mod:`app.ui.screenshot`), exit status 2 and one line for a bad project, as every
  other command.
- ``accord demo`` without ``--json`` or ``--export``: the window on the default demo
  (``DEFAULT_DEMO``); File > Open demo lists the others.

Qt is imported only here, inside the functions, so the text commands never load it.

Choices where the spec is silent: ``--size`` defaults to 1280x800; a bad project given
to ``accord open`` without ``--screenshot`` still opens the window (empty) and shows the
error in the dialog, as opening it from the menu would.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.paths import demo_studies

DEFAULT_DEMO = "support_triage"
DEFAULT_SIZE = (1280, 800)


def add_open_command(commands: Any) -> None:
    """Register ``open`` on the CLI's subcommands."""
    parser = commands.add_parser("open", help="the desktop app on a project folder")
    parser.add_argument("project", type=Path, help="Potato project folder")
    parser.add_argument("--screenshot", type=Path, metavar="FILE.png",
                        help="render to a PNG and exit (no window shown)")
    parser.add_argument("--view", help="the view to render: overview, items, cuboids, tiers, "
                                       "traces, regions, masks, contracts (default: the "
                                       "whole window)")
    parser.add_argument("--item", metavar="ID", help="select this item first")
    parser.add_argument("--size", default="x".join(map(str, DEFAULT_SIZE)), metavar="WxH",
                        help="size of the PNG in pixels (default 1280x800)")


def parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*", text)
    if match is None or min(int(match[1]), int(match[2])) < 16:
        raise InputError(f"expected WxH in pixels (each at least 16), found '{text}'",
                         key="--size")
    return int(match[1]), int(match[2])


def default_demo() -> Path:
    studies = demo_studies()
    if not studies:
        raise InputError("the bundled demo studies are missing from this installation",
                         file="resources/demo")
    return studies.get(DEFAULT_DEMO, next(iter(studies.values())))


def run_open(args: argparse.Namespace) -> int:
    from app.ui.views.base import VIEW_NAMES

    project: Path = args.project
    if args.view is not None and args.view not in VIEW_NAMES:
        raise InputError(f"expected one of {', '.join(VIEW_NAMES)}, found '{args.view}'",
                         key="--view")
    width, height = parse_size(args.size)
    if not project.is_dir():
        raise InputError("expected a project folder (with config.yaml)", file=project)
    if args.screenshot is None:
        return run_gui(project)
    from PySide6.QtCore import QSize

    from app.ui.app import create_application
    from app.ui.screenshot import take_screenshot

    # Bad input is the one line printed by the CLI; only unexpected errors are logged.
    logging.basicConfig(level=logging.ERROR, format="accord: %(name)s: %(message)s")
    app = create_application()
    take_screenshot(app, project, args.screenshot, view=args.view, item=args.item,
                    size=QSize(width, height))
    print(args.screenshot)
    return 0


def run_gui(project: Path | None) -> int:
    """The window on ``project``, else the last project, else the default demo."""
    from app.ui.app import create_application
    from app.ui.main_window import MainWindow
    from app.ui.settings import Settings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    app = create_application()
    settings = Settings()
    if project is None:
        project = settings.last_project() or default_demo()
    window = MainWindow(settings)
    window.show()
    window.open_path(project)
    return int(app.exec())
