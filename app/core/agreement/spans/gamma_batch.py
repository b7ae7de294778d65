"""γ's best alignments of many items and all their chance samples at once, exactly.

Why: an item of 3 annotators × 20 spans is 31 continua (the item and 30 chance samples),
a project of 10,000 such items some 17 million units, and the issue asks for every span
metric, γ included, in under 10 s. Python per continuum (let alone per unit) is out of
reach; here a batch of items goes through a fixed number of numpy passes:

1. the chance draws of every item (:mod:`.gamma_draws`, the same draws as
   :func:`.gamma_chance.shuffle_draws`, which takes the items it cannot);
2. every continuum's units in one array: the item's own, then each sample's shifted
   copies (the same float operations as :func:`.gamma_chance.shuffle_samples`), sorted
   into position order (continuum, start);
3. the kept candidate tuples (:mod:`.gamma_tuples`, dominated ones dropped: the optimum
   is unchanged);
4. every segment's exact optimum (:mod:`.gamma_window`), summed per continuum and divided
   by its mean number of units per annotator; the item's own continuum also gets its
   chosen tuples, as :class:`.gamma_alignment.BestAlignment`.

Exactness: each continuum's disorder is the optimum of the same set-partition program as
:func:`.gamma_alignment.best_alignments` solves; only the order of the floating-point
additions differs (tested to 1e-12 against it, and the item's own disorder is re-summed
by ``math.fsum`` as there). Where two partitions tie exactly, the alignment reported may
be another one of equal disorder.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.core.agreement.spans.gamma_alignment import (
    EMPTY,
    AlignmentTooLargeError,
    BestAlignment,
    Units,
)
from app.core.agreement.spans.gamma_chance import shuffle_draws
from app.core.agreement.spans.gamma_draws import batch_draws
from app.core.agreement.spans.gamma_tuples import FlatUnits, TooManyPairsError, flat_tuples
from app.core.agreement.spans.gamma_window import solve

Aligned = tuple[np.ndarray, BestAlignment] | None
"""An item's chance disorders (one per sample) and its own best alignment, or None when
a segment was too wide for the search (the caller aligns that item on its own)."""


def _spacing_and_length(items: Sequence[tuple[Sequence[Units], float]], starts: np.ndarray,
                        ends: np.ndarray, sizes: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Each item's half mean unit length and its length widened to its last unit's end,
    as :func:`.gamma_chance.shuffle_draws` computes them (``np.mean``: a plain sum is the
    same where every length is a whole number, the usual case; else ``np.mean`` per item)."""
    per_item = sizes.sum(axis=1)
    item_of = np.repeat(np.arange(len(items)), per_item)
    widths = ends - starts
    last = np.full(len(items), -np.inf)
    np.maximum.at(last, item_of, ends)
    lengths = np.maximum(np.array([float(length) for _, length in items]), last)
    if np.array_equal(widths, np.floor(widths)) and float(np.abs(widths).sum()) < 2.0 ** 52:
        spacing = np.bincount(item_of, weights=widths, minlength=len(items)) / per_item / 2.0
    else:
        spacing = np.array([float(np.mean(np.concatenate([u.ends - u.starts for u in units])))
                            / 2.0 for units, _ in items])
    return spacing, lengths


Draws = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Items' chance draws: sources and pivots (items, samples, n) as
:func:`.gamma_chance.shuffle_draws` takes them, and each item's widened length."""


def chance_draws(items: Sequence[tuple[Sequence[Units], float]], seed: int,
                 n_samples: int) -> Draws:
    """The chance draws of items with the same number of annotators: by
    :mod:`.gamma_draws` for all of them at once (its numpy passes cost the same for 40
    items as for 10,000), by ``shuffle_draws`` for the items it leaves."""
    n = len(items[0][0])
    sizes = np.array([[len(u) for u in units] for units, _ in items], dtype=np.int64)
    starts = np.concatenate([u.starts for units, _ in items for u in units])
    ends = np.concatenate([u.ends for units, _ in items for u in units])
    spacing, lengths = _spacing_and_length(items, starts, ends, sizes)
    sources, pivots, drawn = batch_draws(sizes, lengths, spacing, seed, n_samples)
    for i in np.flatnonzero(~drawn).tolist():
        draws, _ = shuffle_draws(items[i][0], items[i][1], np.random.default_rng(seed),
                                 n_samples)
        sources[i] = np.array([s for s, _ in draws]).reshape(n_samples, n)
        pivots[i] = np.array([p for _, p in draws]).reshape(n_samples, n)
    return sources, pivots, lengths


def batch_alignments(items: Sequence[tuple[Sequence[Units], float]], seed: int,
                     n_samples: int, draws: Draws | None = None) -> list[Aligned]:
    """Each item's chance disorders and own best alignment (see the module text).

    ``items``: each item's cleaned units (one :class:`Units` per annotator, sorted by
    position, the same number n ≥ 2 of annotators in every item, at least one unit) and
    its text length; ``draws``: their :func:`chance_draws` when already taken. Raises
    :class:`.gamma_alignment.AlignmentTooLargeError` when the batch holds too many
    candidate pairs (the caller then goes item by item).
    """
    count = len(items)
    n = len(items[0][0])
    sources, pivots, lengths = draws or chance_draws(items, seed, n_samples)
    sizes = np.array([[len(u) for u in units] for units, _ in items], dtype=np.int64)
    own_starts = np.concatenate([u.starts for units, _ in items for u in units])
    own_ends = np.concatenate([u.ends for units, _ in items for u in units])
    own_labels = np.concatenate([u.labels for units, _ in items for u in units])
    # Groups: (item, continuum j = 0 own / 1 + sample, annotator), in that order; a
    # unit's facts are gathered from its group's (small arrays, in cache).
    span = n_samples + 1
    offsets = (np.cumsum(sizes.ravel()) - sizes.ravel()).reshape(count, n)
    g_source = np.concatenate([np.broadcast_to(np.arange(n), (count, 1, n)), sources],
                              1).ravel()
    g_item = np.repeat(np.arange(count), span * n)
    g_count = sizes[g_item, g_source]
    g_start = np.cumsum(g_count) - g_count
    g_own = np.tile(np.repeat(np.arange(span) == 0, n), count)
    g_move = np.concatenate([np.zeros((count, 1, n)), pivots], 1).ravel()
    # An own unit is never moved: 0 + its start never passes +∞ (shift 0.0).
    g_limit = np.where(g_own, np.inf, lengths[g_item])
    group = np.repeat(np.arange(len(g_count)), g_count)
    if not len(group):  # pragma: no cover - every item holds a unit
        raise ValueError("the batch holds no unit")
    index = np.arange(len(group)) + (offsets[g_item, g_source] - g_start)[group]
    starts, ends = own_starts[index], own_ends[index]
    move, limit = g_move[group], g_limit[group]
    with np.errstate(invalid="ignore"):
        shift = np.where(starts + move > limit, move - limit, move)
    starts += shift
    ends += shift
    g_continuum = np.arange(len(g_count)) // n
    units_per = np.bincount(g_continuum, weights=g_count, minlength=count * span)
    low = float(starts.min())
    widest = float((ends - starts).max())
    bound = n * (n - 1) / 2 + n - 1
    width = float(ends.max()) - low + 4 * math.sqrt(bound) * widest + 1.0
    keys = (g_continuum * width - low)[group] + starts
    order = np.argsort(keys, kind="stable")
    group = group[order]
    flat = FlatUnits(starts[order], ends[order], own_labels[index[order]],
                     np.tile(np.arange(n), count * span)[group], g_continuum[group],
                     keys[order])
    wanted = g_own[group]
    within = order - g_start[group]  # each unit's index among its annotator's own units
    try:
        tuples = flat_tuples(flat, n, width)
    except TooManyPairsError:
        raise AlignmentTooLargeError(items[0][0], "needs too many candidate pairs in a batch"
                                     ) from None
    result = solve(len(order), tuples, wanted)
    seg_continuum = flat.continuum[result.segment_start]
    totals = np.bincount(seg_continuum, weights=result.value, minlength=count * span)
    solved = np.bincount(seg_continuum, weights=~result.solved, minlength=count * span) == 0
    disorders = (totals / (units_per / n)).reshape(count, span)
    ok = solved.reshape(count, span).all(axis=1)
    alignments = _own_alignments(items, flat, within, tuples.members, tuples.costs,
                                 result.chosen, wanted, span, n)
    return [(disorders[i, 1:], alignments[i]) if ok[i] else None for i in range(count)]


def _own_alignments(items: Sequence[tuple[Sequence[Units], float]], flat: FlatUnits,
                    within: np.ndarray, members: np.ndarray, costs: np.ndarray,
                    chosen: np.ndarray, wanted: np.ndarray, span: int,
                    n: int) -> list[BestAlignment]:
    """The items' own best alignments: the chosen tuples of two or more units, and every
    other unit of the own continuum alone."""
    picked = chosen[chosen < len(costs)]
    rows_members = members[picked]
    held = np.zeros(len(flat.starts), dtype=bool)
    held[rows_members[rows_members >= 0]] = True
    alone = np.flatnonzero(wanted & ~held)
    rows = np.full((len(picked) + len(alone), n), EMPTY, dtype=np.int64)
    where = np.nonzero(rows_members >= 0)
    unit = rows_members[where]
    rows[where[0], flat.annotator[unit]] = within[unit]
    rows[len(picked) + np.arange(len(alone)), flat.annotator[alone]] = within[alone]
    row_costs = np.concatenate([costs[picked], np.ones(len(alone))])
    first = np.concatenate([rows_members[:, 0], alone])  # a tuple's first unit by position
    row_item = flat.continuum[first] // span
    # Ordered as :func:`.gamma_alignment._finish` orders them: by the first unit's start.
    order = np.lexsort((np.arange(len(first)), flat.starts[first], row_item))
    edges = np.searchsorted(row_item[order], np.arange(len(items) + 1)).tolist()
    rows, row_costs = rows[order], row_costs[order]
    return [BestAlignment(math.fsum(row_costs[edges[i]: edges[i + 1]].tolist())
                          / (sum(len(u) for u in units) / n), rows[edges[i]: edges[i + 1]])
            for i, (units, _) in enumerate(items)]
