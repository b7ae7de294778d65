"""The 3D view on a platform without OpenGL: a software drawing, a legend, no errors printed."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.gl_support import gl_available
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.cuboids.flat_canvas import FlatCanvas
from app.ui.views.cuboids.view import CuboidsView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMO / "lidar_sweeps"))


def test_offscreen_draws_in_software_and_says_so(
    qtbot: QtBot, lidar: ProjectData, capfd: pytest.CaptureFixture[str]
) -> None:
    assert not gl_available()
    view = CuboidsView()
    qtbot.addWidget(view)
    view.resize(800, 500)
    view.show()
    view.show_context(ViewContext(project=lidar, item="sweep_003"))
    view.grab()
    assert isinstance(view.canvas, FlatCanvas)
    assert view.message.isHidden() and not view.canvas.isHidden()
    assert "no OpenGL here (Qt platform 'offscreen'): software drawing" in view.header.text()
    assert "item sweep_003" in view.header.text()
    for name in lidar.study.annotators:
        assert name in view.legend.text()
    out, err = capfd.readouterr()
    assert err == "" and out == ""


def test_legend_counts_boxes_and_unmatched_from_the_answers(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    view = CuboidsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=lidar, item="sweep_001"))
    text = view.legend.text()
    # The demo's README: kofi 4 boxes, lena 3, mateo 2 on sweep_001.
    agreement = lidar.report.schemes["objects"].details
    matched: dict[str, set[int]] = {name: set() for name in lidar.study.annotators}
    for o in agreement.outcomes:
        if o.item == "sweep_001":
            matched[o.a].update(o.rows.tolist())
            matched[o.b].update(o.cols.tolist())
    for name, boxes in zip(("kofi", "lena", "mateo"), (4, 3, 2), strict=True):
        alone = boxes - len(matched[name])
        assert (
            f"<b>{name}</b></td></tr><tr><td></td><td>&nbsp;{boxes} boxes, {alone} unmatched"
            in text
        )


def test_anonymous_mode_and_missing_inputs(qtbot: QtBot, lidar: ProjectData) -> None:
    view = CuboidsView()
    qtbot.addWidget(view)
    assert view.empty_message.startswith("No project is open")
    aliases = anonymous_aliases(lidar.study.annotators)
    view.show_context(ViewContext(project=lidar, item="sweep_001", anonymous=True, aliases=aliases))
    for name in lidar.study.annotators:
        assert name not in view.legend.text()
    assert view.empty_message == ""
    view.show_context(ViewContext(project=lidar, item="no_such_item"))
    assert "no answers" in view.message.text() and view.empty_message == ""
    assert view.legend_area.isHidden()


def test_the_window_s_two_steps_show_what_show_context_shows(
    qtbot: QtBot, lidar: ProjectData
) -> None:
    """A new project reaches the view in two steps (header and legend, then the canvas):
    run in order they leave the view as one ``show_context`` does, and the canvas is
    untouched until the second."""
    context = ViewContext(project=lidar, item="sweep_002")
    whole, stepped = CuboidsView(), CuboidsView()
    for view in (whole, stepped):
        qtbot.addWidget(view)
        view.resize(800, 500)
        view.show()
    whole.show_context(context)
    first, second = stepped.context_steps(context)
    first()
    assert stepped.header.text() == whole.header.text()
    assert stepped.legend.text() == whole.legend.text()
    assert stepped.canvas.scene is None
    second()
    whole.grab()
    stepped.grab()
    assert isinstance(whole.canvas, FlatCanvas) and isinstance(stepped.canvas, FlatCanvas)
    assert [label.lines for label in stepped.canvas.labels] == \
        [label.lines for label in whole.canvas.labels]
    a, b = stepped.canvas.drawn, whole.canvas.drawn
    assert a is not None and b is not None
    assert a.layout == b.layout and a.texts == b.texts and a.layout.placed
