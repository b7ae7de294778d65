"""Each member's characters tagged B-X, I-X or O, for every member of a table at once.

The rule is Potato 2.12.1's (``iaa/span.py`` ``spans_to_bio``, ``kinds.md`` B §2.6): one
tag per character of the item's text; a member's spans are painted longest first (stable:
of two equally long spans the one stored first); offsets are clipped to ``[0, L)``; a span
whose first character is already tagged is skipped whole, and a span that starts on an
untagged character tags only the untagged characters it covers. B- and I- are distinct tags.

Codes (``int16`` when the labels fit, else ``int32``): 0 is O; label ``l`` is ``2l + 1``
for B- and ``2l + 2`` for I-; :func:`base_codes` maps both to ``l + 1`` (the span's label
without its position, what ``char_alpha`` compares).

Why vectorised by rank: painting is sequential inside a member (the longest span decides
what the next may tag) but independent between members, so step ``r`` paints the ``r``-th
longest span of every member together; a study's step count is its largest number of spans
one annotator marked on one item.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.agreement.spans.table import SpanTable, ranges, segment_ids

CHUNK_CHARS = 500_000
"""Characters counted at once: the indices of a 10,000-document study's 17 million
characters would be another 270 MB. Half a million, not more: numpy's ``repeat`` and
fancy indexing hold the interpreter lock for a whole chunk, and 4 million characters
held it 76-87 ms, stalling the GUI (bench_gui_stall.py); the metrics take as long."""


@dataclass(frozen=True)
class CharTags:
    """``codes[row_start[m] + p]`` is member ``m``'s tag on character ``p`` of its item."""

    codes: np.ndarray
    row_start: np.ndarray
    n_codes: int


def char_tags(table: SpanTable) -> CharTags:
    n_codes = 2 * len(table.labels) + 1
    dtype = np.int16 if n_codes < np.iinfo(np.int16).max else np.int32
    row_len = table.lengths[table.member_item]
    row_start = np.zeros(table.n_members + 1, dtype=np.int64)
    np.cumsum(row_len, out=row_start[1:])
    codes = np.zeros(int(row_start[-1]), dtype=dtype)
    if len(table.start):
        _paint(table, codes, row_start)
    return CharTags(codes, row_start[:-1], n_codes)


def _paint(table: SpanTable, codes: np.ndarray, row_start: np.ndarray) -> None:
    member = table.span_member
    raw_len = table.end - table.start
    order = np.lexsort((np.arange(len(member)), -raw_len, member))  # longest first, stable
    per_member = table.spans_per_member
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - table.span_offsets[:-1][member[order]]
    length = table.lengths[table.member_item][member]
    start = np.clip(table.start, 0, None)
    end = np.minimum(table.end, length)
    by_rank = np.argsort(rank, kind="stable")
    bounds = np.searchsorted(rank[by_rank], np.arange(int(per_member.max()) + 1))
    for r in range(len(bounds) - 1):
        for k in _by_chars(by_rank[bounds[r]:bounds[r + 1]], end - start):
            _paint_step(table, codes, row_start, member, start, end, k)


def _by_chars(k: np.ndarray, sizes: np.ndarray) -> list[np.ndarray]:
    """``k`` in consecutive pieces of about :data:`CHUNK_CHARS` characters (``sizes[k]``).

    Why: a step's spans are all in different members' rows, so painting them piece by
    piece gives the same codes; in one piece, the first step's ``ranges`` and ``repeat``
    over the 10,000-document study's 1.5 million characters held the lock 15-31 ms."""
    total = np.cumsum(np.maximum(sizes[k], 0))
    if not len(total) or int(total[-1]) <= CHUNK_CHARS:
        return [k]
    cuts = np.searchsorted(total, np.arange(CHUNK_CHARS, int(total[-1]), CHUNK_CHARS),
                           side="right")
    return np.split(k, cuts)


def _paint_step(table: SpanTable, codes: np.ndarray, row_start: np.ndarray,
                member: np.ndarray, start: np.ndarray, end: np.ndarray, k: np.ndarray
                ) -> None:
    """Paint spans ``k`` (at most one per member), each where its first character is O."""
    k = k[end[k] > start[k]]
    first = row_start[member[k]] + start[k]
    k, first = k[codes[first] == 0], first[codes[first] == 0]
    if not len(k):
        return
    code = 2 * table.label[k] + 1
    codes[first] = code
    inside = end[k] - start[k] - 1
    where = ranges(first + 1, inside)
    tag = np.repeat(code + 1, inside)
    free = codes[where] == 0
    codes[where[free]] = tag[free]


def base_codes(codes: np.ndarray) -> np.ndarray:
    """A tag's label without B-/I- (0 for O, ``l + 1`` for label ``l``)."""
    return (codes + 1) // 2


def member_code_counts(tags: CharTags, table: SpanTable, codes: np.ndarray | None = None,
                       n_codes: int | None = None) -> np.ndarray:
    """``counts[m, c]``: how many of member ``m``'s characters carry code ``c``."""
    codes = tags.codes if codes is None else codes
    k = tags.n_codes if n_codes is None else n_codes
    row_len = table.lengths[table.member_item]
    out = np.zeros((table.n_members, k), dtype=np.int64)
    ends = np.cumsum(row_len)
    lo = 0
    while lo < table.n_members:  # members in chunks of about CHUNK_CHARS characters
        base = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + CHUNK_CHARS, side="right")))
        flat = segment_ids(row_len[lo:hi]) * k + codes[base:int(ends[hi - 1])]
        out[lo:hi] = np.bincount(flat, minlength=(hi - lo) * k).reshape(hi - lo, k)
        lo = hi
    return out
