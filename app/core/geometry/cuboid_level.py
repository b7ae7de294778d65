"""Yaw-only box pairs in the sensor frame (the lidar case): the prism path on columns.

Why a lane of its own
---------------------
KITTI-style lidar boxes are turned about the sensor's ``z`` only: their quaternions are
``(0, 0, z, w)``, so two such boxes share their vertical axis exactly and the overlap is
a right prism: the overlap of two rectangles in the ground plane times the overlap of two
height intervals (:mod:`app.core.geometry.cuboid_prism` explains the closed form). Potato's
own ``iou_cuboid_3d`` has a cheap yaw-only branch too, so on such pairs it costs some
27 µs per pair, and issue 38 asks for 100× that: about 270 ns per pair for the whole call,
validation included. The general prism path (3 × 3 matrices, then the 8-side sum of
:mod:`app.core.geometry.cuboid_rectangles` on pairs of ``(n,)`` arrays, a hundred numpy
calls per block) took some 380 ns.

This module works on a block of pairs laid out as **columns** (``(10, k)``: one
contiguous row per box field, see
:func:`~app.core.geometry.cuboid_boxes.checked_columns`), and stacks the 4 families of
sides of the two rectangles into ``(4, k)`` arrays (family × pair), one side sign after
the other, so each numpy call does the work of four and every loop runs over contiguous
memory that stays in the cache (a block of 4,096 pairs: some 0.2 µs per pair, validation
and IoU included; numpy's per-call cost is most of it).

The side sum, stacked
---------------------
In ``a``'s frame ``a``'s rectangle is ``[±a1] × [±a2]``; ``b``'s has centre ``c = (cx,
cy)``, axes ``U = (p, q)`` and ``V = (−q, p)`` (``p, q``: cosine and sine of the relative
yaw) and half sizes ``b1, b2``; ``cu = c·U``, ``cv = c·V``. Twice the overlap area is
``Σ_sides h L``: each side of either rectangle, cut to the part inside the other, times
its distance ``h`` from ``a``'s centre (the divergence theorem in the plane, as
:mod:`~app.core.geometry.cuboid_rectangles`). A side is the segment ``[−T, T]`` of its own
line, cut by the other rectangle's two slabs; on each side ``s = ±1`` of a family, a
slab's interval is ``M − s K ± R``. Worked out (``ip = 1/p``, ``iq = 1/q``):

========== ============ ========== ========= ============ ========== ========= ====
family      M (slab X)   K (X)      R (X)     M (slab Y)   K (Y)      R (Y)     T
========== ============ ========== ========= ============ ========== ========= ====
a, x = ±a1  cu iq        a1 p iq    b1 |iq|   cv ip        −a1 q ip   b2 |ip|   a2
a, y = ±a2  −cv iq       −a2 p iq   b2 |iq|   cu ip        a2 q ip    b1 |ip|   a1
b, ±U side  cx iq        −b1 p iq   a1 |iq|   −cy ip       b1 q ip    a2 |ip|   b2
b, ±V side  −cy iq       b2 p iq    a2 |iq|   −cx ip       −b2 q ip   a1 |ip|   b1
========== ============ ========== ========= ============ ========== ========= ====

with ``h = a1, a2`` for ``a``'s sides and ``b1 + s cu``, ``b2 + s cv`` for ``b``'s. The
tests check this table against shapely's polygon intersection and against the general
prism path.

Conditioning: every interval end divides by ``p`` or ``q``, as in the 8-side sum, so the
same a-priori bound decides (:func:`level_volumes` returns it): where ``min(|p|, |q|)`` is
below :data:`~app.core.geometry.cuboid_lines.MIN_COSINE` or the rounding bound
``ERROR_FACTOR ε R² / min(|p|, |q|)`` exceeds ``MAX_RELATIVE_ERROR`` of the larger
rectangle, the caller takes the clamp construction
(:func:`~app.core.geometry.cuboid_prism.clipped_rectangle_areas`) instead, which needs no
tolerance (relative yaws within a hair of a multiple of 90°, e.g. two boxes with the same
yaw). Each pair's value depends on its own columns only (no sums across pairs), so it is
the same in any block.
"""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_lines import ERROR_FACTOR, MAX_RELATIVE_ERROR, MIN_COSINE
from app.core.geometry.cuboid_prism import clipped_rectangle_areas

_EPS = float(np.finfo(np.float64).eps)

_X_SIGNS = np.array([1.0, -1.0, 1.0, -1.0])[:, None]
"""Signs of slab X's ``M`` per family: ``[cu, −cv, cx, −cy] iq``."""
_Y_SIGNS = np.array([1.0, 1.0, -1.0, -1.0])[:, None]
"""Signs of slab Y's ``M`` per family: ``[cv, cu, −cy, −cx] ip``."""
_KX_SIGNS = np.array([1.0, -1.0, -1.0, 1.0])[:, None]
"""Signs of ``K`` on slab X per family (times ``[a1, a2, b1, b2] p iq``); slab Y's are
the opposite (times ``q ip``)."""
_NO_SIGNS = np.ones((4, 1))
_TANGENT = [1, 0, 3, 2]
"""Rows of the half sizes ``[a1, a2, b1, b2]`` giving each family's own half length."""


def level_volumes(ca: np.ndarray, cb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Overlap volume of yaw-only pairs given as columns, and where it is well conditioned.

    Parameters
    ----------
    ca, cb
        Checked box columns ``(10, k)`` whose quaternions' x and y parts are 0.

    Returns
    -------
    tuple of numpy.ndarray
        The volume of each pair (meaningless where the second array is ``False``), and
        whether the stacked side sum is well conditioned for it (see the module
        docstring); the others need :func:`clamped_volumes`.
    """
    plane = _plane(ca, cb)
    height = _heights(ca, cb)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ok = _summable(*plane)
        area = _side_sum(*plane)
    area *= height
    return area, ok


def clamped_volumes(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
    """:func:`level_volumes` by the clamp construction, for the pairs it refuses."""
    p, q, cx, cy, half = _plane(ca, cb)
    a1, a2, b1, b2 = half
    signs_u, signs_v = np.array([1.0, -1.0, -1.0, 1.0])[:, None], np.array(
        [1.0, 1.0, -1.0, -1.0])[:, None]  # b's corners in order around it
    x = cx + signs_u * (p * b1) + signs_v * (-q * b2)
    y = cy + signs_u * (q * b1) + signs_v * (p * b2)
    volume: np.ndarray = clipped_rectangle_areas(x, y, a1, a2) * _heights(ca, cb)
    return volume


_Plane = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _plane(ca: np.ndarray, cb: np.ndarray) -> _Plane:
    """``b``'s rectangle in ``a``'s plane frame: ``p``, ``q``, ``cx``, ``cy`` and the half
    sizes ``[a1, a2, b1, b2]`` stacked ``(4, k)``.

    With ``q = (0, 0, z, w)`` a box's yaw has ``cos = 1 − 2 z²`` and ``sin = 2 z w``, and
    the relative yaw comes from ``conj(q_a) · q_b = (0, 0, w_a z_b − z_a w_b, w_a w_b +
    z_a z_b)``: a few products per pair, no 3 × 3 matrices.
    """
    az, aw, bz, bw = ca[8], ca[9], cb[8], cb[9]
    cos_a, sin_a = 1.0 - 2.0 * (az * az), 2.0 * (az * aw)
    turn_z, turn_w = aw * bz - az * bw, aw * bw + az * bz
    p, q = 1.0 - 2.0 * (turn_z * turn_z), 2.0 * (turn_z * turn_w)
    dx, dy = cb[0] - ca[0], cb[1] - ca[1]
    cx, cy = cos_a * dx + sin_a * dy, cos_a * dy - sin_a * dx
    half = np.empty((4, ca.shape[1]))
    np.multiply(ca[3:5], 0.5, out=half[0:2])
    np.multiply(cb[3:5], 0.5, out=half[2:4])
    return p, q, cx, cy, half


def _heights(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
    """Overlap of the two height intervals (``a``'s centred on 0)."""
    reach, middle, other = ca[5] * 0.5, cb[2] - ca[2], cb[5] * 0.5
    height: np.ndarray = np.maximum(np.minimum(reach, middle + other)
                                    - np.maximum(-reach, middle - other), 0.0)
    return height


def _summable(p: np.ndarray, q: np.ndarray, cx: np.ndarray, cy: np.ndarray,
              half: np.ndarray) -> np.ndarray:
    """Pairs whose stacked side sum is well conditioned: the bound of
    :func:`~app.core.geometry.cuboid_rectangles.summable`, ``ERROR_FACTOR ε R² /
    min(|p|, |q|) ≤ MAX_RELATIVE_ERROR × 4 max(a1 a2, b1 b2)``, multiplied out."""
    cosine = np.minimum(np.abs(p), np.abs(q))
    a1, a2, b1, b2 = half
    reach = (np.sqrt(cx * cx + cy * cy) + np.sqrt(a1 * a1 + a2 * a2)
             + np.sqrt(b1 * b1 + b2 * b2))
    larger = np.maximum(a1 * a2, b1 * b2)
    ok: np.ndarray = ((cosine >= MIN_COSINE)
                      & (ERROR_FACTOR * _EPS * (reach * reach)
                         <= (4.0 * MAX_RELATIVE_ERROR) * (larger * cosine)))
    return ok


def _rows_of(out: np.ndarray, rows: tuple[np.ndarray, ...], factor: np.ndarray,
             signs: np.ndarray) -> None:
    """``out[r] = rows[r] · (signs[r] · factor)``, one row at a time (no stacked copies):
    the same bits as the stacked product, a sign being exact."""
    negative = -factor if (signs < 0).any() else factor
    for r, (row, sign) in enumerate(zip(rows, signs[:, 0], strict=True)):
        np.multiply(row, factor if sign > 0 else negative, out=out[r])


def _side_sum(p: np.ndarray, q: np.ndarray, cx: np.ndarray, cy: np.ndarray,
              half: np.ndarray) -> np.ndarray:
    """Overlap area of the two rectangles by the stacked side sum (module docstring)."""
    k = len(p)
    ip, iq = 1.0 / p, 1.0 / q
    cu, cv = p * cx + q * cy, p * cy - q * cx
    a1, a2, b1, b2 = half
    # The table's columns, row by row (a row per family): M, K and R of both slabs.
    mx, my, kx, ky, rx, ry = (np.empty((4, k)) for _ in range(6))
    _rows_of(mx, (cu, cv, cx, cy), iq, _X_SIGNS)
    _rows_of(my, (cv, cu, cy, cx), ip, _Y_SIGNS)
    slope_x, slope_y = p * iq, -(q * ip)
    _rows_of(kx, (a1, a2, b1, b2), slope_x, _KX_SIGNS)
    _rows_of(ky, (a1, a2, b1, b2), slope_y, _KX_SIGNS)
    reach_x, reach_y = np.abs(iq), np.abs(ip)
    _rows_of(rx, (b1, b2, a1, a2), reach_x, _NO_SIGNS)
    _rows_of(ry, (b2, b1, a2, a1), reach_y, _NO_SIGNS)
    # Each side s = ±1 in turn (M − s K per slab), on (family, pair) buffers that stay
    # in the cache: each slab's interval, both cut to ±T, the length of what is left.
    tangent = half[_TANGENT]
    minus_tangent = -tangent
    length = np.empty((2, 4, k))
    x, y, low = np.empty((4, k)), np.empty((4, k)), np.empty((4, k))
    for side, shifted in ((0, np.subtract), (1, np.add)):
        shifted(mx, kx, out=x)
        shifted(my, ky, out=y)
        np.subtract(x, rx, out=low)
        np.maximum(low, np.subtract(y, ry, out=length[side]), out=low)
        np.maximum(low, minus_tangent, out=low)
        x += rx
        y += ry
        np.minimum(x, y, out=x)
        np.minimum(x, tangent, out=x)
        x -= low
        np.maximum(x, 0.0, out=length[side])
    both = length[0] + length[1]  # (4, k): each family's two sides, same h for a's
    twice = (half[0] * both[0] + half[1] * both[1] + half[2] * both[2] + half[3] * both[3]
             + cu * (length[0, 2] - length[1, 2]) + cv * (length[0, 3] - length[1, 3]))
    area: np.ndarray = twice * 0.5
    return area
