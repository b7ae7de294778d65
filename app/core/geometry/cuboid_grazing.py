"""Near-parallel cuboid pairs the line sum still computes exactly: no grazing crossing.

Why
---
The line sum (:mod:`app.core.geometry.cuboid_lines`) bounds its rounding by
``ε R³ / min |M_ij|`` *a priori*: any of its interval ends may divide by the smallest
cosine between an axis of one box and a face of the other. Lidar boxes (a yaw with a
small pitch and roll) have four small entries in every pair's relative rotation (each
box's vertical axis against the other's side faces), so at a tilt spread of 0.002 rad a
third of the overlapping pairs failed that bound and went to clipping, which costs ten
times as much per pair (issue 38: the kernel fell to 30× Potato). Measured against
clipping, the line sum's error on those pairs was 4e-3 of that bound at most: the bound
is paid for interval ends that do not matter.

When a small cosine matters
---------------------------
An interval end that divides by ``M_ij`` is a point where a line of the intersection's
edge set crosses a plane nearly parallel to it, and every such point lies on an edge
*line* of one box (axis ``i`` of ``a``, or axis ``j`` of ``b``) where it meets a face
plane of the other (``b``'s ``j`` faces, or ``a``'s ``i`` faces): the three planes
meeting there have normals whose determinant is ``±M_ij``. If each of those edges (the
four segments of the box along that axis) lies wholly on one side of each such plane,
by a margin :data:`MARGIN` ``× R`` far above the rounding of these distances, then no
such point is a vertex of ``a ∩ b``, and each is computed at least that margin beyond
the exactly known end of the edge (or, on a face-face line, beyond the end set by the
edge's own slab), so it loses every ``max``/``min`` of the interval by far more than its
rounding: it cannot change the sum. The ends that remain divide by cosines of at least
``τ`` (the cosine at which the a-priori bound holds for this pair), so the line sum's
own bound holds with ``τ`` for ``min |M_ij|``.

Choices
-------
- ``weak`` entries: ``|M_ij| < τ`` with ``τ = max(MIN_COSINE, ERROR_FACTOR ε R³ /
  (MAX_RELATIVE_ERROR × larger volume))``, exactly the condition under which
  :func:`~app.core.geometry.cuboid_lines.summable` accepts a pair.
- Pairs with any ``|M_ij|`` below :data:`FLOOR` stay with clipping: the face-face lines
  of two nearly parallel faces place their base point through ``1 / (1 − M_ij²)``,
  whose relative rounding grows as ``ε / |M|²``; above the floor it stays under 1e-5.
  Pairs with ``τ`` above :data:`MAX_TAU` (boxes so thin for their distance that hardly
  any cosine is strong) stay with clipping too.
- Touching, coplanar and grazing configurations (an edge within the margin of a nearly
  parallel plane) all fail the test and are clipped, as before.
- The argument above is a conditioning argument with margins of 10³ and more, not a
  proof in interval arithmetic; it is checked against clipping and the scipy oracle on
  near-upright pairs at tilts from 0.01 to 2e-5 rad, on one ground plane, with coplanar
  tops, side by side with touching faces, nearly identical and far from the origin
  (largest difference 1.3e-12 of the larger volume; ``test_geometry_cuboid_grazing``).
"""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_lines import ERROR_FACTOR, MAX_RELATIVE_ERROR, MIN_COSINE

MARGIN = 1e-7
"""How far (relative to ``R``) an edge must stay from a nearly parallel plane. A grazing
point's parameter on a face-face line is rounded by about ``4 ε R / (|M_a| |M_b|)`` (its
two cosines) and lies at least ``MARGIN R / |M_b|`` beyond the end that wins: with both
cosines above :data:`FLOOR` the margin is some 10³ times the rounding."""

FLOOR = 1e-5
"""Smallest ``|M_ij|`` for which a pair may take this path."""

MAX_TAU = 0.1
"""Largest cosine threshold ``τ`` for which a pair may take this path."""

_EPS = float(np.finfo(np.float64).eps)
_SIGNS = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
"""The four corner offsets ``(σ1, σ2)`` of the edges along one axis."""


def free_of_grazing(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
                    half_b: np.ndarray) -> np.ndarray:
    """Pairs whose line sum is exact although some ``|M_ij|`` is small (see the module).

    Arguments as :func:`~app.core.geometry.cuboid_lines.line_volumes`, for pairs that
    :func:`~app.core.geometry.cuboid_lines.summable` refused.
    """
    m = np.ascontiguousarray(turn.transpose(1, 2, 0))  # (3, 3, n)
    t, ha, hb = (np.ascontiguousarray(x.T) for x in (shift, half_a, half_b))
    size = np.abs(m)
    reach = (np.linalg.norm(shift, axis=1) + np.linalg.norm(half_a, axis=1)
             + np.linalg.norm(half_b, axis=1))
    larger = 8.0 * np.maximum(half_a.prod(axis=1), half_b.prod(axis=1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tau = np.maximum(ERROR_FACTOR * _EPS * reach**3 / (MAX_RELATIVE_ERROR * larger),
                         MIN_COSINE)
    ok: np.ndarray = (size.min(axis=(0, 1)) >= FLOOR) & (tau <= MAX_TAU)
    margin = MARGIN * reach
    g = m[0] * t[0] + m[1] * t[1] + m[2] * t[2]  # b's centre along b's axes
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            weak = ok & (size[i, j] < tau)
            if not weak.any():
                continue
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            # a's edges along i against b's two j planes, u_j · x = g_j ± hb_j: along
            # such an edge u_j · x moves by ± ha_i M_ij about its middle.
            middles = (_SIGNS[:, 0:1] * ha[i1] * m[i1, j]
                       + _SIGNS[:, 1:2] * ha[i2] * m[i2, j] - g[j])  # (4, n)
            clear = _clear(middles, ha[i] * size[i, j] + margin, hb[j])
            # b's edges along j against a's two i planes, x_i = ± ha_i.
            middles = (t[i] + _SIGNS[:, 0:1] * hb[j1] * m[i, j1]
                       + _SIGNS[:, 1:2] * hb[j2] * m[i, j2])
            clear &= _clear(middles, hb[j] * size[i, j] + margin, ha[i])
            ok &= ~weak | clear
    return ok


def _clear(middles: np.ndarray, spread: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Whether each of the 4 edges (``middles ± spread``) keeps off both planes ``±level``.

    NaN (from a non-finite pair) compares false: not clear.
    """
    above = np.abs(middles - level) > spread
    below = np.abs(middles + level) > spread
    clear: np.ndarray = (above & below).all(axis=0)
    return clear
