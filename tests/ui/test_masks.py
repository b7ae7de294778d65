"""The masks view on the street demo: the consensus overlay, outlines per annotator, and
the sensitivity/specificity table.

Oracles: the scheme columns equal the report's ``extra["annotators"]`` (what the JSON
prints) exactly; the item columns are recomputed here from the item's STAPLE runs; the
overlay's coloured pixels are counted against the consensus masks; the README's noise
models say tomas under-segments (lowest sensitivity) and ravi over-segments (lowest
specificity).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGraphicsPixmapItem

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.masks.view import CONSENSUS, MasksView

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "street_images"


@pytest.fixture(scope="module")
def project() -> ProjectData:
    return run(open_project(DEMO))


def table(view: MasksView) -> dict[str, list[object]]:
    out = {}
    for row in range(view.table.rowCount()):
        cells = [view.table.item(row, c) for c in range(view.table.columnCount())]
        out[cells[0].text()] = [c.data(Qt.ItemDataRole.UserRole) for c in cells[1:3]] + [
            c.text() for c in cells[1:]]
    return out


def test_scheme_columns_equal_the_report(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = MasksView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_06"))
    reported = project.report.schemes["segmentation"].extra["annotators"]
    shown = table(view)
    assert list(shown) == ["ana", "ravi", "tomas"]
    for name, values in reported.items():
        assert shown[name][0] == values["sensitivity"]
        assert shown[name][1] == values["specificity"]
        assert shown[name][2] == f"{values['sensitivity']:.3f}"
        assert shown[name][4] == str(values["n_runs"])
    sens = {n: v[0] for n, v in shown.items()}
    spec = {n: v[1] for n, v in shown.items()}
    assert min(sens, key=sens.__getitem__) == "tomas"
    assert min(spec, key=spec.__getitem__) == "ravi"


def test_item_columns_are_this_items_runs(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = MasksView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_03"))
    runs = [r for r in project.report.schemes["segmentation"].details.runs
            if r.item == "street_03"]
    assert {r.label for r in runs} == {"road", "sidewalk"}
    for row in range(view.table.rowCount()):
        name = view.table.item(row, 0).text()
        expected = np.mean([r.sensitivity[r.annotators.index(name)] for r in runs])
        assert view.table.item(row, 4).text() == f"{expected:.3f}"
    # one label only
    view.labels_combo.setCurrentText("road")
    view.labels_combo.activated.emit(view.labels_combo.currentIndex())
    road = next(r for r in runs if r.label == "road")
    assert view.table.item(2, 4).text() == f"{road.sensitivity[2]:.3f}"


def test_consensus_overlay_and_outlines(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = MasksView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_06"))
    (layer,) = view.canvas.items_of(CONSENSUS)
    assert isinstance(layer, QGraphicsPixmapItem)
    image = layer.pixmap().toImage()
    assert (image.width(), image.height()) == (320, 240)
    runs = [r for r in project.report.schemes["segmentation"].details.runs
            if r.item == "street_06"]
    union = np.zeros((240, 320), dtype=bool)
    for r in runs:
        union |= r.consensus
    painted = sum(1 for y in range(0, 240, 4) for x in range(0, 320, 4)
                  if image.pixelColor(x, y).alpha() > 0)
    assert painted == int(union[::4, ::4].sum())
    for name in project.study.annotators:
        assert len(view.canvas.items_of(name)) == 1
    view.legend.boxes["ravi"].setChecked(False)
    assert not view.canvas.items_of("ravi")[0].isVisible()
    view.consensus_box.setChecked(False)
    assert not layer.isVisible()


def test_presentation_mode_hides_names(qtbot, project: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = MasksView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, item="street_06", anonymous=True,
                                  aliases=anonymous_aliases(project.study.annotators)))
    assert list(table(view)) == ["A", "B", "C"]
    assert [b.text() for b in view.legend.boxes.values()] == [
        "A · 2 masks", "B · 2 masks", "C · 2 masks"]


def test_without_masks(qtbot) -> None:  # type: ignore[no-untyped-def]
    view = MasksView()
    qtbot.addWidget(view)
    view.show_context(ViewContext())
    assert "No project" in view.empty_message
    other = run(open_project(DEMO.parent / "support_triage"))
    view.show_context(ViewContext(project=other))
    assert "no pixel-mask scheme" in view.empty_message
    assert view.table.rowCount() == 0
