"""Presentation mode (full screen, A/B/C, arrow keys) and the folder watcher."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.core.agreement.item_ranking import rank_items
from app.ui.presentation import FONT_SCALE
from app.ui.settings import Settings
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
    assert "1 of" in window.statusBar().currentMessage()
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
