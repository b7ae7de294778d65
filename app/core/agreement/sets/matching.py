"""One-to-one matching of two annotators' objects (``agreement.md``, Matching objective).

Pairs below the threshold are removed *before* the assignment; among the rest, the
matching with the largest total IoU wins (Hungarian, ``scipy.optimize.
linear_sum_assignment``). Implemented as the spec's equivalent: Hungarian on the weights
``IoU · [IoU ≥ threshold]``, then pairs whose weight is 0 are dropped. Labels play no
part in matching; they halve a matched pair's credit in the item score.

**Ties.** Several matchings can reach the same largest total (identical boxes, instants
marked twice). The spec leaves the choice open, but an arbitrary choice would make the
item score depend on annotator order. Among the optimal matchings Accord takes the one
whose same-label pairs carry the most IoU: each weight gets a relative bonus of
``TIE_BREAK`` (10⁻⁹) where the labels agree, far too small to trade any real IoU.

**No solver for small choices.** When every row and every column holds at most one
weight above 0 (each object overlaps its counterpart and nothing else, as in most of a
lidar sweep), every optimal matching contains every such pair, so they are the answer.
Otherwise the small components of the overlap graph are matched exactly by enumeration
(:mod:`app.core.agreement.sets.small_matching`) when their best matching is unique;
only larger components or near ties go to scipy's solver. ``scipy.optimize`` costs some
0.25 s to import, more than a small study's whole agreement run, so it is imported only
then.
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.sets.small_matching import small_matching

TIE_BREAK = 1e-9
THRESHOLD_SLACK = 1e-12
"""A pair whose IoU is the threshold up to rounding passes. Tiers are stored in
milliseconds: [0, 300] and [100, 400] ms have IoU exactly 0.5, but in seconds the
arithmetic gives 0.49999999999999994, and a match at the threshold was dropped (one
annotator pair reported 0.550 where the spec's recomputation gets 0.555)."""


def match(similarity: np.ndarray, threshold: float, same_label: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the matched pairs (sorted by row).

    ``same_label`` (bool, the shape of ``similarity``) only breaks ties between optimal
    matchings; it never changes which pairs pass the threshold.
    """
    s = np.asarray(similarity, dtype=np.float64)
    if s.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    weights = np.where(s >= threshold - THRESHOLD_SLACK, s, 0.0)
    if not weights.any():
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    positive = weights > 0.0
    if (positive.sum(axis=0) <= 1).all() and (positive.sum(axis=1) <= 1).all():
        rows, cols = np.nonzero(positive)  # row-major: sorted by row
        return rows.astype(np.int64), cols.astype(np.int64)
    preference = weights if same_label is None else \
        weights * (1.0 + TIE_BREAK * np.asarray(same_label, dtype=np.float64))
    small = small_matching(preference)
    if small is not None:
        return small
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(preference, maximize=True)
    keep = weights[rows, cols] > 0.0
    return rows[keep].astype(np.int64), cols[keep].astype(np.int64)
