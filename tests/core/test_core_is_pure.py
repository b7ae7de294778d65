"""Rule 1 of the architecture: nothing under app.core loads Qt or OpenGL."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import importlib, pkgutil, sys
import app.core as core
for module in pkgutil.walk_packages(core.__path__, "app.core."):
    importlib.import_module(module.name)
loaded = sorted(n for n in sys.modules if n.split(".")[0] in ("PySide6", "pyqtgraph", "OpenGL"))
print(",".join(loaded))
"""


def test_core_imports_no_qt_in_a_fresh_interpreter() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "", f"app.core loaded: {done.stdout.strip()}"


def test_the_probe_would_notice_qt() -> None:
    """The check above can fail: importing PySide6 first is seen."""
    done = subprocess.run([sys.executable, "-c", "import PySide6.QtCore\n" + PROBE],
                          capture_output=True, text=True, check=True)
    assert "PySide6" in done.stdout
