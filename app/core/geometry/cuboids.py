"""Exact IoU of oriented 3D boxes (cuboids), vectorized over many pairs with numpy.

Why exact, and for any rotation
-------------------------------
``agreement.md`` (Sets of objects) asks for the exact 3D IoU of boxes rotated about any
axis, because Potato stores a full quaternion. A bird's-eye approximation or an
axis-aligned shortcut would score a pitched or rolled box wrongly, so the general path
below computes the intersection polyhedron itself.

Method
------
Boxes are rows ``[cx, cy, cz, l, w, h, qx, qy, qz, qw]`` (:func:`boxes_array`). For each
pair (a, b) the work happens in the frame of box ``a``, where ``a`` is the axis-aligned
box ``[-a_l/2, a_l/2] × [-a_w/2, a_w/2] × [-a_h/2, a_h/2]``:

1. **Polyhedron clipping.** Box ``b`` is a closed surface: 12 edges, each stored once
   with the face that walks it forwards (``left``) and the one that walks it backwards
   (``right``), faces counter-clockwise seen from outside. It is clipped by the 6
   half-spaces of ``a`` one after the other. Each edge keeps its inside part; each face
   that crosses the plane has exactly one *exit* and one *entry* point there, joined by
   a new edge (the chord) whose other face is the *cap*, the new face lying in the
   plane. The cap is then clipped by the remaining planes like any other face. As the
   surface is a set of edges, no polygon is ever sorted or walked in order: every step
   is a handful of vectorized operations on padded ``(pairs, edges, 3)`` arrays, packed
   after each plane so they stay as wide as the busiest pair needs (at most ~30 edges).
2. **Volume** by the divergence theorem: ``V = 1/6 · Σ_faces c_f · Σ_(p→q) p × q`` with
   ``c_f`` any point of face ``f``'s plane; an edge contributes
   ``(c_left − c_right) · (p × q) / 6``.

Why it is robust: every edge is stored once, so the point where it is cut is the same
floating-point point for both its faces, and every chord belongs to its face and to the
cap. The clipped surface is therefore closed *by construction*, whatever rounding does,
and the divergence theorem gives the volume it encloses: rounding can only move
vertices by rounding amounts, never count a piece of face twice or lose one. This is what
makes coplanar and touching faces safe: a face of ``b`` lying in a plane of ``a`` is
either kept (no cap is made there) or removed (the cap replaces it), never both; faces
touching from opposite sides enclose nothing. (Clipping the faces of each box by the
other box separately, the textbook alternative, counts a shared face twice or not at all
unless coplanarity is detected with a tolerance, and fails near-coplanar faces.) The
tests check that tilting one box of a coplanar configuration by an angle ``θ`` from
1e-5 down to 1e-14 moves the IoU by about ``θ``, continuously.

Two **pre-filters** make non-overlapping pairs cost almost nothing: bounding spheres
(centres further apart than the sum of the half-diagonals: 0) over all pairs, then the
separating-axis test (15 axes, conservative by the plane tolerance) on the survivors.
Only pairs that really overlap, or touch, are clipped.

Fast paths (exact, not approximations)
--------------------------------------
Clipping costs some 30-40 µs per overlapping pair; two closed forms take the common
cases for about 1-2 µs:

- **Aligned**: the relative rotation is a signed permutation (all axes parallel, e.g. two
  axis-aligned boxes or two boxes with the same quaternion). The intersection is a box:
  the product of three interval overlaps.
- **Shared axis** (a right prism): one axis of ``b`` is parallel to one axis of ``a``, up
  to sign. This is the lidar case: boxes rotated by yaw only, whatever the sensor's own
  tilt, share their vertical axis. Both boxes are then prisms over that axis, and so is
  their intersection: its volume is the area of the intersection of the two rectangles
  seen along the axis times the overlap of the two intervals on it. The rectangle
  overlap is found by clipping ``b``'s rectangle to ``a``'s in ``a``'s frame with a
  branch-free clamp construction (:func:`_clipped_rectangle_areas`) that needs no
  tolerance, so touching, coincident and identical rectangles are no special case.

Both paths are chosen from the relative rotation ``M = Ra^T Rb`` alone, and are exact in
exact arithmetic; tests check them against the general path and the scipy oracle to
1e-9, in frames turned at random so that the shared axis is not the sensor's ``z``.
``cuboid_iou_pairs(..., aligned_fast_path=False)`` turns both off.

Batches
-------
:func:`cuboid_iou_matrices` computes many small IoU matrices (one per annotator pair and
item) in one pass: the bounding-sphere test runs over every cross pair of the batch at
once and one :func:`cuboid_iou_pairs`-style pass takes all survivors, so numpy's
per-call overhead is paid once rather than per matrix. A pair's value never depends on
the pairs it is computed with (see :func:`_enclosed_volume`), so the batch gives exactly
the values of :func:`cuboid_iou_matrix` on each pair alone.

Choices and tolerances
----------------------
- **Plane tolerance.** A vertex within ``1e-12 × scale`` of a clipping plane (``scale``
  = distance between the centres plus both half-diagonals) counts as *on* the plane: it
  is kept where it is, and intersection points are only computed between a vertex
  clearly inside and one clearly outside, so no division is ever ill-conditioned. The
  volume error this allows is of the order of ``1e-12`` relative, far inside the ``1e-9``
  the tests demand against an independent oracle. The separating-axis test only rules a
  pair out when the gap exceeds the same tolerance (near-parallel edges give near-zero
  axes on which rounding could otherwise fake a gap).
- **Fast path tolerances.** The aligned path is used when every entry of the relative
  rotation matrix is within ``1e-12`` of 0 or ±1, the shared-axis path when the other
  entries of one row and one column are within ``1e-12`` of 0 (the common entry is then
  ±1 by orthogonality). That bounds the angle between the axes treated as parallel by
  about ``1e-12`` rad, so the volume error is of the order of ``1e-12`` relative: the
  boxes are parallel up to the rounding of their quaternions. Yaw-only boxes in the
  sensor frame give exact zeros (their quaternions' x and y parts are exactly 0).
- **Degenerate boxes** (a size of 0, so no volume): IoU 0 with anything, except that two
  *identical* degenerate boxes (the same point set: every corner of one is a corner of
  the other, to the plane tolerance) have IoU 1. This mirrors the spec's rule for
  zero-length segments ("two identical zero-length segments have IoU 1; any other
  zero-length case 0").
- The intersection volume is clamped to ``[0, min(vol_a, vol_b)]`` before the IoU so
  that rounding can never give a value outside ``[0, 1]``.
- Invalid boxes (a negative or non-finite size, a non-finite centre, a zero or
  non-finite quaternion) raise :class:`ValueError`. Quaternions are normalized.
- In exact arithmetic a convex face crossing a plane has one exit and one entry point.
  Should rounding ever produce more on some face (several vertices at the tolerance to
  the last bit), the pair is recomputed with a 64 then 4096 times larger tolerance. It
  has not happened on any test set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.model import Cuboid, normalized_quaternion

BOX_COLUMNS = 10
"""Columns of a box row: centre (3), size (3), unit quaternion (4)."""

PLANE_TOLERANCE = 1e-12
"""Relative distance under which a vertex counts as lying on a clipping plane."""

ALIGNED_TOLERANCE = 1e-12
"""How close to 0 or ±1 relative rotation entries must be for the aligned fast path."""

SHARED_AXIS_TOLERANCE = 1e-12
"""How close to 0 relative rotation entries must be for the shared-axis (prism) path."""

CHUNK = 2048
"""Pairs clipped at once: bounds the temporary arrays to a few tens of megabytes."""

BLOCK = 4096
"""Pairs classified (and sent to the closed forms) at once, for the same reason."""

SPHERE_CHUNK = 1 << 16
"""Cross pairs of a batch sphere-tested at once by :func:`cuboid_iou_matrices`."""

_RETRY_FACTORS = (1.0, 64.0, 4096.0)
"""Tolerance multipliers tried in turn for the (never yet seen) multi-exit faces."""

_SIGNS = np.array([[(i >> k) & 1 for k in range(3)] for i in range(8)],
                  dtype=np.float64) * 2.0 - 1.0
"""Corner ``i`` of a box has sign ``±1`` along axis ``k`` from bit ``k`` of ``i``."""

CUBOID_EDGES = np.array(
    [(i, i | (1 << k)) for i in range(8) for k in range(3) if not i & (1 << k)],
    dtype=np.intp)
"""The 12 edges as pairs of corner indices (corners differing in exactly one bit)."""

_FACES = np.array([[0, 4, 6, 2], [1, 3, 7, 5],   # -x, +x
                   [0, 1, 5, 4], [2, 6, 7, 3],   # -y, +y
                   [0, 2, 3, 1], [4, 5, 7, 6]],  # -z, +z
                  dtype=np.intp)
"""Corner indices of the 6 faces, counter-clockwise seen from outside the box."""

_FACE_AXIS = np.array([0, 0, 1, 1, 2, 2], dtype=np.intp)
_FACE_SIGN = np.array([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0])


# --------------------------------------------------------------------------- boxes


def boxes_array(cuboids: Sequence[Cuboid]) -> np.ndarray:
    """Pack cuboids into rows ``[cx, cy, cz, l, w, h, qx, qy, qz, qw]``.

    Parameters
    ----------
    cuboids
        The boxes, in metres, with their rotation quaternions.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 10)``; quaternions normalized so later code can trust them.
    """
    rows = [(*c.center, *c.size, *normalized_quaternion(c.rotation)) for c in cuboids]
    return np.array(rows, dtype=np.float64).reshape(len(rows), BOX_COLUMNS)


def _checked(boxes: np.ndarray, name: str) -> np.ndarray:
    """Validate ``(n, 10)`` box rows and return a float copy with unit quaternions."""
    rows = np.array(boxes, dtype=np.float64).reshape(-1, BOX_COLUMNS)
    if not np.isfinite(rows).all():
        raise ValueError(f"{name}: box centres, sizes and rotations must be finite")
    if (rows[:, 3:6] < 0).any():
        raise ValueError(f"{name}: box sizes must not be negative")
    norms = np.linalg.norm(rows[:, 6:10], axis=1)
    if (norms < 1e-12).any():
        raise ValueError(f"{name}: a rotation quaternion has no direction (zero)")
    rows[:, 6:10] /= norms[:, None]
    return rows


def rotation_matrices(quaternions: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(n, 3, 3)`` of unit quaternions ``(qx, qy, qz, qw)``.

    Columns are the box axes in the sensor frame, as :meth:`Cuboid.rotation_matrix`.
    """
    x, y, z, w = (quaternions[:, i] for i in range(4))
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
        np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
        np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
    ], axis=1)


def cuboid_corners(boxes: np.ndarray) -> np.ndarray:
    """The 8 corners of each box, shape ``(n, 8, 3)``, numbered as :meth:`Cuboid.corners`.

    Corner ``i`` takes sign ``+`` along the box's own axis ``k`` when bit ``k`` of ``i``
    is set, so :data:`CUBOID_EDGES` and the views share one numbering.
    """
    rows = _checked(boxes, "boxes")
    local = _SIGNS[None, :, :] * (rows[:, None, 3:6] / 2.0)
    turned = np.einsum("nij,ncj->nci", rotation_matrices(rows[:, 6:10]), local)
    corners: np.ndarray = turned + rows[:, None, 0:3]
    return corners


def wireframe_segments(boxes: np.ndarray) -> np.ndarray:
    """Line segments of the box edges for drawing, shape ``(n * 12, 2, 3)``.

    Box ``i`` owns rows ``12 i .. 12 i + 11`` in the order of :data:`CUBOID_EDGES`.
    """
    corners = cuboid_corners(boxes)
    segments: np.ndarray = corners[:, CUBOID_EDGES, :].reshape(-1, 2, 3)
    return segments


def _volumes(rows: np.ndarray) -> np.ndarray:
    """Box volumes ``l · w · h``."""
    volumes: np.ndarray = np.prod(rows[:, 3:6], axis=1)
    return volumes


def _half_diagonals(rows: np.ndarray) -> np.ndarray:
    """Radius of each box's bounding sphere."""
    radii: np.ndarray = np.linalg.norm(rows[:, 3:6], axis=1) / 2.0
    return radii


# --------------------------------------------------------------------------- IoU


def spheres_apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pre-filter: ``True`` where two boxes certainly do not overlap.

    Centres further apart than the sum of the half-diagonals: the bounding spheres are
    disjoint, so the boxes are too. Touching spheres are *not* apart (the exact path
    then decides), so the filter never changes a result, it only saves work.
    """
    distance = np.linalg.norm(a[:, 0:3] - b[:, 0:3], axis=1)
    apart: np.ndarray = distance > _half_diagonals(a) + _half_diagonals(b)
    return apart


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
    rows_a, rows_b = _checked(a, "a"), _checked(b, "b")
    if rows_a.shape != rows_b.shape:
        raise ValueError(f"{len(rows_a)} boxes in a but {len(rows_b)} in b")
    todo = np.flatnonzero(~spheres_apart(rows_a, rows_b))
    return _iou_of_rows(rows_a, rows_b, todo, aligned_fast_path)


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
    rows_a = _checked(np.concatenate(blocks_a), "a")
    rows_b = _checked(np.concatenate(blocks_b), "b")
    n_a = np.array([len(x) for x in blocks_a], dtype=np.intp)
    n_b = np.array([len(x) for x in blocks_b], dtype=np.intp)
    sizes = n_a * n_b
    ends = np.cumsum(sizes)
    flat = np.zeros(int(ends[-1]))
    cells, ia, jb = _near_cross_pairs(rows_a, rows_b, n_a, n_b)
    if cells.size:
        flat[cells] = _iou_of_rows(rows_a[ia], rows_b[jb], np.arange(cells.size), True)
    return [flat[end - size:end].reshape(rows, cols) for end, size, rows, cols
            in zip(ends.tolist(), sizes.tolist(), n_a.tolist(), n_b.tolist(), strict=True)]


def _near_cross_pairs(rows_a: np.ndarray, rows_b: np.ndarray, n_a: np.ndarray,
                      n_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cross pairs of a batch whose bounding spheres meet.

    The batch's cells are numbered pair by pair, row-major within each pair: the row of
    global box ``r`` of ``a`` is a contiguous run of ``n_b`` cells, so one ``np.repeat``
    over the rows gives every cell's box of ``a`` and the ``b`` box follows by
    subtraction. Rows are taken in runs of about :data:`SPHERE_CHUNK` cells to bound the
    temporaries.

    Returns
    -------
    tuple of numpy.ndarray
        The flat cell index, the global row in ``rows_a`` and the one in ``rows_b`` of
        each cross pair the sphere test cannot rule out.
    """
    width = np.repeat(n_b, n_a)  # cells in the row of each box of a
    first_b = np.repeat(np.cumsum(n_b) - n_b, n_a)  # its pair's first box of b
    row_end = np.cumsum(width)
    row_start = row_end - width
    # One contiguous array per coordinate: gathers and repeats of 1-D arrays are fastest.
    xa, ya, za = (np.ascontiguousarray(rows_a[:, k]) for k in range(3))
    xb, yb, zb = (np.ascontiguousarray(rows_b[:, k]) for k in range(3))
    radii_a, radii_b = _half_diagonals(rows_a), _half_diagonals(rows_b)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    r0 = 0
    while r0 < len(width):
        r1 = int(np.searchsorted(row_end, row_start[r0] + SPHERE_CHUNK, side="right"))
        r1 = max(r1, r0 + 1)
        cells = np.arange(row_start[r0], row_end[r1 - 1])
        counts = width[r0:r1]
        ia = np.repeat(np.arange(r0, r1), counts)
        jb = cells - np.repeat(row_start[r0:r1] - first_b[r0:r1], counts)
        dx = np.repeat(xa[r0:r1], counts) - xb[jb]
        dy = np.repeat(ya[r0:r1], counts) - yb[jb]
        dz = np.repeat(za[r0:r1], counts) - zb[jb]
        distance = np.sqrt(dx * dx + dy * dy + dz * dz)
        near = distance <= np.repeat(radii_a[r0:r1], counts) + radii_b[jb]
        found.append((cells[near], ia[near], jb[near]))
        r0 = r1
    if not found:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    cells_all, ia_all, jb_all = (np.concatenate(x) for x in zip(*found, strict=True))
    return cells_all, ia_all, jb_all


def _iou_of_rows(rows_a: np.ndarray, rows_b: np.ndarray, todo: np.ndarray,
                 fast: bool) -> np.ndarray:
    """IoU of checked rows, computing intersections for the pairs in ``todo`` only.

    The others (ruled out by a bounding-sphere test) have intersection volume 0.
    """
    inter = np.zeros(len(rows_a))
    for start in range(0, todo.size, BLOCK):
        index = todo[start:start + BLOCK]
        inter[index] = _intersection_volumes(rows_a[index], rows_b[index], fast)
    return _iou_from_volumes(rows_a, rows_b, inter)


def _iou_from_volumes(a: np.ndarray, b: np.ndarray, inter: np.ndarray) -> np.ndarray:
    """IoU from the intersection volumes, with the degenerate-box rule."""
    vol_a, vol_b = _volumes(a), _volumes(b)
    inter = np.clip(inter, 0.0, np.minimum(vol_a, vol_b))
    union = vol_a + vol_b - inter
    positive = union > 0.0
    iou = np.divide(inter, union, out=np.zeros(inter.shape), where=positive)
    flat = np.flatnonzero(~positive)
    if flat.size:
        iou[flat] = _same_point_sets(a[flat], b[flat]).astype(np.float64)
    clipped: np.ndarray = np.clip(iou, 0.0, 1.0)
    return clipped


def _same_point_sets(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether two boxes are the same set of points: each corner of one is one of the other.

    Used for zero-volume boxes only, whose quaternions may differ while the boxes do not
    (a flat rectangle turned half a turn about its normal is the same rectangle).
    """
    ca, cb = cuboid_corners(a), cuboid_corners(b)
    gap = np.linalg.norm(ca[:, :, None, :] - cb[:, None, :, :], axis=3)
    tol = PLANE_TOLERANCE * (1.0 + _half_diagonals(a) + _half_diagonals(b))[:, None]
    same: np.ndarray = ((gap.min(axis=2) <= tol).all(axis=1)
                        & (gap.min(axis=1) <= tol).all(axis=1))
    return same


# --------------------------------------------------------------------------- volumes


def _relative_pose(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotation ``M = Ra^T Rb`` and centre ``t = Ra^T (cb - ca)`` of ``b`` in ``a``'s frame."""
    # The relative quaternion conj(qa)·qb gives M with one matrix build instead of two and
    # a product; yaw-only pairs keep exact zeros in it (their x, y parts are exactly 0).
    ax, ay, az, aw = (a[:, 6 + k] for k in range(4))
    bx, by, bz, bw = (b[:, 6 + k] for k in range(4))
    relative = np.stack([aw * bx - ax * bw - ay * bz + az * by,
                         aw * by + ax * bz - ay * bw - az * bx,
                         aw * bz - ax * by + ay * bx - az * bw,
                         aw * bw + ax * bx + ay * by + az * bz], axis=1)
    turn = rotation_matrices(relative)
    shift = _times(rotation_matrices(a[:, 6:10]), b[:, 0:3] - a[:, 0:3], transposed=True)
    return turn, shift


def _times(matrices: np.ndarray, points: np.ndarray, transposed: bool = False
           ) -> np.ndarray:
    """``M p`` (or ``M^T p``) for each pair's matrix ``(n, 3, 3)`` and points ``(n, 3)``
    or ``(n, m, 3)``.

    Written out as three products added in a fixed order rather than with ``einsum``,
    whose loop order (hence rounding) may depend on how many pairs there are: a pair's
    values must not depend on the pairs computed alongside it.
    """
    columns = matrices.transpose(0, 2, 1) if transposed else matrices
    if points.ndim == 2:
        product: np.ndarray = (columns[:, :, 0] * points[:, 0:1]
                               + columns[:, :, 1] * points[:, 1:2]
                               + columns[:, :, 2] * points[:, 2:3])
    else:
        product = (columns[:, None, :, 0] * points[:, :, 0:1]
                   + columns[:, None, :, 1] * points[:, :, 1:2]
                   + columns[:, None, :, 2] * points[:, :, 2:3])
    return product


def _intersection_volumes(a: np.ndarray, b: np.ndarray, fast: bool) -> np.ndarray:
    """Intersection volume of each pair, by a closed form where exact, else clipping.

    Order of the paths: all axes parallel (cheapest), then one shared axis (a right
    prism), then the separating-axis filter and clipping for the rest.
    """
    turn, shift = _relative_pose(a, b)
    half_a, half_b = a[:, 3:6] / 2.0, b[:, 3:6] / 2.0
    volume = np.zeros(len(a))
    general = np.ones(len(a), dtype=bool)
    if fast:
        aligned = _aligned(turn)
        if aligned.any():
            sel = _rows(aligned)
            volume[sel] = _aligned_volumes(np.abs(np.rint(turn[sel])), shift[sel],
                                           half_a[sel], half_b[sel])
        axis_a, axis_b = _shared_axes(turn)
        prism = (axis_a >= 0) & ~aligned
        if prism.any():
            sel = _rows(prism)
            volume[sel] = _prism_volumes(turn[sel], shift[sel], half_a[sel], half_b[sel],
                                         axis_a[sel], axis_b[sel])
        general = ~(aligned | prism)
    rest = np.flatnonzero(general)
    rest = rest[~_separated(turn[rest], shift[rest], half_a[rest], half_b[rest])]
    if rest.size:
        volume[rest] = _clipped_volumes(turn[rest], shift[rest], half_a[rest],
                                        half_b[rest])
    return volume


def _rows(mask: np.ndarray) -> slice | np.ndarray:
    """Index of the rows in ``mask``: a plain slice (views, no copies) when it is all."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def _separated(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
               half_b: np.ndarray) -> np.ndarray:
    """Second pre-filter: the separating-axis test, conservative.

    Two convex boxes are disjoint exactly when their projections on one of 15 axes (the
    3 + 3 face normals and the 9 cross products of edge directions) do not overlap. The
    gap must exceed the plane tolerance (in metres; the cross-product axes are not
    normalized, so a near-zero axis can never claim a separation on rounding alone), so
    every pair it rules out truly has volume 0: it saves the clipping of the pairs whose
    bounding spheres meet but whose boxes do not.
    """
    size = np.abs(turn)
    tol = PLANE_TOLERANCE * (np.linalg.norm(shift, axis=1) + np.linalg.norm(half_a, axis=1)
                             + np.linalg.norm(half_b, axis=1))
    gaps = [np.abs(shift) - half_a - _times(size, half_b),
            np.abs(_times(turn, shift, transposed=True)) - half_b
            - _times(size, half_a, transposed=True)]
    for i in range(3):
        i1, i2 = (i + 1) % 3, (i + 2) % 3
        for j in range(3):
            j1, j2 = (j + 1) % 3, (j + 2) % 3
            reach = (half_a[:, i1] * size[:, i2, j] + half_a[:, i2] * size[:, i1, j]
                     + half_b[:, j1] * size[:, i, j2] + half_b[:, j2] * size[:, i, j1])
            distance = np.abs(shift[:, i2] * turn[:, i1, j] - shift[:, i1] * turn[:, i2, j])
            gaps.append((distance - reach)[:, None])
    apart: np.ndarray = (np.concatenate(gaps, axis=1) > tol[:, None]).any(axis=1)
    return apart


def _aligned(turn: np.ndarray) -> np.ndarray:
    """Pairs whose relative rotation is a signed permutation (parallel box axes)."""
    size = np.abs(turn)
    near: np.ndarray = ((size < ALIGNED_TOLERANCE)
                        | (np.abs(size - 1.0) < ALIGNED_TOLERANCE)).all(axis=(1, 2))
    return near


def _aligned_volumes(permutation: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
                     half_b: np.ndarray) -> np.ndarray:
    """Overlap volume of parallel boxes: a product of three interval overlaps."""
    half_b_in_a = _times(permutation, half_b)
    low = np.maximum(shift - half_b_in_a, -half_a)
    high = np.minimum(shift + half_b_in_a, half_a)
    volume: np.ndarray = np.prod(np.maximum(high - low, 0.0), axis=1)
    return volume


def _shared_axes(turn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    small = np.abs(turn) < SHARED_AXIS_TOLERANCE
    # Entry (i, j) qualifies when the other two entries of row i and of column j are small.
    shared = (np.roll(small, -1, axis=2) & np.roll(small, -2, axis=2)
              & np.roll(small, -1, axis=1) & np.roll(small, -2, axis=1)).reshape(-1, 9)
    first = np.argmax(shared, axis=1)
    found = shared[np.arange(len(turn)), first]
    axis_a = np.where(found, first // 3, -1)
    axis_b = np.where(found, first % 3, -1)
    return axis_a, axis_b


_CYCLE = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
"""Signs of a rectangle's corners along its two half-axes, in order around it."""


def _prism_volumes(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
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
    # b's two other half-axes and its centre, in a's plane coordinates (a's axes i1, i2).
    u1, u2 = (turn[rows, i1, j1] * half_b[rows, j1], turn[rows, i2, j1] * half_b[rows, j1])
    v1, v2 = (turn[rows, i1, j2] * half_b[rows, j2], turn[rows, i2, j2] * half_b[rows, j2])
    # Corner-major (4, n) layout: numpy's inner loops then run over the pairs.
    signs_u, signs_v = _CYCLE[:, 0, None], _CYCLE[:, 1, None]
    x = shift[rows, i1] + signs_u * u1 + signs_v * v1
    y = shift[rows, i2] + signs_u * u2 + signs_v * v2
    volume: np.ndarray = _clipped_rectangle_areas(x, y, half_a[rows, i1],
                                                  half_a[rows, i2]) * height
    return volume


def _clipped_rectangle_areas(x: np.ndarray, y: np.ndarray, half_x: np.ndarray,
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
    times = np.stack([np.zeros_like(x), np.minimum(x_low, y_low),
                      np.minimum(inner_low, inner_high), np.maximum(inner_low, inner_high),
                      np.maximum(x_high, y_high)], axis=1)  # (k, 5, n), sorted along axis 1
    np.clip(times, 0.0, 1.0, out=times)
    n = x.shape[1]
    xs = (x[:, None, :] + times * step_x[:, None, :]).reshape(-1, n)
    ys = (y[:, None, :] + times * step_y[:, None, :]).reshape(-1, n)
    np.clip(xs, -half_x, half_x, out=xs)
    np.clip(ys, -half_y, half_y, out=ys)
    twice = _sum_in_order(xs * np.roll(ys, -1, axis=0) - np.roll(xs, -1, axis=0) * ys)
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


def _clipped_volumes(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray,
                     half_b: np.ndarray) -> np.ndarray:
    """Clip box ``b`` by box ``a`` (in ``a``'s frame), retrying rare ambiguous pairs.

    Runs :data:`CHUNK` pairs at a time: the padded edge arrays stay small.
    """
    scale = (np.linalg.norm(shift, axis=1) + np.linalg.norm(half_a, axis=1)
             + np.linalg.norm(half_b, axis=1))
    volume = np.zeros(len(turn))
    for start in range(0, len(turn), CHUNK):
        todo = np.arange(start, min(start + CHUNK, len(turn)))
        for factor in _RETRY_FACTORS:
            tol = PLANE_TOLERANCE * factor * scale[todo]
            values, ambiguous = _clip_box(turn[todo], shift[todo], half_a[todo],
                                          half_b[todo], tol)
            volume[todo] = values
            todo = todo[ambiguous]
            if todo.size == 0:
                break
    return volume


@dataclass(slots=True)
class _Surface:
    """A closed polyhedral surface of each pair, stored as undirected edges.

    Edge ``s`` of pair ``n`` runs from ``start[n, s]`` to ``end[n, s]``; the face
    ``left[n, s]`` walks it in that direction and the face ``right[n, s]`` in the other
    (faces are counter-clockwise seen from outside). Storing each edge once, with both
    faces, is what keeps the surface closed through clipping: the one cut point of an
    edge is the one both faces use. Faces 0-5 are the box's own (order of ``_FACES``),
    face ``6 + k`` the cap made by the ``k``-th clipping plane; ``anchor[n, f]`` is a
    point of face ``f``'s plane. Zero-length edges are padding: they add nothing.
    """

    start: np.ndarray
    end: np.ndarray
    left: np.ndarray
    right: np.ndarray
    anchor: np.ndarray


def _edge_faces() -> tuple[np.ndarray, np.ndarray]:
    """For each edge of :data:`CUBOID_EDGES`, the face walking it forwards and backwards."""
    left = np.zeros(len(CUBOID_EDGES), dtype=np.intp)
    right = np.zeros(len(CUBOID_EDGES), dtype=np.intp)
    index = {(int(i), int(j)): e for e, (i, j) in enumerate(CUBOID_EDGES)}
    for face, corners in enumerate(_FACES):
        for i, j in zip(corners, np.roll(corners, -1), strict=True):
            if i < j:
                left[index[int(i), int(j)]] = face
            else:
                right[index[int(j), int(i)]] = face
    return left, right


_EDGE_LEFT, _EDGE_RIGHT = _edge_faces()
_PLANES = ((0, -1.0), (0, 1.0), (1, -1.0), (1, 1.0), (2, -1.0), (2, 1.0))
"""The 6 half-spaces ``sign · x[axis] <= half size`` of box ``a`` in its own frame."""


def _box_surface(turn: np.ndarray, shift: np.ndarray, half_b: np.ndarray) -> _Surface:
    """Box ``b`` in ``a``'s frame as a closed surface of 12 edges and 6 faces."""
    n = len(turn)
    local = _SIGNS[None, :, :] * half_b[:, None, :]
    corners = _times(turn, local) + shift[:, None, :]
    face_offsets = np.zeros((n, 6, 3))
    face_offsets[:, np.arange(6), _FACE_AXIS] = _FACE_SIGN * half_b[:, _FACE_AXIS]
    anchor = np.zeros((n, 6 + len(_PLANES), 3))
    anchor[:, :6] = _times(turn, face_offsets) + shift[:, None, :]
    return _Surface(start=corners[:, CUBOID_EDGES[:, 0]], end=corners[:, CUBOID_EDGES[:, 1]],
                    left=np.broadcast_to(_EDGE_LEFT, (n, 12)).copy(),
                    right=np.broadcast_to(_EDGE_RIGHT, (n, 12)).copy(), anchor=anchor)


def _clip_box(turn: np.ndarray, shift: np.ndarray, half_a: np.ndarray, half_b: np.ndarray,
              tol: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Volume of ``b ∩ a`` by clipping ``b``'s surface with ``a``'s 6 half-spaces.

    Returns the volumes and a mask of pairs where some face had more than one exit
    (ambiguous rounding; recomputed by the caller with a larger tolerance).
    """
    surface = _box_surface(turn, shift, half_b)
    ambiguous = np.zeros(len(turn), dtype=bool)
    for k, (axis, sign) in enumerate(_PLANES):
        surface, bad = _clip_plane(surface, 6 + k, axis, sign, half_a[:, axis], tol)
        ambiguous |= bad
    return _enclosed_volume(surface), ambiguous


def _enclosed_volume(surface: _Surface) -> np.ndarray:
    """Volume inside a closed surface by the divergence theorem.

    ``V = 1/6 Σ_faces c_f · Σ_(p→q in f) p × q``; an edge walked forwards by its left
    face and backwards by its right one contributes ``(c_left − c_right) · (p × q)``.

    The edges are summed slot after slot (:func:`_sum_in_order`): the padded width
    depends on the busiest pair of the chunk, and must not change any pair's volume.
    """
    base = (np.arange(len(surface.left)) * surface.anchor.shape[1])[:, None]
    anchors = surface.anchor.reshape(-1, 3)
    left, right = anchors[surface.left + base], anchors[surface.right + base]
    moments = np.cross(surface.start, surface.end)
    terms = ((left - right) * moments).sum(axis=2)
    volume: np.ndarray = _sum_in_order(terms.T) / 6.0
    return volume


def _sum_in_order(terms: np.ndarray) -> np.ndarray:
    """``terms.sum(axis=0)``, added strictly first to last whatever the shape.

    numpy's own sums group terms by an unrolled or pairwise scheme chosen from the
    array's length and layout (a single pair's row is contiguous, a chunk's column is
    not), so a value could change in the last bit with the number of pairs computed
    alongside it. A plain loop over the (few) rows never does, and padding rows of
    zeros add exactly ``+0``: a pair's result is the same alone, in a chunk or in a
    batch.
    """
    total = np.zeros(terms.shape[1:])
    for row in terms:
        total += row
    return total


def _clip_plane(surface: _Surface, cap: int, axis: int, sign: float, offset: np.ndarray,
                tol: np.ndarray) -> tuple[_Surface, np.ndarray]:
    """Clip a closed surface by the half-space ``sign · x[axis] <= offset``.

    Each edge keeps its inside part; an edge wholly outside is dropped. Each face crossing
    the plane gains its chord, from its exit point to its entry point, shared with the
    new face ``cap`` lying in the plane. A vertex within ``tol`` of the plane counts as on
    it and stays where it is, so an edge is only ever cut between a vertex clearly inside
    and one clearly outside: the division below is never ill-conditioned.

    Returns the clipped surface and the pairs where a face had several exits.
    """
    start, end = surface.start, surface.end
    limit, margin = offset[:, None], tol[:, None]
    d_start = sign * start[..., axis] - limit
    d_end = sign * end[..., axis] - limit
    kept_start, kept_end = d_start <= margin, d_end <= margin
    inner_start, inner_end = d_start < -margin, d_end < -margin
    leave, arrive = kept_start & ~kept_end, ~kept_start & kept_end
    valid = (kept_start & kept_end) | (leave & inner_start) | (arrive & inner_end)

    leaving = _crossing_points(surface, leave, inner_start, d_start, d_end, start)
    arriving = _crossing_points(surface, arrive, inner_end, d_start, d_end, end)
    new_start, new_end = start.copy(), end.copy()
    new_end[leaving[0], leaving[1]] = leaving[2]
    new_start[arriving[0], arriving[1]] = arriving[2]

    exits, entries, ambiguous = _face_crossings(surface, leaving, arriving)
    surface.anchor[:, cap, axis] = sign * offset
    clipped = _Surface(new_start, new_end, surface.left, surface.right, surface.anchor)
    return _with_chords(clipped, valid, exits, entries, cap), ambiguous


_Crossings = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Rows, edge slots and points ``(k, 3)`` of the edges crossing a plane one way."""


def _crossing_points(surface: _Surface, mask: np.ndarray, inner: np.ndarray,
                     d_start: np.ndarray, d_end: np.ndarray,
                     kept_end: np.ndarray) -> _Crossings:
    """Where the edges in ``mask`` cross the plane.

    ``kept_end`` is the endpoint on the kept side; when it lies on the plane (within the
    tolerance) it is the crossing point itself, otherwise the edge is cut. Only crossing
    edges are touched, a small share of all.
    """
    rows, cols = np.nonzero(mask)
    points = kept_end[rows, cols]
    cut = inner[rows, cols]
    r, c = rows[cut], cols[cut]
    fraction = d_start[r, c] / (d_start[r, c] - d_end[r, c])
    a = surface.start[r, c]
    points[cut] = a + fraction[:, None] * (surface.end[r, c] - a)
    return rows, cols, points


def _face_crossings(surface: _Surface, leaving: _Crossings, arriving: _Crossings
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each face's exit and entry point on the plane (``NaN`` where it has none).

    An edge leaving the kept side is the exit of its left face and the entry of its right
    face (which walks it backwards); an arriving edge the other way round.
    """
    n, faces = surface.anchor.shape[:2]
    exits = np.full((n, faces, 3), np.nan)
    entries = np.full((n, faces, 3), np.nan)
    rows_l, cols_l, points_l = leaving
    rows_a, cols_a, points_a = arriving
    exit_faces = (surface.left[rows_l, cols_l], surface.right[rows_a, cols_a])
    entry_faces = (surface.right[rows_l, cols_l], surface.left[rows_a, cols_a])
    exits[rows_l, exit_faces[0]] = points_l
    exits[rows_a, exit_faces[1]] = points_a
    entries[rows_l, entry_faces[0]] = points_l
    entries[rows_a, entry_faces[1]] = points_a
    rows = np.concatenate([rows_l, rows_a]) * faces
    n_exits = np.bincount(rows + np.concatenate(exit_faces), minlength=n * faces)
    n_entries = np.bincount(rows + np.concatenate(entry_faces), minlength=n * faces)
    ambiguous = ((n_exits > 1) | (n_exits != n_entries)).reshape(n, faces).any(axis=1)
    return exits, entries, ambiguous


def _with_chords(surface: _Surface, valid: np.ndarray, exits: np.ndarray,
                 entries: np.ndarray, cap: int) -> _Surface:
    """Keep the valid edges, add each crossing face's chord (other face: the cap), pack.

    Packing moves each pair's edges to the front, so the arrays stay as wide as the
    busiest pair of the chunk needs rather than growing with every plane.
    """
    n, faces = exits.shape[:2]
    chorded = ~np.isnan(exits[:, :, 0]) & ~np.isnan(entries[:, :, 0])
    chorded &= (exits != entries).any(axis=2)
    every = np.concatenate([valid, chorded], axis=1)
    width = max(int(every.sum(axis=1).max(initial=0)), 1)
    order = np.argsort(~every, axis=1, kind="stable")[:, :width]
    order += (np.arange(n) * every.shape[1])[:, None]
    start = np.concatenate([surface.start, exits], axis=1).reshape(-1, 3)[order]
    end = np.concatenate([surface.end, entries], axis=1).reshape(-1, 3)[order]
    face_ids = np.broadcast_to(np.arange(faces), (n, faces))
    left = np.concatenate([surface.left, face_ids], axis=1).reshape(-1)[order]
    right = np.concatenate([surface.right, np.full((n, faces), cap)], axis=1).reshape(-1)[order]
    unused = ~every.reshape(-1)[order]
    start[unused] = 0.0
    end[unused] = 0.0
    return _Surface(start, end, left, right, surface.anchor)
