"""The tiers and segments view: an ELAN-like timeline of one item, with its audio.

Draws the selected item of a ``tiers`` or ``segments`` scheme from the report's
:class:`SetAgreement` through :func:`app.core.agreement.drawing.timeline` (rows,
rectangles, links and unmatched flags are the core's; this module only lays them out).
All bars, links and labels are one graphics item
(:class:`~app.ui.views.tiers.timeline.TimelineItem`), so a long recording stays fluid.

Layout and interaction (choices; the spec is silent):

- one row per (tier, annotator), tiers in the core's order, labelled on the left axis
  ``tier · annotator`` (just the annotator for a scheme without tiers), the annotator
  through :meth:`ViewContext.annotator_label` and the bars in their palette colour; a
  row with overlapping segments has a sub-row per overlap depth, and a tier whose
  annotators are not all neighbours has a pair lane ``tier · a ↔ b`` for the IoU of
  pairs whose rows are apart (:mod:`app.ui.views.tiers.layout`);
- a time ruler (ELAN's: round ticks at any zoom, :mod:`.ruler`) between the waveform
  and the rows, and a red cursor through all three at the playback position; Play/Pause
  above the plot (:mod:`.player`, Qt Multimedia when it is there, else a sentence);
  a click or a drag on the ruler moves the cursor (and the sound); while playing, the
  view turns a page when the cursor leaves it;
- the waveform on top, x-linked to the timeline, when the item has audio: a min/max
  envelope from :func:`app.core.formats.media.read_waveform` (4 000 bins whatever the
  clip's length, so the GUI thread reads a bounded amount of drawing);
- zoom (wheel) and pan (drag) on the time axis only; rows stay put; the view can never
  pan beyond the clip;
- a one-line key under the plot; the header names the scheme, the item and the counts;
- a row is never shorter than ``ROW_LINES`` lines of the view's font (so bar labels and
  the IoU numbers between rows never overlap, whatever ``font_scale``): the plot asks
  for that height and, when the dock is smaller, the plot scrolls vertically (a scroll
  area) rather than squeezing the rows; the waveform keeps at most ``WAVE_HEIGHT`` px
  and every other pixel goes to the rows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QVBoxLayout, QWidget

from app.core.agreement.drawing import Timeline, timeline
from app.core.errors import InputError
from app.core.formats.media import AUDIO_SUFFIXES, Waveform, read_waveform
from app.ui.palette import annotator_color
from app.ui.views.base import View, ViewContext, scaled_point_size
from app.ui.views.set_pick import SetPick, annotator_index, pick_set_item, picked_media
from app.ui.views.tiers.audio_bar import AudioBar
from app.ui.views.tiers.layout import (
    TierLayout,
    TimeAxis,
    differing_labels,
    item_duration,
    lay_out,
    time_axis,
)
from app.ui.views.tiers.player import Backend, Playback
from app.ui.views.tiers.qt_media import media_backend
from app.ui.views.tiers.ruler_axis import Cursor, RulerAxis
from app.ui.views.tiers.timeline import DIFFERS_MARK, TimelineItem

KINDS = ("tiers", "segments")
WHAT = "tiers or segments"
WAVE_COLOR = QColor("#5F6B73")
WAVE_HEIGHT = 110
ROW_LINES = 2.0
"""The smallest row, in lines of the font (a bar label plus room for an IoU label)."""
AXIS_LINES = 3.0
"""The time axis (tick labels and its title), in lines of the font."""
AXIS_TEXT = QColor("#202020")
RULER_LINES = 2.6
"""The ruler's height (a strip for the cursor's handle, tick labels), in lines."""
KEY = (
    "Bars: each annotator's segments (overlaps on sub-rows) · red hatch: unmatched "
    "(nobody else marked it) · dashed line and number: a matched pair's IoU (red, "
    f"marked {DIFFERS_MARK}: the two labels differ; hover for both) · a ↔ b "
    "lane: the IoU of two rows apart, on their overlap · wheel zooms, drag pans · click "
    "or drag the ruler to move the red cursor"
)


class TiersView(View):
    name = "tiers"
    title = "Tiers and segments"

    def __init__(self, parent: QWidget | None = None, backend: Backend | str | None = None) -> None:
        super().__init__(parent)
        pg.setConfigOptions(antialias=True)
        self.header = QLabel()
        self.header.setTextFormat(Qt.TextFormat.PlainText)
        self.header.setWordWrap(True)
        self.key = QLabel(KEY)
        self.key.setWordWrap(True)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.graphics = pg.GraphicsLayoutWidget()
        self.graphics.setBackground("#FFFFFF")
        self.graphics_scroll = QScrollArea()
        self.graphics_scroll.setWidgetResizable(True)
        self.graphics_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.graphics_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.graphics_scroll.setWidget(self.graphics)
        self.wave_plot: pg.PlotItem = self.graphics.addPlot(row=0, col=0)
        self.ruler_axis = RulerAxis()
        self.ruler: pg.PlotItem = self.graphics.addPlot(
            row=1, col=0, axisItems={"bottom": self.ruler_axis}
        )
        self.plot: pg.PlotItem = self.graphics.addPlot(row=2, col=0)
        self._configure()
        self.timeline_item: TimelineItem | None = None
        self.tier_layout: TierLayout | None = None
        self.row_labels: list[str] = []
        """One per (tier, annotator) row of the core, in its order."""
        self.band_labels: list[str] = []
        """One per band on the left axis: the rows and the pair lanes, top to bottom."""
        self.axis = TimeAxis(1.0, "segments", 1.0)
        """The time axis shown: 0 to the item's length (:func:`.layout.time_axis`)."""
        self.differs = 0
        """Matched pairs on the item shown whose two labels differ."""
        self.playback = Playback(media_backend(self) if backend is None else backend, self)
        self.audio = AudioBar(self.playback)
        self.play_cursor = Cursor(
            [self.wave_plot, self.ruler, self.plot], self.ruler, self.playback.seek
        )
        self.playback.position_changed.connect(self._follow)
        self.graphics.scene().sigMouseClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.audio)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.graphics_scroll, 1)
        layout.addWidget(self.key)
        self.show_context(ViewContext())

    def _configure(self) -> None:
        wave = self.wave_plot
        wave.setMaximumHeight(WAVE_HEIGHT)
        wave.setMouseEnabled(x=True, y=False)
        wave.hideButtons()
        wave.setMenuEnabled(False)
        wave.getAxis("bottom").setStyle(showValues=False)
        wave.setYRange(-1.0, 1.0, padding=0.05)
        wave.getAxis("left").setTicks([[(0.0, "audio")]])
        plot = self.plot
        plot.setMouseEnabled(x=True, y=False)
        plot.hideButtons()
        plot.invertY(True)
        plot.setLabel("bottom", "time", units="s")
        ruler = self.ruler
        ruler.setMouseEnabled(x=True, y=False)
        ruler.hideButtons()
        ruler.setMenuEnabled(False)
        # Linked to the ruler, which is always shown: pyqtgraph aligns linked views by
        # their pixels, and a hidden waveform's stale geometry shifted the time axis off 0.
        wave.setXLink(ruler)
        plot.setXLink(ruler)
        ruler.setYRange(0.0, 1.0, padding=0.0)
        ruler.getAxis("left").setTicks([[(0.5, "time")]])
        for p in (wave, ruler, plot):
            p.getViewBox().setDefaultPadding(0.0)

    # ----------------------------------------------------------------- contract

    def show_context(self, context: ViewContext) -> None:
        pick = pick_set_item(context, KINDS, WHAT)
        font = QFont(self.font())
        font.setPointSizeF(scaled_point_size(context))
        for label in (self.header, self.key, self.message):
            label.setFont(font)
        self.audio.set_font(font)
        self.plot.clear()
        self.wave_plot.clear()
        self.timeline_item = None
        self.tier_layout = None
        self.row_labels = []
        self.band_labels = []
        if pick.empty:
            self.show_empty(pick.message)
        else:
            self.hide_empty()
        if not pick.ok:
            self.header.setText(f"Scheme {pick.scheme}" if pick.scheme else "Tiers and segments")
            self.message.setText(pick.message)
            self.message.show()
            self.graphics.hide()
            self.graphics_scroll.hide()
            self.key.hide()
            self.audio.hide()
            self.playback.set_source(None, 0.0)
            return
        assert pick.agreement is not None
        data = timeline(pick.agreement, pick.item)
        self.message.hide()
        self.graphics.show()
        self.graphics_scroll.show()
        self.key.show()
        self.audio.show()
        wave, wave_note, audio = self._waveform(context, pick)
        self._draw_timeline(context, data, font)
        self._draw_waveform(wave)
        item = context.project.study.items.get(pick.item) if context.project else None
        self.axis = time_axis(
            item_duration(item.record) if item is not None else None,
            wave.duration if wave is not None and len(wave.times) else None,
            data.rects[:, 2],
        )
        self.play_cursor.attach()
        self._set_axes(font, self.axis.end)
        self.playback.set_source(audio, self.axis.end)
        self.header.setText(self._header(pick, data, wave_note, self.axis, self.differs))

    # ----------------------------------------------------------------- pieces

    def _draw_timeline(self, context: ViewContext, data: Timeline, font: QFont) -> None:
        layout = lay_out(data)

        def name_of(row: int) -> str:
            return context.annotator_label(data.rows[row][1])

        def tier_of(row: int) -> str:
            tier = data.rows[row][0]
            return f"{tier} · " if tier is not None else ""

        self.row_labels = [tier_of(r) + name_of(r) for r in range(len(data.rows))]
        self.band_labels = [
            tier_of(row.pair[0]) + f"{name_of(row.pair[0])} ↔ {name_of(row.pair[1])}"
            if row.is_pair
            else self.row_labels[row.source]
            for row in layout.rows
        ]
        colors = [annotator_color(annotator_index(context, name)) for _, name in data.rows]
        differs = differing_labels(data.labels, layout.pairs)
        self.differs = int(differs.sum())
        texts = [
            f"{DIFFERS_MARK} {iou:.2f}" if odd else f"{iou:.2f}"
            for iou, odd in zip(data.link_iou.tolist(), differs.tolist(), strict=True)
        ]

        def who(k: int) -> str:
            return f"{name_of(int(data.owner_row[k]))}: {data.labels[k] or '(no label)'}"

        tips = [
            f"{label} · {x0:.2f}–{x1:.2f} s · {tier_of(int(r))}{name_of(int(r))}"
            for label, (x0, _, x1, _), r in zip(
                data.labels, data.rects.tolist(), data.owner_row.tolist(), strict=True
            )
        ]
        pair_tips = []
        for (i, j), iou, odd in zip(
            layout.pairs.tolist(), data.link_iou.tolist(), differs.tolist(), strict=True
        ):
            said = "labels differ" if odd else "same label"
            pair_tips.append(f"IoU {iou:.2f} · {who(i)} ↔ {who(j)} · {said}")
            for k, other in ((i, j), (j, i)):  # a tag skipped for room is still read here
                tips[k] += f" · matched with {who(other)}, IoU {iou:.2f}"
                tips[k] += " (labels differ)" if odd else ""
        item = TimelineItem(data, layout, colors, texts, font, tips, differs, pair_tips)
        self.plot.addItem(item)
        self.timeline_item = item
        self.tier_layout = layout

    def _draw_waveform(self, wave: Waveform | None) -> None:
        """Draw the envelope (or hide the waveform's plot when there is none)."""
        if wave is None or not len(wave.times):
            self.wave_plot.hide()
            return
        self.wave_plot.show()
        times = np.append(wave.times, wave.duration)
        high = np.append(wave.high, wave.high[-1])
        low = np.append(wave.low, wave.low[-1])
        pen = pg.mkPen(WAVE_COLOR, width=1)
        upper = pg.PlotCurveItem(times, high, pen=pen)
        lower = pg.PlotCurveItem(times, low, pen=pen)
        self.wave_plot.addItem(upper)
        self.wave_plot.addItem(lower)
        self.wave_plot.addItem(pg.FillBetweenItem(upper, lower, brush=WAVE_COLOR))

    def _set_axes(self, font: QFont, end: float) -> None:
        metrics = QFontMetricsF(font)
        layout = self.tier_layout
        assert layout is not None
        labels = [*self.band_labels, "audio", "time"]
        width = max(metrics.horizontalAdvance(s) for s in labels) + 16
        for p in (self.wave_plot, self.ruler, self.plot):
            axis = p.getAxis("left")
            axis.setWidth(int(width))
            axis.setStyle(tickFont=font)
            axis.setTextPen(AXIS_TEXT)
            p.getAxis("bottom").setStyle(tickFont=font)
            p.getAxis("bottom").setTextPen(AXIS_TEXT)
        self.ruler_axis.min_px = metrics.horizontalAdvance("00.00 s") * 1.6
        self.plot.setLabel(
            "bottom", "time", units="s", **{"font-size": f"{font.pointSizeF():.1f}pt"}
        )
        self.plot.getAxis("left").setTicks(
            [
                [
                    ((row.y0 + row.y1) / 2, label)
                    for row, label in zip(layout.rows, self.band_labels, strict=True)
                ],
                [],
            ]
        )
        height = float(layout.height)
        for p in (self.wave_plot, self.ruler, self.plot):
            p.setLimits(xMin=0.0, xMax=end, minXRange=min(0.05, end), yMin=None, yMax=None)
        self.plot.setLimits(yMin=0.0, yMax=height, minYRange=height, maxYRange=height)
        self.plot.setYRange(0, height, padding=0)
        self.plot.setXRange(0.0, end, padding=0)
        line = metrics.lineSpacing()
        plot_height = height * line * ROW_LINES + line * AXIS_LINES
        self.plot.setMinimumHeight(plot_height)
        ruler = line * RULER_LINES
        self.ruler.setMinimumHeight(ruler)
        self.ruler.setMaximumHeight(ruler)
        wave = WAVE_HEIGHT if self.wave_plot.isVisible() else 0
        self.graphics.setMinimumHeight(int(plot_height + ruler + wave + 16))

    # ----------------------------------------------------------------- the cursor

    def _clicked(self, event: object) -> None:
        """A click on the ruler moves the cursor there."""
        pos = event.scenePos()  # type: ignore[attr-defined]
        if self.ruler.isVisible() and self.ruler.sceneBoundingRect().contains(pos):
            self.playback.seek(float(self.ruler.getViewBox().mapSceneToView(pos).x()))

    def _follow(self, t: float) -> None:
        """The cursor at ``t``; while playing, the next page when it leaves the view."""
        self.play_cursor.move(t)
        (left, right), _ = self.plot.viewRange()
        if (
            self.playback.can_play
            and self.playback.state.value == "playing"
            and (t > right or t < left)
        ):
            width = right - left
            self.plot.setXRange(t, t + width, padding=0)

    @property
    def row_height(self) -> float:
        """The height of one lane (a row without overlaps) in pixels, as drawn now."""
        box = self.plot.getViewBox()
        (_, _), (y0, y1) = box.viewRange()
        return float(box.height()) / max(float(y1 - y0), 1e-9)

    @staticmethod
    def _waveform(context: ViewContext, pick: SetPick) -> tuple[Waveform | None, str, Path | None]:
        """The envelope, the header's note on it, and the file to play."""
        if context.project is None:
            return None, "", None
        path = picked_media(context, pick, AUDIO_SUFFIXES)
        if path is None:
            return None, "no audio", None
        try:
            wave = read_waveform(path)
        except InputError as exc:
            return None, f"audio {path.name} unreadable: {exc.problem}", None
        return wave, f"audio {wave.duration:.1f} s", path

    @staticmethod
    def _header(pick: SetPick, data: Timeline, wave_note: str, axis: TimeAxis,
                differs: int) -> str:
        default = " (first item; pick one in Items)" if pick.by_default else ""
        odd = f" ({differs} with different labels, marked {DIFFERS_MARK})" if differs else ""
        length = {
            "data": f"length {axis.length:.1f} s (the item's duration)",
            "audio": f"length {axis.length:.1f} s (the audio)",
            "segments": "length: the last segment's end (no duration, no audio)",
        }[axis.source]
        past = (
            f"; a segment runs past it, to {axis.end:.1f} s" if axis.end > axis.length else ""
        )
        return (
            f"Scheme {pick.scheme} · item {pick.item}{default} · {len(data.rows)} rows, "
            f"{len(data.rects)} segments, {len(data.links)} matched pairs{odd}, "
            f"{int(data.unmatched.sum())} unmatched · {wave_note} · {length}{past}"
        )
