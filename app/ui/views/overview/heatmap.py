"""An annotator × annotator heatmap with the value written in every cell.

Reusable by any view that shows a per-pair number (the overview's pair matrix; a view
of a single item's pairs could use it too). It draws only what it is given: the caller
decides the text of each cell and where the value falls on the colour ramp, so this
widget holds no agreement logic.

Choices (the spec is silent):

- Undefined is never a colour of the ramp: an undefined cell is light grey with a
  diagonal hatch and the word "undefined"; a pair that shares no item is white with
  "no shared items" (in its tooltip; the cell says "–"); the diagonal (an annotator with
  themself) is blank. A legend under the grid repeats the three.
- Row and column headers carry the annotator's colour chip (``palette.annotator_color``)
  so the matrix reads with the other views.
- Cells are square where there is room, at most ``MAX_CELL`` pixels at a 9 pt font and at least
  ``MIN_CELL``, both times the font's size over 9 pt: cells grow with the widget font
  (``ViewContext.font_scale`` reaches it through the parent's font), and so does the
  text; a short widget gets wide, low cells (never lower than their two lines of text).
  Both ``sizeHint`` and ``minimumSizeHint`` ask for cells that hold the widest
  cell text (two lines, with a margin) and the widest word of a column head, which
  wraps at spaces (:func:`column_head`): at 1280×800 a 6 × 6 matrix of Potato's
  machine-rater project was squeezed into 28 px cells whose heads read "c…l" and
  "⚙ l…e" (issue 35). The overview puts the matrix in a scroll area, so a short dock
  scrolls a readable matrix instead of shrinking it; a cell still smaller than its
  text (a widget used without one) draws the text in a font shrunk to fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QHelpEvent,
    QLinearGradient,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.ui.palette import UNDEFINED_COLOR, heat_color, heat_text_color

MAX_CELL = 96.0
MIN_CELL = 28.0


class CellState(Enum):
    VALUE = "value"
    UNDEFINED = "undefined"
    MISSING = "missing"
    DIAGONAL = "diagonal"


@dataclass(frozen=True, slots=True)
class HeatCell:
    state: CellState
    text: str = ""
    shade: float = 0.0
    """Position on the colour ramp in [0, 1] (only for ``VALUE`` cells)."""
    tooltip: str = ""


DIAGONAL = HeatCell(CellState.DIAGONAL)


class PairHeatmap(QWidget):
    """Draws an ``n × n`` grid of :class:`HeatCell` with coloured annotator headers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._names: list[str] = []
        self._colors: list[QColor] = []
        self._cells: dict[tuple[int, int], HeatCell] = {}
        self._ramp_ends = ("0", "1")
        self._empty_text = ""
        self.setMouseTracking(True)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    # ------------------------------------------------------------------ data

    def set_matrix(self, names: list[str], colors: list[QColor],
                   cells: dict[tuple[int, int], HeatCell],
                   ramp_ends: tuple[str, str] = ("0", "1")) -> None:
        """Show ``cells[(row, column)]``; absent off-diagonal cells are ``MISSING``."""
        self._names, self._colors = list(names), list(colors)
        self._cells = dict(cells)
        self._ramp_ends = ramp_ends
        self._empty_text = ""
        self.updateGeometry()
        self.update()

    def set_empty(self, text: str) -> None:
        """Show a sentence instead of a matrix."""
        self._names, self._colors, self._cells = [], [], {}
        self._empty_text = text
        self.updateGeometry()
        self.update()

    def cell(self, row: int, column: int) -> HeatCell:
        if row == column:
            return DIAGONAL
        return self._cells.get((row, column),
                               HeatCell(CellState.MISSING, "–", 0.0, "no shared items"))

    @property
    def names(self) -> list[str]:
        return list(self._names)

    @property
    def empty_text(self) -> str:
        return self._empty_text

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        n = max(len(self._names), 1)
        cell = max(self._min_cell(), min(self._max_cell(), 420.0 / n))
        left, top, legend = self._margins(cell)
        return QSize(int(left + cell * n + 8), int(top + cell * n + legend))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        if not self._names:
            return QSize(120, 60)
        cell = self._min_cell()  # readable: the widest value and word fit (issue 35)
        left, top, legend = self._margins(cell)
        n = len(self._names)
        width = max(left + cell * n + 8, left + self._legend_width())
        return QSize(int(width), int(top + self._min_row() * n + legend))

    def _legend_width(self) -> float:
        metrics = QFontMetricsF(self.font())
        h = metrics.height()
        texts = sum(metrics.horizontalAdvance(t) + 4 for t in ("undefined", "no shared items"))
        return 180.0 + h + 2 * (h * 1.4 + 4 + h) + texts

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt API)
        if event.type() == QEvent.Type.FontChange:
            self.updateGeometry()
        super().changeEvent(event)

    # ------------------------------------------------------------------ geometry

    def _margins(self, cell: float | None = None) -> tuple[float, float, float]:
        """(left margin, top margin, legend height) at the widget's font; the top holds
        the column heads as wrapped at ``cell`` (the widest cell the width allows when
        not given)."""
        metrics = QFontMetricsF(self.font())
        label = max((metrics.horizontalAdvance(n) for n in self._names), default=0.0)
        left = label + metrics.height() * 1.6
        if cell is None:
            n = max(len(self._names), 1)
            cell = max(min((self.width() - left - 8) / n, self._max_cell()),
                       self._min_cell())
        lines = head_lines(self._names, metrics, cell - 4)
        return (left, metrics.height() * 1.0 + metrics.lineSpacing() * lines + 6,
                metrics.height() * 4.0)

    def _scale(self) -> float:
        size = self.font().pointSizeF()
        return max(1.0, size / 9.0) if size > 0 else 1.0

    def _max_cell(self) -> float:
        return MAX_CELL * self._scale()

    def _min_cell(self) -> float:
        """The cell that holds the widest cell text (two lines) at this font."""
        metrics = QFontMetricsF(self.font())
        texts = [c.text for c in self._cells.values()] + ["–"]
        lines = [line for text in texts for line in text.split("\n")]
        words = [word for name in self._names for word in name.split()]
        wide = max(metrics.horizontalAdvance(line) for line in [*lines, *words])
        tall = metrics.lineSpacing() * max(text.count("\n") + 1 for text in texts)
        return max(MIN_CELL * self._scale(), wide + metrics.averageCharWidth() * 1.5,
                   tall + metrics.height() * 0.6)

    def _min_row(self) -> float:
        """The lowest row that holds the cell texts' lines: a short dock gets wide, low
        cells rather than a scroll bar (a 3 × 3 matrix fits 1280×800 whole)."""
        metrics = QFontMetricsF(self.font())
        lines = max((c.text.count("\n") + 1 for c in self._cells.values()), default=1)
        return max(MIN_CELL * self._scale(), metrics.lineSpacing() * lines
                   + metrics.height() * 0.6)

    def cell_size(self) -> float:
        """The side of a cell in pixels, as painted now (the shorter, for a low cell)."""
        _, _, width, height = self._grid()
        return min(width, height)

    def _layout(self) -> tuple[float, float, float]:
        """(left margin, top margin, cell width): see :meth:`_grid`."""
        left, top, width, _ = self._grid()
        return left, top, width

    def _grid(self) -> tuple[float, float, float, float]:
        """(left margin, top margin, cell width, row height): a cell as wide as the
        width allows (never narrower than its widest word or value, never past
        ``MAX_CELL``) and as tall as the height allows under heads wrapped at that width,
        square at most and never lower than its text's lines (twice: a narrower cell
        may wrap a head into one more line)."""
        left, top, legend = self._margins()
        n = max(len(self._names), 1)
        width = floor = self._min_cell()
        height = low = self._min_row()
        for _ in range(2):
            width = max(min((self.width() - left - 8) / n, self._max_cell()), floor)
            top = self._margins(width)[1]
            height = max(min((self.height() - top - legend) / n, width), low)
        return left, top, width, height

    def _cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        left, top, cell, row_height = self._grid()
        col = int((pos.x() - left) // cell)
        row = int((pos.y() - top) // row_height)
        n = len(self._names)
        if pos.x() < left or pos.y() < top or not (0 <= row < n and 0 <= col < n):
            return None
        return row, col

    # ------------------------------------------------------------------ painting

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self._names:
            painter.setPen(self.palette().color(self.foregroundRole()))
            painter.drawText(self.rect().adjusted(8, 8, -8, -8),
                             int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                             self._empty_text)
            painter.end()
            return
        left, top, cell, row = self._grid()
        metrics = QFontMetricsF(self.font())
        n = len(self._names)
        for i, (name, color) in enumerate(zip(self._names, self._colors, strict=True)):
            self._chip(painter, QPointF(4, top + (i + 0.5) * row), color, metrics)
            painter.setPen(self.palette().color(self.foregroundRole()))
            painter.drawText(QRectF(4 + metrics.height(), top + i * row,
                                    left - metrics.height() - 8, row),
                             int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight),
                             name)
            x = left + i * cell
            head = QRectF(x, 0, cell, top - 4)
            painter.drawText(head, int(Qt.AlignmentFlag.AlignHCenter
                                       | Qt.AlignmentFlag.AlignBottom),
                             column_head(name, metrics, cell - 4))
            painter.fillRect(QRectF(x + 4, top - 4, cell - 8, 3), color)
        for i in range(n):
            for j in range(n):
                self._paint_cell(painter, QRectF(left + j * cell, top + i * row, cell, row),
                                 self.cell(i, j))
        self._legend(painter, QRectF(left, top + n * row + metrics.height() * 0.8,
                                     max(n * cell, 240.0), metrics.height() * 3), metrics)
        painter.end()

    def _chip(self, painter: QPainter, center: QPointF, color: QColor,
              metrics: QFontMetricsF) -> None:
        r = metrics.height() * 0.32
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawEllipse(QPointF(center.x() + r, center.y()), r, r)

    def _paint_cell(self, painter: QPainter, rect: QRectF, cell: HeatCell) -> None:
        inner = rect.adjusted(1, 1, -1, -1)
        if cell.state is CellState.VALUE:
            painter.fillRect(inner, heat_color(cell.shade))
            painter.setPen(heat_text_color(cell.shade))
        elif cell.state is CellState.UNDEFINED:
            painter.fillRect(inner, UNDEFINED_COLOR)
            painter.fillRect(inner, QBrush(QColor("#B8B8B8"), Qt.BrushStyle.BDiagPattern))
            painter.setPen(QColor("#444444"))
        elif cell.state is CellState.MISSING:
            painter.fillRect(inner, QColor("#FFFFFF"))
            painter.setPen(QPen(QColor("#CCCCCC"), 1, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(inner.adjusted(0.5, 0.5, -0.5, -0.5))
            painter.setPen(QColor("#888888"))
        else:
            painter.fillRect(inner, QColor("#F7F7F7"))
            return
        flags = int(Qt.AlignmentFlag.AlignCenter)
        font = QFont(self.font())
        need = QFontMetricsF(font).boundingRect(inner, flags, cell.text)
        if cell.text and (need.width() > inner.width() or need.height() > inner.height()):
            shrink = min(inner.width() / max(need.width(), 1.0),
                         inner.height() / max(need.height(), 1.0))
            font.setPointSizeF(max(4.0, font.pointSizeF() * shrink * 0.95))
        painter.save()
        painter.setFont(font)
        painter.drawText(inner, flags, cell.text)
        painter.restore()

    def _legend(self, painter: QPainter, rect: QRectF, metrics: QFontMetricsF) -> None:
        h = metrics.height()
        bar = QRectF(rect.left(), rect.top(), min(rect.width() * 0.45, 180.0), h * 0.8)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for k in range(11):
            gradient.setColorAt(k / 10, heat_color(k / 10))
        painter.fillRect(bar, gradient)
        fg = self.palette().color(self.foregroundRole())
        painter.setPen(fg)
        low, high = self._ramp_ends
        painter.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), h),
                         int(Qt.AlignmentFlag.AlignLeft), low)
        painter.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), h),
                         int(Qt.AlignmentFlag.AlignRight), high)
        x = bar.right() + h
        for state, text in ((CellState.UNDEFINED, "undefined"),
                            (CellState.MISSING, "no shared items")):
            swatch = QRectF(x, bar.top(), h * 1.4, h * 0.8 + 2)
            self._paint_cell(painter, swatch, HeatCell(state, ""))
            painter.setPen(fg)
            width = metrics.horizontalAdvance(text) + 4
            painter.drawText(QRectF(swatch.right() + 4, bar.top() - 2, width, h + 4),
                             int(Qt.AlignmentFlag.AlignVCenter), text)
            x = swatch.right() + 4 + width + h

    # ------------------------------------------------------------------ tooltips

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            at = self._cell_at(QPointF(event.pos()))
            if at is not None and at[0] != at[1]:
                QToolTip.showText(event.globalPos(), self.cell(*at).tooltip, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)


def column_head(name: str, metrics: QFontMetricsF, width: float) -> str:
    """A column's name in the cell's width: whole when it fits, else wrapped at spaces
    into as many lines as it needs ("⚙ llm_judge" over "(machine)", or "⚙" over
    "llm_judge" over "(machine)" in a narrower cell), so no word is cut or broken
    (issue 35: the 6 × 6 matrix of Potato's machine-rater project read "⚙ ll…udge");
    only a single word wider than the cell is elided in the middle, and the cells are
    made wide enough for the widest word where the widget has the room
    (:meth:`PairHeatmap._min_cell`); the cells' tooltips name both annotators."""
    if metrics.horizontalAdvance(name) <= width:
        return name
    lines: list[str] = []
    for word in name.split():
        if lines and metrics.horizontalAdvance(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return "\n".join(metrics.elidedText(line, Qt.TextElideMode.ElideMiddle, width)
                     for line in lines)


def head_lines(names: list[str], metrics: QFontMetricsF, width: float) -> int:
    """The most lines a column head takes at this cell width (at least one)."""
    return max((column_head(n, metrics, width).count("\n") + 1 for n in names), default=1)

