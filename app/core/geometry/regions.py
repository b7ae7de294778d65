"""2D image regions (boxes, polygons, ellipses): IoU, GIoU and outlines, vectorized.

Method
------
Every region becomes one shapely geometry in normalized image coordinates
(``agreement.md``, Kinds: regions are compared by 2D IoU, and by the GIoU distance for the
chance-corrected numbers):

- a :class:`~app.core.model.BoxRegion` is the rectangle ``[x, x + w] × [y, y + h]``;
- a :class:`~app.core.model.PolygonRegion` is its ring of points, repaired with
  :func:`shapely.make_valid` when invalid (a self-intersecting bow-tie becomes its two
  triangles); only the polygonal part of the repair is kept, because lines and points
  have no area to overlap;
- an :class:`~app.core.model.EllipseRegion` is the 64-gon with vertices at the parameter
  angles ``2πk/64`` (``k = 0..63``, the first on the ``rx`` axis), turned by
  ``angle_deg`` (spec, Precise rules: "ellipses as 64-gons").

IoU is ``|A ∩ B| / |A ∪ B|`` with ``|A ∪ B| = |A| + |B| − |A ∩ B|`` (one overlay per pair
instead of two). Pairs whose bounding boxes do not overlap with positive area are 0
without any overlay; box × box pairs are computed in closed form with numpy (exact, no
polygon overlay at all); the remaining pairs go through :func:`shapely.intersection` on
whole arrays at once.

GIoU is ``IoU − (|C| − |A ∪ B|) / |C|`` where the enclosing shape ``C`` is the smallest
axis-aligned box when *both* regions are boxes and otherwise the convex hull of the union
(spec, Precise rules, Chance baseline). The hull of the union equals the hull of the
two shapes' hull vertices, so it is computed as the convex hull of those points: cheaper
than a union overlay and the same polygon. The distance used for localization is
:func:`giou_distance` ``(1 − GIoU) / 2`` in ``[0, 1]``.

Choices where the spec is silent
--------------------------------
- **Zero-area regions** (a box of width or height 0, an ellipse with a zero radius, a
  polygon whose repair leaves no area). Their IoU with anything of positive area is 0.
  Two zero-area regions have IoU 1 when their extents (the bounding box of their
  coordinates) are identical, else 0 - the same rule the spec gives for zero-length
  segments ("two identical zero-length segments have IoU 1; any other zero-length case
  0"). Their GIoU enclosing shape uses their coordinates (a degenerate box keeps its
  corners, a repaired-away polygon its input points), so a far-away speck still widens
  ``C``. When ``|C| = 0`` (two zero-area regions on one line or point) GIoU is 1 if they
  are identical and −1 otherwise: −1 is the value every such pair takes as soon as
  ``C`` has any area (their union has none), so the rule is the limit, not a special
  case. No NaN can come out.
- **Negative width or height** of a box spans the same points as its positive
  counterpart (corners are sorted), rather than being an error or an empty box.
- **Rotation of ellipses**: ``angle_deg`` applies the usual rotation matrix
  ``[[cos, −sin], [sin, cos]]`` in image coordinates. With the y axis pointing down, a
  positive angle turns the ellipse clockwise on screen.
- **Polygons with fewer than three points** have no area (zero-area rule above); one
  with no points at all has no extent either and is identical to nothing.
- **Non-finite coordinates** raise :class:`ValueError`: a NaN would silently poison
  every IoU it touches.
- **Clamping** (spec, Precise rules: "Boxes reaching slightly outside [0, 1] are clamped,
  and the report counts them"): every box with a corner outside ``[0, 1]`` is clamped to
  the image, whatever the amount (only the axis that reaches outside is rewritten); one
  entirely outside becomes a zero-area box. Polygons
  and ellipses are not clamped (the spec names boxes only), so an ellipse drawn at the
  border keeps its full shape.
- **Outlines** (:func:`region_outlines`) are the shapes as drawn, before any repair, so
  a view shows what the annotator drew.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import shapely

from app.core.model import BoxRegion, EllipseRegion, PolygonRegion

Region: TypeAlias = BoxRegion | PolygonRegion | EllipseRegion

ELLIPSE_VERTICES = 64
"""Vertices of the polygon standing for an ellipse (spec: "ellipses as 64-gons")."""

_HULL_POINTS_PER_CHUNK = 2_000_000
"""Points per batch of convex hulls: bounds memory on large GIoU matrices (~32 MB)."""

_POLYGONAL = (shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON)


# --------------------------------------------------------------------------- conversion


def _ellipse_vertices(e: EllipseRegion) -> np.ndarray:
    """The 64 vertices (no closing point) of an ellipse, shape ``(64, 2)``."""
    t = np.arange(ELLIPSE_VERTICES, dtype=np.float64) * (2.0 * math.pi / ELLIPSE_VERTICES)
    lx = abs(e.rx) * np.cos(t)
    ly = abs(e.ry) * np.sin(t)
    theta = math.radians(e.angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    return np.column_stack((e.cx + lx * c - ly * s, e.cy + lx * s + ly * c))


def _vertices(region: Region) -> np.ndarray:
    """The region's defining points as drawn (no closing point), shape ``(k, 2)``."""
    if isinstance(region, BoxRegion):
        x0, y0, x1, y1 = _box_corners(region)
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


def _box_corners(box: BoxRegion) -> tuple[float, float, float, float]:
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


REPAIR_GRID = 1e-12
"""Repaired polygons are snapped to this grid (far below any annotation's precision).

``make_valid`` splits a bow-tie at a computed crossing point; left unsnapped, those
points can make GEOS misclassify a piece in a later overlay (seen: the same two
repaired bow-ties gave IoU 0.026 or 0.081 depending on a translation of both by 1/64).
Snapping the repaired pieces makes the overlay robust again."""


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
        pts = _vertices(region)
        if isinstance(region, BoxRegion):
            out[k] = shapely.box(*_box_corners(region))
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
            x0, y0, x1, y1 = _box_corners(region)
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
        pts = _vertices(region)
        outlines.append(np.vstack((pts, pts[:1])) if len(pts) else pts.reshape(0, 2))
    return outlines


# --------------------------------------------------------------------------- prepared sets


@dataclass(frozen=True, slots=True)
class RegionSet:
    """Regions prepared once for many comparisons.

    Attributes
    ----------
    geometries : numpy.ndarray
        Object array of valid shapely geometries (:func:`to_geometries`).
    extent : numpy.ndarray
        ``(n, 4)`` ``x0, y0, x1, y1`` of the coordinates as drawn: the bounding-box
        pre-filter, the box × box closed form and the zero-area identity rule use it.
    area : numpy.ndarray
        ``(n,)`` area of the scored shape (exact product for boxes).
    is_box : numpy.ndarray
        ``(n,)`` bool: boxes use the axis-aligned enclosing box in GIoU.
    hull_coords, hull_start, hull_size : numpy.ndarray
        Ragged storage of the points whose convex hull is the region's hull (hull
        vertices for shapes with area, the drawn points for zero-area shapes).
    """

    geometries: np.ndarray
    extent: np.ndarray
    area: np.ndarray
    is_box: np.ndarray
    hull_coords: np.ndarray
    hull_start: np.ndarray
    hull_size: np.ndarray

    def __len__(self) -> int:
        return int(self.area.size)


def prepare(regions: Sequence[Region] | RegionSet) -> RegionSet:
    """Convert regions once (geometry, extent, area, hull points); idempotent."""
    if isinstance(regions, RegionSet):
        return regions
    n = len(regions)
    geometries = to_geometries(regions)
    vertices = [_vertices(r) for r in regions]
    # A polygon without points has no extent: NaN compares unequal to everything, so it
    # is never "identical" to another zero-area region and never passes the pre-filter.
    extent = np.full((n, 4), np.nan)
    for k, pts in enumerate(vertices):
        if len(pts):
            extent[k] = (*pts.min(axis=0), *pts.max(axis=0))
    is_box = np.fromiter((isinstance(r, BoxRegion) for r in regions), dtype=bool, count=n)
    area = np.asarray(shapely.area(geometries), dtype=np.float64).reshape(n)
    widths = extent[:, 2] - extent[:, 0]
    heights = extent[:, 3] - extent[:, 1]
    area[is_box] = widths[is_box] * heights[is_box]

    positive = area > 0.0
    hull_parts: list[np.ndarray] = [np.empty((0, 2))] * n
    if positive.any():
        hulls = shapely.convex_hull(geometries[positive])
        coords, owner = shapely.get_coordinates(hulls, return_index=True)
        cuts = np.searchsorted(owner, np.arange(1, hulls.size))
        for k, part in zip(np.flatnonzero(positive).tolist(), np.split(coords, cuts),
                           strict=True):
            hull_parts[k] = part
    for k in np.flatnonzero(~positive).tolist():
        hull_parts[k] = vertices[k]
    hull_size = np.fromiter((len(p) for p in hull_parts), dtype=np.int64, count=n)
    hull_start = np.cumsum(hull_size) - hull_size
    hull_coords = np.concatenate(hull_parts) if n else np.empty((0, 2))
    return RegionSet(geometries, extent, area, is_box, hull_coords.reshape(-1, 2),
                     hull_start, hull_size)


# --------------------------------------------------------------------------- pairs


def _ragged_ranges(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Concatenation of ``range(s, s + n)`` for each start ``s`` and size ``n``."""
    total = int(sizes.sum())
    firsts = np.cumsum(sizes) - sizes
    ranges: np.ndarray = np.arange(total, dtype=np.int64) + np.repeat(starts - firsts, sizes)
    return ranges


def _hull_areas(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray) -> np.ndarray:
    """Area of the convex hull of ``a[ia[k]] ∪ b[ib[k]]`` for each pair ``k``."""
    out = np.zeros(ia.size)
    sizes = a.hull_size[ia] + b.hull_size[ib]
    if (sizes < 3).any():  # fewer than three points span no area (and make no line)
        keep = np.flatnonzero(sizes >= 3)
        out[keep] = _hull_areas(a, ia[keep], b, ib[keep])
        return out
    bounds = np.searchsorted(np.cumsum(sizes), np.arange(_HULL_POINTS_PER_CHUNK,
                                                         int(sizes.sum()) + 1,
                                                         _HULL_POINTS_PER_CHUNK))
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, ia.size], strict=True):
        if hi <= lo:
            continue
        pa, pb = ia[lo:hi], ib[lo:hi]
        na, nb = a.hull_size[pa], b.hull_size[pb]
        both = na + nb
        first = np.cumsum(both) - both
        coords = np.empty((int(both.sum()), 2))
        coords[_ragged_ranges(first, na)] = a.hull_coords[_ragged_ranges(a.hull_start[pa], na)]
        coords[_ragged_ranges(first + na, nb)] = b.hull_coords[
            _ragged_ranges(b.hull_start[pb], nb)]
        owner = np.repeat(np.arange(hi - lo), both)
        # A line string through the points has the same hull as the points, and is
        # built straight from the coordinates (a multipoint makes a Point per row first,
        # ten times slower).
        hulls = shapely.convex_hull(shapely.linestrings(coords, indices=owner))
        out[lo:hi] = shapely.area(hulls)
    return out


def _intersection_areas(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray
                        ) -> np.ndarray:
    """``|A ∩ B|`` per pair; 0 without an overlay where bounding boxes cannot overlap."""
    ea, eb = a.extent[ia], b.extent[ib]
    ix = np.minimum(ea[:, 2], eb[:, 2]) - np.maximum(ea[:, 0], eb[:, 0])
    iy = np.minimum(ea[:, 3], eb[:, 3]) - np.maximum(ea[:, 1], eb[:, 1])
    overlap = (ix > 0.0) & (iy > 0.0) & (a.area[ia] > 0.0) & (b.area[ib] > 0.0)
    boxes = overlap & a.is_box[ia] & b.is_box[ib]
    inter = np.where(boxes, ix * iy, 0.0)
    shapes = np.flatnonzero(overlap & ~boxes)
    if shapes.size:
        first, second = a.geometries[ia[shapes]], b.geometries[ib[shapes]]
        # The overlay's rounding depends on operand order: put each pair in one
        # canonical order (by area, then extent) so IoU(a, b) and IoU(b, a) are the
        # same number, not two roundings of it.
        key_a = np.column_stack([a.area[ia[shapes]], ea[shapes]])
        key_b = np.column_stack([b.area[ib[shapes]], eb[shapes]])
        swap = _lexicographically_less(key_b, key_a)
        left = np.where(swap, second, first)
        right = np.where(swap, first, second)
        inter[shapes] = shapely.area(shapely.intersection(left, right))
    return inter


def _lexicographically_less(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise ``x < y`` comparing columns left to right."""
    less = np.zeros(x.shape[0], dtype=bool)
    equal = np.ones(x.shape[0], dtype=bool)
    for column in range(x.shape[1]):
        less |= equal & (x[:, column] < y[:, column])
        equal &= x[:, column] == y[:, column]
    return less


def _iou_from(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray,
              inter: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """IoU, union area and the "both zero-area" mask for each pair."""
    union = a.area[ia] + b.area[ib] - inter
    iou = np.zeros(ia.size)
    np.divide(inter, union, out=iou, where=union > 0.0)
    degenerate = (a.area[ia] == 0.0) & (b.area[ib] == 0.0)
    if degenerate.any():
        same = np.all(a.extent[ia] == b.extent[ib], axis=1)
        iou[degenerate] = same[degenerate].astype(np.float64)
    return np.clip(iou, 0.0, 1.0), union, degenerate


def region_iou_pairs(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                     ) -> np.ndarray:
    """IoU of ``a[k]`` with ``b[k]`` for each ``k`` (aligned pairs, e.g. chance draws)."""
    pa, pb = prepare(a), prepare(b)
    _check_aligned(pa, pb)
    k = np.arange(len(pa))
    return _iou_from(pa, k, pb, k, _intersection_areas(pa, k, pb, k))[0]


def region_giou_pairs(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                      ) -> np.ndarray:
    """GIoU of ``a[k]`` with ``b[k]`` for each ``k`` (aligned pairs, e.g. chance draws)."""
    pa, pb = prepare(a), prepare(b)
    _check_aligned(pa, pb)
    k = np.arange(len(pa))
    return _giou(pa, k, pb, k)


def _check_aligned(a: RegionSet, b: RegionSet) -> None:
    if len(a) != len(b):
        raise ValueError(f"aligned pairs need equal lengths, got {len(a)} and {len(b)}")


def _giou(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray) -> np.ndarray:
    """GIoU per pair: enclosing box for box × box, convex hull of the union otherwise."""
    iou, union, degenerate = _iou_from(a, ia, b, ib, _intersection_areas(a, ia, b, ib))
    both_boxes = a.is_box[ia] & b.is_box[ib]
    ea, eb = a.extent[ia], b.extent[ib]
    enclosing = ((np.maximum(ea[:, 2], eb[:, 2]) - np.minimum(ea[:, 0], eb[:, 0]))
                 * (np.maximum(ea[:, 3], eb[:, 3]) - np.minimum(ea[:, 1], eb[:, 1])))
    hulled = np.flatnonzero(~both_boxes)
    if hulled.size:
        enclosing[hulled] = _hull_areas(a, ia[hulled], b, ib[hulled])
    # |C| = 0 only for two zero-area regions on a line: 1 when identical, else −1
    # (a penalty of 1, the value any such pair takes once C has area).
    penalty = np.ones(ia.size)
    np.divide(enclosing - union, enclosing, out=penalty, where=enclosing > 0.0)
    flat = ~(enclosing > 0.0)
    penalty[flat & degenerate & (iou == 1.0)] = 0.0
    giou: np.ndarray = iou - np.clip(penalty, 0.0, 1.0)
    return giou


# --------------------------------------------------------------------------- matrices


def region_iou_matrix(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                      ) -> np.ndarray:
    """IoU of every region of ``a`` with every region of ``b``, shape ``(len(a), len(b))``.

    A bounding-box pre-filter (one broadcast comparison) leaves only the pairs that can
    overlap; box × box pairs are exact closed-form products, the rest one vectorized
    :func:`shapely.intersection` call. Matching thresholds IoU at 0.5, so most pairs in
    a crowded image are far apart and cost nothing.

    Returns
    -------
    numpy.ndarray
        Float64 in ``[0, 1]``; zero-area regions follow the identity rule of the module
        docstring.
    """
    pa, pb = prepare(a), prepare(b)
    out = np.zeros((len(pa), len(pb)))
    if out.size == 0:
        return out
    ea, eb = pa.extent[:, None, :], pb.extent[None, :, :]
    candidate = ((ea[..., 0] < eb[..., 2]) & (eb[..., 0] < ea[..., 2])
                 & (ea[..., 1] < eb[..., 3]) & (eb[..., 1] < ea[..., 3])
                 & (pa.area[:, None] > 0.0) & (pb.area[None, :] > 0.0))
    candidate |= (pa.area[:, None] == 0.0) & (pb.area[None, :] == 0.0)
    ia, ib = np.nonzero(candidate)
    if ia.size:
        out[ia, ib] = _iou_from(pa, ia, pb, ib, _intersection_areas(pa, ia, pb, ib))[0]
    return out


def region_giou_matrix(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                       ) -> np.ndarray:
    """Generalized IoU of every region of ``a`` with every region of ``b``.

    ``GIoU = IoU − (|C| − |A ∪ B|) / |C|`` (Rezatofighi et al. 2019). ``C`` is the
    smallest axis-aligned box when both regions are boxes, else the convex hull of the
    union (spec, Precise rules). Unlike IoU it keeps falling as disjoint shapes move
    apart, which is what makes a chance baseline of distances informative.

    Returns
    -------
    numpy.ndarray
        Float64 in ``[−1, 1]``, shape ``(len(a), len(b))``.
    """
    pa, pb = prepare(a), prepare(b)
    if len(pa) == 0 or len(pb) == 0:
        return np.zeros((len(pa), len(pb)))
    ia, ib = np.indices((len(pa), len(pb))).reshape(2, -1)
    return _giou(pa, ia, pb, ib).reshape(len(pa), len(pb))


def giou_distance(giou: np.ndarray | float) -> np.ndarray:
    """Localization distance ``(1 − GIoU) / 2`` in ``[0, 1]`` (spec: no saturation at 0 IoU).

    Identical shapes are at 0, touching shapes that fill their enclosing shape at 0.5,
    and shapes far apart relative to their size approach 1.
    """
    d: np.ndarray = np.clip((1.0 - np.asarray(giou, dtype=np.float64)) / 2.0, 0.0, 1.0)
    return d
