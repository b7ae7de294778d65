"""Every span of one scheme as columns, so each metric scores all items at once.

Why columns: a lead's NER study is 10,000 documents × 3 annotators × 20 spans, and the
per-item Python loops of Potato's ``iaa/span.py`` take minutes there. Here an item's
*members* are the annotators who count on it (they marked spans, or saved the item and
marked nothing: an empty member); every span knows its member, every member its item.

Layout (all numpy, ``int64`` unless said):

- items ``0..n_items-1``: ``item_ids``, ``lengths`` (the character axis L of each item);
  ``member_offsets`` (CSR): item ``i``'s members are ``member_offsets[i]:member_offsets[i+1]``;
- members: ``member_item``, ``member_annotator`` (index into ``annotators``), in item
  order, annotators sorted by name inside an item; ``span_offsets`` (CSR) the same for spans;
- spans: ``start``, ``end`` (end-exclusive character offsets as stored, never clipped),
  ``label`` (index into ``labels``), in each member's stored order (the order matters:
  Potato's longest-first BIO keeps the first of two equally long overlapping spans).

Only items with at least two members, a positive L and at least one span are kept (Potato's
gathering, ``kinds.md`` B §2.6); :func:`build_table` says how many were left out and why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from app.core.slices import array_in_slices, let_others_run

RawSpan = tuple[int, int, str]
"""(start, end, label): end-exclusive character offsets and the span's label name."""


@dataclass(frozen=True)
class SpanTable:
    item_ids: tuple[str, ...]
    lengths: np.ndarray
    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    member_offsets: np.ndarray
    member_item: np.ndarray
    member_annotator: np.ndarray
    span_offsets: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    left_out: dict[str, int] = field(default_factory=dict)
    """Items not scored, by reason: ``one_annotator``, ``no_text``, ``nothing_marked``."""

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_members(self) -> int:
        return len(self.member_item)

    @property
    def members_per_item(self) -> np.ndarray:
        return np.diff(self.member_offsets)

    @property
    def spans_per_member(self) -> np.ndarray:
        return np.diff(self.span_offsets)

    @property
    def span_member(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_members, dtype=np.int64), self.spans_per_member)

    def spans_of(self, item: int) -> dict[str, list[RawSpan]]:
        """One item's spans per annotator, as Python tuples (tests and the view)."""
        out: dict[str, list[RawSpan]] = {}
        for m in range(int(self.member_offsets[item]), int(self.member_offsets[item + 1])):
            lo, hi = int(self.span_offsets[m]), int(self.span_offsets[m + 1])
            out[self.annotators[int(self.member_annotator[m])]] = [
                (int(self.start[k]), int(self.end[k]), self.labels[int(self.label[k])])
                for k in range(lo, hi)]
        return out


def build_table(answers: Mapping[str, Mapping[str, Sequence[RawSpan]]],
                lengths: Mapping[str, int],
                annotators: Iterable[str] | None = None) -> SpanTable:
    """The table of ``answers`` (item → annotator → spans; an empty list is an annotator
    who saved the item and marked nothing), restricted to ``annotators`` when given (a
    partition: people only, machines only)."""
    keep = None if annotators is None else frozenset(annotators)
    left_out = {"one_annotator": 0, "no_text": 0, "nothing_marked": 0}
    chosen: list[tuple[str, list[tuple[str, Sequence[RawSpan]]]]] = []
    for item_id in sorted(answers):
        by = answers[item_id]
        members = [(a, by[a]) for a in sorted(by) if keep is None or a in keep]
        if not any(spans for _, spans in members):
            if members:
                left_out["nothing_marked"] += 1
            continue
        if len(members) < 2:
            left_out["one_annotator"] += 1
            continue
        if lengths.get(item_id, 0) <= 0:
            left_out["no_text"] += 1
            continue
        chosen.append((item_id, members))
    names = sorted({a for _, members in chosen for a, _ in members})
    annotator_index = {a: k for k, a in enumerate(names)}
    label_index: dict[str, int] = {}
    member_counts, member_annotator, span_counts = [], [], []
    starts: list[int] = []
    ends: list[int] = []
    labels: list[int] = []
    for _, members in chosen:
        member_counts.append(len(members))
        for a, spans in members:
            member_annotator.append(annotator_index[a])
            span_counts.append(len(spans))
            for s, e, name in spans:
                starts.append(s)
                ends.append(e)
                labels.append(label_index.setdefault(name, len(label_index)))
    per_item = np.asarray(member_counts, dtype=np.int64)
    item_ids = tuple(i for i, _ in chosen)
    item_lengths = np.asarray([lengths[i] for i, _ in chosen], dtype=np.int64)
    # In slices: one np.asarray of 600,000 ints holds the lock 22 ms (bench_gui_stall).
    start, end, label = (array_in_slices(c, np.int64, len(c)) for c in (starts, ends, labels))
    for big in (starts, ends, labels, chosen):  # emptied one by one: freed together at the
        big.clear()  # return, the lists held the lock 11 ms (3-5 ms each)
        let_others_run()
    return SpanTable(
        item_ids=item_ids,
        lengths=item_lengths,
        annotators=tuple(names),
        labels=tuple(label_index),
        member_offsets=_offsets(per_item),
        member_item=np.repeat(np.arange(len(item_ids), dtype=np.int64), per_item),
        member_annotator=np.asarray(member_annotator, dtype=np.int64),
        span_offsets=_offsets(np.asarray(span_counts, dtype=np.int64)),
        start=start,
        end=end,
        label=label,
        left_out={k: v for k, v in left_out.items() if v},
    )


def _offsets(counts: np.ndarray) -> np.ndarray:
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def segment_ids(counts: np.ndarray) -> np.ndarray:
    """``[0]*counts[0] + [1]*counts[1] + …`` (which segment each element is in)."""
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts)


def ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The concatenation of ``arange(s, s + c)`` for every (s, c), without a Python loop."""
    counts = np.maximum(counts, 0)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    seg = segment_ids(counts)
    first = _offsets(counts)[:-1]
    out: np.ndarray = starts[seg] + (np.arange(total, dtype=np.int64) - first[seg])
    return out


def pair_index(m: np.ndarray | int, a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
    """Index of the member pair (a, b), a < b, among ``itertools.combinations(range(m), 2)``."""
    m_, a_, b_ = np.asarray(m), np.asarray(a), np.asarray(b)
    return np.asarray(a_ * (2 * m_ - a_ - 1) // 2 + (b_ - a_ - 1), dtype=np.int64)


def pair_members(table: SpanTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every member pair of every item in combinations order: (item, member a, member b)."""
    m = table.members_per_item
    n_pairs = m * (m - 1) // 2
    items = segment_ids(n_pairs)
    local = np.arange(int(n_pairs.sum()), dtype=np.int64) - _offsets(n_pairs)[:-1][items]
    a = np.zeros_like(local)
    b = np.zeros_like(local)
    # invert pair_index per item size (sizes are few: one pass per distinct size)
    for size in np.unique(m):
        which = m[items] == size
        aa, bb = np.triu_indices(int(size), k=1)
        a[which] = aa[local[which]]
        b[which] = bb[local[which]]
    base = table.member_offsets[:-1][items]
    return items, base + a, base + b
