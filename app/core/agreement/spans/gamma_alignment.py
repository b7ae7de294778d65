"""Mathet's best alignment of several annotators' spans, exactly, for any number of annotators.

Why this module exists: Mathet et al. (2015)'s γ needs the *best alignment* of a continuum,
the partition of every annotator's units into unitary alignments (tuples holding one unit
or the empty unit ∅ per annotator) of least total disorder. pygamma-agreement 0.5.9
enumerates every tuple (the product of all annotators' unit counts: 7.4 million for three
annotators of ~195 spans) and hands the survivors to cvxpy's CBC or GPL GLPK. kinds.md
A.2 asks for the same optimum from scipy alone, fast.

Dissimilarity (pygamma's ``CombinedCategoricalDissimilarity`` with α = β = 1, δ∅ = 1)::

    d(u, v) = ((|s_u − s_v| + |e_u − e_v|) / (len_u + len_v))² + [label_u ≠ label_v]

A tuple's disorder is the mean over the C(n, 2) annotator pairs of d, where a pair holding
∅ (either side, or both, as in pygamma) costs δ∅ = 1. The alignment's disorder is the sum
of its tuples' disorders divided by the mean number of units per annotator.

Exactness. A tuple T with k real units is *strictly dominated* when taking one of its
units v out into a singleton costs less: with S(T) the sum over pairs, S(T − v) + S({v})
− S(T) = C(n, 2) + (k − 1) − Σ_{w∈T, w≠v} d(v, w). So no optimal alignment holds a tuple
where, for some member v, Σ_w d(v, w) > C(n, 2) + k − 1, and in particular none holds a
pair with d(u, v) > :func:`pair_bound` (n) = C(n, 2) + n − 1. Candidate tuples are grown
annotator by annotator from the allowed pairs only (found by a sweep over units sorted by
start: d ≤ B needs |s_u − s_v| ≤ √B·(len_u + len_v)), then the member rule prunes the
rest. Every tuple of every optimal alignment survives, and so do all singletons, so the
set-partition program "each unit in exactly one tuple" over the survivors has the same
optimum as over all tuples (pygamma keeps a looser superset: Σ ≤ C(n, 2)·n).

The program falls apart into connected components, each solved exactly by a memoized
search (:mod:`.gamma_search`); one too wide for it goes to ``scipy.optimize.milp``
(HiGHS) with both optimality gaps at 0 (its default absolute gap, 1e-6, lets it stop
early); the disorder is re-summed in float64 from the chosen tuples. Two annotators are
an assignment (``linear_sum_assignment`` on the (n_a + n_b)² matrix, off-diagonal ∅
cells forbidden). pygamma's float32 disorder matches to ~1e-7, the float64 re-sum of the
alignment it chose to 1e-9.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, linear_sum_assignment, milp
from scipy.sparse import csc_array

from app.core.agreement.spans.gamma_search import search_partition

EMPTY = -1
"""The empty unit ∅ in a tuple."""

BATCH_TUPLES = 3000
"""Candidate tuples per HiGHS call when several continua are aligned (measured on 3 × 20
and 3 × 200 spans: 3,000 was the fastest of 1 continuum, 3,000, 10,000 and all)."""

MAX_CANDIDATES = 2_000_000
"""Partial tuples held while growing the candidates (8 bytes × annotators each)."""

TIME_BUDGET = 60.0
"""Seconds HiGHS may spend on one :func:`best_alignments` call (an item and its chance
samples); beyond, the item is reported as not computed, with the reason, rather than
freezing the report (8 annotators × 10 spans: some 100,000 candidate tuples, two
minutes). The only outcome here that depends on the machine."""

MAX_DENSE_PAIRS = 250_000
"""Two annotators: one assignment on the dense (n_a + n_b)² matrix up to n_a·n_b = this
(500 × 500 spans, 8 MB); beyond, the sparse route (candidate pairs, search, HiGHS)."""


class AlignmentTooLargeError(ValueError):
    """The exact best alignment is out of reach; the message says why, in words, naming
    the item's own continuum (the first one passed to :func:`best_alignments`)."""

    def __init__(self, units: Sequence[Units], why: str) -> None:
        self.why = why
        super().__init__(f"the exact best alignment of {len(units)} annotators' "
                         f"{sum(len(u) for u in units)} spans {why}")


TOO_SLOW = f"(with its chance samples) was not proved optimal within {TIME_BUDGET:.0f} s"


@dataclass(frozen=True)
class Units:
    """One annotator's units as columns (float64 positions, integer label codes)."""

    starts: np.ndarray
    ends: np.ndarray
    labels: np.ndarray

    def __len__(self) -> int:
        return int(self.starts.shape[0])


@dataclass(frozen=True)
class BestAlignment:
    """The best alignment: its disorder and its tuples (unit index or :data:`EMPTY` per
    annotator), ordered by the first real unit's start."""

    disorder: float
    tuples: np.ndarray


def pair_bound(n_annotators: int) -> float:
    """Largest pair dissimilarity an optimal tuple can hold: C(n, 2) + n − 1."""
    return n_annotators * (n_annotators - 1) / 2 + n_annotators - 1


def dissimilarity(a: Units, i: np.ndarray, b: Units, j: np.ndarray) -> np.ndarray:
    """d between units ``a[i]`` and ``b[j]`` (elementwise), positional + categorical."""
    total = (a.ends[i] - a.starts[i]) + (b.ends[j] - b.starts[j])
    shift = np.abs(a.starts[i] - b.starts[j]) + np.abs(a.ends[i] - b.ends[j])
    return np.asarray((shift / total) ** 2 + (a.labels[i] != b.labels[j]), dtype=np.float64)


@dataclass(frozen=True)
class _Pairs:
    """Allowed pairs between annotators a < b: sorted keys ``i * len(b) + j`` and their d,
    plus, for each unit of a, the range of its partners (CSR) for growing tuples."""

    keys: np.ndarray
    values: np.ndarray
    indptr: np.ndarray
    partners: np.ndarray
    width: int


def _allowed_pairs(a: Units, b: Units, bound: float,
                   cids: tuple[np.ndarray, np.ndarray] | None = None) -> _Pairs:
    """Every pair (i of a, j of b) with d ≤ bound, by a sweep over b's sorted starts.
    ``cids``: each unit's continuum (:mod:`.gamma_batch`); the sweep key is then
    continuum · width + start, its window widened far past the key's rounding, and the
    exact same-continuum and d ≤ bound tests decide."""
    max_len = float((b.ends - b.starts).max()) if len(b) else 0.0
    reach = math.sqrt(bound) * ((a.ends - a.starts) + max_len)
    a_key, b_key = a.starts, b.starts
    if cids is not None and len(a) and len(b):
        low = min(float(a.starts.min()), float(b.starts.min()))
        width = max(float(a.starts.max()), float(b.starts.max())) - low + 2 * float(
            reach.max()) + 1.0
        a_key, b_key = cids[0] * width + (a.starts - low), cids[1] * width + (b.starts - low)
        reach = reach + 1e-9 * (float(max(cids[0].max(), cids[1].max())) + 1.0) * width
    order = np.argsort(b_key, kind="stable")
    sorted_starts = b_key[order]
    lo = np.searchsorted(sorted_starts, a_key - reach, side="left")
    hi = np.searchsorted(sorted_starts, a_key + reach, side="right")
    counts = hi - lo
    i = np.repeat(np.arange(len(a)), counts)
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    j = order[np.repeat(lo, counts) + offsets]
    d = dissimilarity(a, i, b, j)
    keep = d <= bound
    if cids is not None:
        keep &= cids[0][i] == cids[1][j]
    i, j, d = i[keep], j[keep], d[keep]
    keys = i.astype(np.int64) * max(len(b), 1) + j
    by_key = np.argsort(keys, kind="stable")
    keys, d, j = keys[by_key], d[by_key], j[by_key]
    indptr = np.zeros(len(a) + 1, dtype=np.int64)
    np.cumsum(np.bincount(i, minlength=len(a)), out=indptr[1:])
    return _Pairs(keys, d, indptr, j, max(len(b), 1))


def _lookup(pairs: _Pairs, i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(allowed?, d) for pairs (i, j); d is meaningless where not allowed."""
    keys = i.astype(np.int64) * pairs.width + j
    at = np.searchsorted(pairs.keys, keys)
    at_clipped = np.minimum(at, max(len(pairs.keys) - 1, 0))
    if len(pairs.keys) == 0:
        return np.zeros(len(keys), dtype=bool), np.zeros(len(keys))
    found = pairs.keys[at_clipped] == keys
    return found, pairs.values[at_clipped]


def candidate_tuples(units: Sequence[Units], cids: Sequence[np.ndarray] | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The surviving candidate tuples ``(m, n)`` and their disorders (mean over pairs).

    Grown annotator by annotator: a partial tuple takes ∅, or a unit allowed with every
    real member it already holds (its partners through the first real member, then
    checked against the others). The all-∅ tuple is dropped; singletons always survive.
    ``cids``: each annotator's units' continua, when several are laid side by side.
    """
    n = len(units)
    bound = pair_bound(n)
    pairs = {(a, b): _allowed_pairs(units[a], units[b], bound,
                                    None if cids is None else (cids[a], cids[b]))
             for b in range(n) for a in range(b)}
    rows = np.full((len(units[0]) + 1, 1), EMPTY, dtype=np.int64)
    rows[: len(units[0]), 0] = np.arange(len(units[0]))
    for b in range(1, n):
        grown = [np.hstack([rows, np.full((len(rows), 1), EMPTY, dtype=np.int64)])]
        real = rows != EMPTY
        has_real = real.any(axis=1)
        empty_rows = rows[~has_real]
        if len(empty_rows) and len(units[b]):
            fresh = np.repeat(empty_rows, len(units[b]), axis=0)
            column = np.tile(np.arange(len(units[b])), len(empty_rows))
            grown.append(np.hstack([fresh, column[:, None]]))
        anchored = rows[has_real]
        first = real[has_real].argmax(axis=1)
        for a in range(b):
            mine = anchored[first == a]
            if not len(mine):
                continue
            p = pairs[(a, b)]
            start, stop = p.indptr[mine[:, a]], p.indptr[mine[:, a] + 1]
            counts = stop - start
            base = np.repeat(mine, counts, axis=0)
            offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
            column = p.partners[np.repeat(start, counts) + offsets]
            keep = np.ones(len(base), dtype=bool)
            for c in range(a + 1, b):
                present = base[:, c] != EMPTY
                ok, _ = _lookup(pairs[(c, b)], base[present, c], column[present])
                keep[np.flatnonzero(present)[~ok]] = False
            grown.append(np.hstack([base[keep], column[keep][:, None]]))
        rows = np.vstack(grown)
        if len(rows) > MAX_CANDIDATES:
            raise AlignmentTooLargeError(
                units, f"needs more than {MAX_CANDIDATES:,} candidate tuples")
    rows = rows[(rows != EMPTY).any(axis=1)]
    return _prune(units, rows, pairs)


def _prune(units: Sequence[Units], rows: np.ndarray,
           pairs: dict[tuple[int, int], _Pairs]) -> tuple[np.ndarray, np.ndarray]:
    """Tuple disorders, and the member rule (Σ_w d(v, w) ≤ C(n, 2) + k − 1 for every v)."""
    n = len(units)
    c2n = n * (n - 1) / 2
    total = np.zeros(len(rows))
    member_sums = np.zeros((len(rows), n))
    for b in range(n):
        for a in range(b):
            both = (rows[:, a] != EMPTY) & (rows[:, b] != EMPTY)
            d = np.ones(len(rows))
            if both.any():
                _, values = _lookup(pairs[(a, b)], rows[both, a], rows[both, b])
                d[both] = values
                member_sums[both, a] += values
                member_sums[both, b] += values
            total += d
    k = (rows != EMPTY).sum(axis=1)
    keep = (member_sums <= (c2n + k - 1)[:, None] + 1e-12).all(axis=1)
    return rows[keep], total[keep] / c2n


def best_alignment(units: Sequence[Units]) -> BestAlignment:
    """The exact best alignment of ``units`` (one :class:`Units` per annotator, n ≥ 2).
    Annotators with no unit take part (they hold ∅ in every tuple), as in pygamma, where
    they count in the mean number of units per annotator."""
    return best_alignments([units])[0]


def best_alignments(continua: Sequence[Sequence[Units]],
                    time_budget: float = TIME_BUDGET) -> list[BestAlignment]:
    """:func:`best_alignment` of several continua (an item and its chance samples).

    Three or more annotators: each continuum's program is first solved component by
    component by :func:`.gamma_search.search_partition`; the components it gives up on go
    to HiGHS in batches of about :data:`BATCH_TUPLES` candidate tuples, each batch one
    program: they share no unit, so it is block-diagonal and its optimum (gap 0) is every
    block's. A call's milliseconds of set-up, more than solving a 60-unit item, are thus
    shared; large ones go one by one, where batching only slowed HiGHS down. Many items
    at once: :mod:`.gamma_batch`."""
    for units in continua:
        if len(units) < 2 or sum(len(u) for u in units) == 0:
            raise ValueError("the best alignment needs two annotators and at least one unit")
    try:
        return _best_alignments(continua, time_budget)
    except AlignmentTooLargeError as error:  # named after the item, not a chance sample
        raise AlignmentTooLargeError(continua[0], error.why) from None


def _best_alignments(continua: Sequence[Sequence[Units]],
                     time_budget: float) -> list[BestAlignment]:
    started = time.perf_counter()
    chosen: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    searched: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    programs: list[tuple[int, Sequence[Units], np.ndarray, np.ndarray]] = []
    for index, units in enumerate(continua):
        if len(units) == 2 and len(units[0]) * len(units[1]) <= MAX_DENSE_PAIRS:
            chosen[index] = _assignment(units[0], units[1])
            continue
        rows, costs = candidate_tuples(units)
        starts = np.concatenate([u.starts for u in units])
        order = np.empty(len(starts), dtype=np.int64)
        order[np.lexsort((np.concatenate([u.ends for u in units]), starts))] = np.arange(
            len(starts))
        picked, left = search_partition([len(u) for u in units], order, rows, costs)
        searched[index] = (picked, rows, costs)
        if time.perf_counter() - started > time_budget:
            raise AlignmentTooLargeError(continua[0], TOO_SLOW)
        if left:
            rest = np.concatenate(left)
            programs.append((index, units, rows[rest], costs[rest]))
    solved: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    batch: list[tuple[int, Sequence[Units], np.ndarray, np.ndarray]] = []
    for position, program in enumerate(programs):
        batch.append(program)
        if (position == len(programs) - 1
                or sum(len(p[2]) for p in batch) + len(programs[position + 1][2]) > BATCH_TUPLES):
            remaining = time_budget - (time.perf_counter() - started)
            answers = solve_partitions([(units, rows, costs) for _, units, rows, costs in batch],
                                       time_limit=remaining)
            solved.update(zip((p[0] for p in batch), answers, strict=True))
            batch = []
    for index, (picked, rows, costs) in searched.items():
        more_rows, more_costs = solved.get(index, (rows[:0], costs[:0]))
        chosen[index] = (np.vstack([rows[picked], more_rows]),
                         np.concatenate([costs[picked], more_costs]))
    return [_finish(*chosen[i], units, sum(len(u) for u in units) / len(units))
            for i, units in enumerate(continua)]


def solve_partitions(problems: Sequence[tuple[Sequence[Units], np.ndarray, np.ndarray]],
                     time_limit: float = TIME_BUDGET) -> list[tuple[np.ndarray, np.ndarray]]:
    """Several set-partition programs as one block-diagonal program (one HiGHS call);
    :class:`AlignmentTooLargeError` when HiGHS cannot prove the optimum in ``time_limit``."""
    if time_limit <= 0:
        raise AlignmentTooLargeError(problems[0][0], TOO_SLOW)
    unit_parts: list[np.ndarray] = []
    tuple_parts: list[np.ndarray] = []
    unit_base = 0
    tuple_base = 0
    for units, rows, _ in problems:
        sizes = [len(u) for u in units]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) + unit_base
        tuple_index, annotator = np.nonzero(rows != EMPTY)
        unit_parts.append(offsets[annotator] + rows[tuple_index, annotator])
        tuple_parts.append(tuple_index + tuple_base)
        unit_base += int(sum(sizes))
        tuple_base += len(rows)
    # Only the units the tuples hold get a constraint: a caller may pass the components
    # the search left, not every unit of the continuum.
    present, unit_index = np.unique(np.concatenate(unit_parts), return_inverse=True)
    matrix = csc_array((np.ones(len(unit_index)), (unit_index, np.concatenate(tuple_parts))),
                       shape=(len(present), tuple_base))
    costs = np.concatenate([c for _, _, c in problems])
    with warnings.catch_warnings():
        # mip_abs_gap is passed to HiGHS verbatim; scipy warns that it does not know it.
        warnings.simplefilter("ignore", RuntimeWarning)
        result = milp(costs, integrality=np.ones(tuple_base), bounds=Bounds(0, 1),
                      constraints=LinearConstraint(matrix, 1, 1),
                      options={"mip_rel_gap": 0.0, "mip_abs_gap": 0.0,
                               "time_limit": time_limit})
    if result.status != 0 or result.x is None:  # singletons make it feasible: time is up
        raise AlignmentTooLargeError(problems[0][0], TOO_SLOW)
    picked = result.x > 0.5
    answers: list[tuple[np.ndarray, np.ndarray]] = []
    start = 0
    for _, rows, block_costs in problems:
        mine = picked[start: start + len(rows)]
        answers.append((rows[mine], block_costs[mine]))
        start += len(rows)
    return answers


def _assignment(a: Units, b: Units) -> tuple[np.ndarray, np.ndarray]:
    """Two annotators: pair or leave alone each unit, by one linear assignment."""
    na, nb = len(a), len(b)
    forbidden = 1e9
    cost = np.zeros((na + nb, na + nb))
    if na and nb:
        i, j = np.meshgrid(np.arange(na), np.arange(nb), indexing="ij")
        cost[:na, :nb] = np.minimum(dissimilarity(a, i.ravel(), b, j.ravel()).reshape(na, nb),
                                    forbidden)
    cost[:na, nb:] = forbidden
    cost[na:, :nb] = forbidden
    cost[np.arange(na), nb + np.arange(na)] = 1.0
    cost[na + np.arange(nb), np.arange(nb)] = 1.0
    rows, cols = linear_sum_assignment(cost)
    tuples: list[tuple[int, int]] = []
    costs: list[float] = []
    for r, c in zip(rows.tolist(), cols.tolist(), strict=True):
        if r < na and c < nb:
            tuples.append((r, c))
            costs.append(float(cost[r, c]))
        elif r < na:
            tuples.append((r, EMPTY))
            costs.append(1.0)
        elif c < nb:
            tuples.append((EMPTY, c))
            costs.append(1.0)
    return np.array(tuples, dtype=np.int64).reshape(-1, 2), np.array(costs)


def _finish(rows: np.ndarray, costs: np.ndarray, units: Sequence[Units],
            mean_units: float) -> BestAlignment:
    """Order tuples by position and re-sum the disorder in float64."""
    first_start = np.full(len(rows), np.inf)
    for a, u in enumerate(units):
        present = rows[:, a] != EMPTY
        first_start[present] = np.minimum(first_start[present], u.starts[rows[present, a]])
    order = np.lexsort((np.arange(len(rows)), first_start))
    return BestAlignment(float(math.fsum(costs.tolist()) / mean_units), rows[order])
