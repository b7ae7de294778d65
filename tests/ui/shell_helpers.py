"""Helpers for the shell's tests: a recording view, a project copy, opening and waiting."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

from PySide6.QtCore import Signal
from pytestqt.qtbot import QtBot

from app.core.project import ProjectData
from app.paths import demo_studies
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.views.base import View, ViewContext

DEMO = demo_studies()["support_triage"]


class RecordingView(View):
    """A view that remembers every context it was shown (stands in for the real ones)."""

    name: ClassVar[str] = "overview"
    title: ClassVar[str] = "Recording"
    certify_requested = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[ViewContext] = []

    def show_context(self, context: ViewContext) -> None:
        self.contexts.append(context)


def copy_demo(target: Path, name: str = "support_triage") -> Path:
    folder = target / name
    shutil.copytree(demo_studies()[name], folder)
    return folder


def make_window(qtbot: QtBot, settings: Settings, **options: object) -> MainWindow:
    window = MainWindow(settings, views={"overview": RecordingView}, **options)  # type: ignore[arg-type]
    qtbot.addWidget(window)
    return window


def open_and_wait(qtbot: QtBot, window: MainWindow, path: Path) -> ProjectData:
    with qtbot.waitSignal(window.project_loaded, timeout=20000) as blocker:
        window.open_path(path)
    data = blocker.args[0]
    assert isinstance(data, ProjectData)
    return data


def recording(window: MainWindow) -> RecordingView:
    view = window.views["overview"]
    assert isinstance(view, RecordingView)
    return view
