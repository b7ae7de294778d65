"""The timeline's one graphics item: every bar, link and label of a :class:`Timeline`.

Why one item: a long recording has thousands of segments; one ``QGraphicsItem`` per bar
(or per label) makes pyqtgraph crawl. Here the bars are batches built once (a list of
rectangles per annotator colour, drawn by one ``drawRects`` call, one list for the
unmatched outlines, one path for the links), painted with cosmetic pens; the texts are
placed in device pixels at paint time for only the bars and links that are on screen
and wide enough to hold them (selected with numpy), so zooming never stretches or piles
up text.

Drawing choices (the spec is silent):

- a bar is filled with its annotator's colour (alpha 150) and outlined in the same
  colour; its label is written inside when it fits, elided otherwise, omitted below
  ~18 px;
- an unmatched segment (nobody else's matched it) gets a red outline (2 px) and a red
  diagonal hatch over its fill (:data:`~app.ui.palette.DISAGREE_COLOR`);
- a matched pair is a dashed dark line between the two bar centres with the IoU on a
  white tag at its middle;
- rows alternate a faint band per tier, with a darker rule between tiers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPen,
    QTransform,
)
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from app.core.agreement.drawing import Timeline
from app.ui.palette import DISAGREE_COLOR

FILL_ALPHA = 150
LINK_COLOR = QColor("#303030")
BAND_COLOR = QColor(0, 0, 0, 12)
RULE_COLOR = QColor(0, 0, 0, 70)
MIN_LABEL_PX = 18.0
DASHED_LINKS = 400


def _qrects(rects: np.ndarray) -> list[QRectF]:
    return [QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in rects.tolist()]


class TimelineItem(pg.GraphicsObject):  # type: ignore[misc]
    """Paints one :class:`Timeline`; ``row_colors[r]`` is the colour of row ``r``."""

    def __init__(self, timeline: Timeline, row_colors: Sequence[QColor],
                 row_tiers: Sequence[int], link_texts: Sequence[str], font: QFont) -> None:
        super().__init__()
        self.timeline = timeline
        self.link_texts = list(link_texts)
        self.font = font
        rects = timeline.rects
        self.n_bars = len(rects)
        self.fills: list[tuple[QColor, list[QRectF]]] = []
        owners = np.asarray(timeline.owner_row, dtype=int)
        by_color: dict[str, list[int]] = {}
        for row, color in enumerate(row_colors):
            by_color.setdefault(color.name(), []).append(row)
        for name, rows in by_color.items():
            mine = np.isin(owners, rows)
            if mine.any():
                self.fills.append((QColor(name), _qrects(rects[mine])))
        self.unmatched = _qrects(rects[timeline.unmatched])
        self.n_rows = len(timeline.rows)
        self.row_tiers = list(row_tiers)
        end = float(rects[:, 2].max()) if len(rects) else 1.0
        start = min(0.0, float(rects[:, 0].min())) if len(rects) else 0.0
        self.bounds = QRectF(start, 0.0, max(end - start, 1e-9), float(max(self.n_rows, 1)))

    # ------------------------------------------------------------ QGraphicsItem

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return QRectF(self.bounds)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem,
              widget: QWidget | None = None) -> None:
        self._paint_bands(painter)
        for color, rects in self.fills:
            fill = QColor(color)
            fill.setAlpha(FILL_ALPHA)
            pen = QPen(color.darker(130), 1.0)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRects(rects)  # one call; overlapping bars show darker
        if self.unmatched:
            pen = QPen(DISAGREE_COLOR, 2.0)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(QBrush(DISAGREE_COLOR, Qt.BrushStyle.BDiagPattern))
            painter.drawRects(self.unmatched)
        left, right = self._visible_x()
        self._paint_links(painter, left, right)
        self._paint_texts(painter, left, right)

    # ------------------------------------------------------------ pieces

    def _paint_bands(self, painter: QPainter) -> None:
        x0, width = self.bounds.left() - 1e6, self.bounds.width() + 2e6
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(BAND_COLOR)
        for row, tier in enumerate(self.row_tiers):
            if tier % 2 == 1:
                painter.drawRect(QRectF(x0, row, width, 1.0))
        pen = QPen(RULE_COLOR, 1.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        for row in range(1, self.n_rows):
            if self.row_tiers[row] != self.row_tiers[row - 1]:
                painter.drawLine(QPointF(x0, row), QPointF(x0 + width, row))

    def _visible_x(self) -> tuple[float, float]:
        """The time range on screen (everything when not in a view box yet)."""
        box = self.getViewBox()
        if box is None:
            return self.bounds.left(), self.bounds.right()
        (left, right), _ = box.viewRange()
        return float(left), float(right)

    def _paint_links(self, painter: QPainter, left: float, right: float) -> None:
        """The links that cross the visible time range; dashed unless there are many
        (a dash pattern over thousands of lines costs seconds)."""
        links = self.timeline.links
        if not len(links):
            return
        lo, hi = links[:, :, 0].min(axis=1), links[:, :, 0].max(axis=1)
        on = np.flatnonzero((hi >= left) & (lo <= right))
        style = Qt.PenStyle.DashLine if len(on) <= DASHED_LINKS else Qt.PenStyle.SolidLine
        pen = QPen(LINK_COLOR, 1.2, style)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawLines([QLineF(ax, ay, bx, by)
                           for (ax, ay), (bx, by) in links[on].tolist()])

    def _paint_texts(self, painter: QPainter, left: float, right: float) -> None:
        """Bar labels and IoU tags, in device pixels, for what is visible only."""
        t = painter.transform()
        if t.m11() == 0 or t.m22() == 0:
            return
        rects = self.timeline.rects
        metrics = QFontMetricsF(self.font)
        painter.save()
        painter.resetTransform()
        painter.setFont(self.font)
        if len(rects):
            x0 = rects[:, 0] * t.m11() + t.dx()
            x1 = rects[:, 2] * t.m11() + t.dx()
            y0 = rects[:, 1] * t.m22() + t.dy()
            y1 = rects[:, 3] * t.m22() + t.dy()
            visible = (rects[:, 2] >= left) & (rects[:, 0] <= right) & (x1 - x0 >= MIN_LABEL_PX)
            painter.setPen(QColor("#111111"))
            for k in np.flatnonzero(visible).tolist():
                box = QRectF(min(x0[k], x1[k]) + 3, min(y0[k], y1[k]),
                             abs(x1[k] - x0[k]) - 6, abs(y1[k] - y0[k]))
                text = metrics.elidedText(self.timeline.labels[k], Qt.TextElideMode.ElideRight,
                                          box.width())
                painter.drawText(box, Qt.AlignmentFlag.AlignVCenter
                                 | Qt.AlignmentFlag.AlignLeft, text)
        self._paint_tags(painter, t, left, right, metrics)
        painter.restore()

    def _paint_tags(self, painter: QPainter, t: QTransform, left: float, right: float,
                    metrics: QFontMetricsF) -> None:
        """IoU tags at the links' middles; a tag that would cover another is skipped
        (zoomed out over thousands of links, the screen holds only so many)."""
        links = self.timeline.links
        if not len(links):
            return
        mid = links.mean(axis=1)
        px = mid[:, 0] * t.m11() + t.dx()
        py = mid[:, 1] * t.m22() + t.dy()
        height = metrics.height() + 2
        width = metrics.horizontalAdvance("0.00") + 6
        on = np.flatnonzero((mid[:, 0] >= left) & (mid[:, 0] <= right))
        taken: set[tuple[int, int]] = set()
        painter.setPen(QPen(LINK_COLOR, 1.0))
        painter.setBrush(QColor(255, 255, 255, 230))
        for k in on.tolist():
            cell = (int(px[k] // width), int(py[k] // height))
            if cell in taken:
                continue
            taken.update((cell[0] + dx, cell[1] + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1))
            text = self.link_texts[k]
            w = metrics.horizontalAdvance(text) + 6
            tag = QRectF(px[k] - w / 2, py[k] - height / 2, w, height)
            painter.drawRoundedRect(tag, 3, 3)
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)
