"""Label volumes → Potato's stored masks: per label, per axial slice k painted, the
run-length counts of the slice's (nj, ni) mask flattened in C order, alternating runs of
0s and 1s and starting with 0s (``kinds.md`` B §2.7), as volume-annotation.js saves them.

All painted slices of a label are encoded in one numpy pass: the slices as rows of a
(slices, nj·ni) array, a False column in front so every row starts with a run of 0s (of
length 0 when the slice starts painted), the run boundaries where a row changes value,
and each row's counts the differences of its boundaries, the last run ending at nj·ni.
"""

from __future__ import annotations

import numpy as np


def slice_counts(mask_ijk: np.ndarray) -> dict[str, list[int]]:
    """A boolean [i, j, k] volume as ``{"k": counts}`` for every slice with a voxel set."""
    ni, nj, nk = mask_ijk.shape
    size = ni * nj
    rows = np.ascontiguousarray(np.asarray(mask_ijk, bool).transpose(2, 1, 0)).reshape(nk, size)
    painted = np.flatnonzero(rows.any(axis=1))
    if painted.size == 0:
        return {}
    sub = rows[painted]
    padded = np.zeros((sub.shape[0], size + 1), bool)
    padded[:, 1:] = sub
    row, col = np.nonzero(padded[:, 1:] != padded[:, :-1])  # a run starts at col
    per_row = np.bincount(row, minlength=sub.shape[0])
    out: dict[str, list[int]] = {}
    for k, starts in zip(painted.tolist(), np.split(col, np.cumsum(per_row)[:-1]),
                         strict=True):
        bounds = np.concatenate(([0], starts, [size]))
        out[str(k)] = np.diff(bounds).tolist()
    return out
