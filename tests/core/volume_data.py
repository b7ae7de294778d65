"""Random label volumes and Potato's stored form of them, for the volume tests.

The stored form is written by Potato 2.12.1's own encoder (``volume_masks.rle_encode``,
run as a test-only oracle), so what Accord reads is what Potato writes.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

Truth = list[tuple[np.ndarray, np.ndarray]]


def truth(rng: np.random.Generator, shape: tuple[int, int, int], n: int) -> Truth:
    """``n`` ellipsoids (centre, radii) inside a volume of ``shape``."""
    size = np.asarray(shape, float)
    return [(rng.uniform(0.25, 0.75, 3) * size, rng.uniform(0.12, 0.25, 3) * size)
            for _ in range(n)]


def draw(rng: np.random.Generator, shape: tuple[int, int, int], objects: Truth,
         jitter: float) -> np.ndarray:
    """One annotator's boolean [i, j, k] volume of ``objects``, each centre moved and
    each radius scaled by noise of size ``jitter`` (voxels; relative)."""
    i, j, k = np.ogrid[:shape[0], :shape[1], :shape[2]]
    out = np.zeros(shape, bool)
    for centre, radii in objects:
        c = centre + rng.normal(0, jitter, 3)
        r = radii * (1 + rng.normal(0, jitter / 10, 3))
        out |= ((i - c[0]) / r[0]) ** 2 + ((j - c[1]) / r[1]) ** 2 \
            + ((k - c[2]) / r[2]) ** 2 < 1
    return out


def blobs(rng: np.random.Generator, shape: tuple[int, int, int], n: int,
          jitter: float) -> np.ndarray:
    """A boolean [i, j, k] volume of ``n`` random ellipsoids."""
    return draw(rng, shape, truth(rng, shape, n), jitter)


def stored(volumes: dict[str, np.ndarray], shape: tuple[int, int, int],
           labels: list[str]) -> dict[str, Any]:
    """Potato's saved answer (``serialize()`` of volume-annotation.js) for label volumes
    [i, j, k]: per label the axial slices with anything painted, each slice's (nj, ni)
    mask run-length encoded by Potato's own ``rle_encode``."""
    from potato.media.volume_masks import rle_encode

    masks: dict[str, dict[str, list[int]]] = {}
    for label, vol in volumes.items():
        slices = {str(k): rle_encode(vol[:, :, k].T) for k in range(shape[2])
                  if vol[:, :, k].any()}
        if slices:
            masks[label] = slices
    return {"volume": "vol.nii.gz", "shape": list(shape), "labels": labels,
            "masks": masks, "shapes": []}


def as_data(answer: dict[str, Any]) -> dict[str, str]:
    """The value Potato keeps for the scheme: the widget's JSON string under ``_data``."""
    return {"_data": json.dumps(answer)}
