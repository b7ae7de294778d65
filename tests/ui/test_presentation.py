"""Presentation mode (full screen, A/B/C, arrow keys) and the folder watcher."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.agreement.item_ranking import item_scores, rank_items
from app.paths import demo_studies
from app.ui.main_window import MainWindow
from app.ui.presentation import FONT_SCALE
from app.ui.settings import Settings
from app.ui.views.overview.heatmap import CellState, HeatCell, PairHeatmap
from app.ui.views.registry import available_views
from app.ui.views.tiers.view import TiersView
from app.ui.watcher import is_ignored
from tests.ui.shell_helpers import DEMO, copy_demo, make_window, open_and_wait, recording


def test_presentation_names_letters_and_steps_with_the_arrow_keys(
        qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    data = open_and_wait(qtbot, window, DEMO)
    window.show()
    window.activateWindow()
    # Shortcuts go to the active window; activation is asynchronous.
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_F11)
    assert window.presentation.active and window.isFullScreen()
    context = recording(window).contexts[-1]
    assert context.anonymous and context.font_scale == FONT_SCALE
    # The four annotators in sorted order, by hand.
    assert context.aliases == {"amara": "A", "bruno": "B", "chen": "C", "dilnoza": "D"}
    assert context.annotator_label("chen") == "C"
    order = rank_items(data.report, context.scheme)
    assert context.item == order[0]
    assert f"{order[0]}   1 of {len(order)}, most disagreement first" in (
        window.presentation.caption_text)
    assert window.presentation.caption_bar.isVisible()
    assert "Esc" in window.statusBar().currentMessage()
    assert not window.tree_dock.isVisible()  # the room goes to the views
    QTest.keyClick(window, Qt.Key.Key_Right)
    assert recording(window).contexts[-1].item == order[1]
    QTest.keyClick(window, Qt.Key.Key_Down)
    QTest.keyClick(window, Qt.Key.Key_Left)
    assert recording(window).contexts[-1].item == order[1]
    QTest.keyClick(window, Qt.Key.Key_Up)
    QTest.keyClick(window, Qt.Key.Key_Up)  # the ends do not wrap
    assert recording(window).contexts[-1].item == order[0]
    QTest.keyClick(window, Qt.Key.Key_Escape)
    last = recording(window).contexts[-1]
    assert not window.isFullScreen()
    assert window.statusBar().currentMessage() == ""
    assert window.tree_dock.isVisible()
    assert not window.presentation.caption_bar.isVisible()
    assert not last.anonymous and last.font_scale == 1.0
    assert last.annotator_label("chen") == "chen"


def test_arrow_keys_do_nothing_outside_presentation(qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, DEMO)
    before = len(recording(window).contexts)
    QTest.keyClick(window, Qt.Key.Key_Right)
    assert len(recording(window).contexts) == before


def test_ledger_and_accord_folders_are_ignored(tmp_path: Path) -> None:
    assert is_ignored(tmp_path / "labeling" / "ledger.jsonl", tmp_path)
    assert is_ignored(tmp_path / "labeling" / ".ledger.jsonl.tmp123", tmp_path)
    assert is_ignored(tmp_path / ".accord" / "cache.json", tmp_path)
    assert not is_ignored(tmp_path / "labeling" / "machine_labels.jsonl", tmp_path)
    assert not is_ignored(tmp_path / "annotation_output" / "amara" / "user_state.json",
                          tmp_path)


def test_an_annotation_change_reloads_but_accords_own_writes_do_not(
        qtbot: QtBot, settings: Settings, tmp_path: Path) -> None:
    project = copy_demo(tmp_path)
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, project)
    qtbot.waitUntil(lambda: window.workers.workers == (), timeout=5000)
    labeling = project / "labeling"
    labeling.mkdir()
    with qtbot.assertNotEmitted(window.project_loaded, wait=1200):
        (labeling / "ledger.jsonl").write_text("{}\n")
        (project / ".accord").mkdir()
        (project / ".accord" / "cache").write_text("x")
    state = project / "annotation_output" / "amara" / "user_state.json"
    document = json.loads(state.read_text())
    labels = document["instance_id_to_label_to_value"]
    first = sorted(labels)[0]
    del labels[first]
    with qtbot.waitSignal(window.project_loaded, timeout=10000) as reloaded:
        state.write_text(json.dumps(document))
    assert "amara" not in reloaded.args[0].study.answers_for("resolution").get(first, {})


def _layout(window: MainWindow) -> dict[str, tuple[bool, object]]:
    """Each dock: shown (visible and not behind another tab), and where it is if shown."""
    docks = {"project": window.tree_dock, **window.docks}
    out: dict[str, tuple[bool, object]] = {}
    for name, dock in docks.items():
        shown = dock.isVisible() and not dock.visibleRegion().isEmpty()
        out[name] = (shown, dock.geometry().getRect() if shown else None)
    return out


def test_presentation_fills_the_window_with_the_detail_view_and_restores_the_layout(
        qtbot: QtBot, settings: Settings) -> None:
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    data = open_and_wait(qtbot, window, demo_studies()["speaker_turns"])
    window.pick_scheme("turns")
    qtbot.wait(50)
    before = _layout(window)
    assert before["overview"][0] and before["project"][0]
    window.presentation.enter()
    # Only the scheme's detail view (tiers) is left, under the caption.
    shown = {name for name, (visible, _) in _layout(window).items() if visible}
    assert shown == {"tiers"}
    tiers = window.docks["tiers"]
    assert tiers.height() > window.height() * 0.6
    order = rank_items(data.report, "turns")
    score = item_scores(data.report, "turns")[order[0]]
    caption = window.presentation.caption_text
    assert caption.startswith(order[0])
    assert f"1 of {len(order)}, most disagreement first" in caption
    assert f"item score {score:.2f}" in caption
    assert window.presentation.caption.font().pointSizeF() == pytest.approx(
        QApplication.font().pointSizeF() * FONT_SCALE)
    # The tiers' rows are at least two lines of the (enlarged) font tall.
    view = window.views["tiers"]
    assert isinstance(view, TiersView)
    qtbot.waitUntil(lambda: view.row_height > 0, timeout=2000)
    line = QFontMetricsF(view.header.font()).lineSpacing()
    assert view.header.font().pointSizeF() == pytest.approx(9.0 * FONT_SCALE)
    assert view.row_height >= 2 * line - 1
    window.presentation.leave()
    qtbot.wait(50)
    assert _layout(window) == before
    assert window.presentation.caption_text == caption  # kept, but its bar is hidden
    assert not window.presentation.caption_bar.isVisible()


def test_presentation_shows_every_answer_of_a_categorical_scheme(
        qtbot: QtBot, settings: Settings) -> None:
    """A categorical scheme's detail view is the answers side by side (issue 15): it
    fills the screen in presentation mode, with the annotators as A, B, C."""
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    data = open_and_wait(qtbot, window, DEMO)
    window.pick_scheme("resolution")
    before = _layout(window)
    window.presentation.enter()
    layout = _layout(window)
    assert layout["answers"][0] and not layout["project"][0]
    assert not any(layout[name][0] for name in ("items", "tiers", "traces", "cuboids"))
    answers = window.views["answers"]
    qtbot.waitUntil(lambda: bool(answers.row_labels()), timeout=5000)
    assert not any(name in label for name in data.study.annotators
                   for label in answers.row_labels())
    window.presentation.leave()
    qtbot.wait(50)
    assert _layout(window) == before


def _heatmap(qtbot: QtBot, point_size: float) -> PairHeatmap:
    heatmap = PairHeatmap()
    qtbot.addWidget(heatmap)
    font = QFont(heatmap.font())
    font.setPointSizeF(point_size)
    heatmap.setFont(font)
    cell = HeatCell(CellState.VALUE, "0.540\nn=12", 0.5)
    heatmap.set_matrix(["A", "B", "C"], [QColor("red")] * 3,
                       {(0, 1): cell, (1, 0): cell, (0, 2): cell, (2, 0): cell,
                        (1, 2): cell, (2, 1): cell})
    heatmap.resize(900, 900)
    return heatmap


def test_heatmap_cells_grow_with_the_font_and_hold_their_text(qtbot: QtBot) -> None:
    small = _heatmap(qtbot, 9.0)
    large = _heatmap(qtbot, 9.0 * FONT_SCALE)
    assert large.cell_size() > small.cell_size() * 1.3
    for heatmap in (small, large):
        metrics = QFontMetricsF(heatmap.font())
        wide = metrics.horizontalAdvance("0.540")
        tall = 2 * metrics.lineSpacing()
        assert heatmap.cell_size() > max(wide, tall) + 4
    # The sizes it asks for grow too, so a layout makes room.
    assert large.sizeHint().width() > small.sizeHint().width()
    assert large.minimumSizeHint().height() > small.minimumSizeHint().height()
