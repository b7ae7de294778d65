"""The items table: columns, numeric sorting, the annotator filter, item_picked, speed."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.agreement.item_scores import ItemScores
from app.ui.views.items.model import ANNOTATORS, COUNT, ITEM, SCHEME, SCORE, SORT_ROLE
from app.ui.views.items.view import ItemsView
from tests.ui.views_helpers import context, demo


def _view(qtbot: QtBot) -> ItemsView:
    view = ItemsView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    return view


def _raw(view: ItemsView, column: int) -> list[float]:
    """The numbers behind a numeric column, in the order shown."""
    return [float(view.model.index(r, column).data(SORT_ROLE))
            for r in range(view.model.rowCount())]


def test_columns_and_default_order(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage"))
    titles = [view.model.headerData(c, Qt.Orientation.Horizontal)
              for c in range(view.model.columnCount())]
    assert titles == ["Item", "Scheme", "Score", "Count difference", "Pairs", "Annotators"]
    assert view.model.rowCount() == 4 * 38  # four schemes, 38 scored items each
    scores = _raw(view, SCORE)
    assert scores == sorted(scores)  # most disagreement first
    assert view.column_texts(COUNT)[0] == "—"  # labels have no object count


def test_scheme_combo_and_numeric_sort(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("lidar_sweeps", scheme="objects"))
    assert set(view.column_texts(SCHEME)) == {"objects"}
    view.table.sortByColumn(COUNT, Qt.SortOrder.DescendingOrder)
    diffs = _raw(view, COUNT)
    assert diffs == sorted(diffs, reverse=True)
    shown = [float(t) for t in view.column_texts(COUNT)]
    assert shown == sorted(shown, reverse=True)
    view.table.sortByColumn(SCORE, Qt.SortOrder.DescendingOrder)
    assert _raw(view, SCORE) == sorted(_raw(view, SCORE), reverse=True)
    view.table.sortByColumn(ITEM, Qt.SortOrder.AscendingOrder)
    assert view.column_texts(ITEM) == sorted(view.column_texts(ITEM))
    view.table.sortByColumn(ANNOTATORS, Qt.SortOrder.DescendingOrder)
    assert view.column_texts(ANNOTATORS) == sorted(view.column_texts(ANNOTATORS),
                                                    reverse=True)


def test_filter_by_annotator(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="resolution"))
    everyone = view.model.rowCount()
    view.annotator_combo.setCurrentIndex(view.annotator_combo.findData("bruno"))
    rows = view.model.rowCount()
    assert 0 < rows < everyone
    assert all("bruno" in t for t in view.column_texts(ANNOTATORS))
    answered = demo("support_triage").study.answers_for("resolution")
    expected = {i for i, by in answered.items() if "bruno" in by and len(by) >= 2}
    assert set(view.column_texts(ITEM)) == expected
    assert view.model.headerData(SCORE, Qt.Orientation.Horizontal) == \
        "Score (pairs with bruno)"


def test_selecting_a_row_emits_item_picked(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="resolution"))
    second = view.model.item_at(1)
    with qtbot.waitSignal(view.item_picked) as picked:
        view.table.selectRow(1)
    assert picked.args == [second]
    # The main window sends the item back: the selection stays, no signal loop.
    with qtbot.assertNotEmitted(view.item_picked):
        view.show_context(context("support_triage", scheme="resolution", item=second))
    assert view.model.item_at(view.table.currentIndex().row()) == second


def test_anonymous_mode(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", anonymous=True))
    texts = " ".join(view.column_texts(ANNOTATORS))
    combo = [view.annotator_combo.itemText(i) for i in range(view.annotator_combo.count())]
    for name in demo("support_triage").study.annotators:
        assert name not in texts and name not in combo
    assert combo == ["All annotators", "A", "B", "C", "D"]


def test_hundred_thousand_rows_sort_quickly(qtbot: QtBot) -> None:
    rng = np.random.default_rng(7)
    n = 100_000
    table = ItemScores(
        scheme="big", kind="cuboids", items=tuple(f"it-{i:06d}" for i in range(n)),
        annotators=("a", "b", "c"), answered=np.ones((n, 3), dtype=bool),
        score=rng.random(n), count_diff=rng.integers(0, 6, n).astype(float),
        n_pairs=np.full(n, 3))
    view = _view(qtbot)
    start = time.perf_counter()
    view.model.set_tables([table], str)
    view.table.sortByColumn(SCORE, Qt.SortOrder.DescendingOrder)
    elapsed = time.perf_counter() - start
    view.show()
    qtbot.waitExposed(view)
    assert view.model.rowCount() == n
    top = _raw(view, SCORE)[:100]
    assert top == sorted(top, reverse=True)
    assert float(top[0]) == float(table.score.max())
    assert elapsed < 1.0, f"filling and sorting 100,000 rows took {elapsed:.2f} s"


def test_the_worst_items_are_painted_as_bad(qtbot: QtBot) -> None:
    """The most-disagreeing row reads warm (red), the most-agreeing cool (blue)."""
    view = _view(qtbot)
    view.show_context(context("street_images", scheme="objects"))
    colours = [view.model.index(r, SCORE).data(Qt.ItemDataRole.BackgroundRole)
               for r in range(view.model.rowCount())]
    scores = _raw(view, SCORE)
    worst, best = colours[scores.index(min(scores))], colours[scores.index(max(scores))]
    assert worst.red() > worst.blue() + 20
    assert best.blue() > best.red() + 20
