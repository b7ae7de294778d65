"""The candidate tuples of many continua at once, with dominated tuples dropped.

Why: :func:`.gamma_alignment.candidate_tuples` grows tuples annotator by annotator with a
dozen numpy calls per annotator pair, a microsecond or more per unit; γ on 10,000 items
and their 30 chance samples holds some 17 million units. Here all units of a batch are
laid in one array, sorted by continuum and then by start (*position order*), and tuples
are grown along that order: a tuple's members are listed in position order, and a tuple
is extended only by a unit after its last member.

Which tuples are kept (exactness). With C = C(n, 2) annotator pairs, a tuple T of k real
units costs S(T) = Σ_{pairs u, v in T} d(u, v) + (C − C(k, 2)) (every pair holding ∅, on
either side or both, costs δ∅ = 1), its disorder S(T) / C. Taking one member v out into a
singleton changes the cost by S(T − v) + S({v}) − S(T) = C + k − 1 − Σ_{w ≠ v} d(v, w).
So a tuple where some member has Σ_{w ≠ v} d(v, w) ≥ C + k − 1 costs at least as much as
T − v and {v}, and a partition using it can be rewritten, member by member, into one of no
larger cost that uses only kept tuples (T − v is itself grown here, below, or rewritten in
turn; singletons are always kept). Dropping every such tuple leaves the optimum disorder
unchanged; only where two partitions tie exactly may the reported alignment be the split
one. Growing: a member's sum only grows as members are added and k ≤ n, so a clique of
pairs whose member sums reach C + n − 1 is not grown further, and pairs with
d ≥ C + n − 1 are never formed (d ≤ C + n − 1 is :func:`.gamma_alignment.pair_bound`;
pygamma keeps a looser superset: Σ ≤ C·n). The strict comparison drops ties (a tuple
exactly as costly as its split), so an exact tie reports the split.

Finding pairs: d(u, v) < B needs (|s_v − s_u| + |e_v − e_u|) < √B·(l_u + l_v) (l a
length). For v starting at or after u (Δ = s_v − s_u ≥ 0), |e_v − e_u| ≥ |Δ + l_v − l_u|,
so either Δ < l_u − l_v, or 2Δ + l_v − l_u < √B·(l_u + l_v); both give
Δ < ((√B + 1)·l_u + (√B − 1)·l_v) / 2, at most that with l_v the continuum's longest unit.
So each unit's partners lie in a window of the position order after it: the units δ
places after it whose key (continuum · width + start, whose rounding the window is
widened past) is within its reach, found for every unit at once one δ at a time; the
exact test on d then decides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

NEAR = 4
"""Window places found by whole-array comparisons (most windows hold fewer)."""

MAX_PAIRS = 40_000_000
"""Candidate pairs (or candidate tuples of one size) examined in one batch (a few hundred
MB of intermediates); beyond, the caller aligns the items of the batch one by one."""


@dataclass(frozen=True)
class FlatUnits:
    """Units of many continua in position order: sorted by continuum, then start."""

    starts: np.ndarray
    ends: np.ndarray
    labels: np.ndarray
    annotator: np.ndarray
    continuum: np.ndarray
    keys: np.ndarray
    """continuum · width + start − low: increasing along the array."""


@dataclass(frozen=True)
class Tuples:
    """Kept tuples of two or more units: members in position order (−1 padding at the
    end), each tuple's first and last member, size, disorder (S / C) and member mask."""

    members: np.ndarray
    first: np.ndarray
    last: np.ndarray
    size: np.ndarray
    costs: np.ndarray
    relative: np.ndarray
    """Members as offsets from the first: bit j for the unit j places after it (only
    meaningful for spans under 63 places)."""


class TooManyPairsError(Exception):
    """More candidate pairs or tuples than :data:`MAX_PAIRS`."""


def ragged(counts: np.ndarray) -> np.ndarray:
    """0, 1, …, counts[0] − 1, 0, 1, …, counts[1] − 1, … (one run per count)."""
    ends = np.cumsum(counts)
    return np.asarray(np.arange(int(ends[-1]) if len(ends) else 0)
                      - np.repeat(ends - counts, counts), dtype=np.int64)


def _pairs(units: FlatUnits, bound: float, width: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first, second, d) of every pair of units of different annotators in one
    continuum with d < bound, first < second in position order, sorted by (first, second)."""
    size = len(units.starts)
    length = units.ends - units.starts
    bounds = np.flatnonzero(np.diff(units.continuum)) + 1
    at = np.concatenate([[0], bounds]) if size else np.zeros(0, dtype=np.int64)
    longest = np.maximum.reduceat(length, at) if size else length
    runs = np.diff(np.concatenate([at, [size]]))
    root = math.sqrt(bound)
    reach = ((root + 1) * length + (root - 1) * np.repeat(longest, runs)) / 2
    slack = 8 * np.finfo(np.float64).eps * (abs(float(units.keys[-1])) + width) if size else 0.0
    limit = units.keys + reach * (1 + 1e-12) + slack
    # Each unit's window: the units δ places after it while their key is within its
    # limit (keys ascend, so the window is a run). δ ≤ NEAR by whole-array slices, then
    # one place further per round for the units still going; pairs of one annotator are
    # left out on the way. Each δ gives its pairs sorted by first unit.
    annotator = units.annotator
    firsts: list[np.ndarray] = []
    deltas: list[int] = []
    examined = 0
    going = np.zeros(0, dtype=np.int64)
    for delta in range(1, min(NEAR, size - 1) + 1):
        inside = units.keys[delta:] <= limit[:-delta]
        examined += int(np.count_nonzero(inside))
        firsts.append(np.flatnonzero(inside & (annotator[delta:] != annotator[:-delta])))
        deltas.append(delta)
        if delta == NEAR:
            going = np.flatnonzero(inside)
    delta = NEAR + 1
    while len(going):
        going = np.compress(going + delta < size, going)
        going = np.compress(units.keys[going + delta] <= limit[going], going)
        examined += len(going)
        firsts.append(np.compress(annotator[going + delta] != annotator[going], going))
        deltas.append(delta)
        delta += 1
    if examined > MAX_PAIRS:
        raise TooManyPairsError
    first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
    second = first + np.repeat(np.array(deltas, dtype=np.int64),
                               [len(f) for f in firsts]) if firsts else first
    total = length[first] + length[second]
    shift = (np.abs(units.starts[first] - units.starts[second])
             + np.abs(units.ends[first] - units.ends[second]))
    d = (shift / total) ** 2 + (units.labels[first] != units.labels[second])
    keep = np.flatnonzero(d < bound)
    # By first unit, then second: the runs of each δ merged (a stable sort keeps δ's
    # order, which is the second unit's, among pairs of one first unit).
    keep = keep[np.argsort(first[keep], kind="stable")]
    return first[keep], second[keep], d[keep]


def _find(indptr: np.ndarray, degree: np.ndarray, second: np.ndarray, p: np.ndarray,
          q: np.ndarray) -> np.ndarray:
    """Index of the pair (p, q) among the pairs (−1 if absent): p's partners are
    ``second[indptr[p]: indptr[p] + degree[p]]``, ascending and few (a scan beats a
    binary search over all pairs)."""
    where = np.full(len(p), -1, dtype=np.int64)
    low, count = indptr[p], degree[p]
    going = np.flatnonzero(count > 0)
    step = 0
    while len(going):
        at = low[going] + step
        partner = second[at]
        hit = partner == q[going]
        where[np.compress(hit, going)] = np.compress(hit, at)
        going = np.compress((partner < q[going]) & (count[going] > step + 1), going)
        step += 1
    return where


Level = tuple[list[np.ndarray], list[np.ndarray], np.ndarray]
"""Tuples of one size k: members (k columns, position order), each member's sum of d to
the others, and the sum of d over the tuple's pairs."""


def _grow(units: FlatUnits, level: Level, first: np.ndarray, second: np.ndarray,
          d: np.ndarray, degree: np.ndarray, indptr: np.ndarray,
          bound: float) -> Level | None:
    """Tuples of size k + 1 from those of size k: add a partner of the last member that
    pairs with every other member, keep member sums under ``bound``."""
    columns, sums, total = level
    k = len(columns)
    counts = degree[columns[-1]]
    if not counts.any():
        return None
    if int(counts.sum()) > MAX_PAIRS:  # many annotators over dense spans
        raise TooManyPairsError
    base = np.repeat(np.arange(len(counts)), counts)
    at = np.arange(len(base)) + np.repeat(indptr[columns[-1]] - (np.cumsum(counts) - counts),
                                          counts)
    added = second[at]
    ok = np.ones(len(base), dtype=bool)
    for i in range(k - 1):  # a new annotator: it pairs with the last member already
        ok &= units.annotator[columns[i][base]] != units.annotator[added]
    base, added, at = (np.compress(ok, x) for x in (base, added, at))
    found: list[np.ndarray] = []
    for i in range(k - 1):  # the new unit must pair with every other member too
        where = _find(indptr, degree, second, columns[i][base], added)
        ok = where >= 0
        base, added, at = (np.compress(ok, x) for x in (base, added, at))
        found = [np.compress(ok, f) for f in found] + [np.compress(ok, where)]
    values = [d[where] for where in found] + [d[at]]
    new_sums = [sums[i][base] + values[i] for i in range(k)]
    new_sum = values[0]
    for value in values[1:]:
        new_sum = new_sum + value
    new_sums.append(new_sum)
    keep = np.ones(len(base), dtype=bool)
    for member_sum in new_sums:
        keep &= member_sum < bound
    base = np.compress(keep, base)
    return ([c[base] for c in columns] + [np.compress(keep, added)],
            [np.compress(keep, m) for m in new_sums], total[base] + np.compress(keep, new_sum))


def flat_tuples(units: FlatUnits, n_annotators: int, width: float) -> Tuples:
    """Every kept tuple of two or more units (see the module text). Tuples are grown as
    columns (member i of every tuple of one size), each size sorted by first member."""
    n = n_annotators
    c2n = n * (n - 1) / 2
    bound = c2n + n - 1
    size = len(units.starts)
    first, second, d = _pairs(units, bound, width)
    degree = np.bincount(first, minlength=size)
    indptr = np.cumsum(degree) - degree
    levels: list[Level] = [([first, second], [d, d], d)]
    for _k in range(2, n):
        grown = _grow(units, levels[-1], first, second, d, degree, indptr, bound)
        if grown is None:
            break
        levels.append(grown)
    parts: list[tuple[list[np.ndarray], np.ndarray]] = []
    for columns, sums, total in levels:
        k = len(columns)
        keep = np.ones(len(total), dtype=bool)
        for member_sum in sums:
            keep &= member_sum < c2n + k - 1
        parts.append(([np.compress(keep, c) for c in columns],
                      (np.compress(keep, total) + (c2n - k * (k - 1) / 2)) / c2n))
    count = sum(len(costs) for _, costs in parts)
    members = np.full((count, n), -1, dtype=np.int64)
    sizes = np.empty(count, dtype=np.int64)
    last = np.empty(count, dtype=np.int64)
    relative = np.zeros(count, dtype=np.int64)
    row = 0
    for columns, costs in parts:
        rows = slice(row, row + len(costs))
        for i, column in enumerate(columns):
            members[rows, i] = column
            relative[rows] |= np.left_shift(1, np.minimum(column - columns[0], 62))
        sizes[rows] = len(columns)
        last[rows] = columns[-1]
        row += len(costs)
    return Tuples(members, members[:, 0].copy(), last, sizes,
                  np.concatenate([costs for _, costs in parts]), relative)
