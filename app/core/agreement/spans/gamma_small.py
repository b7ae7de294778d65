"""The optimum of γ's small segments in closed form, all at once.

Why: most segments of γ's continua (:mod:`.gamma_window`) hold at most 5 units (70 % of
the units of 3 annotators × 20 spans and their chance samples). A partition of at most 5
units holds at most two tuples of two or more units (three need 6), so its optimum is the
least of: every unit alone (never the least: a kept tuple of k units costs less than k
singletons, :mod:`.gamma_tuples`), one kept tuple with the rest alone, and two disjoint
kept tuples with the rest alone. Both kinds are enumerated for every small segment with
a few numpy calls (pairs of tuples within one segment: a few per segment), and
``np.minimum.at`` keeps each segment's least. For the segments whose alignment is
reported, the first candidate (one tuple before two) whose total equals the optimum is
taken: the same float operations, so the equality is exact.
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.spans.gamma_tuples import Tuples, ragged

LIMIT = 5
"""Largest segment this closed form is exact for (two tuples at most)."""


def _firsts(segments: np.ndarray) -> np.ndarray:
    """Position of each distinct segment's first occurrence."""
    return np.asarray(np.unique(segments, return_index=True)[1], dtype=np.int64)


def solve_small(tuples: Tuples, by_lead: np.ndarray, tuple_segment: np.ndarray,
                start: np.ndarray, length: np.ndarray, value: np.ndarray,
                seg_wanted: np.ndarray, chosen: list[np.ndarray], limit: int = LIMIT) -> None:
    """Lower ``value`` (every unit alone) to the optimum of each segment of at most
    ``limit`` ≤ :data:`LIMIT` units, and append the tuples chosen in the wanted ones to
    ``chosen``. ``by_lead``: every tuple's index, sorted by first member (hence by
    segment)."""
    if limit > LIMIT:
        raise ValueError(f"the closed form holds for segments of at most {LIMIT} units")
    ids = by_lead[length[tuple_segment[by_lead]] <= limit]
    seg = tuple_segment[ids]
    units = length[seg]
    one = tuples.costs[ids] + (units - tuples.size[ids])
    np.minimum.at(value, seg, one)
    # Two disjoint tuples of one segment of 4 or 5 units (the second after the first).
    four = np.flatnonzero(units >= 4)
    seg4 = seg[four]
    fresh = np.flatnonzero(np.concatenate([[True], seg4[1:] != seg4[:-1], [True]]))
    run_end = np.repeat(fresh[1:], np.diff(fresh))
    counts = run_end - np.arange(len(four)) - 1
    left = np.repeat(four, counts)
    right = four[np.repeat(np.arange(len(four)), counts) + 1 + ragged(counts)]
    a, b = ids[left], ids[right]
    at = start[seg[left]]
    disjoint = (np.left_shift(tuples.relative[a], tuples.first[a] - at)
                & np.left_shift(tuples.relative[b], tuples.first[b] - at)) == 0
    left, a, b = (np.compress(disjoint, x) for x in (left, a, b))
    two = tuples.costs[a] + tuples.costs[b] + (units[left] - tuples.size[a] - tuples.size[b])
    np.minimum.at(value, seg[left], two)
    # The chosen tuples of the wanted segments.
    hit = seg_wanted[seg] & (one == value[seg])
    picked = ids[hit][_firsts(seg[hit])]
    done = np.zeros(len(value), dtype=bool)
    done[tuple_segment[picked]] = True
    hit = seg_wanted[seg[left]] & ~done[seg[left]] & (two == value[seg[left]])
    firsts = _firsts(seg[left][hit])
    chosen.extend([picked, a[hit][firsts], b[hit][firsts]])
