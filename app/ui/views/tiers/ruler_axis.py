"""The ruler and the cursor as pyqtgraph items (the ticks themselves: :mod:`.ruler`).

- :class:`RulerAxis` is an axis whose ticks come from :func:`.ruler.ticks`, so the
  ruler's labels are round (1, 2, 5 steps) and never closer than ``MIN_PX`` at any zoom;
- :class:`Cursor` is the playback position: one vertical line per plot (waveform,
  ruler, tiers), the ruler's draggable (scrubbing), all moved together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QColor

from app.ui.views.tiers.ruler import MIN_PX, Ticks, format_time, ticks

CURSOR_COLOR = QColor("#D0021B")


class RulerAxis(pg.AxisItem):  # type: ignore[misc]
    """A time axis with :mod:`.ruler`'s ticks and labels."""

    def __init__(self, orientation: str = "bottom") -> None:
        super().__init__(orientation)
        self.min_px = MIN_PX
        self.last: Ticks | None = None

    def tickValues(self, lo: float, hi: float, size: float) -> list[tuple[float, list[float]]]:  # noqa: N802
        self.last = ticks(float(lo), float(hi), float(size), self.min_px)
        return [
            (self.last.step, self.last.major.tolist()),
            (self.last.minor_step, self.last.minor.tolist()),
        ]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        last = self.last
        if last is None or spacing != last.step:
            return ["" for _ in values]
        minutes = last.minutes
        return [format_time(v, last.step, minutes) for v in values]


class Cursor:
    """The playback position drawn in every plot of the view."""

    def __init__(self, plots: list[Any], draggable: Any, on_drag: Callable[[float], None]) -> None:
        self.lines: list[pg.InfiniteLine] = []
        for plot in plots:
            movable = plot is draggable
            line = pg.InfiniteLine(
                pos=0.0,
                angle=90,
                movable=movable,
                pen=pg.mkPen(CURSOR_COLOR, width=2 if movable else 1.5),
                hoverPen=pg.mkPen(CURSOR_COLOR, width=4),
            )
            line.setZValue(50)
            if movable:
                line.sigDragged.connect(lambda item: on_drag(float(item.value())))
            self.lines.append(line)
        self.plots = plots

    def attach(self) -> None:
        """Put the lines (back) into their plots, after a ``plot.clear()``."""
        for plot, line in zip(self.plots, self.lines, strict=True):
            if line.scene() is None:
                plot.addItem(line, ignoreBounds=True)

    @property
    def position(self) -> float:
        return float(self.lines[0].value())

    def move(self, t: float) -> None:
        for line in self.lines:
            if abs(float(line.value()) - t) > 1e-12:
                line.setValue(t)
