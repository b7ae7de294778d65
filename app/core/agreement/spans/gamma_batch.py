"""The exact best alignments of many continua at once (many items and their chance samples).

Why: :func:`.gamma_alignment.best_alignments` works continuum by continuum in Python, and
an item of 3 annotators × 20 spans is 31 continua (the item and 30 chance samples) of
about a millisecond each: some 6 minutes for a project of 10,000 such items. Here all
continua of a batch are laid side by side (each unit keeps its continuum's id, and only
units of one continuum pair), so candidate tuples, their disorders and the connected
components of the set-partition program are computed by a few numpy calls for the whole
batch, and the components are solved together:

- a component of ``u`` ≤ :data:`MAX_DP_UNITS` units by the same recursion as
  :mod:`.gamma_search` (the first uncovered unit leads a tuple disjoint from the covered
  ones), evaluated bottom-up over all 2^u covered sets, one numpy step per covered set
  for every component of that size at once;
- a wider one by :func:`.gamma_search._search`, as before; a component that search gives
  up on marks its continuum as not solved here, and the caller aligns that item the old
  way (HiGHS, with its time budget).

Exactness: the candidate tuples are the same set as per continuum (same pairs, same d,
same pruning) and every component's optimum is exact, so each disorder is the same
optimum. Only the order of the floating-point additions differs (the per-continuum sum is
a plain sum, not ``math.fsum``; the item's own continuum is re-summed by ``fsum`` as
before), so chance disorders may differ from the per-continuum path in the last bits
(tested to 1e-12). Where two partitions tie exactly, the alignment reported may be the
other one of equal disorder.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

from app.core.agreement.spans.gamma_alignment import (
    EMPTY,
    BestAlignment,
    Units,
    _finish,
    candidate_tuples,
)
from app.core.agreement.spans.gamma_search import _search

MAX_DP_UNITS = 8
"""Widest component solved bottom-up: its tables hold 2^u entries per component (32 KB
each at 12 units) and 3^u / 2 tuple tries; wider ones (rare on texts with gaps between
spans) go to the search."""


@cache
def _steps(u: int) -> list[tuple[int, np.ndarray]]:
    """For each covered set (descending), the tuples' masks that may come next: the
    subsets of the uncovered units that hold the lowest uncovered one."""
    full = (1 << u) - 1
    steps: list[tuple[int, np.ndarray]] = []
    for covered in range(full - 1, -1, -1):
        free = full & ~covered
        low = free & -free
        rest = free & ~low
        masks = []
        sub = rest
        while True:
            masks.append(sub | low)
            if sub == 0:
                break
            sub = (sub - 1) & rest
        steps.append((covered, np.array(masks[::-1], dtype=np.int64)))
    return steps


def _solve_dp(u: int, cost_table: np.ndarray) -> np.ndarray:
    """Optimal masks chosen for components of ``u`` units: ``arg[k, covered]``."""
    k = len(cost_table)
    full = (1 << u) - 1
    value = np.zeros((k, full + 1))
    arg = np.zeros((k, full + 1), dtype=np.int64)
    for covered, masks in _steps(u):
        totals = cost_table[:, masks] + value[:, covered | masks]
        best = totals.argmin(axis=1)
        value[:, covered] = totals[np.arange(k), best]
        arg[:, covered] = masks[best]
    return arg


def batch_alignments(continua: Sequence[Sequence[Units]], want: Sequence[bool]
                     ) -> tuple[np.ndarray, list[BestAlignment | None]]:
    """(disorder of each continuum, NaN where it was not solved here; the best alignment
    of the continua flagged in ``want``, None where not solved or not wanted).

    All continua hold the same number n ≥ 2 of annotators and at least one unit. Raises
    :class:`.gamma_alignment.AlignmentTooLargeError` when the batch's candidates are too
    many (the caller then goes continuum by continuum).
    """
    n = len(continua[0])
    count = len(continua)
    sizes = np.array([[len(c[a]) for a in range(n)] for c in continua], dtype=np.int64)
    merged: list[Units] = []
    cids: list[np.ndarray] = []
    first_of = np.zeros((n, count), dtype=np.int64)
    for a in range(n):
        merged.append(Units(np.concatenate([c[a].starts for c in continua]),
                            np.concatenate([c[a].ends for c in continua]),
                            np.concatenate([c[a].labels for c in continua])))
        cids.append(np.repeat(np.arange(count), sizes[:, a]))
        first_of[a, 1:] = np.cumsum(sizes[:-1, a])
    rows, costs = candidate_tuples(merged, cids)
    annotator_base = np.concatenate([[0], np.cumsum([len(m) for m in merged])[:-1]])
    n_units = int(sum(len(m) for m in merged))
    tuple_index, annotator = np.nonzero(rows != EMPTY)
    # Units numbered in order of position within their continuum, as the search wants
    # them (its first uncovered unit is the leftmost one, which keeps its memo small).
    position = np.empty(n_units, dtype=np.int64)
    position[np.lexsort((np.concatenate([u.ends for u in merged]),
                         np.concatenate([u.starts for u in merged]),
                         np.concatenate(cids)))] = np.arange(n_units)
    member = position[annotator_base[annotator] + rows[tuple_index, annotator]]
    m = len(rows)
    graph = coo_array((np.ones(len(member)), (member, n_units + tuple_index)),
                      shape=(n_units + m, n_units + m))
    n_comp, label = connected_components(graph, directed=False)
    unit_comp = label[:n_units]
    tuple_comp = label[n_units:]
    unit_cid = np.empty(n_units, dtype=np.int64)
    unit_cid[position] = np.concatenate(cids)
    comp_cid = np.zeros(n_comp, dtype=np.int64)
    comp_cid[unit_comp] = unit_cid
    comp_units = np.bincount(unit_comp, minlength=n_comp)
    # Each unit's bit: its rank among its component's units (by global index).
    by_comp = np.argsort(unit_comp, kind="stable")
    comp_start = np.concatenate([[0], np.cumsum(comp_units)[:-1]])
    rank = np.empty(n_units, dtype=np.int64)
    rank[by_comp] = np.arange(n_units) - comp_start[unit_comp[by_comp]]
    mask = np.zeros(m, dtype=np.int64)
    np.add.at(mask, tuple_index, np.left_shift(1, np.minimum(rank[member], 62)))
    chosen = np.zeros(m, dtype=bool)
    solved = np.ones(count, dtype=bool)
    tuple_of_comp_order = np.argsort(tuple_comp, kind="stable")
    tuples_per_comp = np.bincount(tuple_comp, minlength=n_comp)
    tuple_start = np.concatenate([[0], np.cumsum(tuples_per_comp)[:-1]])
    member_lists: dict[int, list[int]] | None = None
    cost_list: list[float] = []
    for u in np.unique(comp_units).tolist():
        comps = np.flatnonzero(comp_units == u)
        if u == 1:
            chosen[tuple_of_comp_order[tuple_start[comps]]] = True
            continue
        if u <= MAX_DP_UNITS:
            local = np.full(n_comp, -1, dtype=np.int64)
            local[comps] = np.arange(len(comps))
            mine = np.flatnonzero(local[tuple_comp] >= 0)
            cost_table = np.full((len(comps), 1 << u), np.inf)
            cost_table[local[tuple_comp[mine]], mask[mine]] = costs[mine]
            tuple_table = np.full((len(comps), 1 << u), -1, dtype=np.int64)
            tuple_table[local[tuple_comp[mine]], mask[mine]] = mine
            arg = _solve_dp(u, cost_table)
            covered = np.zeros(len(comps), dtype=np.int64)
            everyone = np.arange(len(comps))
            full = (1 << u) - 1
            for _ in range(u):
                open_ = covered != full
                if not open_.any():
                    break
                step = arg[everyone[open_], covered[open_]]
                chosen[tuple_table[everyone[open_], step]] = True
                covered[open_] |= step
            continue
        if member_lists is None:  # only the tuples of wide components
            member_lists = {}
            wide = comp_units[tuple_comp[tuple_index]] > MAX_DP_UNITS
            for t, unit in zip(tuple_index[wide].tolist(), member[wide].tolist(), strict=True):
                member_lists.setdefault(t, []).append(unit)
            cost_list = costs.tolist()
        for comp in comps.tolist():
            tuples = tuple_of_comp_order[tuple_start[comp]:
                                         tuple_start[comp] + tuples_per_comp[comp]]
            picked = _search(tuples.tolist(), member_lists, cost_list)
            if picked is None:
                solved[comp_cid[comp]] = False
            else:
                chosen[picked] = True
    tuple_cid = comp_cid[tuple_comp]
    mean_units = sizes.sum(axis=1) / n
    disorders = np.bincount(tuple_cid[chosen], weights=costs[chosen], minlength=count)
    disorders = np.where(solved, disorders / mean_units, np.nan)
    alignments: list[BestAlignment | None] = [None] * count
    wanted = np.asarray(want, dtype=bool) & solved
    picked_all = np.flatnonzero(chosen & wanted[tuple_cid])
    picked_all = picked_all[np.argsort(tuple_cid[picked_all], kind="stable")]
    bounds = np.searchsorted(tuple_cid[picked_all], np.arange(count + 1))
    for c in np.flatnonzero(wanted).tolist():
        picked_rows = picked_all[bounds[c]: bounds[c + 1]]
        local_rows = rows[picked_rows].copy()
        for a in range(n):
            present = local_rows[:, a] != EMPTY
            local_rows[present, a] -= first_of[a, c]
        alignments[c] = _finish(local_rows, costs[picked_rows], continua[c],
                                float(mean_units[c]))
    return disorders, alignments
