"""What the main window needs around opening a project, kept out of the window class.

The core is imported lazily (on the worker thread, after the first paint); the error
dialog is one function so tests can replace it; a bundled demo is recognised so that it
is never certified in place; a folder dropped on the window is recognised.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMessageBox, QWidget

from app.paths import resources_dir

if TYPE_CHECKING:
    from app.core.progress import Job
    from app.core.project import ProjectData


def open_project(path: Path, **options: Any) -> Job[ProjectData]:
    """``app.core.project.open_project``, imported when first used (on the worker thread).

    The core pulls in scipy, which takes longer than the whole first paint; the window
    only needs it once a project is opened.
    """
    from app.core.project import open_project as core_open_project

    return core_open_project(path, **options)


def import_core() -> Job[None]:
    """Import the core's heavy modules (numpy, scipy, shapely) off the GUI thread, while
    the window waits for a project: ``scipy.special``'s kernels too, which the contracts
    otherwise import on a thread of their own during the first open (0.3 s beside the
    read, :func:`app.core.contracts.statistics.distributions.import_in_background`)."""
    for module in ("app.core.project", "app.core.agreement.item_ranking",
                   "app.core.agreement.item_scores", "scipy.special._ufuncs"):
        importlib.import_module(module)
    yield from ()


def show_error(parent: QWidget | None, message: str) -> None:
    """The one error dialog (tests replace this function to record the message)."""
    QMessageBox.critical(parent, "Accord", message)


def is_bundled(path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(resources_dir().resolve())
    except OSError:
        return False


def dropped_folder(event: QDragEnterEvent | QDropEvent) -> Path | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    if len(urls) == 1 and urls[0].isLocalFile():
        path = Path(urls[0].toLocalFile())
        if path.is_dir():
            return path
    return None
