"""Oriented boxes as numpy rows: packing, validation, rotations, corners, wireframes.

Every cuboid computation (the IoU in :mod:`app.core.geometry.cuboids`, the drawing
geometry of the 3D view) works on the same rows ``[cx, cy, cz, l, w, h, qx, qy, qz, qw]``
(:func:`boxes_array`), so the views and the scores share one corner numbering: corner
``i`` takes sign ``+`` along the box's own axis ``k`` when bit ``k`` of ``i`` is set, and
the 12 edges (:data:`CUBOID_EDGES`) join corners differing in exactly one bit.

Choices
-------
- Invalid boxes (a negative or non-finite size, a non-finite centre, a zero or
  non-finite quaternion) raise :class:`ValueError` (:func:`checked_rows`). Quaternions
  are normalized, so callers may pass any non-zero multiple.
- :func:`relative_pose` builds ``b``'s rotation in ``a``'s frame from the relative
  quaternion ``conj(qa)·qb``, one matrix build instead of two and a product; yaw-only
  pairs keep exact zeros in it (their quaternions' x and y parts are exactly 0), which
  is what lets the shared-axis fast path (:mod:`app.core.geometry.cuboid_prism`) see
  them with no tolerance at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.geometry.fixed_order import times
from app.core.objects import Cuboid, normalized_quaternion, unit_quaternion_rows

BOX_COLUMNS = 10
"""Columns of a box row: centre (3), size (3), unit quaternion (4)."""

CORNER_SIGNS = np.array([[(i >> k) & 1 for k in range(3)] for i in range(8)],
                        dtype=np.float64) * 2.0 - 1.0
"""Corner ``i`` of a box has sign ``±1`` along axis ``k`` from bit ``k`` of ``i``."""

CUBOID_EDGES = np.array(
    [(i, i | (1 << k)) for i in range(8) for k in range(3) if not i & (1 << k)],
    dtype=np.intp)
"""The 12 edges as pairs of corner indices (corners differing in exactly one bit)."""


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
    rows = np.array([(*c.center, *c.size, *c.rotation) for c in cuboids],
                    dtype=np.float64).reshape(len(cuboids), BOX_COLUMNS)
    # The arithmetic of normalized_quaternion, term for term, so the rows are bit for bit
    # what it gives, at numpy's speed: a lidar study packs hundreds of thousands.
    bad = unit_quaternion_rows(rows)
    if bad.any():
        normalized_quaternion(cuboids[int(np.argmax(bad))].rotation)  # raises, naming it
    return rows


def checked_rows(boxes: np.ndarray, name: str) -> np.ndarray:
    """Validate ``(n, 10)`` box rows and return a float copy with unit quaternions."""
    rows = np.array(boxes, dtype=np.float64).reshape(-1, BOX_COLUMNS)
    # A finite sum means every value is finite (a NaN or an infinity would carry through);
    # only an infinite or NaN sum needs the element-wise look (finite values can overflow).
    with np.errstate(over="ignore", invalid="ignore"):
        total = rows.sum()
    if not np.isfinite(total) and not np.isfinite(rows).all():
        raise ValueError(f"{name}: box centres, sizes and rotations must be finite")
    if len(rows) and min(float(rows[:, k].min()) for k in (3, 4, 5)) < 0:
        raise ValueError(f"{name}: box sizes must not be negative")
    norms = _lengths(rows[:, 6:10])
    if (norms < 1e-12).any():
        raise ValueError(f"{name}: a rotation quaternion has no direction (zero)")
    for k in range(6, 10):  # column by column: a strided (n, 4) division is 2.5x slower
        rows[:, k] /= norms
    return rows


def checked_columns(rows: np.ndarray, name: str, check: bool = True) -> np.ndarray:
    """Box rows ``(k, 10)`` as contiguous columns ``(10, k)``: one row per field.

    The IoU works block by block on this layout (every numpy loop then runs over
    contiguous pairs, not down a column of 80-byte strides). With ``check``, the rows are
    validated and their quaternions normalized as :func:`checked_rows` does, with the
    same arithmetic (so the same bits); without, they are only laid out (rows that
    :func:`checked_rows` already gave).
    """
    columns = np.array(np.asarray(rows, dtype=np.float64).T, order="C")
    if not check:
        return columns
    with np.errstate(over="ignore", invalid="ignore"):
        total = columns.sum()
    if not np.isfinite(total) and not np.isfinite(columns).all():
        raise ValueError(f"{name}: box centres, sizes and rotations must be finite")
    if columns.shape[1] and float(columns[3:6].min()) < 0:
        raise ValueError(f"{name}: box sizes must not be negative")
    x, y, z, w = columns[6:10]
    norms = np.sqrt(((x * x + y * y) + z * z) + w * w)  # _lengths' order
    if (norms < 1e-12).any():
        raise ValueError(f"{name}: a rotation quaternion has no direction (zero)")
    columns[6:10] /= norms
    return columns


def rotation_matrices(quaternions: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(n, 3, 3)`` of unit quaternions ``(qx, qy, qz, qw)``.

    Columns are the box axes in the sensor frame, as :meth:`Cuboid.rotation_matrix`.
    """
    x, y, z, w = (quaternions[:, i] for i in range(4))
    out = np.empty((len(quaternions), 3, 3))  # filled in place: no stacks of stacks
    out[:, 0, 0] = 1 - 2 * (y * y + z * z)
    out[:, 0, 1] = 2 * (x * y - z * w)
    out[:, 0, 2] = 2 * (x * z + y * w)
    out[:, 1, 0] = 2 * (x * y + z * w)
    out[:, 1, 1] = 1 - 2 * (x * x + z * z)
    out[:, 1, 2] = 2 * (y * z - x * w)
    out[:, 2, 0] = 2 * (x * z - y * w)
    out[:, 2, 1] = 2 * (y * z + x * w)
    out[:, 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def cuboid_corners(boxes: np.ndarray) -> np.ndarray:
    """The 8 corners of each box, shape ``(n, 8, 3)``, numbered as :meth:`Cuboid.corners`.

    Corner ``i`` takes sign ``+`` along the box's own axis ``k`` when bit ``k`` of ``i``
    is set, so :data:`CUBOID_EDGES` and the views share one numbering.
    """
    rows = checked_rows(boxes, "boxes")
    local = CORNER_SIGNS[None, :, :] * (rows[:, None, 3:6] / 2.0)
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


def box_volumes(rows: np.ndarray) -> np.ndarray:
    """Box volumes ``l · w · h``."""
    volumes: np.ndarray = rows[:, 3] * rows[:, 4] * rows[:, 5]  # np.prod's order and bits
    return volumes


def half_diagonals(rows: np.ndarray) -> np.ndarray:
    """Radius of each box's bounding sphere."""
    radii: np.ndarray = _lengths(rows[:, 3:6]) / 2.0
    return radii


def _lengths(vectors: np.ndarray) -> np.ndarray:
    """Euclidean length of each row, column by column.

    The same bits as ``np.linalg.norm(vectors, axis=1)`` (numpy adds a row of three or
    four squares first to last too), at twice its speed: a short inner axis makes numpy's
    reductions slow.
    """
    total = vectors[:, 0] * vectors[:, 0]
    for k in range(1, vectors.shape[1]):
        total = total + vectors[:, k] * vectors[:, k]
    lengths: np.ndarray = np.sqrt(total)
    return lengths


def relative_pose(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    shift = times(rotation_matrices(a[:, 6:10]), b[:, 0:3] - a[:, 0:3], transposed=True)
    return turn, shift


def relative_pose_columns(ca: np.ndarray, cb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`relative_pose` of box columns ``(10, k)``, bit for bit, laid out pair-last.

    The turn is a ``(k, 3, 3)`` view of a contiguous ``(3, 3, k)`` array and the shift a
    ``(k, 3)`` view of a ``(3, k)`` one: the filters and the line sum, which work on the
    pair-last layout, then take them without a copy. Every entry is the expression
    :func:`rotation_matrices` and :func:`~app.core.geometry.fixed_order.times` evaluate,
    in the same order.
    """
    ax, ay, az, aw = ca[6:10]
    bx, by, bz, bw = cb[6:10]
    x = aw * bx - ax * bw - ay * bz + az * by
    y = aw * by + ax * bz - ay * bw - az * bx
    z = aw * bz - ax * by + ay * bx - az * bw
    w = aw * bw + ax * bx + ay * by + az * bz
    turn = _matrix_columns(x, y, z, w)
    r = _matrix_columns(ax, ay, az, aw)
    d = cb[0:3] - ca[0:3]
    shift = np.empty((3, ca.shape[1]))
    for i in range(3):  # (R^T d)_i = R_0i d_0 + R_1i d_1 + R_2i d_2
        np.add(r[0, i] * d[0] + r[1, i] * d[1], r[2, i] * d[2], out=shift[i])
    return turn.transpose(2, 0, 1), shift.T


def _matrix_columns(x: np.ndarray, y: np.ndarray, z: np.ndarray, w: np.ndarray
                    ) -> np.ndarray:
    """:func:`rotation_matrices` laid out ``(3, 3, k)``, with the same arithmetic."""
    out = np.empty((3, 3, len(x)))
    out[0, 0] = 1 - 2 * (y * y + z * z)
    out[0, 1] = 2 * (x * y - z * w)
    out[0, 2] = 2 * (x * z + y * w)
    out[1, 0] = 2 * (x * y + z * w)
    out[1, 1] = 1 - 2 * (x * x + z * z)
    out[1, 2] = 2 * (y * z - x * w)
    out[2, 0] = 2 * (x * z - y * w)
    out[2, 1] = 2 * (y * z + x * w)
    out[2, 2] = 1 - 2 * (x * x + y * y)
    return out
