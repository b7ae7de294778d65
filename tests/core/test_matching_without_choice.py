"""The set matching's shortcuts: no choice, or small choices, need no assignment solver.

Oracle: scipy's ``linear_sum_assignment`` on the spec's weights (``agreement.md``,
Matching objective: Hungarian on ``IoU · [IoU ≥ threshold]``, pairs of weight 0
dropped), called here directly, on matrices where every row and column holds at most one
weight above the threshold, on matrices whose components are small (enumerated by
``small_matching``) and on matrices with near ties or large components (the solver).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from app.core.agreement.sets import matching
from app.core.agreement.sets.matching import match
from app.core.agreement.sets.small_matching import small_matching

THRESHOLD = 0.25


def spec_matching(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    weights = np.where(s >= THRESHOLD, s, 0.0)
    rows, cols = linear_sum_assignment(weights, maximize=True)
    keep = weights[rows, cols] > 0
    return rows[keep], cols[keep]


def one_per_row_and_column(rng: np.random.Generator, n_a: int, n_b: int) -> np.ndarray:
    """Below-threshold noise plus at most one eligible cell per row and per column."""
    s = rng.uniform(0.0, THRESHOLD * 0.99, (n_a, n_b)) * (rng.random((n_a, n_b)) < 0.3)
    k = rng.integers(0, min(n_a, n_b) + 1)
    rows, cols = rng.permutation(n_a)[:k], rng.permutation(n_b)[:k]
    s[rows, cols] = rng.uniform(THRESHOLD, 1.0, k)
    return s


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (20, 20), (40, 31)])
def test_no_choice_equals_the_assignment(
    shape: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(20261202)
    calls: list[int] = []
    real = linear_sum_assignment

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("scipy.optimize.linear_sum_assignment", counted)
    for _ in range(50):
        s = one_per_row_and_column(rng, *shape)
        rows, cols = match(s, THRESHOLD)
        expected_rows, expected_cols = spec_matching(s)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(cols, expected_cols)
        assert rows.dtype == np.int64 and cols.dtype == np.int64
    assert not calls, "the shortcut should not solve an assignment"


def test_a_small_choice_is_the_assignment() -> None:
    """Two eligible cells in one row: the heavier matching, as the spec says."""
    s = np.array([[0.9, 0.8, 0.0], [0.85, 0.0, 0.0], [0.0, 0.0, 0.3]])
    rows, cols = match(s, THRESHOLD)
    expected_rows, expected_cols = spec_matching(s)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(cols, expected_cols)
    assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 1), (1, 0), (2, 2)]


def test_random_matrices_with_choices_equal_the_assignment() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        s = rng.uniform(0.0, 1.0, (rng.integers(1, 8), rng.integers(1, 8)))
        s *= rng.random(s.shape) < 0.4
        rows, cols = match(s, THRESHOLD)
        expected_rows, expected_cols = spec_matching(s)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(cols, expected_cols)


def test_the_module_does_not_import_scipy_at_the_top() -> None:
    assert "linear_sum_assignment" not in vars(matching)


def counting_solver(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = linear_sum_assignment

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("scipy.optimize.linear_sum_assignment", counted)
    return calls


def test_small_components_are_enumerated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of up to 4 × 4 overlapping objects: the assignment's answer, no solver."""
    calls = counting_solver(monkeypatch)
    rng = np.random.default_rng(11)
    for _ in range(100):
        blocks = [
            rng.uniform(0.0, 1.0, (rng.integers(1, 5), rng.integers(1, 5)))
            for _ in range(rng.integers(1, 6))
        ]
        s = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
        r = c = 0
        for block in blocks:
            s[r : r + block.shape[0], c : c + block.shape[1]] = block
            r, c = r + block.shape[0], c + block.shape[1]
        perm_r, perm_c = rng.permutation(s.shape[0]), rng.permutation(s.shape[1])
        s = s[perm_r][:, perm_c]
        rows, cols = match(s, THRESHOLD)
        expected_rows, expected_cols = spec_matching(s)
        np.testing.assert_array_equal(rows, expected_rows)
        np.testing.assert_array_equal(cols, expected_cols)
    assert not calls


def test_ties_and_large_components_go_to_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting_solver(monkeypatch)
    tie = np.array([[0.5, 0.5], [0.0, 0.0]])
    assert small_matching(tie) is None
    rows, cols = match(tie, THRESHOLD)
    assert rows.tolist() == [0] and cols.tolist() in ([0], [1]) and len(calls) == 1
    big = np.random.default_rng(3).uniform(0.3, 1.0, (6, 6))
    assert small_matching(big) is None
    rows, cols = match(big, THRESHOLD)
    np.testing.assert_array_equal(cols, spec_matching(big)[1])
    assert len(calls) == 2
