"""The best partition of many continua's units into kept tuples, exactly, by a window DP.

Why: after :mod:`.gamma_tuples` drops dominated tuples, a tuple joins units a few places
apart in position order, so the set-partition program of a continuum falls apart into
*segments*: runs of units in position order that no tuple crosses (a unit with no tuple
is a segment of its own and costs 1, its singleton). On γ's chance samples of 3 × 20 spans
most segments hold 1–5 units and no tuple spans more than 5 places. Each segment is solved
exactly, all segments of a batch together with a few numpy calls per step:

- up to :data:`SMALL` (5) units: in closed form (:mod:`.gamma_small`: such a partition
  holds at most two tuples of two or more units);
- wider, with every tuple spanning at most ``w`` ≤ :data:`MAX_WINDOW` places, by dynamic
  programming from the segment's last unit back to its first:

      f(i, m) = f(i + 1, m >> 1)                                   if unit i ∈ m,
      f(i, m) = min over tuples t led by i, t ∩ m = ∅, of
                cost(t) + f(i + 1, (m | t) >> 1)                     otherwise,

  where m is the set of units i … i + w − 1 already taken by tuples led before i (bit b
  for unit i + b), a tuple is *led* by its first unit and written as its members' offsets
  from it, and singletons are tuples. f(first, 0) is the segment's optimum: every
  partition is a sequence of choices at the units not yet taken, in order. All segments
  of one ``w`` go in lockstep from their last units (each step, the choices led by the
  current unit of every segment still going: an array of choices × the 2^(w − 1) states
  not holding that unit, its minimum per segment by ``minimum.reduceat``; the states
  holding it are a copy). The chosen tuples of the continua that report their
  alignment are recovered by walking forward through the stored tables, taking at each
  untaken unit the first tuple whose value equals the table's (the same float operations,
  so equality is exact);
- wider windows (many annotators over dense spans) go to :func:`.gamma_search._search`,
  and a segment it gives up on leaves its continuum unsolved here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from app.core.agreement.spans.gamma_search import _search
from app.core.agreement.spans.gamma_small import LIMIT, solve_small
from app.core.agreement.spans.gamma_tuples import Tuples, ragged

MAX_WINDOW = 10
"""Widest tuple span (in places of the position order) solved by the DP: 2^w states of
the units ahead; wider segments go to the search."""

SMALL = LIMIT
"""Segments of at most this many units are solved in closed form (:mod:`.gamma_small`);
the tests lower it to send every segment through the DP."""

STEP_CELLS = 1 << 22
"""Tuples × states held in one DP step (32 MB of float64); a group of segments with more
is solved in several parts."""


@dataclass(frozen=True)
class Solved:
    """Each segment's first unit and optimum; whether its continuum is solved (False only
    where the search gave up); the tuples chosen in the wanted segments (index into
    :class:`.gamma_tuples.Tuples`, or ``len(tuples) + unit`` for a singleton)."""

    segment_start: np.ndarray
    value: np.ndarray
    solved: np.ndarray
    chosen: np.ndarray


@cache
def _tables(w: int) -> tuple[np.ndarray, np.ndarray]:
    """For w places and the states m (w bits) not holding the current unit (m even):
    (m | t) >> 1 and the penalty (∞ where m ∩ t ≠ ∅) for every tuple mask t (w + 1
    bits)."""
    even = np.arange(0, 1 << w, 2)
    masks = np.arange(1 << (w + 1))[:, None]
    shift = (even[None, :] | masks) >> 1
    penalty = np.where((even[None, :] & masks) != 0, np.inf, 0.0)
    shift.setflags(write=False)
    penalty.setflags(write=False)
    return shift, penalty


@dataclass(frozen=True)
class _Entries:
    """Each unit's choices as the unit leading them: its singleton, then the tuples it
    leads, contiguous (unit u's from ``at[u]``, ``1 + led[u]`` of them)."""

    at: np.ndarray
    led: np.ndarray
    mask: np.ndarray
    cost: np.ndarray
    ident: np.ndarray


def _entries(n_units: int, tuples: Tuples, ids: np.ndarray, units: np.ndarray) -> _Entries:
    """The choices of ``units`` (ascending) and of the tuples ``ids`` they lead (sorted
    by first member)."""
    led = np.bincount(tuples.first[ids], minlength=n_units)
    count = led[units] + 1
    at = np.zeros(n_units, dtype=np.int64)
    at[units] = np.cumsum(count) - count
    size = len(units) + len(ids)
    mask = np.ones(size, dtype=np.int64)
    cost = np.ones(size)
    ident = np.empty(size, dtype=np.int64)
    ident[at[units]] = len(tuples.costs) + units
    where = np.repeat(at[units] + 1, led[units]) + ragged(led[units])
    mask[where] = tuples.relative[ids]
    cost[where] = tuples.costs[ids]
    ident[where] = ids
    return _Entries(at, led, mask, cost, ident)


def _choices(entries: _Entries, units: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                            np.ndarray]:
    """(entry index, owner's position in ``units``, start of each owner's run)."""
    count = entries.led[units] + 1
    heads = np.cumsum(count) - count
    index = np.repeat(entries.at[units] - heads, count) + np.arange(int(count.sum()))
    return index, np.repeat(np.arange(len(units)), count), heads


def solve(n_units: int, tuples: Tuples, wanted: np.ndarray) -> Solved:
    """Optimum of every segment of the units 0 … n_units − 1 (in position order, tuples
    never crossing a continuum) and the chosen tuples of the segments of wanted units."""
    count = len(tuples.costs)
    cover = np.bincount(tuples.first, minlength=n_units + 1) - np.bincount(
        tuples.last, minlength=n_units + 1)
    open_after = np.cumsum(cover)[:n_units]
    fresh = np.ones(n_units, dtype=bool)
    fresh[1:] = open_after[:-1] == 0
    start = np.flatnonzero(fresh)
    segment = np.cumsum(fresh) - 1
    length = np.diff(np.concatenate([start, [n_units]]))
    span = tuples.last - tuples.first
    tuple_segment = segment[tuples.first]
    width = np.zeros(len(start), dtype=np.int64)
    np.maximum.at(width, tuple_segment, span)
    value = length.astype(np.float64)  # singletons only; lowered below
    solved = np.ones(len(start), dtype=bool)
    seg_wanted = np.zeros(len(start), dtype=bool)
    seg_wanted[segment[wanted]] = True
    chosen: list[np.ndarray] = []
    by_lead = np.argsort(tuples.first, kind="stable")
    solve_small(tuples, by_lead, tuple_segment, start, length, value, seg_wanted, chosen,
                SMALL)
    # Wider: the DP per window, or the search.
    big = length > SMALL
    entries = _entries(n_units, tuples, by_lead[big[tuple_segment[by_lead]]],
                       np.flatnonzero(big[segment]))
    for w in np.unique(width[big]).tolist():
        segs = np.flatnonzero(big & (width == w))
        if w > MAX_WINDOW:
            _search_segments(segs, start, length, tuples, tuple_segment, count, value,
                             solved, seg_wanted, chosen)
            continue
        _window_group(w, segs, start, length, entries, value, seg_wanted, chosen)
    return Solved(start, value, solved,
                  np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64))


def _window_group(w: int, segs: np.ndarray, start: np.ndarray, length: np.ndarray,
                  entries: _Entries, value: np.ndarray, seg_wanted: np.ndarray,
                  chosen: list[np.ndarray]) -> None:
    """The DP of the segments ``segs`` (all of window ``w``), in parts of bounded size."""
    segs = segs[np.argsort(-length[segs], kind="stable")]
    per_part = max(1, STEP_CELLS // ((1 << w) * 4 * int(length[segs].max())))
    for at in range(0, len(segs), per_part):
        _window_part(w, segs[at: at + per_part], start, length, entries, value,
                     seg_wanted, chosen)


def _window_part(w: int, segs: np.ndarray, start: np.ndarray, length: np.ndarray,
                 entries: _Entries, value: np.ndarray, seg_wanted: np.ndarray,
                 chosen: list[np.ndarray]) -> None:
    """Segments sorted longest first: at step r (r places before each segment's end)
    the segments longer than r are a prefix, ``active[r]`` of them."""
    shift, penalty = _tables(w)
    lengths = length[segs]
    ends = start[segs] + lengths - 1
    steps = int(lengths.max())
    active = np.searchsorted(-lengths, -np.arange(steps + 1), side="left")
    # Every step's choices at once: step r holds the current units of segments 0 …
    # active[r] − 1, whose choices are contiguous here (heads: each unit's first one).
    segment = ragged(active[:-1])
    index, owner, heads = _choices(entries, ends[segment]
                                   - np.repeat(np.arange(steps), active[:-1]))
    mask = entries.mask[index]
    cells = segment[owner][:, None] * (1 << w) + shift[mask]  # into f_prev, flattened
    fine = penalty[mask]
    fine += entries.cost[index][:, None]
    unit_at = np.concatenate([[0], np.cumsum(active[:-1])])
    choice_at = np.append(heads, len(index))[unit_at]
    # Each unit's first choice, counted from the first choice of its step.
    heads = heads - np.repeat(choice_at[:-1], active[:-1])
    bounds, sizes, marks = choice_at.tolist(), active.tolist(), unit_at.tolist()
    half = (1 << w) // 2  # the states holding the unit, m >> 1: 0 … half − 1
    f_prev = np.zeros((len(segs), 1 << w))
    tables: list[np.ndarray] = []
    want = bool(seg_wanted[segs].any())
    for r in range(steps):
        g = f_prev.ravel()[cells[bounds[r]: bounds[r + 1]]]
        g += fine[bounds[r]: bounds[r + 1]]
        f = np.empty((sizes[r], 1 << w))
        f[:, 0::2] = np.minimum.reduceat(g, heads[marks[r]: marks[r + 1]], axis=0)
        f[:, 1::2] = f_prev[: sizes[r], :half]
        value[segs[sizes[r + 1]: sizes[r]]] = f[sizes[r + 1]: sizes[r], 0]
        if want:
            tables.append(f)
        f_prev = f
    if want:
        _walk(segs, ends, lengths, seg_wanted, entries, tables, shift, penalty, chosen)


def _walk(segs: np.ndarray, ends: np.ndarray, lengths: np.ndarray, seg_wanted: np.ndarray,
          entries: _Entries, tables: list[np.ndarray], shift: np.ndarray,
          penalty: np.ndarray, chosen: list[np.ndarray]) -> None:
    """The chosen tuples of the wanted segments: forward from each one's first unit."""
    wanted = np.flatnonzero(seg_wanted[segs])
    state = np.zeros(len(segs), dtype=np.int64)
    for r in range(int(lengths[wanted].max()) - 1, -1, -1):
        going = wanted[lengths[wanted] > r]
        taken = (state[going] & 1) == 1
        state[going[taken]] >>= 1
        free = going[~taken]
        if not len(free):
            continue
        index, owner, _ = _choices(entries, ends[free] - r)
        s, m = free[owner], entries.mask[index]
        before = tables[r - 1] if r else np.zeros_like(tables[0])
        column = state[s] >> 1
        fine = penalty[m, column]
        fine += entries.cost[index]
        total = before[s, shift[m, column]] + fine
        hit = total == tables[r][s, state[s]]
        index, s, m = index[hit], s[hit], m[hit]
        firsts = np.unique(s, return_index=True)[1]
        chosen.append(entries.ident[index[firsts]])
        state[s[firsts]] = shift[m[firsts], state[s[firsts]] >> 1]


def _search_segments(segs: np.ndarray, start: np.ndarray, length: np.ndarray,
                     tuples: Tuples, tuple_segment: np.ndarray, count: int,
                     value: np.ndarray, solved: np.ndarray, seg_wanted: np.ndarray,
                     chosen: list[np.ndarray]) -> None:
    """Segments too wide for the DP: the memoized search, one by one."""
    order = np.argsort(tuple_segment, kind="stable")
    edges = np.searchsorted(tuple_segment[order], np.concatenate([segs, segs + 1]))
    for k, seg in enumerate(segs.tolist()):
        mine = order[edges[k]: edges[len(segs) + k]].tolist()
        units = range(int(start[seg]), int(start[seg] + length[seg]))
        members: dict[int, list[int]] = {
            t: [u for u in tuples.members[t].tolist() if u >= 0] for t in mine}
        members.update({count + u: [u] for u in units})
        costs = dict(zip(mine, tuples.costs[mine].tolist(), strict=True))
        costs.update({count + u: 1.0 for u in units})
        picked = _search([*mine, *(count + u for u in units)], members, costs)
        if picked is None:
            solved[seg] = False
            continue
        value[seg] = sum(costs[t] for t in picked)
        if seg_wanted[seg]:
            chosen.append(np.array(picked, dtype=np.int64))
