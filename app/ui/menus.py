"""The main window's menus and keyboard shortcuts, built in one place.

Shortcuts (where the design names none, the platform's standard keys): Ctrl+O open,
F5 reload, Ctrl+E export the agreement report (CSV, JSON, HTML), Ctrl+Shift+E export the
certificate PDF, F11 or Ctrl+Shift+P presentation mode, Ctrl+Q quit, Alt+1…8 raise the views
in ``VIEW_NAMES`` order (a missing view's key does nothing). File > Open demo lists every
bundled demo study; File > Open recent the remembered projects, most recent first.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from app import __version__
from app.paths import demo_studies
from app.ui.views.base import VIEW_NAMES

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow


class Menus:
    """The actions of one window (kept so tests can trigger them)."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        bar = window.menuBar()
        file = bar.addMenu("&File")
        self.open = self._action(file, "&Open project…", QKeySequence.StandardKey.Open,
                                 self._choose)
        self.recent = file.addMenu("Open &recent")
        self.demos = file.addMenu("Open &demo")
        for name, path in demo_studies().items():
            action = self.demos.addAction(name.replace("_", " "))
            action.triggered.connect(lambda _=False, p=path: window.open_path(p))
        file.addSeparator()
        self.export_certificate = self._action(file, "Export &certificate…", "Ctrl+Shift+E",
                                               window.export_certificate)
        self.export_report = self._action(file, "Export &report…", "Ctrl+E",
                                          window.export_report)
        file.addSeparator()
        self.reload = self._action(file, "&Reload", "F5", window.reload)
        file.addSeparator()
        self.quit = self._action(file, "&Quit", QKeySequence.StandardKey.Quit, window.close)
        self.quit.setShortcut(QKeySequence("Ctrl+Q"))

        view = bar.addMenu("&View")
        self.presentation = self._action(view, "&Presentation mode", "F11",
                                         window.presentation.toggle)
        self.presentation.setShortcuts([QKeySequence("F11"), QKeySequence("Ctrl+Shift+P")])
        view.addSeparator()
        view.addAction(window.tree_dock.toggleViewAction())
        self.view_menu = view

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&About Accord", None, self._about)
        self.refresh_recent()

    def _action(self, menu: QMenu, text: str, keys: QKeySequence.StandardKey | str | None,
                slot: object, visible: bool = True) -> QAction:
        action = QAction(text, self.window)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        if visible:
            menu.addAction(action)
        else:
            self.window.addAction(action)  # the shortcut works without a menu entry
        return action

    def add_view_actions(self) -> None:
        """One toggle per docked view, and Alt+1…8 to raise it (once the views exist)."""
        window = self.window
        for index, name in enumerate(VIEW_NAMES, start=1):
            dock = window.docks.get(name)
            if dock is None:
                continue
            self.view_menu.addAction(dock.toggleViewAction())
            self._action(self.view_menu, f"Show {dock.windowTitle()}", f"Alt+{index}",
                         lambda n=name: window.raise_view(n), visible=False)

    def refresh_recent(self) -> None:
        self.recent.clear()
        recent = self.window.settings.recent_projects()
        for path in recent:
            action = self.recent.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.window.open_path(p))
        if recent:
            self.recent.addSeparator()
            clear = self.recent.addAction("Clear list")
            clear.triggered.connect(self._clear_recent)
        self.recent.setEnabled(bool(recent))

    def _clear_recent(self) -> None:
        self.window.settings.clear_recent()
        self.refresh_recent()

    def _choose(self) -> None:
        start = str(self.window.project.path.parent) if self.window.project else ""
        folder = QFileDialog.getExistingDirectory(self.window, "Open a project folder", start)
        if folder:
            self.window.open_path(Path(folder))

    def _about(self) -> None:
        QMessageBox.about(self.window, "About Accord",
                          f"Accord {__version__}\nInter-annotator agreement and machine-"
                          "label certification for annotation studies, offline.")


def build_menus(window: MainWindow) -> Menus:
    return Menus(window)
