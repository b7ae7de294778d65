"""Exact and partial span F1 for every member pair of every item at once.

Potato 2.12.1's rules (``iaa/span.py`` ``span_f1_exact``, ``span_f1_partial``,
``pairwise_span_f1``; ``kinds.md`` B §2.6), on the offsets as stored (never clipped):

- **exact**: a pair's spans are *sets* of (start, end, label) (a span stored twice counts
  once); TP = |A ∩ B|, P = TP/|A|, R = TP/|B| (0 for an empty side), F1 = 2PR/(P + R) or 0.
- **partial**: the spans are *lists* (duplicates count); a and b are eligible when they
  carry the same label, both have positive length and they overlap by at least half of
  a's length or of b's; TP = the size of a maximum one-to-one matching of eligible pairs.
- both members empty: F1 = 1.0 (Potato's number; :func:`both_empty` counts such pairs,
  ``kinds.md`` A.5). An item's F1 is the mean over its member pairs.

Why a global matching: every item's pairs form their own bipartite graph, so one
Hopcroft–Karp run (``scipy.sparse.csgraph.maximum_bipartite_matching``) over all of them
side by side is the sum of the per-pair maximum matchings, in C, with no per-pair loop.
Eligible pairs come from a sorted sweep: within an item and label, ordered by start, the
spans a span can overlap are a contiguous run after it (those starting before it ends).
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.spans.table import SpanTable, pair_index, pair_members, ranges

THRESHOLD = 0.5


def both_empty(table: SpanTable) -> np.ndarray:
    """Per item, how many of its member pairs had no span on either side."""
    empty = np.bincount(table.member_item[table.spans_per_member == 0],
                        minlength=table.n_items)
    return np.asarray(empty * (empty - 1) // 2, dtype=np.int64)


def _f1(tp: np.ndarray, size_a: np.ndarray, size_b: np.ndarray) -> np.ndarray:
    tp = tp.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(size_a > 0, tp / size_a, 0.0)
        r = np.where(size_b > 0, tp / size_b, 0.0)
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    return np.where((size_a == 0) & (size_b == 0), 1.0, f1)


def _item_mean(table: SpanTable, pair_item: np.ndarray, values: np.ndarray) -> np.ndarray:
    m = table.members_per_item
    total = np.bincount(pair_item, weights=values, minlength=table.n_items)
    out: np.ndarray = total / (m * (m - 1) // 2)
    return out


def _pair_of(table: SpanTable, ma: np.ndarray, mb: np.ndarray) -> np.ndarray:
    """Global pair number of members ma < mb of one item."""
    item = table.member_item[ma]
    m = table.members_per_item[item]
    first = table.member_offsets[item]
    pair_start = np.zeros(table.n_items + 1, dtype=np.int64)
    np.cumsum(table.members_per_item * (table.members_per_item - 1) // 2, out=pair_start[1:])
    local = pair_index(m, ma - first, mb - first)
    return np.asarray(pair_start[item] + local, dtype=np.int64)


def exact_f1(table: SpanTable) -> tuple[np.ndarray, np.ndarray]:
    """(per item F1, per pair F1 in combinations order)."""
    pair_item, pa, pb = pair_members(table)
    member = table.span_member
    keys = np.stack([member, table.start, table.end, table.label], axis=1)
    # rows sorted by (item, start, end, label, member): equal spans of one item adjacent,
    # and a member's copies of one span equal in every key, so adjacent too: dropping a
    # row equal to the one before it leaves each member's *set* of spans (Potato's exact
    # rule). One lexsort of the columns instead of np.unique(axis=0), which sorts the
    # rows as a structured view and held the interpreter lock 0.2-0.34 s on a
    # 600,000-span study (bench_gui_stall.py).
    item_of = table.member_item[member]
    order = np.lexsort((keys[:, 0], keys[:, 3], keys[:, 2], keys[:, 1], item_of))
    ordered, ordered_item = keys[order], item_of[order]
    keep = np.ones(len(ordered), dtype=bool)
    keep[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    u, it = ordered[keep], ordered_item[keep]
    size = np.bincount(u[:, 0], minlength=table.n_members)
    tp = np.zeros(len(pair_item), dtype=np.int64)
    for d in range(1, int(table.members_per_item.max(initial=2))):
        if d >= len(u):
            break
        same = ((it[d:] == it[:-d]) & (u[d:, 1] == u[:-d, 1]) & (u[d:, 2] == u[:-d, 2])
                & (u[d:, 3] == u[:-d, 3]))
        if not same.any():
            break
        np.add.at(tp, _pair_of(table, u[:-d, 0][same], u[d:, 0][same]), 1)
    f1 = _f1(tp, size[pa], size[pb])
    return _item_mean(table, pair_item, f1), f1


def partial_f1(table: SpanTable, threshold: float = THRESHOLD
               ) -> tuple[np.ndarray, np.ndarray]:
    """(per item F1, per pair F1 in combinations order)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    pair_item, pa, pb = pair_members(table)
    size = table.spans_per_member
    member = table.span_member
    item = table.member_item[member]
    x, y = _overlapping(item, table.label, table.start, table.end)
    mx, my = member[x], member[y]
    keep = mx != my
    x, y, mx, my = x[keep], y[keep], mx[keep], my[keep]
    swap = mx > my
    x, y = np.where(swap, y, x), np.where(swap, x, y)
    ov = (np.minimum(table.end[x], table.end[y])
          - np.maximum(table.start[x], table.start[y])).astype(np.float64)
    la = (table.end[x] - table.start[x]).astype(np.float64)
    lb = (table.end[y] - table.start[y]).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = ((ov > 0) & (la > 0) & (lb > 0)
              & ((ov / la >= threshold) | (ov / lb >= threshold)))
    x, y = x[ok], y[ok]
    tp = np.zeros(len(pair_item), dtype=np.int64)
    if len(x):
        pair = _pair_of(table, member[x], member[y])
        rows, row_of = np.unique(pair * len(member) + x, return_inverse=True)
        cols, col_of = np.unique(pair * len(member) + y, return_inverse=True)
        graph = csr_matrix((np.ones(len(x), dtype=np.int8), (row_of, col_of)),
                           shape=(len(rows), len(cols)))
        match = maximum_bipartite_matching(graph, perm_type="column")
        matched = rows[match >= 0] // len(member)
        tp = np.bincount(matched, minlength=len(pair_item))
    f1 = _f1(tp, size[pa], size[pb])
    return _item_mean(table, pair_item, f1), f1


def _overlapping(item: np.ndarray, label: np.ndarray, start: np.ndarray, end: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (x, y), x before y in (item, label, start) order, of one item and label
    with y starting before x ends (the candidates for an overlap)."""
    if not len(start):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(len(start)), start, label, item))
    group = np.zeros(len(order), dtype=np.int64)
    g_key = np.stack([item[order], label[order]], axis=1)
    group[1:] = np.cumsum(np.any(g_key[1:] != g_key[:-1], axis=1))
    # offsets as dense ranks (order kept, so "starts before it ends" is kept), so that
    # group * shift + offset fits in int64 whatever offsets a file holds
    _, ranked = np.unique(np.concatenate([start, end]), return_inverse=True)
    r_start, r_end = ranked[:len(start)], ranked[len(start):]
    shift = 2 * len(start) + 1
    key = group * shift + r_start[order]
    hi = np.searchsorted(key, group * shift + r_end[order], side="left")
    k = np.arange(len(order), dtype=np.int64)
    count = np.maximum(hi - k - 1, 0)
    later = ranges(k + 1, count)
    first = np.repeat(k, count)
    return order[first], order[later]
