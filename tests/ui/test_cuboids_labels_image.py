"""The OpenGL canvas's labels image covers only the part of the view the labels touch:
placed at its origin it gives exactly the pixels of the whole-view image it replaced.

The labels are the demo's real sweeps, laid out by the software canvas (offscreen); the
oracle is the former whole-view image (every pixel of a transparent view-sized image
painted by ``painting.paint``), at device pixel ratios 1, 2 and 1.5.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.cuboids import painting
from app.ui.views.cuboids.flat_canvas import FlatCanvas
from app.ui.views.cuboids.view import CuboidsView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO))


def transparent(width: int, height: int, ratio: float) -> QImage:
    image = QImage(max(1, round(width * ratio)), max(1, round(height * ratio)),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(ratio)
    image.fill(Qt.GlobalColor.transparent)
    return image


def pixels(image: QImage) -> np.ndarray:
    return np.frombuffer(image.constBits(), dtype=np.uint8).reshape(
        image.height(), image.bytesPerLine())[:, : image.width() * 4].copy()


@pytest.mark.parametrize("ratio", [1.0, 2.0, 1.5])
@pytest.mark.parametrize(("item", "size"), [("sweep_002", (1280, 800)),
                                            ("sweep_006", (1000, 300)),
                                            ("sweep_013", (640, 480))])
def test_the_cropped_image_at_its_origin_is_the_whole_view_image(
        qtbot: QtBot, lidar: ProjectData, ratio: float, item: str, size: tuple[int, int]
) -> None:
    view = CuboidsView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    view.show_context(ViewContext(project=lidar, item=item))
    view.grab()
    canvas = view.canvas
    assert isinstance(canvas, FlatCanvas) and canvas.drawn is not None and canvas.labels
    drawn, labels = canvas.drawn, canvas.labels
    w, h = canvas.width(), canvas.height()
    font = painting.label_font(1.0)

    whole = transparent(w, h, ratio)
    painter = QPainter(whole)
    painting.paint(painter, drawn, labels, font)
    painter.end()

    cropped, origin = painting.labels_image(drawn, labels, font, w, h, ratio)
    placed = transparent(w, h, ratio)
    painter = QPainter(placed)
    painter.drawImage(origin, cropped)
    painter.end()

    assert np.array_equal(pixels(placed), pixels(whole))
    ink = (pixels(whole).reshape(whole.height(), whole.width(), 4)[..., 3] > 0).sum()
    assert ink > 0
    # Smaller than the view: the point of cropping.
    assert cropped.width() * cropped.height() < whole.width() * whole.height()


def test_nothing_to_draw_is_a_one_pixel_image() -> None:
    empty = painting.Drawn(layout=painting.Layout(placed=(), dropped=0), texts=(), note="",
                           note_rect=None, anchors=np.zeros((0, 2)), outlines=())
    image, origin = painting.labels_image(empty, [], painting.label_font(1.0), 200, 100, 1.0)
    assert (image.width(), image.height()) == (1, 1) and origin == QPointF(0, 0)
