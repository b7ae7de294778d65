"""Trace cells coloured by how bad the label is, on the project Potato 2.12.1 wrote.

Oracle: the luminance and hue of the cells' painted backgrounds (a worse label is a
darker, redder tint), read from the table; the labels from Potato's ``user_state.json``
files through the view's own cells' text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext
from app.ui.views.traces.severity import BAD, GOOD, NEUTRAL, PARTLY, legend_order, severity
from app.ui.views.traces.view import TracesView

TRACES = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "traces"


def luminance(c: QColor) -> float:
    return 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF()


@pytest.fixture(scope="module")
def traces() -> ProjectData:
    return run(open_project(TRACES))


def test_words_get_their_grade() -> None:
    for word in ("correct", "Correct", "yes", "1", "+1", "success"):
        assert severity(word) == GOOD, word
    for word in ("partially_correct", "Partially correct", "partial", "partly-right"):
        assert severity(word) == PARTLY, word
    for word in ("incorrect", "wrong", "-1", "failure", "In Correct"):
        assert severity(word) == BAD, word
    assert severity("0") == NEUTRAL
    assert severity("hallucination") is None
    # Potato's usual order puts partially_correct last; the legend goes good to bad.
    assert legend_order(["correct", "incorrect", "partially_correct", "other"]) == [
        "correct", "partially_correct", "incorrect", "other"]
    assert legend_order(["1", "-1", "0"]) == ["1", "-1", "0"]


def test_incorrect_is_darker_and_redder_than_partially_correct(
        qtbot: QtBot, traces: ProjectData) -> None:
    view = TracesView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    view.show()
    fills: dict[str, QColor] = {}
    for item in sorted(traces.study.answers_for("step_check")):
        view.show_context(ViewContext(project=traces, scheme="step_check", item=item))
        for r in range(view.table.rowCount()):
            for c in range(view.table.columnCount()):
                cell = view.table.item(r, c)
                if cell is not None and cell.text() in (
                        "correct", "partially correct", "incorrect"):
                    fills.setdefault(cell.text(), cell.background().color())
    assert set(fills) == {"correct", "partially correct", "incorrect"}
    good, partly, bad = fills["correct"], fills["partially correct"], fills["incorrect"]
    assert luminance(bad) < luminance(partly)  # worse is darker
    assert bad.red() > bad.blue() and partly.red() > partly.blue()  # both on the red side
    assert good.blue() > good.red()  # correct on the blue side
    # The legend lists them good to bad.
    key = view.legend.text()
    spots = [key.index(f"&nbsp;{word}&nbsp;")
             for word in ("correct", "partially correct", "incorrect")]
    assert spots == sorted(spots)
