"""Overlap area of two rectangles as a sum over their 8 sides: the prism path's 2D core.

The shared-axis (prism) path of :mod:`app.core.geometry.cuboid_prism` needs the area of
``b``'s rectangle inside ``a``'s, seen along the shared axis. Its branch-free clamp
construction (:func:`~app.core.geometry.cuboid_prism.clipped_rectangle_areas`) needs no
tolerance at all, but splits every edge into five points. This is the 2D version of
:mod:`app.core.geometry.cuboid_lines`, about three times cheaper, for the pairs where it
is well conditioned.

By the divergence theorem in the plane, ``area = 1/2 Σ_edges h L``: an edge of the
overlap at distance ``h`` from the origin (``a``'s centre; ``h`` signed along the
outward normal) and of length ``L`` adds ``h L / 2``. Every edge of the overlap is the
part of one side of either rectangle that lies inside the other, an interval on that
side's line cut by the other rectangle's two slabs (and its own ends). Each cut divides
by a cosine between the two rectangles' axes; where one is near 0 (sides nearly
parallel: a relative yaw near a multiple of 90°), the interval ends are ill-conditioned,
so such pairs stay with the clamp construction (:func:`summable`, the same rounding
bound as the 3D sum with ``R²`` for ``R³``).
"""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_lines import ERROR_FACTOR, MAX_RELATIVE_ERROR, MIN_COSINE

_EPS = float(np.finfo(np.float64).eps)
_SIDES = np.array([-1.0, 1.0])[:, None]
"""The two sides ``±`` of a rectangle along one axis, shape ``(2, 1)``."""


def summable(
    c: tuple[np.ndarray, np.ndarray],
    u: tuple[np.ndarray, np.ndarray],
    v: tuple[np.ndarray, np.ndarray],
    half_a: tuple[np.ndarray, np.ndarray],
    half_b: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """Pairs whose side sum is well conditioned (see the module docstring).

    ``c``: ``b``'s centre in ``a``'s plane coordinates; ``u``, ``v``: ``b``'s two unit
    axes there; the half sizes of ``a`` and ``b`` along their axes. Each is a pair of
    ``(n,)`` arrays.
    """
    cosine = np.minimum(
        np.minimum(np.abs(u[0]), np.abs(u[1])), np.minimum(np.abs(v[0]), np.abs(v[1]))
    )
    reach = np.hypot(c[0], c[1]) + np.hypot(half_a[0], half_a[1]) + np.hypot(half_b[0], half_b[1])
    larger = 4.0 * np.maximum(half_a[0] * half_a[1], half_b[0] * half_b[1])
    bound = ERROR_FACTOR * _EPS * reach * reach / np.maximum(cosine, MIN_COSINE)
    ok: np.ndarray = (cosine >= MIN_COSINE) & (bound <= MAX_RELATIVE_ERROR * larger)
    return ok


def _overlap(
    low: np.ndarray, high: np.ndarray, at: np.ndarray, slope: np.ndarray, width: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Narrow ``[low, high]`` to where ``at + s · slope`` lies in ``± width``."""
    inverse = 1.0 / slope
    middle = -at * inverse
    reach = width * np.abs(inverse)
    first = middle - reach
    middle += reach
    np.maximum(low, first, out=first)
    np.minimum(high, middle, out=middle)
    return first, middle


def side_sum_areas(
    c: tuple[np.ndarray, np.ndarray],
    u: tuple[np.ndarray, np.ndarray],
    v: tuple[np.ndarray, np.ndarray],
    half_a: tuple[np.ndarray, np.ndarray],
    half_b: tuple[np.ndarray, np.ndarray],
) -> np.ndarray:
    """Area of ``b``'s rectangle inside ``a``'s (arguments as :func:`summable`)."""
    cx, cy = c
    u1, u2 = u
    v1, v2 = v
    a1, a2 = half_a
    b1, b2 = half_b
    terms = []
    # a's sides x = ±a1 (along y) and y = ±a2 (along x), at distances a1 and a2.
    for h, own, across, (p_u, p_v), (q_u, q_v), (along_u, along_v), centre_along in (
        (a1, a2, _SIDES * a1 - cx, (u1, v1), (u2, v2), (u2, v2), cy),
        (a2, a1, _SIDES * a2 - cy, (u2, v2), (u1, v1), (u1, v1), cx),
    ):
        low, high = -own, own
        low, high = _overlap(low, high, across * p_u - centre_along * q_u, along_u, b1)
        low, high = _overlap(low, high, across * p_v - centre_along * q_v, along_v, b2)
        terms.append(h * np.maximum(high - low, 0.0))
    # b's sides α = ±b1 (along V) and β = ±b2 (along U), at σ c·U + b1 and σ c·V + b2.
    for h, offset, own, (side_x, side_y), (step_x, step_y) in (
        (_SIDES * (cx * u1 + cy * u2) + b1, b1, b2, (u1, u2), (v1, v2)),
        (_SIDES * (cx * v1 + cy * v2) + b2, b2, b1, (v1, v2), (u1, u2)),
    ):
        low, high = -own, own
        low, high = _overlap(low, high, cx + _SIDES * offset * side_x, step_x, a1)
        low, high = _overlap(low, high, cy + _SIDES * offset * side_y, step_y, a2)
        terms.append(h * np.maximum(high - low, 0.0))
    total = terms[0][0] + terms[0][1]
    for pair in terms[1:]:
        total = total + pair[0] + pair[1]
    area: np.ndarray = total / 2.0
    return area
