"""Presentation mode from the command line, and large type in every cell (issue 35).

Oracles: the fonts Qt resolves for each table cell and heading (a cell with no font of
its own is drawn in its table's), compared with the presentation scale; the CLI's PNG
and exit status; the window's state after ``enter_when_loaded``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTableWidget, QTableWidgetItem
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import open_project
from app.ui.main_window import MainWindow
from app.ui.presentation import FONT_SCALE, enter_when_loaded
from app.ui.settings import Settings
from app.ui.views.answers.view import AnswersView
from app.ui.views.base import BASE_POINT_SIZE, ViewContext, anonymous_aliases
from app.ui.views.items.view import ItemsView
from app.ui.views.registry import available_views
from app.ui.views.traces.view import TracesView

DATA = Path(__file__).resolve().parents[1] / "data"
CATEGORICAL = DATA / "potato_server" / "categorical"
TRACES = DATA / "potato_server" / "traces"
LARGE = BASE_POINT_SIZE * FONT_SCALE * 0.99


def cell_size(table: QTableWidget, item: QTableWidgetItem | None, header: object) -> float:
    """The point size a cell or heading is drawn in."""
    if item is not None and item.data(Qt.ItemDataRole.FontRole) is not None:
        return float(item.font().pointSizeF())
    return float(header.font().pointSizeF())  # type: ignore[attr-defined]


def every_cell(table: QTableWidget) -> list[float]:
    sizes = []
    rows, columns = table.verticalHeader(), table.horizontalHeader()
    for r in range(table.rowCount()):
        if not rows.isHidden():
            sizes.append(cell_size(table, table.verticalHeaderItem(r), rows))
        for c in range(table.columnCount()):
            sizes.append(cell_size(table, table.item(r, c), table))
    for c in range(table.columnCount()):
        if not columns.isHidden():
            sizes.append(cell_size(table, table.horizontalHeaderItem(c), columns))
    return sizes


def presenting(path: Path, **changes: object) -> ViewContext:
    project = run(open_project(path))
    return ViewContext(project=project, anonymous=True, font_scale=FONT_SCALE,
                       aliases=anonymous_aliases(tuple(sorted(project.study.annotators))),
                       **changes)  # type: ignore[arg-type]


def test_every_cell_of_the_answers_and_traces_tables_is_large(qtbot: QtBot) -> None:
    answers = AnswersView()
    qtbot.addWidget(answers)
    answers.resize(1280, 800)
    answers.show()
    answers.show_context(presenting(CATEGORICAL, item="c04"))
    sizes = every_cell(answers.table)
    assert len(sizes) > 20 and min(sizes) >= LARGE
    for label in (answers.header, answers.text, answers.key):
        assert label.font().pointSizeF() >= LARGE
    traces = TracesView()
    qtbot.addWidget(traces)
    traces.resize(1280, 800)
    traces.show()
    traces.show_context(presenting(TRACES, scheme="step_check"))
    sizes = every_cell(traces.table)
    assert len(sizes) > 5 and min(sizes) >= LARGE


def test_the_items_table_and_its_confusion_matrix_are_large(qtbot: QtBot) -> None:
    items = ItemsView()
    qtbot.addWidget(items)
    items.resize(1280, 800)
    items.show()
    context = presenting(CATEGORICAL, scheme="sentiment")
    items.show_context(context)
    items._set_combo(items.scheme_combo, "sentiment")
    assert items.table.font().pointSizeF() >= items.font().pointSizeF() * 0.99
    assert items.confusion.isVisible()
    assert min(every_cell(items.confusion.table)) >= LARGE * 0.9
    assert items.confusion.note.font().pointSizeF() >= LARGE


def test_open_presentation_enters_once_the_project_arrives(
        qtbot: QtBot, settings: Settings) -> None:
    window = MainWindow(settings, views=available_views(), watch=False, dialogs=False)
    qtbot.addWidget(window)
    window.show()
    enter_when_loaded(window)
    assert not window.presentation.active
    with qtbot.waitSignal(window.project_loaded, timeout=20000):
        window.open_path(CATEGORICAL)
    qtbot.waitUntil(lambda: window.presentation.active, timeout=5000)
    context = window.context
    assert context.anonymous and context.font_scale == FONT_SCALE
    assert context.item == window.presentation.order[0]
    window.presentation.leave()
    # Once only: a reload does not enter again.
    with qtbot.waitSignal(window.project_loaded, timeout=20000):
        window.open_path(CATEGORICAL)
    assert not window.presentation.active


@pytest.mark.parametrize("view", ["answers", None])
def test_the_cli_renders_presentation_mode(tmp_path: Path, view: str | None) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    pictures = {}
    for flag in ([], ["--presentation"]):
        out = tmp_path / f"shot{len(flag)}.png"
        command = [sys.executable, "-m", "app", "open", str(CATEGORICAL), "--screenshot",
                   str(out), "--size", "1280x800", "--item", "c04", *flag]
        command += ["--view", view] if view else []
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        image = QImage(str(out))
        assert (image.width(), image.height()) == (1280, 800)
        pictures[bool(flag)] = image
    assert pictures[True] != pictures[False]
    if view == "answers":  # one view, the same table: large type covers more with ink

        def ink(image: QImage) -> int:
            return sum(1 for y in range(0, 800, 3) for x in range(0, 1280, 3)
                       if image.pixelColor(x, y).lightness() < 90)

        assert ink(pictures[True]) > 1.3 * ink(pictures[False])
