"""CVAT for video 1.1 XML (``accord import cvat-video``), read with lxml's iterparse as
the CVAT for images importer reads its format.

**Format** (CVAT's "XML annotation format", interpolation mode): ``<annotations>
<version>1.1</version><meta><task>`` (or ``<job>``) with ``<name>``, ``<source>`` (the
video's file name), ``<labels>`` and ``<original_size><width>…</width><height>…</height>``
(the frame size: what normalizes every box; a file without it is refused), then one
``<track id label source>`` per object holding its shapes frame by frame: ``<box frame
outside occluded keyframe xtl ytl xbr ybr z_order rotation?>``. CVAT writes a box on
every frame of a track, its own interpolated ones with ``keyframe="0"``, and a box with
``outside="1"`` where the object leaves the picture. Frames are 0-based, as Potato's.

**Who is who.** One file (a job's export, or a folder holding one ``.xml``, as CVAT's zip
unpacks) per annotator, named by ``--annotator`` or the file's stem (the folder's name).

**Items.** One video per file: the item id is ``<source>`` (so two annotators' jobs on
the same video meet), else the task's ``<name>``, else ``video``: each file holds one
video and the files given together are usually its annotators' jobs, so files that name
nothing meet on one item.

**Tracks.** Each visible box (``outside="0"``) becomes a Potato keyframe
(:mod:`.study`: Potato then gives CVAT's box on every frame CVAT lists); an ``outside``
box ends a visible stretch. A track needs at least one visible box with
``keyframe="1"`` (a missing ``keyframe`` attribute counts as one); a track of any other
shape (polygon, points, skeleton...) is skipped and counted. ``occluded``, ``z_order``
and attributes are not carried by Potato tracks (counted); a ``rotation`` is dropped,
keeping the box's centre and size (counted).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

from lxml import etree

from app.core.errors import InputError
from app.core.formats.importers import image_media as im
from app.core.formats.importers.cvat import walk_xml
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.tracks.study import Box, Piece, TrackStudy, check_box

LABEL_PARENTS = frozenset({"task", "job", "project"})
META_PARENTS = frozenset({"task", "job"})
WHAT = "a CVAT for video 1.1 XML file"
FALLBACK_ITEM = "video"
"""The item of a file whose meta names no video and no task."""


class _File:
    """One annotator's CVAT for video file, read element by element."""

    def __init__(self, path: Path, annotator: str, study: TrackStudy) -> None:
        self.path, self.annotator, self.study = path, annotator, study
        self.labels: dict[str, str | None] = {}
        self.size: tuple[int, int] | None = None
        self.names: dict[str, str] = {}
        self.pieces: list[Piece] = []
        self.ids: set[str] = set()

    def error(self, message: str, elem: Any) -> InputError:
        return InputError(message, file=self.path, line=elem.sourceline)

    def read(self) -> None:
        walk_xml(self.path, self.walk, "CVAT for video 1.1")
        size = self.need_size(None)
        item = self.names.get("source") or self.names.get("name") or FALLBACK_ITEM
        self.study.add_item(item, size, None, self.path, [self.names.get("source", "")])
        self.study.answer(self.annotator, item, self.pieces, self.path)

    def need_size(self, elem: Any) -> tuple[int, int]:
        if self.size is None:
            raise InputError("the video's width and height are needed to normalize the boxes "
                             "and this file has none; expected <meta><task><original_size>"
                             "<width>…</width><height>…</height> (CVAT writes it for video "
                             "tasks)", file=self.path,
                             line=elem.sourceline if elem is not None else None)
        return self.size

    def walk(self, handle: Any) -> None:
        events = etree.iterparse(handle, events=("start", "end"), resolve_entities=False,
                                 no_network=True)
        first = True
        for event, elem in events:
            if first:
                first = False
                if elem.tag != "annotations":
                    raise self.error(f"the root element is <{elem.tag}>; expected CVAT "
                                     "for video 1.1 XML (<annotations>)", elem)
            if event != "end":
                continue
            parent = elem.getparent()
            ptag = parent.tag if parent is not None else None
            if elem.tag == "labels" and ptag in LABEL_PARENTS:
                self.meta_labels(elem)
            elif elem.tag in ("name", "source") and ptag in META_PARENTS:
                self.names.setdefault(elem.tag, (elem.text or "").strip())
            elif elem.tag == "original_size":
                self.size = im.check_size(elem.findtext("width"), elem.findtext("height"),
                                          file=self.path, line=elem.sourceline,
                                          key="original_size")
            elif elem.tag == "image" and ptag == "annotations":
                raise self.error("this is CVAT for images (it holds <image>); import it "
                                 "with `accord import cvat`", elem)
            elif elem.tag == "track":
                self.track(elem)
                elem.clear()
                while elem.getprevious() is not None:
                    del parent[0]

    def meta_labels(self, elem: Any) -> None:
        for label in elem.iterchildren("label"):
            name = label.findtext("name")
            if name and not label.findtext("parent"):  # a skeleton's points have a parent
                self.labels.setdefault(name, (label.findtext("color") or "").strip() or None)

    def track(self, elem: Any) -> None:
        tid = (elem.get("id") or "").strip()
        if not tid.isdigit():
            raise self.error(f"a <track> with id {elem.get('id')!r}; expected a whole "
                             "number", elem)
        if tid in self.ids:
            raise self.error(f"track {tid} appears twice; expected one <track> per id", elem)
        self.ids.add(tid)
        label = elem.get("label")
        if label is None:
            raise self.error(f"track {tid} has no label", elem)
        if self.labels and label not in self.labels:
            raise self.error(f"unknown label '{label}' on track {tid}; expected one of the "
                             f"labels in <meta>: {', '.join(self.labels)}", elem)
        shapes = [c for c in elem.iterchildren() if isinstance(c.tag, str)]
        if any(c.tag != "box" for c in shapes):
            self.study.counts["other tracks"] += 1
            return
        size = self.need_size(elem)
        counts = self.study.counts
        boxes: list[tuple[int, bool, Box, Any]] = []
        keyed = False
        for child in shapes:
            frame = self.whole(child, "frame")
            outside = self.flag(child, "outside", "0")
            xtl, ytl, xbr, ybr = (self.number(child, k) for k in ("xtl", "ytl", "xbr", "ybr"))
            if child.get("rotation") and self.number(child, "rotation") % 360.0:
                counts["rotated"] += 1
            if child.get("occluded") == "1" or len(child.findall("attribute")) or \
                    child.get("z_order") not in (None, "0"):
                counts["attributes"] += 1
            box = Box(frame, xtl, ytl, xbr - xtl, ybr - ytl)
            if not outside:
                check_box(box, size, counts, file=self.path, line=child.sourceline,
                          what=f"track {tid}'s box on frame {frame}")
                keyed = keyed or self.flag(child, "keyframe", "1")
            boxes.append((frame, outside, box, child))
        if not keyed:
            raise self.error(f"track {tid} has no keyframe: expected at least one <box> with "
                             "keyframe=\"1\" and outside=\"0\"", elem)
        boxes.sort(key=lambda b: b[0])
        for (f0, _, _, _), (f1, _, _, child) in itertools.pairwise(boxes):
            if f0 == f1:
                raise self.error(f"track {tid} has two boxes on frame {f1}", child)
        pieces: list[Piece] = []
        current: Piece | None = None
        for _, outside, box, _ in boxes:
            if outside:
                current = None
            else:
                if current is None:
                    current = Piece(tid, label)
                    pieces.append(current)
                current.boxes.append(box)
        counts["split"] += len(pieces) > 1
        self.study.color(label, self.labels.get(label))
        self.pieces.extend(pieces)

    def number(self, elem: Any, key: str) -> float:
        text = elem.get(key)
        try:
            value = float(text)
        except (TypeError, ValueError):
            value = math.nan
        if not math.isfinite(value):
            raise self.error(f"<{elem.tag}> {key}={text!r}; expected a number of pixels", elem)
        return value

    def whole(self, elem: Any, key: str) -> int:
        text = (elem.get(key) or "").strip()
        if not text.isdigit():
            raise self.error(f"<{elem.tag}> {key}={elem.get(key)!r}; expected a frame number "
                             "(0, 1, 2...)", elem)
        return int(text)

    def flag(self, elem: Any, key: str, default: str) -> bool:
        text = str(elem.get(key, default))
        if text not in ("0", "1"):
            raise self.error(f"<{elem.tag}> {key}={text!r}; expected 0 or 1", elem)
        return text == "1"


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in CVAT for video 1.1 files ``sources``, one per annotator."""
    names = annotator_names(sources, annotators)
    study = TrackStudy("cvat-video")
    for source, name in zip(sources, names, strict=True):
        path = im.export_file(source, (".xml",), WHAT)
        one = _File(path, name, study)
        one.read()
        for label, color in one.labels.items():
            study.color(label, color)
    counts = study.counts
    if counts["other tracks"]:
        study.notes.append(f"{counts['other tracks']} tracks of other shapes (polygons, "
                           "points, skeletons...) were skipped: Potato tracks are boxes.")
    if counts["rotated"]:
        study.notes.append(f"{counts['rotated']} rotated boxes lost their rotation (Potato's "
                           "track boxes are not rotated); centre and size are kept.")
    if counts["attributes"]:
        study.notes.append(f"{counts['attributes']} boxes had attributes, the occluded flag "
                           "or a z_order, which Potato tracks do not carry.")
    return study.finish()
