"""Exact 3D IoU of oriented boxes: published values, an independent oracle, properties.

Oracles (none shares code with ``app.core.geometry.cuboids``):

- the published reference values (``reference-vectors.json``, key ``cuboid_iou_3d``);
- a brute-force per-pair oracle written here with scipy: the intersection of the 12
  half-spaces of both boxes by :class:`scipy.spatial.HalfspaceIntersection`, seeded with
  the Chebyshev centre found by :func:`scipy.optimize.linprog` (no interior: volume 0),
  and its volume by :class:`scipy.spatial.ConvexHull`; rotations by
  :class:`scipy.spatial.transform.Rotation`;
- closed forms where the answer is known by construction (nesting: ``vol_b / vol_a``;
  boxes sharing a ground plane: shapely's bird's-eye polygon overlap × height overlap);
- shapely's polygon intersection for the 2D rectangle overlap of the shared-axis path;
- for the batch API, :func:`cuboid_iou_pairs` over the full grid of each pair.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection
from scipy.spatial.transform import Rotation

from app.core.geometry import cuboid_boxes, cuboid_clip, cuboid_filters, cuboid_prism, cuboids
from app.core.geometry.cuboids import (
    CUBOID_EDGES,
    boxes_array,
    cuboid_corners,
    cuboid_iou_matrices,
    cuboid_iou_matrix,
    cuboid_iou_pairs,
    wireframe_segments,
)
from app.core.model import Cuboid
from tests.reference import reference_vectors

PUBLISHED = 1e-6  # published values carry six decimals
ORACLE = 1e-9
SEED = 20261130


# --------------------------------------------------------------------------- oracle


def _box(center: np.ndarray, size: np.ndarray, rotation: Rotation) -> np.ndarray:
    return np.concatenate([center, size, rotation.as_quat()])


def _halfspaces(box: np.ndarray) -> np.ndarray:
    """The 6 half-spaces ``n·x + c <= 0`` of a box, in scipy's ``[n, c]`` layout."""
    center, size = box[0:3], box[3:6]
    axes = Rotation.from_quat(box[6:10]).as_matrix()
    rows = []
    for k in range(3):
        for sign in (-1.0, 1.0):
            normal = sign * axes[:, k]
            rows.append([*normal, -(normal @ center + size[k] / 2.0)])
    return np.array(rows)


def oracle_volume(a: np.ndarray, b: np.ndarray) -> float:
    """Volume of the intersection of two boxes, brute force with scipy."""
    spaces = np.vstack([_halfspaces(a), _halfspaces(b)])
    normals, offsets = spaces[:, :3], spaces[:, 3]
    # Chebyshev centre: the deepest point, maximizing the radius r of a ball inside.
    program = linprog([0.0, 0.0, 0.0, -1.0],
                      A_ub=np.column_stack([normals, np.linalg.norm(normals, axis=1)]),
                      b_ub=-offsets, bounds=[(None, None)] * 3 + [(0.0, None)],
                      method="highs")
    scale = (np.linalg.norm(a[0:3] - b[0:3]) + np.linalg.norm(a[3:6])
             + np.linalg.norm(b[3:6]))
    if program.status != 0 or program.x[3] <= 1e-10 * scale:
        return 0.0  # no interior: the boxes at most touch
    corners = HalfspaceIntersection(spaces, program.x[:3]).intersections
    return float(ConvexHull(corners).volume)


def _oracle_corners(box: np.ndarray) -> np.ndarray:
    signs = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)])
    corners: np.ndarray = Rotation.from_quat(box[6:10]).apply(signs * box[3:6] / 2.0)
    moved: np.ndarray = corners + box[0:3]
    return moved


def oracle_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU by the oracle; two zero-volume boxes: 1 when the same point set, else 0."""
    vol_a, vol_b = float(np.prod(a[3:6])), float(np.prod(b[3:6]))
    if vol_a == 0.0 and vol_b == 0.0:
        ca, cb = _oracle_corners(a), _oracle_corners(b)
        gap = np.linalg.norm(ca[:, None] - cb[None, :], axis=2)
        return float((gap.min(axis=0) < 1e-9).all() and (gap.min(axis=1) < 1e-9).all())
    inter = oracle_volume(a, b)
    return inter / (vol_a + vol_b - inter)


def assert_matches_oracle(a: np.ndarray, b: np.ndarray) -> float:
    """Compare every pair with the oracle; return the largest difference."""
    ours = cuboid_iou_pairs(a, b)
    expected = np.array([oracle_iou(x, y) for x, y in zip(a, b, strict=True)])
    diff = np.abs(ours - expected)
    worst = int(np.argmax(diff)) if diff.size else 0
    assert diff.max(initial=0.0) <= ORACLE, (
        f"pair {worst}: ours {ours[worst]!r}, oracle {expected[worst]!r}\n"
        f"a={a[worst].tolist()}\nb={b[worst].tolist()}")
    return float(diff.max(initial=0.0))


def test_the_oracle_can_tell_boxes_apart() -> None:
    """The oracle itself: a unit cube and its half-overlapping copy give 1/3."""
    a = _box(np.zeros(3), np.ones(3), Rotation.identity())
    b = _box(np.array([0.5, 0.0, 0.0]), np.ones(3), Rotation.identity())
    assert oracle_iou(a, b) == pytest.approx(1.0 / 3.0, abs=1e-12)
    assert oracle_iou(a, a + np.r_[2.0, np.zeros(9)]) == 0.0


# --------------------------------------------------------------------------- random sets


def _random_rotations(rng: np.random.Generator, n: int) -> Rotation:
    return Rotation.random(n, random_state=int(rng.integers(2**31)))


def random_pairs(rng: np.random.Generator, n: int, spread: float = 3.0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Random boxes of 0.2-5 m, any rotation; ``spread`` 3 m makes about half overlap."""
    a = np.column_stack([rng.uniform(-1, 1, (n, 3)), rng.uniform(0.2, 5.0, (n, 3)),
                         _random_rotations(rng, n).as_quat()])
    b = np.column_stack([a[:, 0:3] + rng.uniform(-spread, spread, (n, 3)),
                         rng.uniform(0.2, 5.0, (n, 3)), _random_rotations(rng, n).as_quat()])
    return a, b


def touching_faces(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B against A's +x face, turned about that face's normal: only the faces touch."""
    for rot in _random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        local = np.array([(sa[0] + sb[0]) / 2, *rng.uniform(-0.5, 0.5, 2)])
        twist = Rotation.from_rotvec([rng.uniform(0, np.pi), 0.0, 0.0])
        yield _box(np.zeros(3), sa, rot), _box(rot.apply(local), sb, rot * twist)


def touching_edges(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B's vertical edge on A's vertical edge, B turned away from A: a line in common."""
    for rot in _random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        yaw = Rotation.from_rotvec([0.0, 0.0, rng.uniform(0.1, np.pi / 2 - 0.1)])
        edge = np.array([sa[0] / 2, sa[1] / 2, 0.0])
        local = edge + yaw.apply([sb[0] / 2, sb[1] / 2, rng.uniform(-0.5, 0.5)])
        yield _box(np.zeros(3), sa, rot), _box(rot.apply(local), sb, rot * yaw)


def touching_corner(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B in any rotation, its lowest corner (along A's x) set on A's +x face."""
    for rot_a, rot_b in zip(_random_rotations(rng, n), _random_rotations(rng, n),
                            strict=True):
        sa, sb = rng.uniform(1.0, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        relative = rot_a.inv() * rot_b
        corners = _oracle_corners(_box(np.zeros(3), sb, relative))
        low = corners[np.argmin(corners[:, 0])]
        local = np.array([sa[0] / 2, *rng.uniform(-0.3, 0.3, 2)]) - low
        yield _box(np.zeros(3), sa, rot_a), _box(rot_a.apply(local), sb, rot_b)


def nested(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B well inside A, any rotations: IoU is vol_b / vol_a."""
    for rot_a, rot_b in zip(_random_rotations(rng, n), _random_rotations(rng, n),
                            strict=True):
        sa, sb = rng.uniform(3.0, 5.0, 3), rng.uniform(0.2, 1.5, 3)
        room = sa.min() / 2 - np.linalg.norm(sb) / 2
        local = rng.uniform(-1, 1, 3) * room / np.sqrt(3) * 0.9
        yield _box(np.zeros(3), sa, rot_a), _box(rot_a.apply(local), sb, rot_b)


def nested_on_floor(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B inside A, standing on A's floor, yawed: coplanar faces facing the same way."""
    for rot in _random_rotations(rng, n):
        sa, sb = np.array([4.0, 4.0, 3.0]), rng.uniform(0.3, 1.5, 3)
        local = np.array([*rng.uniform(-0.5, 0.5, 2), (sb[2] - sa[2]) / 2])
        yaw = Rotation.from_rotvec([0.0, 0.0, rng.uniform(0, 2 * np.pi)])
        yield _box(np.zeros(3), sa, rot), _box(rot.apply(local), sb, rot * yaw)


def on_one_ground(rng: np.random.Generator, n: int, same_top: bool
                  ) -> Iterator[tuple[np.ndarray, ...]]:
    """Two yawed boxes on one (tilted) ground plane; with ``same_top`` tops coplanar too."""
    for rot in _random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 4.0, 3), rng.uniform(0.5, 4.0, 3)
        if same_top:
            sb[2] = sa[2]
        yaw_a, yaw_b = (Rotation.from_rotvec([0.0, 0.0, rng.uniform(0, 2 * np.pi)])
                        for _ in range(2))
        local = np.array([*rng.uniform(-2.0, 2.0, 2), (sb[2] - sa[2]) / 2])
        yield _box(np.zeros(3), sa, rot * yaw_a), _box(rot.apply(local), sb, rot * yaw_b)


def on_a_grid(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sizes and offsets on a half/quarter-metre grid of a common (tilted) frame, yaws in
    steps of 22.5°: shared planes, edges and corners everywhere, touching and not."""
    frame = _random_rotations(rng, n)
    a = np.column_stack([rng.uniform(-1, 1, (n, 3)), rng.integers(1, 5, (n, 3)) / 2,
                         frame.as_quat()])
    yaw = Rotation.from_rotvec(np.column_stack([np.zeros((n, 2)),
                                                rng.integers(0, 8, n) * np.pi / 8]))
    b = np.column_stack([a[:, 0:3] + frame.apply(rng.integers(-4, 5, (n, 3)) / 4),
                         rng.integers(1, 5, (n, 3)) / 2, (frame * yaw).as_quat()])
    return a, b


_CUBE = Rotation.create_group("O")
"""The 24 rotations of the cube: relabellings of a box's axes."""


def _disguised(rng: np.random.Generator, frames: Rotation, centers: np.ndarray,
               sizes: np.ndarray, yaws: np.ndarray) -> np.ndarray:
    """Boxes given by their yaw about ``frames``' z axes, rewritten as the same point sets
    with their own axes relabelled by random symmetries of the cube, in the tilted
    ``frames``: so the shared axis is neither the sensor's z nor always a box's third."""
    turns = _CUBE[rng.integers(0, len(_CUBE), len(yaws))]
    order = np.argmax(np.abs(turns.as_matrix()), axis=1)  # own axis k is old axis order[k]
    yawed = Rotation.from_rotvec(np.column_stack([np.zeros((len(yaws), 2)), yaws]))
    return np.column_stack([frames.apply(centers), np.take_along_axis(sizes, order, axis=1),
                            (frames * yawed * turns).as_quat()])


YAW_KINDS = ("random", "side-touch", "stacked", "same-top-bottom", "same-top", "nested",
             "near-parallel")


def _turn_2d(points: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Points ``(n, m, 2)`` turned by ``angles`` ``(n,)`` about the origin."""
    cos, sin = np.cos(angles)[:, None], np.sin(angles)[:, None]
    return np.stack([cos * points[..., 0] - sin * points[..., 1],
                     sin * points[..., 0] + cos * points[..., 1]], axis=-1)


def yaw_only_pairs(rng: np.random.Generator, n: int, kind: str
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of boxes turned about one common axis only (lidar boxes: yaw), by ``kind``:

    ``random`` (about half overlap), ``side-touch`` (a vertical edge of ``b`` on a side
    face of ``a``: IoU 0), ``stacked`` (``b`` on top of or under ``a``: IoU 0),
    ``same-top-bottom`` / ``same-top`` (coplanar horizontal faces), ``nested`` (``b``
    inside ``a``), ``near-parallel`` (yaws a quarter turn apart up to 1e-6-1e-11 rad:
    nearly coincident edges in the rectangle clip). Sizes and offsets are in the common
    frame whose z is the shared axis.
    """
    frames = _random_rotations(rng, n)
    size_a, size_b = rng.uniform(0.3, 4.0, (n, 3)), rng.uniform(0.3, 4.0, (n, 3))
    yaw_a, yaw_b = rng.uniform(-np.pi, np.pi, (2, n))
    offset = np.column_stack([rng.uniform(-2.0, 2.0, (n, 2)), rng.uniform(-1.5, 1.5, n)])
    if kind == "side-touch":
        corners = _turn_2d(_SIGNS_2D * size_b[:, None, :2] / 2, yaw_b - yaw_a)  # a's frame
        low = corners[np.arange(n), np.argmin(corners[..., 0], axis=1)]
        place = np.column_stack([size_a[:, 0] / 2, rng.uniform(-0.45, 0.45, n) * size_a[:, 1]])
        offset[:, :2] = _turn_2d((place - low)[:, None, :], yaw_a)[:, 0]
    elif kind == "stacked":
        offset[:, 2] = rng.choice([-1.0, 1.0], n) * (size_a[:, 2] + size_b[:, 2]) / 2
    elif kind == "same-top-bottom":
        size_b[:, 2], offset[:, 2] = size_a[:, 2], 0.0
    elif kind == "same-top":
        offset[:, 2] = (size_a[:, 2] - size_b[:, 2]) / 2
    elif kind == "nested":
        size_a, size_b = rng.uniform(3.0, 5.0, (n, 3)), rng.uniform(0.2, 1.0, (n, 3))
        room = size_a[:, :2].min(axis=1) / 2 - np.linalg.norm(size_b[:, :2], axis=1) / 2
        offset = np.column_stack([rng.uniform(-0.6, 0.6, (n, 2)) * room[:, None],
                                  rng.uniform(-0.9, 0.9, n) * (size_a[:, 2] - size_b[:, 2]) / 2])
    elif kind == "near-parallel":
        yaw_b = (yaw_a + rng.integers(0, 4, n) * np.pi / 2
                 + rng.choice([-1.0, 1.0], n) * rng.choice([1e-6, 1e-9, 1e-11], n))
    centers = rng.uniform(-1.0, 1.0, (n, 3))
    return (_disguised(rng, frames, centers, size_a, yaw_a),
            _disguised(rng, frames, centers + offset, size_b, yaw_b))


_SIGNS_2D = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])


def _stack(pairs: Iterator[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray]:
    rows = list(pairs)
    return np.array([p[0] for p in rows]), np.array([p[1] for p in rows])


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
    a, b = _stack(make(np.random.default_rng(SEED), 100))
    np.testing.assert_allclose(cuboid_iou_pairs(a, b), 0.0, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), 0.0, rtol=0, atol=ORACLE)
    assert_matches_oracle(a, b)


@pytest.mark.parametrize("make", [nested, nested_on_floor], ids=["inside", "on-floor"])
def test_nested_boxes_give_the_volume_ratio(
        make: Callable[[np.random.Generator, int], Iterator[tuple[np.ndarray, ...]]]) -> None:
    a, b = _stack(make(np.random.default_rng(SEED), 100))
    ratio = np.prod(b[:, 3:6], axis=1) / np.prod(a[:, 3:6], axis=1)
    np.testing.assert_allclose(cuboid_iou_pairs(a, b), ratio, rtol=0, atol=ORACLE)
    np.testing.assert_allclose(cuboid_iou_pairs(b, a), ratio, rtol=0, atol=ORACLE)
    assert_matches_oracle(a, b)


def _bird_eye_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Closed form for two boxes on one ground: polygon overlap × height overlap."""
    ground = Rotation.from_quat(a[6:10])
    outlines, heights = [], []
    for box in (a, b):
        corners = ground.inv().apply(_oracle_corners(box) - a[0:3])
        outlines.append(shapely.MultiPoint(corners[:, :2]).convex_hull)
        heights.append((corners[:, 2].min(), corners[:, 2].max()))
    overlap = max(0.0, min(heights[0][1], heights[1][1]) - max(heights[0][0], heights[1][0]))
    inter = outlines[0].intersection(outlines[1]).area * overlap
    return float(inter / (np.prod(a[3:6]) + np.prod(b[3:6]) - inter))


@pytest.mark.parametrize("same_top", [False, True], ids=["shared-face", "coplanar-faces"])
def test_boxes_on_one_ground(same_top: bool) -> None:
    a, b = _stack(on_one_ground(np.random.default_rng(SEED), 150, same_top))
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
    a, b = _stack(on_one_ground(rng, 200, same_top=True))
    c, d = _stack(nested_on_floor(rng, 200))
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


def _relative_turn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b``'s rotation in ``a``'s frame, from unchecked rows."""
    turn, _ = cuboid_boxes.relative_pose(cuboid_boxes.checked_rows(a, "a"),
                                         cuboid_boxes.checked_rows(b, "b"))
    return turn


def test_parallel_boxes_fast_path_agrees_with_general_path() -> None:
    """Relative rotations from the cube's 24 symmetries: the fast path is exact."""
    rng = np.random.default_rng(SEED)
    a, b = random_pairs(rng, 600, spread=2.0)
    group = Rotation.create_group("O")
    turns = group[rng.integers(0, len(group), len(a))]
    b[:, 6:10] = (Rotation.from_quat(a[:, 6:10]) * turns).as_quat()
    turn = _relative_turn(a, b)
    assert cuboid_prism.aligned(turn).all(), "the fast path must be the one taken"
    fast = cuboid_iou_pairs(a, b)
    general = cuboid_iou_pairs(a, b, aligned_fast_path=False)
    assert (fast > 0).mean() > 0.5
    np.testing.assert_allclose(fast, general, rtol=0, atol=ORACLE)
    assert_matches_oracle(a[:150], b[:150])


def test_turned_boxes_do_not_take_the_fast_path() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 50)
    turn = _relative_turn(a, b)
    assert not cuboid_prism.aligned(turn).any()


# --------------------------------------------------------------------------- shared axis


def _paths(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which pairs the aligned and the shared-axis (prism) fast paths may take."""
    turn = _relative_turn(a, b)
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
    corners = center[:, None, :] + (_SIGNS_2D[None, :, :1] * u[:, None, :]
                                    + _SIGNS_2D[None, :, 1:] * v[:, None, :])
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


def test_an_ambiguous_pair_is_retried_with_a_larger_tolerance(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The retry plumbing: a pair flagged ambiguous is recomputed, the rest kept."""
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
    sets = [random_pairs(rng, 500), _stack(touching_faces(rng, 50)),
            _stack(touching_edges(rng, 50)), _stack(touching_corner(rng, 50)),
            _stack(nested_on_floor(rng, 50)), _stack(on_one_ground(rng, 50, True)),
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


# --------------------------------------------------------------------------- matrix


def _cuboids(rows: np.ndarray) -> list[Cuboid]:
    return [Cuboid("car", tuple(r[0:3]), tuple(r[3:6]), tuple(r[6:10])) for r in rows]


def test_matrix_against_the_oracle() -> None:
    rng = np.random.default_rng(SEED)
    a, _ = random_pairs(rng, 6)
    b, _ = random_pairs(rng, 9)
    b[:, 0:3] *= 2.0
    b[-1, 0:3] = 1000.0  # far away: ruled out by the pre-filter
    matrix = cuboid_iou_matrix(_cuboids(a), _cuboids(b))
    assert matrix.shape == (6, 9)
    expected = np.array([[oracle_iou(x, y) for y in b] for x in a])
    np.testing.assert_allclose(matrix, expected, rtol=0, atol=ORACLE)
    assert (expected > 0).sum() >= 10
    assert (matrix[:, -1] == 0).all()


@pytest.mark.parametrize(("n", "m"), [(0, 0), (0, 3), (2, 0)])
def test_matrix_of_empty_answers(n: int, m: int) -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), max(n, m, 1))
    matrix = cuboid_iou_matrix(_cuboids(a[:n]), _cuboids(a[:m]))
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
            sides.append(boxes_array(_cuboids(boxes)))  # as the agreement code gets them
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
        np.testing.assert_array_equal(matrix, cuboid_iou_matrix(_cuboids(a), _cuboids(b)))
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


# --------------------------------------------------------------------------- drawing


def test_corners_equal_the_model() -> None:
    a, _ = random_pairs(np.random.default_rng(SEED), 30)
    boxes = _cuboids(a)
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
