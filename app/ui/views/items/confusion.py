"""The confusion matrix beside the items list: which labels people confuse, and on what.

For the items view's categorical scheme (nominal, ordinal, a trace's steps) it shows the
matrix of :mod:`app.core.agreement.categorical.confusion` for one annotator pair or
pooled over all pairs (a combo). Clicking a non-empty cell emits :attr:`cell_picked`
with that cell's items and a sentence saying what they are; the items view then lists
only them. Clicking the same cell again, or Clear, emits :attr:`cleared`.

Choices (the spec is silent):

- The diagonal (agreement) is tinted blue by its share of the largest diagonal cell, the
  rest red by its share of the largest off-diagonal cell, on the palette's agreement
  scale: the cells to look at are the dark red ones, wherever they are.
- The pooled matrix counts every pair of answers in both orders, on and off the
  diagonal alike (:mod:`app.core.agreement.categorical.confusion`), and the note under
  the matrix says so in words; a cell's tooltip also gives the pairs behind it.
- Cells show counts, never shares: a lead filters by them and wants to know how many
  items that will list.
- Multilabel schemes get no matrix (a matrix over label *sets* grows with every
  combination): the panel says so in a sentence.
- The matrix is computed on the GUI thread: one ``bincount`` over the scheme's coded
  units (already in the project's report), milliseconds on 100,000 items.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.categorical.confusion import (
    PAIR_CONVENTION,
    POOLED_CONVENTION,
    Confusion,
    annotator_pairs,
    confusion,
)
from app.core.agreement.categorical.units import CodedUnits
from app.core.agreement.result import SchemeResult
from app.ui.palette import heat_fill
from app.ui.views.base import ViewContext, scaled_point_size
from app.ui.views.kinds import kinds_with_confusion, look_of

POOLED = ""
SHOWN_KINDS = kinds_with_confusion()


def _text(value: object) -> str:
    return str(value)


class ConfusionPanel(QWidget):
    """A scheme's confusion matrix, whose cells filter the items list."""

    cell_picked = Signal(tuple, str)
    """(items, sentence): the items behind the clicked cell and what they are."""
    cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._result: SchemeResult | None = None
        self._context = ViewContext()
        self._matrix: Confusion | None = None
        self._picked: tuple[int, int] | None = None
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.pair_combo = QComboBox()
        self.pair_combo.currentIndexChanged.connect(self._redraw)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.cellClicked.connect(self._clicked)
        for header in (self.table.horizontalHeader(), self.table.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555555")
        row = QHBoxLayout()
        row.addWidget(QLabel("Pair:"))
        row.addWidget(self.pair_combo, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)

    # ------------------------------------------------------------------ input

    def show_scheme(self, result: SchemeResult | None, context: ViewContext) -> bool:
        """Show ``result``'s matrix; False (and nothing shown) when it has none."""
        units = result.details if result is not None else None
        if result is None or result.kind not in SHOWN_KINDS \
                or not isinstance(units, CodedUnits) or not units.n_units:
            self._result = None
            return False
        same = self._result is result and (context.anonymous, context.aliases) == (
            self._context.anonymous, self._context.aliases)
        self._context = context
        font = QFont(self.font())  # the note has a style sheet: it inherits no font
        font.setPointSizeF(scaled_point_size(context))
        self.note.setFont(font)
        if same:
            return True
        self._result = result
        self._picked = None
        label = context.annotator_label
        previous = self.pair_combo.currentData()
        self.pair_combo.blockSignals(True)
        self.pair_combo.clear()
        self.pair_combo.addItem("Pooled (every pair)", POOLED)
        for a, b in annotator_pairs(units):
            self.pair_combo.addItem(f"{label(a)} (rows) × {label(b)} (columns)", f"{a}|{b}")
        index = self.pair_combo.findData(previous)
        self.pair_combo.setCurrentIndex(max(index, 0))
        self.pair_combo.blockSignals(False)
        self._redraw()
        return True

    # ------------------------------------------------------------------ drawing

    def _redraw(self) -> None:
        result = self._result
        if result is None or not isinstance(result.details, CodedUnits):
            return
        data = str(self.pair_combo.currentData() or POOLED)
        pair = tuple(data.split("|")) if data else None
        matrix = self._matrix = confusion(result.details, pair)  # type: ignore[arg-type]
        if self._picked is not None:
            self._picked = None
            self.cleared.emit()
        values = [_text(v) for v in matrix.values]
        self.table.clear()
        self.table.setRowCount(len(values))
        self.table.setColumnCount(len(values))
        self.table.setVerticalHeaderLabels(values)
        self.table.setHorizontalHeaderLabels(values)
        diagonal = matrix.counts.diagonal()
        off = matrix.counts - np.diag(diagonal)
        tops = (max(int(diagonal.max(initial=0)), 1), max(int(off.max(initial=0)), 1))
        for r in range(len(values)):
            for c in range(len(values)):
                count = int(matrix.counts[r, c])
                cell = QTableWidgetItem(f"{count:,}" if count else "")
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                share = count / tops[0 if r == c else 1]
                shade = 0.5 + share / 2 if r == c else 0.5 - share / 2
                cell.setBackground(heat_fill(shade, 0.85) if count else QColor("#FFFFFF"))
                cell.setToolTip(self._sentence(r, c, count))
                self.table.setItem(r, c, cell)
        unit = look_of(result.kind).unit
        who = ("every annotator pair, both orders" if pair is None else
               f"rows {self._context.annotator_label(pair[0])}, columns "
               f"{self._context.annotator_label(pair[1])}")
        self.title.setText(f"<b>Confusion</b> · {result.name} <span style='color:#666'>"
                           f"({who})</span>")
        convention = POOLED_CONVENTION if pair is None else PAIR_CONVENTION
        self.note.setText(
            f"{matrix.n_pair_units:,} pairs of answers on shared {unit}s, "
            f"{matrix.n_disagreeing:,} disagreeing. {convention} "
            "Click a cell to list its items.")

    def _sentence(self, row: int, column: int, count: int) -> str:
        assert self._matrix is not None
        values = self._matrix.values
        x, y = _text(values[row]), _text(values[column])
        pair = self._matrix.pair
        label = self._context.annotator_label
        n = len(self._matrix.items_in(row, column))
        pairs = self._matrix.pairs_in(row, column)
        if pair is None:
            what = (f"two annotators both said {x}" if row == column else
                    f"one annotator said {x} and the other {y}")
            orders = "counted in both orders" if row == column else "each counted once here"
            return (f"{count:,}: {pairs:,} pairs of answers where {what}, {orders} "
                    f"({n:,} items)")
        what = f"{label(pair[0])} said {x} and {label(pair[1])} {y}"
        return f"{count:,} pairs of answers where {what} ({n:,} items)"

    # ------------------------------------------------------------------ picking

    def _clicked(self, row: int, column: int) -> None:
        if self._matrix is None:
            return
        items = self._matrix.items_in(row, column)
        if not items or self._picked == (row, column):
            self.clear_pick()
            return
        self._picked = (row, column)
        sentence = self._sentence(row, column, int(self._matrix.counts[row, column]))
        self.cell_picked.emit(items, sentence)

    def clear_pick(self) -> None:
        self._picked = None
        self.table.clearSelection()
        self.cleared.emit()

    # ------------------------------------------------------------------ for tests

    def cell_text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""
