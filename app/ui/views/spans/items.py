"""A list of items with one number each, shown lazily (the spans and rankings views).

Why not a ``QListWidget``: at 10,000 documents one ``QListWidgetItem`` per item (and its
colour) took 300 ms on the GUI thread and the list's layout another 150 ms, a stall the
window must not have (under 50 ms). Here the item ids sit in Qt's string list model,
and texts and colours are answered for painted rows (formatting 10,000 texts up front
was 7 of the 20 ms the list took to fill: ``bench_gui_stall.py --spans``); rows are of
one height (``setUniformItemSizes``), so the view lays out 10,000 of them at once. The
list is rebuilt only when its ``key`` (the scheme's result) changes; picking another item
only moves the selection.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QPersistentModelIndex,
    QStringListModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QListView, QWidget

Index = QModelIndex | QPersistentModelIndex
DOUBT = QColor("#8A4B00")


class _Model(QStringListModel):
    """The rows' item ids in Qt's own string list (its ``rowCount`` stays in C++: the
    selection model asks for it 20,000 times when a row of 10,000 is selected, 20 ms
    through Python); text, colour and item id are answered here, for painted rows only."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.values: list[float | None] = []
        self.doubt: Callable[[float | None], bool] = lambda _v: False
        self.text: Callable[[str, float | None], str] = lambda i, _v: i

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = index.row()
        if role == Qt.ItemDataRole.DisplayRole and 0 <= row < len(self.ids):
            return self.text(self.ids[row], self.values[row])
        if role == Qt.ItemDataRole.UserRole:
            return self.ids[row] if 0 <= row < len(self.ids) else None
        if role == Qt.ItemDataRole.ForegroundRole:
            return DOUBT if 0 <= row < len(self.ids) and self.doubt(self.values[row]) else None
        return super().data(index, role)


class ItemList(QListView):
    item_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = _Model()
        self._key: Hashable = None
        self._source: object = None
        self._rows: dict[str, int] = {}
        self.setModel(self._model)
        self.setUniformItemSizes(True)
        self.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.clicked.connect(lambda index: self.item_clicked.emit(
            self._model.data(index, Qt.ItemDataRole.UserRole)))

    def set_items(self, key: Hashable, source: object,
                  entries: Callable[[], Sequence[tuple[str, float | None]]],
                  text: Callable[[str, float | None], str],
                  doubt: Callable[[float | None], bool]) -> None:
        """Show ``entries()``, called only when ``key`` or ``source`` (the scheme's result,
        compared by identity and held, so a new project's result can never pass for the
        old one) differs from the shown list's."""
        self._model.doubt = doubt
        if self.shows(key, source):
            return
        self._source = source
        found = entries()
        self._model.ids = [i for i, _ in found]
        self._model.values = [v for _, v in found]
        self._model.text = text
        self._model.setStringList(self._model.ids)
        self._rows = {item: row for row, item in enumerate(self._model.ids)}
        self._key = key

    def shows(self, key: Hashable, source: object) -> bool:
        """Whether the list shown is that of ``key`` and ``source`` (see :meth:`set_items`)."""
        return key is not None and key == self._key and source is self._source

    def clear(self) -> None:
        self.set_items(None, None, lambda: [], lambda i, _v: i, lambda _v: False)

    def select(self, item: str | None) -> None:
        row = self._rows.get(item or "")
        if row is None:
            self.clearSelection()
            return
        index = self._model.index(row, 0)
        self.setCurrentIndex(index)
        self.scrollTo(index)

    def count(self) -> int:
        return len(self._model.ids)

    def ids(self) -> list[str]:
        return list(self._model.ids)

    def row_text(self, row: int) -> str:
        return str(self._model.data(self._model.index(row, 0), Qt.ItemDataRole.DisplayRole))
