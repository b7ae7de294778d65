"""The contracts panel's plots: one small pyqtgraph plot per contract kind that has one.

- ``ppi``: each estimate as a point with its interval as an error bar, one colour per
  label, grouped by the ``by`` value when there is one.
- ``selective_risk``: dev error against coverage as the threshold falls, one curve per
  tier (:func:`~app.core.contracts.kinds.coverage_curve.error_coverage_curves`, dev labels
  only), the target error as a dashed line and the rule's threshold as a star.
- ``distributional``: the mean Jensen–Shannon distance as a bar with its interval,
  overall and per group, the noise ceiling as a black tick on each bar, and
  ``max_distance`` as a dashed red line.
- ``budget_first``: the share of the corpus certifiable against the error target.

Each builder returns a ready ``PlotWidget`` or ``None`` when the result holds nothing to
draw. Plots are white with dark axes, like every other plot in Accord, and do not pan
or zoom; they have no right-click menu either (its axis controls serve a plot that
moves, and pyqtgraph builds the menu's two forms with every plot: 15 of the 25 ms a plot
took, in the panel's longest step on the GUI thread, ``bench_gui_stall.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.core.contracts.kinds.coverage_curve import TierCurve
from app.ui.palette import label_color

PLOT_HEIGHT = 210
TARGET_COLOR = QColor("#C0392B")


def _plot(title: str, x_label: str, y_label: str) -> pg.PlotWidget:
    widget = pg.PlotWidget(background="w", viewBox=pg.ViewBox(enableMenu=False))
    widget.setFixedHeight(PLOT_HEIGHT)
    widget.setMinimumWidth(460)
    item = widget.getPlotItem()
    item.setTitle(title, color="#222", size="10pt")
    item.setLabel("bottom", x_label, color="#222")
    item.setLabel("left", y_label, color="#222")
    for axis in ("left", "bottom"):
        item.getAxis(axis).setTextPen("#222")
        item.getAxis(axis).setPen("#666")
        item.getAxis(axis).enableAutoSIPrefix(False)
    item.showGrid(x=True, y=True, alpha=0.15)
    item.setMouseEnabled(x=False, y=False)
    item.hideButtons()
    return widget


def _estimates(result: Mapping[str, Any]) -> list[tuple[str, str, float, float, float]]:
    """(group, label, estimate, low, high) for every estimate of a ``ppi`` result."""
    out: list[tuple[str, str, float, float, float]] = []
    estimates = result.get("estimates") or {}

    def add(group: str, label: str, value: Any) -> None:
        if isinstance(value, Mapping) and value.get("estimate") is not None \
                and value.get("interval"):
            low, high = value["interval"]
            out.append((group, label, float(value["estimate"]), float(low), float(high)))

    for key, value in estimates.items():
        if isinstance(value, Mapping) and "estimate" in value:
            add("", str(key), value)
        elif isinstance(value, Mapping):
            for label, inner in value.items():
                add(str(key), str(label), inner)
    return out


def ppi_plot(result: Mapping[str, Any], labels: Sequence[str] = ()) -> pg.PlotWidget | None:
    points = _estimates(result)
    if not points:
        return None
    level = result.get("confidence")
    title = "Estimates with their intervals" + (f" ({float(level):.0%})" if level else "")
    widget = _plot(title, "", "estimate")
    item = widget.getPlotItem()
    names = list(labels) + sorted({p[1] for p in points} - set(labels))
    # one row of labels across the top, over headroom left free for it (a column at the
    # right covered the last group's intervals)
    legend = item.addLegend(offset=(10, 5), labelTextColor="#222",
                            brush=(255, 255, 255, 210), colCount=max(1, len(names)))
    positions: dict[str, list[float]] = {}
    named: set[str] = set()
    x = -1.0
    for group, label, estimate, low, high in points:
        x += 1.0 if group in positions or not positions else 2.0  # a gap between groups
        positions.setdefault(group, []).append(x)
        color = label_color(names.index(label))
        item.addItem(pg.ErrorBarItem(x=np.array([x]), y=np.array([estimate]),
                                     top=np.array([high - estimate]),
                                     bottom=np.array([estimate - low]), beam=0.3,
                                     pen=pg.mkPen(color, width=2)))
        dot = pg.ScatterPlotItem([x], [estimate], size=9, brush=color, pen=pg.mkPen("#222"))
        item.addItem(dot)
        if label not in named:
            legend.addItem(dot, label)
            named.add(label)
    ticks = []
    for group, xs in positions.items():
        ticks.append((float(np.mean(xs)), group or "all items"))
    item.getAxis("bottom").setTicks([ticks])
    item.setXRange(-0.6, x + 0.6, padding=0)
    low = min(0.0, min(p[3] for p in points))
    high = max(p[4] for p in points)
    item.setYRange(low, high + 0.35 * ((high - low) or 1.0), padding=0.02)
    return widget


def coverage_plot(curves: Sequence[TierCurve], rule: Mapping[str, Any], error: float | None,
                  *, defer: Callable[[Sequence[Callable[[], None]]], None] | None = None
                  ) -> pg.PlotWidget | None:
    """The plot; with ``defer`` its curves are drawn in later steps (``defer`` receives
    them, to run in order): the empty plot is 20-30 ms of the GUI thread, and so were
    its curves together, so the contracts panel builds the plot on one event-loop turn,
    its ranges and legend on the next, then each tier's curve on a turn of its own."""
    if not curves:
        return None
    widget = _plot("Dev error vs coverage, threshold falling (dev labels only)",
                   "coverage (share of the items accepted)", "dev error")
    item = widget.getPlotItem()
    steps = [partial(_coverage_frame, item, curves, error)]
    steps += [partial(_coverage_curve, item, index, curve, rule)
              for index, curve in enumerate(curves)]
    if error is not None:
        steps.append(partial(_target_line, item, error))
    if defer is None:
        for step in steps:
            step()
    else:
        defer(steps)
    return widget


def _coverage_frame(item: pg.PlotItem, curves: Sequence[TierCurve], error: float | None
                    ) -> None:
    # The ranges first: set after the items, each item added would recompute the
    # automatic range (about 15 ms in all).
    finite_tops = [float(np.nanmax(c.dev_error)) for c in curves
                   if np.isfinite(c.dev_error).any()]
    top = max([0.0, *finite_tops, *([error] if error is not None else [])])
    item.setXRange(0.0, 1.0, padding=0.02)
    item.setYRange(-0.02 * max(top, 0.01), max(top * 1.15, 0.01), padding=0)
    item.addLegend(offset=(10, 10), labelTextColor="#222", brush=(255, 255, 255, 210))


def _coverage_curve(item: pg.PlotItem, index: int, curve: TierCurve, rule: Mapping[str, Any]
                    ) -> None:
    color = label_color(index)
    finite = np.isfinite(curve.dev_error)
    if finite.any():
        item.addItem(pg.PlotDataItem(curve.coverage[finite], curve.dev_error[finite],
                                     pen=pg.mkPen(color, width=2), symbol="o",
                                     symbolSize=7, symbolBrush=color, symbolPen=None,
                                     name=f"tier {curve.tier}"))
        threshold = rule.get(curve.tier)
        if isinstance(threshold, Mapping) and set(threshold) == {"*"}:
            threshold = threshold["*"]  # Potato's form, one threshold for every class
        if isinstance(threshold, int | float):
            j = int(np.argmin(np.abs(curve.thresholds - float(threshold))))
            if finite[j]:
                item.addItem(pg.ScatterPlotItem(
                    [curve.coverage[j]], [curve.dev_error[j]], symbol="star", size=16,
                    brush=color, pen=pg.mkPen("#222"),
                    name=f"rule: {curve.tier} ≥ {float(threshold):.2f}"))


def _target_line(item: pg.PlotItem, error: float) -> None:
    item.addItem(pg.InfiniteLine(error, angle=0, pen=pg.mkPen(
        TARGET_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
        label=f"target {error:g}", labelOpts={"color": TARGET_COLOR, "position": 0.9}))


def distributional_plot(result: Mapping[str, Any], max_distance: float | None
                        ) -> pg.PlotWidget | None:
    rows: list[tuple[str, Mapping[str, Any]]] = []
    if result.get("mean_js") is not None:
        rows.append(("all", result))
    for name, group in sorted((result.get("groups") or {}).items()):
        if isinstance(group, Mapping) and group.get("mean_js") is not None:
            rows.append((str(name), group))
    if not rows:
        return None
    title = "JS distance to people (bar), noise ceiling (black tick)"
    if max_distance is not None:  # named in the title: a label on the line covered a bar
        title += f", max_distance {max_distance:g} (red dashes)"
    widget = _plot(title,
                   "", "distance")
    item = widget.getPlotItem()
    top = 0.0
    ticks = []
    for x, (name, row) in enumerate(rows):
        mean = float(row["mean_js"])
        item.addItem(pg.BarGraphItem(x=[x], height=[mean], width=0.5,
                                     brush=label_color(0), pen=pg.mkPen("#222")))
        interval = row.get("interval")
        if interval:
            low, high = (float(v) for v in interval)
            item.addItem(pg.ErrorBarItem(x=np.array([x]), y=np.array([mean]),
                                         top=np.array([high - mean]),
                                         bottom=np.array([mean - low]), beam=0.2,
                                         pen=pg.mkPen("#222", width=1.5)))
            top = max(top, high)
        ceiling = row.get("noise_ceiling")
        if ceiling is not None:
            item.addItem(pg.PlotDataItem([x - 0.35, x + 0.35], [float(ceiling)] * 2,
                                         pen=pg.mkPen("#111", width=3)))
            top = max(top, float(ceiling))
        ticks.append((x, f"{name} (n={row.get('n_items', '?')})"))
        top = max(top, mean)
    if max_distance is not None:
        item.addItem(pg.InfiniteLine(max_distance, angle=0, pen=pg.mkPen(
            TARGET_COLOR, width=1.5, style=Qt.PenStyle.DashLine)))
        top = max(top, max_distance)
    item.getAxis("bottom").setTicks([ticks])
    item.setXRange(-0.6, len(rows) - 0.4, padding=0)
    item.setYRange(0.0, max(top * 1.15, 0.05), padding=0)
    return widget


def budget_plot(result: Mapping[str, Any]) -> pg.PlotWidget | None:
    projection = [p for p in result.get("projection") or [] if isinstance(p, Mapping)]
    if not projection:
        return None
    widget = _plot("Share certifiable with this budget (projected from dev)",
                   "error target", "share certifiable")
    x = [float(p["error"]) for p in projection]
    y = [float(p.get("share_certifiable") or 0.0) for p in projection]
    item = widget.getPlotItem()
    item.addItem(pg.PlotDataItem(x, y, pen=pg.mkPen(label_color(0), width=2), symbol="o",
                                 symbolSize=5, symbolBrush=label_color(0)))
    item.setYRange(0.0, 1.0, padding=0.02)
    return widget
