"""Mask outlines and overlays, against hand-drawn expectations."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.geometry.mask_drawing import erode, outline, rgba_overlay


def test_outline_of_a_square_is_its_border() -> None:
    m = np.zeros((6, 6), dtype=bool)
    m[1:5, 1:5] = True
    expected = m.copy()
    expected[2:4, 2:4] = False
    assert (outline(m) == expected).all()
    thick = outline(m, width=2)
    assert thick.sum() == 16  # the inner 2×2 erodes away entirely at width 2


def test_a_mask_on_the_frame_is_closed_at_the_frame() -> None:
    m = np.ones((4, 5), dtype=bool)
    edge = outline(m)
    assert edge[0].all() and edge[-1].all() and edge[:, 0].all() and edge[:, -1].all()
    assert not edge[1:3, 1:4].any()
    assert not erode(np.ones((1, 1), dtype=bool)).any()


def test_overlay_paints_layers_in_order() -> None:
    a = np.array([[True, True], [False, False]])
    b = np.array([[False, True], [False, True]])
    out = rgba_overlay([(a, (255, 0, 0), 100), (b, (0, 0, 255), 200)], (2, 2))
    assert out[0, 0].tolist() == [255, 0, 0, 100]
    assert out[0, 1].tolist() == [0, 0, 255, 200]
    assert out[1, 1].tolist() == [0, 0, 255, 200]
    assert out[1, 0].tolist() == [0, 0, 0, 0]
    with pytest.raises(ValueError):
        rgba_overlay([(a, (1, 2, 3), 4)], (3, 3))
