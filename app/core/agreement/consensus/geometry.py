"""One consensus shape from a cluster of matched objects, and every shape as JSON.

The rules (a choice where the issue leaves room; each row states its ``rule``):

- **segment**: the median start and the median end of the members (``numpy.median``:
  the mean of the two middle values for an even count). The median end is never before
  the median start: the k-th smallest end is at least the k-th smallest start.
- **box** (2D, normalized): the median centre and the median width and height, so one
  stray corner moves nothing; written back as the top-left corner and the size.
- **cuboid**: the median centre and the median size (l, w, h) per axis. The rotation,
  when every member stands upright (its own z axis within ``UPRIGHT_DEG`` = 1° of +z,
  as lidar tools draw boxes, up to an annotator's jitter), is the **circular mean of
  the yaws** (``atan2(Σ sin θ, Σ cos θ)``, θ the heading of the box's x axis in the xy
  plane), and the consensus box is upright. When the yaws cancel out (a heading and its
  opposite: mean resultant length below ``1e-9`` per member) the medoid's yaw is taken
  and the rule says so. A member tilted further (KITTI's camera frame turns about +y)
  makes the rotation the quaternion mean of Markley et al. (2007), the eigenvector of
  the largest eigenvalue of ``Σ q qᵀ``, which ignores each quaternion's sign. ``yaw``
  in the JSON is the heading of the box's x axis (``null`` when that axis is vertical).
- **ellipse**: median centre and radii, the angle as the circular mean of ``2·angle``
  halved (an ellipse turned by 180° is the same ellipse).
- **landmark**: the median x and y.
- **a cluster of mixed shapes** (a box matched to a polygon): the medoid.
- **polygon, keypoints, open path, 3D point, 3D polyline, point-cloud segment**: the
  **medoid**, the member with the largest summed similarity to the others (first in
  annotator order on a tie). An average of polygons with different vertex counts is
  not a polygon anyone drew; the medoid is one that somebody did.

Image coordinates are normalized to [0, 1] (top-left origin), 3D in metres, time in
seconds, as everywhere in the model (:mod:`app.core.objects`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from app.core.objects import (
    BoxRegion,
    Cuboid,
    EllipseRegion,
    KeypointSet,
    Landmark,
    OpenPath,
    Point3D,
    PolygonRegion,
    Polyline3D,
    SceneObject,
    Segment,
    Segment3D,
)

Similarity = Callable[[Sequence[SceneObject], Sequence[SceneObject]], np.ndarray]
UPRIGHT_DEG = 1.0
"""A box whose own z axis is within this many degrees of +z stands upright."""
CANCEL = 1e-9


def medoid(members: Sequence[SceneObject], similarity: Similarity) -> int:
    """Index of the member most similar to the others (the first on a tie)."""
    if len(members) <= 2:
        return 0
    matrix = np.asarray(similarity(members, members), dtype=np.float64)
    totals = matrix.sum(axis=1) - np.diag(matrix)
    return int(np.flatnonzero(totals == totals.max())[0])


def _median(values: Sequence[float]) -> float:
    return float(np.median(np.asarray(values, dtype=np.float64)))


def _circular_mean(angles: Sequence[float]) -> float | None:
    s = float(np.sum(np.sin(angles)))
    c = float(np.sum(np.cos(angles)))
    if math.hypot(s, c) < CANCEL * len(angles):
        return None
    return math.atan2(s, c)


def yaw_of(cuboid: Cuboid) -> float | None:
    """The heading of the box's x axis in the xy plane (radians), ``None`` if vertical."""
    r = cuboid.rotation_matrix()
    if math.hypot(r[0, 0], r[1, 0]) < 1e-12:
        return None
    return math.atan2(float(r[1, 0]), float(r[0, 0]))


def upright(cuboid: Cuboid) -> bool:
    """Whether the box's own z axis is within ``UPRIGHT_DEG`` of +z."""
    cosine = float(cuboid.rotation_matrix()[2, 2])
    return cosine >= math.cos(math.radians(UPRIGHT_DEG))


def markley_mean(quaternions: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """The average rotation of unit quaternions ``(qx, qy, qz, qw)``, sign-free."""
    q = np.asarray(quaternions, dtype=np.float64)
    _, vectors = np.linalg.eigh(q.T @ q)
    mean = vectors[:, -1]
    if mean[3] < 0:
        mean = -mean
    x, y, z, w = (float(v) for v in mean)
    return (x, y, z, w)


def consensus_shape(
    members: Sequence[SceneObject], similarity: Similarity
) -> tuple[dict[str, Any], str]:
    """The consensus geometry of ``members`` (all of one type) as JSON, and its rule."""
    first = members[0]
    if any(type(m) is not type(first) for m in members):  # a box matched to a polygon
        return shape_json(members[medoid(members, similarity)]), "medoid"
    if isinstance(first, Segment):
        segs = [m for m in members if isinstance(m, Segment)]
        shape = Segment(
            _median([s.start for s in segs]),
            _median([s.end for s in segs]),
            first.label,
            first.tier,
        )
        return shape_json(shape), "median start and end"
    if isinstance(first, BoxRegion):
        boxes = [m for m in members if isinstance(m, BoxRegion)]
        w = _median([b.width for b in boxes])
        h = _median([b.height for b in boxes])
        cx = _median([b.x + b.width / 2.0 for b in boxes])
        cy = _median([b.y + b.height / 2.0 for b in boxes])
        return shape_json(
            BoxRegion(first.label, cx - w / 2.0, cy - h / 2.0, w, h)
        ), "median centre and size"
    if isinstance(first, Cuboid):
        return _cuboid(members, similarity)
    if isinstance(first, EllipseRegion):
        ells = [m for m in members if isinstance(m, EllipseRegion)]
        doubled = _circular_mean([math.radians(2.0 * e.angle_deg) for e in ells])
        angle = (
            ells[medoid(ells, similarity)].angle_deg
            if doubled is None
            else math.degrees(doubled) / 2.0
        )
        ellipse = EllipseRegion(
            first.label,
            _median([e.cx for e in ells]),
            _median([e.cy for e in ells]),
            _median([e.rx for e in ells]),
            _median([e.ry for e in ells]),
            angle,
        )
        return shape_json(ellipse), "median centre and radii, circular mean of the angle"
    if isinstance(first, Landmark):
        marks = [m for m in members if isinstance(m, Landmark)]
        return shape_json(
            Landmark(first.label, _median([p.x for p in marks]), _median([p.y for p in marks]))
        ), "median position"
    return shape_json(members[medoid(members, similarity)]), "medoid"


def _cuboid(members: Sequence[SceneObject], similarity: Similarity) -> tuple[dict[str, Any], str]:
    boxes = [m for m in members if isinstance(m, Cuboid)]
    center = tuple(_median([b.center[k] for b in boxes]) for k in range(3))
    size = tuple(_median([b.size[k] for b in boxes]) for k in range(3))
    yaws = [yaw_of(b) for b in boxes]
    rule = "median centre and size, circular mean of the yaw (upright)"
    if all(upright(b) for b in boxes):
        mean = _circular_mean([y for y in yaws if y is not None])
        if mean is None:
            mean = yaws[medoid(boxes, similarity)]
            rule = "median centre and size; the yaws cancel out, so the medoid's yaw"
        assert mean is not None
        rotation = (0.0, 0.0, math.sin(mean / 2.0), math.cos(mean / 2.0))
    else:
        rotation = markley_mean([b.rotation for b in boxes])
        rule = "median centre and size, quaternion mean (Markley) of the rotation"
    shape = Cuboid(
        boxes[0].label, (center[0], center[1], center[2]), (size[0], size[1], size[2]), rotation
    )
    return shape_json(shape), rule


def shape_json(obj: SceneObject) -> dict[str, Any]:
    """An object's geometry as plain JSON (its label is given beside it, not here)."""
    if isinstance(obj, Segment):
        out: dict[str, Any] = {"type": "segment", "start": obj.start, "end": obj.end}
        if obj.tier is not None:
            out["tier"] = obj.tier
        return out
    if isinstance(obj, BoxRegion):
        return {"type": "box", "x": obj.x, "y": obj.y, "width": obj.width, "height": obj.height}
    if isinstance(obj, Cuboid):
        yaw = yaw_of(obj)
        return {
            "type": "cuboid",
            "center": list(obj.center),
            "size": list(obj.size),
            "rotation": list(obj.rotation),
            "yaw": yaw,
        }
    if isinstance(obj, EllipseRegion):
        return {
            "type": "ellipse",
            "cx": obj.cx,
            "cy": obj.cy,
            "rx": obj.rx,
            "ry": obj.ry,
            "angle_deg": obj.angle_deg,
        }
    if isinstance(obj, Landmark):
        return {"type": "landmark", "x": obj.x, "y": obj.y}
    if isinstance(obj, PolygonRegion):
        return {"type": "polygon", "points": [list(p) for p in obj.points]}
    if isinstance(obj, KeypointSet):
        return {"type": "keypoints", "points": [list(p) for p in obj.points]}
    if isinstance(obj, OpenPath):
        return {"type": "path", "path_kind": obj.kind, "points": [list(p) for p in obj.points]}
    if isinstance(obj, Point3D):
        return {"type": "point3d", "position": list(obj.position)}
    if isinstance(obj, Polyline3D):
        return {"type": "polyline3d", "points": [list(p) for p in obj.points]}
    if isinstance(obj, Segment3D):
        return {"type": "segment3d", "point_indices": list(obj.point_indices)}
    raise ValueError(f"no consensus shape for {type(obj).__name__}")
