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
- the matched pairs as dark lines between box centres;
- one label per cluster of matched boxes (class, then each pair's IoU) or unmatched box
  (:mod:`.labels`), placed so that none overlaps another (:mod:`.layout`), painted in
  one pass (:mod:`.painting`), laid out again whenever the camera moves so orbiting keeps
  them apart.

The camera (:mod:`.camera`) frames every box corner of every annotator with a margin, at
any widget size (refitted on resize until the user moves the camera), from behind and
above the sensor (azimuth 200°, elevation 30°), or straight down z in the top-down mode
(:meth:`CuboidCanvas.set_top_down`). Orbit (drag), pan (middle drag) and zoom (wheel)
are pyqtgraph's; :meth:`CuboidCanvas.reframe` puts the fitted camera back.

Background: near-white, because the annotator palette (Okabe-Ito) is designed for a
light background and dark IoU text reads on it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph.opengl as gl
from pyqtgraph import Vector
from pyqtgraph.opengl.GLGraphicsItem import GLGraphicsItem
from PySide6.QtCore import QPointF, QSize
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMatrix4x4,
    QMouseEvent,
    QPainter,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtOpenGL import QOpenGLPaintDevice
from PySide6.QtWidgets import QWidget

from app.core.agreement.drawing import CuboidScene
from app.ui.views.cuboids import painting
from app.ui.views.cuboids.camera import Camera, frame_points, project
from app.ui.views.cuboids.canvas_state import Framing, unmatched_edges
from app.ui.views.cuboids.labels import ClusterLabel
from app.ui.views.turns import next_turn

BACKGROUND = QColor("#F6F6F4")
EDGE_WIDTH = 2.0
UNMATCHED_WIDTH = 5.0
LINK_COLOR = (0.15, 0.15, 0.15, 1.0)
POINT_COLOR = (0.35, 0.35, 0.35, 0.55)
GRID_COLOR = (0, 0, 0, 40)
GRID_SPACING = 5.0


def _rgba(color: QColor) -> tuple[float, float, float, float]:
    return (color.redF(), color.greenF(), color.blueF(), 1.0)


class CuboidCanvas(gl.GLViewWidget):  # type: ignore[misc]
    """A ``GLViewWidget`` that shows one scene; :meth:`draw` replaces what it shows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackgroundColor(BACKGROUND)
        self.setMinimumSize(200, 200)
        self.framing = Framing()
        self.labels_item: ClusterLabels | None = None

    def draw(
        self,
        scene: CuboidScene,
        colors: Sequence[QColor],
        cloud: np.ndarray | None,
        labels: Sequence[ClusterLabel] = (),
        font_scale: float = 1.0,
    ) -> None:
        """Show ``scene``; ``colors[k]`` is the colour of ``scene.annotators[k]``;
        ``labels`` (from :func:`.labels.cluster_labels`) are written next to the boxes."""
        self.clear()
        self.labels_item = None
        if cloud is not None and len(cloud):
            self.addItem(
                gl.GLScatterPlotItem(
                    pos=cloud, color=POINT_COLOR, size=2.0, pxMode=True, glOptions="translucent"
                )
            )
        if len(scene.edges):
            self._add_grid(scene)
            rgba = np.array([_rgba(c) for c in colors], dtype=np.float32).reshape(-1, 4)
            self._add_edges(scene.edges, rgba[scene.edge_owner], EDGE_WIDTH)
            unmatched = unmatched_edges(scene)
            if unmatched.any():
                self._add_edges(
                    scene.edges[unmatched], rgba[scene.edge_owner[unmatched]], UNMATCHED_WIDTH
                )
        if len(scene.links):
            self.addItem(
                gl.GLLinePlotItem(
                    pos=scene.links.reshape(-1, 3).astype(np.float32),
                    color=LINK_COLOR,
                    width=1.5,
                    mode="lines",
                    antialias=True,
                    glOptions="translucent",
                )
            )
        if labels:
            self.labels_item = ClusterLabels(list(labels), font_scale, waiting=True)
            self.addItem(self.labels_item)
        self.frame(frame_points(scene.edges, cloud))

    # ----------------------------------------------------------------- camera

    @property
    def top_down(self) -> bool:
        return self.framing.top

    def set_top_down(self, on: bool) -> None:
        """Switch between the oblique view and the bird's-eye view, framed again."""
        self.framing.top = on
        self.reframe()

    def frame(self, points: np.ndarray | None) -> None:
        """Point the camera at ``points`` so they fill the view (with a margin)."""
        self.framing.set_points(points)
        self.reframe()

    def reframe(self) -> None:
        """The fitted camera again (after the user orbited, panned or zoomed)."""
        self.set_camera(self.framing.fitted(self.width(), self.height()))

    def set_camera(self, camera: Camera) -> None:
        self.setCameraParams(
            center=Vector(*camera.center),
            distance=camera.distance,
            elevation=camera.elevation,
            azimuth=camera.azimuth,
            fov=camera.fov,
        )

    def camera(self) -> Camera:
        """The camera now (after any orbit, pan or zoom), as plain numbers."""
        c = self.opts["center"]
        return Camera(
            (float(c.x()), float(c.y()), float(c.z())),
            float(self.opts["distance"]),
            float(self.opts["elevation"]),
            float(self.opts["azimuth"]),
            float(self.opts["fov"]),
        )

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        framing = self.__dict__.get("framing")  # resized inside GLViewWidget.__init__
        if framing is not None and framing.refit_on_resize:
            self.reframe()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802
        self.framing.user_moved = True
        super().mousePressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802
        self.framing.user_moved = True
        super().wheelEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        self.framing.user_moved = True
        super().keyPressEvent(event)

    def project(self, points: np.ndarray) -> np.ndarray:
        """Widget pixel coordinates ``(n, 2)`` (x right, y down) of 3D ``points``."""
        return project(self.camera(), points, self.width(), self.height())

    def qt_matrix(self) -> np.ndarray:
        """Qt's own projection × view matrix (row-major), for tests of :mod:`.camera`."""
        viewport = self.getViewport()
        m: QMatrix4x4 = self.projectionMatrix(viewport, viewport) * self.viewMatrix()
        return np.array(m.data(), dtype=float).reshape(4, 4).T  # data() is column-major

    # ----------------------------------------------------------------- pieces

    def _add_edges(self, edges: np.ndarray, rgba: np.ndarray, width: float) -> None:
        pos = edges.reshape(-1, 3).astype(np.float32)
        colors = np.repeat(rgba, 2, axis=0)
        self.addItem(
            gl.GLLinePlotItem(
                pos=pos,
                color=colors,
                width=width,
                mode="lines",
                antialias=True,
                glOptions="translucent",
            )
        )

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


class ClusterLabels(GLGraphicsItem):  # type: ignore[misc]
    """The cluster labels, laid out and painted in one pass on top of the scene.

    Not ``GLTextItem``: that paints with ``QPainter(widget)``, which ``QWidget.grab()``
    redirects to the grab's pixmap and then covers with the GL image, so the labels
    vanish from screenshots of the window. Painting on a ``QOpenGLPaintDevice`` goes
    into the framebuffer being drawn, whoever asked for it.

    The labels are laid out and painted with the raster engine into an image of the part
    of the view they cover, once per view (camera, size; orbiting changes the camera, so
    they move with it), and the image is drawn onto the framebuffer. Text drawn straight
    through OpenGL's paint engine rasterised and uploaded every glyph: 70 ms for a lidar
    sweep's 40 labels on Mesa's software renderer, in the window's first paint of the
    project (``bench_gui_stall.py``). The last layout is kept in :attr:`drawn`.

    A new sweep's labels (``waiting``) are laid out on an event-loop turn of their own,
    asked for by the sweep's first paint, which draws the scene without them; the next
    paint has them. Laid out inside that first paint, they made it the window's longest
    stall (under Xvfb 66 ms: 12 ms of layout, 6 ms of imaging). Asked for by
    :meth:`CuboidCanvas.draw` instead, their turn came due before the first paint ended
    and ran right after it, ahead of the window's other timers: the same stall.
    """

    def __init__(self, labels: list[ClusterLabel], font_scale: float, *,
                 waiting: bool = False) -> None:
        super().__init__()
        self.labels = labels
        self.font = painting.label_font(font_scale)
        self.drawn: painting.Drawn | None = None
        self.waiting = waiting
        """Painted without the labels until they are laid out on a turn of their own."""
        self._asked = False
        self._image: QImage | None = None
        self._origin = QPointF()
        self._view_key: tuple[object, ...] | None = None

    def _prepare_then_repaint(self) -> None:
        view = self.view()
        if view is not None:  # None: another sweep was drawn meanwhile
            self.prepare()
            view.update()

    def prepare(self) -> None:
        """Lay out and image the labels for the view as it is now (nothing to do when
        that is done already); paints draw them from now on."""
        self.waiting = False
        view = self.view()
        if view is None or not self.labels:
            return
        ratio = view.devicePixelRatioF()
        w, h = view.width(), view.height()
        camera = view.camera()
        key = (camera, w, h, ratio)
        if self._image is None or key != self._view_key:
            self.drawn = painting.arrange(
                self.labels, lambda p: project(camera, p, w, h), self.font, w, h
            )
            self._image, self._origin = painting.labels_image(
                self.drawn, self.labels, self.font, w, h, ratio)
            self._view_key = key

    def paint(self) -> None:
        view = self.view()
        if view is None or not self.labels:
            return
        if self.waiting:
            if not self._asked:
                self._asked = True
                next_turn(view, self._prepare_then_repaint)
            return
        self.prepare()
        assert self._image is not None
        ratio = view.devicePixelRatioF()
        device = QOpenGLPaintDevice(QSize(view.deviceWidth(), view.deviceHeight()))
        device.setDevicePixelRatio(ratio)
        painter = QPainter(device)
        try:
            painter.drawImage(self._origin, self._image)
        finally:
            painter.end()
