"""The largest-weight matching of small components, exactly, without an assignment solver.

Why: ``scipy.optimize`` costs some 0.25 s to import, more than the whole agreement run of
a small lidar study, and the matchings a study needs are almost all tiny. In the
bipartite graph of positive weights (objects of A, objects of B, an edge where two
overlap enough to match) the matching decomposes into connected components, and in a
lidar sweep a component is one object and its counterpart, or two or three neighbours
that overlap. Every matching of a component of at most :data:`MAX_SIDE` objects a side
is enumerated and the heaviest taken.

When this answers, it is the assignment's answer: a pair with weight 0 adds nothing, so
the positive pairs of any optimal assignment form a largest-weight matching of each
component. When a component's best matching is unique, that is the one. "Unique" is
taken with a margin (:data:`MARGIN`, relative to the matrix's total weight): where the
best two totals are closer, or a component is larger, :func:`small_matching` returns
``None`` and the caller asks the assignment solver, so the choice between nearly equal
matchings stays the solver's, exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

MAX_SIDE = 4
"""Largest component (objects on either side) enumerated: at most 209 matchings."""

MARGIN = 1e-12
"""How much heavier, relative to the matrix's total weight (plus 1), the best matching of
a component must be than the second best. Far above the solver's rounding, far below
the matching's label tie-break (``1e-9`` of an IoU)."""


def small_matching(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows and columns of the largest-weight matching, or ``None`` (ask the solver)."""
    positive = weights > 0.0
    # A pair whose row and column hold no other weight is a component of its own, matched
    # whatever else happens: numpy finds those at once, Python walks only the rest.
    alone = positive & (positive.sum(axis=1) == 1)[:, None] & (positive.sum(axis=0) == 1)
    single_rows, single_cols = np.nonzero(alone)
    rows, cols = np.nonzero(positive & ~alone)
    return split_matching(weights, list(zip(single_rows.tolist(), single_cols.tolist(),
                                            strict=True)),
                          list(zip(rows.tolist(), cols.tolist(), strict=True)))


class Weights(Protocol):
    """What :func:`split_matching` reads of a weight matrix: a numpy array, or a stand-in
    that computes a cell when asked (a batch of pairs builds no matrix per pair)."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def __getitem__(self, cell: tuple[int, int]) -> float: ...

    def sum(self) -> float: ...


def split_matching(weights: Weights, alone: list[tuple[int, int]],
                   edges: list[tuple[int, int]], ceiling: float | None = None
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`small_matching` of ``weights`` whose positive cells the caller has already
    split, row-major, into those ``alone`` in their row and column and the others
    (``edges``): a batch of pairs finds both for all its matrices at once.

    ``ceiling``, when given, is at least every weight: the margin is then bounded from
    the count of positive cells, and the matrix summed (its exact margin) only when a
    component's best two totals fall between the bounds. Otherwise it is summed at once.
    """
    n_a = weights.shape[0]
    parent = list(range(n_a + weights.shape[1]))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for r, c in edges:
        parent[root(r)] = root(n_a + c)
    components: dict[int, list[tuple[int, int]]] = {}
    for r, c in edges:
        components.setdefault(root(r), []).append((r, c))
    exact: list[float] = []

    def margin() -> float:
        if not exact:
            exact.append(MARGIN * (1.0 + float(weights.sum())))
        return exact[0]

    if ceiling is None:
        margin()
        high = exact[0]
    else:  # above the exact margin: the sum of the positive cells, rounding included
        high = MARGIN * (2.0 + 2.0 * (len(alone) + len(edges)) * ceiling)
    chosen = list(alone)
    for component in components.values():
        best = _best_of(component, weights, high, margin)
        if best is None:
            return None
        chosen.extend(best)
    chosen.sort()
    out_rows = np.array([r for r, _ in chosen], dtype=np.int64)
    out_cols = np.array([c for _, c in chosen], dtype=np.int64)
    return out_rows, out_cols


def _best_of(
    edges: list[tuple[int, int]], weights: Weights, high: float, margin: Callable[[], float]
) -> list[tuple[int, int]] | None:
    """The unique heaviest matching of one component, or ``None``: unique when the best
    total beats the second by more than ``margin()``, which is at least ``MARGIN`` and at
    most ``high`` (so it is computed only for a gap between the two)."""
    if len(edges) == 1:
        return edges
    by_row: dict[int, list[int]] = {}
    for r, c in edges:
        by_row.setdefault(r, []).append(c)
    if len(by_row) > MAX_SIDE or len({c for _, c in edges}) > MAX_SIDE:
        return None
    order = sorted(by_row)
    totals: list[tuple[float, list[tuple[int, int]]]] = []
    _walk(0, frozenset(), 0.0, [], order, by_row, weights, totals)
    totals.sort(key=lambda t: t[0], reverse=True)
    if len(totals) > 1:
        gap = totals[0][0] - totals[1][0]
        if gap <= MARGIN or (gap <= high and gap <= margin()):
            return None
    return totals[0][1]


def _walk(k: int, used: frozenset[int], total: float, pairs: list[tuple[int, int]],
          order: list[int], by_row: dict[int, list[int]], weights: Weights,
          totals: list[tuple[float, list[tuple[int, int]]]]) -> None:
    """Append every matching of rows ``order[k:]`` (a row unmatched first, then each free
    column in turn) with its total to ``totals``, depth first.

    A function of the module, not a closure in :func:`_best_of`: a recursive closure is
    a reference cycle, which kept ``weights`` (a batch's preference reads the batch's
    arrays) alive until the collector ran, some 20 MB at a lidar study's peak."""
    if k == len(order):
        totals.append((total, pairs))
        return
    row = order[k]
    _walk(k + 1, used, total, pairs, order, by_row, weights, totals)
    for col in by_row[row]:
        if col not in used:
            _walk(k + 1, used | {col}, total + float(weights[row, col]), [*pairs, (row, col)],
                  order, by_row, weights, totals)
