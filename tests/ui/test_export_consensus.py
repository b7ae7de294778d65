"""File › Export consensus…: the same file as ``accord agreement --consensus``, from the GUI.

The rows themselves are tested against hand counts and Potato's Dawid–Skene in
``tests/core``; here the GUI path is held to the CLI's output byte for byte (so the two
cannot drift), on the calling thread, on the worker pool and through the File menu, and
its refusals are checked to write nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.exporting.consensus import FILTERS, Written, export_consensus
from app.ui.main_window import MainWindow
from app.ui.settings import Settings
from app.ui.workers import WorkerPool
from tests.ui.shell_helpers import open_and_wait

DEMOS = Path(__file__).resolve().parents[2] / "resources" / "demo"


@pytest.fixture(scope="module")
def triage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("triage") / "support_triage"
    shutil.copytree(DEMOS / "support_triage", root)
    return root


@pytest.fixture(scope="module")
def data(triage: Path) -> ProjectData:
    return run(open_project(triage))


def cli_consensus(project: Path, out: Path, method: str) -> bytes:
    assert main(["agreement", str(project), "--consensus", str(out),
                 "--consensus-method", method]) == 0
    return out.read_bytes()


@pytest.mark.parametrize("method", ["majority", "dawid_skene"])
def test_the_gui_writes_the_clis_file(
    qtbot: QtBot, triage: Path, data: ProjectData, tmp_path: Path, method: str
) -> None:
    told: list[tuple[bool, str]] = []
    written: list[Written | None] = []
    target = tmp_path / "gui"  # no suffix: .jsonl is appended
    export_consensus(None, data, None, ask=lambda *a: (str(target), FILTERS[method]),
                     tell=lambda _p, ok, text: told.append((ok, text)), done=written.append)
    (result,) = written
    assert result is not None and result.method == method
    assert result.path == tmp_path / "gui.jsonl"
    assert result.path.read_bytes() == cli_consensus(triage, tmp_path / "cli.jsonl", method)
    assert told and told[0][0] and f"{result.rows} rows" in told[0][1]


def test_on_the_worker_pool(qtbot: QtBot, triage: Path, data: ProjectData,
                            tmp_path: Path) -> None:
    pool = WorkerPool()
    written: list[Written | None] = []
    export_consensus(None, data, pool,
                     ask=lambda *a: (str(tmp_path / "pool.jsonl"), FILTERS["majority"]),
                     tell=lambda *a: None, done=written.append)
    qtbot.waitUntil(lambda: bool(written), timeout=30000)
    assert written[0] is not None
    assert written[0].path.read_bytes() == cli_consensus(
        triage, tmp_path / "cli.jsonl", "majority")
    assert pool.await_workers(5000)


def test_refusals_write_nothing(qtbot: QtBot, triage: Path, data: ProjectData) -> None:
    before = sorted(p.relative_to(triage) for p in triage.rglob("*"))
    told: list[tuple[bool, str]] = []
    written: list[Written | None] = []
    inside = triage / "consensus.jsonl"  # Accord never writes into a project
    export_consensus(None, data, None, ask=lambda *a: (str(inside), FILTERS["majority"]),
                     tell=lambda _p, ok, text: told.append((ok, text)), done=written.append)
    assert written == [None] and not inside.exists()
    assert told and not told[0][0] and "consensus was not written" in told[0][1]
    cancelled: list[Written | None] = []
    export_consensus(None, data, None, ask=lambda *a: ("", ""), tell=lambda *a: None,
                     done=cancelled.append)
    assert cancelled == [None]
    assert sorted(p.relative_to(triage) for p in triage.rglob("*")) == before


def test_from_the_file_menu(qtbot: QtBot, settings: Settings, triage: Path, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    window = MainWindow(settings)
    qtbot.addWidget(window)
    open_and_wait(qtbot, window, triage)
    out = tmp_path / "menu.jsonl"
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a: (str(out), FILTERS["dawid_skene"]))
    errors: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *a: errors.append(str(a[2])))
    window.menus.export_consensus.trigger()
    qtbot.waitUntil(out.exists, timeout=30000)
    qtbot.waitUntil(lambda: "consensus" in window.statusBar().currentMessage(), timeout=10000)
    assert errors == []
    assert out.read_bytes() == cli_consensus(triage, tmp_path / "cli.jsonl", "dawid_skene")
