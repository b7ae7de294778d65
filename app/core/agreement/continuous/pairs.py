"""Gathering answers into items and averaging a pair metric, as Potato 2.12.1 does.

- ``gather``: per item, the annotators whose reader returned a value; items with fewer
  than two are dropped (Potato's gatherers, ``iaa/dispatcher.py``).
- ``pair_mean``: each annotator pair on the items it shares, pairs with fewer than two
  shared items skipped, pairs whose value is undefined left out, then the unweighted
  mean over pairs (``_pairwise_mean``). Pearson r, MAE, RMSE, weighted κ and ρ use it.
- ``pair_item_mean``: the mean over every (pair, shared item) (``_pairwise_rank_mean``),
  for rankings and per-item set similarities.
- ``pair_entries``: the per-pair numbers behind those means, for the report's ``pairs``
  (the overview's pair matrix). Where the spec is silent: a pair sharing one item is
  listed with every value ``null`` (Potato skips it; its reason says why), a pair
  sharing none is not listed; a ranking pair's value is the mean over its shared items
  with a defined value, so the scheme's number (over every (pair, item)) is not the mean
  of the pairs' numbers.

Annotators and shared items are visited in sorted order, as Potato does, so sums are
accumulated in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from typing import Any, TypeVar

from app.core.agreement.coefficient import Coefficient

T = TypeVar("T")
Rows = Mapping[str, Mapping[str, T]]
"""item id → annotator → value."""
Entries = Sequence[tuple[str, Any]]

NO_PAIR_WITH_TWO = ("no pair of annotators shares two or more items, so no pair can be "
                    "compared")
NO_SHARED = "no pair of annotators answered a common item"


def gather(entries_by_annotator: Mapping[str, Mapping[str, Entries]],
           read: Callable[[Entries], T | None]) -> dict[str, dict[str, T]]:
    """``annotator → item → entries`` read into ``item → annotator → value`` (≥ 2 each)."""
    rows: dict[str, dict[str, T]] = {}
    for annotator in sorted(entries_by_annotator):
        for item, entries in entries_by_annotator[annotator].items():
            value = read(entries)
            if value is not None:
                rows.setdefault(item, {})[annotator] = value
    return {item: by for item, by in rows.items() if len(by) >= 2}


def by_annotator(rows: Rows[T]) -> dict[str, dict[str, T]]:
    out: dict[str, dict[str, T]] = {}
    for item, by in rows.items():
        for annotator, value in by.items():
            out.setdefault(annotator, {})[item] = value
    return out


def _shared(seqs: Mapping[str, Mapping[str, T]], a: str, b: str) -> list[str]:
    return sorted(set(seqs[a]) & set(seqs[b]), key=str)


def pair_mean(rows: Rows[T], metric: Callable[[list[T], list[T]], Coefficient]
              ) -> Coefficient:
    """Mean of ``metric`` over annotator pairs, each on its ≥ 2 shared items."""
    seqs = by_annotator(rows)
    values: list[float] = []
    first_reason: str | None = None
    for a, b in combinations(sorted(seqs, key=str), 2):
        shared = _shared(seqs, a, b)
        if len(shared) < 2:
            continue
        result = metric([seqs[a][i] for i in shared], [seqs[b][i] for i in shared])
        if result.value is None:
            first_reason = first_reason or f"{a} and {b}: {result.reason}"
        else:
            values.append(result.value)
    if values:
        return Coefficient.of(sum(values) / len(values))
    if first_reason is not None:
        return Coefficient.undefined(f"no annotator pair has a defined value ({first_reason})")
    return Coefficient.undefined(NO_PAIR_WITH_TWO)


def pair_item_mean(rows: Rows[T], metric: Callable[[T, T], Coefficient]) -> Coefficient:
    """Mean of ``metric`` over every (annotator pair, shared item)."""
    seqs = by_annotator(rows)
    values: list[float] = []
    first_reason: str | None = None
    for a, b in combinations(sorted(seqs, key=str), 2):
        for item in _shared(seqs, a, b):
            result = metric(seqs[a][item], seqs[b][item])
            if result.value is None:
                first_reason = first_reason or f"{a} and {b} on {item}: {result.reason}"
            else:
                values.append(result.value)
    if values:
        return Coefficient.of(sum(values) / len(values))
    if first_reason is not None:
        return Coefficient.undefined(
            f"no (pair, item) has a defined value ({first_reason})")
    return Coefficient.undefined(NO_SHARED)


PairMetric = Callable[[Any, Any], Coefficient]
PairEntries = dict[str, dict[str, float | int | None]]
PairReasons = dict[str, dict[str, str]]


def pair_entries(rows: Rows[Any], metrics: Mapping[str, PairMetric], *, per_item: bool
                 ) -> tuple[PairEntries, PairReasons]:
    """Each annotator pair's value of each metric and its shared ``n_items``, keyed
    ``"a|b"``; the reasons of the ``None`` values, by pair then metric.

    ``per_item=False``: the metric on the pair's shared items' sequences (≥ 2 shared, as
    :func:`pair_mean`); ``True``: the mean of the metric over the shared items (as
    :func:`pair_item_mean`)."""
    seqs = by_annotator(rows)
    entries: PairEntries = {}
    reasons: PairReasons = {}
    for a, b in combinations(sorted(seqs, key=str), 2):
        shared = _shared(seqs, a, b)
        if not shared:
            continue
        key = "|".join(sorted((a, b)))
        entry: dict[str, float | int | None] = {}
        for name, metric in metrics.items():
            if per_item:
                value = _item_mean([metric(seqs[a][i], seqs[b][i]) for i in shared])
            elif len(shared) < 2:
                value = Coefficient.undefined(
                    "the pair shares one item; Potato compares a pair on two or more")
            else:
                value = metric([seqs[a][i] for i in shared], [seqs[b][i] for i in shared])
            entry[name] = value.value
            if value.value is None:
                reasons.setdefault(key, {})[name] = value.reason or "undefined"
        entry["n_items"] = len(shared)
        entries[key] = entry
    return entries, reasons


def _item_mean(values: list[Coefficient]) -> Coefficient:
    defined = [v.value for v in values if v.value is not None]
    if defined:
        return Coefficient.of(sum(defined) / len(defined))
    first = next((v.reason for v in values if v.reason), "undefined")
    return Coefficient.undefined(f"undefined on every item the pair shares ({first})")


def annotator_count(rows: Rows[Any]) -> int:
    return len({a for by in rows.values() for a in by})
