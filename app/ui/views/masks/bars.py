"""Per-annotator sensitivity and specificity of a masks scheme as grouped bars.

The table beside it holds the numbers; the bars make "who under-segments, who
over-segments" visible at a glance. One group per annotator (in ``study.annotators``
order), two bars each: sensitivity solid, specificity hatched-light, both in the
annotator's palette colour. The y axis starts at 0 so bar lengths are honest.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.ui.palette import annotator_color

WIDTH = 0.38


class MaskBars(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w")
        item = self.plot.getPlotItem()
        item.setTitle("Sensitivity (solid) and specificity (light), whole scheme",
                      color="#222")
        for axis in ("left", "bottom"):
            item.getAxis(axis).setTextPen("#222")
            item.getAxis(axis).setPen("#666")
        item.setMouseEnabled(x=False, y=False)
        item.showGrid(y=True, alpha=0.15)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot)

    def set_font(self, font: QFont) -> None:
        """Ticks and title at ``font``'s size (presentation mode)."""
        item = self.plot.getPlotItem()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setStyle(tickFont=font)
        # The left axis keeps the width it had: widen it or larger tick labels vanish.
        item.getAxis("left").setWidth(int(QFontMetricsF(font).horizontalAdvance("0.00")) + 14)
        item.setTitle("Sensitivity (solid) and specificity (light), whole scheme",
                      color="#222", size=f"{font.pointSizeF():.1f}pt")

    def show_values(self, annotators: Sequence[str], values: object,
                    label: Callable[[str], str]) -> None:
        item = self.plot.getPlotItem()
        item.clear()
        table: Mapping[str, Mapping[str, float | None]] = (
            values if isinstance(values, Mapping) else {})
        names = [n for n in annotators if n in table]
        ticks = []
        for x, name in enumerate(names):
            color = annotator_color(list(annotators).index(name))
            light = QColor(color)
            light.setAlpha(90)
            for offset, key, brush in ((-WIDTH / 2, "sensitivity", color),
                                       (WIDTH / 2, "specificity", light)):
                value = table[name].get(key)
                if value is None:
                    continue
                item.addItem(pg.BarGraphItem(x=[x + offset], height=[float(value)],
                                             width=WIDTH * 0.95, brush=brush,
                                             pen=pg.mkPen(color, width=1.5)))
            ticks.append((x, label(name)))
        item.getAxis("bottom").setTicks([ticks])
        item.setYRange(0.0, 1.05, padding=0)
        item.setXRange(-0.7, max(len(names) - 0.3, 0.7), padding=0)
