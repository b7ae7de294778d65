"""One axial slice of a volume answer, for drawing: its mask and its outline.

The slice view draws each annotator's outline of a label on slice k. The mask is decoded
from that slice's run-length counts alone (``np.repeat`` of alternating 0/1 runs, C
order, shape (nj, ni): row j, column i, as Potato stores it); the outline is the set of
unit edges between a painted voxel and an unpainted one (or the slice's border), as
line segments in voxel coordinates (x = i, y = j, a voxel covering [i, i+1] × [j, j+1]),
so the painter draws crisp voxel boundaries at any zoom without tracing contours.
"""

from __future__ import annotations

import numpy as np

from app.core.model import VolumeMasks


def slice_mask(answer: VolumeMasks, label: str, k: int) -> np.ndarray:
    """Label ``label`` on slice ``k`` as a boolean (nj, ni) array (all False: unpainted)."""
    if answer.shape is None:
        raise ValueError("the answer names no volume shape")
    ni, nj, _nk = answer.shape
    counts = answer.masks.get(label, {}).get(k)
    flat = np.zeros(ni * nj, bool)
    if counts is not None and len(counts):
        values = np.arange(len(counts)) % 2 == 1
        runs = np.repeat(values, counts)
        flat[:runs.size] = runs
    return flat.reshape(nj, ni)


def outline(mask: np.ndarray) -> np.ndarray:
    """The mask's boundary as (n, 4) segments ``x0, y0, x1, y1`` in voxel coordinates."""
    padded = np.pad(np.asarray(mask, bool), 1)
    # horizontal edges: between rows j-1 and j, at y = j, from x = i to i + 1
    rows = padded[1:, 1:-1] != padded[:-1, 1:-1]
    hj, hi = np.nonzero(rows)
    # vertical edges: between columns i-1 and i, at x = i, from y = j to j + 1
    cols = padded[1:-1, 1:] != padded[1:-1, :-1]
    vj, vi = np.nonzero(cols)
    horizontal = np.stack([hi, hj, hi + 1, hj], axis=1)
    vertical = np.stack([vi, vj, vi, vj + 1], axis=1)
    return np.concatenate([horizontal, vertical]).astype(np.int64)


def slice_dice(a: np.ndarray, b: np.ndarray) -> float | None:
    """Dice of two slice masks; ``None`` when both are empty."""
    total = int(a.sum()) + int(b.sum())
    return None if total == 0 else 2.0 * int((a & b).sum()) / total


def painted_slices(answers: list[VolumeMasks], label: str | None) -> list[int]:
    """The slices any of ``answers`` painted (``label``, or any label when ``None``)."""
    found: set[int] = set()
    for answer in answers:
        for name, slices in answer.masks.items():
            if label is None or name == label:
                found.update(k for k, c in slices.items() if len(c) > 1 and c[1::2].any())
    return sorted(found)
