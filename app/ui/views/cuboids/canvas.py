"""The OpenGL canvas of the 3D cuboids view: draws a :class:`CuboidScene`, nothing else.

Imported only when :func:`app.ui.gl_support.gl_available` says OpenGL works, so the
offscreen tests never load ``pyqtgraph.opengl``.

What is drawn, back to front (choices; the spec is silent):

- the point cloud as small grey points (2 px, translucent), when the item has one;
- a ground grid (5 m) under the boxes, at the lowest box bottom, for orientation;
- every box's 12 edges in its annotator's colour: **one** ``GLLinePlotItem`` in
  ``lines`` mode with per-vertex colours for all annotators (2 px);
- the boxes nobody else matched drawn again, 5 px wide, as a second batch: an
  unmatched box stands out by thickness while keeping its annotator's colour;
- the matched pairs as dark lines between box centres, each with its IoU as text, and
  each unmatched box labelled in red above its top face; labels are drawn in one pass.

The camera looks at the centre of the boxes' bounding box from behind and above the
sensor (azimuth 200°, elevation 30°), at a distance that fits the bounding sphere in the
field of view. Orbit (drag), pan (middle drag) and zoom (wheel) are pyqtgraph's.

Background: near-white, because the annotator palette (Okabe-Ito) is designed for a
light background and dark IoU text reads on it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph import Vector
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QKeyEvent,
    QMatrix4x4,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QVector4D,
    QWheelEvent,
)
from PySide6.QtOpenGL import QOpenGLPaintDevice
from PySide6.QtWidgets import QWidget

from app.core.agreement.drawing import CuboidScene
from app.ui.palette import DISAGREE_COLOR

BACKGROUND = QColor("#F6F6F4")
EDGE_WIDTH = 2.0
UNMATCHED_WIDTH = 5.0
LINK_COLOR = (0.15, 0.15, 0.15, 1.0)
LINK_TEXT = QColor("#202020")
ALONE_TEXT = DISAGREE_COLOR
POINT_COLOR = (0.35, 0.35, 0.35, 0.55)
GRID_COLOR = (0, 0, 0, 40)
GRID_SPACING = 5.0
AZIMUTH = 200.0
FRAME_MARGIN = 1.12
MAX_LABEL_DRIFT = 3
ELEVATION = 30.0


def _rgba(color: QColor) -> tuple[float, float, float, float]:
    return (color.redF(), color.greenF(), color.blueF(), 1.0)


class CuboidCanvas(gl.GLViewWidget):  # type: ignore[misc]
    """A ``GLViewWidget`` that shows one scene; :meth:`draw` replaces what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackgroundColor(BACKGROUND)
        self.setMinimumSize(200, 200)
        self._framed: np.ndarray | None = None
        self._user_moved = False

    def draw(self, scene: CuboidScene, colors: Sequence[QColor], cloud: np.ndarray | None,
             link_texts: Sequence[str] | None = None, alone_texts: Sequence[str] | None = None,
             font_scale: float = 1.0) -> None:
        """Show ``scene``; ``colors[k]`` is the colour of ``scene.annotators[k]``;
        ``link_texts[k]`` labels link ``k`` (its IoU alone when not given);
        ``alone_texts[k]`` labels the k-th unmatched box (``unmatched`` when not given)."""
        self.clear()
        if cloud is not None and len(cloud):
            self.addItem(gl.GLScatterPlotItem(pos=cloud, color=POINT_COLOR, size=2.0,
                                              pxMode=True, glOptions="translucent"))
        if len(scene.edges):
            self._add_grid(scene)
            rgba = np.array([_rgba(c) for c in colors], dtype=np.float32).reshape(-1, 4)
            self._add_edges(scene.edges, rgba[scene.edge_owner], EDGE_WIDTH)
            unmatched = self._unmatched_edges(scene)
            if unmatched.any():
                self._add_edges(scene.edges[unmatched], rgba[scene.edge_owner[unmatched]],
                                UNMATCHED_WIDTH)
        self._add_labels(scene, link_texts, alone_texts, font_scale)
        self.frame(scene.edges.reshape(-1, 3) if len(scene.edges) else cloud)

    def frame(self, points: np.ndarray | None) -> None:
        """Point the camera at ``points`` so they fill the view (with a margin)."""
        self._framed = None if points is None or not len(points) else np.asarray(points)
        self._user_moved = False
        self._fit()

    def _fit(self) -> None:
        points = self._framed
        if points is None:
            self.setCameraPosition(pos=Vector(0, 0, 0), distance=20.0, elevation=ELEVATION,
                                   azimuth=AZIMUTH)
            return
        # Fit in the camera's own axes: the points' extent across the view (right, up)
        # decides the distance through the field of view, plus half their depth so the
        # nearest ones fit too. pyqtgraph's fov is horizontal.
        elevation, azimuth = math.radians(ELEVATION), math.radians(AZIMUTH)
        back = np.array([math.cos(elevation) * math.cos(azimuth),
                         math.cos(elevation) * math.sin(azimuth), math.sin(elevation)])
        right = np.cross(-back, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, -back)
        axes = np.stack([right, up, back])
        local = points @ axes.T
        low, high = local.min(axis=0), local.max(axis=0)
        center = ((low + high) / 2) @ axes
        half = np.maximum((high - low) / 2, 0.5)
        tan_x = math.tan(math.radians(float(self.opts["fov"])) / 2)
        tan_y = tan_x * self.height() / max(self.width(), 1)
        distance = max(half[0] / tan_x, half[1] / tan_y) * FRAME_MARGIN + half[2]
        self.setCameraPosition(pos=Vector(*center.tolist()), distance=float(distance),
                               elevation=ELEVATION, azimuth=AZIMUTH)

    def _ndc(self, points: np.ndarray) -> np.ndarray | None:
        """``points`` in normalized device coordinates, ``None`` if any is behind us."""
        clip = self._clip(points)
        w = clip[:, 3]
        if (w <= 0).any():
            return None
        ndc: np.ndarray = clip[:, :2] / w[:, None]
        return ndc

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if not getattr(self, "_user_moved", True):
            self._fit()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self._user_moved = True
        super().mousePressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        self._user_moved = True
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        self._user_moved = True
        super().keyPressEvent(event)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Widget pixel coordinates ``(n, 2)`` (x right, y down) of 3D ``points``."""
        clip = self._clip(np.asarray(points, dtype=float).reshape(-1, 3))
        ndc = clip[:, :2] / clip[:, 3:4]
        out: np.ndarray = np.column_stack([(ndc[:, 0] + 1) / 2 * self.width(),
                                           (1 - ndc[:, 1]) / 2 * self.height()])
        return out

    def _clip(self, points: np.ndarray) -> np.ndarray:
        """Clip coordinates ``(n, 4)`` of ``points`` under the current camera."""
        viewport = self.getViewport()
        m: QMatrix4x4 = self.projectionMatrix(viewport, viewport) * self.viewMatrix()
        matrix = np.array(m.data(), dtype=float).reshape(4, 4).T  # data() is column-major
        out: np.ndarray = np.column_stack([points, np.ones(len(points))]) @ matrix.T
        return out

    # ----------------------------------------------------------------- pieces

    def _add_edges(self, edges: np.ndarray, rgba: np.ndarray, width: float) -> None:
        pos = edges.reshape(-1, 3).astype(np.float32)
        colors = np.repeat(rgba, 2, axis=0)
        self.addItem(gl.GLLinePlotItem(pos=pos, color=colors, width=width, mode="lines",
                                       antialias=True, glOptions="translucent"))

    @staticmethod
    def _unmatched_edges(scene: CuboidScene) -> np.ndarray:
        """Per edge: does it belong to a box nobody else matched?"""
        if len(scene.edges) != 12 * len(scene.unmatched):
            return np.zeros(len(scene.edges), dtype=bool)
        mask: np.ndarray = np.repeat(scene.unmatched, 12)
        return mask

    def _add_grid(self, scene: CuboidScene) -> None:
        points = scene.edges.reshape(-1, 3)
        low, high = points.min(axis=0), points.max(axis=0)
        span = np.ceil((high[:2] - low[:2]) / GRID_SPACING + 2) * GRID_SPACING
        grid = gl.GLGridItem(color=GRID_COLOR)
        grid.setSize(x=float(span[0]), y=float(span[1]))
        grid.setSpacing(x=GRID_SPACING, y=GRID_SPACING)
        center = (low + high) / 2
        grid.translate(float(center[0]), float(center[1]), float(low[2]))
        self.addItem(grid)

    def _add_labels(self, scene: CuboidScene, link_texts: Sequence[str] | None,
                    alone_texts: Sequence[str] | None, font_scale: float) -> None:
        points, texts, colors = [], [], []
        alone = np.flatnonzero(scene.unmatched)
        if len(alone) and len(scene.edges) == 12 * len(scene.unmatched):
            boxes = scene.edges.reshape(-1, 24, 3)[alone]
            tops = np.column_stack([boxes[:, :, :2].mean(axis=1), boxes[:, :, 2].max(axis=1)])
            points.append(tops)
            texts += list(alone_texts if alone_texts is not None else ["unmatched"] * len(alone))
            colors += [ALONE_TEXT] * len(alone)
        if len(scene.links):
            self.addItem(gl.GLLinePlotItem(pos=scene.links.reshape(-1, 3).astype(np.float32),
                                           color=LINK_COLOR, width=1.5, mode="lines",
                                           antialias=True, glOptions="translucent"))
            points.append(scene.links.mean(axis=1))
            texts += list(link_texts if link_texts is not None
                          else [f"{iou:.2f}" for iou in scene.link_iou.tolist()])
            colors += [LINK_TEXT] * len(scene.links)
        if texts:
            self.addItem(LinkLabels(np.concatenate(points), texts, colors, font_scale))


class LinkLabels(GLGraphicsItem):  # type: ignore[misc]
    """Text at 3D points, painted in one pass on top of the scene.

    Not ``GLTextItem``: that paints with ``QPainter(widget)``, which ``QWidget.grab()``
    redirects to the grab's pixmap and then covers with the GL image, so the labels
    vanish from screenshots of the window. Painting on a ``QOpenGLPaintDevice`` goes
    into the framebuffer being drawn, whoever asked for it. Labels that would overlap
    on screen are stacked downwards (three annotators give three links per object), at
    most :data:`MAX_LABEL_DRIFT` lines, else left out; the unmatched ones come first.
    """

    def __init__(self, points: np.ndarray, texts: list[str], colors: list[QColor],
                 font_scale: float) -> None:
        super().__init__()
        self.points = np.asarray(points, dtype=float).reshape(-1, 3)
        self.texts = texts
        self.colors = colors
        self.font = QFont()
        self.font.setPointSizeF(9.0 * font_scale)
        self.font.setBold(True)

    def paint(self) -> None:
        view = self.view()
        if view is None or not self.texts:
            return
        ratio = view.devicePixelRatioF()
        device = QOpenGLPaintDevice(QSize(view.deviceWidth(), view.deviceHeight()))
        device.setDevicePixelRatio(ratio)
        mvp = self.mvpMatrix()
        w, h = view.width(), view.height()
        metrics = QFontMetricsF(self.font)
        painter = QPainter(device)
        try:
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setFont(self.font)
            placed: list[QRectF] = []
            for point, text, color in zip(self.points, self.texts, self.colors, strict=True):
                v = mvp.map(QVector4D(float(point[0]), float(point[1]), float(point[2]), 1.0))
                if v.w() <= 0:
                    continue
                x = (v.x() / v.w() + 1) / 2 * w
                y = (1 - v.y() / v.w()) / 2 * h
                bw, bh = metrics.horizontalAdvance(text) + 6, metrics.height() + 2
                box = QRectF(x + 6, y - bh / 2, bw, bh)
                hit = next((o for o in placed if box.intersects(o)), None)
                while hit is not None and box.top() - y < MAX_LABEL_DRIFT * bh:
                    box.moveTop(hit.bottom() + 1)
                    hit = next((o for o in placed if box.intersects(o)), None)
                if hit is not None:
                    continue  # too far from its place to be read as its label
                placed.append(box)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(255, 255, 255, 215))
                painter.drawRoundedRect(box, 3, 3)
                painter.setPen(color)
                painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
        finally:
            painter.end()
