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



def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.gl)
            if not ON_X:
                item.add_marker(pytest.mark.skip(reason=SKIP_REASON))
