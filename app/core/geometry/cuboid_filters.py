"""Pre-filters that make non-overlapping cuboid pairs cost almost nothing.

Clipping (:mod:`app.core.geometry.cuboid_clip`) costs some 30-40 µs per pair, yet in a
lidar scene almost every cross pair of two annotators' boxes is far apart. Two
conservative tests run first, so only pairs that really overlap, or touch, are clipped:

1. **Bounding spheres** (:func:`spheres_apart` or :func:`columns_apart`, and
   :func:`near_cross_pairs` over every cross pair of a batch at once): centres further
   apart than the sum of the half-diagonals have intersection volume 0. Touching
   spheres are *not* apart (the exact path then decides), so the filter never changes
   a result, it only saves work.
2. **Separating axes** (:func:`separated`) on the survivors whose rotation takes no
   closed form: 15 axes, conservative by the plane tolerance. The separating-axis test
   only rules a pair out when the gap exceeds the same tolerance as the clipping
   (:data:`~app.core.geometry.cuboid_clip.PLANE_TOLERANCE` × scale): near-parallel edges
   give near-zero axes on which rounding could otherwise fake a gap.
"""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_boxes import half_diagonals
from app.core.geometry.cuboid_clip import PLANE_TOLERANCE

SPHERE_CHUNK = 1 << 16
"""Cross pairs of a batch sphere-tested at once by :func:`near_cross_pairs`."""


def spheres_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pre-filter: ``True`` where two boxes certainly do not overlap.

    Centres further apart than the sum of the half-diagonals: the bounding spheres are
    disjoint, so the boxes are too. Touching spheres are *not* apart (the exact path
    then decides), so the filter never changes a result, it only saves work.
    """
    distance = np.linalg.norm(a[:, 0:3] - b[:, 0:3], axis=1)
    apart: np.ndarray = distance > half_diagonals(a) + half_diagonals(b)
    return apart


def columns_apart(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
    """:func:`spheres_apart` on box columns ``(10, k)`` (as
    :func:`~app.core.geometry.cuboid_boxes.checked_columns` lays them out), with the same
    arithmetic: every loop runs over contiguous pairs."""
    squares = ca[0:3] - cb[0:3]
    squares *= squares
    distance = np.sqrt(np.add(squares[0], squares[1], out=squares[0]) + squares[2])
    radii = np.zeros(ca.shape[1])
    for sizes in (ca[3:6], cb[3:6]):  # each half-diagonal as half_diagonals has it
        np.multiply(sizes, sizes, out=squares)
        radii += np.sqrt(np.add(squares[0], squares[1], out=squares[0]) + squares[2]) / 2.0
    apart: np.ndarray = distance > radii
    return apart


def near_cross_pairs(rows_a: np.ndarray, rows_b: np.ndarray, n_a: np.ndarray,
                     n_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cross pairs of a batch whose bounding spheres meet.

    The batch's cells are numbered pair by pair, row-major within each pair (the row of
    global box ``r`` of ``a`` is a contiguous run of ``n_b`` cells).

    Why a window: a lidar batch holds a million cells of which 3% are near, and the sphere
    test of every cell was a fifth of the IoU's time. Two spheres that meet are at most
    ``ra + rb`` apart along x, so each box of ``a`` looks only at the boxes of ``b`` of
    its own pair within ``ra + max rb`` (and a margin) along x: all of a pair's boxes
    sorted by x on one line, pairs one after another with gaps wider than any window, and
    each window found by binary search. The sphere test then runs on those candidates
    only, with the same arithmetic (:func:`_meeting`), and the cells come back in
    ascending order: the same cells, rows and order as testing every cell
    (:func:`_all_cross_pairs`, still used where the line's numbers would lose the
    precision a window needs).

    Returns
    -------
    tuple of numpy.ndarray
        The flat cell index, the global row in ``rows_a`` and the one in ``rows_b`` of
        each cross pair the sphere test cannot rule out.
    """
    empty = np.zeros(0, dtype=np.intp)
    if not len(rows_a) or not len(rows_b):
        return empty, empty, empty
    radii_a, radii_b = half_diagonals(rows_a), half_diagonals(rows_b)
    pair_a = np.repeat(np.arange(len(n_a)), n_a)
    pair_b = np.repeat(np.arange(len(n_b)), n_b)
    xa, xb = np.ascontiguousarray(rows_a[:, 0]), np.ascontiguousarray(rows_b[:, 0])
    widest = float(radii_b.max())
    low = min(float(xa.min()), float(xb.min()))
    high = max(float(xa.max()), float(xb.max()))
    gap = 2.0 * (float(radii_a.max()) + widest) + 1.0
    span = (high - low) + gap  # a pair's stretch of the line, and the gap to the next
    top = span * len(n_a)
    if not (np.isfinite(top) and top < _LINE_LIMIT):
        return _all_cross_pairs(rows_a, rows_b, n_a, n_b, radii_a, radii_b)
    # Keys and bounds are each off by a few units in the last place of ``top``: the
    # margin covers that many times over, and rounding in the sphere test itself.
    margin = top * 2.0**-40 + 1e-9 * gap
    line_b = pair_b * span + (xb - low)
    order = np.argsort(line_b, kind="stable")
    line = line_b[order]
    line_a = pair_a * span + (xa - low)
    half = radii_a + (widest + margin)
    first = np.searchsorted(line, line_a - half, side="left")
    counts = np.searchsorted(line, line_a + half, side="right") - first
    width = n_b[pair_a]  # cells in the row of each box of a
    row_start = np.cumsum(width) - width
    first_b = (np.cumsum(n_b) - n_b)[pair_a]  # the pair's first box of b, for each row
    ends = np.cumsum(counts)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    r0 = 0
    while r0 < len(rows_a):  # rows taken in runs of about SPHERE_CHUNK candidates
        r1 = int(np.searchsorted(ends, ends[r0] - counts[r0] + SPHERE_CHUNK, side="right"))
        r1 = max(r1, r0 + 1)
        run = counts[r0:r1]
        ia = np.repeat(np.arange(r0, r1), run)
        starts = np.cumsum(run) - run
        jb = order[np.arange(int(run.sum())) - np.repeat(starts - first[r0:r1], run)]
        same = pair_b[jb] == pair_a[ia]  # a window never reaches the next pair: a guard
        ia, jb = ia[same], jb[same]
        near = _meeting(rows_a, rows_b, radii_a, radii_b, ia, jb)
        ia, jb = ia[near], jb[near]
        found.append((row_start[ia] + (jb - first_b[ia]), ia, jb))
        r0 = r1
    cells, ia, jb = (np.concatenate(x) for x in zip(*found, strict=True))
    ascending = np.argsort(cells, kind="stable")
    return cells[ascending], ia[ascending], jb[ascending]


_LINE_LIMIT = 2.0**40
"""Largest extent of the line of windows (:func:`near_cross_pairs`): its numbers then
keep a precision of 2^-12, far inside the margin."""


def _meeting(rows_a: np.ndarray, rows_b: np.ndarray, radii_a: np.ndarray,
             radii_b: np.ndarray, ia: np.ndarray, jb: np.ndarray) -> np.ndarray:
    """Whether the bounding spheres of the boxes ``ia`` of ``a`` and ``jb`` of ``b`` meet:
    centre distance at most the sum of the radii (each pair on its own)."""
    dx = rows_a[ia, 0] - rows_b[jb, 0]
    dy = rows_a[ia, 1] - rows_b[jb, 1]
    dz = rows_a[ia, 2] - rows_b[jb, 2]
    distance = np.sqrt(dx * dx + dy * dy + dz * dz)
    near: np.ndarray = distance <= radii_a[ia] + radii_b[jb]
    return near


def _all_cross_pairs(rows_a: np.ndarray, rows_b: np.ndarray, n_a: np.ndarray,
                     n_b: np.ndarray, radii_a: np.ndarray, radii_b: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`near_cross_pairs` by testing every cell: one ``np.repeat`` over the rows
    gives every cell's box of ``a`` and the ``b`` box follows by subtraction; rows are
    taken in runs of about :data:`SPHERE_CHUNK` cells to bound the temporaries."""
    width = np.repeat(n_b, n_a)  # cells in the row of each box of a
    first_b = np.repeat(np.cumsum(n_b) - n_b, n_a)  # its pair's first box of b
    row_end = np.cumsum(width)
    row_start = row_end - width
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    r0 = 0
    while r0 < len(width):
        r1 = int(np.searchsorted(row_end, row_start[r0] + SPHERE_CHUNK, side="right"))
        r1 = max(r1, r0 + 1)
        cells = np.arange(row_start[r0], row_end[r1 - 1])
        counts = width[r0:r1]
        ia = np.repeat(np.arange(r0, r1), counts)
        jb = cells - np.repeat(row_start[r0:r1] - first_b[r0:r1], counts)
        near = _meeting(rows_a, rows_b, radii_a, radii_b, ia, jb)
        found.append((cells[near], ia[near], jb[near]))
        r0 = r1
    cells_all, ia_all, jb_all = (np.concatenate(x) for x in zip(*found, strict=True))
    return cells_all, ia_all, jb_all


def separated(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
              half_b: np.ndarray) -> np.ndarray:
    """Second pre-filter: the separating-axis test, conservative.

    Two convex boxes are disjoint exactly when their projections on one of 15 axes (the
    3 + 3 face normals and the 9 cross products of edge directions) do not overlap. The
    gap must exceed the plane tolerance (in metres; the cross-product axes are not
    normalized, so a near-zero axis can never claim a separation on rounding alone), so
    every pair it rules out truly has volume 0: it saves the clipping of the pairs whose
    bounding spheres meet but whose boxes do not.
    """
    tol = PLANE_TOLERANCE * (np.linalg.norm(shift, axis=1) + np.linalg.norm(half_a, axis=1)
                             + np.linalg.norm(half_b, axis=1))
    # Laid out (3, 3, pairs) and (3, pairs), pairs contiguous: every numpy loop runs over
    # the pairs (strided (pairs, 3, 3) columns made this filter a tenth of a lidar call).
    # The same products added in the same order as before, so the same bits.
    m = np.ascontiguousarray(turn.transpose(1, 2, 0))
    t, ha, hb = (np.ascontiguousarray(x.T) for x in (shift, half_a, half_b))
    size = np.abs(m)
    apart = np.zeros(len(turn), dtype=bool)
    for i in range(3):  # a's face normals, then b's
        reach = size[i, 0] * hb[0] + size[i, 1] * hb[1] + size[i, 2] * hb[2]
        apart |= np.abs(t[i]) - ha[i] - reach > tol
        along = m[0, i] * t[0] + m[1, i] * t[1] + m[2, i] * t[2]
        reach = size[0, i] * ha[0] + size[1, i] * ha[1] + size[2, i] * ha[2]
        apart |= np.abs(along) - hb[i] - reach > tol
    for i in range(3):  # the 9 cross products of edge directions
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            reach = (ha[i1] * size[i2, j] + ha[i2] * size[i1, j]
                     + hb[j1] * size[i, j2] + hb[j2] * size[i, j1])
            distance = np.abs(t[i2] * m[i1, j] - t[i1] * m[i2, j])
            apart |= distance - reach > tol
    return apart
