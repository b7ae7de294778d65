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


GIL_SWITCH_INTERVAL_S = 0.0002
"""How long a thread waiting for the interpreter lock lets its holder run before asking
for it (CPython's default is 5 ms)."""


def create_application(argv: Sequence[str] | None = None) -> QApplication:
    """The running ``QApplication``, created (after :func:`prepare_qt`) if needed."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    prepare_qt()
    # The GUI thread and the workers share the interpreter lock, and a Qt repaint takes it
    # many times: for pyqtgraph's Python items, and for every widget made from Python,
    # whose C++ virtual calls first look for a Python override with the lock held. Each
    # time, a busy worker keeps the lock for up to the switch interval: with the default
    # 5 ms one repaint stalled the window for 60-140 ms while a project opened. At 1 ms
    # the status bar's progress bar and Cancel button, revealed 300 ms into an open, took
    # 25-45 ms to paint (about 30 waits of 1.2 ms). At 0.2 ms a wait is 0.4 ms
    # (tests/benchmarks/bench_gui_stall.py). The workers lose nothing measurable: they
    # are interrupted only when another thread asks for the lock, and two busy workers
    # beside each other ran as fast at 0.2 ms as at 1 ms.
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
