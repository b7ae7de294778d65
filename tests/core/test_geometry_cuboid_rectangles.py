"""The side sum (``cuboid_rectangles``): the prism path's rectangle overlap area.

Oracle: shapely's polygon intersection (no code shared with ``app.core.geometry``), and
closed forms by construction (nested: the smaller area; touching: 0). The dispatcher's
choice (:func:`summable`) is tested on its own: sides nearly parallel stay with the clamp
construction.
"""

from __future__ import annotations

import numpy as np
import shapely

from app.core.geometry.cuboid_rectangles import side_sum_areas, summable

Pair = tuple[np.ndarray, np.ndarray]
ORACLE = 1e-9


def rectangles(
    rng: np.random.Generator, n: int, spread: float = 2.0
) -> tuple[Pair, Pair, Pair, Pair, Pair]:
    """``b``'s centre, unit axes (turned by any angle, mirrored or not), both half sizes."""
    angle = rng.uniform(-np.pi, np.pi, n)
    mirror = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    u = (np.cos(angle), np.sin(angle))
    v = (-np.sin(angle) * mirror, np.cos(angle) * mirror)
    half_a = (rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, n))
    half_b = (rng.uniform(0.1, 3.0, n), rng.uniform(0.1, 3.0, n))
    centre = (rng.normal(0.0, spread, n), rng.normal(0.0, spread, n))
    return centre, u, v, half_a, half_b


def oracle_areas(centre: Pair, u: Pair, v: Pair, half_a: Pair, half_b: Pair) -> np.ndarray:
    out = []
    for k in range(len(centre[0])):
        a = shapely.box(-half_a[0][k], -half_a[1][k], half_a[0][k], half_a[1][k])
        corners = [
            (
                centre[0][k] + s * half_b[0][k] * u[0][k] + t * half_b[1][k] * v[0][k],
                centre[1][k] + s * half_b[0][k] * u[1][k] + t * half_b[1][k] * v[1][k],
            )
            for s, t in ((1, 1), (-1, 1), (-1, -1), (1, -1))
        ]
        out.append(a.intersection(shapely.Polygon(corners)).area)
    return np.array(out)


def test_random_rectangles_against_shapely() -> None:
    rect = rectangles(np.random.default_rng(20261202), 2000)
    ok = summable(*rect)
    assert ok.mean() > 0.99
    expected = oracle_areas(*rect)
    assert 0.3 < (expected > 0).mean() < 0.95
    larger = 4 * np.maximum(rect[3][0] * rect[3][1], rect[4][0] * rect[4][1])
    error = np.abs(side_sum_areas(*rect) - expected) / larger
    assert error[ok].max() <= ORACLE


def test_nested_and_touching_rectangles() -> None:
    rng = np.random.default_rng(1)
    centre, u, v, _, half_b = rectangles(rng, 500, spread=0.0)
    big = (np.full(500, 10.0), np.full(500, 10.0))
    ok = summable(centre, u, v, big, half_b)
    inner = 4 * half_b[0] * half_b[1]
    np.testing.assert_allclose(
        side_sum_areas(centre, u, v, big, half_b)[ok], inner[ok], rtol=ORACLE, atol=0
    )
    # b's extreme corner along x set on a's side x = +10, from outside: area 0.
    reach = half_b[0] * np.abs(u[0]) + half_b[1] * np.abs(v[0])
    outside = (10.0 + reach, rng.uniform(-5.0, 5.0, 500))
    ok = summable(outside, u, v, big, half_b)
    assert ok.mean() > 0.9
    assert np.abs(side_sum_areas(outside, u, v, big, half_b)[ok]).max() <= 1e-9 * 400


def test_nearly_parallel_sides_are_left_to_the_clamp() -> None:
    rng = np.random.default_rng(2)
    centre, _, _, half_a, half_b = rectangles(rng, 400)
    angle = rng.choice([0.0, np.pi / 2, np.pi], 400) + rng.uniform(-1e-6, 1e-6, 400)
    u = (np.cos(angle), np.sin(angle))
    v = (-np.sin(angle), np.cos(angle))
    assert not summable(centre, u, v, half_a, half_b).any()
