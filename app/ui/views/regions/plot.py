"""Within- versus between-item localization distances of a regions scheme, as a plot.

Two step histograms on shared bins over ``d = (1 − GIoU) / 2`` in [0, 1] (densities, so
samples of different sizes read on one scale), a dashed line at each mean, the selected
item's own within-item distances as ticks under the axis (when it has none, its legend
entry says so). The numbers (σ, KS, the αs) are in the card beneath the plot
(:mod:`.card`). Binning is done in the core
(:func:`~app.core.agreement.regions.distances.distance_histograms`).

Colours: within-item in the palette's first label colour (blue), between-item (chance)
in grey, so "people on the same picture" reads as the figure and chance as the ground.

The legend is a wrapped line of text under the plot, outside the plotting area: inside
it, pyqtgraph's legend covered the between-item histogram wherever it was anchored (that
histogram fills the right half), docked at 1280×800 and in presentation mode alike; in
a row of pyqtgraph's own layout it would not wrap and widened the plot past the dock.
"""

from __future__ import annotations

from html import escape

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.core.agreement.regions.distances import (
    RegionAgreement,
    distance_histograms,
    item_within,
)
from app.core.agreement.result import SchemeResult

WITHIN_COLOR = QColor("#1F5FA8")
BETWEEN_COLOR = QColor("#8A8A8A")
ITEM_COLOR = QColor("#C0392B")
LEGEND_MARKS = {"between": "▬", "within": "▬", "item": "❙"}
LEGEND_COLORS = {"between": BETWEEN_COLOR, "within": WITHIN_COLOR, "item": ITEM_COLOR}


class DistancePlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setMinimumWidth(280)
        item = self.plot.getPlotItem()
        item.setTitle("Localization distance, within vs between items", color="#222")
        item.setLabel("bottom", "distance d = (1 − GIoU) / 2", color="#222")
        item.setLabel("left", "density", color="#222")
        for axis in ("left", "bottom"):
            item.getAxis(axis).setTextPen("#222")
            item.getAxis(axis).setPen("#666")
        item.showGrid(x=True, y=True, alpha=0.15)
        item.setMouseEnabled(x=False, y=False)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        self.legend.setContentsMargins(6, 0, 6, 2)
        self.legend_texts: dict[str, str] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend)
        # Items are made once and updated in place: adding and removing pyqtgraph items
        # over and over loses references to Py_True under PySide6 6.12 (a crash at exit
        # after ~100 cycles), and updating in place is cheaper anyway.
        self.curves: dict[str, pg.GraphicsObject] = {}
        for key, color in (("between", BETWEEN_COLOR), ("within", WITHIN_COLOR)):
            fill = QColor(color)
            fill.setAlpha(70)
            curve = pg.PlotDataItem(
                [0.0, 1.0],
                [0.0],
                stepMode="center",
                fillLevel=0,
                brush=fill,
                pen=pg.mkPen(color, width=2),
                name=key,
            )
            item.addItem(curve)
            self.curves[key] = curve
            line = pg.InfiniteLine(
                0.0, angle=90, pen=pg.mkPen(color, width=1.5, style=Qt.PenStyle.DashLine)
            )
            item.addItem(line)
            self.curves[f"mean_{key}"] = line
        ticks = pg.ScatterPlotItem(
            [],
            [],
            symbol="|",
            size=14,
            pen=pg.mkPen(ITEM_COLOR, width=2),
            brush=ITEM_COLOR,
            name="item",
        )
        item.addItem(ticks)
        self.curves["item"] = ticks
        item.setXRange(0.0, 1.0, padding=0.02)
        self._set_visible(False)

    def _set_visible(self, visible: bool, keys: tuple[str, ...] | None = None) -> None:
        for key, curve in self.curves.items():
            if keys is None or key in keys:
                curve.setVisible(visible)

    def _name(self, key: str, text: str) -> None:
        self.legend_texts[key] = text
        entries = [
            f"<span style='color:{LEGEND_COLORS[k].name()}'>{LEGEND_MARKS[k]}</span>"
            f"&nbsp;{escape(self.legend_texts[k]).replace(' ', '&nbsp;')}"  # one piece
            for k in LEGEND_MARKS
            if k in self.legend_texts
        ]
        self.legend.setText("<span style='color:#222'>" + " &nbsp; ".join(entries) + "</span>")

    def visible_curves(self) -> set[str]:
        return {key for key, curve in self.curves.items() if curve.isVisible()}

    def set_font(self, font: QFont) -> None:
        """Ticks, axis labels, title and legend at ``font``'s size (presentation mode)."""
        size = f"{font.pointSizeF():.1f}pt"
        item = self.plot.getPlotItem()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setStyle(tickFont=font)
        item.getAxis("left").setWidth(int(QFontMetricsF(font).horizontalAdvance("0.00")) + 30)
        item.setTitle("Localization distance, within vs between items", color="#222", size=size)
        item.setLabel("bottom", "distance d = (1 − GIoU) / 2", color="#222", **{"font-size": size})
        item.setLabel("left", "density", color="#222", **{"font-size": size})
        self.legend.setFont(font)

    def show_result(
        self, result: SchemeResult | None, item: str | None, item_label: str | None
    ) -> None:
        self._set_visible(False)
        self.legend_texts = {}
        self.legend.setText("")
        if result is None:
            return
        details = result.details
        loc = details.localization if isinstance(details, RegionAgreement) else None
        if loc is None:
            return
        hist = distance_histograms(loc)
        for key, density, sample, label in (
            ("between", hist.between, loc.between, "between items (chance)"),
            ("within", hist.within, loc.within, "within item (matched pairs)"),
        ):
            self.curves[key].setData(hist.edges, density)
            self._name(key, f"{label}, n = {sample.size:,}")
            self.curves[key].setVisible(True)
            if sample.size:
                self.curves[f"mean_{key}"].setValue(float(sample.mean()))
                self.curves[f"mean_{key}"].setVisible(True)
        mine = item_within(loc, item) if item is not None else loc.within[:0]
        if mine.size:
            top = float(max(hist.within.max(initial=0), hist.between.max(initial=0)))
            self.curves["item"].setData(mine, [-0.04 * top] * mine.size)
            self._name("item", f"this item ({item_label}), n = {mine.size}")
            self.curves["item"].setVisible(True)
        else:
            self._name("item", "this item: no matched pairs")
