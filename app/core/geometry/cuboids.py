"""Exact IoU of oriented 3D boxes (cuboids), vectorized over many pairs with numpy.

Why exact, and for any rotation
-------------------------------
``agreement.md`` (Sets of objects) asks for the exact 3D IoU of boxes rotated about any
axis, because Potato stores a full quaternion. A bird's-eye approximation or an
axis-aligned shortcut would score a pitched or rolled box wrongly, so the general path
computes the intersection polyhedron itself.

Where each part lives
---------------------
This module is the public API and the dispatch between the paths; each path is its own
module, whose docstring records its method and choices:

- :mod:`~app.core.geometry.cuboid_boxes`: the box rows ``[cx, cy, cz, l, w, h, qx, qy,
  qz, qw]`` (:func:`boxes_array`), their validation, corners and wireframes, and one box
  seen in the other's frame (the work for each pair (a, b) happens in ``a``'s frame).
- :mod:`~app.core.geometry.cuboid_filters`: two **pre-filters** make non-overlapping
  pairs cost almost nothing: bounding spheres (centres further apart than the sum of
  the half-diagonals: 0) over all pairs, then the separating-axis test (15 axes,
  conservative by the plane tolerance) on the survivors. Only pairs that really
  overlap, or touch, are clipped.
- :mod:`~app.core.geometry.cuboid_prism`: **fast paths** (exact, not approximations),
  closed forms of some 1-2 µs per pair for parallel axes: all three (a product of
  interval overlaps) or one shared axis (the lidar yaw-only case, a right prism).
- :mod:`~app.core.geometry.cuboid_level`: the right prism again for boxes that are both
  yaw only in the sensor frame (quaternions ``(0, 0, z, w)``: KITTI-style lidar boxes),
  on columns and with the rectangles' 8 sides stacked, some 0.2 µs per pair.
- :mod:`~app.core.geometry.cuboid_lines`: the **general path** for well-conditioned
  pairs (every cosine between an axis of one box and a face of the other at least
  1e-3, and a rounding bound within 1e-10 of the larger volume: about 99% of randomly
  rotated pairs), some 3 µs per overlapping pair: the divergence theorem as a sum over
  the 60 lines the intersection's edges can lie on, each cut to the part inside both
  boxes, in fixed-size arrays.
- :mod:`~app.core.geometry.cuboid_grazing`: the line sum also takes the pairs with a
  small cosine where no edge of one box crosses a nearly parallel face plane of the
  other (no grazing vertex, so the ill-conditioned interval ends cannot win): most
  lidar pairs (a yaw with a small pitch and roll), which the a-priori bound refuses.
- :mod:`~app.core.geometry.cuboid_clip`: the general path for the others (grazing and
  touching edges, coplanar faces with the fast paths off), some 20 µs
  per overlapping pair: ``b``'s closed surface clipped by ``a``'s six half-spaces, the
  volume by the divergence theorem, closed by construction whatever rounding does.
- :mod:`~app.core.geometry.fixed_order`: sums and products added in a fixed order, so
  that a pair's value never depends on the pairs computed alongside it.

The pairs are taken in blocks of :data:`BLOCK`, each validated and laid out as columns
(:func:`~app.core.geometry.cuboid_boxes.checked_columns`: one contiguous row per box
field), so that every temporary is cache-sized and no array of the whole call is made.
In a block, pairs that are both yaw only take the level lane; :func:`_intersection_volumes`
tries the others' paths from the cheapest: all axes parallel, one shared axis, then the
separating-axis filter, the line sum where it is well conditioned or free of grazing
crossings, and clipping for the rest. The few pairs left to clipping or to the clamp
construction are computed after the blocks, every block's at once, as both have a fixed
cost per call.
``cuboid_iou_pairs(..., aligned_fast_path=False)`` turns both closed forms off (only to
check that they agree with the general path).

Batches
-------
:func:`cuboid_iou_matrices` computes many small IoU matrices (one per annotator pair and
item) in one pass: the bounding-sphere test runs over every cross pair of the batch at
once and one :func:`cuboid_iou_pairs`-style pass takes all survivors, so numpy's
per-call overhead is paid once rather than per matrix. A pair's value never depends on
the pairs it is computed with (see :mod:`~app.core.geometry.fixed_order`), so the batch
gives exactly the values of :func:`cuboid_iou_matrix` on each pair alone.

Choices
-------
- **Degenerate boxes** (a size of 0, so no volume): IoU 0 with anything, except that two
  *identical* degenerate boxes (the same point set: every corner of one is a corner of
  the other, to the plane tolerance) have IoU 1. This mirrors the spec's rule for
  zero-length segments ("two identical zero-length segments have IoU 1; any other
  zero-length case 0").
- The intersection volume is clamped to ``[0, min(vol_a, vol_b)]`` before the IoU so
  that rounding can never give a value outside ``[0, 1]``.
- Invalid boxes (a negative or non-finite size, a non-finite centre, a zero or
  non-finite quaternion) raise :class:`ValueError`. Quaternions are normalized.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast

import numpy as np

from app.core.geometry.cuboid_boxes import (
    BOX_COLUMNS,
    CUBOID_EDGES,
    boxes_array,
    checked_columns,
    checked_rows,
    cuboid_corners,
    half_diagonals,
    relative_pose_columns,
    rotation_matrices,
    wireframe_segments,
)
from app.core.geometry.cuboid_clip import PLANE_TOLERANCE, clipped_volumes
from app.core.geometry.cuboid_filters import columns_apart, near_cross_pairs, separated
from app.core.geometry.cuboid_grazing import free_of_grazing
from app.core.geometry.cuboid_level import clamped_volumes, level_volumes
from app.core.geometry.cuboid_lines import line_volumes, summable
from app.core.geometry.cuboid_prism import (
    ALIGNED_TOLERANCE,
    SHARED_AXIS_TOLERANCE,
    aligned,
    aligned_volumes,
    level_pairs,
    prism_volumes,
    shared_axes,
)
from app.core.objects import Cuboid

__all__ = [
    "BOX_COLUMNS",
    "CUBOID_EDGES",
    "boxes_array",
    "cuboid_corners",
    "cuboid_iou_matrices",
    "cuboid_iou_matrix",
    "cuboid_iou_pairs",
    "rotation_matrices",
    "wireframe_segments",
]

BLOCK = 4096
"""Pairs validated, laid out as columns and computed at once: the temporaries (300 KB at
most) stay in the caches. Measured on 20,000 pairs: 2,048 and 8,192 within noise of it
on tilted pairs, 2,048 10% slower yaw only (numpy's per-call cost)."""


def cuboid_iou_pairs(a: np.ndarray, b: np.ndarray, *,
                     aligned_fast_path: bool = True) -> np.ndarray:
    """Exact IoU of box ``a[i]`` with box ``b[i]`` for every ``i``.

    Parameters
    ----------
    a, b
        Box rows ``(n, 10)`` as from :func:`boxes_array`.
    aligned_fast_path
        Use the closed forms for pairs with parallel axes: all three (a product of
        interval overlaps) or one shared axis (a right prism: rectangle overlap × interval
        overlap). Only turned off to check that they agree with the general path.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``, values in ``[0, 1]``.
    """
    rows_a = np.asarray(a, dtype=np.float64).reshape(-1, BOX_COLUMNS)
    rows_b = np.asarray(b, dtype=np.float64).reshape(-1, BOX_COLUMNS)
    if rows_a.shape != rows_b.shape:
        raise ValueError(f"{len(rows_a)} boxes in a but {len(rows_b)} in b")
    return _iou_of_rows(rows_a, rows_b, aligned_fast_path, fresh=True)


def cuboid_iou_matrix(a: Sequence[Cuboid], b: Sequence[Cuboid]) -> np.ndarray:
    """IoU of every cuboid of ``a`` with every cuboid of ``b``, shape ``(len(a), len(b))``.

    The bounding-sphere pre-filter runs on the whole grid first; only the pairs it cannot
    rule out are clipped. This is :func:`cuboid_iou_matrices` with a batch of one, so the
    two always give the same values.
    """
    return cuboid_iou_matrices([(boxes_array(a), boxes_array(b))])[0]


def cuboid_iou_matrices(pairs: Sequence[tuple[np.ndarray, np.ndarray]]
                        ) -> list[np.ndarray]:
    """The IoU matrix of each pair of box sets of a batch, in one vectorized pass.

    Agreement on a lidar study needs one small matrix per annotator pair per item:
    thousands of ``40 × 40`` grids. Computed one call each, numpy's per-call overhead
    (tens of microseconds per operation, a few hundred operations per call) would cost
    more than the geometry. Here the bounding-sphere filter runs over every cross pair of
    the whole batch at once, all survivors go through a single exact IoU pass (so the
    fast paths and the clipping work on wide arrays), and the values are scattered back.

    Parameters
    ----------
    pairs
        ``(a, b)`` box arrays ``(n_a, 10)`` and ``(n_b, 10)`` as from :func:`boxes_array`;
        either may be empty.

    Returns
    -------
    list of numpy.ndarray
        The ``(n_a, n_b)`` IoU matrix of each pair, in order: equal, value for value, to
        :func:`cuboid_iou_matrix` on that pair alone. The matrices are views of one
        buffer (no copy per pair); each owns its own cells.
    """
    if not pairs:
        return []
    blocks_a = [np.asarray(a, dtype=np.float64).reshape(-1, BOX_COLUMNS) for a, _ in pairs]
    blocks_b = [np.asarray(b, dtype=np.float64).reshape(-1, BOX_COLUMNS) for _, b in pairs]
    rows_a = checked_rows(np.concatenate(blocks_a), "a")
    rows_b = checked_rows(np.concatenate(blocks_b), "b")
    n_a = np.array([len(x) for x in blocks_a], dtype=np.intp)
    n_b = np.array([len(x) for x in blocks_b], dtype=np.intp)
    sizes = n_a * n_b
    ends = np.cumsum(sizes)
    flat = np.zeros(int(ends[-1]))
    cells, ia, jb = near_cross_pairs(rows_a, rows_b, n_a, n_b)
    if cells.size:
        flat[cells] = _iou_of_rows(rows_a[ia], rows_b[jb], True, fresh=False)
    return [flat[end - size:end].reshape(rows, cols) for end, size, rows, cols
            in zip(ends.tolist(), sizes.tolist(), n_a.tolist(), n_b.tolist(), strict=True)]


def _iou_of_rows(rows_a: np.ndarray, rows_b: np.ndarray, fast: bool, fresh: bool
                 ) -> np.ndarray:
    """IoU of each pair of rows, :data:`BLOCK` pairs at a time.

    ``fresh`` rows come from the caller: each block is validated and normalized
    (:func:`~app.core.geometry.cuboid_boxes.checked_columns`) and sphere-tested here.
    Otherwise they are :func:`checked_rows` whose spheres are known to meet. Per block,
    so that the columns and every temporary stay small (cache-sized, and never one of
    the large allocations glibc maps and unmaps on each call). The few pairs left to the
    clamp construction or to clipping are done after the blocks, all at once, as both
    have a fixed cost per call.
    """
    iou = np.empty(len(rows_a))
    later = _Later([], [])
    for start in range(0, len(rows_a), BLOCK):
        ca = checked_columns(rows_a[start:start + BLOCK], "a", fresh)
        cb = checked_columns(rows_b[start:start + BLOCK], "b", fresh)
        inter = _block_volumes(ca, cb, fast, fresh, start, later)
        iou[start:start + ca.shape[1]] = _iou_of_columns(ca, cb, inter)
    for found, volumes in ((later.clamps, _clamped), (later.clips, _clipped)):
        if found:
            where = np.concatenate([x[0] for x in found])
            ca = np.concatenate([x[1] for x in found], axis=1)
            cb = np.concatenate([x[2] for x in found], axis=1)
            iou[where] = _iou_of_columns(ca, cb, volumes(ca, cb, found))
    return iou


class _Later(NamedTuple):
    """Pairs left for after the blocks: their global index, columns, and for clipping
    their relative pose and half sizes."""

    clamps: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
    clips: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                      np.ndarray, np.ndarray]]


def _clamped(ca: np.ndarray, cb: np.ndarray, _found: object) -> np.ndarray:
    """Volumes of the level pairs the side sum refused (their columns)."""
    return clamped_volumes(ca, cb)


def _clipped(_ca: np.ndarray, _cb: np.ndarray, found: object) -> np.ndarray:
    """Volumes of the pairs left to clipping, from the poses the blocks kept."""
    clips = cast(list[tuple[np.ndarray, ...]], found)
    return clipped_volumes(*(np.concatenate([clip[k] for clip in clips]) for k in range(3, 7)))


def _block_volumes(ca: np.ndarray, cb: np.ndarray, fast: bool, spheres: bool, start: int,
                   later: _Later) -> np.ndarray:
    """Intersection volumes of one block of columns; the pairs left for later get 0.

    Yaw-only pairs in the sensor frame take the level lane
    (:mod:`~app.core.geometry.cuboid_level`), the others :func:`_intersection_volumes`.
    """
    k = ca.shape[1]
    inter = np.zeros(k)
    near = ~columns_apart(ca, cb) if spheres else np.ones(k, dtype=bool)
    level = level_pairs(ca.T, cb.T) & near if fast else np.zeros(k, dtype=bool)
    if level.any():
        sel = _rows(level)
        la, lb = (ca, cb) if isinstance(sel, slice) else (ca[:, sel], cb[:, sel])
        volume, ok = level_volumes(la, lb)
        inter[sel] = volume
        if not ok.all():
            bad = np.flatnonzero(~ok)
            where = np.arange(k)[sel][bad]
            inter[where] = 0.0
            later.clamps.append((start + where, la[:, bad], lb[:, bad]))
    rest = np.flatnonzero(near & ~level)
    if rest.size:
        both = (ca, cb) if rest.size == k else (ca[:, rest], cb[:, rest])
        volume, clip = _intersection_volumes(*both, fast)
        inter[rest] = volume
        if clip is not None:
            where = rest[clip[0]]
            later.clips.append((start + where, ca[:, where], cb[:, where], *clip[1:]))
    return inter


def _iou_of_columns(ca: np.ndarray, cb: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """IoU from the intersection volumes, with the degenerate-box rule (columns)."""
    vol_a, vol_b = (ca[3] * ca[4]) * ca[5], (cb[3] * cb[4]) * cb[5]
    np.maximum(inter, 0.0, out=inter)
    np.minimum(inter, np.minimum(vol_a, vol_b), out=inter)
    union = vol_a + vol_b - inter
    positive = union > 0.0
    iou: np.ndarray = np.divide(inter, union, out=np.zeros(inter.shape), where=positive)
    flat = np.flatnonzero(~positive)
    if flat.size:
        iou[flat] = _same_point_sets(ca.T[flat], cb.T[flat]).astype(np.float64)
    np.maximum(iou, 0.0, out=iou)
    np.minimum(iou, 1.0, out=iou)
    return iou


_CLOSED_FORM_TOLERANCE = max(ALIGNED_TOLERANCE, SHARED_AXIS_TOLERANCE)
"""No entry of the relative rotation below this: neither closed form applies."""

_Clip = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Pairs left to clipping: their rows, turn, shift and both half sizes."""


def _same_point_sets(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether two boxes are the same set of points: each corner of one is one of the other.

    Used for zero-volume boxes only, whose quaternions may differ while the boxes do not
    (a flat rectangle turned half a turn about its normal is the same rectangle).
    """
    ca, cb = cuboid_corners(a), cuboid_corners(b)
    gap = np.linalg.norm(ca[:, :, None, :] - cb[:, None, :, :], axis=3)
    tol = PLANE_TOLERANCE * (1.0 + half_diagonals(a) + half_diagonals(b))[:, None]
    same: np.ndarray = ((gap.min(axis=2) <= tol).all(axis=1)
                        & (gap.min(axis=1) <= tol).all(axis=1))
    return same


def _intersection_volumes(ca: np.ndarray, cb: np.ndarray, fast: bool
                          ) -> tuple[np.ndarray, _Clip | None]:
    """Intersection volume of each pair (columns of pairs that are not both yaw only) by
    a closed form or the line sum, and the pairs left to clipping (volume 0 here; the
    caller clips them, all blocks' at once).

    Order of the paths: all axes parallel (cheapest), one shared axis (a right prism),
    then the separating-axis filter, the line sum where it is well conditioned
    (:func:`~app.core.geometry.cuboid_lines.summable`) or free of grazing crossings, and
    clipping for the rest. Both closed forms need an entry of the relative rotation
    within their tolerance of 0 (a row of a rotation matrix near ±1 somewhere is near 0
    elsewhere), so a block without one (tilted lidar boxes) skips their tests.
    """
    turn, shift = relative_pose_columns(ca, cb)
    half_a, half_b = (ca[3:6] / 2.0).T, (cb[3:6] / 2.0).T
    n = ca.shape[1]
    volume = np.zeros(n)
    general = np.ones(n, dtype=bool)
    if fast and (np.abs(turn) < _CLOSED_FORM_TOLERANCE).any():
        parallel = aligned(turn)
        if parallel.any():
            sel = _rows(parallel)
            volume[sel] = aligned_volumes(np.abs(np.rint(turn[sel])), shift[sel],
                                          half_a[sel], half_b[sel])
        axis_a, axis_b = shared_axes(turn)
        prism = (axis_a >= 0) & ~parallel
        if prism.any():
            sel = _rows(prism)
            volume[sel] = prism_volumes(turn[sel], shift[sel], half_a[sel], half_b[sel],
                                        axis_a[sel], axis_b[sel])
        general = ~(parallel | prism)
    rest = np.flatnonzero(general)
    if rest.size:
        k = _all_or(rest, n)
        rest = rest[~separated(turn[k], shift[k], half_a[k], half_b[k])]
    if rest.size:
        k = _all_or(rest, n)
        take = summable(turn[k], shift[k], half_a[k], half_b[k])
        refused = np.flatnonzero(~take)
        if refused.size:  # near-parallel pairs without a grazing crossing: the line sum is exact
            sel = rest[refused]
            take[refused] = free_of_grazing(turn[sel], shift[sel], half_a[sel], half_b[sel])
        if take.any():  # one pass of the line sum for both kinds: its per-call cost once
            sel = rest[take]
            k = _all_or(sel, n)
            volume[sel] = line_volumes(turn[k], shift[k], half_a[k], half_b[k])
        rest = rest[~take]
    if rest.size:
        return volume, (rest, turn[rest], shift[rest], half_a[rest], half_b[rest])
    return volume, None


def _all_or(index: np.ndarray, n: int) -> slice | np.ndarray:
    """``index`` (ascending, distinct rows of ``n``), or a plain slice when it is all of
    them: a lidar block is often general throughout, and views spare three copies of its
    matrices."""
    return slice(None) if index.size == n else index


def _rows(mask: np.ndarray) -> slice | np.ndarray:
    """Index of the rows in ``mask``: a plain slice (views, no copies) when it is all."""
    return slice(None) if mask.all() else np.flatnonzero(mask)
