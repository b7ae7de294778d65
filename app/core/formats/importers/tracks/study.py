"""What the track importers share: the frame check of a box, the items (one video each)
and Potato 2.12.1's stored shape of a ``video_annotation`` answer in tracking mode.

**Potato's shape** (what ``static/tracking-ui.js`` saves, and what
``server_utils/iaa/attribute_agreement.py`` ``track_objects``/``track_canonical`` read):
the widget's state ``{"video_metadata", "segments": [], "frame_annotations": {},
"keyframes": [], "tracking": {}, "tracks": {id: track}}``, a track ``{"id", "label",
"color", "interpolation": "linear", "startFrame", "endFrame", "attributes": {},
"keyframes": {"<frame>": {"frame", "time"?, "bbox", "bboxNorm"}}}``. ``bboxNorm {x, y,
width, height}`` is the box as fractions of the picture (top-left corner), what agreement
compares; Potato draws from ``bbox``, the box in the widget canvas's pixels, for which
the video's own pixels are written (Potato re-measures ``bboxNorm`` from it only when the
annotator edits the track). Frames are 0-based, as Potato's video frames are.

Choices where the formats are silent:

- **Every box becomes a keyframe.** Potato interpolates linearly between keyframes and
  knows nothing of a tool's own interpolated frames, so writing every box the tool
  exported gives exactly the tool's box on every frame it lists; between two listed
  frames Potato interpolates as CVAT does.
- **Gaps split a track.** A Potato track covers every frame from its first keyframe to
  its last. An object that leaves and comes back (CVAT ``outside``; a gap in a MOT
  track's frames) becomes one Potato track per visible stretch, ids ``track_<id>``,
  ``track_<id>_2``...; identity metrics see the re-entry as another track (counted in a
  note).
- **The frame.** Boxes are normalized by the video's width and height (no size: the
  importer refuses with a sentence naming where it is expected). A box with no pixel
  inside the frame is an error (a wrong size or a corrupt row); a box reaching partly
  outside, as MOT's entering pedestrians do, is kept as it is and counted.
- **The video.** Looked for by name beside the source; copied to ``media/<item>/``
  under the record key ``video`` (the scheme's ``source_field``); without it, the item
  is listed without media (counted). The record keeps ``width`` and ``height``.
- **Frame rate.** Where the format gives one (MOT's ``frameRate``) and every item
  agrees, the scheme's ``video_fps`` and each keyframe's ``time`` use it; else Potato's
  default of 30 fps applies (a note says so).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.image_media import PALETTE
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy

SCHEME = "tracks"
MEDIA_KEY = "video"
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class Box:
    """One box of a track: its 0-based frame and its pixels (top-left corner, size)."""

    frame: int
    left: float
    top: float
    width: float
    height: float


@dataclass
class Piece:
    """One visible stretch of a source track: one Potato track."""

    source_id: str
    label: str
    boxes: list[Box] = field(default_factory=list)


def check_box(box: Box, size: tuple[int, int], counts: Counter[str], *, file: Path,
              line: int | None, what: str) -> None:
    """Refuse a box that is empty or has no pixel in the frame; count one partly out."""
    W, H = size  # noqa: N806
    if not (box.width > 0 and box.height > 0):
        raise InputError(f"{what} is {box.width:g} × {box.height:g} px; expected a positive "
                         "width and height", file=file, line=line)
    right, bottom = box.left + box.width, box.top + box.height
    if right <= 0 or bottom <= 0 or box.left >= W or box.top >= H:
        raise InputError(f"{what} at ({box.left:g}, {box.top:g}) size {box.width:g} × "
                         f"{box.height:g} px is outside the {W} × {H} frame; expected a box "
                         "overlapping the picture (is the video size right?)",
                         file=file, line=line)
    if box.left < 0 or box.top < 0 or right > W or bottom > H:
        counts["partly outside"] += 1


def _round(value: float) -> float:
    return round(value, 12)


def track_value(pieces: Iterable[Piece], size: tuple[int, int], colors: dict[str, str],
                fps: float | None) -> dict[str, Any]:
    """One answer in Potato's stored shape (see the module)."""
    W, H = size  # noqa: N806
    tracks: dict[str, Any] = {}
    parts: Counter[str] = Counter()
    for piece in pieces:
        parts[piece.source_id] += 1
        n = parts[piece.source_id]
        key = f"track_{piece.source_id}" + (f"_{n}" if n > 1 else "")
        keyframes: dict[str, Any] = {}
        for b in piece.boxes:
            kf: dict[str, Any] = {"frame": b.frame}
            if fps:
                kf["time"] = b.frame / fps
            kf["bbox"] = {"x": b.left, "y": b.top, "width": b.width, "height": b.height}
            kf["bboxNorm"] = {"x": _round(b.left / W), "y": _round(b.top / H),
                              "width": _round(b.width / W), "height": _round(b.height / H)}
            keyframes[str(b.frame)] = kf
        tracks[key] = {"id": key, "label": piece.label, "color": colors[piece.label],
                       "interpolation": "linear", "keyframes": keyframes,
                       "startFrame": piece.boxes[0].frame, "endFrame": piece.boxes[-1].frame,
                       "attributes": {}}
    return {"video_metadata": {"fps": fps} if fps else {}, "segments": [],
            "frame_annotations": {}, "keyframes": [], "tracking": {}, "tracks": tracks}


class TrackStudy:
    """Items, answers and counts gathered by a track importer, then one study."""

    def __init__(self, format_name: str) -> None:
        self.format = format_name
        self.items: dict[str, ImportedItem] = {}
        self.sizes: dict[str, tuple[int, int]] = {}
        self.fps: dict[str, float | None] = {}
        self.pieces: dict[str, dict[str, list[Piece]]] = {}
        self.held: dict[tuple[str, str], Path] = {}
        self.colors: dict[str, str] = {}
        self.counts: Counter[str] = Counter()
        self.notes: list[str] = []
        self._folders: set[str] = set()

    def color(self, label: str, given: str | None = None) -> str:
        if label not in self.colors:
            self.colors[label] = given or PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[label]

    def add_item(self, item_id: str, size: tuple[int, int], fps: float | None,
                 source: Path, video_names: Iterable[str]) -> None:
        """The item ``item_id`` (one video), once; a second source must agree on its size."""
        known = self.sizes.get(item_id)
        if known is not None:
            if known != size:
                raise InputError(f"video '{item_id}' is {size[0]} × {size[1]} px here but "
                                 f"{known[0]} × {known[1]} px in an earlier source; expected "
                                 "the same video for every annotator", file=source)
            if self.fps[item_id] is None:
                self.fps[item_id] = fps
            return
        self.sizes[item_id], self.fps[item_id] = size, fps
        record: dict[str, Any] = {"text": item_id}
        item = self.items[item_id] = ImportedItem(item_id, record)
        video = _beside(source, video_names)
        if video is not None:
            relative = f"media/{self._folder(item_id)}/{video.name}"
            record[MEDIA_KEY] = relative
            item.media[relative] = video
        record["width"], record["height"] = size

    def _folder(self, item_id: str) -> str:
        base = _SAFE.sub("_", item_id).lstrip(".") or "item"
        name, n = base, 1
        while name in self._folders:
            n += 1
            name = f"{base}_{n}"
        self._folders.add(name)
        return name

    def answer(self, annotator: str, item_id: str, pieces: list[Piece], source: Path) -> None:
        key = (annotator, item_id)
        if key in self.held:
            raise InputError(f"annotator '{annotator}' already has video '{item_id}' from "
                             f"{self.held[key]}; expected each annotator's video once",
                             file=source)
        self.held[key] = source
        self.pieces.setdefault(annotator, {})[item_id] = pieces

    def finish(self) -> ImportedStudy:
        rates = {r for r in self.fps.values()}
        fps = next(iter(rates)) if len(rates) == 1 else None
        answers = {who: {item: {SCHEME: track_value(pieces, self.sizes[item], self.colors,
                                                    self.fps[item])}
                         for item, pieces in mine.items()}
                   for who, mine in self.pieces.items()}
        config: dict[str, Any] = {
            "description": "Track the objects", "source_field": MEDIA_KEY, "mode": "tracking",
            "labels": [{"name": name, "color": color} for name, color in self.colors.items()]}
        notes = list(self.notes)
        if fps:
            config["video_fps"] = fps
        else:
            notes.append("the frame rate is not known for every video (or differs between "
                         "them): Potato's default of 30 fps maps frames to times; set "
                         "video_fps in config.yaml if the videos' differs.")
        if self.counts["split"]:
            notes.append(f"{_counted(self.counts['split'], 'track')} with gaps (the object "
                         "leaves the picture, or is not annotated, and comes back): each "
                         "stretch is its own Potato track (track_<id>_2...), since a Potato "
                         "track covers every frame between its keyframes.")
        if self.counts["partly outside"]:
            notes.append(f"{_counted(self.counts['partly outside'], 'box')} reaching partly "
                         "outside the frame, kept as they are.")
        missing = sum(MEDIA_KEY not in item.record for item in self.items.values())
        if missing:
            notes.append(f"{missing} of {len(self.items)} videos were not found beside "
                         "their source; they are listed without media.")
        return ImportedStudy(format=self.format,
                             schemes=[ImportedScheme(SCHEME, "video_annotation", config)],
                             items=dict(self.items), answers=answers, notes=notes,
                             text_key="text", media_keys=(MEDIA_KEY,))


def _counted(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith("x") else f"{n} {word}s"


def _beside(source: Path, names: Iterable[str]) -> Path | None:
    """The first of ``names`` that is a file in ``source``'s folder (or in ``source``)."""
    folder = source if source.is_dir() else source.parent
    for name in names:
        if name and Path(name).name == name and (folder / name).is_file():
            return folder / name
    return None
