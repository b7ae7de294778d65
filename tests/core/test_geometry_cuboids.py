"""Exact 3D IoU of oriented boxes through the public API: published values, an
independent oracle, the batch API, properties.

Oracles (none shares code with ``app.core.geometry``):

- the published reference values (``reference-vectors.json``, key ``cuboid_iou_3d``);
- the brute-force per-pair scipy oracle of :mod:`tests.core.cuboid_cases`;
- closed forms where the answer is known by construction (nesting: ``vol_b / vol_a``;
  boxes sharing a ground plane: shapely's bird's-eye polygon overlap × height overlap);
- for the batch API, :func:`cuboid_iou_pairs` over the full grid of each pair.

The closed-form fast paths, the clipping's safety net, the pre-filters and the box rows
have their own test modules (``test_geometry_cuboid_*.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from app.core.geometry import cuboid_clip, cuboid_filters, cuboids
from app.core.geometry.cuboid_boxes import boxes_array
from app.core.geometry.cuboids import (
    cuboid_iou_matrices,
    cuboid_iou_matrix,
    cuboid_iou_pairs,
)
from app.core.objects import Cuboid
from tests.core.cuboid_cases import (
    ORACLE,
    SEED,
    as_cuboids,
    assert_matches_oracle,
    box_row,
    nested,
    nested_on_floor,
    on_a_grid,
    on_one_ground,
    oracle_corners,
    oracle_iou,
    random_pairs,
    stack,
    touching_corner,
    touching_edges,
    touching_faces,
)
from tests.reference import reference_vectors

PUBLISHED = 1e-6  # published values carry six decimals


def test_the_oracle_can_tell_boxes_apart() -> None:
    """The oracle itself: a unit cube and its half-overlapping copy give 1/3."""
    a = box_row(np.zeros(3), np.ones(3), Rotation.identity())
    b = box_row(np.array([0.5, 0.0, 0.0]), np.ones(3), Rotation.identity())
    assert oracle_iou(a, b) == pytest.approx(1.0 / 3.0, abs=1e-12)
    assert oracle_iou(a, a + np.r_[2.0, np.zeros(9)]) == 0.0


# --------------------------------------------------------------------------- references


def _reference_rows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cases = reference_vectors()["cuboid_iou_3d"]["cases"]

    def row(box: dict[str, list[float]]) -> np.ndarray:
        return np.array([*box["center"], *box["size"], *box["rotation"]], dtype=float)

    return (np.array([row(c["a"]) for c in cases]), np.array([row(c["b"]) for c in cases]),
            np.array([c["iou_3d"] for c in cases]))


@pytest.mark.parametrize("fast", [True, False])
def test_reference_values(fast: bool) -> None:
    a, b, expected = _reference_rows()
    assert len(expected) == 4
    np.testing.assert_allclose(cuboid_iou_pairs(a, b, aligned_fast_path=fast), expected,
                               rtol=0, atol=PUBLISHED)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a, aligned_fast_path=fast), expected,
                               rtol=0, atol=PUBLISHED)


def test_reference_values_survive_a_common_rotation() -> None:
    """Turned together, the four cases leave every axis: the general path, coplanar faces."""
    a, b, expected = _reference_rows()
    for rot in Rotation.random(10, random_state=SEED):
        turned = [np.column_stack([rot.apply(x[:, 0:3]), x[:, 3:6],
                                   (rot * Rotation.from_quat(x[:, 6:10])).as_quat()])
                  for x in (a, b)]
        np.testing.assert_allclose(cuboid_iou_pairs(*turned), expected, rtol=0,
                                   atol=PUBLISHED)


def test_reference_values_through_cuboids() -> None:
    cases = reference_vectors()["cuboid_iou_3d"]["cases"]
    for case in cases:
        a, b = (Cuboid("car", tuple(case[k]["center"]), tuple(case[k]["size"]),
                       tuple(case[k]["rotation"])) for k in ("a", "b"))
        assert cuboid_iou_matrix([a], [b])[0, 0] == pytest.approx(case["iou_3d"],
                                                                  abs=PUBLISHED)


# --------------------------------------------------------------------------- oracle runs


def test_random_pairs_against_the_oracle() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 2000)
    overlapping = (cuboid_iou_pairs(a, b) > 0).mean()
    assert 0.3 < overlapping < 0.7, f"the sample should overlap about half: {overlapping}"
    assert_matches_oracle(a, b)


@pytest.mark.parametrize("make", [touching_faces, touching_edges, touching_corner],
                         ids=["faces", "edges", "corner"])


def test_touching_boxes_have_zero_iou(
        make: Callable[[np.random.Generator, int], Iterator[tuple[np.ndarray, ...]]]) -> None:
    a, b = stack(make(np.random.default_rng(SEED), 100))
    np.testing.assert_allclose(cuboid_iou_pairs(a, b), 0.0, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), 0.0, rtol=0, atol=ORACLE)
    assert_matches_oracle(a, b)


@pytest.mark.parametrize("make", [nested, nested_on_floor], ids=["inside", "on-floor"])
def test_nested_boxes_give_the_volume_ratio(
        make: Callable[[np.random.Generator, int], Iterator[tuple[np.ndarray, ...]]]) -> None:
    a, b = stack(make(np.random.default_rng(SEED), 100))
    ratio = np.prod(b[:, 3:6], axis=1) / np.prod(a[:, 3:6], axis=1)
    np.testing.assert_allclose(cuboid_iou_pairs(a, b), ratio, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), ratio, rtol=0, atol=ORACLE)
    assert_matches_oracle(a, b)


def _bird_eye_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Closed form for two boxes on one ground: polygon overlap × height overlap."""
    ground = Rotation.from_quat(a[6:10])
    outlines, heights = [], []
    for box in (a, b):
        corners = ground.inv().apply(oracle_corners(box) - a[0:3])
        outlines.append(shapely.MultiPoint(corners[:, :2]).convex_hull)
        heights.append((corners[:, 2].min(), corners[:, 2].max()))
    overlap = max(0.0, min(heights[0][1], heights[1][1]) - max(heights[0][0], heights[1][0]))
    inter = outlines[0].intersection(outlines[1]).area * overlap
    return float(inter / (np.prod(a[3:6]) + np.prod(b[3:6]) - inter))


@pytest.mark.parametrize("same_top", [False, True], ids=["shared-face", "coplanar-faces"])
def test_boxes_on_one_ground(same_top: bool) -> None:
    a, b = stack(on_one_ground(np.random.default_rng(SEED), 150, same_top))
    expected = np.array([_bird_eye_iou(x, y) for x, y in zip(a, b, strict=True)])
    assert (expected > 0).mean() > 0.5
    np.testing.assert_allclose(cuboid_iou_pairs(a, b), expected, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), expected, rtol=0, atol=ORACLE)
    assert_matches_oracle(a, b)


@pytest.mark.parametrize("angle", [1e-5, 1e-8, 1e-10, 1e-12, 1e-14])
def test_nearly_coplanar_faces_change_the_iou_continuously(angle: float) -> None:
    """Tilting one box of a coplanar configuration by a tiny angle moves the IoU by about
    that angle, never by a face counted twice or lost (the classic failure of clipping)."""
    rng = np.random.default_rng(SEED)
    a, b = stack(on_one_ground(rng, 200, same_top=True))
    c, d = stack(nested_on_floor(rng, 200))
    a, b = np.vstack([a, c]), np.vstack([b, d])
    exact = cuboid_iou_pairs(a, b)
    axes = rng.normal(size=(len(b), 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    tilted = b.copy()
    tilted[:, 6:10] = (Rotation.from_rotvec(axes * angle)
                       * Rotation.from_quat(b[:, 6:10])).as_quat()
    for moved in (cuboid_iou_pairs(a, tilted), cuboid_iou_pairs(tilted, a)):
        assert np.abs(moved - exact).max() <= 10 * angle + 1e-12


def test_shared_planes_on_a_grid() -> None:
    a, b = on_a_grid(np.random.default_rng(SEED), 400)
    expected = np.array([oracle_iou(x, y) for x, y in zip(a, b, strict=True)])
    assert 0.2 < (expected == 0).mean() < 0.8
    for fast in (True, False):
        for x, y in ((a, b), (b, a)):
            np.testing.assert_allclose(cuboid_iou_pairs(x, y, aligned_fast_path=fast),
                                       expected, rtol=0, atol=ORACLE)


def test_identical_boxes() -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), 200)
    np.testing.assert_allclose(cuboid_iou_pairs(a, a, aligned_fast_path=False), 1.0,
                               rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(a, a.copy()), 1.0, rtol=0, atol=ORACLE)


# --------------------------------------------------------------------------- degenerate


def test_degenerate_boxes() -> None:
    rng = np.random.default_rng(SEED)
    a, _ = random_pairs(rng, 60, spread=0.5)
    flat = a.copy()
    flat[:, 3 + rng.integers(0, 3, len(a))] = 0.0  # one size 0 per box
    flat[::3, 3:6] = 0.0  # and some points
    half_turn = flat.copy()  # the same point set, another quaternion
    half_turn[:, 6:10] = (Rotation.from_quat(flat[:, 6:10])
                          * Rotation.from_rotvec([0.0, 0.0, np.pi])).as_quat()
    moved = flat.copy()
    moved[:, 0] += 0.25

    assert (cuboid_iou_pairs(a, flat) == 0.0).all(), "zero volume inside a box: 0"
    assert (cuboid_iou_pairs(flat, a) == 0.0).all()
    assert (cuboid_iou_pairs(flat, flat) == 1.0).all(), "identical degenerate boxes: 1"
    np.testing.assert_array_equal(cuboid_iou_pairs(flat[1::3], half_turn[1::3]), 1.0)
    assert (cuboid_iou_pairs(flat, moved) == 0.0).all()
    for x, y in ((a, flat), (flat, flat), (flat[1::3], half_turn[1::3]), (flat, moved)):
        assert_matches_oracle(x, y)


def test_invalid_boxes_raise() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 3)
    for column, value in ((3, -1.0), (0, np.nan), (5, np.inf)):
        bad = b.copy()
        bad[1, column] = value
        with pytest.raises(ValueError):
            cuboid_iou_pairs(a, bad)
    zero = b.copy()
    zero[0, 6:10] = 0.0
    with pytest.raises(ValueError, match="quaternion"):
        cuboid_iou_pairs(a, zero)
    with pytest.raises(ValueError):
        cuboid_iou_pairs(a, b[:2])


def test_quaternions_need_not_be_unit() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 50)
    scaled = b.copy()
    scaled[:, 6:10] *= 3.5
    np.testing.assert_allclose(cuboid_iou_pairs(a, scaled), cuboid_iou_pairs(a, b),
                               rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- matrix


def test_matrix_against_the_oracle() -> None:
    rng = np.random.default_rng(SEED)
    a, _ = random_pairs(rng, 6)
    b, _ = random_pairs(rng, 9)
    b[:, 0:3] *= 2.0
    b[-1, 0:3] = 1000.0  # far away: ruled out by the pre-filter
    matrix = cuboid_iou_matrix(as_cuboids(a), as_cuboids(b))
    assert matrix.shape == (6, 9)
    expected = np.array([[oracle_iou(x, y) for y in b] for x in a])
    np.testing.assert_allclose(matrix, expected, rtol=0, atol=ORACLE)
    assert (expected > 0).sum() >= 10
    assert (matrix[:, -1] == 0).all()


@pytest.mark.parametrize(("n", "m"), [(0, 0), (0, 3), (2, 0)])
def test_matrix_of_empty_answers(n: int, m: int) -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), max(n, m, 1))
    matrix = cuboid_iou_matrix(as_cuboids(a[:n]), as_cuboids(a[:m]))
    assert matrix.shape == (n, m)


def _study_batch(rng: np.random.Generator, items: int
                 ) -> list[tuple[np.ndarray, np.ndarray]]:
    """A small lidar-like batch: per item two annotators' boxes (0-8 each, some items
    empty), yaw-only or tilted, copies of one scene with noise, plus strays."""
    pairs = []
    for _ in range(items):
        n = int(rng.integers(0, 9))
        truth = np.column_stack([rng.uniform(-6, 6, (n, 2)), np.full(n, 0.8)])
        yaw = rng.uniform(-np.pi, np.pi, n)
        tilted = rng.random(n) < 0.3
        sides = []
        for _ in range(2):
            keep = rng.random(n) < 0.8
            tilt = np.where(tilted[:, None], rng.uniform(-0.03, 0.03, (n, 2)), 0.0)
            turns = Rotation.from_euler("zyx", np.column_stack(
                [yaw + rng.normal(0, 0.05, n), tilt]))
            boxes = np.column_stack([truth + rng.normal(0, 0.2, (n, 3)) * [1, 1, 0],
                                     4.5 + rng.normal(0, 0.2, n), np.full(n, 1.9),
                                     np.full(n, 1.6), turns.as_quat()])[keep]
            sides.append(boxes_array(as_cuboids(boxes)))  # as the agreement code gets them
        pairs.append((sides[0], sides[1]))
    return pairs


def test_matrices_equal_the_matrix_of_each_pair() -> None:
    pairs = _study_batch(np.random.default_rng(SEED), 120)
    empty = np.zeros((0, 10))
    pairs += [(empty, pairs[0][1]), (pairs[1][0], empty), (empty, empty)]
    assert any(len(a) == 0 or len(b) == 0 for a, b in pairs[:120]), "some items empty"
    matrices = cuboid_iou_matrices(pairs)
    assert len(matrices) == len(pairs)
    overlapping = 0
    for (a, b), matrix in zip(pairs, matrices, strict=True):
        assert matrix.shape == (len(a), len(b))
        np.testing.assert_array_equal(matrix, cuboid_iou_matrix(as_cuboids(a), as_cuboids(b)))
        grid = cuboid_iou_pairs(np.repeat(a, len(b), axis=0), np.tile(b, (len(a), 1)))
        np.testing.assert_array_equal(matrix, grid.reshape(len(a), len(b)))
        overlapping += int((matrix > 0).sum())
    assert overlapping > 300


def test_matrices_do_not_depend_on_how_the_batch_is_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Sphere chunks, blocks and clipping chunks cutting through matrices and rows:
    bit-for-bit the same values (a pair never depends on the pairs beside it)."""
    pairs = _study_batch(np.random.default_rng(SEED + 1), 40)
    expected = cuboid_iou_matrices(pairs)
    monkeypatch.setattr(cuboid_filters, "SPHERE_CHUNK", 7)
    monkeypatch.setattr(cuboids, "BLOCK", 5)
    monkeypatch.setattr(cuboid_clip, "CHUNK", 3)
    for got, want in zip(cuboid_iou_matrices(pairs), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_matrices_of_an_empty_batch() -> None:
    assert cuboid_iou_matrices([]) == []
    matrices = cuboid_iou_matrices([(np.zeros((0, 10)), np.zeros((0, 10)))])
    assert len(matrices) == 1 and matrices[0].shape == (0, 0)


def test_matrices_reject_invalid_boxes() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 3)
    bad = b.copy()
    bad[2, 4] = -1.0
    with pytest.raises(ValueError, match="negative"):
        cuboid_iou_matrices([(a, b), (a, bad)])


# --------------------------------------------------------------------------- properties


_coordinate = st.floats(-3.0, 3.0, allow_nan=False)
_size = st.floats(0.2, 5.0, allow_nan=False)
_quaternion = st.tuples(*[st.floats(-1.0, 1.0, allow_nan=False)] * 4).filter(
    lambda q: float(np.linalg.norm(q)) > 0.2)


_boxes = st.builds(lambda c, s, q: np.array([*c, *s, *q], dtype=float),
                   st.tuples(_coordinate, _coordinate, _coordinate),
                   st.tuples(_size, _size, _size), _quaternion)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    return float(cuboid_iou_pairs(a[None, :], b[None, :])[0])


@settings(max_examples=100, deadline=None)
@given(_boxes, _boxes)
def test_symmetric_and_bounded(a: np.ndarray, b: np.ndarray) -> None:
    forward, backward = _iou(a, b), _iou(b, a)
    assert 0.0 <= forward <= 1.0
    assert abs(forward - backward) <= ORACLE


@settings(max_examples=100, deadline=None)
@given(_boxes)
def test_a_box_with_itself_is_one(a: np.ndarray) -> None:
    assert abs(float(cuboid_iou_pairs(a[None, :], a[None, :], aligned_fast_path=False)[0])
               - 1.0) <= ORACLE


@settings(max_examples=100, deadline=None)
@given(_boxes, _boxes, st.tuples(*[st.floats(-50.0, 50.0, allow_nan=False)] * 3))
def test_invariant_to_translation(a: np.ndarray, b: np.ndarray,
                                  move: tuple[float, float, float]) -> None:
    shifted = [x.copy() for x in (a, b)]
    for x in shifted:
        x[0:3] += move
    assert abs(_iou(a, b) - _iou(*shifted)) <= ORACLE


@settings(max_examples=100, deadline=None)
@given(_boxes, _boxes, _quaternion)
def test_invariant_to_a_common_rotation(a: np.ndarray, b: np.ndarray,
                                        turn: tuple[float, float, float, float]) -> None:
    rot = Rotation.from_quat(turn)
    turned = [np.concatenate([rot.apply(x[0:3]), x[3:6],
                              (rot * Rotation.from_quat(x[6:10])).as_quat()])
              for x in (a, b)]
    assert abs(_iou(a, b) - _iou(*turned)) <= ORACLE
