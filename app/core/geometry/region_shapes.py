"""2D image regions (boxes, polygons, ellipses) as shapes: conversion, repair, clamping.

Every region becomes one shapely geometry in normalized image coordinates
(``agreement.md``, Kinds: regions are compared by 2D IoU, and by the GIoU distance for
the chance-corrected numbers); :mod:`app.core.geometry.region_overlap` scores them:

- a :class:`~app.core.objects.BoxRegion` is the rectangle ``[x, x + w] × [y, y + h]``;
- a :class:`~app.core.objects.PolygonRegion` is its ring of points, repaired with
  :func:`shapely.make_valid` when invalid (a self-intersecting bow-tie becomes its two
  triangles); only the polygonal part of the repair is kept, because lines and points
  have no area to overlap; the repaired pieces are snapped to :data:`REPAIR_GRID`;
- an :class:`~app.core.objects.EllipseRegion` is the 64-gon with vertices at the parameter
  angles ``2πk/64`` (``k = 0..63``, the first on the ``rx`` axis), turned by
  ``angle_deg`` (spec, Precise rules: "ellipses as 64-gons").

Choices where the spec is silent
--------------------------------
- **Negative width or height** of a box spans the same points as its positive
  counterpart (corners are sorted), rather than being an error or an empty box.
- **Rotation of ellipses**: ``angle_deg`` applies the usual rotation matrix
  ``[[cos, −sin], [sin, cos]]`` in image coordinates. With the y axis pointing down, a
  positive angle turns the ellipse clockwise on screen.
- **Polygons with fewer than three points** have no area (the zero-area rule of
  :mod:`~app.core.geometry.region_overlap`); one with no points at all has no extent
  either and is identical to nothing.
- **Non-finite coordinates** raise :class:`ValueError`: a NaN would silently poison
  every IoU it touches.
- **Clamping** (spec, Precise rules: "Boxes reaching slightly outside [0, 1] are clamped,
  and the report counts them"): every box with a corner outside ``[0, 1]`` is clamped to
  the image, whatever the amount (only the axis that reaches outside is rewritten); one
  entirely outside becomes a zero-area box. Polygons and ellipses are not clamped (the
  spec names boxes only), so an ellipse drawn at the border keeps its full shape.
- **Outlines** (:func:`region_outlines`) are the shapes as drawn, before any repair, so
  a view shows what the annotator drew.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeAlias

import numpy as np
import shapely

from app.core.objects import BoxRegion, EllipseRegion, PolygonRegion

Region: TypeAlias = BoxRegion | PolygonRegion | EllipseRegion

ELLIPSE_VERTICES = 64
"""Vertices of the polygon standing for an ellipse (spec: "ellipses as 64-gons")."""

REPAIR_GRID = 1e-12
"""Repaired polygons are snapped to this grid (far below any annotation's precision).

``make_valid`` splits a bow-tie at a computed crossing point; left unsnapped, those
points can make GEOS misclassify a piece in a later overlay (seen: the same two
repaired bow-ties gave IoU 0.026 or 0.081 depending on a translation of both by 1/64).
Snapping the repaired pieces makes the overlay robust again."""

_POLYGONAL = (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON)


def _ellipse_vertices(e: EllipseRegion) -> np.ndarray:
    """The 64 vertices (no closing point) of an ellipse, shape ``(64, 2)``."""
    t = np.arange(ELLIPSE_VERTICES, dtype=np.float64) * (2.0 * math.pi / ELLIPSE_VERTICES)
    lx = abs(e.rx) * np.cos(t)
    ly = abs(e.ry) * np.sin(t)
    theta = math.radians(e.angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    w, h = e.image_width, e.image_height
    if w and h:  # built in pixels, then back to normalized (IoU is affine-invariant)
        lx, ly = lx * w, abs(e.ry) * h * np.sin(t)
        return np.column_stack(((e.cx * w + lx * c - ly * s) / w,
                                (e.cy * h + lx * s + ly * c) / h))
    return np.column_stack((e.cx + lx * c - ly * s, e.cy + lx * s + ly * c))


def region_vertices(region: Region) -> np.ndarray:
    """The region's defining points as drawn (no closing point), shape ``(k, 2)``."""
    if isinstance(region, BoxRegion):
        x0, y0, x1, y1 = box_corners(region)
        pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    elif isinstance(region, PolygonRegion):
        pts = np.asarray(region.points, dtype=np.float64).reshape(-1, 2)
        if len(pts) > 1 and np.array_equal(pts[0], pts[-1]):
            pts = pts[:-1]
    elif isinstance(region, EllipseRegion):
        pts = _ellipse_vertices(region)
    else:
        raise TypeError(f"not a 2D region: {type(region).__name__}")
    if not np.isfinite(pts).all():
        raise ValueError(f"{type(region).__name__} with label {region.label!r} has a "
                         "non-finite coordinate")
    return pts


def box_corners(box: BoxRegion) -> tuple[float, float, float, float]:
    """``(x0, y0, x1, y1)`` with ``x0 ≤ x1``, ``y0 ≤ y1`` (negative sizes are flipped)."""
    xa, xb = box.x, box.x + box.width
    ya, yb = box.y, box.y + box.height
    return (min(xa, xb), min(ya, yb), max(xa, xb), max(ya, yb))


def _polygonal_part(geometry: shapely.Geometry) -> shapely.Geometry:
    """The polygons of a repaired geometry (lines and points dropped), maybe empty."""
    if shapely.get_type_id(geometry) in _POLYGONAL:
        return geometry
    parts = shapely.get_parts(geometry)
    polygonal = parts[np.isin(shapely.get_type_id(parts), _POLYGONAL)]
    if polygonal.size == 0:
        return shapely.Polygon()
    return shapely.union_all(polygonal)


def _repair(geometries: np.ndarray) -> np.ndarray:
    """Replace invalid polygons by the polygonal part of :func:`shapely.make_valid`,
    snapped to :data:`REPAIR_GRID`."""
    invalid = np.flatnonzero(~shapely.is_valid(geometries))
    if invalid.size:
        fixed = shapely.make_valid(geometries[invalid])
        geometries[invalid] = shapely.set_precision(
            np.array([_polygonal_part(g) for g in fixed], dtype=object), REPAIR_GRID)
    return geometries


def to_geometries(regions: Sequence[Region]) -> np.ndarray:
    """Shapely geometries of the regions, as a 1-D object array in the same order.

    Boxes become rectangles, polygons are repaired when invalid (polygonal part of
    :func:`shapely.make_valid`), ellipses become 64-gons. A polygon with fewer than three
    points becomes an empty polygon. See the module docstring for why.

    Parameters
    ----------
    regions : sequence of BoxRegion, PolygonRegion or EllipseRegion
        Normalized image coordinates.

    Returns
    -------
    numpy.ndarray
        ``dtype=object``, one valid shapely geometry per region.
    """
    out = np.empty(len(regions), dtype=object)
    ring_index: list[int] = []
    rings: list[np.ndarray] = []
    for k, region in enumerate(regions):
        pts = region_vertices(region)
        if isinstance(region, BoxRegion):
            out[k] = shapely.box(*box_corners(region))
        elif len(pts) < 3:
            out[k] = shapely.Polygon()
        else:
            ring_index.append(k)
            rings.append(pts)
    if rings:
        sizes = np.fromiter((len(p) for p in rings), dtype=np.int64, count=len(rings))
        coords = np.concatenate(rings)
        # Close each ring explicitly: shapely.polygons wants closed coordinate runs.
        closing = np.cumsum(sizes)
        coords = np.insert(coords, closing, coords[closing - sizes], axis=0)
        ring_ids = np.repeat(np.arange(len(rings)), sizes + 1)
        polygons = shapely.polygons(shapely.linearrings(coords, indices=ring_ids))
        out[np.asarray(ring_index)] = _repair(np.asarray(polygons, dtype=object))
    return out


def clamp_boxes(regions: Sequence[Region]) -> tuple[list[Region], int]:
    """Clamp boxes to the image ``[0, 1] × [0, 1]``; count how many were changed.

    Why: readers deliver boxes a hair outside the image (rounding in pixel-to-fraction
    conversion, tools that let a drag overshoot); the spec clamps them and reports the
    count so that a systematic overshoot stays visible.

    Parameters
    ----------
    regions : sequence of regions
        Any mix; polygons and ellipses pass through unchanged.

    Returns
    -------
    (list of regions, int)
        The regions in order with clamped boxes replaced, and the number of boxes that
        reached outside ``[0, 1]``.
    """
    out: list[Region] = []
    clamped = 0
    for region in regions:
        if isinstance(region, BoxRegion):
            x0, y0, x1, y1 = box_corners(region)
            if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
                raise ValueError(f"box with label {region.label!r} has a non-finite coordinate")
            if min(x0, y0) < 0.0 or max(x1, y1) > 1.0:
                # Only an axis that reaches outside is rewritten, so the other keeps
                # its values bit for bit.
                x, w = _clamp_axis(region.x, region.width, x0, x1)
                y, h = _clamp_axis(region.y, region.height, y0, y1)
                out.append(BoxRegion(region.label, x, y, w, h))
                clamped += 1
                continue
        out.append(region)
    return out, clamped


def _clamp_axis(start: float, size: float, lo: float, hi: float) -> tuple[float, float]:
    """``(start, size)`` unchanged when ``[lo, hi]`` is inside ``[0, 1]``, else clamped."""
    if lo >= 0.0 and hi <= 1.0:
        return start, size
    c0, c1 = min(max(lo, 0.0), 1.0), min(max(hi, 0.0), 1.0)
    return c0, c1 - c0


def region_outlines(regions: Sequence[Region]) -> list[np.ndarray]:
    """Closed outlines for drawing: one ``(k, 2)`` array per region, last point = first.

    The outline is the shape as drawn (a bow-tie stays a bow-tie), so a view shows what
    the annotator did; scores use the repaired shape. Boxes give 5 points, ellipses 65
    (the 64-gon used for scoring), a polygon its points plus the closing one; a polygon
    without points gives a ``(0, 2)`` array.
    """
    outlines: list[np.ndarray] = []
    for region in regions:
        pts = region_vertices(region)
        outlines.append(np.vstack((pts, pts[:1])) if len(pts) else pts.reshape(0, 2))
    return outlines
