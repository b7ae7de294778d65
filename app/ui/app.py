"""The one ``QApplication`` of a run.

``Qt.AA_ShareOpenGLContexts`` must be set before the ``QApplication`` exists: without
it a second ``GLViewWidget`` in the same process draws nothing (architecture.md, GL test
notes). The organization and application names are those :mod:`app.ui.settings` uses.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app import __version__
from app.paths import resources_dir
from app.ui.settings import APPLICATION, ORGANIZATION


def prepare_qt() -> None:
    """Attributes that must be set before any ``QApplication`` (idempotent)."""
    if QCoreApplication.instance() is None:
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
        # Qt would cache compiled shaders in ~/.cache/qtshadercache; Accord writes nowhere
        # but the projects' own Accord files and its settings folder.
        QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_DisableShaderDiskCache)


GIL_SWITCH_INTERVAL_S = 0.001


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The running ``QApplication``, created (after :func:`prepare_qt`) if needed."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    prepare_qt()
    # The GUI thread and the workers share the interpreter lock, and a Qt repaint calls
    # Python (pyqtgraph items) many times: with the default 5 ms switch interval each call
    # can wait up to 5 ms for a busy worker, and one repaint stalled the window for
    # 60-140 ms while a project opened. At 1 ms the longest stall is about 25 ms
    # (tests/benchmarks/bench_gui_stall.py); the workers lose little (they mostly run
    # numpy, which releases the lock, or plain Python that switches cheaply).
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    app = QApplication(list(argv) if argv is not None else sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    app.setApplicationVersion(__version__)
    # The window's icon, and the name the desktop matches to resources/accord.desktop (so a
    # dock or task bar shows Accord's icon, not a generic one).
    app.setDesktopFileName("accord")
    icon = resources_dir() / "icons" / "accord.png"
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    return app
