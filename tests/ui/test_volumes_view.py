"""The slice view on the project Potato 2.12.1's server wrote (``tests/data/potato_server/
volumes``): the outlines drawn on a slice are exactly the boundary edges of the masks
Potato's own decoder reads from ``user_state.json`` (the oracle, never the view's code),
the slider spans the volume, the per-label Dice are the report's, presentation mode hides
every name, and a skipped item says why."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel, QTableWidget
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.volumes.view import VolumesView

ROOT = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "volumes"
IAA = json.loads((ROOT / "expected" / "iaa.json").read_text())["schemas"]["organs"]


@pytest.fixture(scope="module")
def project() -> ProjectData:
    return run(open_project(ROOT))


def _context(project: ProjectData, anonymous: bool = False, **kw: Any) -> ViewContext:
    return ViewContext(project=project, anonymous=anonymous,
                       aliases=anonymous_aliases(project.study.annotators), **kw)


def _stored(item: str) -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted(ROOT.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for key, value in state["instance_id_to_label_to_value"].get(item, []):
            if key["schema"] == "organs":
                out[path.parent.name] = json.loads(value)
    return out


def _edges(mask: np.ndarray) -> set[tuple[int, int, int, int]]:
    """Brute force: every unit edge between a painted voxel (row j, column i) and an
    unpainted one or the border."""
    nj, ni = mask.shape
    out = set()
    for j, i in zip(*np.nonzero(mask), strict=True):
        if j == 0 or not mask[j - 1, i]:
            out.add((i, j, i + 1, j))
        if j == nj - 1 or not mask[j + 1, i]:
            out.add((i, j + 1, i + 1, j + 1))
        if i == 0 or not mask[j, i - 1]:
            out.add((i, j, i, j + 1))
        if i == ni - 1 or not mask[j, i + 1]:
            out.add((i + 1, j, i + 1, j + 1))
    return {tuple(int(v) for v in e) for e in out}


def _texts(view: VolumesView) -> str:
    parts = [w.text() for w in view.findChildren(QLabel)]
    for table in view.findChildren(QTableWidget):
        for r in range(table.rowCount()):
            for c in range(table.columnCount()):
                if table.item(r, c) is not None:
                    parts.append(table.item(r, c).text())
    parts += [b.text() for b in view.legend.boxes.values()]
    return "\n".join(parts)


def test_outlines_are_the_stored_masks_on_each_slice(qtbot: QtBot, project: ProjectData
                                                     ) -> None:
    from potato.media.volume_masks import label_volume

    view = VolumesView()
    qtbot.addWidget(view)
    view.show_context(_context(project, item="v03", scheme="organs"))
    assert view.label_combo.currentText() == "Liver"
    assert (view.slider.minimum(), view.slider.maximum()) == (0, 11)
    stored = _stored("v03")
    checked = 0
    for k in range(12):
        view.slider.setValue(k)
        drawn = {o.name: {tuple(int(v) for v in s) for s in o.segments}
                 for o in view.canvas.outlines}
        assert set(drawn) == {"alice", "bob", "carol"}
        for who, raw in stored.items():
            mask = label_volume(raw, raw["shape"], "Liver")[:, :, k].T  # (nj, ni)
            assert drawn[who] == _edges(mask)
            checked += bool(mask.any())
    assert checked > 0
    colors = [o.color.name() for o in view.canvas.outlines]
    assert len(set(colors)) == 3


def test_dice_table_is_the_reports(qtbot: QtBot, project: ProjectData) -> None:
    view = VolumesView()
    qtbot.addWidget(view)
    view.show_context(_context(project, item="v00", scheme="organs"))
    rows = {view.table.item(r, 0).text(): [view.table.item(r, c).text() for c in range(1, 4)]
            for r in range(view.table.rowCount())}
    for label, value in IAA["metrics"]["dice_by_label"].items():
        assert round(float(rows[label][1]), 3) == pytest.approx(value, abs=6e-4)
    assert rows["Cyst"] == ["—", rows["Cyst"][1], "3"]  # nobody painted Cyst on v00


def test_presentation_hides_names(qtbot: QtBot, project: ProjectData) -> None:
    view = VolumesView()
    qtbot.addWidget(view)
    view.show_context(_context(project, anonymous=True, item="v02", scheme="organs"))
    text = _texts(view)
    for name in ("alice", "bob", "carol"):
        assert name not in text
    assert "A – B" in text and "B – C" in text


def test_a_skipped_item_says_why(qtbot: QtBot, project: ProjectData) -> None:
    view = VolumesView()
    qtbot.addWidget(view)
    view.show_context(_context(project, item="v04", scheme="organs"))
    assert "not scored: answers on different volume shapes" in view.heading.text()
    assert view.canvas.outlines == []


def test_cards_and_tree_name_the_dice(project: ProjectData) -> None:
    from app.ui.views.metric_text import SHORT, headline_key, metric_label

    result = project.report.schemes["organs"]
    assert headline_key(result.metrics) == "mean_dice" and SHORT["mean_dice"] == "Dice"
    assert metric_label("dice_by_label.Lesion", "volumes") == "Dice, Lesion"
    assert metric_label("mean_dice", "volumes") == "mean Dice"
