"""Potato's structured answers with geometry → model objects (``formats.md``).

Images (boxes, polygons, ellipses, row-major RLE masks, normalized coordinates), 3D
objects (cuboids with quaternions, points, polylines, point segments; metres), audio and
video segments (seconds), tiers (milliseconds, converted to seconds here) and temporal
grounding events. A bad object raises through :meth:`Place.error` with its index.

Every number of a geometry must be finite and at most :data:`MAX_MAGNITUDE` in size
(a million kilometres in metres; 30,000 years in seconds): a cuboid of size 1e308 has
an infinite volume, and the IoU arithmetic on it printed numpy overflow warnings. Such
an object is unusable like a negative size: its answer is rejected and counted.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import chain
from typing import Any

import numpy as np

from app.core.formats.potato.place import Place, sys_intern
from app.core.model import Scheme
from app.core.objects import (
    BoxRegion,
    Cuboid,
    EllipseRegion,
    KeypointSet,
    Landmark,
    Mask,
    ObjectSet,
    OpenPath,
    Point3D,
    PolygonRegion,
    Polyline3D,
    SceneObject,
    Segment,
    Segment3D,
    normalized_quaternion,
    unit_quaternion_rows,
)


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
_PLAIN_TYPES = frozenset(_PLAIN_NUMBERS)


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


_NO_TURN = (0.0, 0.0, 0.0, 1.0)
_SEQUENCES = (list, tuple)


def _fast_cuboids(shapes: list[Any]) -> ObjectSet | None:
    """All-cuboid answers in one numpy pass (a lidar study holds hundreds of thousands).

    Returns ``None`` unless every object is a well-formed cuboid whose numbers are plain
    JSON numbers (no booleans, no strings), finite and in bounds, with a non-negative
    size and a usable quaternion: anything else takes the checked path, which names the
    object and what is wrong with it. The values are the checked path's: ``float`` of
    each number, the quaternion scaled by its length. The answer keeps its boxes packed
    (:attr:`ObjectSet.boxes`) for the agreement.
    """
    rows: list[list[Any]] = []
    try:
        for shape in shapes:
            if type(shape) is not dict or shape.get("type") != "cuboid_3d":
                return None
            coords = shape["coordinates"]
            center, size = coords["center"], coords["size"]
            turn = coords.get("rotation", _NO_TURN)
            if not (type(center) in _SEQUENCES and type(size) in _SEQUENCES
                    and type(turn) in _SEQUENCES and len(center) == 3 and len(size) == 3
                    and len(turn) == 4):
                return None
            rows.append([*center, *size, *turn])
    except (KeyError, TypeError, AttributeError):
        return None
    if not set(map(type, chain.from_iterable(rows))) <= _PLAIN_TYPES:
        return None
    return cuboids_from_rows([_label(shape) for shape in shapes], rows)


def cuboids_from_rows(labels: list[str], rows: list[list[Any]]) -> ObjectSet | None:
    """Cuboids from rows of ten plain numbers (centre, size, quaternion), or ``None``
    where one is unusable (out of bounds, a negative size, a quaternion with no
    direction: the checked path names it). The values are the checked path's:
    ``float`` of each number, the quaternion scaled by its length."""
    try:
        array = np.array(rows, dtype=np.float64).reshape(len(rows), 10)
    except OverflowError:  # an integer past the largest float
        return None
    if not (np.abs(array) <= MAX_MAGNITUDE).all():  # NaN fails too
        return None
    turns = array[:, 6:10]
    norms = np.sqrt((turns * turns).sum(axis=1))
    if not ((array[:, 3:6] >= 0).all() and (norms >= 1e-12).all()):
        return None
    array[:, 6:10] = turns / norms[:, None]
    cuboids = tuple(
        Cuboid(label, (r[0], r[1], r[2]), (r[3], r[4], r[5]), (r[6], r[7], r[8], r[9]))
        for label, r in zip(labels, array.tolist(), strict=True))
    unit_quaternion_rows(array)  # what boxes_array makes of these cuboids, bit for bit
    return ObjectSet(cuboids, boxes=array)


def parse_spatial(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    shapes = list_of(raw, ("annotations", "objects", "shapes"), place,
                      "a list of 3D objects")
    if shapes:
        fast = _fast_cuboids(shapes)
        if fast is not None:
            return fast
    out: list[SceneObject] = []
    for i, shape in enumerate(shapes):
        if not isinstance(shape, dict):
            raise place.error("expected a 3D object", i)
        kind = shape.get("type")
        coords = shape.get("coordinates")
        if kind == "cuboid_3d":
            if not isinstance(coords, dict):
                raise place.error("cuboid coordinates must be {center, size, rotation}", i)
            cx, cy, cz = _vector(coords.get("center"), 3, place, i, "center")
            l, w, h = _vector(coords.get("size"), 3, place, i, "size")  # noqa: E741
            if min(l, w, h) < 0:
                raise place.error(f"size must not be negative, found {[l, w, h]}", i)
            rotation = coords.get("rotation", [0.0, 0.0, 0.0, 1.0])
            q = _vector(rotation, 4, place, i, "rotation quaternion [qx, qy, qz, qw]")
            try:
                unit = normalized_quaternion(q)
            except ValueError as exc:
                raise place.error(str(exc), i) from None
            out.append(Cuboid(_label(shape), (cx, cy, cz), (l, w, h), unit))
        elif kind == "point_3d":
            x, y, z = _vector(coords, 3, place, i, "point")
            out.append(Point3D(_label(shape), (x, y, z)))
        elif kind == "polyline_3d":
            if not isinstance(coords, list):
                raise place.error("polyline coordinates must be a list of [x, y, z]", i)
            pts = tuple(_vector(p, 3, place, i, "polyline point") for p in coords)
            out.append(Polyline3D(_label(shape), tuple((a, b, c) for a, b, c in pts)))
        elif kind == "segment_3d":
            indices = shape.get("indices", coords)
            if not isinstance(indices, list) or not all(
                    isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in indices):
                raise place.error("segment_3d indices must be non-negative integers", i)
            out.append(Segment3D(_label(shape), tuple(indices)))
    return ObjectSet(tuple(out))


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
    """Audio and video segments, in seconds."""
    entries = list_of(raw, ("segments",), place, 'an object {"segments": [...]}')
    return ObjectSet(tuple(_segment(e, place, i, 1.0, None) for i, e in enumerate(entries)))


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
