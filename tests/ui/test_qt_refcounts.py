"""The Qt bindings must not lose references to ``None``, ``True`` or ``False``.

PySide6 6.12.0 released a reference to ``None`` on every call of a Python override of a
void virtual (``paintEvent``, ``resizeEvent``, ``QGraphicsItem.paint``) and pyqtgraph
lost references to ``True``; on Python 3.11 (where those objects are not immortal) the
count reaches zero after enough repaints and the interpreter aborts with "Fatal Python
error: none_dealloc". pyproject.toml keeps PySide6 below 6.12 for that reason; this
test fails on any binding that leaks again, so an upgrade cannot bring the crash back
unnoticed. (On 3.12+ the counts of immortal objects are fixed and the check is moot.)
"""

from __future__ import annotations

import sys

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsView, QWidget

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12),
                                reason="None, True and False are immortal on Python 3.12+")


class _Painted(QWidget):
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.drawLine(0, 0, 10, 10)
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        return None


class _Item(QGraphicsRectItem):
    def paint(self, painter, option, widget=None):  # type: ignore[no-untyped-def]
        super().paint(painter, option, widget)


def _lost(counts_before: dict[str, int]) -> dict[str, int]:
    now = {"None": sys.getrefcount(None), "True": sys.getrefcount(True),
           "False": sys.getrefcount(False)}
    return {k: counts_before[k] - now[k] for k in now if now[k] < counts_before[k] - 5}


def _counts() -> dict[str, int]:
    return {"None": sys.getrefcount(None), "True": sys.getrefcount(True),
            "False": sys.getrefcount(False)}


def test_python_overrides_of_void_virtuals_keep_their_references(qtbot) -> None:  # type: ignore[no-untyped-def]
    widget = _Painted()
    scene = QGraphicsScene()
    scene.addItem(_Item(0, 0, 10, 10))
    view = QGraphicsView(scene)
    qtbot.addWidget(widget)
    qtbot.addWidget(view)
    widget.show()
    view.show()
    before = _counts()
    for i in range(300):
        widget.repaint()
        view.viewport().repaint()
        widget.resize(100 + i % 5, 100)
    assert _lost(before) == {}


def test_pyqtgraph_items_added_and_cleared_keep_their_references(qtbot) -> None:  # type: ignore[no-untyped-def]
    plot = pg.PlotWidget()
    qtbot.addWidget(plot)
    plot.show()
    before = _counts()
    for i in range(200):
        plot.addItem(pg.InfiniteLine(0.5))
        plot.plot([1, 2, 3], [i, 2, 3])
        plot.getPlotItem().clear()
        plot.repaint()
    assert _lost(before) == {}
