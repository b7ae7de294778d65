"""3D answers (``spatial_annotation``): cuboids, points, polylines, point segments, in metres.

A lidar study's answers are almost all plain cuboids, hundreds of thousands of them:
:func:`_fast_cuboids` reads those with ``map`` and numpy and keeps their packed rows
(:attr:`~app.core.objects.ObjectSet.boxes`); anything else, or anything wrong, takes the
checked path object by object, which names the object and the problem (``formats.md``).
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, is_, itemgetter, methodcaller
from typing import Any, Literal

import msgspec
import numpy as np

from app.core.formats.potato.objects import (
    _PLAIN_NUMBERS,
    MAX_MAGNITUDE,
    _label,
    _vector,
    list_of,
)
from app.core.formats.potato.place import Place, sys_intern
from app.core.formats.reading import nesting
from app.core.model import Scheme
from app.core.objects import (
    Cuboid,
    ObjectSet,
    Point3D,
    Polyline3D,
    SceneObject,
    Segment3D,
    make_cuboids,
    normalized_quaternion,
)
from app.core.tracks import TrackKey

_PLAIN_TYPES = frozenset(_PLAIN_NUMBERS)


_NO_TURN = (0.0, 0.0, 0.0, 1.0)
_SEQUENCES = frozenset({list, tuple})
_DICT = frozenset({dict})
_KIND = methodcaller("get", "type")
_LABEL = methodcaller("get", "label", "")
_COORDINATES = itemgetter("coordinates")
_PARTS = ((itemgetter("center"), 3), (itemgetter("size"), 3),
          (methodcaller("get", "rotation", _NO_TURN), 4))


def _fast_cuboids(shapes: list[Any]) -> ObjectSet | None:
    """All-cuboid answers in one numpy pass (a lidar study holds hundreds of thousands).

    Returns ``None`` unless every object is a well-formed cuboid whose numbers are plain
    JSON numbers (no booleans, no strings), finite and in bounds, with a non-negative
    size and a usable quaternion: anything else takes the checked path, which names the
    object and what is wrong with it. The values are the checked path's: ``float`` of
    each number, the quaternion scaled by its length. The answer keeps its boxes packed
    (:attr:`ObjectSet.boxes`) for the agreement. Every step is a ``map`` over all the
    objects (C loops; a Python loop over 240,000 cuboids was half of the reading).
    """
    n = len(shapes)
    if set(map(type, shapes)) != _DICT or set(map(_KIND, shapes)) != {"cuboid_3d"}:
        return None
    try:
        coords = list(map(_COORDINATES, shapes))
        if set(map(type, coords)) != _DICT:
            return None
        array = np.empty((n, 10))
        column = 0
        for get, width in _PARTS:
            part = list(map(get, coords))
            if not set(map(type, part)) <= _SEQUENCES or set(map(len, part)) != {width}:
                return None
            numbers = list(chain.from_iterable(part))
            if not set(map(type, numbers)) <= _PLAIN_TYPES:
                return None
            array[:, column:column + width] = np.array(numbers, dtype=np.float64).reshape(
                n, width)
            column += width
    except (KeyError, TypeError, OverflowError):  # a key missing; an integer past floats
        return None
    labels = list(map(_LABEL, shapes))
    if set(map(type, labels)) == {str}:
        labels = list(map(sys_intern, labels))
    else:
        labels = [_label(shape) for shape in shapes]
    return cuboids_from_rows(labels, array)


class _Coordinates(msgspec.Struct):
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    rotation: tuple[float, float, float, float] = _NO_TURN


class _Shape(msgspec.Struct):
    type: Literal["cuboid_3d"]
    coordinates: _Coordinates
    label: Any = ""


_DECODE_CUBOIDS = msgspec.json.Decoder(list[_Shape]).decode
_COORDINATES_OF, _LABEL_OF = attrgetter("coordinates"), attrgetter("label")
_CENTER_OF, _SIZE_OF = attrgetter("center"), attrgetter("size")
_ROTATION_OF = attrgetter("rotation")
_OPEN_SQUARE, _OPEN_CURLY = b"[", b"{"
_TRACK_ID = b'"track_id"'
_SKELETON_DEPTH = 4
"""How deep a decoded answer's own brackets go: the list, a shape, its coordinates, and
the centre's, size's and rotation's lists (which hold numbers only)."""
_DEFAULT_KEPT = _DECODE_CUBOIDS(
    b'[{"type": "cuboid_3d", "coordinates": {"center": [0, 0, 0], "size": [0, 0, 0]}}]'
)[0].coordinates.rotation is _NO_TURN
"""Whether msgspec gives a missing rotation as the default object itself (so that a
rotation that is not :data:`_NO_TURN` was written in the text)."""


def cuboids_from_text(text: str) -> ObjectSet | None:
    """A stored answer's text read straight into cuboids when it is a list of plain
    cuboids, else ``None`` (the caller parses the JSON and reads what it holds).

    Why: parsed as JSON, each of a lidar study's 240,000 cuboids is two dicts, three
    lists and ten floats, built only to be taken apart into numpy rows. msgspec decodes
    the text into typed fields instead (``float`` fields take JSON's integers and
    fractions, to the same bits as ``float`` of ``json.loads``'s value: tested; they
    refuse booleans and strings, as :func:`_fast_cuboids` does), and keeps the last of
    duplicate keys as ``json.loads`` does. Whatever could differ from the JSON path goes
    to it: a text past nesting's bounds (depth, or a run of 19 digits: an integer msgspec
    might read otherwise), anything msgspec refuses (it accepts no text ``json.loads``
    refuses), another object type, an empty list; the numbers then pass
    :func:`_checked_cuboids` like the JSON path's.

    The depth is bounded before it is counted (:func:`_may_nest_deeper`): counting it
    exactly was a tenth of reading a lidar study. msgspec meets a deep text first, and
    refuses one deeper than it follows with ``RecursionError``."""
    raw = text.encode("utf-8", "surrogatepass")
    if nesting.has_wide_number(raw) or _TRACK_ID in raw:  # a sequence keeps its frames
        return None
    try:
        shapes = _DECODE_CUBOIDS(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if not shapes:
        return None
    coords = list(map(_COORDINATES_OF, shapes))
    rotations = list(map(_ROTATION_OF, coords))
    if _may_nest_deeper(raw, len(shapes), rotations) and nesting.deeper_than(raw):
        return None
    centers, sizes = list(map(_CENTER_OF, coords)), list(map(_SIZE_OF, coords))
    n = len(shapes)
    numbers = chain.from_iterable(chain.from_iterable(zip(centers, sizes, rotations, strict=True)))
    array = np.fromiter(numbers, dtype=np.float64, count=10 * n).reshape(n, 10)
    labels = list(map(_LABEL_OF, shapes))
    if set(map(type, labels)) == {str}:
        labels = list(map(sys_intern, labels))
    else:
        labels = [sys_intern(str(label) if label is not None else "") for label in labels]
    return _checked_cuboids(labels, array, centers, sizes)


def _may_nest_deeper(raw: bytes, n: int, rotations: list[tuple[float, ...]]) -> bool:
    """Whether a text msgspec decoded into ``n`` cuboids might nest deeper than
    :data:`~app.core.formats.reading.nesting.MAX_DEPTH` (then it is counted exactly).

    A bracket lies inside at most three of the answer's own brackets (the list, its
    shape, the coordinates: the number lists enclose none) and inside others only, each
    of which is one of the text's opening brackets beyond the answer's own ``1 + 4n``
    (``+1`` for each rotation written). So no bracket lies deeper than
    :data:`_SKELETON_DEPTH` plus that surplus (brackets inside strings only add to it)."""
    surplus = raw.count(_OPEN_SQUARE) + raw.count(_OPEN_CURLY) - (1 + 4 * n)
    if _SKELETON_DEPTH + surplus <= nesting.MAX_DEPTH:
        return False
    if _DEFAULT_KEPT:  # over 96 cuboids: the written rotations are the answer's own too
        surplus -= n - sum(map(is_, rotations, repeat(_NO_TURN)))
    return _SKELETON_DEPTH + surplus > nesting.MAX_DEPTH


def cuboids_from_rows(labels: list[str], array: np.ndarray) -> ObjectSet | None:
    """Cuboids from rows ``(n, 10)`` (centre, size, quaternion), or ``None`` where one is
    unusable (out of bounds, a negative size, a quaternion with no direction: the
    checked path names it). The quaternions are scaled by their length, as the checked
    path does; ``array`` becomes :attr:`ObjectSet.boxes` (the cuboids' very numbers)."""
    return _checked_cuboids(labels, array, None, None)


def _checked_cuboids(labels: list[str], array: np.ndarray,
                     centers: list[tuple[float, float, float]] | None,
                     sizes: list[tuple[float, float, float]] | None) -> ObjectSet | None:
    """:func:`cuboids_from_rows`, taking the centres and sizes as tuples where the caller
    has them already: the very floats of ``array``'s rows (msgspec's tuples), so that only
    the scaled quaternions are made into tuples again."""
    # Few numpy calls per answer (each costs a microsecond or two, 6,000 answers a study):
    # the bounds from the extremes (a NaN fails both), then the sizes and the lengths.
    if not (array.min() >= -MAX_MAGNITUDE and array.max() <= MAX_MAGNITUDE):
        return None
    turns = array[:, 6:10]
    norms = np.sqrt((turns * turns).sum(axis=1))
    if not (array[:, 3:6].min() >= 0 and norms.min() >= 1e-12):
        return None
    array[:, 6:10] = turns / norms[:, None]
    cuboids = make_cuboids(
        labels,
        centers if centers is not None else map(tuple, array[:, 0:3].tolist()),
        sizes if sizes is not None else map(tuple, array[:, 3:6].tolist()),
        map(tuple, array[:, 6:10].tolist()))
    return ObjectSet(cuboids, boxes=array)


def parse_spatial(raw: Any, scheme: Scheme, place: Place) -> ObjectSet:
    shapes = list_of(raw, ("annotations", "objects", "shapes"), place,
                      "a list of 3D objects")
    sequence = any(_track_key(shape) is not None for shape in shapes)
    if shapes and not sequence:
        fast = _fast_cuboids(shapes)
        if fast is not None:
            return fast
    out: list[SceneObject] = []
    keys: list[TrackKey | None] = []
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
        if len(keys) < len(out):  # this shape was read: its frame and track beside it
            keys.append(_track_key(shape))
    if not sequence:
        return ObjectSet(tuple(out))
    return ObjectSet(tuple(out), keys=tuple(keys))


def _track_key(shape: Any) -> TrackKey | None:
    """A sequence object's frame and track (``export/spatial_sequences.py``), or ``None``
    for an object outside any track.

    Potato takes ``int(frame)``; here a frame is an integer, an integral float or a
    string of one (a ``true`` or ``2.5`` is no frame: Potato's ``int`` would make them 1
    and 2, a guess Accord does not make), and a track id is any value but null and ""."""
    if not isinstance(shape, dict) or shape.get("track_id") in (None, "") \
            or "frame" not in shape:
        return None
    frame = shape["frame"]
    if isinstance(frame, bool):
        return None
    if isinstance(frame, float) and frame.is_integer():
        frame = int(frame)
    elif isinstance(frame, str):
        try:
            frame = int(frame)
        except ValueError:
            return None
    if not isinstance(frame, int):
        return None
    return TrackKey(frame, str(shape["track_id"]))
