"""OpenGL tests: only on a real X display (Xvfb + Mesa), never on ``offscreen``.

Run them with::

    QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1600x1200x24" \\
        .venv/bin/python -m pytest tests/gl

Anywhere else every test here is skipped with the reason, instead of failing on a
``QOpenGLWidget`` that cannot get a context. ``Qt.AA_ShareOpenGLContexts`` is set at
import time, before pytest-qt creates the ``QApplication`` (as the application does in
:func:`app.ui.app.prepare_qt`): without it a second 3D view draws nothing.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

import pytest

from app.ui.app import prepare_qt

HERE = Path(__file__).resolve().parent

SKIP_REASON = ("tests/gl needs an X display with OpenGL: run under "
               "QT_QPA_PLATFORM=xcb xvfb-run -a -s '-screen 0 1600x1200x24' "
               f"(now QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM', '')!r}, "
               f"DISPLAY={os.environ.get('DISPLAY', '')!r})")

ON_X = os.environ.get("QT_QPA_PLATFORM") == "xcb" and bool(os.environ.get("DISPLAY"))

prepare_qt()

# PySide6 6.12 on Python 3.11 drops one reference to None (and True) on every call of
# some Python overrides of void virtuals (resizeEvent, QGraphicsItem.paint: measured
# with sys.getrefcount, about 50-400 per pyqtgraph repaint). Painting enough views in
# one process drives None's count to zero and aborts the interpreter at exit
# ("Fatal Python error: none_dealloc"). Python 3.12 makes None immortal; until the
# project moves, these references keep the test process alive; the list itself is
# leaked on purpose (one extra reference that nothing releases), or finalization would
# hand the references back before Qt's last objects go.
_REFCOUNT_BALLAST = [None] * 2_000_000 + [True] * 200_000 + [False] * 200_000
ctypes.pythonapi.Py_IncRef(ctypes.py_object(_REFCOUNT_BALLAST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.gl)
            if not ON_X:
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))
