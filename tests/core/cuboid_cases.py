"""Shared cases for the cuboid IoU tests: an independent oracle and random box sets.

The oracle shares no code with ``app.core.geometry``: the intersection of the 12
half-spaces of both boxes by :class:`scipy.spatial.HalfspaceIntersection`, seeded with
the Chebyshev centre found by :func:`scipy.optimize.linprog` (no interior: volume 0),
and its volume by :class:`scipy.spatial.ConvexHull`; rotations by
:class:`scipy.spatial.transform.Rotation`. ``tests/benchmarks/bench_cuboid_iou.py``
times it too.

The generators build the hard configurations the tests need (touching faces, edges and
corners, nested boxes, shared ground planes, a half-metre grid, yaw-only pairs in a
tilted frame) from a seeded :class:`numpy.random.Generator`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection
from scipy.spatial.transform import Rotation

from app.core.geometry import cuboid_boxes
from app.core.geometry.cuboids import cuboid_iou_pairs
from app.core.objects import Cuboid

ORACLE = 1e-9  # the bound against the independent oracle
SEED = 20261130


# --------------------------------------------------------------------------- oracle


def box_row(center: np.ndarray, size: np.ndarray, rotation: Rotation) -> np.ndarray:
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


def oracle_corners(box: np.ndarray) -> np.ndarray:
    signs = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)])
    corners: np.ndarray = Rotation.from_quat(box[6:10]).apply(signs * box[3:6] / 2.0)
    moved: np.ndarray = corners + box[0:3]
    return moved


def oracle_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU by the oracle; two zero-volume boxes: 1 when the same point set, else 0."""
    vol_a, vol_b = float(np.prod(a[3:6])), float(np.prod(b[3:6]))
    if vol_a == 0.0 and vol_b == 0.0:
        ca, cb = oracle_corners(a), oracle_corners(b)
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


# --------------------------------------------------------------------------- random sets


def random_rotations(rng: np.random.Generator, n: int) -> Rotation:
    return Rotation.random(n, random_state=int(rng.integers(2**31)))


def random_pairs(rng: np.random.Generator, n: int, spread: float = 3.0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Random boxes of 0.2-5 m, any rotation; ``spread`` 3 m makes about half overlap."""
    a = np.column_stack([rng.uniform(-1, 1, (n, 3)), rng.uniform(0.2, 5.0, (n, 3)),
                         random_rotations(rng, n).as_quat()])
    b = np.column_stack([a[:, 0:3] + rng.uniform(-spread, spread, (n, 3)),
                         rng.uniform(0.2, 5.0, (n, 3)), random_rotations(rng, n).as_quat()])
    return a, b


def touching_faces(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B against A's +x face, turned about that face's normal: only the faces touch."""
    for rot in random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        local = np.array([(sa[0] + sb[0]) / 2, *rng.uniform(-0.5, 0.5, 2)])
        twist = Rotation.from_rotvec([rng.uniform(0, np.pi), 0.0, 0.0])
        yield box_row(np.zeros(3), sa, rot), box_row(rot.apply(local), sb, rot * twist)


def touching_edges(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B's vertical edge on A's vertical edge, B turned away from A: a line in common."""
    for rot in random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        yaw = Rotation.from_rotvec([0.0, 0.0, rng.uniform(0.1, np.pi / 2 - 0.1)])
        edge = np.array([sa[0] / 2, sa[1] / 2, 0.0])
        local = edge + yaw.apply([sb[0] / 2, sb[1] / 2, rng.uniform(-0.5, 0.5)])
        yield box_row(np.zeros(3), sa, rot), box_row(rot.apply(local), sb, rot * yaw)


def touching_corner(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B in any rotation, its lowest corner (along A's x) set on A's +x face."""
    for rot_a, rot_b in zip(random_rotations(rng, n), random_rotations(rng, n),
                            strict=True):
        sa, sb = rng.uniform(1.0, 3.0, 3), rng.uniform(0.5, 3.0, 3)
        relative = rot_a.inv() * rot_b
        corners = oracle_corners(box_row(np.zeros(3), sb, relative))
        low = corners[np.argmin(corners[:, 0])]
        local = np.array([sa[0] / 2, *rng.uniform(-0.3, 0.3, 2)]) - low
        yield box_row(np.zeros(3), sa, rot_a), box_row(rot_a.apply(local), sb, rot_b)


def nested(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B well inside A, any rotations: IoU is vol_b / vol_a."""
    for rot_a, rot_b in zip(random_rotations(rng, n), random_rotations(rng, n),
                            strict=True):
        sa, sb = rng.uniform(3.0, 5.0, 3), rng.uniform(0.2, 1.5, 3)
        room = sa.min() / 2 - np.linalg.norm(sb) / 2
        local = rng.uniform(-1, 1, 3) * room / np.sqrt(3) * 0.9
        yield box_row(np.zeros(3), sa, rot_a), box_row(rot_a.apply(local), sb, rot_b)


def nested_on_floor(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B inside A, standing on A's floor, yawed: coplanar faces facing the same way."""
    for rot in random_rotations(rng, n):
        sa, sb = np.array([4.0, 4.0, 3.0]), rng.uniform(0.3, 1.5, 3)
        local = np.array([*rng.uniform(-0.5, 0.5, 2), (sb[2] - sa[2]) / 2])
        yaw = Rotation.from_rotvec([0.0, 0.0, rng.uniform(0, 2 * np.pi)])
        yield box_row(np.zeros(3), sa, rot), box_row(rot.apply(local), sb, rot * yaw)


def on_one_ground(rng: np.random.Generator, n: int, same_top: bool
                  ) -> Iterator[tuple[np.ndarray, ...]]:
    """Two yawed boxes on one (tilted) ground plane; with ``same_top`` tops coplanar too."""
    for rot in random_rotations(rng, n):
        sa, sb = rng.uniform(0.5, 4.0, 3), rng.uniform(0.5, 4.0, 3)
        if same_top:
            sb[2] = sa[2]
        yaw_a, yaw_b = (Rotation.from_rotvec([0.0, 0.0, rng.uniform(0, 2 * np.pi)])
                        for _ in range(2))
        local = np.array([*rng.uniform(-2.0, 2.0, 2), (sb[2] - sa[2]) / 2])
        yield box_row(np.zeros(3), sa, rot * yaw_a), box_row(rot.apply(local), sb, rot * yaw_b)


def on_a_grid(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Sizes and offsets on a half/quarter-metre grid of a common (tilted) frame, yaws in
    steps of 22.5°: shared planes, edges and corners everywhere, touching and not."""
    frame = random_rotations(rng, n)
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
    frames = random_rotations(rng, n)
    size_a, size_b = rng.uniform(0.3, 4.0, (n, 3)), rng.uniform(0.3, 4.0, (n, 3))
    yaw_a, yaw_b = rng.uniform(-np.pi, np.pi, (2, n))
    offset = np.column_stack([rng.uniform(-2.0, 2.0, (n, 2)), rng.uniform(-1.5, 1.5, n)])
    if kind == "side-touch":
        corners = _turn_2d(SIGNS_2D * size_b[:, None, :2] / 2, yaw_b - yaw_a)  # a's frame
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


SIGNS_2D = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
"""Signs of a rectangle's corners along its two half-axes, in order around it."""


def stack(pairs: Iterator[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, np.ndarray]:
    rows = list(pairs)
    return np.array([p[0] for p in rows]), np.array([p[1] for p in rows])


# --------------------------------------------------------------------------- conversions


def as_cuboids(rows: np.ndarray) -> list[Cuboid]:
    return [Cuboid("car", tuple(r[0:3]), tuple(r[3:6]), tuple(r[6:10])) for r in rows]


def relative_turn(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b``'s rotation in ``a``'s frame, from unchecked rows."""
    turn, _ = cuboid_boxes.relative_pose(cuboid_boxes.checked_rows(a, "a"),
                                         cuboid_boxes.checked_rows(b, "b"))
    return turn
