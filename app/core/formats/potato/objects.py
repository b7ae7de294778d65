"""Potato's structured answers with geometry → model objects (``formats.md``).

Images (boxes, polygons, ellipses, row-major RLE masks, normalized coordinates), audio
and video segments (seconds), tiers (milliseconds, converted to seconds here) and temporal
grounding events; 3D objects (metres) in :mod:`~app.core.formats.potato.spatial`, with
the shared number checks of this module. A bad object raises through
:meth:`Place.error` with its index.

Every number of a geometry must be finite and at most :data:`MAX_MAGNITUDE` in size
(a million kilometres in metres; 30,000 years in seconds): a cuboid of size 1e308 has
an infinite volume, and the IoU arithmetic on it printed numpy overflow warnings. Such
an object is unusable like a negative size: its answer is rejected and counted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from app.core.formats.potato.place import Place, sys_intern
from app.core.model import Scheme
from app.core.objects import (
    BoxRegion,
    EllipseRegion,
    KeypointSet,
    Landmark,
    Mask,
    ObjectSet,
    OpenPath,
    PolygonRegion,
    SceneObject,
    Segment,
)
from app.core.tracks import VideoTrack


def list_of(raw: Any, keys: tuple[str, ...], place: Place, expected: str) -> list[Any]:
    if isinstance(raw, list):
        return raw
    if isinstance(raw, dict):
        for key in keys:
            if isinstance(raw.get(key), list):
                return list(raw[key])
        if not raw:
            return []
    raise place.error(f"expected {expected}")


MAX_MAGNITUDE = 1e12
"""The largest size of any coordinate, length or time an object may hold."""


def _number(value: Any, place: Place, obj: int, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise place.error(f"{what} must be a number, found {value!r:.60}", obj)
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise place.error(f"{what} must be a number, found {value!r:.60}", obj) from None
    if not math.isfinite(number):
        raise place.error(f"{what} must be finite, found {value!r:.60}", obj)
    if abs(number) > MAX_MAGNITUDE:
        raise place.error(f"{what} is {number:g}; expected at most {MAX_MAGNITUDE:g} in size",
                          obj)
    return number


_PLAIN_NUMBERS = (int, float)


def _vector(value: Any, n: int, place: Place, obj: int, what: str) -> tuple[float, ...]:
    if not isinstance(value, list | tuple) or len(value) != n:
        raise place.error(f"{what} must be a list of {n} numbers, found {value!r}", obj)
    # Fast path for the common case (plain finite JSON numbers): a lidar study holds
    # millions of them. Anything else takes the checked path for its exact message.
    if all(type(v) in _PLAIN_NUMBERS for v in value):
        try:
            vector = tuple(map(float, value))
        except OverflowError:
            vector = (math.inf,)
        if all(-MAX_MAGNITUDE <= v <= MAX_MAGNITUDE for v in vector):
            return vector
    return tuple(_number(v, place, obj, what) for v in value)


def _label(shape: Mapping[str, Any]) -> str:
    label = shape.get("label", "")
    return sys_intern(str(label) if label is not None else "")


def parse_image(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    shapes = list_of(raw, ("annotations", "objects", "shapes"), place,
                      "a list of image shapes")
    out: list[SceneObject] = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, dict):
            raise place.error("expected a shape object", i)
        kind = shape.get("type")
        coords = shape.get("coordinates")
        if kind == "bbox":
            if not isinstance(coords, dict):
                raise place.error("bbox coordinates must be {x, y, width, height}", i)
            x, y, w, h = (_number(coords.get(k), place, i, f"bbox {k}")
                          for k in ("x", "y", "width", "height"))
            if w < 0 or h < 0:
                raise place.error(f"bbox width and height must not be negative ({w}, {h})", i)
            out.append(BoxRegion(_label(shape), x, y, w, h))
        elif kind == "polygon":
            points = coords if isinstance(coords, list) else shape.get("points")
            if not isinstance(points, list) or len(points) < 3:
                raise place.error("a polygon needs a list of at least 3 {x, y} points", i)
            pts = tuple(_point2(p, place, i) for p in points)
            out.append(PolygonRegion(_label(shape), pts))
        elif kind == "ellipse":
            if not isinstance(coords, dict):
                raise place.error("ellipse coordinates must be {cx, cy, rx, ry, angle}", i)
            cx, cy, rx, ry = (_number(coords.get(k), place, i, f"ellipse {k}")
                              for k in ("cx", "cy", "rx", "ry"))
            angle = _number(coords.get("angle", 0.0), place, i, "ellipse angle")
            if rx < 0 or ry < 0:
                raise place.error("ellipse radii must not be negative", i)
            out.append(EllipseRegion(_label(shape), cx, cy, rx, ry, angle))
        elif kind == "landmark":
            x, y = _point2(coords, place, i)
            out.append(Landmark(_label(shape), x, y))
        elif kind == "keypoint_set":
            if not isinstance(coords, list):
                raise place.error("keypoint_set coordinates must be a list of {x, y, v}", i)
            out.append(KeypointSet(_label(shape), tuple(_keypoint(p, place, i) for p in coords)))
        elif kind == "polyline":
            points = coords if isinstance(coords, list) else shape.get("points")
            if not isinstance(points, list) or len(points) < 2:
                raise place.error("a polyline needs a list of at least 2 {x, y} points", i)
            out.append(OpenPath(_label(shape), tuple(_point2(p, place, i) for p in points)))
        elif kind == "freeform":
            out.append(_freeform(shape, coords, place, i))
        elif kind == "mask" or "rle" in shape:
            out.append(_mask(shape, place, i))
    return ObjectSet(tuple(out))


def _keypoint(p: Any, place: Place, obj: int) -> tuple[float, float, float]:
    x, y = _point2(p, place, obj)
    v = p.get("v", 2) if isinstance(p, dict) else 2
    return (x, y, _number(v if v is not None else 0, place, obj, "keypoint visibility"))


def _freeform(shape: Mapping[str, Any], coords: Any, place: Place, obj: int) -> OpenPath:
    """A fabric path: endpoints of its commands in pixels, placed at a normalized anchor.

    Potato's browser records ``{path, left, top, scaleX, scaleY, pathOffset, angle}``;
    each command's last two numbers are its endpoint, ``pathOffset`` (the path's centre)
    lands on ``(left, top)``, scaled and turned by ``angle``. The offsets stay in pixels
    until the image size is known (:class:`OpenPath`).
    """
    if isinstance(coords, list):  # already a list of points
        return OpenPath(_label(shape), tuple(_point2(p, place, obj) for p in coords), "freeform")
    if not isinstance(coords, dict) or not isinstance(coords.get("path"), list):
        raise place.error("freeform coordinates must be {path, left, top, ...}", obj)
    ends = [(_number(c[-2], place, obj, "path x"), _number(c[-1], place, obj, "path y"))
            for c in coords["path"] if isinstance(c, list | tuple) and len(c) >= 3]
    if len(ends) < 2:
        raise place.error("a freeform path needs at least 2 points", obj)
    left = _number(coords.get("left", 0.0), place, obj, "freeform left")
    top = _number(coords.get("top", 0.0), place, obj, "freeform top")
    sx = _number(coords.get("scaleX", 1.0) or 1.0, place, obj, "freeform scaleX")
    sy = _number(coords.get("scaleY", 1.0) or 1.0, place, obj, "freeform scaleY")
    offset = coords.get("pathOffset")
    if isinstance(offset, dict):
        ox = _number(offset.get("x") or 0.0, place, obj, "pathOffset x")
        oy = _number(offset.get("y") or 0.0, place, obj, "pathOffset y")
    else:  # older strokes: the path's minimum corner sits at (left, top)
        ox, oy = min(p[0] for p in ends), min(p[1] for p in ends)
    turn = math.radians(_number(coords.get("angle", 0.0) or 0.0, place, obj, "angle"))
    c, s = math.cos(turn), math.sin(turn)
    offsets = tuple(((x - ox) * sx * c - (y - oy) * sy * s, (x - ox) * sx * s + (y - oy) * sy * c)
                    for x, y in ends)
    points = tuple((left + dx, top + dy) for dx, dy in offsets)
    return OpenPath(_label(shape), points, "freeform", (left, top), offsets)


def _point2(p: Any, place: Place, obj: int) -> tuple[float, float]:
    if isinstance(p, dict):
        return (_number(p.get("x"), place, obj, "point x"), _number(p.get("y"), place, obj,
                                                                      "point y"))
    x, y = _vector(p, 2, place, obj, "point")
    return (x, y)


def _mask(shape: Mapping[str, Any], place: Place, obj: int) -> Mask:
    rle = shape.get("rle")
    if not isinstance(rle, dict):
        raise place.error("a mask needs rle {counts, size: [h, w]}", obj)
    size = rle.get("size")
    counts = rle.get("counts")
    if not isinstance(size, list) or len(size) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        raise place.error(f"mask size must be [height, width] in pixels, found {size!r}", obj)
    if not isinstance(counts, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts):
        raise place.error("mask counts must be a list of non-negative run lengths "
                          "(row-major, starting with background)", obj)
    h, w = size
    if h * w > MAX_MASK_PIXELS:
        raise place.error(f"mask size {h}×{w} is {h * w:,} pixels; at most "
                          f"{MAX_MASK_PIXELS:,} are supported", obj)
    if sum(counts) != h * w:
        raise place.error(f"mask runs sum to {sum(counts)}, expected h·w = {h}·{w} = {h * w}",
                          obj)
    return Mask(_label(shape), h, w, tuple(counts))


MAX_MASK_PIXELS = 4096 * 4096
"""The largest mask (height × width) read: 16.8 megapixels. A declared size drives
allocation: the mask agreement decodes every annotator's mask of an item at once and
held about 13 bytes per pixel per annotator (measured: three 4096 × 4096 masks, 747 MB
peak for the whole ``accord agreement`` run). A larger mask is an unusable object, not
gigabytes of memory."""


def _segment(entry: Any, place: Place, i: int, scale: float, tier: str | None) -> Segment:
    if not isinstance(entry, dict):
        raise place.error("expected a segment object", i)
    start = _number(_first(entry, "start_time", "startTime", "start"), place, i, "start_time")
    end = _number(_first(entry, "end_time", "endTime", "end"), place, i, "end_time")
    if end < start:
        raise place.error(f"segment ends before it starts ({start} > {end})", i)
    label = entry.get("label", entry.get("value", ""))
    ident = entry.get("id")
    parent = entry.get("parent_id")
    return Segment(start * scale, end * scale, sys_intern(str(label) if label is not None else ""),
                   sys_intern(tier) if tier is not None else None,
                   str(ident) if ident is not None else None,
                   str(parent) if parent is not None else None)


def _first(entry: Mapping[str, Any], *keys: str) -> Any:
    """Audio writes ``start_time``; video-annotation.js writes ``startTime``."""
    for key in keys:
        if entry.get(key) is not None:
            return entry[key]
    return None


def parse_timed(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """Audio and video segments, in seconds; a video's tracks beside them."""
    entries = list_of(raw, ("segments",), place, 'an object {"segments": [...]}')
    segments = tuple(_segment(e, place, i, 1.0, None) for i, e in enumerate(entries))
    tracks = _video_tracks(raw, place) if isinstance(raw, dict) else ()
    return ObjectSet(segments, tracks=tracks or None)


def _video_tracks(raw: Mapping[str, Any], place: Place) -> tuple[VideoTrack, ...]:
    """``tracks`` as tracking-ui.js saves them: ``{id: {id, label, keyframes: {frame:
    {frame, bbox, bboxNorm}}}}`` (a list of tracks is read too). A keyframe's frame is
    its ``frame``, else its key (as Potato reads it); its box the normalized
    ``bboxNorm`` (the canvas ``bbox`` depends on the annotator's window), ``None`` when
    it has none. A track is in the widget's order (the JSON object's). A track that
    cannot be read rejects the answer, naming the track (as a bad object does)."""
    tracks = raw.get("tracks")
    if isinstance(tracks, dict):
        tracks = list(tracks.values())
    if not tracks:
        return ()
    if not isinstance(tracks, list):
        raise place.error("tracks must be an object {id: track} or a list of tracks", 0)
    out: list[VideoTrack] = []
    for i, track in enumerate(tracks):
        if not isinstance(track, dict):
            continue  # Potato skips what is not a track
        keyframes = track.get("keyframes") or {}
        pairs = keyframes.items() if isinstance(keyframes, dict) else enumerate(keyframes)
        frames: dict[int, tuple[float, float, float, float] | None] = {}
        aspect: float | None = None
        for key, kf in pairs:
            where = kf.get("frame", key) if isinstance(kf, dict) else key
            if isinstance(where, bool) or not isinstance(where, int | float | str):
                raise place.error(f"track keyframe frame {where!r:.40} is not a number", i)
            try:
                frame = int(where)
            except (ValueError, OverflowError):
                raise place.error(f"track keyframe frame {where!r:.40} is not a number",
                                  i) from None
            box = kf.get("bboxNorm") if isinstance(kf, dict) else None
            frames[frame] = None if not isinstance(box, dict) else tuple(  # type: ignore[assignment]
                _number(box.get(k), place, i, f"track bboxNorm {k}")
                for k in ("x", "y", "width", "height"))
            if aspect is None and frames[frame] is not None:
                aspect = _aspect(kf.get("bbox"), frames[frame])
        if frames:
            label = track.get("label")
            out.append(VideoTrack(str(track.get("id") or ""),
                                  sys_intern(str(label) if label is not None else ""),
                                  tuple(sorted(frames.items())), aspect))
    return tuple(out)


def _aspect(pixels: object, norm: tuple[float, float, float, float] | None) -> float | None:
    """The picture's width / height from a keyframe's pixel ``bbox`` and its normalized
    one (both the same box: pixels / fraction = the picture's size); ``None`` when the
    keyframe cannot say (no ``bbox``, a zero or non-number size). Never an error: the
    pixel box is only used to draw."""
    if norm is None or not isinstance(pixels, dict) or norm[2] <= 0 or norm[3] <= 0:
        return None
    w, h = pixels.get("width"), pixels.get("height")
    if isinstance(w, bool) or isinstance(h, bool) or not isinstance(w, int | float) \
            or not isinstance(h, int | float) or w <= 0 or h <= 0:
        return None
    ratio = (w / norm[2]) / (h / norm[3])
    return ratio if 0.05 < ratio < 20 else None


def parse_tiered(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """Tiered annotations, stored in **milliseconds**, converted to seconds here."""
    tiers = raw.get("annotations") if isinstance(raw, dict) else None
    if tiers is None and isinstance(raw, dict) and not raw:
        tiers = {}
    if not isinstance(tiers, dict):
        raise place.error('expected {"annotations": {"<tier>": [segments in ms]}}')
    out: list[SceneObject] = []
    n = 0
    for tier, entries in tiers.items():
        if not isinstance(entries, list):
            raise place.error(f"tier '{tier}' must hold a list of segments")
        for entry in entries:
            out.append(_segment(entry, place, n, 1e-3, str(tier)))
            n += 1
    return ObjectSet(tuple(out))


def parse_grounding(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    """temporal_grounding: the event key is the label; no ``end`` makes an instant."""
    events = raw.get("events") if isinstance(raw, dict) else None
    if events is None and isinstance(raw, dict) and not raw:
        events = {}
    if not isinstance(events, dict):
        raise place.error('expected {"events": {"<label>": {"start", "end"}}}')
    out: list[SceneObject] = []
    for i, (label, event) in enumerate(events.items()):
        if not isinstance(event, dict):
            raise place.error("expected an event {start, end}", i)
        has_start = event.get("start") is not None
        has_end = event.get("end") is not None
        if not has_start and not has_end:
            continue
        start = _number(event["start"] if has_start else event["end"], place, i, "start")
        end = _number(event["end"], place, i, "end") if has_end else start
        if end < start:
            raise place.error(f"event ends before it starts ({start} > {end})", i)
        out.append(Segment(start, end, sys_intern(str(label))))
    return ObjectSet(tuple(out))
