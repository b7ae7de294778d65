"""The best alignment's set-partition program solved exactly by search, component by component.

Why: HiGHS (:func:`.gamma_alignment.solve_partitions`) costs milliseconds a call and some
80 ms for an item of 3 × 20 spans and its 30 chance samples, which is 15 minutes for a
project of 10,000 such items. The candidate tuples are local (a tuple only joins units
close in position), so the program falls apart into connected components (units joined
by a shared candidate tuple), and a component is solved exactly by a memoized search:

    f(covered) = min over the tuples t led by the first uncovered unit, t disjoint from
                 covered, of cost(t) + f(covered ∪ t),     f(everything) = 0

with units in order of position and a tuple *led* by its first unit in that order. Every
partition is reached exactly once (the first uncovered unit must be covered by a tuple it
leads, since everything before it is covered), so the minimum is the program's optimum.
Singletons are always candidates, so f is always finite. Because tuples are local, the
covered sets met are those of a narrow window ahead of the first uncovered unit, and the
memo stays small: on 3 annotators × 20 spans the search is some 6× faster than HiGHS,
on 3 × 200 some 10×.

The search gives up on a component (which then goes to HiGHS with the others given up on)
when it holds more than :data:`MAX_UNITS` units, its memo passes :data:`MAX_STATES`
states or it has tried :data:`MAX_WORK` tuples: with five annotators and more, windows
get wide, and HiGHS's bound is the better tool.
Either way the answer is the exact optimum; ``tests/core/test_span_gamma.py`` checks
the two against each other and against pygamma-agreement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

EMPTY = -1
"""The empty unit ∅ in a tuple (``gamma_alignment.EMPTY``, which imports this module)."""

MAX_UNITS = 300
"""Largest component searched: its recursion depth is at most its number of units, well
inside Python's default limit of 1,000 frames (never raised: the GUI runs this on
threads, and the limit is the interpreter's)."""

MAX_STATES = 4000
"""Memo states before a component is handed to HiGHS instead."""

MAX_WORK = 100_000
"""Tuples tried (over all states) before a component is handed to HiGHS instead: with
many annotators a unit leads thousands of tuples and few states are already slow."""


class _TooWideError(Exception):
    """The component is too wide for the search."""


def search_partition(sizes: list[int], order: np.ndarray, rows: np.ndarray,
                     costs: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Solve what the search can: (chosen tuples as a mask, the tuple indices of each
    component left to the solver).

    ``sizes`` are the annotators' unit counts, ``order`` the rank in position order of
    each unit (annotators' units one after the other), ``rows`` the candidate tuples.
    """
    n_units = int(sum(sizes))
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    tuple_index, annotator = np.nonzero(rows != EMPTY)
    member = order[offsets[annotator] + rows[tuple_index, annotator]]
    m = len(rows)
    graph = coo_array((np.ones(len(member)), (member, n_units + tuple_index)),
                      shape=(n_units + m, n_units + m))
    _, label = connected_components(graph, directed=False)
    component_of = label[n_units:]
    by_component = np.argsort(component_of, kind="stable")
    edges = np.flatnonzero(np.diff(component_of[by_component])) + 1
    members: list[list[int]] = [[] for _ in range(m)]
    for t, unit in zip(tuple_index.tolist(), member.tolist(), strict=True):
        members[t].append(unit)
    chosen = np.zeros(m, dtype=bool)
    left: list[np.ndarray] = []
    cost_list = costs.tolist()
    for tuples in np.split(by_component, edges):
        if len(tuples) == 1:
            chosen[tuples[0]] = True
            continue
        picked = _search(tuples.tolist(), members, cost_list)
        if picked is None:
            left.append(tuples)
        else:
            chosen[picked] = True
    return chosen, left


def _search(tuples: list[int], members: Sequence[list[int]] | Mapping[int, list[int]],
            costs: Sequence[float] | Mapping[int, float]) -> list[int] | None:
    """The optimal tuples of one component, or ``None`` when it is too wide."""
    units = sorted({u for t in tuples for u in members[t]})
    if len(units) > MAX_UNITS:
        return None
    local = {u: i for i, u in enumerate(units)}
    led: list[list[tuple[float, int, int]]] = [[] for _ in units]
    for t in tuples:
        bits = [local[u] for u in members[t]]
        mask = 0
        for b in bits:
            mask |= 1 << b
        led[min(bits)].append((costs[t], mask, t))
    full = (1 << len(units)) - 1
    memo: dict[int, tuple[float, int, int]] = {full: (0.0, -1, full)}
    work = [0]

    def best(covered: int) -> float:
        known = memo.get(covered)
        if known is not None:
            return known[0]
        first = (~covered & (covered + 1)).bit_length() - 1
        work[0] += len(led[first])
        if len(memo) > MAX_STATES or work[0] > MAX_WORK:
            raise _TooWideError
        value, argument, after = float("inf"), -1, covered
        for cost, mask, t in led[first]:
            if not mask & covered:
                total = cost + best(covered | mask)
                if total < value:
                    value, argument, after = total, t, covered | mask
        memo[covered] = (value, argument, after)
        return value

    try:
        best(0)
    except (_TooWideError, RecursionError):
        return None
    picked: list[int] = []
    covered = 0
    while covered != full:
        _, t, covered = memo[covered]
        picked.append(t)
    return picked
