"""The items table's model: one row per (scheme, item), sorted and filtered in numpy.

Why not a ``QSortFilterProxyModel``: its sort calls ``data()`` (Python) for every
comparison. Measured here on 100,000 rows (``QT_QPA_PLATFORM=offscreen``, this machine):
a proxy sort on a float role took 14.2 s ascending and 7.0 s descending. Sorting the
numpy columns with a stable ``argsort`` and publishing the permutation takes
milliseconds, so the model implements :meth:`sort` itself (``QTableView`` calls it when
a header is clicked) and the annotator filter is applied by the core
(:func:`app.core.agreement.item_scores.item_scores`) before the rows reach the model.

Item ids sort naturally (3, 4, 13, 31; :mod:`app.ui.views.items.natural`). Missing
values (the count difference of a categorical scheme) sort last in both
directions, so the interesting rows stay on top. Ties keep the previous order (a stable
sort), so sorting by scheme then by score groups as expected.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from app.core.agreement.item_scores import ItemScores
from app.ui.palette import heat_fill
from app.ui.views.items.natural import natural_rank

COLUMNS = ("Item", "Scheme", "Score", "Count difference", "Pairs", "Annotators")
ITEM, SCHEME, SCORE, COUNT, PAIRS, ANNOTATORS = range(len(COLUMNS))
NO_COUNT = "—"
NO_COUNT_TIP = "answers are labels, not objects: there is no object count to compare"
SORT_ROLE = Qt.ItemDataRole.UserRole
"""The raw value of a cell (float, int or str), for tests and for callers."""

Index = QModelIndex | QPersistentModelIndex


class ItemsModel(QAbstractTableModel):
    """Rows of several :class:`ItemScores` tables, shown in a sorted order."""

    def __init__(self) -> None:
        super().__init__()
        self._tables: list[ItemScores] = []
        self._table = np.zeros(0, dtype=np.int64)
        self._row = np.zeros(0, dtype=np.int64)
        self._order = np.zeros(0, dtype=np.int64)
        self._score = np.zeros(0)
        self._diff = np.zeros(0)
        self._pairs = np.zeros(0, dtype=np.int64)
        self._label: Callable[[str], str] = str
        self._score_title = "Score"
        self._sort: tuple[int, Qt.SortOrder] = (SCORE, Qt.SortOrder.AscendingOrder)
        self._items_key: np.ndarray | None = None

    # ------------------------------------------------------------------ data in

    def set_tables(self, tables: Sequence[ItemScores], label: Callable[[str], str],
                   score_title: str = "Score") -> None:
        self.beginResetModel()
        self._tables = list(tables)
        self._label = label
        self._score_title = score_title
        sizes = [len(t) for t in self._tables]
        self._table = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
        self._row = (np.concatenate([np.arange(n, dtype=np.int64) for n in sizes])
                     if sizes else np.zeros(0, dtype=np.int64))
        self._score = _cat([t.score for t in self._tables], np.float64)
        self._diff = _cat([t.count_diff for t in self._tables], np.float64)
        self._pairs = _cat([t.n_pairs for t in self._tables], np.int64)
        self._order = np.arange(self._table.size, dtype=np.int64)
        self._items_key = None
        self._apply_sort()
        self.endResetModel()

    # ------------------------------------------------------------------ Qt model

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else int(self._order.size)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._score_title if section == SCORE else COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return {SCORE: "mean pair score: set kinds the item score, labels the share of "
                           "agreeing pairs (1 = everyone agrees)",
                    COUNT: "mean |objects of A − objects of B| over the item's pairs"
                    }.get(section)
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        k = int(self._order[index.row()])
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(k, col)
        if role == SORT_ROLE:
            return self._raw(k, col)
        if col == SCORE and role == Qt.ItemDataRole.BackgroundRole:
            return heat_fill(float(self._score[k]))
        if col == COUNT and role == Qt.ItemDataRole.ToolTipRole and np.isnan(self._diff[k]):
            return NO_COUNT_TIP
        if col == COUNT and role == Qt.ItemDataRole.ForegroundRole \
                and np.isnan(self._diff[k]):
            return QColor("#999999")
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (SCORE, COUNT, PAIRS):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def texts(self, col: int, rows: int) -> list[str]:
        """The display texts of the first ``rows`` rows shown in column ``col``."""
        return [self._text(int(k), col) for k in self._order[:rows]]

    def _text(self, k: int, col: int) -> str:
        table = self._tables[int(self._table[k])]
        row = int(self._row[k])
        if col == ITEM:
            return table.items[row]
        if col == SCHEME:
            return table.scheme
        if col == SCORE:
            return f"{self._score[k]:.3f}"
        if col == COUNT:
            return NO_COUNT if np.isnan(self._diff[k]) else f"{self._diff[k]:.2f}"
        if col == PAIRS:
            return f"{int(self._pairs[k]):,}"
        return ", ".join(self._label(a) for a in table.answered_by(row))

    def _raw(self, k: int, col: int) -> object:
        if col == SCORE:
            return float(self._score[k])
        if col == COUNT:
            return None if np.isnan(self._diff[k]) else float(self._diff[k])
        if col == PAIRS:
            return int(self._pairs[k])
        return self._text(k, col)

    # ------------------------------------------------------------------ sorting

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self._sort = (column, order)
        before = self.persistentIndexList()
        old_rows = [int(self._order[i.row()]) for i in before]
        self._apply_sort()
        where = np.empty_like(self._order)
        where[self._order] = np.arange(self._order.size)
        self.changePersistentIndexList(
            before, [self.index(int(where[k]), i.column()) for k, i in zip(old_rows, before,
                                                                             strict=True)])
        self.layoutChanged.emit()

    def _apply_sort(self) -> None:
        """Stable with respect to the order shown before (ties keep their places)."""
        column, order = self._sort
        if not self._order.size:
            return
        key = self._key(column)[self._order]
        missing = np.isnan(key) if key.dtype.kind == "f" else np.zeros(key.size, bool)
        if missing.any():
            key = np.where(missing, 0.0, key)
        rank = np.unique(key, return_inverse=True)[1].reshape(-1)
        if order == Qt.SortOrder.DescendingOrder:
            rank = -rank
        self._order = self._order[np.lexsort((rank, missing))].astype(np.int64)

    def _key(self, column: int) -> np.ndarray:
        if column == SCORE:
            return self._score
        if column == COUNT:
            return self._diff
        if column == PAIRS:
            return self._pairs
        if column == SCHEME:
            return self._table
        if column == ITEM:  # natural order: 3, 4, 13, 31 (:mod:`.natural`)
            if self._items_key is None:
                self._items_key = natural_rank(
                    _cat([np.asarray(t.items, dtype=str) for t in self._tables], np.str_))
            return self._items_key
        return self._annotators_key()

    def _annotators_key(self) -> np.ndarray:
        """The shown annotator list's text, as ranks: one text per answered pattern."""
        keys: list[np.ndarray] = []
        texts: list[str] = []
        for table in self._tables:
            bits = table.answered.astype(np.int64) @ (1 << np.arange(len(table.annotators)))
            patterns, inverse = np.unique(bits, return_inverse=True)
            for p in patterns:
                texts.append(", ".join(self._label(a) for j, a in enumerate(table.annotators)
                                       if (int(p) >> j) & 1))
            keys.append(inverse.reshape(-1) + (len(texts) - patterns.size))
        if not keys:
            return np.zeros(0, dtype=np.int64)
        rank = np.unique(np.asarray(texts, dtype=str), return_inverse=True)[1].reshape(-1)
        out: np.ndarray = rank[np.concatenate(keys)]
        return out

    # ------------------------------------------------------------------ columns

    def hidden_columns(self) -> set[int]:
        """Columns that do not apply to the rows shown: the count difference when no
        scheme shown has objects to count (labels only), the scheme when there is one."""
        hidden: set[int] = set()
        if not any(t.has_counts for t in self._tables):
            hidden.add(COUNT)
        if len({t.scheme for t in self._tables}) <= 1:
            hidden.add(SCHEME)
        return hidden

    # ------------------------------------------------------------------ lookups

    def item_at(self, row: int) -> str:
        return self._text(int(self._order[row]), ITEM)

    def scheme_at(self, row: int) -> str:
        return self._text(int(self._order[row]), SCHEME)

    def row_of(self, item: str, scheme: str | None = None) -> int | None:
        """The first visible row of ``item`` (in ``scheme`` when given), or ``None``."""
        for t, table in enumerate(self._tables):
            if scheme is not None and table.scheme != scheme:
                continue
            position = int(np.searchsorted(np.asarray(table.items, dtype=str), item))
            if position < len(table.items) and table.items[position] == item:
                k = int(np.flatnonzero((self._table == t) & (self._row == position))[0])
                return int(np.flatnonzero(self._order == k)[0])
        return None


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)

