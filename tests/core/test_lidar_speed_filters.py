"""The windowed sphere filter (:func:`~app.core.geometry.cuboid_filters.near_cross_pairs`)
finds the very cells, rows and order that testing every cell finds, whatever the layout:
a lidar batch, boxes piled at one x, spheres that just touch, empty sides, coordinates
too far apart for the window's line (the every-cell path), and chunks cut anywhere."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.geometry import cuboid_filters
from app.core.geometry.cuboid_boxes import half_diagonals
from app.core.geometry.cuboid_filters import _all_cross_pairs, near_cross_pairs


def _boxes(rng: np.random.Generator, n: int, spread: float, pile: bool = False) -> np.ndarray:
    centres = rng.uniform(-spread, spread, (n, 3))
    if pile:
        centres[:, 0] = 1.5  # every box at one x: each window holds the whole pair
    sizes = rng.uniform(0.2, 5.0, (n, 3))
    turns = rng.normal(size=(n, 4))
    return np.column_stack([centres, sizes, turns / np.linalg.norm(turns, axis=1)[:, None]])


def _batch(rng: np.random.Generator, n_pairs: int, spread: float, pile: bool = False
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n_a = rng.integers(0, 30, n_pairs)
    n_b = rng.integers(0, 30, n_pairs)
    rows_a = _boxes(rng, int(n_a.sum()), spread, pile)
    rows_b = _boxes(rng, int(n_b.sum()), spread, pile)
    return rows_a, rows_b, n_a.astype(np.intp), n_b.astype(np.intp)


def _every_cell(rows_a: np.ndarray, rows_b: np.ndarray, n_a: np.ndarray, n_b: np.ndarray
                ) -> tuple[np.ndarray, ...]:
    if not len(rows_a) or not len(rows_b):
        return tuple(np.zeros(0, dtype=np.intp) for _ in range(3))
    return _all_cross_pairs(rows_a, rows_b, n_a, n_b, half_diagonals(rows_a),
                            half_diagonals(rows_b))


def _same(got: tuple[np.ndarray, ...], want: tuple[np.ndarray, ...]) -> None:
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.dtype.kind == "i"


@pytest.mark.parametrize("spread", [0.5, 8.0, 60.0, 1e9, 1e11])  # 1e11: every cell
@pytest.mark.parametrize("pile", [False, True])
def test_the_window_finds_what_every_cell_finds(spread: float, pile: bool) -> None:
    rng = np.random.default_rng(int(spread) + pile)
    batch = _batch(rng, 50, spread, pile)
    want = _every_cell(*batch)
    if spread < 100:
        assert want[0].size > 0
    _same(near_cross_pairs(*batch), want)


def test_spheres_that_just_touch_are_near() -> None:
    """Centres exactly the sum of the radii apart along x, and one step further."""
    size = np.array([2.0, 1.0, 2.0])
    radius = float(np.linalg.norm(size)) / 2.0
    a = np.array([[0.0, 0.0, 0.0, *size, 0.0, 0.0, 0.0, 1.0]])
    b = np.array([[x, 0.0, 0.0, *size, 0.0, 0.0, 0.0, 1.0]
                  for x in (2 * radius, np.nextafter(2 * radius, 9.0), -2 * radius)])
    n_a, n_b = np.array([1], dtype=np.intp), np.array([3], dtype=np.intp)
    want = _every_cell(a, b, n_a, n_b)
    assert want[2].tolist() == [0, 2]
    _same(near_cross_pairs(a, b, n_a, n_b), want)


def test_empty_sides_and_chunks_cut_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    rows_a, rows_b, n_a, n_b = _batch(rng, 30, 20.0)
    want = _every_cell(rows_a, rows_b, n_a, n_b)
    monkeypatch.setattr(cuboid_filters, "SPHERE_CHUNK", 7)
    _same(near_cross_pairs(rows_a, rows_b, n_a, n_b), want)
    empty = np.zeros((0, 10))
    none = np.zeros(0, dtype=np.intp)
    for got in (near_cross_pairs(empty, rows_b, np.zeros_like(n_a), n_b),
                near_cross_pairs(rows_a, empty, n_a, np.zeros_like(n_b))):
        _same(got, (none, none, none))
