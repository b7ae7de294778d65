"""One-to-one matching of two annotators' objects (``agreement.md``, Matching objective).

Pairs below the threshold are removed *before* the assignment; among the rest, the
matching with the largest total IoU wins (Hungarian, ``scipy.optimize.
linear_sum_assignment``). Implemented as the spec's equivalent: Hungarian on the weights
``IoU · [IoU ≥ threshold]``, then pairs whose weight is 0 are dropped. Labels play no
part in matching; they halve a matched pair's credit in the item score.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def match(similarity: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the matched pairs (sorted by row)."""
    s = np.asarray(similarity, dtype=np.float64)
    if s.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    weights = np.where(s >= threshold, s, 0.0)
    if not weights.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows, cols = linear_sum_assignment(weights, maximize=True)
    keep = weights[rows, cols] > 0.0
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)
