"""The GUI doors of the command line: ``accord``, ``accord open`` and ``accord demo``.

- ``accord`` (no command): the window on the last project, or the bundled demo.
- ``accord open PROJECT [--screenshot FILE.png] [--view VIEW] [--item ID] [--size WxH]
  [--presentation]``: the window on that project (``--presentation``: in presentation
  mode, :mod:`app.ui.presentation`, also in the PNG); with ``--screenshot`` it renders
  to a PNG and exits (:mod:`app.ui.screenshot`), exit status 2 and one line for a bad
  project, as every other command.
- ``accord demo`` without ``--json`` or ``--export``: the window on the default demo
  (``DEFAULT_DEMO``); File > Open demo lists the others.

Qt is imported only here, inside the functions, so the text commands never load it.

Choices where the spec is silent: ``--size`` defaults to 1280x800; a bad project given
to ``accord open`` without ``--screenshot`` still opens the window (empty) and shows the
error in the dialog, as opening it from the menu would. ``--screenshot`` with no display
uses Qt's offscreen platform, and so does one where a window could not open (the
missing xcb libraries or X server said in one line). A window that cannot open (no
display, no X server there, or a system library Qt's xcb platform needs is missing:
:mod:`app.platform_check`) is one line and exit 2.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
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
                                       "traces, regions, masks, contracts, answers, spans, "
                                       "numbers, rankings, matrices, volumes, tracks "
                                       "(default: the whole "
                                       "window)")
    parser.add_argument("--item", metavar="ID", help="select this item first")
    parser.add_argument("--size", default="x".join(map(str, DEFAULT_SIZE)), metavar="WxH",
                        help="size of the PNG in pixels (default 1280x800)")
    parser.add_argument("--presentation", action="store_true",
                        help="start in presentation mode: full screen, annotators as A, B, "
                             "C, large type, the item with the most disagreement first")


def add_demo_command(commands: Any) -> None:
    """Register ``demo`` on the CLI's subcommands."""
    demo = commands.add_parser("demo", help="the desktop app on the bundled demo study "
                               "(--json: the report; --export: the project folders)")
    demo.add_argument("--export", type=Path, metavar="DIR",
                      help="write the demo projects to DIR/<study>/ instead")
    demo.add_argument("--json", action="store_true",
                      help="print the demo's agreement report as JSON")


def parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d{1,5})\s*[xX×]\s*(\d{1,5})\s*", text)
    if match is None or min(int(match[1]), int(match[2])) < 16:
        raise InputError(f"expected WxH in pixels (each at least 16), found '{text}'",
                         key="--size")
    return int(match[1]), int(match[2])


def _demo_studies() -> dict[str, Path]:
    studies = demo_studies()
    if not studies:
        raise InputError("the bundled demo studies are missing from this installation",
                         file="resources/demo")
    return studies


def default_demo() -> Path:
    studies = _demo_studies()
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
    presentation = bool(getattr(args, "presentation", False))
    if args.screenshot is None:
        return run_gui(project, presentation=presentation)
    from app.platform_check import screenshot_platform, window_problem

    # A picture needs no display: headless, or where the display's xcb platform cannot
    # load (libraries, no X server), it is rendered offscreen (the 3D view then says it
    # needs OpenGL) with one line saying why, never Qt's abort (exit 134).
    platform, note = screenshot_platform()
    if platform is not None:
        os.environ["QT_QPA_PLATFORM"] = platform
    if note is not None:
        print(f"accord: note: {note}", file=sys.stderr)
    problem = window_problem()  # xcb asked for on purpose and unable to start
    if problem is not None:
        raise InputError(problem)
    from PySide6.QtCore import QSize

    from app.ui.app import create_application
    from app.ui.screenshot import take_screenshot

    # Bad input is the one line printed by the CLI; only unexpected errors are logged.
    logging.basicConfig(level=logging.ERROR, format="accord: %(name)s: %(message)s")
    app = create_application()
    take_screenshot(app, project, args.screenshot, view=args.view, item=args.item,
                    size=QSize(width, height), presentation=presentation)
    print(args.screenshot)
    return 0


def run_gui(project: Path | None, *, presentation: bool = False) -> int:
    """The window on ``project``, else the last project, else the default demo; with
    ``presentation``, presentation mode starts once the project has arrived (its order
    of items needs the project)."""
    from app.platform_check import window_problem

    problem = window_problem()
    if problem is not None:  # one line, not Qt's abort (exit 134)
        raise InputError(problem)
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
    if presentation:
        from app.ui.presentation import enter_when_loaded

        enter_when_loaded(window)
    window.open_path(project)
    return int(app.exec())


def run_demo(args: argparse.Namespace) -> int:
    """``accord demo``: the window, or with ``--export`` the folders, or ``--json``."""
    if args.export is None and not args.json:
        return run_gui(default_demo())
    from app.demo import export_demo

    studies = _demo_studies()
    if args.export is not None:
        for name, path in export_demo(studies, args.export).items():
            print(f"{name}: {path}")
        return 0
    return _demo_reports(studies)


def _demo_reports(studies: dict[str, Path]) -> int:
    """``accord demo --json``: every demo's agreement report (one study: its report)."""
    import json

    from app.cli.agreement import report_job
    from app.cli.progress import with_bar

    documents = {name: with_bar(report_job(path, None, f"demo:{name}")).to_json()
                 for name, path in studies.items()}
    single = next(iter(documents.values())) if len(documents) == 1 else documents
    print(json.dumps(single, indent=2, ensure_ascii=False, allow_nan=False))
    return 0
