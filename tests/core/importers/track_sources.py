"""What the track importer tests share: one study of two annotators' tracks over a video,
written as CVAT for video 1.1 XML (the layout of CVAT's "XML annotation format" page,
interpolation mode, as CVAT dumps a task: every frame of a track listed, its own
interpolated boxes with ``keyframe="0"``, an ``outside="1"`` box where the object leaves)
and as a MOT Challenge sequence (``gt/gt.txt`` and ``seqinfo.ini``, 1-based frames and
pixels); and Potato 2.12.1's own reader of the stored tracks
(``iaa/attribute_agreement.py``: ``track_objects``, ``track_canonical``, ``_box_at``),
the oracle of what an import wrote.

Datumaro (PyPI) was considered as the writer of these fixtures: its CVAT exporter writes
only CVAT for images, and its MOT exporter writes no ``seqinfo.ini`` and numbers classes
by its own ``labels.txt``; so the files follow the formats' documentation here, and the
MOT side is read back with py-motmetrics' own reader as the reference.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from lxml import etree

W, H = 640, 360
FRAMES = 40
FPS = 25
VIDEO = "street.mp4"

Pixels = tuple[float, float, float, float]
"""``(xtl, ytl, xbr, ybr)`` in the video's pixels, 0-based."""
# annotator -> track id -> (label, keyframes {frame: box}, outside frames). Between two
# keyframes a box moves linearly (CVAT's interpolation); an outside frame ends a visible
# stretch, the next keyframe starts another.
TRUTH: dict[str, dict[int, tuple[str, dict[int, Pixels], tuple[int, ...]]]] = {
    "ann": {
        0: ("car", {0: (10.0, 20.0, 110.0, 80.0), 12: (130.5, 40.25, 240.0, 110.0),
                    20: (200.0, 60.0, 300.0, 130.0)}, (21,)),
        1: ("pedestrian", {5: (400.0, 100.0, 440.0, 220.0), 15: (420.0, 105.0, 462.0, 230.0)},
            (16,)),
        # leaves at 10 and comes back at 25: two Potato tracks
        2: ("car", {2: (500.0, 200.0, 600.0, 260.0), 9: (520.0, 210.0, 630.0, 270.0),
                    25: (300.0, 200.0, 380.0, 250.0), 32: (280.0, 190.0, 370.0, 250.0)},
            (10, 33)),
    },
    "ben": {
        7: ("car", {0: (12.0, 22.0, 111.0, 83.0), 20: (198.0, 58.0, 301.0, 128.0)}, (21,)),
        # reaches past the right edge (kept, counted)
        8: ("pedestrian", {4: (598.0, 100.0, 650.0, 220.0), 14: (600.0, 110.0, 655.0, 225.0)},
            (15,)),
        # ann's pedestrian 1, followed by two tracks: an ID switch at frame 11
        9: ("pedestrian", {5: (401.0, 101.0, 441.0, 221.0), 10: (411.0, 103.0, 452.0, 226.0)},
            (11,)),
        10: ("pedestrian", {11: (412.0, 103.0, 453.0, 226.0), 15: (420.0, 105.0, 462.0, 230.0)},
             (16,)),
    },
}
LABELS = {"car": "#fa3253", "pedestrian": "#33ddff"}
MOT_CLASS = {"pedestrian": 1, "car": 3}


def lerp(a: Pixels, b: Pixels, t: float) -> Pixels:
    return tuple(x + (y - x) * t for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def visible(keyframes: dict[int, Pixels], outside: tuple[int, ...]) -> dict[int, Pixels]:
    """Frame → box on every frame the object is in the picture, as CVAT interpolates."""
    out: dict[int, Pixels] = {}
    frames = sorted(keyframes)
    for f0, f1 in itertools.pairwise(frames):
        if any(f0 < o <= f1 for o in outside):
            out[f0] = keyframes[f0]
            continue
        for f in range(f0, f1):
            out[f] = lerp(keyframes[f0], keyframes[f1], (f - f0) / (f1 - f0))
    out[frames[-1]] = keyframes[frames[-1]]
    return out


def cvat_xml(path: Path, annotator: str, *, size: tuple[int, int] | None = (W, H),
             sparse: bool = False, extra: str = "") -> Path:
    """``annotator``'s tracks as CVAT dumps a video task (``sparse``: keyframes and
    outside boxes only, as a hand-edited file may hold them)."""
    root = etree.Element("annotations")
    etree.SubElement(root, "version").text = "1.1"
    meta = etree.SubElement(root, "meta")
    task = etree.SubElement(meta, "task")
    for key, value in (("id", "7"), ("name", "street task"), ("size", str(FRAMES)),
                       ("mode", "interpolation"), ("overlap", "5"), ("bugtracker", ""),
                       ("created", "2026-11-30 10:00:00.000000+00:00"),
                       ("updated", "2026-11-30 11:00:00.000000+00:00"), ("subset", "default"),
                       ("start_frame", "0"), ("stop_frame", str(FRAMES - 1)),
                       ("frame_filter", "")):
        etree.SubElement(task, key).text = value
    segment = etree.SubElement(etree.SubElement(task, "segments"), "segment")
    for key, value in (("id", "9"), ("start", "0"), ("stop", str(FRAMES - 1)),
                       ("url", "http://localhost:8080/api/jobs/9")):
        etree.SubElement(segment, key).text = value
    owner = etree.SubElement(task, "owner")
    etree.SubElement(owner, "username").text = annotator
    etree.SubElement(owner, "email").text = f"{annotator}@example.org"
    etree.SubElement(task, "assignee")
    labels = etree.SubElement(task, "labels")
    for name, color in LABELS.items():
        label = etree.SubElement(labels, "label")
        etree.SubElement(label, "name").text = name
        etree.SubElement(label, "color").text = color
        etree.SubElement(label, "type").text = "any"
        etree.SubElement(label, "attributes")
    if size is not None:
        original = etree.SubElement(task, "original_size")
        etree.SubElement(original, "width").text = str(size[0])
        etree.SubElement(original, "height").text = str(size[1])
    etree.SubElement(task, "source").text = VIDEO
    etree.SubElement(meta, "dumped").text = "2026-12-01 09:00:00.000000+00:00"
    for tid, (label, keyframes, outside) in TRUTH[annotator].items():
        track = etree.SubElement(root, "track", id=str(tid), label=label, source="manual")
        boxes = keyframes if sparse else visible(keyframes, outside)
        rows = [(f, b, "0", "1" if f in keyframes else "0") for f, b in boxes.items()]
        rows += [(o, keyframes[max(k for k in keyframes if k < o)], "1", "1") for o in outside]
        for frame, (xtl, ytl, xbr, ybr), out, key in sorted(rows, key=lambda r: r[0]):
            etree.SubElement(track, "box", frame=str(frame), keyframe=key, outside=out,
                             occluded="0", xtl=f"{xtl:.2f}", ytl=f"{ytl:.2f}",
                             xbr=f"{xbr:.2f}", ybr=f"{ybr:.2f}", z_order="0")
    text = etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace(b"</annotations>", extra.encode() + b"</annotations>"))
    return path


def mot_sequence(folder: Path, annotator: str, *, seqinfo: bool = True,
                 extra_rows: str = "") -> Path:
    """``annotator``'s tracks as a MOT17 sequence folder: ``seqinfo.ini`` and
    ``gt/gt.txt`` (1-based frames and pixels, ids from 1, conf 1, the MOT class, full
    visibility), plus a conf-0 row per track (a box the evaluation ignores)."""
    folder.mkdir(parents=True, exist_ok=True)
    if seqinfo:
        (folder / "seqinfo.ini").write_text(
            f"[Sequence]\nname=street\nimDir=img1\nframeRate={FPS}\nseqLength={FRAMES}\n"
            f"imWidth={W}\nimHeight={H}\nimExt=.jpg\n\n")
    lines = []
    for tid, (label, keyframes, outside) in TRUTH[annotator].items():
        for frame, box in visible(keyframes, outside).items():
            xtl, ytl, xbr, ybr = (round(v, 2) for v in box)  # the CVAT file's values
            lines.append(f"{frame + 1},{tid + 1},{xtl + 1:.2f},{ytl + 1:.2f},"
                         f"{xbr - xtl:.2f},{ybr - ytl:.2f},1,{MOT_CLASS[label]},1")
        lines.append(f"{FRAMES},{tid + 1},5,5,20,20,0,8,0.5")  # ignored: conf 0
    (folder / "gt").mkdir(exist_ok=True)
    (folder / "gt" / "gt.txt").write_text("\n".join(sorted(lines, key=lambda r: int(
        r.split(",")[0]))) + "\n" + extra_rows)
    return folder


# ------------------------------------------------------------------ Potato as the oracle


def potato_boxes(project: Path, annotator: str, item: str = VIDEO, scheme: str = "tracks"
                 ) -> dict[tuple[str, int], Pixels]:
    """(Potato track id, frame) → the box Potato's own track reader gives on that frame
    (interpolated between keyframes), back in pixels as ``(xtl, ytl, xbr, ybr)``."""
    from potato.server_utils.iaa.attribute_agreement import (
        _box_at,
        track_canonical,
        track_objects,
    )

    state = json.loads((project / "annotation_output" / annotator / "user_state.json")
                       .read_text())
    pairs = state["instance_id_to_label_to_value"][item]
    stored: dict[str, Any] = {k["name"]: v for k, v in pairs if k["schema"] == scheme}
    out: dict[tuple[str, int], Pixels] = {}
    for track in track_objects(stored):
        canonical = track_canonical(track)
        assert canonical is not None
        for frame in range(FRAMES + 5):
            box = _box_at(canonical["frames"], frame)
            if box is not None:
                x, y, w, h = box["x"] * W, box["y"] * H, box["width"] * W, box["height"] * H
                out[track["id"], frame] = (x, y, x + w, y + h)
    return out


def by_source_id(boxes: dict[tuple[str, int], Pixels]) -> dict[tuple[int, int], Pixels]:
    """Potato's boxes keyed by the source's track id (``track_<id>`` or
    ``track_<id>_<n>``); a frame given by two pieces of one track is an error."""
    out: dict[tuple[int, int], Pixels] = {}
    for (key, frame), box in boxes.items():
        tid = int(key.split("_")[1])
        assert (tid, frame) not in out, (key, frame)
        out[tid, frame] = box
    return out
