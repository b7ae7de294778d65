"""File › Export report…: the dialog's answer decides the file and format; success and
failure are reported; Qt's own HTML engine loads nothing from a hostile report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.report.agreement_html import render_html
from app.ui.export_report import FILTERS, export_report
from tests.potato_project import RADIO, label, simple_items, write_project

HOSTILE = '<img src="file:///etc/hostname">'


@pytest.fixture
def data(tmp_path: Path) -> ProjectData:
    values = {"ann": ["pos", "neg", "pos"], "bob": ["pos", "neg", "neg"]}
    root = write_project(tmp_path / "study", schemes=[{**RADIO, "name": HOSTILE}],
                         items=simple_items(3),
                         annotators={who: {f"item-{i}": [label(HOSTILE, v)]
                                           for i, v in enumerate(answers)}
                                     for who, answers in values.items()})
    return run(open_project(root))


class Dialogs:
    """Stands in for QFileDialog and the message: records what was asked and told."""

    def __init__(self, answer: str, chosen: str = FILTERS["html"]) -> None:
        self.answer, self.chosen = answer, chosen
        self.asked: list[tuple[str, str]] = []
        self.told: list[tuple[bool, str]] = []

    def ask(self, parent: QWidget | None, caption: str, suggested: str,
            filters: str) -> tuple[str, str]:
        self.asked.append((suggested, filters))
        return self.answer, self.chosen

    def tell(self, parent: QWidget | None, succeeded: bool, message: str) -> None:
        self.told.append((succeeded, message))


def _export(parent: QWidget | None, data: ProjectData, dialogs: Dialogs) -> Path | None:
    return export_report(parent, data, ask=dialogs.ask, tell=dialogs.tell)


def test_suggests_a_name_beside_the_project(qtbot: QtBot, data: ProjectData) -> None:
    dialogs = Dialogs("")
    assert _export(None, data, dialogs) is None, "cancelled: nothing written"
    suggested, filters = dialogs.asked[0]
    assert suggested == str(data.path.parent / "study-agreement.html")
    assert filters.split(";;") == list(FILTERS.values())
    assert dialogs.told == []


@pytest.mark.parametrize("suffix", ["html", "csv", "json"])
def test_writes_the_format_of_the_suffix(suffix: str, qtbot: QtBot, data: ProjectData,
                                         tmp_path: Path) -> None:
    target = tmp_path / f"out.{suffix}"
    dialogs = Dialogs(str(target), FILTERS["html"])
    assert _export(None, data, dialogs) == target
    assert dialogs.told == [(True, f"Wrote the {suffix.upper()} agreement report to {target}")]
    content = target.read_text(encoding="utf-8")
    if suffix == "json":
        assert json.loads(content) == data.report.to_json()
    elif suffix == "csv":
        assert content.startswith("scheme,kind,scope,subject,metric,value,")
    else:
        assert content == render_html(data.report)


def test_a_name_without_suffix_takes_the_filter(qtbot: QtBot, data: ProjectData,
                                                tmp_path: Path) -> None:
    dialogs = Dialogs(str(tmp_path / "report"), FILTERS["csv"])
    assert _export(None, data, dialogs) == tmp_path / "report.csv"
    assert (tmp_path / "report.csv").read_text().startswith("scheme,")


def test_a_failure_is_reported_and_leaves_the_old_file(qtbot: QtBot, data: ProjectData,
                                                       tmp_path: Path) -> None:
    taken = tmp_path / "taken.html"
    taken.mkdir()
    dialogs = Dialogs(str(taken))
    assert _export(None, data, dialogs) is None
    [(succeeded, message)] = dialogs.told
    assert not succeeded and "cannot write the report" in message and str(taken) in message
    assert taken.is_dir()


def test_main_window_gets_the_message_in_its_status_bar(qtbot: QtBot, data: ProjectData,
                                                        tmp_path: Path) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    target = tmp_path / "r.html"
    path = export_report(window, data, ask=Dialogs(str(target)).ask)
    assert path == target
    assert window.statusBar().currentMessage().startswith("Wrote the HTML agreement report")


class Recording(QTextDocument):
    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []

    def loadResource(self, kind: int, name: QUrl | str) -> Any:  # noqa: N802 (Qt's name)
        self.loaded.append(name.toString() if isinstance(name, QUrl) else name)
        return super().loadResource(kind, name)


def test_qt_renders_the_hostile_report_without_loading_anything(qtbot: QtBot,
                                                                data: ProjectData) -> None:
    document = Recording()
    document.setHtml(render_html(data.report))
    document.setTextWidth(1280)
    assert document.size().height() > 500
    assert document.loaded == []
    assert HOSTILE in document.toPlainText()
