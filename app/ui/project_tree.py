"""The project tree: schemes, each with its headline number, and the items under them.

Picking a scheme emits ``scheme_picked(name)``; picking an item emits
``item_picked(item_id)`` and ``scheme_picked`` of its parent, so the views follow both.
The tree holds no state of its own beyond what it shows (it is rebuilt from the
project; :meth:`select` follows a pick made elsewhere without re-emitting).

Choices where the design is silent: items are listed under every scheme that covers
them (the items of ``SchemeResult.coverage``-less schemes, i.e. not computed, are the
study's answered items), sorted by id; a scheme's line shows its kind and the scheme's
one headline (``metric_text.short_headline``: the card's, e.g. ``detection α 0.04``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from app.ui.views.metric_text import headline_tip, short_headline

if TYPE_CHECKING:
    from app.core.project import ProjectData

ROLE_KIND = Qt.ItemDataRole.UserRole
ROLE_VALUE = Qt.ItemDataRole.UserRole + 1


class ProjectTree(QTreeWidget):
    item_picked = Signal(str)
    scheme_picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderLabels(["Scheme / item", "Kind", "Agreement"])
        self.setColumnCount(3)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.itemSelectionChanged.connect(self._picked)
        self._quiet = False

    def show_project(self, project: ProjectData | None) -> None:
        self._quiet = True
        try:
            self.clear()
            if project is None:
                return
            for name, result in project.report.schemes.items():
                node = QTreeWidgetItem([name, result.kind or result.annotation_type,
                                        short_headline(result)])
                node.setData(0, ROLE_KIND, "scheme")
                node.setData(0, ROLE_VALUE, name)
                node.setToolTip(0, f"{name}: {result.annotation_type}")
                node.setToolTip(2, headline_tip(result))
                for item_id in sorted(project.study.answers_for(name)):
                    child = QTreeWidgetItem([item_id, "", ""])
                    child.setData(0, ROLE_KIND, "item")
                    child.setData(0, ROLE_VALUE, item_id)
                    node.addChild(child)
                self.addTopLevelItem(node)
            for column in range(3):
                self.resizeColumnToContents(column)
            # Collapsed items are not measured: widen the first column for the item ids.
            longest = max((i for s in project.report.schemes
                           for i in project.study.answers_for(s)), key=len, default="")
            needed = self.fontMetrics().horizontalAdvance(longest) + 3 * self.indentation()
            self.setColumnWidth(0, max(self.columnWidth(0), needed))
        finally:
            self._quiet = False

    def select(self, scheme: str | None, item: str | None) -> None:
        """Select the node of ``item`` under ``scheme`` (or the scheme) without emitting."""
        self._quiet = True
        try:
            target = self._find(scheme, item)
            if target is not None:
                self.setCurrentItem(target)
                self.scrollToItem(target)
        finally:
            self._quiet = False

    def _find(self, scheme: str | None, item: str | None) -> QTreeWidgetItem | None:
        fallback: QTreeWidgetItem | None = None
        for i in range(self.topLevelItemCount()):
            node = self.topLevelItem(i)
            if node is None:
                continue
            in_scheme = scheme is None or node.data(0, ROLE_VALUE) == scheme
            if item is None:
                if in_scheme and scheme is not None:
                    return node
                continue
            for j in range(node.childCount()):
                child = node.child(j)
                if child is not None and child.data(0, ROLE_VALUE) == item:
                    if in_scheme:
                        return child
                    fallback = fallback or child
        return fallback

    def _picked(self) -> None:
        if self._quiet:
            return
        node = self.currentItem()
        if node is None:
            return
        if node.data(0, ROLE_KIND) == "scheme":
            self.scheme_picked.emit(str(node.data(0, ROLE_VALUE)))
            return
        parent = node.parent()
        if parent is not None:
            self.scheme_picked.emit(str(parent.data(0, ROLE_VALUE)))
        self.item_picked.emit(str(node.data(0, ROLE_VALUE)))
