"""The 3D view without OpenGL: the same scene, camera and labels, painted with QPainter.

Why: on Qt's ``offscreen`` platform (``accord open --screenshot`` with no display, the
offscreen tests) or a session without GLX there is no OpenGL; the view used to show a
sentence only, so a screenshot showed no boxes at all and the framing, labels and
top-down toggle could not be seen or tested there. This canvas projects the scene with
the numpy camera of :mod:`.camera` (the very matrices pyqtgraph uses) and paints the
wireframes, links and cluster labels with a ``QPainter``: what the GL canvas shows,
minus depth testing and antialiased GL lines. Lines are drawn back to front in the
order given (boxes do not hide one another in a wireframe, so nothing is lost).

It has the GL canvas's interface (:meth:`draw`, :meth:`set_top_down`, :meth:`reframe`,
:meth:`camera`, :meth:`project`, :attr:`drawn`); drag orbits and the wheel zooms, as
there (no pan). The view says in its header that this is the software drawing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

import numpy as np
from PySide6.QtCore import QLineF, QPointF
from PySide6.QtGui import (
    QColor,
    QFont,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QWidget

from app.core.agreement.drawing import CuboidScene
from app.ui.views.cuboids import painting
from app.ui.views.cuboids.camera import Camera, frame_points, project
from app.ui.views.cuboids.canvas_state import Framing, unmatched_edges
from app.ui.views.cuboids.labels import ClusterLabel
from app.ui.views.turns import next_turn

BACKGROUND = QColor("#F6F6F4")
EDGE_WIDTH = 2.0
UNMATCHED_WIDTH = 4.0
LINK_COLOR = QColor(38, 38, 38)
POINT_COLOR = QColor(89, 89, 89, 140)
GRID_COLOR = QColor(0, 0, 0, 40)
GRID_SPACING = 5.0
ORBIT_DEGREES_PER_PX = 0.5


def grid_segments(edges: np.ndarray) -> np.ndarray:
    """(n, 2, 3) lines of a 5 m ground grid under the boxes, as the GL canvas lays it."""
    points = edges.reshape(-1, 3)
    low, high = points.min(axis=0), points.max(axis=0)
    center = (low + high) / 2
    half = np.ceil((high[:2] - low[:2]) / GRID_SPACING + 2) * GRID_SPACING / 2
    out = []
    for k in range(round(2 * half[0] / GRID_SPACING) + 1):
        x = center[0] - half[0] + k * GRID_SPACING
        out.append([[x, center[1] - half[1], low[2]], [x, center[1] + half[1], low[2]]])
    for k in range(round(2 * half[1] / GRID_SPACING) + 1):
        y = center[1] - half[1] + k * GRID_SPACING
        out.append([[center[0] - half[0], y, low[2]], [center[0] + half[0], y, low[2]]])
    return np.array(out, dtype=float)


class FlatCanvas(QWidget):
    """A widget that paints one scene in software; :meth:`draw` replaces what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumSize(200, 200)
        self.scene: CuboidScene | None = None
        self.colors: list[QColor] = []
        self.cloud: np.ndarray | None = None
        self.labels: list[ClusterLabel] = []
        self.font_scale = 1.0
        self.drawn: painting.Drawn | None = None
        self._arranged: tuple[list[ClusterLabel], tuple[object, ...]] | None = None
        """The labels and view that :attr:`drawn` was laid out for."""
        self._camera = Camera()
        self.framing = Framing()
        self._drag: QPointF | None = None

    def draw(
        self,
        scene: CuboidScene,
        colors: Sequence[QColor],
        cloud: np.ndarray | None,
        labels: Sequence[ClusterLabel] = (),
        font_scale: float = 1.0,
    ) -> None:
        self.scene, self.colors, self.cloud = scene, list(colors), cloud
        self.labels, self.font_scale = list(labels), font_scale
        self.framing.set_points(frame_points(scene.edges, cloud))
        self._camera = self.framing.fitted(self.width(), self.height())
        # The labels laid out on a turn of their own and painted on the next: done in
        # one paint, a 2,000-sweep study's first look held the GUI thread 45-50 ms
        # (tests/benchmarks/bench_gui_stall.py). A paint before then lays them out itself.
        next_turn(self, partial(self._lay_out_then_paint, self.labels))

    def _lay_out_then_paint(self, labels: list[ClusterLabel]) -> None:
        if labels is self.labels and labels and self.isVisible():
            self._laid_out(painting.label_font(self.font_scale))
        next_turn(self, self.update)

    def clear(self) -> None:
        self.scene, self.cloud, self.labels, self.drawn = None, None, [], None
        self.update()

    # ----------------------------------------------------------------- camera

    @property
    def top_down(self) -> bool:
        return self.framing.top

    def set_top_down(self, on: bool) -> None:
        self.framing.top = on
        self.reframe()

    def reframe(self) -> None:
        self._camera = self.framing.fitted(self.width(), self.height())
        self.update()

    def camera(self) -> Camera:
        return self._camera

    def project(self, points: np.ndarray) -> np.ndarray:
        return project(self._camera, points, self.width(), self.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.framing.refit_on_resize:
            self.reframe()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._drag = event.position()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        if self._drag is None:
            return
        d = event.position() - self._drag
        self._drag = event.position()
        c = self._camera
        elevation = min(90.0, max(-90.0, c.elevation + d.y() * ORBIT_DEGREES_PER_PX))
        self._camera = replace(
            c, azimuth=c.azimuth - d.x() * ORBIT_DEGREES_PER_PX, elevation=elevation
        )
        self.framing.user_moved = True
        self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._drag = None

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        factor = 0.999 ** event.angleDelta().y()
        self._camera = replace(self._camera, distance=self._camera.distance * factor)
        self.framing.user_moved = True
        self.update()

    # ----------------------------------------------------------------- painting

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        try:
            painter.fillRect(self.rect(), BACKGROUND)
            if self.scene is not None:
                self._paint_scene(painter, self.scene)
        finally:
            painter.end()

    def _lines(self, painter: QPainter, segments: np.ndarray, pen: QPen) -> None:
        if not len(segments):
            return
        px = self.project(segments.reshape(-1, 3)).reshape(-1, 4)
        keep = ~np.isnan(px).any(axis=1)
        painter.setPen(pen)
        painter.drawLines([QLineF(*row) for row in px[keep].tolist()])

    def _paint_scene(self, painter: QPainter, scene: CuboidScene) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self.cloud is not None and len(self.cloud):
            px = self.project(self.cloud)
            px = px[~np.isnan(px).any(axis=1)]
            painter.setPen(QPen(POINT_COLOR, 2.0))
            painter.drawPoints([QPointF(x, y) for x, y in px.tolist()])
        if len(scene.edges):
            self._lines(painter, grid_segments(scene.edges), QPen(GRID_COLOR, 1.0))
            unmatched = unmatched_edges(scene)
            for k, color in enumerate(self.colors):
                mine = scene.edge_owner == k
                self._lines(painter, scene.edges[mine & ~unmatched], QPen(color, EDGE_WIDTH))
                self._lines(painter, scene.edges[mine & unmatched], QPen(color, UNMATCHED_WIDTH))
        self._lines(painter, scene.links, QPen(LINK_COLOR, 1.5))
        if self.labels:
            font = painting.label_font(self.font_scale)
            painting.paint(painter, self._laid_out(font), self.labels, font)
        else:
            self.drawn = self._arranged = None

    def _laid_out(self, font: QFont) -> painting.Drawn:
        """:attr:`drawn`, laid out again only when the labels or the view changed: a
        layout of a lidar sweep's 40 labels is tens of ms, and Qt repaints for many
        reasons."""
        view = (self._camera, self.font_scale, self.width(), self.height())
        arranged = self._arranged
        if self.drawn is None or arranged is None or arranged[0] is not self.labels \
                or arranged[1] != view:
            self.drawn = painting.arrange(
                self.labels, self.project, font, self.width(), self.height()
            )
            self._arranged = (self.labels, view)
        return self.drawn
