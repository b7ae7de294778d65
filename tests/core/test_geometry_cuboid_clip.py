"""The general clipping path's safety net and the pre-filters of the cuboid IoU.

:mod:`app.core.geometry.cuboid_clip` retries a pair with a larger tolerance when a face
has several exits (never seen on the hard cases, checked here); the sphere and
separating-axis filters of :mod:`app.core.geometry.cuboid_filters` may only rule out
pairs whose clipped volume is 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.core.geometry import cuboid_boxes, cuboid_clip, cuboid_filters, cuboids
from app.core.geometry.cuboids import cuboid_iou_pairs
from tests.core.cuboid_cases import (
    ORACLE,
    SEED,
    nested_on_floor,
    on_a_grid,
    on_one_ground,
    random_pairs,
    stack,
    touching_corner,
    touching_edges,
    touching_faces,
)


def test_an_ambiguous_pair_is_retried_with_a_larger_tolerance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The retry plumbing: a pair flagged ambiguous is recomputed, the rest kept."""
    # Every pair to clipping (random pairs would otherwise take the line sum).
    monkeypatch.setattr(cuboids, "summable",
                        lambda turn, *_: np.zeros(len(turn), dtype=bool))
    monkeypatch.setattr(cuboids, "free_of_grazing",
                        lambda turn, *_: np.zeros(len(turn), dtype=bool))
    a, b = random_pairs(np.random.default_rng(SEED), 40, spread=1.0)
    expected = cuboid_iou_pairs(a, b, aligned_fast_path=False)
    real = cuboid_clip._clip_box
    tolerances: list[np.ndarray] = []

    def flag_first(*args: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        volume, ambiguous = real(*args)
        tolerances.append(args[-1])
        if len(tolerances) == 1:
            ambiguous = ambiguous.copy()
            ambiguous[0] = True
        return volume, ambiguous

    monkeypatch.setattr(cuboid_clip, "_clip_box", flag_first)
    again = cuboid_iou_pairs(a, b, aligned_fast_path=False)
    assert len(tolerances) == 2 and len(tolerances[1]) == 1
    assert tolerances[1][0] > tolerances[0][0]
    np.testing.assert_allclose(again, expected, rtol=0, atol=ORACLE)


def test_no_ambiguity_on_the_hard_cases() -> None:
    """The multi-exit safety net stays unused on touching and coplanar configurations."""
    rng = np.random.default_rng(SEED)
    sets = [random_pairs(rng, 500), stack(touching_faces(rng, 50)),
            stack(touching_edges(rng, 50)), stack(touching_corner(rng, 50)),
            stack(nested_on_floor(rng, 50)), stack(on_one_ground(rng, 50, True)),
            on_a_grid(rng, 500)]
    for a, b in sets:
        for x, y in ((a, b), (b, a)):
            turn, shift = cuboid_boxes.relative_pose(x, y)
            half_x, half_y = x[:, 3:6] / 2, y[:, 3:6] / 2
            scale = (np.linalg.norm(shift, axis=1) + np.linalg.norm(half_x, axis=1)
                     + np.linalg.norm(half_y, axis=1))
            _, ambiguous = cuboid_clip._clip_box(turn, shift, half_x, half_y,
                                             cuboid_clip.PLANE_TOLERANCE * scale)
            assert not ambiguous.any()


# --------------------------------------------------------------------------- pre-filters


def test_sphere_prefilter_only_rules_out_disjoint_pairs() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 3000, spread=6.0)
    rows_a, rows_b = cuboid_boxes.checked_rows(a, "a"), cuboid_boxes.checked_rows(b, "b")
    apart = cuboid_filters.spheres_apart(rows_a, rows_b)
    assert 0.2 < apart.mean() < 0.9
    turn, shift = cuboid_boxes.relative_pose(rows_a, rows_b)
    volumes = cuboid_clip.clipped_volumes(turn, shift, rows_a[:, 3:6] / 2, rows_b[:, 3:6] / 2)
    assert (volumes[apart] <= 1e-12).all()


def test_separating_axis_filter_only_rules_out_disjoint_pairs() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 3000, spread=4.0)
    turn, shift = cuboid_boxes.relative_pose(a, b)
    half_a, half_b = a[:, 3:6] / 2, b[:, 3:6] / 2
    separated = cuboid_filters.separated(turn, shift, half_a, half_b)
    volumes = cuboid_clip.clipped_volumes(turn, shift, half_a, half_b)
    assert separated.mean() > 0.3
    assert (volumes[separated] <= 1e-12).all()
    assert (volumes[~separated] > 1e-12).mean() > 0.99, "and misses almost none"
