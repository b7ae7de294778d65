"""The line sum (``cuboid_lines``), the general path for well-conditioned pairs.

Oracles: the independent scipy half-space intersection of :mod:`tests.core.cuboid_cases`
and closed forms known by construction (nesting: the smaller volume; touching: 0). The
line sum is called directly here, so every check is on it and not on a path the
dispatcher might have chosen instead; the dispatcher's choice (:func:`summable`) is
tested on its own: the hard configurations it must leave to clipping, and the share of
random pairs it takes.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy.spatial.transform import Rotation

from app.core.geometry.cuboid_boxes import checked_rows, relative_pose
from app.core.geometry.cuboid_clip import clipped_volumes
from app.core.geometry.cuboid_filters import separated
from app.core.geometry.cuboid_lines import CHUNK, line_volumes, summable
from tests.core.cuboid_cases import (
    ORACLE,
    SEED,
    box_row,
    nested,
    on_a_grid,
    on_one_ground,
    oracle_corners,
    oracle_volume,
    random_pairs,
    random_rotations,
    stack,
    touching_corner,
    touching_edges,
    touching_faces,
)

Pose = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def pose(a: np.ndarray, b: np.ndarray) -> Pose:
    """``b`` in ``a``'s frame and both half sizes, as the dispatcher passes them."""
    rows_a, rows_b = checked_rows(a, "a"), checked_rows(b, "b")
    turn, shift = relative_pose(rows_a, rows_b)
    return turn, shift, rows_a[:, 3:6] / 2.0, rows_b[:, 3:6] / 2.0


def summed(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The line sum's volumes of every pair and which pairs the dispatcher would sum."""
    p = pose(a, b)
    return line_volumes(*p), summable(*p)


def assert_volumes_match_oracle(a: np.ndarray, b: np.ndarray, volumes: np.ndarray) -> None:
    """Each volume within 1e-9 of the oracle's, relative to the larger box."""
    larger = np.maximum(np.prod(a[:, 3:6], axis=1), np.prod(b[:, 3:6], axis=1))
    expected = np.array([oracle_volume(x, y) for x, y in zip(a, b, strict=True)])
    error = np.abs(volumes - expected) / larger
    worst = int(np.argmax(error))
    assert error.max() <= ORACLE, (
        f"pair {worst}: line sum {volumes[worst]!r}, oracle "
        f"{expected[worst]!r}\na={a[worst].tolist()}\n"
        f"b={b[worst].tolist()}"
    )


def inner_corner(rng: np.random.Generator, n: int) -> Iterator[tuple[np.ndarray, ...]]:
    """B inside A, any rotation, its highest corner (along A's x) on A's +x face."""
    for rot_a, rot_b in zip(random_rotations(rng, n), random_rotations(rng, n), strict=True):
        sa, sb = rng.uniform(3.0, 5.0, 3), rng.uniform(0.3, 1.2, 3)
        corners = oracle_corners(box_row(np.zeros(3), sb, rot_a.inv() * rot_b))
        high = corners[np.argmax(corners[:, 0])]
        local = np.array([sa[0] / 2, *rng.uniform(-0.3, 0.3, 2)]) - high
        yield box_row(np.zeros(3), sa, rot_a), box_row(rot_a.apply(local), sb, rot_b)


def turned_copies(rng: np.random.Generator, n: int, angle: float) -> tuple[np.ndarray, ...]:
    """Each box and itself turned by ``angle`` about a random axis through its centre."""
    a, _ = random_pairs(rng, n)
    axes = rng.normal(size=(n, 3))
    axes *= angle / np.linalg.norm(axes, axis=1, keepdims=True)
    b = a.copy()
    b[:, 6:10] = (Rotation.from_quat(a[:, 6:10]) * Rotation.from_rotvec(axes)).as_quat()
    return a, b


# --------------------------------------------------------------------------- exactness


def test_random_pairs_against_the_oracle_and_clipping() -> None:
    a, b = random_pairs(np.random.default_rng(SEED), 3000, spread=1.5)
    p = pose(a, b)
    meeting = ~separated(*p)
    volumes, clipped = line_volumes(*p), clipped_volumes(*p)
    larger = np.maximum(np.prod(a[:, 3:6], axis=1), np.prod(b[:, 3:6], axis=1))
    assert meeting.mean() > 0.5
    # Disjoint pairs need no filter: every interval is empty or weightless.
    assert np.abs(volumes[~meeting]).max() <= 1e-12 * larger[~meeting].max()
    assert (np.abs(volumes - clipped) / larger).max() <= 1e-12
    assert_volumes_match_oracle(a[:300], b[:300], volumes[:300])


def test_touching_corners_enclose_nothing() -> None:
    """A corner of one box on a face of the other, from outside: volume 0, both ways."""
    a, b = stack(touching_corner(np.random.default_rng(SEED), 200))
    for x, y in ((a, b), (b, a)):
        volumes, ok = summed(x, y)
        assert ok.mean() > 0.9
        larger = np.maximum(np.prod(x[:, 3:6], axis=1), np.prod(y[:, 3:6], axis=1))
        assert (np.abs(volumes) / larger).max() <= ORACLE


def test_pushed_in_corners_against_the_oracle() -> None:
    """The same corners pushed 1 mm to 10 cm into the face: small volumes, to 1e-9."""
    rng = np.random.default_rng(SEED)
    a, b = stack(touching_corner(rng, 150))
    axis = Rotation.from_quat(a[:, 6:10]).apply(np.array([1.0, 0.0, 0.0]))
    b[:, 0:3] -= axis * 10.0 ** rng.uniform(-3, -1, (len(a), 1))
    volumes, ok = summed(a, b)
    assert ok.mean() > 0.9 and (volumes > 0).all()
    assert_volumes_match_oracle(a, b, volumes)


def test_nested_boxes_give_the_smaller_volume() -> None:
    rng = np.random.default_rng(SEED)
    for make in (nested, inner_corner):
        a, b = stack(make(rng, 150))
        inner = np.prod(b[:, 3:6], axis=1)
        for x, y in ((a, b), (b, a)):
            volumes, ok = summed(x, y)
            assert ok.mean() > 0.9
            np.testing.assert_allclose(volumes, inner, rtol=ORACLE, atol=0)


def test_a_box_and_itself_turned() -> None:
    """Near-identical boxes (turned by 0.01-0.5 rad about their centre), to the oracle."""
    rng = np.random.default_rng(SEED)
    for angle in (0.01, 0.1, 0.5):
        a, b = turned_copies(rng, 100, angle)
        volumes, ok = summed(a, b)
        assert ok.any()
        assert_volumes_match_oracle(a[ok], b[ok], volumes[ok])


def test_flat_and_thin_boxes() -> None:
    """A flat box encloses nothing; a thin one (1e-4 of its size) matches the oracle."""
    rng = np.random.default_rng(SEED)
    a, b = random_pairs(rng, 200, spread=0.5)
    flat = b.copy()
    flat[:, 3 + rng.integers(0, 3, len(b))] = 0.0
    volumes, _ = summed(a, flat)
    assert (np.abs(volumes) <= 1e-12 * np.prod(a[:, 3:6], axis=1)).all()
    thin = b.copy()
    thin[:, 3] *= 1e-4
    volumes, ok = summed(a, thin)
    assert ok.mean() > 0.9
    assert_volumes_match_oracle(a[ok][:100], thin[ok][:100], volumes[ok][:100])


def test_a_pair_alone_equals_the_pair_in_a_batch() -> None:
    """Bit for bit, whatever the chunk and the pairs beside it."""
    a, b = random_pairs(np.random.default_rng(SEED), CHUNK + 37, spread=1.0)
    p = pose(a, b)
    together = line_volumes(*p)
    for k in (0, 5, CHUNK - 1, CHUNK, len(a) - 1):
        alone = line_volumes(*(x[k : k + 1] for x in p))
        assert alone[0] == together[k]
    reverse = line_volumes(*(x[::-1].copy() for x in p))[::-1]
    np.testing.assert_array_equal(reverse, together)


# --------------------------------------------------------------------------- dispatch


def test_hard_configurations_are_left_to_clipping() -> None:
    """Shared planes and edges, parallel faces, identical boxes: never summed."""
    rng = np.random.default_rng(SEED)
    cases = [stack(make(rng, 100)) for make in (touching_faces, touching_edges)]
    cases.append(stack(on_one_ground(rng, 100, same_top=True)))
    cases.append(on_a_grid(rng, 200))
    a, _ = random_pairs(rng, 100)
    cases.append((a, a.copy()))
    for x, y in cases:
        assert not summable(*pose(x, y)).any()
        assert not summable(*pose(y, x)).any()


def test_most_random_pairs_are_summed() -> None:
    """Only a small share of uniformly random rotations is too close to degenerate."""
    a, b = random_pairs(np.random.default_rng(SEED), 20000, spread=1.0)
    share = summable(*pose(a, b)).mean()
    assert 0.98 < share < 1.0
