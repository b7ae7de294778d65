"""Two plots of a number scheme's pairs: every pair's answers against each other with
the identity line, and the Bland–Altman plot (difference against mean, the bias and the
limits of agreement).

Points are coloured by pair (the legend under the plots names each pair, A–B in
presentation mode); the selected item's points are ringed in red on both plots. Plot
items are made once and updated in place (as :mod:`app.ui.views.regions.plot` explains:
adding and removing pyqtgraph items over and over is costly and unsafe under PySide6).
The points' data come from :mod:`.model`; nothing is computed here.
"""

from __future__ import annotations

from html import escape

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget

from app.ui.views.numbers.model import PairPoints, bland_altman

PAIR_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000",
               "#882255", "#999933", "#332288", "#44AA99", "#AA4499", "#661100", "#888888")
"""Okabe–Ito, then Tol's muted: five annotators' ten pairs each get their own colour."""
ITEM_COLOR = QColor("#C0392B")
IDENTITY = QColor("#888888")


def _plot(title: str, bottom: str, left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setMinimumWidth(220)
    item = plot.getPlotItem()
    item.setTitle(title, color="#222")
    item.setLabel("bottom", bottom, color="#222")
    item.setLabel("left", left, color="#222")
    for axis in ("left", "bottom"):
        item.getAxis(axis).setTextPen("#222")
        item.getAxis(axis).setPen("#666")
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setMouseEnabled(x=False, y=False)
    item.hideButtons()
    return plot


class PairPlots(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scatter = _plot("Answers, pair by pair", "first annotator", "second annotator")
        self.ba = _plot("Bland–Altman", "mean of the two", "first − second")
        s, b = self.scatter.getPlotItem(), self.ba.getPlotItem()
        self.identity = pg.PlotDataItem([0, 1], [0, 1], pen=pg.mkPen(
            IDENTITY, width=1.5, style=Qt.PenStyle.DashLine))
        s.addItem(self.identity)
        self.points = pg.ScatterPlotItem([], [], size=9, pen=pg.mkPen("#FFFFFF", width=0.5))
        s.addItem(self.points)
        self.item_points = pg.ScatterPlotItem([], [], size=16, brush=None,
                                              pen=pg.mkPen(ITEM_COLOR, width=2.5))
        s.addItem(self.item_points)
        self.ba_points = pg.ScatterPlotItem([], [], size=9, pen=pg.mkPen("#FFFFFF", width=0.5))
        b.addItem(self.ba_points)
        self.ba_item = pg.ScatterPlotItem([], [], size=16, brush=None,
                                          pen=pg.mkPen(ITEM_COLOR, width=2.5))
        b.addItem(self.ba_item)
        self.bias = pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen("#222222", width=1.5))
        self.low = pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen(
            "#555555", width=1.2, style=Qt.PenStyle.DashLine))
        self.high = pg.InfiniteLine(0.0, angle=0, pen=pg.mkPen(
            "#555555", width=1.2, style=Qt.PenStyle.DashLine))
        for line in (self.bias, self.low, self.high):
            b.addItem(line)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.ba_note = QLabel()
        self.ba_note.setWordWrap(True)
        plots = QHBoxLayout()
        plots.setContentsMargins(0, 0, 0, 0)
        plots.addWidget(self.scatter, 1)
        plots.addWidget(self.ba, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(plots, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self.ba_note)

    def set_font(self, font: QFont) -> None:
        size = f"{font.pointSizeF():.1f}pt"
        width = int(QFontMetricsF(font).horizontalAdvance("−00.0")) + 24
        for plot, title, bottom, left in (
                (self.scatter, "Answers, pair by pair", "first annotator", "second annotator"),
                (self.ba, "Bland–Altman", "mean of the two", "first − second")):
            item = plot.getPlotItem()
            for axis in ("left", "bottom"):
                item.getAxis(axis).setStyle(tickFont=font)
            item.getAxis("left").setWidth(width)
            item.setTitle(title, color="#222", size=size)
            item.setLabel("bottom", bottom, color="#222", **{"font-size": size})
            item.setLabel("left", left, color="#222", **{"font-size": size})
        self.legend.setFont(font)
        self.ba_note.setFont(font)

    def show_pairs(self, pairs: list[PairPoints], names: dict[str, str],
                   item: str | None) -> None:
        """Plot ``pairs`` (one colour each); ring ``item``'s points."""
        xs: list[float] = []
        ys: list[float] = []
        brushes = []
        means: list[float] = []
        diffs: list[float] = []
        ring: list[tuple[float, float]] = []
        ring_ba: list[tuple[float, float]] = []
        legend = []
        for k, pair in enumerate(pairs):
            color = QColor(PAIR_COLORS[k % len(PAIR_COLORS)])
            ba = bland_altman(pair.x, pair.y)
            xs += pair.x
            ys += pair.y
            means += ba.means
            diffs += ba.diffs
            brushes += [pg.mkBrush(color)] * len(pair.x)
            if item in pair.items:
                i = pair.items.index(item)
                ring.append((pair.x[i], pair.y[i]))
                ring_ba.append((ba.means[i], ba.diffs[i]))
            entry = f"{names[pair.a]} – {names[pair.b]} ({len(pair.items)} items)"
            # one piece: no break at its spaces or after its dash (U+2060 word joiners;
            # Qt's rich text broke after "–" even in a nowrap span)
            whole = escape(entry).replace(" ", "&nbsp;").replace("–", "\u2060–\u2060")
            legend.append(f"<span style='color:{color.name()}'>●</span>&nbsp;{whole}")
        self.points.setData(xs, ys, brush=brushes)
        self.ba_points.setData(means, diffs, brush=brushes)
        self.item_points.setData([p[0] for p in ring], [p[1] for p in ring])
        self.ba_item.setData([p[0] for p in ring_ba], [p[1] for p in ring_ba])
        if xs:
            lo, hi = min(xs + ys), max(xs + ys)
            pad = (hi - lo) * 0.05 or 1.0
            self.identity.setData([lo - pad, hi + pad], [lo - pad, hi + pad])
            self.scatter.getPlotItem().setRange(xRange=(lo - pad, hi + pad),
                                                yRange=(lo - pad, hi + pad), padding=0)
        if item is not None:
            legend.append(f"<span style='color:{ITEM_COLOR.name()}'>◯</span>&nbsp;item&nbsp;"
                          f"{escape(item)}" + ("" if ring else "&nbsp;(no&nbsp;pair&nbsp;here)"))
        legend.append(f"<span style='color:{IDENTITY.name()}'>- -</span>&nbsp;identity")
        self.legend.setText(" &nbsp; ".join(legend))
        self._lines(pairs, names)

    def _lines(self, pairs: list[PairPoints], names: dict[str, str]) -> None:
        """Bias and limits of agreement: of the one pair shown, else of all points."""
        x = tuple(v for p in pairs for v in p.x)
        y = tuple(v for p in pairs for v in p.y)
        ba = bland_altman(x, y)
        which = (f"{names[pairs[0].a]} − {names[pairs[0].b]}" if len(pairs) == 1
                 else "all pairs pooled")
        self.bias.setVisible(ba.bias is not None)
        self.low.setVisible(ba.limits is not None)
        self.high.setVisible(ba.limits is not None)
        if ba.bias is None:
            self.ba_note.setText(f"Bland–Altman ({which}): no bias: {ba.reason}.")
            return
        self.bias.setValue(ba.bias)
        text = f"Bland–Altman ({which}): bias {ba.bias:.3g} (solid)"
        if ba.limits is None:
            text += f"; limits of agreement undefined: {ba.reason}."
        else:
            self.low.setValue(ba.limits[0])
            self.high.setValue(ba.limits[1])
            text += (f", limits of agreement {ba.limits[0]:.3g} to {ba.limits[1]:.3g} "
                     "(dashed: bias ± 1.96 SD of the differences).")
        self.ba_note.setText(text)
