"""The 2D regions view on the street demo: shapes drawn per annotator, the distance plot,
presentation names.

Oracles: the shape counts are counted from the study's answer files' objects (boxes,
polygons, ellipses per annotator), the σ and KS text from the report's metrics, the
histogram curves from the kept samples' sizes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsPolygonItem, QGraphicsRectItem

from app.core.objects import BoxRegion, EllipseRegion, ObjectSet, PolygonRegion
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.regions.view import RegionsView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "street_images"


@pytest.fixture(scope="module")
def project() -> ProjectData:
    return run(open_project(DEMO))


def expected_counts(project: ProjectData, item: str) -> dict[str, dict[type, int]]:
    out: dict[str, dict[type, int]] = {}
    for name, answer in project.study.answers["objects"][item].items():
        assert isinstance(answer, ObjectSet)
        out[name] = {
            t: sum(1 for o in answer.objects if type(o) is t)
            for t in (BoxRegion, PolygonRegion, EllipseRegion)
        }
    return out


@pytest.mark.parametrize("item", ["street_01", "street_06", "street_15"])
def test_every_annotators_shapes_are_drawn(qtbot, project: ProjectData, item: str) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item=item))
    expected = expected_counts(project, item)
    assert view.shape_counts() == {n: sum(c.values()) for n, c in expected.items()}
    kinds = {
        QGraphicsRectItem: BoxRegion,
        QGraphicsPolygonItem: PolygonRegion,
        QGraphicsEllipseItem: EllipseRegion,
    }
    for name, counts in expected.items():
        drawn = view.canvas.items_of(name)
        for qt_type, model_type in kinds.items():
            assert sum(1 for i in drawn if type(i) is qt_type) == counts[model_type]
    # the README's table: tomas drew 1 shape on street_15, ana 4
    if item == "street_15":
        assert view.shape_counts()["tomas"] == 1 and view.shape_counts()["ana"] == 4


def test_the_legend_hides_and_shows_an_annotator(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_06"))
    box = view.legend.boxes["ravi"]
    assert box.text() == "ravi · 7 shapes"
    box.setChecked(False)
    assert not any(i.isVisible() for i in view.canvas.items_of("ravi"))
    assert all(i.isVisible() for i in view.canvas.items_of("ana"))
    box.setChecked(True)
    assert all(i.isVisible() for i in view.canvas.items_of("ravi"))


def test_a_box_lands_on_its_pixels(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_01"))
    answer = project.study.answers["objects"]["street_01"]["ana"]
    assert isinstance(answer, ObjectSet)
    box = next(o for o in answer.objects if isinstance(o, BoxRegion))
    rects = [i.rect() for i in view.canvas.items_of("ana") if isinstance(i, QGraphicsRectItem)]
    # the demo pictures are 320×240
    assert any(
        abs(r.x() - box.x * 320) < 1e-9
        and abs(r.y() - box.y * 240) < 1e-9
        and abs(r.width() - box.width * 320) < 1e-9
        for r in rects
    )


def test_sigma_and_ks_come_from_the_metrics(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_06"))
    metrics = project.report.schemes["objects"].metrics
    # σ is chance-corrected, so on this small study (under 20 items) it carries the ⚠
    assert view.card.rows["sigma"][1].text() == f"<b>{metrics['sigma']:.3f}</b> ⚠"
    assert view.card.rows["ks"][1].text() == f"<b>{metrics['ks']:.3f}</b>"
    assert view.plot.visible_curves() == {
        "within",
        "between",
        "item",
        "mean_within",
        "mean_between",
    }
    legend = view.plot.legend_texts
    assert "n = 2,000" in legend["between"]
    details = project.report.schemes["objects"].details
    n_item = sum(o.rows.size for o in details.outcomes if o.item == "street_06")
    assert n_item > 0
    assert len(view.plot.curves["item"].data) == n_item
    assert f"n = {n_item}" in legend["item"]
    assert view.plot.curves["mean_within"].value() == pytest.approx(metrics["mean_within_distance"])


def test_presentation_mode_hides_names(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    aliases = anonymous_aliases(project.study.annotators)
    view.show_context(
        ViewContext(
            project=project, item="street_06", anonymous=True, aliases=aliases, font_scale=1.6
        )
    )
    texts = [b.text() for b in view.legend.boxes.values()]
    assert texts == ["A · 7 shapes", "B · 7 shapes", "C · 4 shapes"]
    tips = [i.toolTip() for i in view.canvas.scene().items() if i.toolTip()]
    assert tips and not any(n in t for t in tips for n in project.study.annotators)


def test_picking_an_item_emits_it(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project))
    assert view.items_combo.currentText() == "street_01"
    assert "first answered item" in view.heading.text()
    with qtbot.waitSignal(view.item_picked) as blocker:
        view.items_combo.activated.emit(view.items_combo.findText("street_09"))
    assert blocker.args == ["street_09"]
    assert "street_09" in view.heading.text()


def test_no_project_and_no_regions_scheme(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = RegionsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext())
    assert view.empty_message.startswith("No project is open")
    other = run(open_project(DEMO.parent / "support_triage"))
    view.show_context(ViewContext(project=other))
    assert "no 2D regions scheme" in view.empty_message
    assert view.shape_counts() == {}


def test_the_plot_legend_covers_no_histogram(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    """The legend once sat inside the plot, over the between-item histogram (it fills
    the right half); now it is a line of its own under the plot, each entry unbroken."""
    view = RegionsView()
    qtbot.addWidget(view)
    view.resize(1000, 330)  # about the docked height at 1280x800
    view.show()
    view.show_context(ViewContext(project=project, item="street_06", font_scale=1.6))
    qtbot.wait(20)
    plot, legend = view.plot.plot, view.plot.legend
    assert legend.isVisible() and not plot.geometry().intersects(legend.geometry())
    assert legend.geometry().top() >= plot.geometry().bottom()
    for text in view.plot.legend_texts.values():
        assert text.replace(" ", "&nbsp;") in legend.text()
