"""The slice canvas: one axial slice, each annotator's outline of one label in their
colour, drawn from the segments :func:`app.core.agreement.volumes.slices.outline` gives.

Outlines that coincide (two annotators painted the same boundary) would hide each other;
so the first annotator's line is the widest and each next one narrower, drawn on top:
where they agree every colour shows as stripes of one line, where they differ each line
stands alone. The slice keeps its voxel aspect (square voxels: Potato's canonical voxel
space), fitted into the widget, row j downwards, column i to the right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

BACKGROUND = QColor("#20242a")
GRID = QColor("#3a4048")


@dataclass(frozen=True, slots=True)
class Outline:
    """One annotator's outline on the slice: voxel-edge segments (n, 4) and a colour."""

    name: str
    color: QColor
    segments: np.ndarray


class SliceCanvas(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.size_ij = (1, 1)
        self.outlines: list[Outline] = []
        self.hidden: set[str] = set()
        self.setMinimumSize(240, 200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def show_slice(self, size_ij: tuple[int, int], outlines: list[Outline]) -> None:
        self.size_ij = (max(1, size_ij[0]), max(1, size_ij[1]))
        self.outlines = outlines
        self.update()

    def slice_rect(self) -> QRectF:
        """Where the slice is drawn: fitted, centred, square voxels."""
        ni, nj = self.size_ij
        margin = 8.0
        scale = min((self.width() - 2 * margin) / ni, (self.height() - 2 * margin) / nj)
        scale = max(scale, 0.01)
        w, h = ni * scale, nj * scale
        return QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.fillRect(self.rect(), self.palette().window())
        rect = self.slice_rect()
        painter.fillRect(rect, BACKGROUND)
        painter.setPen(QPen(GRID, 1))
        painter.drawRect(rect)
        scale = rect.width() / self.size_ij[0]
        shown = [o for o in self.outlines if o.name not in self.hidden]
        n = len(shown)
        for index, line in enumerate(shown):
            # 2 px for the last, 4 px more for each before it (2 px of each colour shows
            # on either side where lines coincide), never wider than half a voxel
            width = max(1.5, min(2.0 + 4.0 * (n - 1 - index), scale * 0.5))
            pen = QPen(line.color, width)
            pen.setCapStyle(Qt.PenCapStyle.SquareCap)
            painter.setPen(pen)
            s = line.segments.astype(float) * scale
            painter.drawLines([QLineF(rect.left() + x0, rect.top() + y0,
                                      rect.left() + x1, rect.top() + y1)
                               for x0, y0, x1, y1 in s])
        painter.end()
