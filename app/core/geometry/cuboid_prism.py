"""Closed forms for cuboid pairs with parallel axes: exact, not approximations.

The general path (:mod:`app.core.geometry.cuboid_lines`, else
:mod:`app.core.geometry.cuboid_clip`) costs some 3-20 µs per overlapping pair; two
closed forms take the common cases for about 1 µs:

- **Aligned** (:func:`aligned`, :func:`aligned_volumes`): the relative rotation is a
  signed permutation (all axes parallel, e.g. two axis-aligned boxes or two boxes with
  the same quaternion). The intersection is a box: the product of three interval
  overlaps.
- **Shared axis** (a right prism; :func:`shared_axes`, :func:`prism_volumes`): one axis
  of ``b`` is parallel to one axis of ``a``, up to sign. This is the lidar case: boxes
  rotated by yaw only, whatever the sensor's own tilt, share their vertical axis. Both
  boxes are then prisms over that axis, and so is their intersection: its volume is the
  area of the intersection of the two rectangles seen along the axis times the overlap
  of the two intervals on it. The rectangle overlap is a sum over the rectangles'
  8 sides (:mod:`app.core.geometry.cuboid_rectangles`) where no side of one is nearly
  parallel to a side of the other; otherwise ``b``'s rectangle is clipped to ``a``'s in
  ``a``'s frame with a branch-free clamp construction (:func:`clipped_rectangle_areas`)
  that needs no tolerance, so touching, coincident and identical rectangles are no
  special case.

Both paths are chosen from the relative rotation ``M = Ra^T Rb`` alone, and are exact in
exact arithmetic; tests check them against the general path and the scipy oracle to
1e-9, in frames turned at random so that the shared axis is not the sensor's ``z``.
``cuboid_iou_pairs(..., aligned_fast_path=False)`` turns both off.

Fast path tolerances
--------------------
The aligned path is used when every entry of the relative rotation matrix is within
``1e-12`` of 0 or ±1, the shared-axis path when the other entries of one row and one
column are within ``1e-12`` of 0 (the common entry is then ±1 by orthogonality). That
bounds the angle between the axes treated as parallel by about ``1e-12`` rad, so the
volume error is of the order of ``1e-12`` relative: the boxes are parallel up to the
rounding of their quaternions. Yaw-only boxes in the sensor frame give exact zeros
(their quaternions' x and y parts are exactly 0; see
:func:`~app.core.geometry.cuboid_boxes.relative_pose`).
"""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_rectangles import side_sum_areas, summable
from app.core.geometry.fixed_order import sum_in_order, times

ALIGNED_TOLERANCE = 1e-12
"""How close to 0 or ±1 relative rotation entries must be for the aligned fast path."""

SHARED_AXIS_TOLERANCE = 1e-12
"""How close to 0 relative rotation entries must be for the shared-axis (prism) path."""

_CYCLE = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
"""Signs of a rectangle's corners along its two half-axes, in order around it."""


def aligned(turn: np.ndarray) -> np.ndarray:
    """Pairs whose relative rotation is a signed permutation (parallel box axes)."""
    size = np.abs(turn)
    near: np.ndarray = ((size < ALIGNED_TOLERANCE)
                        | (np.abs(size - 1.0) < ALIGNED_TOLERANCE)).all(axis=(1, 2))
    return near


def aligned_volumes(permutation: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
                    half_b: np.ndarray) -> np.ndarray:
    """Overlap volume of parallel boxes: a product of three interval overlaps."""
    half_b_in_a = times(permutation, half_b)
    low = np.maximum(shift - half_b_in_a, -half_a)
    high = np.minimum(shift + half_b_in_a, half_a)
    volume: np.ndarray = np.prod(np.maximum(high - low, 0.0), axis=1)
    return volume


_CELL_I, _CELL_J = np.divmod(np.arange(9), 3)
_ROW_NEXT, _ROW_LAST = 3 * _CELL_I + (_CELL_J + 1) % 3, 3 * _CELL_I + (_CELL_J + 2) % 3
_COLUMN_NEXT, _COLUMN_LAST = 3 * ((_CELL_I + 1) % 3) + _CELL_J, 3 * ((_CELL_I + 2) % 3) + _CELL_J
"""For each cell ``3 i + j`` of a flattened 3 × 3 matrix, the other two of its row and
of its column."""


def shared_axes(turn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each pair, an axis ``i`` of ``a`` parallel to an axis ``j`` of ``b`` (or -1).

    Axis ``j`` of ``b`` is axis ``i`` of ``a`` up to sign when row ``i`` and column ``j``
    of the relative rotation are zero off their common entry, to
    :data:`SHARED_AXIS_TOLERANCE` (that entry is then ±1, the matrix being orthogonal).
    The tolerance bounds the tilt angle between the two axes, hence the relative error
    of the prism volume, by about ``1e-12``. A pair with several shared axes (all
    parallel) gets the first.

    Returns
    -------
    tuple of numpy.ndarray
        ``i`` and ``j`` per pair, ``-1`` for both where no axis is shared.
    """
    small = (np.abs(turn) < SHARED_AXIS_TOLERANCE).reshape(-1, 9)
    # Entry (i, j) qualifies when the other two entries of row i and of column j are small.
    shared = (small[:, _ROW_NEXT] & small[:, _ROW_LAST] & small[:, _COLUMN_NEXT]
              & small[:, _COLUMN_LAST])
    first = np.argmax(shared, axis=1)
    found = shared[np.arange(len(turn)), first]
    axis_a = np.where(found, first // 3, -1)
    axis_b = np.where(found, first % 3, -1)
    return axis_a, axis_b


def prism_volumes(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
                  half_b: np.ndarray, axis_a: np.ndarray, axis_b: np.ndarray
                  ) -> np.ndarray:
    """Overlap volume of boxes sharing axis ``axis_a`` of ``a`` / ``axis_b`` of ``b``.

    Both boxes are right prisms over that axis, so their intersection is one too: the
    overlap of the two rectangles seen along the axis times the overlap of the two
    intervals on it. Both are computed in ``a``'s frame, where ``a``'s rectangle is
    ``[-a1, a1] × [-a2, a2]`` and ``b``'s is turned and shifted.
    """
    rows = np.arange(len(turn))
    i, j = axis_a, axis_b
    i1, i2, j1, j2 = (i + 1) % 3, (i + 2) % 3, (j + 1) % 3, (j + 2) % 3
    reach, middle = half_a[rows, i], shift[rows, i]
    height = np.maximum(np.minimum(reach, middle + half_b[rows, j])
                        - np.maximum(-reach, middle - half_b[rows, j]), 0.0)
    # b's two other axes and its centre, in a's plane coordinates (a's axes i1, i2).
    u = (turn[rows, i1, j1], turn[rows, i2, j1])
    v = (turn[rows, i1, j2], turn[rows, i2, j2])
    centre = (shift[rows, i1], shift[rows, i2])
    plane_a = (half_a[rows, i1], half_a[rows, i2])
    plane_b = (half_b[rows, j1], half_b[rows, j2])
    volume: np.ndarray = rectangle_areas(centre, u, v, plane_a, plane_b) * height
    return volume


def level_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairs of checked rows whose two boxes are both turned about the sensor's z only.

    Their quaternions' x and y parts are exactly 0 (Potato writes yaw-only lidar boxes
    so), so the vertical axis is shared without any tolerance.
    """
    level: np.ndarray = (a[:, 6] == 0.0) & (a[:, 7] == 0.0) & (b[:, 6] == 0.0) & (b[:, 7] == 0.0)
    return level


Pair = tuple[np.ndarray, np.ndarray]


def rectangle_areas(centre: Pair, u: Pair, v: Pair, plane_a: Pair, plane_b: Pair
                    ) -> np.ndarray:
    """Area of ``b``'s rectangle (centre, unit axes ``u`` and ``v``, half sizes
    ``plane_b``) inside ``a``'s (``[±plane_a[0]] × [±plane_a[1]]``): the side sum where it
    is well conditioned, else the clamp construction."""
    area = np.zeros(len(centre[0]))
    sums = summable(centre, u, v, plane_a, plane_b)
    if sums.any():  # the side sum, where it is well conditioned
        k = _rows_of(sums)
        def picked(pair: Pair) -> Pair:
            return pair[0][k], pair[1][k]

        area[k] = side_sum_areas(picked(centre), picked(u), picked(v), picked(plane_a),
                                 picked(plane_b))
    rest = np.flatnonzero(~sums)
    if rest.size:  # the clamp construction: corner-major (4, n), loops over the pairs
        signs_u, signs_v = _CYCLE[:, 0, None], _CYCLE[:, 1, None]
        bu = [w[rest] * plane_b[0][rest] for w in u]
        bv = [w[rest] * plane_b[1][rest] for w in v]
        x = centre[0][rest] + signs_u * bu[0] + signs_v * bv[0]
        y = centre[1][rest] + signs_u * bu[1] + signs_v * bv[1]
        area[rest] = clipped_rectangle_areas(x, y, plane_a[0][rest], plane_a[1][rest])
    return area


def _rows_of(mask: np.ndarray) -> slice | np.ndarray:
    """Index of the rows in ``mask``: a plain slice (views, no copies) when it is all."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def clipped_rectangle_areas(x: np.ndarray, y: np.ndarray, half_x: np.ndarray,
                            half_y: np.ndarray) -> np.ndarray:
    """Area of each convex polygon ``(x, y)`` inside its rectangle ``[±half_x] × [±half_y]``.

    ``x`` and ``y`` are ``(k, n)``: vertex ``v`` (in order around it) of polygon ``p`` is
    ``(x[v, p], y[v, p])``. Vertex-major so that every numpy loop runs over the ``n``
    polygons rather than over a handful of vertices.

    Clipping without branches or compaction, so every pair keeps the same width: each
    edge ``p → q`` is split where it crosses the rectangle's four lines (``p + t (q - p)``
    for the crossings' ``t`` in ``[0, 1]``, sorted; ``p`` itself where fewer), and every
    point is then *clamped* into the rectangle, coordinate by coordinate. The clamp is
    the projection ``π`` onto the rectangle, affine inside each of the nine regions the
    four lines cut the plane into; as no piece of edge between two emitted points leaves
    its region, the clamped points trace exactly the closed curve ``π(∂P)``. The segment
    from a point outside the rectangle to its projection avoids the rectangle's interior,
    so ``∂P`` deforms into ``π(∂P)`` without crossing any interior point ``z``: the
    curve winds once around ``z`` where ``z ∈ P`` and not at all elsewhere, and the
    shoelace sum over the clamped points is ``area(P ∩ rectangle)``. Outside stretches of
    the boundary become back-and-forth runs along the rectangle's sides, which add what
    the straight side would; repeated points add nothing.

    Why this is robust: no point is ever classified inside or outside, so vertices on a
    line, edges along one and touching or identical rectangles need no tolerance or
    special case. Whatever rounding does to a crossing's ``t``, it is a point of its edge
    and the curve stays closed; the area moves by rounding amounts only.
    """
    step_x, step_y = np.roll(x, -1, axis=0) - x, np.roll(y, -1, axis=0) - y
    x_low, x_high = _crossing_times(x, step_x, half_x)
    y_low, y_high = _crossing_times(y, step_y, half_y)
    inner_low, inner_high = np.maximum(x_low, y_low), np.minimum(x_high, y_high)
    fractions = np.stack([np.zeros_like(x), np.minimum(x_low, y_low),
                          np.minimum(inner_low, inner_high), np.maximum(inner_low, inner_high),
                          np.maximum(x_high, y_high)], axis=1)  # (k, 5, n), sorted on axis 1
    np.clip(fractions, 0.0, 1.0, out=fractions)
    n = x.shape[1]
    xs = (x[:, None, :] + fractions * step_x[:, None, :]).reshape(-1, n)
    ys = (y[:, None, :] + fractions * step_y[:, None, :]).reshape(-1, n)
    np.clip(xs, -half_x, half_x, out=xs)
    np.clip(ys, -half_y, half_y, out=ys)
    twice = sum_in_order(xs * np.roll(ys, -1, axis=0) - np.roll(xs, -1, axis=0) * ys)
    area: np.ndarray = np.abs(twice) / 2.0
    return area


def _crossing_times(along: np.ndarray, step: np.ndarray, half: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Where edges ``along + t · step`` (``(k, n)``) cross the lines ``±half``.

    Returns the earlier and the later ``t``. An edge parallel to the lines crosses
    neither: both times are 0 (no extra point).
    """
    moving = step != 0.0
    safe = np.where(moving, step, 1.0)
    with np.errstate(over="ignore"):  # a near-zero step: t is huge, clipped to [0, 1] later
        low = (-half - along) / safe
        high = (half - along) / safe
    return (np.where(moving, np.minimum(low, high), 0.0),
            np.where(moving, np.maximum(low, high), 0.0))
