"""The 3D view as drawn offscreen (software canvas): framing, labels apart, class names,
the top-down toggle and back, Fit, and a legend that is never cut.

Everything is read from what the canvas last painted (its :class:`Drawn`) and from the
grabbed pixels, at the sizes the view gets: a full 1280×800 view, the short dock of the
main window, presentation mode's larger fonts.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage, QTextDocument
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.main_window import MainWindow
from app.ui.palette import annotator_color
from app.ui.settings import Settings
from app.ui.views.base import ViewContext
from app.ui.views.cuboids.camera import MARGIN
from app.ui.views.cuboids.flat_canvas import FlatCanvas
from app.ui.views.cuboids.view import CuboidsView
from app.ui.views.registry import available_views
from tests.ui.shell_helpers import open_and_wait

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "lidar_sweeps"
ITEMS = ("sweep_001", "sweep_002", "sweep_006", "sweep_010", "sweep_013")
CLASSES = {"car", "pedestrian", "cyclist"}


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO))


def shown(
    qtbot: QtBot, lidar: ProjectData, item: str, size: tuple[int, int], scale: float = 1.0
) -> CuboidsView:
    view = CuboidsView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    view.show_context(ViewContext(project=lidar, item=item, font_scale=scale))
    view.grab()  # lays out and paints: the canvas records what it drew
    return view


def flat(view: CuboidsView) -> FlatCanvas:
    assert isinstance(view.canvas, FlatCanvas)
    return view.canvas


def box_corners(canvas: FlatCanvas) -> np.ndarray:
    assert canvas.scene is not None
    corners: np.ndarray = canvas.scene.edges.reshape(-1, 3)
    return corners


def count_color(image: QImage, color: QColor, tolerance: int = 40) -> int:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rgb = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(
        image.height(), image.bytesPerLine() // 4, 4
    )[:, : image.width(), :3][..., ::-1]
    target = np.array([color.red(), color.green(), color.blue()])
    return int((np.abs(rgb.astype(int) - target).max(axis=2) < tolerance).sum())


@pytest.mark.parametrize(
    ("size", "scale"), [((1280, 800), 1.0), ((1000, 300), 1.0), ((1280, 800), 1.6)]
)
@pytest.mark.parametrize("top", [False, True])
def test_labels_never_overlap_and_name_their_class(
    qtbot: QtBot, lidar: ProjectData, size: tuple[int, int], scale: float, top: bool
) -> None:
    for item in ITEMS:
        view = shown(qtbot, lidar, item, size, scale)
        if top:
            view.top_button.click()
            view.grab()
        canvas = flat(view)
        drawn = canvas.drawn
        assert drawn is not None, item
        rects = [p.rect for p in drawn.layout.placed]
        if drawn.note_rect is not None:
            rects.append(drawn.note_rect)
        for a, b in itertools.combinations(rects, 2):
            assert not a.intersects(b), (item, a, b)
        for r in rects:
            assert r.x >= 0 and r.x + r.w <= canvas.width() + 1e-6, (item, r)
            assert r.y >= 0 and r.y + r.h <= canvas.height() + 1e-6, (item, r)
        # Every label drawn starts with a class name; dropped ones are counted.
        for lines in drawn.texts:
            assert lines[0].split(" · ")[0] in CLASSES, lines
        assert len(drawn.layout.placed) + drawn.layout.dropped == len(canvas.labels)
        assert (drawn.note != "") == (drawn.layout.dropped > 0)


def test_the_full_view_has_room_for_every_label_of_a_busy_sweep(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    for top in (False, True):
        view = shown(qtbot, lidar, "sweep_002", (1280, 800))
        view.top_button.setChecked(top)
        view.grab()
        drawn = flat(view).drawn
        assert drawn is not None and drawn.layout.dropped == 0
        classes = {lines[0].split(" · ")[0] for lines in drawn.texts}
        assert classes == {"car", "pedestrian"}  # the README: 4 cars, 5 pedestrians, 1 cyclist
        assert any("kofi: cyclist" in lines[0] for lines in drawn.texts)  # lena's car call


@pytest.mark.parametrize("size", [(1280, 800), (1000, 300), (600, 900)])
def test_the_boxes_fill_the_canvas_inside_the_margin(
    qtbot: QtBot, lidar: ProjectData, size: tuple[int, int]
) -> None:
    for item in ITEMS:
        for top in (False, True):
            view = shown(qtbot, lidar, item, (640, 480))
            view.resize(*size)  # a dock resized after drawing: the camera follows
            view.top_button.setChecked(top)
            view.grab()
            canvas = flat(view)
            w, h = canvas.width(), canvas.height()
            px = canvas.project(box_corners(canvas))
            mx, my = MARGIN / 2 * w, MARGIN / 2 * h
            assert px[:, 0].min() >= mx - 0.01 and px[:, 0].max() <= w - mx + 0.01, item
            assert px[:, 1].min() >= my - 0.01 and px[:, 1].max() <= h - my + 0.01, item
            fill = max(np.ptp(px[:, 0]) / (w - 2 * mx), np.ptp(px[:, 1]) / (h - 2 * my))
            assert fill > 0.97, (item, top, fill)


def test_the_software_drawing_shows_every_annotators_boxes(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    view = shown(qtbot, lidar, "sweep_001", (900, 600))
    image = flat(view).grab().toImage()
    for k, name in enumerate(lidar.study.annotators):
        assert count_color(image, annotator_color(k)) > 40, name


def top(canvas: FlatCanvas) -> bool:
    """Read afresh (a plain attribute read would be narrowed by the type checker)."""
    return canvas.top_down


def test_top_down_toggle_and_back_and_fit(qtbot: QtBot, lidar: ProjectData) -> None:
    view = shown(qtbot, lidar, "sweep_002", (1000, 600))
    canvas = flat(view)
    oblique = canvas.camera()
    assert (oblique.elevation, oblique.fov) == (30.0, 60.0) and not top(canvas)
    view.top_button.click()
    assert top(canvas) and view.top_button.isChecked()
    assert canvas.camera().elevation == 90.0 and canvas.camera().fov == 2.0
    view.top_button.click()
    assert not top(canvas) and canvas.camera() == oblique
    # The T shortcut does the same.
    view.activateWindow()
    qtbot.waitUntil(view.isActiveWindow, timeout=2000)
    QTest.keyClick(canvas, Qt.Key.Key_T)
    assert top(canvas) and canvas.camera().elevation == 90.0
    QTest.keyClick(canvas, Qt.Key.Key_T)
    assert not top(canvas)
    # Orbit by dragging, then Fit puts the framed camera back.
    QTest.mousePress(
        canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(300, 300)
    )
    QTest.mouseMove(canvas, QPoint(380, 340))
    QTest.mouseRelease(
        canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(380, 340)
    )
    assert canvas.camera() != oblique
    view.fit_button.click()
    assert canvas.camera() == oblique


def assert_legend_whole(view: CuboidsView) -> None:
    label, area = view.legend, view.legend_area
    assert label.text()
    inner = label.contentsRect().width()
    doc = QTextDocument()
    doc.setDefaultFont(label.font())
    doc.setHtml(label.text())
    doc.setTextWidth(inner)
    assert doc.idealWidth() <= inner + 1, (doc.idealWidth(), inner)
    assert label.width() <= area.viewport().width()
    # Not cut at the bottom: the label has its full wrapped height, and what the
    # viewport cannot show is reachable with the scroll bar.
    assert label.height() >= label.heightForWidth(label.width())
    bar = area.verticalScrollBar()
    assert bar.maximum() >= label.height() - area.viewport().height()


@pytest.mark.parametrize(
    ("size", "scale"), [((1280, 800), 1.0), ((1000, 260), 1.0), ((1000, 400), 1.6)]
)
def test_the_legend_is_never_cut(
    qtbot: QtBot, lidar: ProjectData, size: tuple[int, int], scale: float
) -> None:
    assert_legend_whole(shown(qtbot, lidar, "sweep_002", size, scale))


def test_the_legend_is_whole_in_the_window(qtbot: QtBot, settings: Settings) -> None:
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    open_and_wait(qtbot, window, DEMO)
    view = window.views["cuboids"]
    assert isinstance(view, CuboidsView)
    dock = view.parentWidget()
    while dock is not None and not hasattr(dock, "raise_"):
        dock = dock.parentWidget()
    if dock is not None:
        dock.raise_()
    window.grab()
    assert view.isVisible() and view.legend_area.isVisible()
    assert_legend_whole(view)


def test_the_labels_are_laid_out_on_a_turn_before_the_paint(
        qtbot: QtBot, lidar: ProjectData, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new sweep's labels are laid out on a turn of their own and painted on the
    next, so the first paint does not also lay them out (together, 45-50 ms of the GUI
    thread on a 2,000-sweep study); a paint that comes first lays them out itself."""
    from app.ui.views.cuboids import flat_canvas, painting

    in_paint: list[bool] = []
    paints: list[int] = []
    real_arrange, real_paint = painting.arrange, FlatCanvas.paintEvent

    def arrange(*args: object, **kwargs: object) -> painting.Drawn:
        in_paint.append(bool(paints) and paints[-1] < 0)
        return real_arrange(*args, **kwargs)  # type: ignore[arg-type]

    def paint(self: FlatCanvas, event: object) -> None:
        paints.append(-1)  # painting now
        try:
            real_paint(self, event)  # type: ignore[arg-type]
        finally:
            paints[-1] = 1
    monkeypatch.setattr(flat_canvas.painting, "arrange", arrange)
    monkeypatch.setattr(FlatCanvas, "paintEvent", paint)
    view = shown(qtbot, lidar, ITEMS[0], (1280, 800))
    canvas = flat(view)
    qtbot.wait(20)
    assert in_paint and in_paint[0]  # grab() painted before the layout's turn
    assert canvas.scene is not None
    in_paint.clear()
    paints.clear()
    labels = list(canvas.labels)  # another sweep's labels, as far as the canvas knows
    canvas.draw(canvas.scene, canvas.colors, canvas.cloud, labels, canvas.font_scale)
    assert in_paint == [] and paints == []  # nothing yet: both wait for their turns
    qtbot.waitUntil(lambda: bool(paints), timeout=5000)
    assert in_paint == [False]  # laid out on its turn, then painted with that layout
    assert canvas.drawn is not None and canvas.labels == labels
    canvas.grab()
    assert in_paint == [False]  # the same view again: the layout kept
