"""The main window: open through the worker, coverage, errors, cancel, settings, watcher."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

import app.ui.main_window as main_window
from app.cli.main import main as cli_main
from app.core.progress import Job, Progress
from app.core.project import ProjectData, open_project
from app.ui.settings import Settings
from app.ui.status_panel import SHOW_AFTER_MS
from tests.ui.shell_helpers import DEMO, copy_demo, make_window, open_and_wait, recording


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(main_window, "show_error", lambda parent, message: shown.append(message))
    return shown


def test_opening_the_demo_reaches_every_view_and_the_status_bar(
        qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    data = open_and_wait(qtbot, window, DEMO)
    shown = recording(window).contexts[-1]
    assert shown.project is data and window.project is data
    assert shown.scheme == "resolution"  # the first scheme, until the user picks one
    # The demo's README: 40 conversations, four annotators, four questions.
    assert window.status.coverage.text() == "40 items · 4 annotators · 4 schemes"
    assert window.tree.topLevelItemCount() == 4
    assert window.windowTitle() == "Accord — support_triage"


def test_picking_in_the_tree_selects_everywhere(qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, DEMO)
    node = window.tree.topLevelItem(2)
    child = node.child(0) if node is not None else None
    assert child is not None
    window.tree.setCurrentItem(child)
    context = recording(window).contexts[-1]
    assert (context.scheme, context.item) == ("step_reward", child.text(0))


def test_a_bad_project_is_one_dialog_and_the_previous_one_stays(
        qtbot: QtBot, settings: Settings, tmp_path: Path, dialogs: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    good = copy_demo(tmp_path)
    bad = copy_demo(tmp_path / "bad")
    (bad / "config.yaml").write_text("annotation_schemes: [unclosed\n")
    window = make_window(qtbot, settings)
    data = open_and_wait(qtbot, window, good)
    with qtbot.waitSignal(window.load_failed, timeout=10000) as failed:
        window.open_path(bad)
    assert cli_main(["agreement", str(bad)]) == 2
    cli_line = capsys.readouterr().err.strip()
    assert dialogs == [failed.args[0]]
    assert cli_line == f"accord: error: {dialogs[0]}"
    assert "config.yaml" in dialogs[0]
    assert window.project is data
    assert recording(window).contexts[-1].project is data
    assert window.status.coverage.text() == "40 items · 4 annotators · 4 schemes"
    again = open_and_wait(qtbot, window, good)  # still usable: reload works
    assert again.path == good


def _slow_open(gate: threading.Event, steps: list[int]) -> object:
    def fake(path: Path, **options: object) -> Job[ProjectData]:
        for i in range(10_000):
            steps.append(i)
            gate.wait(0.01)
            yield Progress(i, 10_000, "waiting")
        raise AssertionError("not cancelled")

    return fake


def test_a_long_open_shows_progress_and_cancel_works(
        qtbot: QtBot, settings: Settings, monkeypatch: pytest.MonkeyPatch,
        dialogs: list[str]) -> None:
    window = make_window(qtbot, settings)
    data = open_and_wait(qtbot, window, DEMO)
    steps: list[int] = []
    monkeypatch.setattr(main_window, "open_project", _slow_open(threading.Event(), steps))
    worker = window.open_path(DEMO)
    qtbot.waitUntil(lambda: window.status.busy_shown, timeout=SHOW_AFTER_MS + 2000)
    assert window.status.bar.value() > 0
    with qtbot.waitSignal(worker.signals.cancelled, timeout=5000):
        QTest.mouseClick(window.status.cancel, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.status.busy_shown, timeout=2000)
    assert len(steps) < 10_000 and dialogs == []
    assert window.project is data


def test_a_quick_open_shows_no_progress_bar(qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, DEMO)
    assert not window.status.busy_shown


def test_closing_cancels_and_waits_for_running_work(
        qtbot: QtBot, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window(qtbot, settings)
    steps: list[int] = []
    monkeypatch.setattr(main_window, "open_project", _slow_open(threading.Event(), steps))
    window.open_path(DEMO)
    qtbot.waitUntil(lambda: len(steps) > 2, timeout=5000)
    window.close()
    assert window.workers.pool.activeThreadCount() == 0
    assert len(steps) < 10_000


def test_settings_remember_recent_projects_and_the_window(
        qtbot: QtBot, settings: Settings, tmp_path: Path) -> None:
    project = copy_demo(tmp_path)
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, project)
    assert settings.recent_projects() == [project.resolve()]
    assert settings.last_project() == project.resolve()
    assert window.menus.recent.actions()[0].text() == str(project.resolve())
    window.resize(700, 500)  # inside the offscreen screen (800 x 600)
    window.close()
    again = make_window(qtbot, Settings.at(Path(settings.store.fileName())))
    assert (again.width(), again.height()) == (700, 500)


def test_bundled_demos_are_not_remembered_and_all_listed(
        qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, DEMO)
    assert settings.recent_projects() == []
    names = [a.text() for a in window.menus.demos.actions()]
    assert "support triage" in names and "lidar sweeps" in names


def test_default_settings_never_touch_the_real_ones(tmp_path_factory: pytest.TempPathFactory,
                                                    ) -> None:
    store = Settings().store.fileName()
    assert Path(store).is_relative_to(tmp_path_factory.getbasetemp())


def test_shortcuts(qtbot: QtBot, settings: Settings) -> None:
    window = make_window(qtbot, settings)
    menus = window.menus
    assert menus.open.shortcut().toString() == "Ctrl+O"
    assert menus.reload.shortcut().toString() == "F5"
    assert menus.quit.shortcut().toString() == "Ctrl+Q"
    assert [k.toString() for k in menus.presentation.shortcuts()] == ["F11", "Ctrl+Shift+P"]
    keys = {a.shortcut().toString() for a in window.actions()}
    assert "Alt+1" in keys  # the overview (the recording view stands in for it)


def test_dropping_a_folder_opens_it(qtbot: QtBot, settings: Settings, tmp_path: Path) -> None:
    project = copy_demo(tmp_path)
    window = make_window(qtbot, settings)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(project))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.project_loaded, timeout=20000) as loaded:
        window.dropEvent(event)
    assert loaded.args[0].path == project


def test_certify_from_the_contracts_view_runs_a_look(
        qtbot: QtBot, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    project = copy_demo(tmp_path)
    window = make_window(qtbot, settings, watch=False)
    open_and_wait(qtbot, window, project)
    calls: list[dict[str, object]] = []
    real = open_project

    def recorded(path: Path, **options: object) -> Iterator[Progress]:
        calls.append(options)
        return real(path)

    monkeypatch.setattr(main_window, "open_project", recorded)
    with qtbot.waitSignal(window.project_loaded, timeout=20000):
        recording(window).certify_requested.emit("accuracy")
    with qtbot.waitSignal(window.project_loaded, timeout=20000):
        recording(window).certify_requested.emit("")
    assert calls == [{"certify": True, "contract": "accuracy"},
                     {"certify": True, "contract": None}]


def test_the_bundled_demo_is_never_certified(qtbot: QtBot, settings: Settings,
                                             dialogs: list[str]) -> None:
    window = make_window(qtbot, settings)
    open_and_wait(qtbot, window, DEMO)
    qtbot.waitUntil(lambda: window.workers.workers == (), timeout=5000)
    recording(window).certify_requested.emit("")
    assert len(dialogs) == 1 and "export" in dialogs[0]
    assert window.workers.workers == ()
