"""Box rows, corners and wireframes (:mod:`app.core.geometry.cuboid_boxes`): the
numbering the 3D view draws with is the model's."""

from __future__ import annotations

import numpy as np

from app.core.geometry.cuboid_boxes import (
    CUBOID_EDGES,
    boxes_array,
    cuboid_corners,
    wireframe_segments,
)
from app.core.objects import Cuboid
from tests.core.cuboid_cases import (
    SEED,
    as_cuboids,
    random_pairs,
)


def test_corners_equal_the_model() -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), 30)
    boxes = as_cuboids(a)
    expected = np.array([c.corners() for c in boxes])
    np.testing.assert_allclose(cuboid_corners(boxes_array(boxes)), expected, rtol=0,
                               atol=1e-12)


def test_edges_join_corners_one_bit_apart() -> None:
    assert CUBOID_EDGES.shape == (12, 2)
    pairs = {tuple(sorted(map(int, e))) for e in CUBOID_EDGES}
    assert len(pairs) == 12
    for i, j in pairs:
        assert bin(i ^ j).count("1") == 1


def test_wireframe_edges_have_the_box_lengths() -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), 20)
    segments = wireframe_segments(a)
    assert segments.shape == (20 * 12, 2, 3)
    lengths = np.linalg.norm(segments[:, 1] - segments[:, 0], axis=1).reshape(20, 12)
    # Edge i-j (one bit k apart) runs along the box's own axis k: its length is size k.
    axis = np.log2(CUBOID_EDGES[:, 0] ^ CUBOID_EDGES[:, 1]).astype(int)
    np.testing.assert_allclose(lengths, a[:, 3 + axis], rtol=0, atol=1e-12)
    assert sorted(np.bincount(axis).tolist()) == [4, 4, 4]
    np.testing.assert_allclose(segments.reshape(20, 12, 2, 3)[:, :, 0],
                               cuboid_corners(a)[:, CUBOID_EDGES[:, 0]], rtol=0, atol=0)


def test_boxes_array_layout() -> None:
    box = Cuboid("car", (1.0, 2.0, 3.0), (4.0, 5.0, 6.0), (0.0, 0.0, 2.0, 0.0))
    np.testing.assert_array_equal(boxes_array([box]),
                                  [[1, 2, 3, 4, 5, 6, 0, 0, 1, 0]])
    assert boxes_array([]).shape == (0, 10)
