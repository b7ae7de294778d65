"""Exact intersection volume of two oriented boxes as a sum over 60 lines, for speed.

The general path's clipping (:mod:`app.core.geometry.cuboid_clip`) builds the
intersection polyhedron plane by plane; it is robust in every configuration but costs
some 20 µs per pair in numpy, mostly in packing its growing edge arrays. This module
computes the same volume with fixed-size arrays and no packing at all, for the pairs
whose geometry is well conditioned; the others (and only they) are left to clipping.

The formula
-----------
By the divergence theorem a convex polyhedron's volume is a sum over its edges:
``V = 1/6 Σ_edges (f_left − f_right) · (p × q)``, where the edge runs from ``p`` to
``q``, ``left`` is the face walking it that way counter-clockwise seen from outside and
``f = h n`` is the foot of the perpendicular from the origin (``a``'s centre) onto a
face's plane ``n · x = h``. The edges of ``A ∩ B`` lie on 60 known lines: the 12 edge
lines of ``A``, the 12 of ``B``, and the 36 lines where a face plane of ``A`` meets one
of ``B``. On each line ``x = b + s d`` with ``d = n_left × n_right`` the edge is exactly
the part of the line inside both boxes, an interval ``[s_lo, s_hi]`` cut out by the four
slabs that do not hold the line's own planes, and ``p × q = (s_hi − s_lo) (b × d)``.
Worked out, ``(f_left − f_right) · (b × d) = 2 h_l h_r − c (h_l² + h_r²)`` with
``c = n_l · n_r`` (``2 h_l h_r`` for a box's own edges), whichever face is called left,
so

``V = 1/6 Σ_lines max(0, s_hi − s_lo) · (2 h_l h_r − c (h_l² + h_r²))``,

with no polygon built, sorted or packed: a line that misses the intersection has an
empty interval and adds 0. The lines come in 15 families of parallel ones (4 each), so
every quantity is a fixed array laid out ``(family, line, pair)``, pairs along the
contiguous axis: numpy's loops run over the pairs, never over 3 coordinates.

When it is used, and why that bound
-----------------------------------
Each interval end is a division by ``n · d``, the cosine between a line and a slab's normal; all of
them are entries ``M_ij`` of the relative rotation (or 1). Where an entry is near 0 (an
edge nearly parallel to a face: touching edges, near-coplanar faces), an interval end is
ill-conditioned and, unlike clipping, nothing forces the neighbouring edges to share its
rounding. So the sum is only used when every ``|M_ij| ≥`` :data:`MIN_COSINE` and its
rounding bound is far inside the tests' ``1e-9``: the error of each term is at most a
few ulps of ``R³ / min |M_ij|`` (``R``: the distance between the centres plus both
half-diagonals), and a pair is only summed here when :data:`ERROR_FACTOR` ``× ε R³ / min
|M_ij|`` is below :data:`MAX_RELATIVE_ERROR` of the larger box's volume (which bounds
the union from below, so the IoU moves by less than that). Uniformly random rotations
send well under 1% of the pairs elsewhere, lidar boxes with a few hundredths of a radian
of tilt about 3% (a third at 0.002 rad); of those, the pairs without a grazing crossing
still come here (:mod:`app.core.geometry.cuboid_grazing`), the rest go to clipping;
yaw-only and aligned pairs never come here (the closed forms of
:mod:`app.core.geometry.cuboid_prism` take them); coplanar, touching-edge and grid
configurations with the fast paths turned off all go to clipping.

Sums are added in a fixed order (:mod:`app.core.geometry.fixed_order`): a pair's volume
never depends on the pairs computed alongside it.
"""

from __future__ import annotations

import numpy as np

MIN_COSINE = 1e-4
"""Smallest ``|M_ij|`` (cosine between an axis of one box and a face of the other)."""

ERROR_FACTOR = 10.0
"""Multiple of the unit ``ε R³ / min |M_ij|`` taken as the rounding bound of the sum.
Measured against clipping on 200,000-pair sets (random, thin, thin against thin, nested,
elongated, far from the origin, lidar-like tilts), the error never exceeded 0.81 unit;
near-degenerate configurations (touching edges and faces, shared ground planes, a grid,
turned by 1e-7 to 1e-2 rad) stay under 0.001 unit."""

MAX_RELATIVE_ERROR = 1e-10
"""Largest rounding bound, relative to the larger box's volume, accepted here: ten times
inside the tests' 1e-9 on the IoU, with the measured factor of ten to spare."""

CHUNK = 1024
"""Pairs summed at once: the ``(4, 9, pairs)`` temporaries stay in the caches."""

_EPS = float(np.finfo(np.float64).eps)


def summable(
    turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray, half_b: np.ndarray
) -> np.ndarray:
    """Pairs whose line sum is well conditioned (see the module docstring)."""
    cosine = np.abs(turn).min(axis=(1, 2))
    reach = (
        np.linalg.norm(shift, axis=1)
        + np.linalg.norm(half_a, axis=1)
        + np.linalg.norm(half_b, axis=1)
    )
    larger = 8.0 * np.maximum(half_a.prod(axis=1), half_b.prod(axis=1))
    bound = ERROR_FACTOR * _EPS * reach**3 / np.maximum(cosine, MIN_COSINE)
    ok: np.ndarray = (cosine >= MIN_COSINE) & (bound <= MAX_RELATIVE_ERROR * larger)
    return ok


def line_volumes(
    turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray, half_b: np.ndarray
) -> np.ndarray:
    """Intersection volume of each pair by the line sum, :data:`CHUNK` pairs at a time.

    In ``a``'s frame: ``turn`` (columns: ``b``'s axes), ``shift`` (``b``'s centre) and
    the half sizes, as :func:`~app.core.geometry.cuboid_boxes.relative_pose` gives them.
    Only meaningful for :func:`summable` pairs.
    """
    volume = np.zeros(len(turn))
    for start in range(0, len(turn), CHUNK):
        part = slice(start, start + CHUNK)
        volume[part] = _line_sum(turn[part], shift[part], half_a[part], half_b[part])
    return volume


_I = np.arange(3)
_NEXT, _LAST = (_I + 1) % 3, (_I + 2) % 3
_SIGNS = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])[:, :, None]
"""The four sign pairs ``(σ1, σ2)`` of a family of parallel lines, shape ``(4, 2, 1)``."""
_FAMILY_I, _FAMILY_J = np.repeat(_I, 3), np.tile(_I, 3)
"""The 9 families of face-face lines: face axis ``i`` of ``a``, ``j`` of ``b``."""


def _line_sum(
    turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray, half_b: np.ndarray
) -> np.ndarray:
    """The line sum of each pair, on arrays laid out ``(lines, ..., pairs)``.

    Pairs run along the last, contiguous axis, so every numpy loop is as long as the
    chunk (a trailing axis of 3 components would make numpy's inner loops 3 long).
    (A first version on ``(pairs, 60, 4, 3)`` arrays, with generic base points and
    weights, ran at a fifth of this speed.)

    The four lines of a family differ by signs ``(σ1, σ2)`` only, and a sign commutes
    with rounding: each signed product (``σ x · y``) is computed once per family and its
    four sign combinations written out by an addition or a subtraction each, into
    ``(4, ..., pairs)`` buffers. Every value is rounded exactly as the plain broadcast
    expressions (in the docstrings) round it; only the number of passes drops. The 60
    terms are added into one total in their fixed order (a's edges, b's edges, the face
    lines), which is :func:`~app.core.geometry.fixed_order.sum_in_order` of them all.
    """
    m = np.ascontiguousarray(turn.transpose(1, 2, 0))  # m[i, j] = M_ij, shape (3, 3, n)
    t = np.ascontiguousarray(shift.T)
    ha, hb = np.ascontiguousarray(half_a.T), np.ascontiguousarray(half_b.T)
    g = m[0] * t[0] + m[1] * t[1] + m[2] * t[2]  # g[j]: b's centre along b's axis j
    total = np.zeros(len(turn))
    for terms in (_a_edges(m, g, ha, hb), _b_edges(m, t, g, ha, hb), _face_lines(m, g, ha, hb)):
        for row in terms.reshape(-1, len(turn)):
            total += row
    volume: np.ndarray = total / 6.0
    return volume


def _signed(plus: np.ndarray, minus: np.ndarray, x: np.ndarray, out: np.ndarray
            ) -> np.ndarray:
    """Rows ``(plus + x, minus + x, plus − x, minus − x)`` into ``out`` ``(4, ...)``: the
    four sign combinations ``(σ1, σ2)`` of ``(σ2 … ) + σ1 x`` in the order of
    :data:`_SIGNS`, given ``plus`` and ``minus`` for ``σ2 = ±1``."""
    np.add(plus, x, out=out[0])
    np.add(minus, x, out=out[1])
    np.subtract(plus, x, out=out[2])
    np.subtract(minus, x, out=out[3])
    return out


def _narrow(low: np.ndarray, high: np.ndarray, middle: np.ndarray, reach: np.ndarray
            ) -> None:
    """``[low, high]`` narrowed in place to ``middle ± reach`` (``middle`` is used up)."""
    first = middle - reach
    middle += reach
    np.maximum(low, first, out=low)
    np.minimum(high, middle, out=high)


def _a_edges(m: np.ndarray, g: np.ndarray, ha: np.ndarray, hb: np.ndarray) -> np.ndarray:
    """The 12 edges of ``a``: the part of each inside ``b``, times ``2 h_1 h_2``.

    Edge along axis ``k`` at ``σ1 ha[k+1] e_(k+1) + σ2 ha[k+2] e_(k+2)``; its planes
    are at distances ``ha[k+1]`` and ``ha[k+2]`` from ``a``'s centre (the origin). Each
    of ``b``'s slabs ``j`` cuts it to ``(g[j] − at) / M_kj ± hb[j] / |M_kj|`` with
    ``at = σ1 ha[k+1] M_(k+1)j + σ2 ha[k+2] M_(k+2)j``.
    """
    h1, h2 = ha[_NEXT], ha[_LAST]  # (3, n)
    n = ha.shape[1]
    low = np.empty((4, 3, n))
    low[:] = -ha
    high = np.empty((4, 3, n))
    high[:] = ha
    middle = np.empty((4, 3, n))
    for j in range(3):
        first, second = h1 * m[_NEXT, j], h2 * m[_LAST, j]
        # g − at for (σ1, σ2): g − (f + s), g − (f − s), g + (f − s), g + (f + s).
        both, apart = first + second, first - second
        np.subtract(g[j], both, out=middle[0])
        np.subtract(g[j], apart, out=middle[1])
        np.add(g[j], apart, out=middle[2])
        np.add(g[j], both, out=middle[3])
        inverse = 1.0 / m[_I, j]
        middle *= inverse
        _narrow(low, high, middle, hb[j] * np.abs(inverse))
    weight = 2.0 * h1 * h2
    high -= low
    np.maximum(high, 0.0, out=high)
    high *= weight
    return high


def _b_edges(
    m: np.ndarray, t: np.ndarray, g: np.ndarray, ha: np.ndarray, hb: np.ndarray
) -> np.ndarray:
    """The 12 edges of ``b``: the part of each inside ``a``, times ``2 h_1 h_2``.

    Edge along ``b``'s axis ``k`` at ``t + σ1 hb[k+1] u_(k+1) + σ2 hb[k+2] u_(k+2)``;
    its planes are at distances ``σ1 g[k+1] + hb[k+1]`` and ``σ2 g[k+2] + hb[k+2]``
    from ``a``'s centre. Each of ``a``'s slabs ``i`` cuts it to ``(0 − at) / M_ik ±
    ha[i] / |M_ik|`` with ``at = t[i] + σ1 hb[k+1] M_i(k+1) + σ2 hb[k+2] M_i(k+2)``.
    """
    g1, g2, b1, b2 = g[_NEXT], g[_LAST], hb[_NEXT], hb[_LAST]
    n = hb.shape[1]
    low = np.empty((4, 3, n))
    low[:] = -hb
    high = np.empty((4, 3, n))
    high[:] = hb
    at = np.empty((4, 3, n))
    for i in range(3):
        first, second = b1 * m[i, _NEXT], b2 * m[i, _LAST]
        # (t + σ1 f) + σ2 s, in the order of _SIGNS.
        ahead, behind = t[i] + first, t[i] - first
        np.add(ahead, second, out=at[0])
        np.subtract(ahead, second, out=at[1])
        np.add(behind, second, out=at[2])
        np.subtract(behind, second, out=at[3])
        inverse = 1.0 / m[i, _I]
        middle = np.subtract(0.0, at, out=at)
        middle *= inverse
        _narrow(low, high, middle, ha[i] * np.abs(inverse))
    # 2 h1 h2 with h1 = σ1 g1 + b1 and h2 = σ2 g2 + b2.
    near1, far1 = 2.0 * (g1 + b1), 2.0 * (b1 - g1)
    near2, far2 = g2 + b2, b2 - g2
    weight = np.empty((4, 3, n))
    np.multiply(near1, near2, out=weight[0])
    np.multiply(near1, far2, out=weight[1])
    np.multiply(far1, near2, out=weight[2])
    np.multiply(far1, far2, out=weight[3])
    high -= low
    np.maximum(high, 0.0, out=high)
    high *= weight
    return high


def _face_lines(m: np.ndarray, g: np.ndarray, ha: np.ndarray, hb: np.ndarray) -> np.ndarray:
    """The 36 lines where a face of ``a`` (axis ``i``) meets a face of ``b`` (axis ``j``).

    In ``a``'s frame the line lies in ``x_i = ρ ha[i]`` and ``u_j · x = g[j] + σ hb[j]``;
    it runs along ``D = e_i × u_j`` (``|D|² = 1 − M_ij²``) from the base point
    ``ρ ha[i] e_i + λ (M_(i+1)j e_(i+1) + M_(i+2)j e_(i+2))``, with
    ``λ = (g[j] + σ hb[j] − ρ ha[i] M_ij) / (1 − M_ij²)``. Its planes are at distances
    ``ha[i]`` and ``σ g[j] + hb[j]`` and meet at the cosine ``c = ρ σ M_ij``, so its
    weight is ``2 h_1 h_2 − c (h_1² + h_2²)``. It is cut by ``a``'s slabs ``i+1, i+2``
    and ``b``'s slabs ``j+1, j+2``.
    """
    i, j = _FAMILY_I, _FAMILY_J
    i1, i2, j1, j2 = _NEXT[i], _LAST[i], _NEXT[j], _LAST[j]
    cosine, a1, a2 = m[i, j], m[i1, j], m[i2, j]  # (9, n)
    n = m.shape[2]
    h_a, gj, hbj = ha[i], g[j], hb[j]
    # λ for (ρ, σ) in the order of _SIGNS: ((g + σ hb) − ρ ha M_ij) / (1 − M_ij²).
    turned = h_a * cosine
    lam = _signed(gj + hbj, gj - hbj, -turned, np.empty((4, 9, n)))
    lam /= 1.0 - cosine * cosine
    # The base point's coordinates i+1, i+2 are λ M_(i+1)j and λ M_(i+2)j, and it lies at
    # M_ij' (ρ ha[i] − λ M_ij) along b's axis j'. Each slab's interval in s is then
    # ``middle ± reach`` with per-family factors (9, n), so the (4, 9, n) work is a
    # multiply-add per slab.
    high: np.ndarray = lam * (a1 / a2)
    reach = ha[i1] / np.abs(a2)
    low = high - reach
    high += reach
    _narrow(low, high, lam * (-a2 / a1), ha[i2] / np.abs(a1))
    shared = lam * cosine  # then ρ ha[i] − λ M_ij, row by row
    np.subtract(h_a, shared[0:2], out=shared[0:2])
    np.subtract(-h_a, shared[2:4], out=shared[2:4])
    for other in (j1, j2):
        inverse = 1.0 / (a1 * m[i2, other] - a2 * m[i1, other])  # 1 / (u_j' · D)
        middle = shared * (m[i, other] * inverse)
        np.subtract(g[other] * inverse, middle, out=middle)
        _narrow(low, high, middle, hb[other] * np.abs(inverse))
    # 2 ha h_b − ρ σ M_ij (ha² + h_b²) with h_b = σ g + hb: per σ, then ∓ by ρ σ.
    near, far = gj + hbj, hbj - gj
    double, square = 2.0 * h_a, h_a * h_a
    tilt_near = cosine * (square + near * near)
    tilt_far = cosine * (square + far * far)
    weight = np.empty((4, 9, n))
    np.subtract(double * near, tilt_near, out=weight[0])
    np.add(double * far, tilt_far, out=weight[1])
    np.add(double * near, tilt_near, out=weight[2])
    np.subtract(double * far, tilt_far, out=weight[3])
    high -= low
    np.maximum(high, 0.0, out=high)
    high *= weight
    return high
