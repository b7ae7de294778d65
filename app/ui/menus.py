"""The main window's menus and keyboard shortcuts, built in one place.

Shortcuts (where the design names none, the platform's standard keys): Ctrl+O open,
Ctrl+I import another tool's export, F5 reload, Ctrl+E export the agreement report (CSV,
JSON, HTML), Ctrl+Shift+E export the certificate PDF, F11 or Ctrl+Shift+P presentation
mode, Ctrl+Q quit, Alt+1…9 raise the views in ``VIEW_NAMES`` order (a missing view's key
does nothing). File > Open demo lists every bundled demo study; File > Open recent the
remembered projects, most recent first; File > Import… reads another tool's export
(:mod:`app.ui.import_dialog`) and opens the project it writes.

The menus know the window only through :class:`MenuHost` (the slots they call and the
state they read) and as a plain ``QMainWindow`` (the menu bar, the parent of actions and
dialogs): this module never imports :mod:`app.ui.main_window`, which builds the menus.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QMessageBox

from app import __version__
from app.paths import demo_studies
from app.ui.exporting.consensus import from_menu as export_consensus
from app.ui.views.base import VIEW_NAMES

if TYPE_CHECKING:
    from app.core.project import ProjectData
    from app.ui.presentation import Presentation
    from app.ui.settings import Settings


class MenuHost(Protocol):
    """What the menus need of the window besides its ``QMainWindow`` side."""

    @property
    def settings(self) -> Settings: ...
    @property
    def project(self) -> ProjectData | None: ...
    @property
    def presentation(self) -> Presentation: ...
    @property
    def tree_dock(self) -> QDockWidget: ...
    @property
    def docks(self) -> Mapping[str, QDockWidget]:
        """The views' docks (filled once the views exist: :meth:`Menus.add_view_actions`)."""

    def open_path(self, path: Path) -> object: ...
    def import_study(self) -> object:
        """File > Import…: another tool's export as a new project, then opened."""
    def reload(self) -> None: ...
    def export_report(self) -> None: ...
    def export_certificate(self) -> None: ...
    def raise_view(self, name: str) -> None: ...


class Menus:
    """The actions of one window (kept so tests can trigger them)."""

    def __init__(self, window: QMainWindow, host: MenuHost) -> None:
        self.window = window
        self.host = host
        bar = window.menuBar()
        file = bar.addMenu("&File")
        self.open = self._action(file, "&Open project…", QKeySequence.StandardKey.Open,
                                 self._choose)
        self.recent = file.addMenu("Open &recent")
        self.demos = file.addMenu("Open &demo")
        for name, path in demo_studies().items():
            action = self.demos.addAction(name.replace("_", " "))
            action.triggered.connect(lambda _=False, p=path: host.open_path(p))
        self.import_ = self._action(file, "&Import…", "Ctrl+I", host.import_study)
        file.addSeparator()
        self.export_certificate = self._action(file, "Export &certificate…", "Ctrl+Shift+E",
                                               host.export_certificate)
        self.export_report = self._action(file, "Export &report…", "Ctrl+E",
                                          host.export_report)
        self.export_consensus = self._action(file, "Export co&nsensus…", None,
                                             lambda: export_consensus(window, host))
        file.addSeparator()
        self.reload = self._action(file, "&Reload", "F5", host.reload)
        file.addSeparator()
        self.quit = self._action(file, "&Quit", QKeySequence.StandardKey.Quit, window.close)
        self.quit.setShortcut(QKeySequence("Ctrl+Q"))

        view = bar.addMenu("&View")
        self.presentation = self._action(view, "&Presentation mode", "F11",
                                         host.presentation.toggle)
        self.presentation.setShortcuts([QKeySequence("F11"), QKeySequence("Ctrl+Shift+P")])
        view.addSeparator()
        view.addAction(host.tree_dock.toggleViewAction())
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
        """One toggle per docked view, and Alt+1…9 to raise it (once the views exist)."""
        host = self.host
        for index, name in enumerate(VIEW_NAMES, start=1):
            dock = host.docks.get(name)
            if dock is None:
                continue
            self.view_menu.addAction(dock.toggleViewAction())
            self._action(self.view_menu, f"Show {dock.windowTitle()}",
                         f"Alt+{index}" if index <= 9 else None,  # Alt+1…9 only
                         lambda n=name: host.raise_view(n), visible=False)

    def refresh_recent(self) -> None:
        self.recent.clear()
        recent = self.host.settings.recent_projects()
        for path in recent:
            action = self.recent.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.host.open_path(p))
        if recent:
            self.recent.addSeparator()
            clear = self.recent.addAction("Clear list")
            clear.triggered.connect(self._clear_recent)
        self.recent.setEnabled(bool(recent))

    def _clear_recent(self) -> None:
        self.host.settings.clear_recent()
        self.refresh_recent()

    def _choose(self) -> None:
        project = self.host.project
        start = str(project.path.parent) if project else ""
        folder = QFileDialog.getExistingDirectory(self.window, "Open a project folder", start)
        if folder:
            self.host.open_path(Path(folder))

    def _about(self) -> None:
        QMessageBox.about(self.window, "About Accord",
                          f"Accord {__version__}\nInter-annotator agreement and machine-"
                          "label certification for annotation studies, offline.")


def build_menus(window: QMainWindow, host: MenuHost) -> Menus:
    """The menus of ``window``, calling back into ``host`` (usually the window itself)."""
    return Menus(window, host)
