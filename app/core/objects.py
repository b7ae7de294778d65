"""The annotation objects with geometry, and the unit conversions into them.

Units are fixed here, once: **metres** for 3D, **seconds** for time, and image
coordinates **normalized to [0, 1] with the origin top-left** (pixel sizes kept where a
format knows them, as for masks). A reader converts its format's convention into these
units in exactly one place (the ``from_*`` constructors below), so a later computation
never asks which unit a number is in. :class:`ObjectSet` is one annotator's objects on
one item, the answer of every set kind (:mod:`app.core.model` holds the rest of the
model: kinds, items, schemes, the study).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from app.core.tracks import TrackKey, VideoTrack

# --------------------------------------------------------------------------- objects


@dataclass(frozen=True, slots=True)
class Span:
    """A text span: character offsets into the item text, ``end`` exclusive."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class BoxRegion:
    """An axis-aligned image box, normalized: (x, y) is the top-left corner."""

    label: str
    x: float
    y: float
    width: float
    height: float

    @classmethod
    def from_pixels(
        cls, label: str, x: float, y: float, width: float, height: float,
        image_width: float, image_height: float,
    ) -> BoxRegion:
        """From pixel units (COCO's ``[x, y, w, h]``, CVAT's corners after subtraction)."""
        return cls(label, x / image_width, y / image_height, width / image_width,
                   height / image_height)

    @classmethod
    def from_percent(cls, label: str, x: float, y: float, width: float,
                     height: float) -> BoxRegion:
        """From percent of the image (Label Studio's convention)."""
        return cls(label, x / 100.0, y / 100.0, width / 100.0, height / 100.0)

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x_min, y_min, x_max, y_max)``."""
        return (self.x, self.y, self.x + self.width, self.y + self.height)


@dataclass(frozen=True, slots=True)
class PolygonRegion:
    """A polygon in normalized image coordinates, as ``((x, y), ...)``."""

    label: str
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True, slots=True)
class EllipseRegion:
    """An ellipse in normalized coordinates; ``angle_deg`` rotates it (degrees)."""

    label: str
    cx: float
    cy: float
    rx: float
    ry: float
    angle_deg: float = 0.0
    image_width: float | None = None
    """The image's size in pixels when known: Potato normalizes ``cx, rx`` by the width
    and ``cy, ry`` by the height, so the ellipse is built in pixels
    ``(cx·W, cy·H, rx·W, ry·H, angle)`` and only then compared (``agreement.md``)."""
    image_height: float | None = None


@dataclass(frozen=True, slots=True)
class Landmark:
    """One marked point on an image, normalized."""

    label: str
    x: float
    y: float


@dataclass(frozen=True, slots=True)
class KeypointSet:
    """An ordered set of keypoints ``(x, y, visibility)``, normalized; 0 = not marked."""

    label: str
    points: tuple[tuple[float, float, float], ...]


@dataclass(frozen=True, slots=True)
class OpenPath:
    """A polyline or freeform stroke (no interior), normalized points.

    A freeform stroke is stored by Potato as a fabric path in pixels around a normalized
    anchor; ``anchor`` and ``offsets`` keep that form so that, with the image size known,
    the points are ``anchor + offset / (W, H)``. Without it the points are Potato's own
    reading (the offsets added unscaled, as its ``/admin/iaa`` does).
    """

    label: str
    points: tuple[tuple[float, float], ...]
    kind: str = "polyline"
    anchor: tuple[float, float] | None = None
    offsets: tuple[tuple[float, float], ...] = ()
    image_width: float | None = None
    image_height: float | None = None


@dataclass(frozen=True, slots=True)
class Mask:
    """A binary pixel mask as a run-length encoding, **row-major** (Potato's order).

    ``counts`` alternate background and foreground runs and start with background (a
    mask whose first pixel is set starts with a run of 0). COCO's RLE walks the image
    column by column: :meth:`from_column_major` converts it, here and nowhere else.
    """

    label: str
    height: int
    width: int
    counts: tuple[int, ...]

    def to_array(self) -> np.ndarray:
        """Decode to a ``(height, width)`` boolean array."""
        runs = np.asarray(self.counts, dtype=np.int64)
        values = np.zeros(runs.size, dtype=bool)
        values[1::2] = True
        flat = np.repeat(values, runs)
        return flat.reshape(self.height, self.width)

    @classmethod
    def from_array(cls, label: str, array: np.ndarray) -> Mask:
        """Encode a 2D boolean array row-major."""
        flat = np.asarray(array, dtype=bool).ravel(order="C")
        return cls(label, int(array.shape[0]), int(array.shape[1]), _runs(flat))

    @classmethod
    def from_column_major(cls, label: str, height: int, width: int,
                          counts: Sequence[int]) -> Mask:
        """Convert a COCO (column-major, Fortran order) RLE into this row-major one."""
        runs = np.asarray(counts, dtype=np.int64)
        values = np.zeros(runs.size, dtype=bool)
        values[1::2] = True
        flat = np.repeat(values, runs)
        if flat.size != height * width:
            raise ValueError(f"RLE runs sum to {flat.size}, expected {height}×{width}")
        array = flat.reshape((height, width), order="F")
        return cls.from_array(label, array)


def _runs(flat: np.ndarray) -> tuple[int, ...]:
    """Run lengths of a flat boolean array, starting with a (possibly empty) 0-run."""
    if flat.size == 0:
        return ()
    change = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    bounds = np.concatenate(([0], change, [flat.size]))
    lengths = np.diff(bounds).tolist()
    if flat[0]:
        lengths.insert(0, 0)
    return tuple(int(n) for n in lengths)


@dataclass(frozen=True, slots=True)
class Cuboid:
    """An oriented 3D box in metres, in the sensor frame.

    ``size`` is ``(l, w, h)`` along the box's own x, y, z axes; ``rotation`` is a unit
    quaternion ``(qx, qy, qz, qw)`` (normalized on construction by the readers, see
    :func:`normalized_quaternion`). Yaw θ about +z is ``(0, 0, sin θ/2, cos θ/2)``.
    """

    label: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    rotation: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def rotation_matrix(self) -> np.ndarray:
        """The 3×3 matrix whose columns are the box axes in the sensor frame."""
        return quaternion_to_matrix(self.rotation)

    def corners(self) -> np.ndarray:
        """The 8 corners, shape ``(8, 3)``; corner ``i`` has signs from bits of ``i``."""
        signs = np.array([[(i >> 0) & 1, (i >> 1) & 1, (i >> 2) & 1] for i in range(8)],
                         dtype=float) * 2.0 - 1.0
        half = np.asarray(self.size, dtype=float) / 2.0
        local: np.ndarray = signs * half
        corners: np.ndarray = local @ self.rotation_matrix().T + np.asarray(self.center,
                                                                           dtype=float)
        return corners

    @property
    def volume(self) -> float:
        return float(self.size[0] * self.size[1] * self.size[2])

    @classmethod
    def from_yaw(cls, label: str, center: Sequence[float], size: Sequence[float],
                 yaw: float) -> Cuboid:
        """A box turned by ``yaw`` radians about +z."""
        half = yaw / 2.0
        return cls(label, _vec3(center), _vec3(size),
                   (0.0, 0.0, math.sin(half), math.cos(half)))

    @classmethod
    def from_kitti(cls, label: str, h: float, w: float, l: float,  # noqa: E741
                   x: float, y: float, z: float, rotation_y: float) -> Cuboid:
        """From a KITTI label in camera coordinates (+x right, +y down, +z forward).

        KITTI gives the *bottom-face* centre and ``rotation_y`` about the camera's +y
        axis. The box stays in the camera frame (metres); only the centre moves up by
        h/2 (to −y) and the rotation becomes a quaternion about +y. The box's own axes
        are (length along x, height along y, width along z) before rotation, so size is
        ``(l, h, w)`` in this model's (x, y, z) order.
        """
        half = rotation_y / 2.0
        return cls(label, (x, y - h / 2.0, z), (l, h, w),
                   (0.0, math.sin(half), 0.0, math.cos(half)))

    @classmethod
    def from_nuscenes(cls, label: str, translation: Sequence[float],
                      size_wlh: Sequence[float], rotation_wxyz: Sequence[float]) -> Cuboid:
        """From nuScenes: size is ``(w, l, h)`` and the quaternion is ``(w, x, y, z)``."""
        w, l, h = (float(v) for v in size_wlh)  # noqa: E741
        qw, qx, qy, qz = (float(v) for v in rotation_wxyz)
        return cls(label, _vec3(translation), (l, w, h),
                   normalized_quaternion((qx, qy, qz, qw)))


_NEW = object.__new__
_SET_LABEL, _SET_CENTER, _SET_SIZE, _SET_ROTATION = (
    vars(Cuboid)[name].__set__ for name in ("label", "center", "size", "rotation"))


def _new_cuboid(label: str, center: tuple[float, float, float], size: tuple[float, float, float],
                rotation: tuple[float, float, float, float]) -> Cuboid:
    cuboid: Cuboid = _NEW(Cuboid)
    _SET_LABEL(cuboid, label)
    _SET_CENTER(cuboid, center)
    _SET_SIZE(cuboid, size)
    _SET_ROTATION(cuboid, rotation)
    return cuboid


def make_cuboids(labels: Iterable[str], centers: Iterable[tuple[float, float, float]],
                 sizes: Iterable[tuple[float, float, float]],
                 rotations: Iterable[tuple[float, float, float, float]]) -> tuple[Cuboid, ...]:
    """``Cuboid(label, center, size, rotation)`` of each, the same objects, built through
    the slots: the frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__`` (1.5 µs a box, three times this; a lidar study reads 240,000)."""
    return tuple(map(_new_cuboid, labels, centers, sizes, rotations))


@dataclass(frozen=True, slots=True)
class Point3D:
    label: str
    position: tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Polyline3D:
    label: str
    points: tuple[tuple[float, float, float], ...]


@dataclass(frozen=True, slots=True)
class Segment3D:
    """A point-cloud segment: indices into the item's point cloud."""

    label: str
    point_indices: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Segment:
    """A time segment in **seconds**; ``tier`` is set for tiered annotations."""

    start: float
    end: float
    label: str
    tier: str | None = None
    id: str | None = None
    parent_id: str | None = None

    @property
    def duration(self) -> float:
        return self.end - self.start

    @classmethod
    def from_milliseconds(cls, start_ms: float, end_ms: float, label: str,
                          tier: str | None = None, id: str | None = None,
                          parent_id: str | None = None) -> Segment:
        """Potato's tiered annotations and ELAN store milliseconds."""
        return cls(start_ms / 1000.0, end_ms / 1000.0, label, tier, id, parent_id)

    @classmethod
    def from_frames(cls, start_frame: int, end_frame: int, fps: float, label: str) -> Segment:
        """Video frame indices at ``fps`` frames per second."""
        return cls(start_frame / fps, end_frame / fps, label)


SceneObject: TypeAlias = (
    Span | BoxRegion | PolygonRegion | EllipseRegion | Mask | Cuboid | Point3D | Polyline3D
    | Segment3D | Segment | Landmark | KeypointSet | OpenPath
)


@dataclass(frozen=True, slots=True)
class ObjectSet:
    """One annotator's set of objects on one item (possibly empty: an empty answer)."""

    objects: tuple[SceneObject, ...] = ()
    boxes: np.ndarray | None = field(default=None, compare=False, repr=False)
    """When every object is a :class:`Cuboid`: their numbers as rows ``(n, 10)``
    ``[centre, size, rotation]``, exactly their values, kept by the reader that built
    them from numpy (a lidar study's agreement packed 240,000 cuboids again, a third of a
    second); :func:`unit_quaternion_rows` of them is what
    :func:`~app.core.geometry.cuboid_boxes.boxes_array` gives. ``None`` otherwise. Not
    part of equality: it is the objects."""
    keys: tuple[TrackKey | None, ...] | None = None
    """A point-cloud sequence (objects with ``frame`` and ``track_id``): each object's
    frame and track, ``None`` for one outside any track; ``None`` for one cloud."""
    tracks: tuple[VideoTrack, ...] | None = None
    """A video answer's tracks (tracking mode), ``None`` when it holds none."""

    def __len__(self) -> int:
        return len(self.objects)

    def of_type(self, *types: type) -> tuple[SceneObject, ...]:
        return tuple(o for o in self.objects if isinstance(o, types))


# --------------------------------------------------------------------------- helpers


def _vec3(values: Sequence[float]) -> tuple[float, float, float]:
    x, y, z = (float(v) for v in values)
    return (x, y, z)


def normalized_quaternion(q: Sequence[float]) -> tuple[float, float, float, float]:
    """Scale ``(qx, qy, qz, qw)`` to unit length; a zero or non-finite one is an error."""
    qx, qy, qz, qw = (float(v) for v in q)
    norm = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
    if not math.isfinite(norm) or norm < 1e-12:
        raise ValueError(f"rotation quaternion {list(q)} has no direction (zero or not finite)")
    return (qx / norm, qy / norm, qz / norm, qw / norm)


def unit_quaternion_rows(rows: np.ndarray) -> np.ndarray:
    """Scale the quaternions of box rows ``[.., qx, qy, qz, qw]`` (the last four columns)
    to unit length in place, with :func:`normalized_quaternion`'s arithmetic term for
    term (so the same bits); returns which rows have none (zero or not finite), left
    for the caller to name."""
    q = rows[:, -4:]
    norm = np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])
    bad: np.ndarray = ~np.isfinite(norm) | (norm < 1e-12)
    if not bad.any():
        q /= norm[:, None]
    return bad


def quaternion_to_matrix(q: Sequence[float]) -> np.ndarray:
    """Rotation matrix of a unit quaternion ``(qx, qy, qz, qw)``."""
    x, y, z, w = (float(v) for v in q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
