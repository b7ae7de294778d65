"""3D points in a cuboid scheme are compared by distance in metres, and the report says so.

A ``spatial_annotation`` answer may hold 3D points (``point_3d``), 3D polylines and
point-cloud segments beside its cuboids. None of them has a volume, so none has an IoU:
they are scored with Potato 2.12.1's own ``spatial_similarity`` (:mod:`app.core.geometry.
point_objects`): a point pair by ``1 − d / 2 m`` (0 from 2 m apart), a polyline pair by
boundary F1 within 0.5 m, a segment pair by the Jaccard of their point indices. Those
similarities enter the set figures (mean agreement, F1, and the "matched IoU", which for a
pair of points is that similarity, not an overlap). A lead who reads "IoU 0.80" of two
points is misled, so this module adds a note in words: how points are compared, what the
threshold means in metres, and the matched points' distances themselves
(``extra["point_3d"]``: ``null`` with a sentence when no pair of points matched).

Choices where the spec is silent: the distances reported are those of the matched pairs
only (an unmatched point has no partner to measure from); the note appears only on
schemes that hold such objects, so the demos' reports are unchanged.
"""

from __future__ import annotations

import math

from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import SetAgreement
from app.core.geometry.point_objects import POINT_3D_FALLOFF
from app.core.objects import Point3D, Polyline3D, Segment3D


def matched_point_distances(agreement: SetAgreement) -> list[float]:
    """The distance in metres between the two points of every matched pair of 3D points."""
    out: list[float] = []
    for o in agreement.outcomes:
        objects = agreement.objects.get(o.item, {})
        mine, theirs = objects.get(o.a, ()), objects.get(o.b, ())
        for r, c in zip(o.rows.tolist(), o.cols.tolist(), strict=True):
            a, b = mine[r], theirs[c]
            if isinstance(a, Point3D) and isinstance(b, Point3D):
                out.append(math.dist(a.position, b.position))
    return out


def metres(d: float) -> str:
    """``0.4 m``: to the centimetre, without trailing zeros."""
    text = f"{d:.2f}".rstrip("0").rstrip(".")
    return f"{text or '0'} m"


def add_point_notes(result: SchemeResult, agreement: SetAgreement, threshold: float) -> None:
    """The note (and ``extra["point_3d"]``) of a cuboid scheme holding points, polylines
    or point-cloud segments; nothing otherwise."""
    counts: dict[type, int] = {kind: 0 for kind in (Point3D, Polyline3D, Segment3D)}
    for by in agreement.objects.values():
        for objects in by.values():
            for obj in objects:
                if type(obj) in counts:
                    counts[type(obj)] += 1
    n_points = counts[Point3D]
    if n_points:
        distances = matched_point_distances(agreement)
        within = POINT_3D_FALLOFF * (1.0 - threshold)
        said = (
            f"The {n_points} 3D points (point_3d) are compared by the distance between them "
            f"in metres, not by an IoU: similarity 1 − distance / 2 m (Potato 2.12.1's), so "
            f"at the threshold {threshold:g} two points match when at most {metres(within)} "
            "apart. "
        )
        if distances:
            mean = sum(distances) / len(distances)
            said += (
                f"{len(distances)} pairs of points matched, {metres(mean)} apart on average "
                f"(the farthest {metres(max(distances))}); the matched IoU above counts each "
                "such pair by that similarity."
            )
            result.extra["point_3d"] = {
                "n_points": n_points,
                "n_matched_pairs": len(distances),
                "mean_matched_distance_m": mean,
                "max_matched_distance_m": max(distances),
            }
        else:
            said += "No pair of points matched, so there is no distance to report."
            result.extra["point_3d"] = {
                "n_points": n_points,
                "n_matched_pairs": 0,
                "mean_matched_distance_m": None,
                "max_matched_distance_m": None,
            }
        result.notes.append(said)
    others = []
    if counts[Polyline3D]:
        others.append((f"{counts[Polyline3D]} 3D polylines",
                       "a pair of polylines by the share of their points within 0.5 m of "
                       "the other line (boundary F1)"))
    if counts[Segment3D]:
        others.append((f"{counts[Segment3D]} point-cloud segments",
                       "a pair of segments by the share of lidar points they have in "
                       "common (Jaccard)"))
    if others:
        result.notes.append(
            f"The {' and '.join(n for n, _ in others)} have no volume either, so they are "
            "compared by Potato 2.12.1's similarity, not an IoU: "
            + "; ".join(how for _, how in others) + ".")
