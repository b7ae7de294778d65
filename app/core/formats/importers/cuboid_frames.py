"""3D helpers shared by the KITTI and nuScenes importers: rigid frame changes,
quaternions, the Potato cuboid they produce, one sensor frame per item across
annotators, and the item's point cloud.

Conventions (Potato's, ``formats.md``): a cuboid's ``size`` is ``[l, w, h]`` along its
own x, y, z axes; ``rotation`` is the unit quaternion ``[qx, qy, qz, qw]`` whose matrix
has those axes as its columns, expressed in the frame of ``center`` (metres).

A :class:`Rigid` maps points of one frame into another, ``p' = R p + t``; its inverse is
the exact matrix inverse (never ``Rᵀ`` of a rotation that is only nearly orthonormal),
so a box written with the forward transform comes back to the last bit the float
arithmetic allows.

**Point clouds.** An item's lidar sweep goes into the project under the record key
:data:`CLOUD_KEY` (``point_cloud``, the scheme's ``source_field``: Potato's default key
for the cloud a ``spatial_annotation`` annotates) as a KITTI velodyne ``.bin``: float32
``x, y, z, reflectance`` per point, little-endian, no header. That is the one headerless
layout both Potato 2.12.1 (``potato/media/pointcloud.py``) and Accord's cloud reader take
by its suffix alone. A KITTI scan is copied as it is; a nuScenes ``.pcd.bin`` (float32 ×
5: ``x, y, z, intensity, ring``) is rewritten without its ring column
(:func:`nuscenes_to_kitti_bin`), since read as KITTI's four columns it would be garbage
that looks like a cloud. A cloud is attached only to an item whose boxes are in that
cloud's frame (the lidar's); the importer's notes count the others.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.formats.reading.boundary import ANYWHERE
from app.core.formats.reading.media_file import media_file
from app.core.objects import normalized_quaternion, quaternion_to_matrix

RIGID_TOLERANCE = 1e-3
"""How far a calibration's rotation block may be from orthonormal (calibration files
print about six digits; a matrix further off carries a scale or a shear)."""
SAME_FRAME_TOLERANCE = 1e-9
"""Two sources' transforms for one item are the same frame when every entry of their
4×4 matrices is this close."""
CLOUD_KEY = "point_cloud"
"""Record key of an item's cloud; every imported 3D scheme's ``source_field``."""
KITTI_POINT_BYTES = 16
"""float32 × 4 (x, y, z, reflectance)."""
NUSCENES_POINT_BYTES = 20
"""float32 × 5 (x, y, z, intensity, ring)."""
PALETTE = ("#FF6B6B", "#4ECDC4", "#FFEAA7", "#45B7D1", "#96CEB4", "#DDA0DD", "#F4A261",
           "#8AC926", "#B5838D", "#6C757D")
"""Label colours for the scheme and its boxes, in the order the labels are listed."""


@dataclass(frozen=True)
class Rigid:
    """``p' = rotation @ p + translation`` (a 3×3 and a 3-vector)."""

    rotation: np.ndarray
    translation: np.ndarray

    @staticmethod
    def identity() -> Rigid:
        return Rigid(np.eye(3), np.zeros(3))

    @staticmethod
    def from_matrix(m: np.ndarray) -> Rigid:
        """From a 3×4 or 4×4 ``[R | t]``."""
        return Rigid(np.array(m[:3, :3], dtype=np.float64), np.array(m[:3, 3], dtype=np.float64))

    @staticmethod
    def from_pose(rotation_wxyz: Sequence[float], translation: Sequence[float]) -> Rigid:
        """A pose stored as a scalar-first quaternion and a translation (nuScenes)."""
        return Rigid(quaternion_to_matrix(xyzw(rotation_wxyz)), np.array(translation, float))

    def matrix(self) -> np.ndarray:
        m = np.eye(4)
        m[:3, :3] = self.rotation
        m[:3, 3] = self.translation
        return m

    def inverse(self) -> Rigid:
        return Rigid.from_matrix(np.linalg.inv(self.matrix()))

    def then(self, other: Rigid) -> Rigid:
        """First this transform, then ``other``."""
        return Rigid(other.rotation @ self.rotation,
                     other.rotation @ self.translation + other.translation)

    def point(self, p: Sequence[float]) -> np.ndarray:
        return np.asarray(self.rotation @ np.asarray(p, float) + self.translation)

    def direction(self, v: Sequence[float]) -> np.ndarray:
        return np.asarray(self.rotation @ np.asarray(v, float))

    def same_as(self, other: Rigid) -> bool:
        return bool(np.allclose(self.matrix(), other.matrix(), rtol=0.0,
                                atol=SAME_FRAME_TOLERANCE))


def is_rigid(rotation: np.ndarray) -> bool:
    """Orthonormal with determinant +1, to :data:`RIGID_TOLERANCE`."""
    return bool(np.allclose(rotation.T @ rotation, np.eye(3), atol=RIGID_TOLERANCE)
                and abs(np.linalg.det(rotation) - 1.0) < RIGID_TOLERANCE)


def xyzw(wxyz: Sequence[float]) -> tuple[float, float, float, float]:
    """A scalar-first quaternion ``[w, x, y, z]`` as Potato's ``[qx, qy, qz, qw]``,
    normalized (a zero quaternion raises ``ValueError``)."""
    w, x, y, z = (float(v) for v in wxyz)
    return normalized_quaternion((x, y, z, w))


def quaternion_from_matrix(m: np.ndarray) -> tuple[float, float, float, float]:
    """The unit ``(qx, qy, qz, qw)`` of a rotation matrix (Shepperd's largest-pivot
    branch, exact near 180° too), with ``qw >= 0``."""
    m = np.asarray(m, float)
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0.0:
        s = math.sqrt(trace + 1.0) * 2.0
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2.0
        q = (s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2.0
        q = ((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2.0
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
    unit = normalized_quaternion(q)
    return unit if unit[3] >= 0 else (-unit[0], -unit[1], -unit[2], -unit[3])


def yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    """A turn of ``yaw`` radians about z: ``(0, 0, sin θ/2, cos θ/2)`` (``formats.md``)."""
    half = yaw / 2.0
    q = (0.0, 0.0, math.sin(half), math.cos(half))
    return q if q[3] >= 0 else (0.0, 0.0, -q[2], -q[3])


def label_colors(labels: Sequence[str]) -> dict[str, str]:
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(labels)}


def scheme_config(labels: Sequence[str], description: str) -> dict[str, Any]:
    """A ``spatial_annotation`` scheme's keys, in the demo's shape (``lidar_sweeps``):
    its cloud under :data:`CLOUD_KEY`."""
    colors = label_colors(labels)
    return {"description": description, "source_field": CLOUD_KEY, "tools": ["cuboid_3d"],
            "labels": [{"name": n, "color": colors[n]} for n in labels]}


def checked_cloud(path: Path, point_bytes: int, what: str) -> Path:
    """``path``, a regular file whose size is a whole number of ``point_bytes`` points
    (the only check a headerless scan allows); else an error naming it."""
    real = media_file(path, root=ANYWHERE)
    size = real.stat().st_size
    if size % point_bytes:
        raise InputError(f"is {size} bytes, not a multiple of {point_bytes}; expected {what}",
                         file=path)
    return path


def nuscenes_to_kitti_bin(source: Path) -> Callable[[Path], None]:
    """A writer of ``source`` (a nuScenes ``.pcd.bin``, checked with
    :func:`checked_cloud`) as a KITTI ``.bin``: its first four columns, unchanged."""
    def write(target: Path) -> None:
        try:  # read again when the project is written: it may have changed since
            points = np.fromfile(checked_cloud(source, NUSCENES_POINT_BYTES, "a nuScenes "
                                               "lidar scan"), dtype="<f4").reshape(-1, 5)
        except OSError as exc:
            raise InputError(f"cannot be read ({exc.strerror or exc}); expected a nuScenes "
                             "lidar scan", file=source) from None
        np.ascontiguousarray(points[:, :4]).tofile(target)
    return write


def cuboid(label: str, center: Sequence[float], size_lwh: Sequence[float],
           rotation_xyzw: Sequence[float], color: str) -> dict[str, Any]:
    """One box in the client shape Potato's point-cloud viewer writes."""
    return {"type": "cuboid_3d", "label": label, "color": color,
            "coordinates": {"center": [float(v) for v in center],
                            "size": [float(v) for v in size_lwh],
                            "rotation": [float(v) for v in rotation_xyzw]}}


def colored(shapes: list[dict[str, Any]], colors: dict[str, str]) -> list[dict[str, Any]]:
    """``shapes`` with each box's colour set from its label."""
    return [{**s, "color": colors.get(str(s.get("label")), "")} for s in shapes]


class ItemFrames:
    """One transform per item into the frame the boxes are written in, agreed by every
    source that carries one (a sensor calibration is the rig's, not an annotator's: a
    source without it uses another's; two that differ are an error)."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._frames: dict[str, tuple[Rigid, Path]] = {}

    def offer(self, item: str, frame: Rigid, file: Path, key: str | None = None) -> None:
        known = self._frames.get(item)
        if known is None:
            self._frames[item] = (frame, file)
        elif not known[0].same_as(frame):
            raise InputError(f"the {self.what} of item '{item}' differs from the one in "
                             f"{known[1]}; expected every source to hold the same {self.what} "
                             "for an item", file=file, key=key)

    def get(self, item: str) -> Rigid | None:
        known = self._frames.get(item)
        return known[0] if known else None

    def __contains__(self, item: str) -> bool:
        return item in self._frames
