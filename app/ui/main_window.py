"""The project window: a tree of schemes and items, docked views, a status bar.

Small on purpose (architecture rule 6): it owns the one :class:`ViewContext` and hands it
to every view, starts core jobs on its :class:`~app.ui.workers.WorkerPool`, and
delegates the rest (where the views are docked to :mod:`app.ui.dock_layout`, menus to
:mod:`app.ui.menus`, presentation mode, the watcher, the status bar panel).

Choices where the design is silent:

- Only views whose module imports are shown (:mod:`app.ui.views.registry`).
- Opening a project while another open is running cancels the first; a failed open
  leaves the current project, its views and its watcher untouched; a reopen keeps
  what it can of the selection (:mod:`app.ui.opening`).
- A bundled demo (under ``resources/``) is never certified or scheduled: that would
  write a ledger into the installation. Export it first (``accord demo --export``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QResizeEvent
from PySide6.QtWidgets import QMainWindow, QWidget

from app.core.progress import Job
from app.ui.dock_layout import DockLayout
from app.ui.menus import build_menus
from app.ui.opening import open_options, reopened_context
from app.ui.presentation import Presentation
from app.ui.project_io import dropped_folder, import_core, is_bundled, open_project, show_error
from app.ui.project_tree import ProjectTree
from app.ui.settings import Settings
from app.ui.status_panel import StatusPanel
from app.ui.views.base import View, ViewContext
from app.ui.views.registry import available_views
from app.ui.views.turns import next_turn
from app.ui.watcher import ProjectWatcher
from app.ui.workers import JobWorker, WorkerPool

if TYPE_CHECKING:
    from app.core.project import ProjectData
    from app.ui.import_dialog import ImportDialog

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    project_loaded = Signal(object)
    """A :class:`ProjectData` is now shown."""
    load_failed = Signal(str)
    """An open failed with this message (already shown in the dialog)."""
    views_ready = Signal()
    """The views are docked (they are created just after the first paint)."""

    def __init__(self, settings: Settings, *, views: dict[str, type[View]] | None = None,
                 watch: bool = True, dialogs: bool = True,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dialogs = dialogs
        """False for headless runs: errors are only logged and signalled."""
        self.settings = settings
        self.context = ViewContext()
        self.workers = WorkerPool(self)
        self.setWindowTitle("Accord")
        self.setObjectName("accord_main_window")
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tree = ProjectTree()
        self.tree.item_picked.connect(self.pick_item)
        self.tree.scheme_picked.connect(self.pick_scheme)
        self.dock_layout = DockLayout(self, self.tree)
        self.tree_dock = self.dock_layout.tree_dock
        self.views = self.dock_layout.views  # the same dicts, filled by add_views
        self.views_added = False
        self.docks = self.dock_layout.docks
        self.status = StatusPanel()
        self.status.cancel_requested.connect(self.cancel_work)
        self.statusBar().addPermanentWidget(self.status)
        docks = self.dock_layout
        self.presentation = Presentation(self, lambda: self.context, self.set_context,
                                         hidden=lambda: docks.presentation_hidden(self.context),
                                         arrange=lambda: docks.presentation_arrange(self.context))
        self.presentation.changed.connect(self._presentation_message)
        self.watcher = ProjectWatcher(self)
        if watch:
            self.watcher.changed.connect(self._files_changed)
        self._opening: JobWorker | None = None
        self._generation = 0
        self.menus = build_menus(self, self)
        self._restore_window()
        if views is not None:
            self.add_views(views)
        else:  # after the first paint: importing the views (pyqtgraph, scipy) takes a second
            QTimer.singleShot(0, self._warm_up)

    # ------------------------------------------------------------------ views and context

    def _warm_up(self) -> None:
        """Import the core on the pool (the window keeps painting), then add the views."""
        self.workers.start(import_core, name="import the core",
                           on_result=lambda _: self.add_views(available_views()),
                           on_error=lambda _: self.add_views(available_views()))

    def add_views(self, classes: dict[str, type[View]]) -> None:
        """Create and dock the views (once); each is shown the current context."""
        if self.views_added:
            return
        self.views_added = True
        first = self.dock_layout.add_views(classes, self._wire)
        self.menus.add_view_actions()
        state = self.settings.window_state()
        if state is not None:
            self.restoreState(state)
        else:
            self.dock_layout.default_sizes(first)
        if self.context.project is not None:  # the project came first: arrange for it now
            self.dock_layout.arrange_for(self.context)
            self.set_context(self.context)
        self.views_ready.emit()

    def _wire(self, view: View) -> None:
        view.item_picked.connect(self.pick_item)
        view.scheme_picked.connect(self.pick_scheme)
        certify = getattr(view, "certify_requested", None)
        if certify is not None:
            certify.connect(self.certify)
        retest = getattr(view, "retest_requested", None)
        if retest is not None:  # the contracts view's Retest: certify with retest
            retest.connect(partial(self.certify, retest=True))

    def set_context(self, context: ViewContext) -> None:
        """Show ``context`` everywhere (views, tree selection), now."""
        self.context = context
        self._generation += 1
        self.tree.select(context.scheme, context.item)
        for name in self.views:
            self._show(name, context)

    def _show(self, name: str, context: ViewContext) -> None:
        self._guarded(name, partial(self.views[name].show_context, context))

    def _context_steps(self, name: str, context: ViewContext) -> list[Callable[[], object]]:
        """The view's :meth:`View.context_steps`, each kept from taking the window down."""
        try:
            steps = self.views[name].context_steps(context)
        except Exception:
            log.exception("view %s could not show the context", name)
            return []
        return [partial(self._guarded, name, step) for step in steps]

    def _guarded(self, name: str, step: Callable[[], object]) -> None:
        try:
            step()
        except Exception:  # one broken view must not take the window down
            log.exception("view %s could not show the context", name)

    def _staggered(self, steps: list[Callable[[], object]], then: Callable[[], object],
                   generation: int | None = None) -> None:
        """Run ``steps`` one per event-loop turn, so the window paints between them (a new
        project reaches each view in its own turn: no single long stall), then ``then``.
        A :meth:`set_context` in between supersedes the rest (it showed every view)."""
        if generation is None:
            self._generation += 1
            generation = self._generation
        if generation != self._generation or not steps:
            then()
            return
        steps[0]()
        next_turn(self, partial(self._staggered, steps[1:], then, generation))

    def pick_item(self, item: str) -> None:
        if item != self.context.item:
            self.set_context(self.context.with_(item=item))
        self.dock_layout.raise_detail(self.context)

    def pick_scheme(self, scheme: str) -> None:
        if scheme != self.context.scheme:
            self.set_context(self.context.with_(scheme=scheme))

    def raise_view(self, name: str) -> None:
        self.dock_layout.raise_view(name)

    # ------------------------------------------------------------------ opening

    @property
    def project(self) -> ProjectData | None:
        return self.context.project

    def open_path(self, path: Path, *, schedule: bool = False, certify: bool = False,
                  contract: str | None = None, retest: bool = False) -> JobWorker:
        """Open (or reload) ``path`` on the worker pool; the result replaces the project."""
        if self._opening is not None:
            self._opening.cancel()
        options = open_options(path, schedule=schedule, certify=certify, contract=contract,
                               retest=retest)

        def job() -> Job[ProjectData]:
            return open_project(path, **options)

        verb = ("Retesting" if retest else "Certifying") if certify else "Opening"
        worker = self.workers.start(job, name=f"open {path}", on_progress=self.status.step,
                                    on_result=lambda data: self._loaded(worker, data),
                                    on_error=lambda message: self._failed(worker, message),
                                    on_done=lambda: self._done(worker))
        self._opening = worker
        self.status.begin(f"{verb} {path.name}…")
        return worker

    def reload(self) -> None:
        if self.project is not None:
            self.open_path(self.project.path)

    def certify(self, contract: str = "", retest: bool = False) -> None:
        """Certify one contract (or every due one with ``""``) and show the result;
        ``retest``: test the rule dev now chooses (``accord label certify --retest``)."""
        project = self.project
        if project is None:
            return
        if is_bundled(project.path):
            self.error("The bundled demo is read-only: export it first "
                       "(accord demo --export DIR) and open the copy to certify.")
            return
        self.watcher.ignore_next()
        self.open_path(project.path, certify=True, contract=contract or None, retest=retest)

    def export_report(self) -> None:
        """File > Export report…: the agreement report as CSV, JSON or HTML."""
        from app.ui.export_report import export_report

        if self.project is None:
            self.error("Open a project first: there is no report to export.")
            return
        export_report(self, self.project)

    def export_certificate(self) -> None:
        """File > Export certificate…: built on the pool, written atomically, previewed."""
        from app.ui.export_certificate import export_certificate

        if self.project is None:
            self.error("Open a project first: there is nothing to certify.")
            return
        export_certificate(self, self.project, self.workers)

    def import_study(self) -> ImportDialog:
        """File > Import…: another tool's export written as a new project, then opened."""
        from app.ui.import_dialog import ImportDialog

        start = self.project.path.parent if self.project else None
        dialog = ImportDialog(self, self.workers, report=self.error, start_dir=start)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.imported.connect(lambda project: self.open_path(project))
        dialog.open()
        return dialog

    def error(self, message: str) -> None:
        """The one dialog for an error (none in headless runs)."""
        if self.dialogs:
            show_error(self, message)

    def cancel_work(self) -> None:
        self.workers.cancel_all()

    def _loaded(self, worker: JobWorker, data: ProjectData) -> None:
        if worker is not self._opening:
            return  # superseded by a later open
        context = self.context = reopened_context(self.context, data)
        self.status.show_coverage(data)
        self.setWindowTitle(f"Accord — {data.path.name}")
        if not is_bundled(data.path):
            self.settings.add_recent(data.path)
            self.menus.refresh_recent()
        if self.watcher.root != data.path.resolve():
            self.watcher.watch(data.path)

        def docks() -> None:
            # First: a dock shown or hidden resizes its neighbours, and a view resized
            # after it drew the project draws it again (the cuboids view's labels were
            # laid out twice, each time a 35-50 ms repaint).
            self.dock_layout.arrange_for(context)

        def tree() -> None:
            self.tree.show_project(data)
            self.tree.select(context.scheme, context.item)

        steps: list[Callable[[], object]] = [docks, tree]
        for name in self.views:
            steps += self._context_steps(name, context)
        self._staggered(steps, partial(self._delivered, data))

    def _delivered(self, data: ProjectData) -> None:
        self.presentation.refresh()
        self.statusBar().showMessage(f"Opened {data.path}", 4000)
        self.project_loaded.emit(data)

    def _failed(self, worker: JobWorker, message: str) -> None:
        if worker is not self._opening:
            return
        self.error(message)  # the worker has written the log line
        self.load_failed.emit(message)

    def _done(self, worker: JobWorker) -> None:
        if worker is self._opening:
            self._opening = None
            self.status.end()
            if worker.cancel_requested:
                self.statusBar().showMessage("Cancelled", 4000)

    def _files_changed(self) -> None:
        if self.project is not None:
            self.open_path(self.project.path, schedule=True)

    def _presentation_message(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(text)
        else:
            self.statusBar().clearMessage()

    # ------------------------------------------------------------------ window events

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt API)
        if dropped_folder(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt API)
        folder = dropped_folder(event)
        if folder is not None:
            event.acceptProposedAction()
            self.open_path(folder)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt API)
        super().resizeEvent(event)
        if not self.presentation.active:
            self.dock_layout.window_resized()

    def event(self, event: QEvent) -> bool:
        """A press on the window itself (not on a child) is on a dock separator: from
        then on the layout is the user's, not the first-run proportions."""
        if event.type() == QEvent.Type.MouseButtonPress:
            self.dock_layout.follows_window = False
        return super().event(event)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt API)
        self.presentation.leave()
        self.settings.save_window(self.saveGeometry(), self.saveState())
        self.watcher.stop()
        self.workers.await_workers()
        self.status.end()
        event.accept()

    def _restore_window(self) -> None:
        geometry: QByteArray | None = self.settings.window_geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = self.settings.window_state()
        if state is not None:
            self.restoreState(state)
