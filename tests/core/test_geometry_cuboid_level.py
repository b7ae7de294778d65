"""The yaw-only lane of the cuboid IoU (``cuboid_level``) and the block loop around it.

Oracles: shapely's polygon intersection for the ground-plane overlap (no code shared with
``app.core.geometry``) times the height overlap; the general prism path (3 × 3 matrices,
with the level lane turned off) and the scipy oracle of ``cuboid_cases`` through
:func:`cuboid_iou_pairs`. Block boundaries and the pairs deferred to the clamp
construction and to clipping must not change a single bit.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from app.core.geometry import cuboid_boxes, cuboid_clip, cuboid_filters, cuboids
from app.core.geometry.cuboid_level import clamped_volumes, level_volumes
from app.core.geometry.cuboids import cuboid_iou_pairs
from tests.core.cuboid_cases import ORACLE, SEED, assert_matches_oracle, random_pairs


def level_boxes(rng: np.random.Generator, n: int, spread: float = 2.0,
                yaw: np.ndarray | None = None) -> np.ndarray:
    """Yaw-only boxes in the sensor frame: quaternions ``(0, 0, sin, cos)`` of half the yaw."""
    yaw = rng.uniform(-np.pi, np.pi, n) if yaw is None else yaw
    return np.column_stack([rng.normal(0.0, spread, (n, 3)), rng.uniform(0.2, 4.0, (n, 3)),
                            np.zeros((n, 2)), np.sin(yaw / 2), np.cos(yaw / 2)])


def shapely_volumes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Ground-plane overlap by shapely times the overlap of the height intervals."""
    def footprints(rows: np.ndarray) -> np.ndarray:
        yaw = 2.0 * np.arctan2(rows[:, 8], rows[:, 9])
        u = np.column_stack([np.cos(yaw), np.sin(yaw)]) * rows[:, 3:4] / 2
        v = np.column_stack([-np.sin(yaw), np.cos(yaw)]) * rows[:, 4:5] / 2
        corners = rows[:, None, 0:2] + np.stack([u + v, -u + v, -u - v, u - v], axis=1)
        polygons: np.ndarray = shapely.polygons(corners)
        return polygons

    area = shapely.area(shapely.intersection(footprints(a), footprints(b)))
    top = np.minimum(a[:, 2] + a[:, 5] / 2, b[:, 2] + b[:, 5] / 2)
    bottom = np.maximum(a[:, 2] - a[:, 5] / 2, b[:, 2] - b[:, 5] / 2)
    volume: np.ndarray = area * np.maximum(top - bottom, 0.0)
    return volume


def columns(rows: np.ndarray) -> np.ndarray:
    return cuboid_boxes.checked_columns(rows, "boxes")


def test_stacked_side_sum_against_shapely() -> None:
    rng = np.random.default_rng(SEED)
    a, b = level_boxes(rng, 4000, spread=1.0), level_boxes(rng, 4000, spread=1.0)
    volume, ok = level_volumes(columns(a), columns(b))
    assert ok.mean() > 0.99
    expected = shapely_volumes(a, b)
    assert 0.3 < (expected > 0).mean() < 0.95, "a mix of overlapping and disjoint pairs"
    larger = np.maximum(np.prod(a[:, 3:6], axis=1), np.prod(b[:, 3:6], axis=1))
    assert (np.abs(volume - expected)[ok] / larger[ok]).max() <= ORACLE
    assert (np.abs(clamped_volumes(columns(a), columns(b)) - expected) / larger).max() <= ORACLE


def test_nested_and_identical_footprints() -> None:
    rng = np.random.default_rng(SEED + 1)
    a = level_boxes(rng, 500)
    a[:, 3:6] = rng.uniform(3.0, 5.0, (500, 3))
    inner = a.copy()
    inner[:, 3:6] = rng.uniform(0.2, 0.8, (500, 3))  # its corners stay inside a's
    inner[:, 8:10] = level_boxes(rng, 500)[:, 8:10]
    volume, ok = level_volumes(columns(a), columns(inner))
    np.testing.assert_allclose(volume[ok], np.prod(inner[ok, 3:6], axis=1), rtol=1e-12)
    volume, ok = level_volumes(columns(a), columns(a))
    assert not ok.any(), "the same yaw: sides parallel, left to the clamp construction"
    np.testing.assert_allclose(clamped_volumes(columns(a), columns(a)),
                               np.prod(a[:, 3:6], axis=1), rtol=1e-12)


def test_parallel_sides_go_to_the_clamp_construction() -> None:
    """Relative yaws of a multiple of 90° (and within 1e-9 of one): refused by the side
    sum, and :func:`cuboid_iou_pairs` still matches shapely and the oracle."""
    rng = np.random.default_rng(SEED + 2)
    yaw = rng.uniform(-np.pi, np.pi, 600)
    a = level_boxes(rng, 600, spread=1.0, yaw=yaw)
    turn = rng.integers(0, 4, 600) * np.pi / 2 + rng.choice([0.0, 1e-9, -1e-12], 600)
    b = level_boxes(rng, 600, spread=1.0, yaw=yaw + turn)
    _, ok = level_volumes(columns(a), columns(b))
    assert not ok.any()
    iou = cuboid_iou_pairs(a, b)
    volume = shapely_volumes(a, b)
    union = np.prod(a[:, 3:6], axis=1) + np.prod(b[:, 3:6], axis=1) - volume
    np.testing.assert_allclose(iou, volume / union, rtol=0, atol=ORACLE)
    assert (iou > 0).mean() > 0.5
    assert_matches_oracle(a[:80], b[:80])


def test_level_lane_equals_the_prism_path(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(SEED + 3)
    a, b = level_boxes(rng, 3000, spread=1.5), level_boxes(rng, 3000, spread=1.5)
    level = cuboid_iou_pairs(a, b)
    assert (level > 0).mean() > 0.3
    monkeypatch.setattr(cuboids, "level_pairs", lambda x, _y: np.zeros(len(x), dtype=bool))
    np.testing.assert_allclose(level, cuboid_iou_pairs(a, b), rtol=0, atol=1e-12)


def test_blocks_and_deferred_pairs_do_not_change_a_bit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Level, clamped, general and clipped pairs mixed, cut into blocks of every size:
    the same bits as one block, and a pair alone gives its value in the batch."""
    rng = np.random.default_rng(SEED + 4)
    yaw = rng.uniform(-np.pi, np.pi, 300)
    level_a = level_boxes(rng, 300, spread=1.0, yaw=yaw)
    level_b = level_boxes(rng, 300, spread=1.0, yaw=yaw + (np.arange(300) % 7 == 0) * np.pi / 2
                          + (np.arange(300) % 7 != 0) * rng.uniform(-3, 3, 300))
    any_a, any_b = random_pairs(rng, 300, spread=1.5)
    touching = any_b.copy()
    touching[:50] = any_a[:50]  # identical boxes: coplanar faces everywhere, clipped
    a, b = np.concatenate([level_a, any_a]), np.concatenate([level_b, touching])
    order = rng.permutation(len(a))
    a, b = a[order], b[order]
    expected = cuboid_iou_pairs(a, b)
    assert (expected > 0).mean() > 0.4
    for block in (1, 5, 64, 257):
        monkeypatch.setattr(cuboids, "BLOCK", block)
        monkeypatch.setattr(cuboid_clip, "CHUNK", 3)
        np.testing.assert_array_equal(cuboid_iou_pairs(a, b), expected)
    monkeypatch.undo()
    for k in (0, 1, 17, len(a) - 1):
        assert cuboid_iou_pairs(a[k:k + 1], b[k:k + 1])[0] == expected[k]


def test_checked_columns_are_checked_rows_transposed() -> None:
    rng = np.random.default_rng(SEED + 5)
    rows = level_boxes(rng, 50)
    rows[:, 6:10] = rng.normal(0.0, 2.0, (50, 4))  # not unit: normalized the same way
    np.testing.assert_array_equal(cuboid_boxes.checked_columns(rows, "a"),
                                  cuboid_boxes.checked_rows(rows, "a").T)
    assert cuboid_boxes.checked_columns(np.zeros((0, 10)), "a").shape == (10, 0)
    for column, value, message in ((4, -1.0, "negative"), (2, np.nan, "finite"),
                                   (9, np.inf, "finite")):
        bad = rows.copy()
        bad[3, column] = value
        with pytest.raises(ValueError, match=message):
            cuboid_boxes.checked_columns(bad, "a")
    bad = rows.copy()
    bad[7, 6:10] = 0.0
    with pytest.raises(ValueError, match="quaternion"):
        cuboid_boxes.checked_columns(bad, "a")


def test_relative_pose_columns_is_relative_pose() -> None:
    """Bit for bit, laid out pair-last (the views the line sum takes without a copy)."""
    a, b = random_pairs(np.random.default_rng(SEED + 6), 500)
    rows_a, rows_b = cuboid_boxes.checked_rows(a, "a"), cuboid_boxes.checked_rows(b, "b")
    turn, shift = cuboid_boxes.relative_pose(rows_a, rows_b)
    turn_c, shift_c = cuboid_boxes.relative_pose_columns(columns(a), columns(b))
    np.testing.assert_array_equal(turn_c, turn)
    np.testing.assert_array_equal(shift_c, shift)
    assert turn_c.transpose(1, 2, 0).flags.c_contiguous and shift_c.T.flags.c_contiguous


def test_columns_apart_is_spheres_apart() -> None:
    """The sphere filter on columns decides every pair as the one on rows does, touching
    spheres (not apart) included."""
    a, b = random_pairs(np.random.default_rng(SEED + 7), 3000, spread=4.0)
    b[:100, 0:3] = a[:100, 0:3]
    rows_a, rows_b = cuboid_boxes.checked_rows(a, "a"), cuboid_boxes.checked_rows(b, "b")
    radii = cuboid_boxes.half_diagonals(rows_a) + cuboid_boxes.half_diagonals(rows_b)
    rows_b[100:200, 0] = rows_a[100:200, 0] + radii[100:200]  # spheres just touching
    rows_b[100:200, 1:3] = rows_a[100:200, 1:3]
    expected = cuboid_filters.spheres_apart(rows_a, rows_b)
    assert 0.2 < expected.mean() < 0.9 and not expected[:100].any()
    np.testing.assert_array_equal(
        cuboid_filters.columns_apart(np.ascontiguousarray(rows_a.T),
                                     np.ascontiguousarray(rows_b.T)), expected)
