"""IoU and GIoU of 2D regions, pair by pair over index arrays, on prepared region sets.

Regions are prepared once (:func:`prepare`: shapely geometry from
:mod:`~app.core.geometry.region_shapes`, extent, area, hull points) and then compared
on whole index arrays ``ia``, ``ib`` at once; :mod:`app.core.geometry.regions` chooses
which pairs (aligned pairs or the candidates of a matrix).

IoU
---
``|A ∩ B| / |A ∪ B|`` with ``|A ∪ B| = |A| + |B| − |A ∩ B|`` (one overlay per pair
instead of two). Pairs whose bounding boxes do not overlap with positive area are 0
without any overlay; box × box pairs are computed in closed form with numpy (exact, no
polygon overlay at all); the remaining pairs go through :func:`shapely.intersection` on
whole arrays at once. The overlay's rounding depends on operand order, so each pair is
put in one canonical order (by area, then extent) first: IoU(a, b) and IoU(b, a) are
the same number, not two roundings of it.

GIoU
----
``IoU − (|C| − |A ∪ B|) / |C|`` where the enclosing shape ``C`` is the smallest
axis-aligned box when *both* regions are boxes and otherwise the convex hull of the union
(spec, Precise rules, Chance baseline). The hull of the union equals the hull of the
two shapes' hull vertices, so it is computed as the convex hull of those points: cheaper
than a union overlay and the same polygon.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from app.core.geometry.region_shapes import Region, region_vertices, to_geometries
from app.core.objects import BoxRegion

_HULL_POINTS_PER_CHUNK = 2_000_000
"""Points per batch of convex hulls: bounds memory on large GIoU matrices (~32 MB)."""


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
    vertices = [region_vertices(r) for r in regions]
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


def intersection_areas(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray
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


def iou_from(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray,
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


def giou_values(a: RegionSet, ia: np.ndarray, b: RegionSet, ib: np.ndarray) -> np.ndarray:
    """GIoU per pair: enclosing box for box × box, convex hull of the union otherwise."""
    iou, union, degenerate = iou_from(a, ia, b, ib, intersection_areas(a, ia, b, ib))
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
    values: np.ndarray = iou - np.clip(penalty, 0.0, 1.0)
    return values
