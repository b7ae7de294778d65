"""Tracks: identity over tracks, drawn (``kinds.md`` B §2.8; issue 38).

For the selected item of a scheme holding tracks (``video_annotation`` in tracking mode,
or a point-cloud sequence of ``spatial_annotation`` cuboids): per annotator a lane per
track over the frames, the tracks the matching says are one object aligned in one row
(:func:`app.core.agreement.identity.lanes.group_tracks`), and for the chosen annotator
pair each lane's partner, its misses and its ID switches, as the scheme's MOTA, IDF1 and
ID switches count them (:mod:`.model`). Picking a frame (a click) lists its objects; for
video tracks a small panel draws that frame's boxes on a blank picture, for 3D tracks
*Show in the 3D view* (or a double click) selects the frame's unit ``item@frame`` so the
3D view draws it, each box labelled with its track id.

The matching runs on a worker thread, one item at a time, kept for the project: a 3D
sequence of 2,000 frames × 40 tracks needs a few hundred thousand exact 3D IoUs.

Choices where the spec is silent:

- The pair shown opens on the item's pair with the most ID switches (then misses), the
  one a room wants to see; the lanes of annotators outside it are drawn faded, unmarked.
- A lane is marked from its own annotator's side: a miss where the other annotator has
  nothing matched to it, a switch where it took a new partner (each direction of the
  pair is one of the two directions MOTA pools).
- A video frame is a blank picture of the annotators' canvas shape (a keyframe's pixel
  ``bbox`` over its ``bboxNorm``), 16:9 when no keyframe says; no video is decoded.
"""

from __future__ import annotations

from html import escape
from itertools import combinations
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.agreement.identity.lanes import ItemLanes, item_lanes
from app.core.agreement.identity.sequences import is_sequence
from app.core.model import Answer
from app.core.objects import ObjectSet
from app.core.progress import Job
from app.core.project import ProjectData
from app.ui.palette import annotator_color
from app.ui.views.base import NO_PROJECT, View, ViewContext
from app.ui.views.tracks.canvas import FrameBox, FramePanel, LaneCanvas, LaneStyle
from app.ui.views.tracks.model import Lane, frame_objects, lanes, pair_counts, split_unit
from app.ui.views.tracks.text import KEY, frame_html, pair_line, scheme_text
from app.ui.workers import WorkerPool

VIDEO_ASPECT = 16 / 9
Pair = tuple[str, str]



def track_schemes(project: ProjectData) -> list[str]:
    """The schemes whose report carries identity metrics (they hold tracks)."""
    return [name for name, r in project.report.schemes.items()
            if r.kind in ("cuboids", "segments") and "identity.mota" in r.metrics]


def tracked_items(project: ProjectData, scheme: str, video: bool) -> list[str]:
    answers = project.study.answers_for(scheme)
    return sorted(item for item, by in answers.items() if len(by) >= 2 and any(
        (isinstance(a, ObjectSet) and bool(a.tracks)) if video else is_sequence(a)
        for a in by.values()))


class TracksView(View):
    name = "tracks"
    title = "Tracks"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = ViewContext()
        self._cache: dict[tuple[str, str], tuple[ItemLanes, dict[Pair, list[Lane]]]] = {}
        self._cache_owner: object = None
        self._pending: set[tuple[str, str]] = set()
        self._pair: tuple[str, str] | None = None
        self._frame: int | None = None
        self._shown: ItemLanes | None = None
        self._scheme_text = ""
        self.pool = WorkerPool(self, max_threads=1)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.scheme_combo = QComboBox()
        self.scheme_combo.activated.connect(self._on_scheme_chosen)
        self.item_combo = QComboBox()
        self.item_combo.activated.connect(self._on_item_chosen)
        self.pair_combo = QComboBox()
        self.pair_combo.activated.connect(self._on_pair_chosen)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        for text, combo in (("Scheme:", self.scheme_combo), ("Item:", self.item_combo),
                            ("Pair:", self.pair_combo)):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            top.addWidget(QLabel(text))
            top.addWidget(combo)
        self.metrics = QLabel()
        self.metrics.setWordWrap(True)
        self.metrics.setTextFormat(Qt.TextFormat.RichText)
        self.canvas = LaneCanvas()
        self.canvas.frame_clicked.connect(self._on_frame)
        self.canvas.frame_opened.connect(self._open_frame)
        self.lane_area = QScrollArea()
        self.lane_area.setWidget(self.canvas)
        self.lane_area.setWidgetResizable(True)
        self.lane_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.message = QLabel()
        self.message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message.setWordWrap(True)
        self.key = QLabel(KEY)
        self.key.setWordWrap(True)
        self.key.setTextFormat(Qt.TextFormat.RichText)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.message)
        left_layout.addWidget(self.lane_area, 1)
        left_layout.addWidget(self.key)
        left_layout.addStretch(0)
        self.frame_title = QLabel()
        self.frame_title.setWordWrap(True)
        self.frame_title.setTextFormat(Qt.TextFormat.RichText)
        self.panel = FramePanel()
        self.open_button = QPushButton("Show in the 3D view")
        self.open_button.clicked.connect(lambda: self._open_frame(self._frame))
        self.frame_text = QLabel()
        self.frame_text.setWordWrap(True)
        self.frame_text.setTextFormat(Qt.TextFormat.RichText)
        self.frame_text.setAlignment(Qt.AlignmentFlag.AlignTop)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.frame_title)
        right_layout.addWidget(self.panel)
        right_layout.addWidget(self.open_button)
        text_area = QScrollArea()  # a frame of 120 tracks lists 120 lines
        text_area.setWidget(self.frame_text)
        text_area.setWidgetResizable(True)
        text_area.setFrameShape(QScrollArea.Shape.NoFrame)
        right_layout.addWidget(text_area, 1)
        splitter = self.splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 5)
        splitter.setStretchFactor(1, 2)
        self._split_by_user = False
        splitter.splitterMoved.connect(lambda *_: setattr(self, "_split_by_user", True))
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.metrics)
        layout.addWidget(splitter, 1)
        self.show_context(self._context)

    # ----------------------------------------------------------------- context
    def show_context(self, context: ViewContext) -> None:
        self._context = context
        self.scale_font(context)
        project = context.project
        if project is not self._cache_owner:
            self._cache, self._pending, self._cache_owner = {}, set(), project
        schemes = track_schemes(project) if project is not None else []
        if project is None or not schemes:
            self.show_empty(NO_PROJECT if project is None else
                            "This project has no tracks to show (video_annotation in "
                            "tracking mode, or point-cloud sequences of 3D boxes).")
            for combo in (self.scheme_combo, self.item_combo, self.pair_combo):
                combo.clear()
            self._shown = None
            self.canvas.show_lanes([], 0, 0, LaneStyle({}, {}), None)
            return
        self.hide_empty()
        current = self.scheme_combo.currentText()
        scheme = context.scheme if context.scheme in schemes else (
            current if current in schemes else schemes[0])
        _fill(self.scheme_combo, schemes, scheme)
        result = project.report.schemes[scheme]
        video = result.kind == "segments"
        items = tracked_items(project, scheme, video)
        base, frame = split_unit(context.item, items)
        item = base if base in items else (
            self.item_combo.currentText() if self.item_combo.currentText() in items
            else (items[0] if items else ""))
        _fill(self.item_combo, items, item)
        if frame is not None:
            self._frame = frame
        self._show_metrics(result.metrics, result.undefined, context)
        self.heading.setText(f"<b>{escape(scheme)}</b> · item <b>{escape(item)}</b> · "
                             + ("video tracks (2D IoU ≥ 0.5)" if video else
                                "3D tracks (3D IoU ≥ "
                                f"{_threshold(result.extra):g})"))
        if not item:
            self._say(f"No item of '{scheme}' has tracks from two annotators.")
            return
        held = self._cache.get((scheme, item))
        if held is None:
            self._say(f"Matching the tracks of {item} frame by frame…")
            self._compute(scheme, item, video, _threshold(result.extra))
            return
        self._draw(*held, context)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        """The frame panel keeps a third of the width (its picture is what a room
        looks at) until the user moves the divider."""
        super().resizeEvent(event)
        if not self._split_by_user:
            self.splitter.setSizes([self.width() * 64 // 100, self.width() * 36 // 100])

    def complete(self) -> None:
        """Wait for the matching under way and show it (screenshots, tests)."""
        while self._pending:
            self.pool.pool.waitForDone(30_000)
            QCoreApplication.processEvents()

    def _compute(self, scheme: str, item: str, video: bool, threshold: float) -> None:
        key = (scheme, item)
        if key in self._pending or self._context.project is None:
            return
        self._pending.add(key)
        answers = dict(self._context.project.study.answers_for(scheme)[item])
        owner = self._cache_owner

        def finished(data: object) -> None:
            self._pending.discard(key)
            if owner is self._cache_owner and isinstance(data, tuple):
                self._cache[key] = data
                self.show_context(self._context)

        def failed(message: str) -> None:
            self._pending.discard(key)
            self._say(f"The tracks of {item} could not be matched: {message}")

        self.pool.start(lambda: _lanes_job(item, answers, video, threshold),
                        name=f"tracks of {item}", on_result=finished, on_error=failed)

    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()
        self.lane_area.hide()
        self._shown = None
        self.canvas.show_lanes([], 0, 0, LaneStyle({}, {}), None)
        self.pair_combo.clear()
        self.frame_title.setText("")
        self.frame_text.setText("")
        self.panel.show_boxes([], VIDEO_ASPECT)
        self.open_button.hide()

    # ----------------------------------------------------------------- drawing
    def _draw(self, data: ItemLanes, drawn: dict[Pair, list[Lane]],
              context: ViewContext) -> None:
        assert context.project is not None
        self.message.hide()
        self.lane_area.show()
        self._shown = data
        pairs = list(combinations(data.annotators, 2))
        if self._pair not in pairs:
            self._pair = max(pairs, key=lambda p: _trouble(data, p)) if pairs else None
        names = {a: context.annotator_label(a) for a in data.annotators}
        _fill(self.pair_combo, [f"{names[a]} – {names[b]}" for a, b in pairs],
              f"{names[self._pair[0]]} – {names[self._pair[1]]}" if self._pair else None)
        annotators = context.project.study.annotators
        colors = {a: annotator_color(annotators.index(a) if a in annotators
                                     else len(annotators)) for a in data.annotators}
        if self._frame is None or not data.first <= self._frame <= data.last:
            self._frame = data.first
        self.canvas.setFont(self.font())
        pair = self._pair
        if pair is not None and pair not in drawn:  # 0.1 s for 120 tracks × 2,000 frames
            drawn[pair] = lanes(data, pair)
        self.canvas.show_lanes(drawn[pair] if pair else lanes(data, None), data.first, data.last,
                               LaneStyle(colors, names, context.font_scale), self._frame)
        self.lane_area.setMaximumHeight(self.canvas.height() + 2 * self.lane_area.frameWidth())
        line = pair_line(pair_counts(data, self._pair), names) if self._pair else ""
        n_tracks = sum(len(v) for v in data.tracks.values())
        self.metrics.setText(self._scheme_text + f"<br>This item: frames {data.first}–"
                             f"{data.last}, {n_tracks} tracks in {len(data.rows)} rows"
                             + (f" · this pair: {line}" if line else ""))
        self._draw_frame(colors, names)

    def _show_metrics(self, metrics: dict[str, float | int | None], undefined: dict[str, str],
                      context: ViewContext) -> None:
        self._scheme_text = scheme_text(metrics, undefined, context.anonymize_text)
        self.metrics.setText(self._scheme_text)

    def _draw_frame(self, colors: dict[str, Any], names: dict[str, str]) -> None:
        data, frame = self._shown, self._frame
        if data is None or frame is None:
            return
        self.canvas.set_frame(frame)
        objects = frame_objects(data, frame)
        self.frame_title.setText(f"<b>Frame {frame}</b> · {len(objects)} objects")
        hex_colors = {a: c.name() for a, c in colors.items()}
        self.frame_text.setText(frame_html(data, frame, self._pair, names, hex_colors))
        if data.video:
            boxes = []
            for annotator in data.annotators:
                here = data.frames.get(annotator, {}).get(frame)
                if here is None:
                    continue
                shown = {s.track: s.shown for s in data.tracks.get(annotator, [])}
                for track, row in zip(here.tracks, here.rows.tolist(), strict=True):
                    boxes.append(FrameBox((row[0], row[1], row[2], row[3]), colors[annotator],
                                          f"{names[annotator]} {shown.get(track, track)}"))
            self.panel.show_boxes(boxes, self._aspect(data.item))
            self.panel.show()
            self.open_button.hide()
        else:
            self.panel.hide()
            self.open_button.setText(f"Show frame {frame} in the 3D view")
            self.open_button.show()

    def _aspect(self, item: str) -> float:
        """The video's width / height as the annotators' canvas showed it (a track's
        pixel box over its normalized one), else 16:9."""
        project, scheme = self._context.project, self.scheme_combo.currentText()
        answers = project.study.answers_for(scheme).get(item, {}) if project else {}
        return next((t.aspect for a in answers.values() if isinstance(a, ObjectSet)
                     for t in a.tracks or () if t.aspect is not None), VIDEO_ASPECT)

    # -------------------------------------------------------------- user input
    def _on_frame(self, frame: int) -> None:
        self._frame = frame
        project = self._context.project
        if project is None or self._shown is None:
            return
        annotators = project.study.annotators
        colors = {a: annotator_color(annotators.index(a) if a in annotators
                                     else len(annotators)) for a in self._shown.annotators}
        names = {a: self._context.annotator_label(a) for a in self._shown.annotators}
        self._draw_frame(colors, names)

    def _open_frame(self, frame: int | None) -> None:
        """A 3D sequence: select the frame's unit so the 3D view draws it."""
        data = self._shown
        if data is None or frame is None or data.video:
            return
        self._on_frame(frame)
        if any(frame in f for f in data.frames.values()):
            self.item_picked.emit(f"{data.item}@{frame}")

    def _on_pair_chosen(self, index: int) -> None:
        data = self._shown
        if data is not None:
            pairs = list(combinations(data.annotators, 2))
            if 0 <= index < len(pairs):
                self._pair = pairs[index]
                self.show_context(self._context)

    def _on_item_chosen(self, index: int) -> None:
        item = self.item_combo.itemText(index)
        if item:
            self._frame = None
            self.item_picked.emit(item)
            self.show_context(self._context.with_(item=item))

    def _on_scheme_chosen(self, index: int) -> None:
        self.user_chose_scheme(self.scheme_combo.itemText(index))


def _threshold(extra: dict[str, Any]) -> float:
    identity = extra.get("identity")
    value = identity.get("match_iou") if isinstance(identity, dict) else None
    return float(value) if isinstance(value, int | float) else 0.5


def _lanes_job(item: str, answers: dict[str, Answer], video: bool, threshold: float
               ) -> Job[tuple[ItemLanes, dict[Pair, list[Lane]]]]:
    """The worker's job: the matching, then the lanes of the pair shown first (the GUI
    thread then only paints)."""
    data = yield from item_lanes(item, answers, video=video, threshold=threshold)
    pairs = list(combinations(data.annotators, 2))
    first = max(pairs, key=lambda p: _trouble(data, p)) if pairs else None
    return data, ({first: lanes(data, first)} if first else {})


def _trouble(data: ItemLanes, pair: tuple[str, str]) -> tuple[int, int]:
    counts = pair_counts(data, pair)
    return (sum(c.switches for c in counts), sum(c.misses for c in counts))


def _fill(combo: QComboBox, entries: list[str], current: str | None) -> None:
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(entries)
    if current is not None:
        combo.setCurrentText(current)
    combo.blockSignals(False)
