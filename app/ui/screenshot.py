"""Headless rendering: open a project, wait for its report, save a view as a PNG, exit.

``accord open PROJECT --screenshot FILE.png [--view NAME] [--item ID] [--size WxH]``
(``cli.md``). The project is opened by the window's own worker, exactly as a user would
open it, and the picture is taken once the result has reached every view.

Choices where the design is silent:

- Without ``--view`` the whole main window is rendered (what the README shows).
- With ``--view`` that view alone is rendered at the size, outside its dock; it is
  shown (offscreen or on the display) and given a few event-loop turns to lay out
  before the grab. ``--item`` selects that item first (the scheme becomes the first
  one that covers it, unless already selected).
- ``grab()`` is used (not ``render``): it also reads back OpenGL widgets, which then
  need a real display (Xvfb), like every GL test.
- ``presentation`` enters presentation mode once the project is open (A, B, C, large
  type, the item with the most disagreement, unless ``--item`` names one), so the
  picture is what the room sees.
- The settings used are a throwaway file, so a screenshot never changes the user's
  recent projects or window layout.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QSize, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from app.core.errors import InputError
from app.core.project import ProjectData
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.registry import view_class

log = logging.getLogger(__name__)
SETTLE_MS = 150


def settle(app: QApplication, msecs: int = SETTLE_MS) -> None:
    """Let layouts and paint events run for ``msecs`` (a bounded wait, not a busy loop)."""
    loop = QEventLoop()
    QTimer.singleShot(msecs, loop.quit)
    loop.exec()
    app.processEvents()


def take_screenshot(app: QApplication, project: Path, output: Path, *, view: str | None,
                    item: str | None, size: QSize, presentation: bool = False) -> None:
    """Open ``project``, render ``view`` (or the window) at ``size`` to ``output``.

    Raises :class:`InputError` for a bad project, an unknown item or a view that is not
    available, with the same one-line text as the rest of the CLI.
    """
    if view is not None and view_class(view) is None:
        raise InputError(f"the '{view}' view is not available in this installation",
                         key="--view")
    with tempfile.TemporaryDirectory(prefix="accord-shot-") as tmp:
        window = MainWindow(Settings.at(Path(tmp) / "settings.ini"), watch=False,
                            dialogs=False)
        try:
            data = _open(app, window, project)
            if presentation:  # before --item: entering selects the most disagreement
                window.presentation.enter()
            _select(window, data, item)
            target: QWidget = window
            if view is not None:
                target = window.views[view]
                target.setParent(None)
                if presentation:  # out of its dock it no longer inherits the large font
                    target.setFont(window.font())
            target.resize(size)
            target.show()
            settle(app)
            if view is None:  # the first-run proportions at this size, as a user sees them
                window.dock_layout.fit_sizes()
                settle(app)
            _complete(window)
            target.resize(size)
            settle(app)
            image = target.grab().toImage()
            if image.size() != size:
                image = image.scaled(size)
            output.parent.mkdir(parents=True, exist_ok=True)
            if not image.save(str(output), "PNG"):  # type: ignore[call-overload]
                raise InputError("could not write the PNG there", file=output)
            target.close()
        finally:
            window.close()


def _complete(window: MainWindow) -> None:
    """Finish what a view builds a step per event-loop turn (the contracts panel's cards
    and plots), which a slow machine may not have done within :data:`SETTLE_MS`: the
    picture shows the view as a user sees it once built, not midway."""
    for view in window.views.values():
        complete = getattr(view, "complete", None)
        if callable(complete):
            complete()


def _open(app: QApplication, window: MainWindow, project: Path) -> ProjectData:
    outcome: dict[str, object] = {}
    loop = QEventLoop()

    def loaded(data: object) -> None:
        outcome["data"] = data
        loop.quit()

    def failed(message: str) -> None:
        outcome["error"] = message
        loop.quit()

    window.project_loaded.connect(loaded)
    window.load_failed.connect(failed)
    window.open_path(project)
    loop.exec()
    if not window.views_added and "error" not in outcome:  # the views come after the core import
        ready = QEventLoop()
        window.views_ready.connect(ready.quit)
        QTimer.singleShot(30_000, ready.quit)
        ready.exec()
    if "error" in outcome:
        raise InputError(str(outcome["error"]))
    data = outcome["data"]
    assert isinstance(data, ProjectData)
    return data


def _select(window: MainWindow, data: ProjectData, item: str | None) -> None:
    if item is None:
        return
    if item not in data.study.items:
        raise InputError(f"no item '{item}' in this project", key="--item")
    scheme = window.context.scheme
    if scheme is None or item not in data.study.answers_for(scheme):
        scheme = next((s for s in data.report.schemes if item in data.study.answers_for(s)),
                      scheme)
    window.set_context(window.context.with_(item=item, scheme=scheme))
