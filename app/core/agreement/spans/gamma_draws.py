"""Mathet's shuffle sampler (:mod:`.gamma_chance`) for many items at once, the same draws.

Why: :func:`.gamma_chance.shuffle_draws` takes three Python-level random calls and a
stretch update per annotator of each chance sample, about 50 µs per item of 3 annotators
and 30 samples: 0.5 s on a project of 10,000 items, where the whole of γ has a few
seconds. Here the draws of every item of a batch are taken with a few numpy passes.

Why the draws are the same: every item draws from its own ``default_rng(seed)``, with the
same seed, so every item sees the same stream of random numbers; only the *use* of the
stream could depend on the item. It does not, as long as each pivot is drawn from a
non-empty list of fewer than 8 available stretches (then a pivot takes two ``random()``
calls, then ``integers(n)`` picks the source annotator) and no sample has to be drawn again
(it is drawn again only when every source it picked has no unit). So the stream is
consumed the same way by all such items: it is drawn once per (seed, annotators, samples)
by the same calls (:func:`standard_stream`) and every item's pivots are computed from it
with the same float operations, in the same order, as :func:`.gamma_chance._pivot` and
:func:`.gamma_chance._subtract`. Absent stretches are held as zero-width slots, which add
exactly 0.0 to the sums and are never chosen. An item for which one of the conditions
fails (an empty stretch list before a pivot, an all-empty sample, or 8 annotators and
more, where the stretches may reach 8 and numpy's own ``choice`` sums them pairwise) is
reported as not drawn here; the caller draws it with :func:`.gamma_chance.shuffle_draws`.
``tests/core/test_span_gamma_fast.py`` checks both against each other on random items.
"""

from __future__ import annotations

from functools import cache

import numpy as np

MAX_ANNOTATORS = 7
"""Most annotators drawn here: n annotators meet at most n stretches, fewer than 8."""


@cache
def standard_stream(seed: int, n_annotators: int,
                    count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(stretch draw, position draw, source annotator) of each annotator of each sample,
    shape (count, n): the calls an item makes when nothing unusual happens."""
    rng = np.random.default_rng(seed)
    first = np.empty((count, n_annotators))
    second = np.empty((count, n_annotators))
    source = np.empty((count, n_annotators), dtype=np.int64)
    for k in range(count):
        for a in range(n_annotators):
            first[k, a] = rng.random()
            second[k, a] = rng.random()
            source[k, a] = int(rng.integers(n_annotators))
    for array in (first, second, source):
        array.setflags(write=False)
    return first, second, source


def batch_draws(sizes: np.ndarray, lengths: np.ndarray, spacings: np.ndarray, seed: int,
                count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sources, pivots, drawn) of the items: ``sources`` and ``pivots`` of shape
    (items, count, n) as :func:`.gamma_chance.shuffle_draws` gives them, valid where
    ``drawn`` (items,) holds.

    ``sizes`` (items, n): each annotator's number of units; ``lengths``: the continuum
    lengths (already widened to the last unit's end); ``spacings``: half the mean unit
    length, computed by the caller as ``shuffle_draws`` does (``np.mean``).
    """
    items, n = sizes.shape
    sources = np.zeros((items, count, n), dtype=np.int64)
    pivots = np.zeros((items, count, n))
    if n > MAX_ANNOTATORS or items == 0:
        return sources, pivots, np.zeros(items, dtype=bool)
    first, second, source = standard_stream(seed, n, count)
    rows = items * count
    length = np.repeat(lengths, count)
    spacing = np.repeat(spacings, count)
    starts = np.zeros((rows, 1))
    ends = length[:, None].copy()
    valid = np.ones((rows, 1), dtype=bool)
    ok = np.ones(rows, dtype=bool)
    every = np.arange(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        for a in range(n):
            ok &= valid.any(axis=1)
            widths = np.where(valid, ends - starts, 0.0)
            total = np.zeros(rows)
            for i in range(widths.shape[1]):
                total = total + widths[:, i]
            running = np.zeros(rows)
            cdf = []
            for i in range(widths.shape[1]):
                running = running + widths[:, i] / total
                cdf.append(running)
            draw = np.tile(first[:, a], items)
            chosen = np.zeros(rows, dtype=np.int64)
            for column in cdf:
                chosen += column / running <= draw
            chosen = np.minimum(chosen, widths.shape[1] - 1)
            start, end = starts[every, chosen], ends[every, chosen]
            pivot = np.trunc(start + (end - start) * np.tile(second[:, a], items))
            pivots.reshape(rows, n)[:, a] = pivot
            low, high = pivot - spacing, pivot + spacing
            both_starts = np.stack([starts, np.broadcast_to(high[:, None], starts.shape)], 2)
            both_ends = np.stack([np.broadcast_to(low[:, None], ends.shape), ends], 2)
            both_valid = np.stack([valid & (starts < low[:, None]),
                                   valid & (ends > high[:, None])], 2)
            starts = both_starts.reshape(rows, -1)
            ends = both_ends.reshape(rows, -1)
            valid = both_valid.reshape(rows, -1)
            keep = max(int(valid.sum(axis=1).max()), 1)
            packed = np.argsort(~valid, axis=1, kind="stable")[:, :keep]
            starts = np.take_along_axis(starts, packed, 1)
            ends = np.take_along_axis(ends, packed, 1)
            valid = np.take_along_axis(valid, packed, 1)
    sources[:] = source[None, :, :]
    drawn = ok.reshape(items, count).all(axis=1)
    held = np.take_along_axis(sizes[:, None, :].repeat(count, 1), sources, 2).sum(axis=2)
    drawn &= (held > 0).all(axis=1)
    return sources, pivots, drawn
