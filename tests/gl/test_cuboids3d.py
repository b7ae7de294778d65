"""The 3D cuboids view, drawn by Mesa under Xvfb: assertions on rendered pixels.

Where an edge should appear is computed here with Qt's own matrices
(``QMatrix4x4.map`` of the view's projection and camera), not with the canvas's numpy
projection, and the pixel there must carry the annotator's colour from the palette.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor, QImage, QVector4D
from pytestqt.qtbot import QtBot

from app.core.agreement.drawing import CuboidScene
from app.core.geometry.cuboid_boxes import boxes_array, wireframe_segments
from app.core.objects import Cuboid
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.gl_support import context_sharing_enabled, gl_available
from app.ui.palette import annotator_color
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.cuboids.canvas import BACKGROUND, ClusterLabels, CuboidCanvas
from app.ui.views.cuboids.view import CuboidsView

LIDAR = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"
SIZE = (900, 600)


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(LIDAR))


def one_box_scene() -> CuboidScene:
    box = Cuboid("car", (2.0, -1.0, 0.5), (4.0, 2.0, 1.5), (0.0, 0.0, 0.3826834, 0.9238795))
    edges = wireframe_segments(boxes_array([box]))
    return CuboidScene(
        annotators=("ann",),
        edges=edges,
        edge_owner=np.zeros(12, dtype=int),
        box_owner=np.zeros(1, dtype=int),
        centers=np.array([box.center]),
        labels=("car",),
        unmatched=np.zeros(1, dtype=bool),
        links=np.zeros((0, 2, 3)),
        link_iou=np.zeros(0),
    )


def shown_view(qtbot: QtBot) -> CuboidsView:
    view = CuboidsView()
    qtbot.addWidget(view)
    view.resize(*SIZE)
    view.show()
    qtbot.waitExposed(view)
    return view


def framebuffer(canvas: CuboidCanvas) -> QImage:
    image: QImage = canvas.grabFramebuffer().convertToFormat(QImage.Format.Format_RGB32)
    assert image.width() == round(canvas.width() * canvas.devicePixelRatioF())
    return image


def qt_projection(canvas: CuboidCanvas, point: np.ndarray) -> tuple[float, float]:
    """Device pixel of a 3D point through Qt's matrices (the independent path)."""
    viewport = canvas.getViewport()
    mvp = canvas.projectionMatrix(viewport, viewport) * canvas.viewMatrix()
    v = mvp.map(QVector4D(float(point[0]), float(point[1]), float(point[2]), 1.0))
    ratio = canvas.devicePixelRatioF()
    x = (v.x() / v.w() + 1) / 2 * canvas.width() * ratio
    y = (1 - v.y() / v.w()) / 2 * canvas.height() * ratio
    return x, y


def near_color(
    image: QImage, x: float, y: float, color: QColor, radius: int = 2, tolerance: int = 45
) -> bool:
    target = np.array([color.red(), color.green(), color.blue()])
    for dy in range(-radius, radius + 1):
        for dx in range(-radius, radius + 1):
            px, py = round(x) + dx, round(y) + dy
            if 0 <= px < image.width() and 0 <= py < image.height():
                c = image.pixelColor(px, py)
                if np.abs(np.array([c.red(), c.green(), c.blue()]) - target).max() < tolerance:
                    return True
    return False


def count_color(image: QImage, color: QColor, tolerance: int = 45) -> int:
    bits = image.constBits()
    rgb = np.frombuffer(bits, dtype=np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)[
        :, : image.width(), :3
    ][..., ::-1]
    target = np.array([color.red(), color.green(), color.blue()])
    return int((np.abs(rgb.astype(int) - target).max(axis=2) < tolerance).sum())


def test_the_platform_has_opengl_and_shared_contexts(qtbot: QtBot) -> None:
    assert QCoreApplication.testAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    assert context_sharing_enabled()
    assert gl_available()
    view = shown_view(qtbot)
    assert isinstance(view.canvas, CuboidCanvas)
    assert isinstance(view.canvas, CuboidCanvas) and view.gl_message is None


def test_a_cuboid_edge_has_its_annotators_colour_where_it_projects(qtbot: QtBot) -> None:
    view = shown_view(qtbot)
    canvas = view.canvas
    assert isinstance(canvas, CuboidCanvas)
    canvas.show()
    color = annotator_color(2)
    scene = one_box_scene()
    canvas.draw(scene, [color], None)
    qtbot.wait(50)
    image = framebuffer(canvas)
    midpoints = scene.edges.mean(axis=1)
    hits = [near_color(image, *qt_projection(canvas, m), color) for m in midpoints]
    assert all(hits), hits
    wrong = annotator_color(0)
    assert not any(near_color(image, *qt_projection(canvas, m), wrong) for m in midpoints)
    # Points along every edge, not just the middle.
    along = [
        near_color(image, *qt_projection(canvas, a + t * (b - a)), color)
        for a, b in scene.edges
        for t in (0.25, 0.75)
    ]
    assert sum(along) == len(along)
    # The background stays the background away from the box (a view corner).
    corner = image.pixelColor(3, 3)
    assert abs(corner.red() - BACKGROUND.red()) < 3 and abs(corner.blue() - BACKGROUND.blue()) < 3
    # No other annotator colour leaks in.
    assert count_color(image, annotator_color(0)) == 0


def test_the_lidar_demo_draws_every_annotator_in_their_colour(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    view = shown_view(qtbot)
    view.show_context(ViewContext(project=lidar, item="sweep_001"))
    qtbot.wait(50)
    assert isinstance(view.canvas, CuboidCanvas) and view.canvas.isVisible()
    image = framebuffer(view.canvas)
    for k, name in enumerate(lidar.study.annotators):
        assert count_color(image, annotator_color(k)) > 40, name
    assert "sweep_001" in view.header.text()
    assert "1,728 points" in view.header.text()
    for name in lidar.study.annotators:
        assert name in view.legend.text()


def test_two_views_in_one_process_both_draw(qtbot: QtBot, lidar: ProjectData) -> None:
    first, second = shown_view(qtbot), shown_view(qtbot)
    first.show_context(ViewContext(project=lidar, item="sweep_001"))
    second.show_context(ViewContext(project=lidar, item="sweep_002"))
    qtbot.wait(50)
    for view in (first, second):
        assert isinstance(view.canvas, CuboidCanvas)
        image = framebuffer(view.canvas)
        assert count_color(image, annotator_color(0)) > 40
    # Reparenting the first canvas into the second window keeps it drawing (the shared
    # context at work: a docked view floated out of the main window).
    assert isinstance(first.canvas, CuboidCanvas)
    first.canvas.setParent(second)
    first.canvas.setGeometry(0, 0, 300, 200)
    first.canvas.show()
    qtbot.wait(50)
    assert count_color(framebuffer(first.canvas), annotator_color(0)) > 10


def test_presentation_mode_hides_names_in_the_legend_and_labels(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    view = shown_view(qtbot)
    aliases = anonymous_aliases(lidar.study.annotators)
    view.show_context(
        ViewContext(
            project=lidar, item="sweep_001", anonymous=True, aliases=aliases, font_scale=1.6
        )
    )
    qtbot.wait(50)
    for name in lidar.study.annotators:
        assert name not in view.legend.text()
    assert "<b>A</b>" in view.legend.text()
    assert isinstance(view.canvas, CuboidCanvas)
    labels = [item for item in view.canvas.items if isinstance(item, ClusterLabels)]
    assert len(labels) == 1
    texts = [line for label in labels[0].labels for line in label.lines]
    assert any(t.startswith("A–B ") for t in texts)
    assert "unmatched: A only" in texts
    assert not any(name in t for t in texts for name in lidar.study.annotators)
