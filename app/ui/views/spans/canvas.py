"""The item's text with one lane per annotator under every line, spans aligned under
the characters they cover.

The text is laid out by Qt (``QTextLayout``, wrapped at the widget's width); a span's bar
runs from the x of its first character to the x after its last, read from the laid-out
line (``QTextLine.cursorToX``), so bars stay under their words whatever the font. A span
that runs over a line break is drawn on both lines; its label is written where it starts.

Marks (the legend under the canvas repeats them): a *matched* span is filled in its
label's colour; a *label mismatch* is filled and hatched, with an orange border; an
*unmatched* span is a dashed red outline. An annotator who saved the item and marked
nothing has an empty lane.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetricsF,
    QHelpEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QTextLayout,
    QTextLine,
    QTextOption,
)
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from app.ui.views.spans.model import LABEL_MISMATCH, MATCHED, ItemSpans

MISMATCH_COLOR = QColor("#D55E00")
UNMATCHED_COLOR = QColor("#C0392B")
PAD = 8.0


@dataclass(frozen=True, slots=True)
class Bar:
    """One drawn piece of a span (a span over a line break has two)."""

    annotator: str
    start: int
    end: int
    label: str
    status: str
    rect: QRectF
    first: bool


def _x(line: QTextLine, pos: int) -> float:
    value: object = line.cursorToX(pos)
    return float(value[0] if isinstance(value, tuple) else value)  # type: ignore[arg-type]


class SpanCanvas(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._item: ItemSpans | None = None
        self._names: dict[str, str] = {}
        self._name_colors: dict[str, QColor] = {}
        self._label_colors: dict[str, QColor] = {}
        self._layout: QTextLayout | None = None
        self.bars: list[Bar] = []
        self._lines: list[tuple[QTextLine, float]] = []
        self._height = 40.0

    def set_item(self, item: ItemSpans | None, names: dict[str, str],
                 name_colors: dict[str, QColor], label_colors: dict[str, QColor]) -> None:
        """Draw ``item``; ``names`` maps each annotator to the name shown (A, B, C in
        presentation mode), in lane order."""
        self._item = item
        self._names = names
        self._name_colors = name_colors
        self._label_colors = label_colors
        self._relayout()
        self.update()

    # ------------------------------------------------------------------ geometry
    def _metrics(self) -> tuple[QFontMetricsF, float, float, float]:
        fm = QFontMetricsF(self.font())
        margin = max((fm.horizontalAdvance(n) for n in self._names.values()), default=0.0)
        return fm, margin + 2 * PAD, fm.height() * 1.5, fm.height() + 6

    def _relayout(self) -> None:
        self.bars = []
        self._lines = []
        item = self._item
        if item is None:
            self._height = 40.0
            self.setMinimumHeight(int(self._height))
            return
        fm, margin, text_h, lane_h = self._metrics()
        width = max(120.0, self.width() - margin - PAD)
        layout = QTextLayout(item.text, self.font())
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        y = PAD
        block = text_h + lane_h * len(self._names) + fm.height() * 0.6
        while True:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(width)
            line.setPosition(QPointF(margin, y + (text_h - fm.height()) / 2))
            self._lines.append((line, y))
            y += block
        layout.endLayout()
        self._layout = layout
        for line, top in self._lines:
            lo = line.textStart()
            hi = lo + line.textLength()
            for lane, name in enumerate(self._names):
                lane_top = top + text_h + lane * lane_h
                for span in item.lanes.get(name, []):
                    s, e = max(span.start, lo), min(span.end, hi)
                    if e <= s:
                        continue
                    x1, x2 = _x(line, s), _x(line, e)
                    rect = QRectF(x1, lane_top + 2, max(3.0, x2 - x1), lane_h - 4)
                    self.bars.append(Bar(name, span.start, span.end, span.label,
                                         span.status, rect, s == span.start))
        self._height = y + PAD
        self.setMinimumHeight(int(self._height))

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(600, int(self._height))

    def resizeEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._relayout()
        super().resizeEvent(event)  # type: ignore[arg-type]

    def changeEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._relayout()
        super().changeEvent(event)  # type: ignore[arg-type]

    def bar_tip(self, x: float, y: float) -> str:
        """The tooltip of the span under (x, y): who, label, offsets, the text, the mark
        (a short bar's label is elided; the tooltip says it whole)."""
        item = self._item
        for bar in self.bars:
            if item is not None and bar.rect.contains(QPointF(x, y)):
                words = item.text[bar.start:bar.end]
                return (f"{self._names.get(bar.annotator, bar.annotator)}: {bar.label} "
                        f"[{bar.start}, {bar.end}) “{words}” · {bar.status}")
        return ""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            tip = self.bar_tip(event.pos().x(), event.pos().y())
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("#FFFFFF"))
        if self._item is None or self._layout is None:
            painter.end()
            return
        _fm, margin, text_h, lane_h = self._metrics()
        painter.setPen(QColor("#111111"))
        self._layout.draw(painter, QPointF(0, 0))
        for _line, top in self._lines:
            for lane, name in enumerate(self._names):
                lane_top = top + text_h + lane * lane_h
                painter.setPen(self._name_colors.get(name, QColor("#333333")))
                painter.drawText(QRectF(PAD, lane_top, margin - 2 * PAD, lane_h),
                                 int(Qt.AlignmentFlag.AlignVCenter
                                     | Qt.AlignmentFlag.AlignRight), self._names[name])
                painter.setPen(QPen(QColor("#E4E4E4"), 1))
                painter.drawLine(QPointF(margin, lane_top + lane_h - 1),
                                 QPointF(self.width() - PAD, lane_top + lane_h - 1))
        small = self.font()
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.85))
        small_fm = QFontMetricsF(small)
        for bar in self.bars:
            color = self._label_colors.get(bar.label, QColor("#777777"))
            self._paint_bar(painter, bar, color)
            if bar.first:
                painter.setFont(small)
                painter.setPen(QColor("#111111"))
                text = small_fm.elidedText(bar.label, Qt.TextElideMode.ElideRight,
                                           bar.rect.width() - 4)
                painter.drawText(bar.rect.adjusted(3, 0, -1, 0),
                                 int(Qt.AlignmentFlag.AlignVCenter), text)
                painter.setFont(self.font())
        painter.end()

    @staticmethod
    def _paint_bar(painter: QPainter, bar: Bar, color: QColor) -> None:
        fill = QColor(color)
        fill.setAlpha(110)
        if bar.status == MATCHED:
            painter.setPen(QPen(color.darker(130), 1.2))
            painter.setBrush(QBrush(fill))
            painter.drawRoundedRect(bar.rect, 3, 3)
        elif bar.status == LABEL_MISMATCH:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(fill))
            painter.drawRoundedRect(bar.rect, 3, 3)
            painter.setBrush(QBrush(MISMATCH_COLOR, Qt.BrushStyle.BDiagPattern))
            painter.setPen(QPen(MISMATCH_COLOR, 2.0))
            painter.drawRoundedRect(bar.rect, 3, 3)
        else:
            painter.setBrush(QBrush(QColor(255, 255, 255, 0)))
            pen = QPen(UNMATCHED_COLOR, 2.0)
            pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.drawRoundedRect(bar.rect, 3, 3)
