"""The confusion matrix beside the items list, and its cells as a filter.

The counts are checked against a plain count over the demo's answers (not against the
core function the panel calls); the filter against the items those answers name.
"""

from __future__ import annotations

from itertools import combinations

from pytestqt.qtbot import QtBot

from app.ui.views.items.model import ITEM
from app.ui.views.items.view import ItemsView
from tests.ui.views_helpers import context, demo


def _view(qtbot: QtBot, name: str, scheme: str) -> ItemsView:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    view.show_context(context(name, scheme=scheme))
    return view


def _answers(name: str, scheme: str) -> dict[str, dict[str, str]]:
    raw = demo(name).study.answers_for(scheme)
    return {item: {a: str(v) for a, v in by.items()} for item, by in raw.items() if len(by) > 1}


def test_the_pooled_matrix_counts_every_pair_of_answers(qtbot: QtBot) -> None:
    view = _view(qtbot, "support_triage", "resolution")
    panel = view.confusion
    assert panel.isVisible()
    labels = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    expected: dict[tuple[str, str], int] = {}
    pairs = 0
    for by in _answers("support_triage", "resolution").values():
        for a, b in combinations(sorted(by), 2):
            pairs += 1
            # Both orders for every pair, agreeing or not (issue 35: the diagonal counted
            # an agreeing pair once while a disagreeing one filled two mirror cells).
            for cell in [(by[a], by[b]), (by[b], by[a])]:
                expected[cell] = expected.get(cell, 0) + 1
    for r, x in enumerate(labels):
        for c, y in enumerate(labels):
            count = expected.get((x, y), 0)
            assert panel.cell_text(r, c) == (f"{count:,}" if count else ""), (x, y)
    assert sum(expected.values()) == 2 * pairs
    # The convention is said under the matrix, and a diagonal cell's tooltip gives the
    # pairs behind it (half its count).
    assert "counted in both orders, on and off the diagonal" in panel.note.text()
    assert f"{pairs:,} pairs of answers" in panel.note.text()
    d = labels.index("resolved")
    tip = panel.table.item(d, d).toolTip()
    both = expected[("resolved", "resolved")]
    assert tip.startswith(f"{both:,}: {both // 2:,} pairs of answers where two annotators")


def test_a_cell_filters_the_items_list_and_clear_restores_it(qtbot: QtBot) -> None:
    view = _view(qtbot, "support_triage", "resolution")
    everything = set(view.column_texts(ITEM))
    panel = view.confusion
    labels = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    r, c = labels.index("partially_resolved"), labels.index("resolved")
    expected = {item for item, by in _answers("support_triage", "resolution").items()
                if {"partially_resolved", "resolved"} <= set(by.values())}
    panel.table.cellClicked.emit(r, c)
    assert set(view.column_texts(ITEM)) == expected
    assert view.filter_box.isVisible()
    assert f"the {len(expected)} items of one cell" in view.filter_label.text()
    view.clear_button.click()
    assert set(view.column_texts(ITEM)) == everything
    assert not view.filter_box.isVisible()


def test_a_pair_matrix_has_rows_for_one_annotator_and_columns_for_the_other(
        qtbot: QtBot) -> None:
    view = _view(qtbot, "support_triage", "resolution")
    panel = view.confusion
    panel.pair_combo.setCurrentIndex(1)
    a, b = str(panel.pair_combo.currentData()).split("|")
    labels = [panel.table.horizontalHeaderItem(c).text() for c in range(panel.table.columnCount())]
    answers = _answers("support_triage", "resolution")
    for r, x in enumerate(labels):
        for c, y in enumerate(labels):
            count = sum(1 for by in answers.values() if by.get(a) == x and by.get(b) == y)
            assert panel.cell_text(r, c) == (f"{count:,}" if count else "")


def test_no_matrix_for_objects_or_all_schemes(qtbot: QtBot) -> None:
    view = _view(qtbot, "lidar_sweeps", "objects")
    assert not view.confusion.isVisible()
