"""Where the window's views sit: the project tree, the summaries, the detail views.

Kept out of :mod:`app.ui.main_window` so the window only decides what is shown (the
one context) and this module only where it is shown.

Choices where the design is silent:

- The project tree on the left; overview, items and contracts (``TOP_VIEWS``) tabbed
  at the top right; the detail views (cuboids, tiers, traces, regions, masks) tabbed
  below them. Picking an item raises the detail view that draws the selected scheme's
  kind (``DETAIL_FOR_KIND``).
- A labelling project (a labelling engine configured) opens on the Contracts tab, any
  other on the Overview (:meth:`DockLayout.arrange_for`).
- Only the detail views of the kinds the project has are shown (:meth:`show_present_kinds`,
  on every open): a labelling project of reviews shows no empty 3D panel. The others stay
  in the View menu, hidden; with no project, the detail views are hidden too.
- Until the user drags a dock's edge, the docks keep the first-run proportions as the
  window changes size (:meth:`DockLayout.window_resized`): a window shown at 1280 px and
  then maximised used to give every new pixel to the project tree (half of a 1920 px
  screen) and squash the summaries to a strip. A layout restored from the settings, or
  dragged by the user, is theirs and is left alone.
- Presentation mode keeps only that detail view: :meth:`DockLayout.presentation_hidden`
  names the docks to hide and :mod:`app.ui.presentation` hides them and restores the
  layout afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QWidget

from app.ui.views.kinds import also_views, detail_views, kinds_drawn_by, numbers_drawn

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.project import ProjectData
    from app.ui.views.base import View, ViewContext

TOP_VIEWS = ("overview", "items", "contracts")
DETAIL_FOR_KIND = detail_views()
"""Kind name → the detail view that draws it (the window's kind table, ``views/kinds.py``)."""


class DockLayout:
    """The docks of one window: the project tree's at once, one per view later."""

    def __init__(self, window: QMainWindow, tree: QWidget) -> None:
        self._window = window
        self.tree_dock = self._dock("project", "Project", tree,
                                    Qt.DockWidgetArea.LeftDockWidgetArea)
        self.views: dict[str, View] = {}
        self.docks: dict[str, QDockWidget] = {}
        self.follows_window = False
        """Whether a window resize re-fits the first-run proportions (see the module)."""
        self._fit_queued = False

    def _dock(self, name: str, title: str, widget: QWidget,
              area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self._window)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self._window.addDockWidget(area, dock)
        return dock

    def add_views(self, classes: dict[str, type[View]], wire: Callable[[View], None],
                  ) -> dict[Qt.DockWidgetArea, QDockWidget]:
        """Create each view, ``wire`` it (the window connects its signals), dock it tabbed
        in its area; return the first dock of each area (raised: its tab shows)."""
        first: dict[Qt.DockWidgetArea, QDockWidget] = {}
        for name, cls in classes.items():
            view = cls()
            wire(view)
            area = (Qt.DockWidgetArea.RightDockWidgetArea if name in TOP_VIEWS
                    else Qt.DockWidgetArea.BottomDockWidgetArea)
            dock = self._dock(name, cls.title or name.title(), view, area)
            if area in first:
                self._window.tabifyDockWidget(first[area], dock)
            else:
                first[area] = dock
            self.views[name] = view
            self.docks[name] = dock
        for dock in first.values():
            dock.raise_()
        if not classes:
            placeholder = QLabel("No views are available in this installation.")
            placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self._window.setCentralWidget(placeholder)
        return first

    def window_resized(self) -> None:
        """Re-fit the first-run proportions once the resize has settled, while they are
        still the layout's (see the module)."""
        if self.follows_window and not self._fit_queued:
            self._fit_queued = True
            QTimer.singleShot(0, self._fit_now)

    def _fit_now(self) -> None:
        self._fit_queued = False
        if self.follows_window:
            self.fit_sizes()

    def default_sizes(self, first: dict[Qt.DockWidgetArea, QDockWidget]) -> None:
        """The first-run layout: a narrow tree; the summaries above the detail views.
        From here on the layout follows the window until the user drags a dock edge."""
        self.follows_window = True
        window = self._window
        right = first.get(Qt.DockWidgetArea.RightDockWidgetArea)
        bottom = first.get(Qt.DockWidgetArea.BottomDockWidgetArea)
        width, height = window.width(), window.height()
        if right is not None:
            window.resizeDocks([self.tree_dock, right], [width * 22 // 100, width * 78 // 100],
                               Qt.Orientation.Horizontal)
        if right is not None and bottom is not None:
            window.resizeDocks([right, bottom], [height * 55 // 100, height * 45 // 100],
                               Qt.Orientation.Vertical)

    def fit_sizes(self) -> None:
        """The first-run proportions again at the window's present size, on the docks
        shown (a window laid out at 1280 px and then made 1920 px wide gave every extra
        pixel to the project tree, half the window)."""
        shown = [(n, d) for n, d in self.docks.items() if not d.isHidden()]
        first: dict[Qt.DockWidgetArea, QDockWidget] = {}
        for name, dock in shown:
            area = (Qt.DockWidgetArea.RightDockWidgetArea if name in TOP_VIEWS
                    else Qt.DockWidgetArea.BottomDockWidgetArea)
            first.setdefault(area, dock)
        self.default_sizes(first)

    def present_details(self, project: ProjectData | None) -> set[str]:
        """The detail views that draw a kind some scheme of ``project`` has (and the
        further ones its schemes call for: the tracks view where a scheme holds tracks)."""
        if project is None:
            return set()
        return {v for r in project.report.schemes.values() for v in views_of(r)}

    def show_present_kinds(self, project: ProjectData | None) -> None:
        """Show the detail tabs of the project's kinds, hide the others."""
        present = self.present_details(project)
        for name, dock in self.docks.items():
            if name not in TOP_VIEWS:
                dock.setVisible(name in present)

    def arrange_for(self, context: ViewContext) -> None:
        """The tabs a project opens on: its detail kinds only, the bottom panel raised on
        the one that draws the selected (else the first) scheme, and the top panel on
        Contracts for a labelling project (its machine labels are what it is about),
        else on the Overview. Called when a project arrives and again when the views are
        added after it (a small project can load before the views exist; they then
        opened on the 3D tab, whatever the project held)."""
        project = context.project
        self.show_present_kinds(project)
        self.raise_detail(context, fallback=True)
        if project is not None:
            self.raise_view("contracts" if project.labels is not None else "overview")

    def raise_view(self, name: str) -> None:
        dock = self.docks.get(name)
        if dock is not None:
            dock.show()
            dock.raise_()

    def detail_view(self, project: ProjectData | None, scheme: str | None) -> str | None:
        """The docked detail view that draws ``scheme``'s kind, if there is one."""
        result = project.report.schemes.get(scheme or "") if project is not None else None
        views = views_of(result) if result is not None else set()
        main = DETAIL_FOR_KIND.get(result.kind or "") if result is not None else None
        view = main if main in views else min(views, default=None)
        return view if view in self.docks else None

    def raise_detail(self, context: ViewContext, fallback: bool = False) -> None:
        """Raise the detail view that draws the selected scheme's kind; with ``fallback``
        (a project just opened) the first scheme that has one if the selected has none."""
        project, scheme = context.project, context.scheme
        if project is None:
            return
        schemes = project.report.schemes
        order = [scheme] if scheme in schemes else []
        if fallback:
            order += [name for name in schemes if name != scheme]
        for name in order:
            view = self.detail_view(project, name)
            if view is not None:
                self.raise_view(view)
                return

    def presentation_hidden(self, context: ViewContext) -> list[QWidget]:
        """What presentation mode hides: the tree, and every view but the detail view
        of the selected scheme's kind, which then fills the screen (the other detail
        tabs would only widen it: a tab area is as wide as its widest view); when the
        scheme has no detail view, the detail views (the summaries show the item)."""
        detail = self.detail_view(context.project, context.scheme)
        keep = {detail} if detail is not None else set(TOP_VIEWS)
        return [self.tree_dock, *(dock for name, dock in self.docks.items()
                                  if name not in keep)]

    def presentation_arrange(self, context: ViewContext) -> None:
        """Raise what presentation mode shows: the detail view, else the items."""
        if self.detail_view(context.project, context.scheme) is not None:
            self.raise_detail(context)
        else:
            self.raise_view("items")


def views_of(result: SchemeResult) -> set[str]:
    """The detail views that draw ``result``: its kind's, and those its metrics call
    for (``KindLook.also``); a scheme that left its kind's view nothing to draw (no
    ``details``: a video scheme of tracks only has no segments) only the latter."""
    also = also_views(result.kind, result.metrics)
    if numbers_drawn(result) and result.kind not in kinds_drawn_by("numbers"):
        also = also | {"numbers"}  # a slider: its answers, and its numbers
    main = DETAIL_FOR_KIND.get(result.kind or "")
    if main is None or (also and result.details is None):
        return also
    return {main} | also
