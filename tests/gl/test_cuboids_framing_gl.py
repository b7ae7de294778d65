"""The OpenGL canvas under Xvfb: pyqtgraph's own matrices frame the boxes, the top-down
toggle moves pyqtgraph's camera and back, and the painted labels do not overlap.

Positions come from the canvas's ``projectionMatrix × viewMatrix`` (Qt's, pyqtgraph's
code), not from :mod:`app.ui.views.cuboids.camera`, which is what is being checked.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.cuboids.camera import MARGIN, project
from app.ui.views.cuboids.canvas import ClusterLabels, CuboidCanvas
from app.ui.views.cuboids.painting import TEXT
from app.ui.views.cuboids.view import CuboidsView

LIDAR = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(LIDAR))


def gl_view(
    qtbot: QtBot, lidar: ProjectData, item: str, size: tuple[int, int]
) -> tuple[CuboidsView, CuboidCanvas]:
    view = CuboidsView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.show_context(ViewContext(project=lidar, item=item))
    qtbot.wait(50)
    assert isinstance(view.canvas, CuboidCanvas)
    return view, view.canvas


def qt_pixels(canvas: CuboidCanvas, points: np.ndarray) -> np.ndarray:
    matrix = canvas.qt_matrix()
    clip = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    ndc = clip[:, :2] / clip[:, 3:4]
    out: np.ndarray = np.column_stack(
        [(ndc[:, 0] + 1) / 2 * canvas.width(), (1 - ndc[:, 1]) / 2 * canvas.height()]
    )
    return out


def corners(lidar: ProjectData, item: str) -> np.ndarray:
    from app.core.agreement.drawing import cuboid_scene

    scene = cuboid_scene(lidar.report.schemes["objects"].details, item)
    out: np.ndarray = scene.edges.reshape(-1, 3)
    return out


@pytest.mark.parametrize("size", [(1280, 800), (900, 330)])
def test_pyqtgraphs_camera_frames_every_corner(
    qtbot: QtBot, lidar: ProjectData, size: tuple[int, int]
) -> None:
    for item in ("sweep_002", "sweep_006"):
        view, canvas = gl_view(qtbot, lidar, item, size)
        for top in (False, True):
            view.top_button.setChecked(top)
            qtbot.wait(20)
            points = corners(lidar, item)
            px = qt_pixels(canvas, points)
            # The numpy camera and pyqtgraph's agree (single precision).
            assert project(
                canvas.camera(), points, canvas.width(), canvas.height()
            ) == pytest.approx(px, rel=1e-4, abs=0.05)
            w, h = canvas.width(), canvas.height()
            mx, my = MARGIN / 2 * w, MARGIN / 2 * h
            assert px[:, 0].min() >= mx - 0.1 and px[:, 0].max() <= w - mx + 0.1
            assert px[:, 1].min() >= my - 0.1 and px[:, 1].max() <= h - my + 0.1
            fill = max(np.ptp(px[:, 0]) / (w - 2 * mx), np.ptp(px[:, 1]) / (h - 2 * my))
            assert fill > 0.97, (item, top, fill)


def test_top_down_moves_pyqtgraphs_camera_and_back(qtbot: QtBot, lidar: ProjectData) -> None:
    view, canvas = gl_view(qtbot, lidar, "sweep_002", (1000, 600))
    before = dict(
        elevation=canvas.opts["elevation"],
        azimuth=canvas.opts["azimuth"],
        fov=canvas.opts["fov"],
        distance=canvas.opts["distance"],
    )
    assert (before["elevation"], before["fov"]) == (30.0, 60.0)
    view.top_button.click()
    assert canvas.opts["elevation"] == 90.0 and canvas.opts["fov"] == 2.0
    view.top_button.click()
    after = dict(
        elevation=canvas.opts["elevation"],
        azimuth=canvas.opts["azimuth"],
        fov=canvas.opts["fov"],
        distance=canvas.opts["distance"],
    )
    assert after == pytest.approx(before)
    canvas.orbit(40, 10)
    view.fit_button.click()
    assert canvas.opts["azimuth"] == pytest.approx(before["azimuth"])


def test_gl_labels_are_painted_apart_with_their_class(qtbot: QtBot, lidar: ProjectData) -> None:
    _, canvas = gl_view(qtbot, lidar, "sweep_002", (1280, 800))
    image = canvas.grabFramebuffer().convertToFormat(QImage.Format.Format_RGB32)
    items = [i for i in canvas.items if isinstance(i, ClusterLabels)]
    assert len(items) == 1 and items[0].drawn is not None
    drawn = items[0].drawn
    assert drawn.layout.dropped == 0 and len(drawn.layout.placed) == len(items[0].labels)
    for a, b in itertools.combinations([p.rect for p in drawn.layout.placed], 2):
        assert not a.intersects(b)
    assert {lines[0].split(" · ")[0] for lines in drawn.texts} == {"car", "pedestrian"}
    # Each matched cluster's card carries dark text pixels (the labels reach the image).
    ratio = canvas.devicePixelRatioF()
    for placed, lines in zip(drawn.layout.placed, drawn.texts, strict=True):
        if items[0].labels[placed.index].unmatched:
            continue
        r = placed.rect
        dark = 0
        for y in range(round(r.y * ratio), round((r.y + r.h) * ratio)):
            for x in range(round(r.x * ratio), round((r.x + r.w) * ratio), 2):
                c = image.pixelColor(x, y)
                if (
                    max(
                        abs(c.red() - TEXT.red()),
                        abs(c.green() - TEXT.green()),
                        abs(c.blue() - TEXT.blue()),
                    )
                    < 60
                ):
                    dark += 1
        assert dark > 20, lines


def _dark_pixels(image: QImage) -> int:
    rgb = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(
        image.height(), image.bytesPerLine() // 4, 4)[:, : image.width(), :3][..., ::-1]
    target = np.array([TEXT.red(), TEXT.green(), TEXT.blue()])
    return int((np.abs(rgb.astype(int) - target).max(axis=2) < 40).sum())


def test_a_new_sweeps_labels_wait_for_a_turn_of_their_own(
        qtbot: QtBot, lidar: ProjectData) -> None:
    """Drawn, a sweep paints without its labels (no layout inside that paint); on the
    next turn they are laid out and the following paint has them. A sweep drawn before
    that turn came takes its place: the older labels are never laid out."""
    view, canvas = gl_view(qtbot, lidar, "sweep_002", (1280, 800))
    view.show_context(ViewContext(project=lidar, item="sweep_006"))
    older = canvas.labels_item
    view.show_context(ViewContext(project=lidar, item="sweep_002"))
    item = canvas.labels_item
    assert older is not None and item is not None and item is not older
    assert item.waiting and item.drawn is None
    before = canvas.grabFramebuffer().convertToFormat(QImage.Format.Format_RGB32)
    assert item.drawn is None  # that paint laid nothing out
    qtbot.waitUntil(lambda: not item.waiting, timeout=2000)
    assert item.drawn is not None and older.drawn is None
    after = canvas.grabFramebuffer().convertToFormat(QImage.Format.Format_RGB32)
    assert _dark_pixels(after) > _dark_pixels(before) + 200  # the labels' text
