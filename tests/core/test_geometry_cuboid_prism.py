"""The closed-form fast paths of the cuboid IoU (:mod:`app.core.geometry.cuboid_prism`).

Parallel boxes (all axes) and boxes sharing one axis (yaw-only lidar boxes, in frames
turned at random so the shared axis is not the sensor's ``z``) must give what the
general clipping path and the scipy oracle give, to 1e-9, and take the path they should;
the rectangle overlap of the shared-axis path is checked against shapely's polygon
intersection.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from scipy.spatial.transform import Rotation

from app.core.geometry import cuboid_boxes, cuboid_clip, cuboid_prism, cuboids
from app.core.geometry.cuboids import cuboid_iou_pairs
from tests.core import cuboid_cases
from tests.core.cuboid_cases import (
    ORACLE,
    SEED,
    SIGNS_2D,
    YAW_KINDS,
    assert_matches_oracle,
    on_a_grid,
    random_pairs,
    relative_turn,
    yaw_only_pairs,
)


def test_parallel_boxes_fast_path_agrees_with_general_path() -> None:
    """Relative rotations from the cube's 24 symmetries: the fast path is exact."""
    rng = np.random.default_rng(SEED)
    a, b = random_pairs(rng, 600, spread=2.0)
    group = Rotation.create_group("O")
    turns = group[rng.integers(0, len(group), len(a))]
    b[:, 6:10] = (Rotation.from_quat(a[:, 6:10]) * turns).as_quat()
    turn = relative_turn(a, b)
    assert cuboid_prism.aligned(turn).all(), "the fast path must be the one taken"
    fast = cuboid_iou_pairs(a, b)
    general = cuboid_iou_pairs(a, b, aligned_fast_path=False)
    assert (fast > 0).mean() > 0.5
    np.testing.assert_allclose(fast, general, rtol=0, atol=ORACLE)
    assert_matches_oracle(a[:150], b[:150])


def test_turned_boxes_do_not_take_the_fast_path() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 50)
    turn = relative_turn(a, b)
    assert not cuboid_prism.aligned(turn).any()


# --------------------------------------------------------------------------- shared axis


def _paths(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs the aligned and the shared-axis (prism) fast paths may take."""
    turn = relative_turn(a, b)
    axis_a, _ = cuboid_prism.shared_axes(turn)
    return cuboid_prism.aligned(turn), axis_a >= 0


@pytest.mark.parametrize("kind", YAW_KINDS)
def test_yaw_only_pairs_take_the_prism_path_exactly(kind: str) -> None:
    """Right prisms: the closed form equals clipping and the oracle, whichever axis of
    each box is the shared one and however the common frame is tilted."""
    a, b = yaw_only_pairs(np.random.default_rng(SEED), 1000, kind)
    aligned, prism = _paths(a, b)
    assert prism.all() and not aligned.any(), "every pair must take the prism path"
    fast = cuboid_iou_pairs(a, b)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), fast, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(a, b, aligned_fast_path=False), fast,
                               rtol=0, atol=ORACLE)
    if kind in ("side-touch", "stacked"):
        np.testing.assert_allclose(fast, 0.0, rtol=0, atol=ORACLE)
    elif kind == "nested":
        ratio = np.prod(b[:, 3:6], axis=1) / np.prod(a[:, 3:6], axis=1)
        np.testing.assert_allclose(fast, ratio, rtol=0, atol=ORACLE)
    else:
        assert 0.3 < (fast > 0).mean() <= 1.0
    assert_matches_oracle(a[:150], b[:150])


def test_prism_path_on_parallel_boxes() -> None:
    """Parallel boxes (the aligned path's cases) through the prism path too, with each of
    the three axes as the shared one: coincident and touching edges, identical boxes."""
    rng = np.random.default_rng(SEED)
    a, b = on_a_grid(rng, 300)
    group = Rotation.create_group("O")
    b[:, 6:10] = (Rotation.from_quat(a[:, 6:10])
                  * group[rng.integers(0, len(group), len(a))]).as_quat()
    a, b = np.vstack([a, a]), np.vstack([b, a])  # and each box with itself
    turn, shift = cuboid_boxes.relative_pose(a, b)
    half_a, half_b = a[:, 3:6] / 2, b[:, 3:6] / 2
    assert cuboid_prism.aligned(turn).all()
    expected = cuboid_clip.clipped_volumes(turn, shift, half_a, half_b)
    assert 0.2 < (expected > 0).mean() < 0.9
    for axis in range(3):
        axis_a = np.full(len(a), axis)
        axis_b = np.argmax(np.abs(turn[:, axis, :]), axis=1)
        prism = cuboid_prism.prism_volumes(turn, shift, half_a, half_b, axis_a, axis_b)
        np.testing.assert_allclose(prism, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cuboid_iou_pairs(a[300:], b[300:]), 1.0, rtol=0, atol=1e-15)


@pytest.mark.parametrize(("angle", "prism"), [(1e-13, True), (1e-11, False), (1e-8, False)])
def test_tilt_at_the_shared_axis_tolerance(angle: float, prism: bool) -> None:
    """A tilt below the tolerance takes the prism path, above it clipping; the IoU moves
    by about the angle either way, no jump where the path changes."""
    rng = np.random.default_rng(SEED)
    a, b = yaw_only_pairs(rng, 300, "random")
    exact = cuboid_iou_pairs(a, b)
    axes = rng.normal(size=(len(b), 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    tilted = b.copy()
    tilted[:, 6:10] = (Rotation.from_rotvec(axes * angle)
                       * Rotation.from_quat(b[:, 6:10])).as_quat()
    aligned, shared = _paths(a, tilted)
    assert not aligned.any() and (shared == prism).all()
    moved = cuboid_iou_pairs(a, tilted)
    assert np.abs(moved - exact).max() <= 10 * angle + 1e-12
    np.testing.assert_allclose(cuboid_iou_pairs(a, tilted, aligned_fast_path=False), moved,
                               rtol=0, atol=ORACLE)


def test_yaw_only_boxes_in_the_sensor_frame_have_exact_zeros() -> None:
    """Lidar boxes (quaternion x = y = 0) share z exactly: no tolerance is even needed."""
    rng = np.random.default_rng(SEED)
    yaws = rng.uniform(-np.pi, np.pi, (500, 2))
    a, b = (np.column_stack([rng.uniform(-2, 2, (500, 3)), rng.uniform(0.5, 5, (500, 3)),
                             np.zeros((500, 2)), np.sin(y / 2), np.cos(y / 2)])
            for y in yaws.T)
    turn, _ = cuboid_boxes.relative_pose(a, b)
    assert (turn[:, 2, :2] == 0).all() and (turn[:, :2, 2] == 0).all()
    axis_a, axis_b = cuboid_prism.shared_axes(turn)
    assert (axis_a == 2).all() and (axis_b == 2).all()
    np.testing.assert_allclose(cuboid_iou_pairs(a, b),
                               cuboid_iou_pairs(a, b, aligned_fast_path=False),
                               rtol=0, atol=ORACLE)


def _rectangles(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """Corners ``(4, n)`` of rectangles against ``[±hx] × [±hy]``: half at random, half
    on a grid (parallel, coincident, touching, identical, nested), some of zero size."""
    hx, hy = rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, n)
    center = rng.uniform(-3.0, 3.0, (n, 2))
    half = rng.uniform(0.0, 3.0, (n, 2))
    angle = rng.uniform(-np.pi, np.pi, n)
    grid = np.arange(n) % 2 == 0
    hx[grid], hy[grid] = rng.integers(1, 5, (2, grid.sum())) / 2
    center[grid] = rng.integers(-8, 9, (grid.sum(), 2)) / 4
    half[grid] = rng.integers(0, 5, (grid.sum(), 2)) / 2
    same = grid & (np.arange(n) % 8 == 0)
    half[same] = np.column_stack([hx, hy])[same]
    center[np.arange(n) % 16 == 0] = 0.0  # some identical to the clip rectangle
    angle[grid] = 0.0
    u = np.column_stack([np.cos(angle), np.sin(angle)]) * half[:, :1]
    v = np.column_stack([-np.sin(angle), np.cos(angle)]) * half[:, 1:]
    corners = center[:, None, :] + (SIGNS_2D[None, :, :1] * u[:, None, :]
                                    + SIGNS_2D[None, :, 1:] * v[:, None, :])
    return corners[:, :, 0].T.copy(), corners[:, :, 1].T.copy(), hx, hy


def test_rectangle_overlap_against_shapely() -> None:
    x, y, hx, hy = _rectangles(np.random.default_rng(SEED), 4000)
    ours = cuboid_prism.clipped_rectangle_areas(x, y, hx, hy)
    polygons = shapely.polygons(np.stack([x.T, y.T], axis=2))
    expected = shapely.area(shapely.intersection(polygons, shapely.box(-hx, -hy, hx, hy)))
    assert 0.2 < (expected == 0).mean() < 0.6
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-12)
    # Either orientation, any starting corner: the same area.
    for turned in ((x[::-1], y[::-1]), (np.roll(x, 1, axis=0), np.roll(y, 1, axis=0))):
        np.testing.assert_allclose(cuboid_prism.clipped_rectangle_areas(*turned, hx, hy), ours,
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", YAW_KINDS)
def test_level_pairs_in_the_sensor_frame(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Yaw-only boxes in the sensor frame take the level path: what the prism path gives
    (3 × 3 matrices and all), and the oracle, on touching, stacked, coplanar, nested and
    near-parallel pairs."""
    rng = np.random.default_rng(SEED)
    with monkeypatch.context() as patch:  # the sensor's frame, the boxes' own axes
        patch.setattr(cuboid_cases, "random_rotations",
                      lambda _rng, n: Rotation.identity(n))
        patch.setattr(cuboid_cases, "_CUBE", Rotation.identity(1))
        a, b = yaw_only_pairs(rng, 200, kind)
    assert cuboid_prism.level_pairs(a, b).all(), "the level path must be the one taken"
    level = cuboid_iou_pairs(a, b)
    monkeypatch.setattr(cuboids, "level_pairs", lambda x, _y: np.zeros(len(x), dtype=bool))
    np.testing.assert_allclose(level, cuboid_iou_pairs(a, b), rtol=0, atol=1e-12)
    monkeypatch.undo()
    assert_matches_oracle(a, b)
    assert_matches_oracle(b, a)


def test_level_pairs_identical_and_degenerate() -> None:
    """Yaw-only boxes in the sensor frame: a box and itself (also turned half a turn, the
    same point set) have IoU 1; a flat one has IoU 0 with anything but its own copy."""
    rng = np.random.default_rng(SEED)
    yaw = rng.uniform(-np.pi, np.pi, 300)
    a = np.column_stack([rng.uniform(-5, 5, (300, 3)), rng.uniform(0.3, 5, (300, 3)),
                         np.zeros((300, 2)), np.sin(yaw / 2), np.cos(yaw / 2)])
    half_turn = a.copy()
    half_turn[:, 8:10] = np.column_stack([np.sin(yaw / 2 + np.pi / 2), np.cos(yaw / 2 + np.pi / 2)])
    flat = a.copy()
    flat[:, 3 + rng.integers(0, 3, 300)] = 0.0
    for x, y in ((a, a.copy()), (a, half_turn), (flat, a), (flat, flat.copy())):
        assert cuboid_prism.level_pairs(x, y).all()
    np.testing.assert_allclose(cuboid_iou_pairs(a, a.copy()), 1.0, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(a, half_turn), 1.0, rtol=0, atol=ORACLE)
    assert (cuboid_iou_pairs(flat, a) == 0.0).all()
    assert (cuboid_iou_pairs(flat, flat.copy()) == 1.0).all()
    assert_matches_oracle(a[:60], half_turn[:60])
    assert_matches_oracle(flat[:60], a[:60])
