"""2D image regions (boxes, polygons, ellipses): IoU and GIoU of pairs and matrices.

``agreement.md`` (Kinds) compares regions by 2D IoU, and by the GIoU distance for the
chance-corrected numbers. This module is the public API; the work lives in two modules
whose docstrings record their method and choices:

- :mod:`~app.core.geometry.region_shapes`: each region as one shapely geometry in
  normalized image coordinates (boxes as rectangles, invalid polygons repaired and
  snapped, ellipses as 64-gons), clamping of boxes to the image, outlines for drawing;
- :mod:`~app.core.geometry.region_overlap`: regions prepared once (:func:`prepare`)
  and the IoU and GIoU of many pairs at once, with the zero-area rules.

Here: which pairs are computed. Aligned pairs (chance draws) take every pair; a matrix
first runs a bounding-box pre-filter (one broadcast comparison), so only pairs that can
overlap reach the overlay. Matching thresholds IoU at 0.5, so most pairs in a crowded
image are far apart and cost nothing. The distance used for localization is
:func:`giou_distance` ``(1 − GIoU) / 2`` in ``[0, 1]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.geometry.region_overlap import (
    RegionSet,
    giou_values,
    intersection_areas,
    iou_from,
    prepare,
)
from app.core.geometry.region_shapes import (
    ELLIPSE_VERTICES,
    REPAIR_GRID,
    Region,
    clamp_boxes,
    region_outlines,
    to_geometries,
)

__all__ = [
    "ELLIPSE_VERTICES",
    "REPAIR_GRID",
    "Region",
    "RegionSet",
    "clamp_boxes",
    "giou_distance",
    "prepare",
    "region_giou_matrix",
    "region_giou_pairs",
    "region_iou_matrix",
    "region_iou_pairs",
    "region_outlines",
    "to_geometries",
]


def region_iou_pairs(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                     ) -> np.ndarray:
    """IoU of ``a[k]`` with ``b[k]`` for each ``k`` (aligned pairs, e.g. chance draws)."""
    pa, pb = prepare(a), prepare(b)
    _check_aligned(pa, pb)
    k = np.arange(len(pa))
    return iou_from(pa, k, pb, k, intersection_areas(pa, k, pb, k))[0]


def region_giou_pairs(a: Sequence[Region] | RegionSet, b: Sequence[Region] | RegionSet
                      ) -> np.ndarray:
    """GIoU of ``a[k]`` with ``b[k]`` for each ``k`` (aligned pairs, e.g. chance draws)."""
    pa, pb = prepare(a), prepare(b)
    _check_aligned(pa, pb)
    k = np.arange(len(pa))
    return giou_values(pa, k, pb, k)


def _check_aligned(a: RegionSet, b: RegionSet) -> None:
    if len(a) != len(b):
        raise ValueError(f"aligned pairs need equal lengths, got {len(a)} and {len(b)}")


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
        Float64 in ``[0, 1]``; zero-area regions follow the identity rule of
        :mod:`~app.core.geometry.region_overlap`.
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
        out[ia, ib] = iou_from(pa, ia, pb, ib, intersection_areas(pa, ia, pb, ib))[0]
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
    return giou_values(pa, ia, pb, ib).reshape(len(pa), len(pb))


def giou_distance(giou: np.ndarray | float) -> np.ndarray:
    """Localization distance ``(1 − GIoU) / 2`` in ``[0, 1]`` (spec: no saturation at 0 IoU).

    Identical shapes are at 0, touching shapes that fill their enclosing shape at 0.5,
    and shapes far apart relative to their size approach 1.
    """
    d: np.ndarray = np.clip((1.0 - np.asarray(giou, dtype=np.float64)) / 2.0, 0.0, 1.0)
    return d
