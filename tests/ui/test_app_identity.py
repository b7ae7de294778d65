"""The application's identity on the desktop: its icon, its .desktop name, no shader cache.

A fresh process, since these are set when the one ``QApplication`` is created.
"""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
from PySide6.QtCore import QCoreApplication, Qt
from app.ui.app import create_application
app = create_application()
print(app.windowIcon().isNull(), app.desktopFileName(),
      QCoreApplication.testAttribute(Qt.ApplicationAttribute.AA_DisableShaderDiskCache))
"""


def test_the_window_has_accords_icon_and_desktop_name() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=env, timeout=60, check=True)
    assert done.stdout.split() == ["False", "accord", "True"]
