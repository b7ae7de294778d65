"""Similarity of objects without an area: landmarks, keypoint sets, open paths, 3D points,
3D polylines and point-cloud segments.

``agreement.md`` gives these Potato 2.12.1's own similarity (``geometry.similarity`` and
``spatial_similarity``), written here from that description:

- landmark: ``1 − d / 0.05`` in normalized coordinates (0 beyond 5% of the image);
- keypoint set: COCO's OKS, per point ``exp(−d² / (2·area·(2σ)²))`` with COCO's 17
  per-joint σ (the last σ beyond 17 points), averaged over points both annotators
  marked (visibility > 0); ``area`` is the mean of the two sets' marked-point bounding
  box areas (zero: similarity 0);
- open paths (polylines, freeform strokes): boundary F1, the harmonic mean of the share
  of A's points within ``tolerance`` of B's nearest point and the converse; tolerance 5
  (pixels when the image size is known, otherwise Potato's normalized reading); a
  polyline and a freeform stroke are different types and never match (Potato's
  ``similarity`` compares objects of one type only);
- 3D point: ``1 − d / 2 m``; 3D polyline: boundary F1 in 3D at 0.5 m; point-cloud
  segment: Jaccard of the point indices.

Objects of different types have similarity 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.core.objects import KeypointSet, Landmark, OpenPath, Point3D, Polyline3D, Segment3D

LANDMARK_FALLOFF = 0.05
PATH_TOLERANCE = 5.0
POINT_3D_FALLOFF = 2.0
POLYLINE_3D_TOLERANCE = 0.5
COCO_SIGMAS = (0.026, 0.025, 0.025, 0.035, 0.035, 0.079, 0.079, 0.072, 0.072, 0.062, 0.062,
               0.107, 0.107, 0.087, 0.087, 0.089, 0.089)

PointObject = Landmark | KeypointSet | OpenPath | Point3D | Polyline3D | Segment3D
POINT_TYPES = (Landmark, KeypointSet, OpenPath, Point3D, Polyline3D, Segment3D)


def boundary_f1(a: np.ndarray, b: np.ndarray, tolerance: float) -> float:
    """Symmetric F1 of two point sequences (rows are points) within ``tolerance``."""
    if len(a) == 0 or len(b) == 0:
        return 0.0
    d = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    precision = float((d.min(axis=1) <= tolerance).mean())
    recall = float((d.min(axis=0) <= tolerance).mean())
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _marked_area(k: KeypointSet) -> float:
    marked = [(x, y) for x, y, v in k.points if v]
    if not marked:
        return 0.0
    xs, ys = [p[0] for p in marked], [p[1] for p in marked]
    return (max(xs) - min(xs)) * (max(ys) - min(ys))


def oks(a: KeypointSet, b: KeypointSet) -> float:
    present = [x for x in (_marked_area(a), _marked_area(b)) if x > 0]
    area = sum(present) / len(present) if present else 0.0
    if not a.points or not b.points or area <= 0:
        return 0.0
    scores = []
    for i, (pa, pb) in enumerate(zip(a.points, b.points, strict=False)):
        if pa[2] <= 0 or pb[2] <= 0:
            continue
        sigma = COCO_SIGMAS[min(i, len(COCO_SIGMAS) - 1)]
        d2 = (pa[0] - pb[0]) ** 2 + (pa[1] - pb[1]) ** 2
        scores.append(math.exp(-d2 / (2 * area * (2 * sigma) ** 2)))
    return sum(scores) / len(scores) if scores else 0.0


def path_points(p: OpenPath) -> tuple[np.ndarray, float]:
    """The path's points in the unit the tolerance applies to, and that tolerance."""
    w, h = p.image_width, p.image_height
    if w and h:
        if p.anchor is not None:
            pts = [(p.anchor[0] * w + dx, p.anchor[1] * h + dy) for dx, dy in p.offsets]
        else:
            pts = [(x * w, y * h) for x, y in p.points]
        return np.asarray(pts, dtype=np.float64).reshape(-1, 2), PATH_TOLERANCE
    return np.asarray(p.points, dtype=np.float64).reshape(-1, 2), PATH_TOLERANCE


def similarity(a: PointObject, b: PointObject) -> float:
    if type(a) is not type(b):
        return 0.0
    if isinstance(a, Landmark) and isinstance(b, Landmark):
        d = math.hypot(a.x - b.x, a.y - b.y)
        if max(abs(a.x), abs(a.y), abs(b.x), abs(b.y)) <= 1.0:
            return max(0.0, 1.0 - d / LANDMARK_FALLOFF)
        return max(0.0, 1.0 - d / 10.0)
    if isinstance(a, KeypointSet) and isinstance(b, KeypointSet):
        return oks(a, b)
    if isinstance(a, OpenPath) and isinstance(b, OpenPath):
        if a.kind != b.kind:
            return 0.0
        pa, tol = path_points(a)
        pb, _ = path_points(b)
        return boundary_f1(pa, pb, tol)
    if isinstance(a, Point3D) and isinstance(b, Point3D):
        return max(0.0, 1.0 - math.dist(a.position, b.position) / POINT_3D_FALLOFF)
    if isinstance(a, Polyline3D) and isinstance(b, Polyline3D):
        return boundary_f1(np.asarray(a.points, dtype=np.float64).reshape(-1, 3),
                           np.asarray(b.points, dtype=np.float64).reshape(-1, 3),
                           POLYLINE_3D_TOLERANCE)
    if isinstance(a, Segment3D) and isinstance(b, Segment3D):
        sa, sb = set(a.point_indices), set(b.point_indices)
        if not sa or not sb:
            return 0.0
        return len(sa & sb) / len(sa | sb)
    return 0.0


def similarity_matrix(a: Sequence[PointObject], b: Sequence[PointObject]) -> np.ndarray:
    out = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i, j] = similarity(x, y)
    return out
