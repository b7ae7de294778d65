"""The timeline's one graphics item: every bar, link, strip and label of a tiers layout.

Why one item: a long recording has thousands of segments; one ``QGraphicsItem`` per bar
(or per label) makes pyqtgraph crawl. Here the bars are batches built once (a list of
rectangles per annotator colour, drawn by one ``drawRects`` call, one list for the
unmatched outlines, one path for the links), painted with cosmetic pens; the texts are
placed in device pixels at paint time for only the bars and tags that are on screen
(selected with numpy), so zooming never stretches or piles up text.

Where things go is :mod:`app.ui.views.tiers.layout`'s (sub-rows for overlapping
segments, tags inside their pair's rows, pair lanes). Drawing choices (the spec is
silent):

- a bar is filled with its annotator's colour (alpha 150) and outlined in the same
  colour; its label is written inside when it fits, elided only while three characters
  survive (:func:`~app.ui.views.tiers.labels.fit_label`), else hidden; the bar's
  tooltip always has the whole label and times;
- an unmatched segment (nobody else's matched it) gets a red outline (2 px) and a red
  diagonal hatch over its fill (:data:`~app.ui.palette.DISAGREE_COLOR`);
- a matched pair of neighbouring rows is a dashed dark line between the two bar centres
  with the IoU on a white tag where it crosses the rows' border; when the two segments
  carry different labels the tag is red and reads "≠ 0.66" (issue 35), and every tag
  and strip has a tooltip with both annotators and labels; a pair of rows further
  apart is a dark strip over the two segments' overlap in its pair lane, with the tag on
  it;
- rows alternate a faint band per tier, with a darker rule between tiers; pair lanes
  have a dotted rule above them.
"""

from __future__ import annotations

import itertools
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
from PySide6.QtWidgets import (
    QGraphicsSceneHoverEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from app.core.agreement.drawing import Timeline
from app.ui.palette import DISAGREE_COLOR
from app.ui.views.tiers.labels import fit_label
from app.ui.views.tiers.layout import TierLayout

FILL_ALPHA = 150
LINK_COLOR = QColor("#303030")
STRIP_COLOR = QColor(48, 48, 48, 150)
ODD_STRIP_COLOR = QColor(DISAGREE_COLOR.red(), DISAGREE_COLOR.green(), DISAGREE_COLOR.blue(), 170)
BAND_COLOR = QColor(0, 0, 0, 12)
RULE_COLOR = QColor(0, 0, 0, 70)
LABEL_PAD = 3.0
"""Pixels between a bar's edge and its label."""
DASHED_LINKS = 400
DIFFERS_MARK = "≠"
"""Before the IoU of a matched pair whose two labels differ (its tag is red, as the 3D
and regions views write a disagreeing class in red)."""


def _qrects(rects: np.ndarray) -> list[QRectF]:
    return [QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in rects.tolist()]


class TimelineItem(pg.GraphicsObject):  # type: ignore[misc]
    """Paints one :class:`Timeline` as laid out by ``layout``; ``row_colors[r]`` is the
    colour of the core's row ``r``; ``bar_tips[k]`` is bar ``k``'s tooltip."""

    def __init__(
        self,
        timeline: Timeline,
        layout: TierLayout,
        row_colors: Sequence[QColor],
        link_texts: Sequence[str],
        font: QFont,
        bar_tips: Sequence[str] | None = None,
        differs: np.ndarray | None = None,
        pair_tips: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.differs = (
            np.asarray(differs, dtype=bool)
            if differs is not None
            else np.zeros(len(layout.pairs), dtype=bool)
        )
        self.pair_tips = list(pair_tips) if pair_tips is not None else list(link_texts)
        self.device = QTransform()
        """Item to device pixels as last painted (where the tags were put)."""
        self.timeline = timeline
        self.layout = layout
        self.link_texts = list(link_texts)
        self.bar_tips = list(bar_tips) if bar_tips is not None else list(timeline.labels)
        self.font = font
        rects = layout.rects
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
        far = self.differs[~layout.neighbours] if len(layout.pairs) else np.zeros(0, bool)
        self.strips = _qrects(layout.strips[~far])
        self.odd_strips = _qrects(layout.strips[far])
        """The strips of pairs whose labels differ (drawn in the disagreement red)."""
        end = float(rects[:, 2].max()) if len(rects) else 1.0
        start = min(0.0, float(rects[:, 0].min())) if len(rects) else 0.0
        self.bounds = QRectF(start, 0.0, max(end - start, 1e-9), float(layout.height))
        self.shown_labels: dict[int, tuple[str, QRectF]] = {}
        """Bar → (text, box in device pixels) as last painted (hidden labels absent)."""
        self.shown_tags: dict[int, QRectF] = {}
        """Pair → its tag in device pixels as last painted (skipped tags absent)."""
        self.setAcceptHoverEvents(True)

    # ------------------------------------------------------------ QGraphicsItem

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        return QRectF(self.bounds)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        self._paint_bands(painter)
        for color, rects in self.fills:
            fill = QColor(color)
            fill.setAlpha(FILL_ALPHA)
            pen = QPen(color.darker(130), 1.0)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(fill)
            painter.drawRects(rects)
        if self.unmatched:
            pen = QPen(DISAGREE_COLOR, 2.0)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(QBrush(DISAGREE_COLOR, Qt.BrushStyle.BDiagPattern))
            painter.drawRects(self.unmatched)
        painter.setPen(Qt.PenStyle.NoPen)
        for strips, color in ((self.strips, STRIP_COLOR), (self.odd_strips, ODD_STRIP_COLOR)):
            if strips:
                painter.setBrush(color)
                painter.drawRects(strips)
        left, right = self._visible_x()
        self._paint_links(painter, left, right)
        self._paint_texts(painter, left, right)

    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        """The tooltip of the bar under the mouse (its whole label, times, annotator)."""
        p = event.pos()
        self.setToolTip(self.tip_at(p.x(), p.y()))

    def tip_at(self, x: float, y: float) -> str:
        """The tooltip at item point (x, y): an IoU tag or a pair lane's strip (both
        segments' annotators and labels), else a bar (its whole label), else nothing."""
        at = self.device.map(QPointF(x, y))
        for k, tag in self.shown_tags.items():
            if tag.contains(at):
                return self.pair_tips[k]
        s = self.layout.strips
        if len(s):
            on = np.flatnonzero(
                (s[:, 0] <= x) & (s[:, 2] >= x) & (s[:, 1] <= y) & (s[:, 3] >= y)
            )
            if len(on):
                far = np.flatnonzero(~self.layout.neighbours)
                return self.pair_tips[int(far[int(on[-1])])]
        r = self.layout.rects
        under = np.flatnonzero(
            (r[:, 0] <= x) & (r[:, 2] >= x) & (r[:, 1] <= y) & (r[:, 3] >= y)
        )
        return self.bar_tips[int(under[-1])] if len(under) else ""

    # ------------------------------------------------------------ pieces

    def _paint_bands(self, painter: QPainter) -> None:
        x0, width = self.bounds.left() - 1e6, self.bounds.width() + 2e6
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(BAND_COLOR)
        rows = self.layout.rows
        for row in rows:
            if row.tier % 2 == 1:
                painter.drawRect(QRectF(x0, row.y0, width, row.y1 - row.y0))
        pen = QPen(RULE_COLOR, 1.0)
        pen.setCosmetic(True)
        dotted = QPen(RULE_COLOR, 1.0, Qt.PenStyle.DotLine)
        dotted.setCosmetic(True)
        for before, row in itertools.pairwise(rows):
            if row.tier != before.tier:
                painter.setPen(pen)
            elif row.is_pair and not before.is_pair:
                painter.setPen(dotted)
            else:
                continue
            painter.drawLine(QPointF(x0, row.y0), QPointF(x0 + width, row.y0))

    def _visible_x(self) -> tuple[float, float]:
        """The time range on screen (everything when not in a view box yet)."""
        box = self.getViewBox()
        if box is None:
            return self.bounds.left(), self.bounds.right()
        (left, right), _ = box.viewRange()
        return float(left), float(right)

    def _paint_links(self, painter: QPainter, left: float, right: float) -> None:
        """The lines that cross the visible time range; dashed unless there are many
        (a dash pattern over thousands of lines costs seconds)."""
        links = self.layout.lines
        if not len(links):
            return
        lo, hi = links[:, :, 0].min(axis=1), links[:, :, 0].max(axis=1)
        on = np.flatnonzero((hi >= left) & (lo <= right))
        style = Qt.PenStyle.DashLine if len(on) <= DASHED_LINKS else Qt.PenStyle.SolidLine
        pen = QPen(LINK_COLOR, 1.2, style)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawLines([QLineF(ax, ay, bx, by) for (ax, ay), (bx, by) in links[on].tolist()])

    def _paint_texts(self, painter: QPainter, left: float, right: float) -> None:
        """Bar labels and IoU tags, in device pixels, for what is visible only."""
        self.shown_labels = {}
        self.shown_tags = {}
        t = painter.transform()
        if t.m11() == 0 or t.m22() == 0:
            return
        self.device = QTransform(t)
        rects = self.layout.rects
        metrics = QFontMetricsF(self.font)
        painter.save()
        painter.resetTransform()
        painter.setFont(self.font)
        if len(rects):
            x0 = rects[:, 0] * t.m11() + t.dx()
            x1 = rects[:, 2] * t.m11() + t.dx()
            y0 = rects[:, 1] * t.m22() + t.dy()
            y1 = rects[:, 3] * t.m22() + t.dy()
            room = np.abs(x1 - x0) - 2 * LABEL_PAD
            visible = (rects[:, 2] >= left) & (rects[:, 0] <= right) & (room > 0)
            painter.setPen(QColor("#111111"))
            for k in np.flatnonzero(visible).tolist():
                text = fit_label(self.timeline.labels[k], float(room[k]), metrics.horizontalAdvance)
                if not text:
                    continue
                box = QRectF(
                    min(x0[k], x1[k]) + LABEL_PAD,
                    min(y0[k], y1[k]),
                    float(room[k]),
                    abs(y1[k] - y0[k]),
                )
                painter.drawText(
                    box, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text
                )
                self.shown_labels[k] = (text, box)
        self._paint_tags(painter, t, left, right, metrics)
        painter.restore()

    def _paint_tags(
        self, painter: QPainter, t: QTransform, left: float, right: float, metrics: QFontMetricsF
    ) -> None:
        """IoU tags at the layout's places; a tag that would cover another is skipped
        (zoomed out over thousands of pairs, the screen holds only so many)."""
        tags = self.layout.tags
        if not len(tags):
            return
        px = tags[:, 0] * t.m11() + t.dx()
        py = tags[:, 1] * t.m22() + t.dy()
        height = metrics.height() + 2
        plain, odd = QPen(LINK_COLOR, 1.0), QPen(DISAGREE_COLOR, 1.5)
        painter.setBrush(QColor(255, 255, 255, 230))
        on = np.flatnonzero((tags[:, 0] >= left) & (tags[:, 0] <= right))
        active: list[QRectF] = []  # placed tags that may still touch the next ones
        for k in on[np.argsort(px[on], kind="stable")].tolist():
            text = self.link_texts[k]
            w = metrics.horizontalAdvance(text) + 6
            tag = QRectF(px[k] - w / 2, py[k] - height / 2, w, height)
            active = [o for o in active if o.right() >= tag.left() - w]
            if any(tag.intersects(o) for o in active):
                continue
            active.append(tag)
            painter.setPen(odd if self.differs[k] else plain)
            painter.drawRoundedRect(tag, 3, 3)
            painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)
            self.shown_tags[k] = tag
