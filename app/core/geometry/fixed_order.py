"""Arithmetic whose rounding does not depend on how many rows are computed together.

Why
---
The cuboid IoU promises that a pair's value is the same alone, in a matrix or in a
batch of a whole study (:func:`app.core.geometry.cuboids.cuboid_iou_matrices` gives
exactly the values of :func:`~app.core.geometry.cuboids.cuboid_iou_matrix` on each pair
alone, and tests check it bit for bit while cutting the batch in every way). numpy does
not promise that: ``einsum`` picks its loop order, and ``sum`` its unrolled or pairwise
grouping, from the shapes and the memory layout, so a value could change in the last bit
with the number of pairs beside it. The two helpers here add their terms in one fixed
order instead, for every shape.
"""

from __future__ import annotations

import numpy as np


def times(matrices: np.ndarray, points: np.ndarray, transposed: bool = False
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


def sum_in_order(terms: np.ndarray) -> np.ndarray:
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
