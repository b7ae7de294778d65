"""Pixel masks as pictures: outlines and coloured RGBA overlays, in numpy.

The masks view draws the STAPLE consensus as a translucent fill and each annotator's
mask as an outline; both are computed here, without Qt (architecture rule 3), and the
view only wraps the arrays in ``QImage``.

Choices: the outline of a mask is its pixels with at least one 4-neighbour outside the
mask (pixels on the image border count as edge pixels, so a mask that runs off the
frame is closed there); ``width`` > 1 thickens it inwards by repeating the erosion.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def erode(mask: np.ndarray) -> np.ndarray:
    """4-neighbour erosion; pixels outside the image count as background."""
    m = np.asarray(mask, dtype=bool)
    out = m.copy()
    out[1:, :] &= m[:-1, :]
    out[:-1, :] &= m[1:, :]
    out[:, 1:] &= m[:, :-1]
    out[:, :-1] &= m[:, 1:]
    out[0, :] = False
    out[-1, :] = False
    out[:, 0] = False
    out[:, -1] = False
    return out


def outline(mask: np.ndarray, width: int = 1) -> np.ndarray:
    """The mask's edge pixels, ``width`` pixels thick (inside the mask)."""
    m = np.asarray(mask, dtype=bool)
    inner = m
    for _ in range(max(1, width)):
        inner = erode(inner)
    edge: np.ndarray = m & ~inner
    return edge


def rgba_overlay(layers: Sequence[tuple[np.ndarray, tuple[int, int, int], int]],
                 shape: tuple[int, int]) -> np.ndarray:
    """An ``h × w × 4`` uint8 image: each (mask, rgb, alpha) painted in order, later on top.

    Pixels no layer covers are fully transparent.
    """
    out = np.zeros((*shape, 4), dtype=np.uint8)
    for mask, rgb, alpha in layers:
        m = np.asarray(mask, dtype=bool)
        if m.shape != shape:
            raise ValueError(f"mask of shape {m.shape} on an overlay of shape {shape}")
        out[m, 0], out[m, 1], out[m, 2] = rgb
        out[m, 3] = alpha
    return out
