"""The project tree: schemes, each with its headline number, and the items under them.

Picking a scheme emits ``scheme_picked(name)``; picking an item emits
``item_picked(item_id)`` and ``scheme_picked`` of its parent, so the views follow both.
The tree holds no state of its own beyond what it shows (it is rebuilt from the
project; :meth:`select` follows a pick made elsewhere without re-emitting).

Choices where the design is silent: items are listed under every scheme that covers
them (the items of ``SchemeResult.coverage``-less schemes, i.e. not computed, are the
study's answered items), sorted by id; a scheme's line shows its kind and the scheme's
one headline (``metric_text.short_headline``: the card's, e.g. ``detection α 0.04``).

A scheme's first :data:`ROWS_PER_TURN` items are added at once and the rest that many
per turn of the event loop (``views.turns``): 10,000 item rows made in one step held the
GUI thread 26-42 ms when a 10,000-document span study arrived (``bench_gui_stall.py
--spans``). Selecting an item not added yet adds the rest first.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QWidget

from app.ui.views.metric_text import headline_tip, short_headline
from app.ui.views.turns import next_turn

if TYPE_CHECKING:
    from app.core.project import ProjectData

ROLE_KIND = Qt.ItemDataRole.UserRole
ROLE_VALUE = Qt.ItemDataRole.UserRole + 1
ROWS_PER_TURN = 1000
"""Item rows added in one step (about 2.5 ms)."""


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
        self._pending: list[tuple[QTreeWidgetItem, list[str], int]] = []
        """Scheme nodes, their item ids and how many are added, for those not all added
        (an offset, not a shorter copy per turn: a million ids copied a thousand times)."""
        self._generation = 0

    def show_project(self, project: ProjectData | None) -> None:
        self._quiet = True
        self._pending = []
        self._generation += 1
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
                ids = sorted(project.study.answers_for(name))
                _add_items(node, ids[:ROWS_PER_TURN])
                if len(ids) > ROWS_PER_TURN:
                    self._pending.append((node, ids, ROWS_PER_TURN))
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
        if self._pending:
            next_turn(self, partial(self._add_more, self._generation))

    def _add_more(self, generation: int) -> None:
        """The next rows still to add (none once another project is shown)."""
        if generation != self._generation or not self._pending:
            return
        node, ids, done = self._pending[0]
        _add_items(node, ids[done:done + ROWS_PER_TURN])
        if len(ids) > done + ROWS_PER_TURN:
            self._pending[0] = (node, ids, done + ROWS_PER_TURN)
        else:
            self._pending.pop(0)
        if self._pending:
            next_turn(self, partial(self._add_more, generation))

    def _add_all(self) -> None:
        pending, self._pending = self._pending, []
        for node, ids, done in pending:
            _add_items(node, ids[done:])

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
        found = self._find_added(scheme, item)
        if item is not None and self._pending and not _item_under(found, scheme):
            self._add_all()  # the row may be among those not added yet
            found = self._find_added(scheme, item)
        return found

    def _find_added(self, scheme: str | None, item: str | None) -> QTreeWidgetItem | None:
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


def _add_items(node: QTreeWidgetItem, ids: list[str]) -> None:
    children = []
    for item_id in ids:
        child = QTreeWidgetItem([item_id, "", ""])
        child.setData(0, ROLE_KIND, "item")
        child.setData(0, ROLE_VALUE, item_id)
        children.append(child)
    node.addChildren(children)


def _item_under(node: QTreeWidgetItem | None, scheme: str | None) -> bool:
    """Whether ``node`` is an item row under ``scheme`` (any scheme for ``None``)."""
    parent = node.parent() if node is not None else None
    return parent is not None and (scheme is None or parent.data(0, ROLE_VALUE) == scheme)
