"""A crowded pair's preference matrix, read cell by cell (set agreement's batches).

:func:`~app.core.agreement.sets.matching.match` prefers, among matchings of equal IoU,
the one whose labels agree: its weights are ``IoU * (1 + TIE_BREAK * same_label)``. A
batch of pairs (:func:`~app.core.agreement.sets.agreement.score_pairs`) hands a pair that
needs a choice to :func:`~app.core.agreement.sets.small_matching.split_matching`, which
reads only the cells of its few components; building each pair's whole matrix cost more
than the matching itself.
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.sets.matching import TIE_BREAK


class Preference:
    """One pair's preference matrix in a batch (:func:`~app.core.agreement.sets.matching.
    match`'s ``weights * (1 + TIE_BREAK * same_label)``), a cell computed when asked, with
    the same operations on the same numbers: :func:`split_matching` reads a few cells of
    a 40 × 40 matrix, and building each crowded pair's matrix cost more than matching it.
    """

    def __init__(self, weights: np.ndarray, first: int, n_a: int, n_b: int,
                 code_a: np.ndarray, code_b: np.ndarray) -> None:
        self.weights, self.first, self.shape = weights, first, (n_a, n_b)
        self.code_a, self.code_b = code_a, code_b

    def __getitem__(self, cell: tuple[int, int]) -> float:
        r, c = cell
        same = 1.0 if self.code_a[r] == self.code_b[c] else 0.0
        return float(self.weights[self.first + r * self.shape[1] + c]) * (1.0 + TIE_BREAK * same)

    def matrix(self) -> np.ndarray:
        n_a, n_b = self.shape
        same_grid = self.code_a[:, None] == self.code_b[None, :]
        grid: np.ndarray = self.weights[self.first:self.first + n_a * n_b].reshape(n_a, n_b) * (
            1.0 + TIE_BREAK * np.asarray(same_grid, dtype=np.float64))
        return grid

    def sum(self) -> float:
        return float(self.matrix().sum())
