"""Shared by every GUI test: offscreen Qt, isolated settings, no leftover work.

- ``QT_QPA_PLATFORM`` defaults to ``offscreen`` and ``AA_ShareOpenGLContexts`` is set
  before pytest-qt creates the ``QApplication`` (as :mod:`app.ui.app` does).
- Settings: ``QSettings`` files go to the test's temporary folder (both the INI and the
  native format, user and system scope), so no test reads or writes the real ones;
  the ``settings`` fixture is a :class:`~app.ui.settings.Settings` on its own file.
- A test fails if, after its widgets are closed, a worker pool still has a running
  task, a Python thread it started is still alive, or a ``QTimer`` is still active
  anywhere in the application's object trees (pytest-qt closes the widgets registered
  with ``qtbot.addWidget`` before fixtures are torn down).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, QThreadPool, QTimer
from PySide6.QtWidgets import QApplication

from app.ui.app import prepare_qt
from app.ui.settings import APPLICATION, ORGANIZATION, Settings
from app.ui.workers import all_pools

prepare_qt()


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    folder = tmp_path_factory.mktemp("qsettings")
    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(folder))
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    yield


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings.at(tmp_path / "accord-test-settings.ini")


def _active_timers(app: QApplication) -> list[str]:
    found: list[str] = []
    owners = [app, *app.topLevelWidgets()]
    for owner in owners:
        for timer in owner.findChildren(QTimer):
            if timer.isActive():
                parent = timer.parent()
                found.append(f"{type(parent).__name__}.{timer.objectName() or 'QTimer'} "
                             f"({timer.interval()} ms)")
    return found


@pytest.fixture(autouse=True)
def _no_leftover_work(request: pytest.FixtureRequest) -> Iterator[None]:
    before = set(threading.enumerate())
    yield
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    app.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    app.processEvents()
    problems: list[str] = []
    for pool in all_pools():
        if pool.activeThreadCount():
            problems.append(f"a worker pool still runs {pool.activeThreadCount()} task(s)")
            pool.waitForDone(5000)
    if QThreadPool.globalInstance().activeThreadCount():
        problems.append("the global QThreadPool still runs a task")
        QThreadPool.globalInstance().waitForDone(5000)
    alive = [t.name for t in set(threading.enumerate()) - before
             if t.is_alive() and not isinstance(t, threading._DummyThread)]
    if alive:
        problems.append(f"threads still running: {', '.join(sorted(alive))}")
    timers = _active_timers(app)
    if timers:
        problems.append(f"active timers: {', '.join(timers)}")
    if problems:
        pytest.fail(f"{request.node.nodeid} left work behind: {'; '.join(problems)}",
                    pytrace=False)
