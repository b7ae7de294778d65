"""Measuring and painting the cluster labels with a ``QPainter`` (both canvases).

Why one module: the OpenGL canvas paints its labels on the framebuffer, the software
canvas on a widget; both must show the same labels in the same places, so measuring
(font metrics → sizes), layout (:mod:`.layout`) and painting live here once, and both
canvases keep the last :class:`Drawn` for tests.

Look (choices): each label is a rounded white card (85% opaque) with the class name in
bold on its first line and the IoU lines below, dark grey; an unmatched box's label is in
the disagreement red. A leader line (thin, grey) joins a label moved away from its
anchor to the anchor, which gets a small dot. The hidden-count note sits in the bottom
left corner on the same card.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen

from app.ui.palette import DISAGREE_COLOR
from app.ui.views.cuboids.labels import ClusterLabel, screen_anchors, screen_outlines
from app.ui.views.cuboids.layout import Layout, Request, hidden_note, layout
from app.ui.views.label_geometry import Rect

TEXT = QColor("#202020")
CARD = QColor(255, 255, 255, 218)
LEADER = QColor(90, 90, 90, 200)
PAD_X, PAD_Y = 4.0, 2.0
NOTE_MARGIN = 6.0
DOT_RADIUS = 2.0
INK_MARGIN = 3.0
"""Pixels around the cards, leaders and dots that antialiasing may still touch."""


@dataclass(frozen=True, slots=True)
class Drawn:
    """What the last paint showed: for tests and for the view's header."""

    layout: Layout
    texts: tuple[tuple[str, ...], ...]
    """The lines painted, per placed label (in ``layout.placed`` order)."""
    note: str
    note_rect: Rect | None
    anchors: np.ndarray
    """(n, 2) pixels, per label (placed or not)."""
    outlines: tuple[Rect, ...]
    """The clusters' outlines on screen, which no label covers."""


def label_font(font_scale: float) -> QFont:
    font = QFont()
    font.setPointSizeF(max(6.0, 9.0 * font_scale))
    return font


def _size(metrics: QFontMetricsF, bold: QFontMetricsF, lines: Sequence[str]) -> tuple[float, float]:
    widths = [bold.horizontalAdvance(lines[0])] + [metrics.horizontalAdvance(t) for t in lines[1:]]
    return (max(widths) + 2 * PAD_X + 2, len(lines) * metrics.height() + 2 * PAD_Y)


def arrange(
    labels: Sequence[ClusterLabel],
    to_screen: Callable[[np.ndarray], np.ndarray],
    font: QFont,
    width: float,
    height: float,
) -> Drawn:
    """Lay out ``labels`` in a ``width × height`` view whose camera is ``to_screen``
    (world points → widget pixels)."""
    outlines_px = screen_outlines(labels, to_screen)
    anchors_px = screen_anchors(labels, outlines_px, to_screen)
    outlines = tuple(
        Rect(x0, y0, x1 - x0, y1 - y0)
        for x0, y0, x1, y1 in outlines_px[~np.isnan(outlines_px).any(axis=1)].tolist()
    )
    bold_font = QFont(font)
    bold_font.setBold(True)
    metrics, bold = QFontMetricsF(font), QFontMetricsF(bold_font)
    requests = [
        Request(
            (float(p[0]), float(p[1])),
            _size(metrics, bold, c.lines),
            _size(metrics, bold, (c.short,)),
        )
        for c, p in zip(labels, anchors_px, strict=True)
    ]
    result = layout(requests, width, height, obstacles=outlines)
    note_rect = None
    if result.dropped:
        # Reserve the note's corner and lay out again, so the note covers no label.
        probe = hidden_note(result.dropped + len(requests))
        w, h = _size(metrics, metrics, (probe,))
        note_rect = Rect(NOTE_MARGIN, height - h - NOTE_MARGIN, w, h)
        result = layout(requests, width, height, reserved=(note_rect,), obstacles=outlines,
                        earlier=result)
    texts = tuple(
        ((labels[p.index].short,) if p.short else labels[p.index].lines) for p in result.placed
    )
    return Drawn(result, texts, hidden_note(result.dropped), note_rect, anchors_px, outlines)


def paint(painter: QPainter, drawn: Drawn, labels: Sequence[ClusterLabel], font: QFont) -> None:
    """Paint ``drawn`` (from :func:`arrange`) with ``painter``."""
    bold_font = QFont(font)
    bold_font.setBold(True)
    line_h = QFontMetricsF(font).height()
    anchors_px = drawn.anchors
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    for placed in drawn.layout.placed:  # leaders first: no line crosses a card
        if placed.leader:
            ax, ay = float(anchors_px[placed.index][0]), float(anchors_px[placed.index][1])
            nx, ny = placed.rect.nearest(ax, ay)
            painter.setPen(QPen(LEADER, 1.0))
            painter.setBrush(LEADER)
            painter.drawLine(QPointF(ax, ay), QPointF(nx, ny))
            painter.drawEllipse(QPointF(ax, ay), DOT_RADIUS, DOT_RADIUS)
    for placed, lines in zip(drawn.layout.placed, drawn.texts, strict=True):
        r = placed.rect
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(CARD)
        painter.drawRoundedRect(QRectF(r.x, r.y, r.w, r.h), 3, 3)
        painter.setPen(DISAGREE_COLOR if labels[placed.index].unmatched else TEXT)
        for k, text in enumerate(lines):
            painter.setFont(bold_font if k == 0 else font)
            box = QRectF(r.x + PAD_X, r.y + PAD_Y + k * line_h, r.w - 2 * PAD_X, line_h)
            painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)
    if drawn.note and drawn.note_rect is not None:
        r = drawn.note_rect
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(CARD)
        painter.drawRoundedRect(QRectF(r.x, r.y, r.w, r.h), 3, 3)
        painter.setPen(TEXT)
        painter.setFont(font)
        painter.drawText(QRectF(r.x, r.y, r.w, r.h), Qt.AlignmentFlag.AlignCenter, drawn.note)


def ink_bounds(drawn: Drawn, width: float, height: float) -> QRectF:
    """The part of a ``width × height`` view that :func:`paint` can touch: every card,
    every leader from its anchor and the note, with a margin, within the view (empty when
    nothing is drawn)."""
    rects = [QRectF(p.rect.x, p.rect.y, p.rect.w, p.rect.h) for p in drawn.layout.placed]
    for placed in drawn.layout.placed:
        if placed.leader:
            ax, ay = float(drawn.anchors[placed.index][0]), float(drawn.anchors[placed.index][1])
            rects.append(QRectF(ax - DOT_RADIUS, ay - DOT_RADIUS, 2 * DOT_RADIUS, 2 * DOT_RADIUS))
    if drawn.note and drawn.note_rect is not None:
        r = drawn.note_rect
        rects.append(QRectF(r.x, r.y, r.w, r.h))
    bounds = QRectF()
    for rect in rects:
        bounds = bounds.united(rect)
    if bounds.isEmpty():
        return QRectF()
    m = INK_MARGIN
    return bounds.adjusted(-m, -m, m, m).intersected(QRectF(0, 0, width, height))


def labels_image(drawn: Drawn, labels: Sequence[ClusterLabel], font: QFont, width: int,
                 height: int, ratio: float) -> tuple[QImage, QPointF]:
    """``drawn`` painted on a transparent image of only the part of the view it covers
    (:func:`ink_bounds`, in whole device pixels), and where that part's top left corner is
    in the view.

    Why not the whole view: the OpenGL canvas draws this image into its framebuffer on
    every paint, and a full 1280 × 800 image cost about 7 ms there on Mesa's software
    renderer; the labels of a sweep cover a small part of it."""
    full = QRect(0, 0, max(1, round(width * ratio)), max(1, round(height * ratio)))
    ink = ink_bounds(drawn, width, height)
    area = QRectF(ink.x() * ratio, ink.y() * ratio, ink.width() * ratio,
                  ink.height() * ratio).toAlignedRect().intersected(full)
    if area.isEmpty():
        area = QRect(0, 0, 1, 1)
    image = QImage(area.width(), area.height(), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(Qt.GlobalColor.transparent)
    origin = QPointF(area.x() / ratio, area.y() / ratio)
    painter = QPainter(image)
    try:
        painter.translate(-origin)
        paint(painter, drawn, labels, font)
    finally:
        painter.end()
    return image, origin
