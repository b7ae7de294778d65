"""The annotators' orders side by side, lines joining the same option.

One column per annotator (its name on top, A, B, C in presentation mode), the options
top to bottom in that annotator's order (best first), each a box in the option's colour;
between neighbouring columns a line joins each option's two boxes, so a crossing is a
swap. An option one annotator did not rank has no box in that column and no line to it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget


@dataclass(frozen=True, slots=True)
class Link:
    option: str
    left: str
    right: str
    start: QPointF
    end: QPointF


class RankingCanvas(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._orders: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, str] = {}
        self._colors: dict[str, QColor] = {}
        self.boxes: dict[tuple[str, str], QRectF] = {}
        self.links: list[Link] = []
        self.setMinimumHeight(160)

    def set_orders(self, orders: dict[str, tuple[str, ...]], names: dict[str, str],
                   colors: dict[str, QColor]) -> None:
        """``orders`` in column order; ``names`` the shown names; ``colors`` by option."""
        self._orders, self._names, self._colors = orders, names, colors
        self._relayout()
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt API)
        return QSize(600, 320)

    def resizeEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._relayout()
        super().resizeEvent(event)  # type: ignore[arg-type]

    def changeEvent(self, event: object) -> None:  # noqa: N802 (Qt API)
        self._relayout()
        super().changeEvent(event)  # type: ignore[arg-type]

    def _relayout(self) -> None:
        self.boxes, self.links = {}, []
        columns = list(self._orders)
        if not columns:
            return
        fm = QFontMetricsF(self.font())
        rows = max(len(o) for o in self._orders.values()) or 1
        head = fm.height() * 3.0  # a name of two lines (⚙ name (machine) wraps)
        widest = max((fm.horizontalAdvance(o) for order in self._orders.values()
                      for o in order), default=40.0) + 20
        n = len(columns)
        gap_min = 40.0
        box_w = min(widest, max(60.0, (self.width() - 20 - (n - 1) * gap_min) / n))
        gap = (self.width() - 20 - n * box_w) / max(1, n - 1) if n > 1 else 0.0
        row_h = max(fm.height() + 8, min(fm.height() * 2.4,
                                          (self.height() - head - 10) / rows))
        box_h = min(row_h - 6, fm.height() + 10)
        left0 = 10.0 if n > 1 else (self.width() - box_w) / 2
        for c, name in enumerate(columns):
            x = left0 + c * (box_w + gap)
            for r, option in enumerate(self._orders[name]):
                y = head + r * row_h + (row_h - box_h) / 2
                self.boxes[(name, option)] = QRectF(x, y, box_w, box_h)
        for left, right in itertools.pairwise(columns):
            for option in self._orders[left]:
                a, b = self.boxes.get((left, option)), self.boxes.get((right, option))
                if a is not None and b is not None:
                    self.links.append(Link(option, left, right,
                                           QPointF(a.right(), a.center().y()),
                                           QPointF(b.left(), b.center().y())))
        self.setMinimumHeight(int(head + rows * row_h + 10))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt API)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), QColor("#FFFFFF"))
        fm = QFontMetricsF(self.font())
        for link in self.links:
            color = self._colors.get(link.option, QColor("#777777"))
            painter.setPen(QPen(color, 2.5))
            path = QPainterPath(link.start)
            mid = (link.start.x() + link.end.x()) / 2
            path.cubicTo(QPointF(mid, link.start.y()), QPointF(mid, link.end.y()), link.end)
            painter.drawPath(path)
        for name in self._orders:
            first = next((r for (n, _o), r in self.boxes.items() if n == name), None)
            if first is None:
                continue
            painter.setPen(QColor("#222222"))
            # the column's name over its boxes, wrapped on two lines, kept inside the
            # widget (a machine rater's "⚙ name (machine)" was cut at the right edge)
            width = min(self.width() - 4.0, first.width() + 60)
            left = min(max(2.0, first.center().x() - width / 2), self.width() - 2 - width)
            head = QRectF(left, 2, width, fm.height() * 2.6)
            painter.drawText(head, int(Qt.AlignmentFlag.AlignHCenter
                                       | Qt.AlignmentFlag.AlignBottom
                                       | Qt.TextFlag.TextWordWrap),
                             self._names.get(name, name))
        for (_name, option), rect in self.boxes.items():
            color = self._colors.get(option, QColor("#777777"))
            fill = QColor(color)
            fill.setAlpha(60)
            painter.setPen(QPen(color, 1.5))
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, 4, 4)
            painter.setPen(QColor("#111111"))
            painter.drawText(rect.adjusted(4, 0, -4, 0), int(Qt.AlignmentFlag.AlignCenter),
                             fm.elidedText(option, Qt.TextElideMode.ElideRight,
                                           rect.width() - 8))
        painter.end()
