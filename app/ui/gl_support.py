"""Whether this process can draw OpenGL, decided once, before any GL widget exists.

Why: a ``QOpenGLWidget`` on a platform without OpenGL (Qt's ``offscreen`` platform, a
remote session without GLX, a broken driver) does not fail cleanly: it paints black,
prints warnings, and may take the whole window down with it. The 3D view asks
:func:`gl_available` first and, without OpenGL, draws the same scene in software
(:mod:`app.ui.views.cuboids.flat_canvas`), saying so in its header.

Choices (the spec is silent):

- The test is a real one: create a ``QOpenGLContext`` (needs a ``QGuiApplication``) and
  make it current on a ``QOffscreenSurface``. ``offscreen`` and ``minimal`` platforms are
  refused before trying, so headless tests never touch GL and print nothing.
- The answer is cached for the process: the platform cannot change under a running
  ``QApplication``. :func:`forget` clears it for tests.
- ``ACCORD_NO_GL=1`` in the environment forces the software drawing (a user whose
  driver crashes can still open everything, the 3D view included).
- ``Qt.AA_ShareOpenGLContexts`` must be set before the ``QApplication`` exists
  (:func:`app.ui.app.prepare_qt` does it): without it, a second ``GLViewWidget`` in the
  same window (or a docked view re-parented to a floating window) draws nothing.
  :func:`context_sharing_enabled` lets tests check it.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QGuiApplication, QOffscreenSurface, QOpenGLContext

NO_GL_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl", "vnc"})

_cached: bool | None = None


def context_sharing_enabled() -> bool:
    return QCoreApplication.testAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def platform_name() -> str:
    return QGuiApplication.platformName() if QGuiApplication.instance() is not None else ""


def gl_available() -> bool:
    """True when an OpenGL context can be created and made current here."""
    global _cached
    if _cached is None:
        _cached = _probe()
    return _cached


def forget() -> None:
    """Forget the cached answer (tests)."""
    global _cached
    _cached = None


def _probe() -> bool:
    if os.environ.get("ACCORD_NO_GL", "") not in ("", "0"):
        return False
    if not isinstance(QCoreApplication.instance(), QGuiApplication):
        return False
    if platform_name() in NO_GL_PLATFORMS:
        return False
    context = QOpenGLContext()
    if not context.create():
        return False
    surface = QOffscreenSurface()
    surface.setFormat(context.format())
    surface.create()
    try:
        if not surface.isValid() or not context.makeCurrent(surface):
            return False
        context.doneCurrent()
        return True
    finally:
        surface.destroy()
