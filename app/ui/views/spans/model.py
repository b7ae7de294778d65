"""What the spans view draws for one item, from the report's own objects (no Qt).

The span kind's scoring keeps, per scheme (``SpanDetails``), the
:class:`~app.core.agreement.spans.table.SpanTable` (every scored item's spans per
annotator), the per-item metrics
(:class:`~app.core.agreement.spans.metrics.SpanMetrics`) and each item's γ with its best
alignment (:class:`~app.core.agreement.spans.gamma.ItemGamma`). This module only reads
them; nothing is computed again on the GUI thread but the marks below, one pass over the
item's alignment.

Where the spec is silent: a span is marked from γ's best alignment (the one alignment of
all annotators that γ is computed on, as pygamma-agreement aligns them):

- **matched**: its unitary alignment holds another annotator's span with the same label;
- **label mismatch**: it is aligned with other annotators' spans, none with its label;
- **unmatched**: it is aligned with nobody (its unitary alignment is itself and empty
  units), or γ dropped it (an empty span, end ≤ start).

A span one annotator stored twice is marked like its first copy (γ keeps one of the two).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

MATCHED = "matched"
LABEL_MISMATCH = "label mismatch"
UNMATCHED = "unmatched"
STATUSES = (MATCHED, LABEL_MISMATCH, UNMATCHED)


@dataclass(frozen=True, slots=True)
class MarkedSpan:
    start: int
    end: int
    label: str
    status: str


@dataclass(frozen=True, slots=True)
class ItemSpans:
    """One item as the view draws it: the text, one lane per annotator, the numbers."""

    item: str
    text: str
    lanes: dict[str, list[MarkedSpan]]
    values: dict[str, float | None]
    gamma_reason: str | None


def mark(spans: dict[str, list[tuple[int, int, str]]],
         alignment: tuple[tuple[int | None, ...], ...]) -> dict[str, list[MarkedSpan]]:
    """Each annotator's spans (in ``spans`` order) with their status; ``alignment`` rows
    hold, per annotator in sorted-name order, the index of a span in ``spans[name]``."""
    names = sorted(spans, key=str)
    status: dict[tuple[str, int], str] = {}
    for row in alignment:
        members = [(names[a], k) for a, k in enumerate(row)
                   if k is not None and a < len(names) and k < len(spans[names[a]])]
        for name, k in members:
            label = spans[name][k][2]
            others = [spans[n][j][2] for n, j in members if n != name]
            status[(name, k)] = (UNMATCHED if not others else
                                 MATCHED if label in others else LABEL_MISMATCH)
    out: dict[str, list[MarkedSpan]] = {}
    for name in names:
        first: dict[tuple[int, int, str], int] = {}
        marked = []
        for k, (start, end, label) in enumerate(spans[name]):
            twin = first.setdefault((start, end, label), k)
            marked.append(MarkedSpan(start, end, label,
                                     status.get((name, k), status.get((name, twin),
                                                                      UNMATCHED))))
        out[name] = marked
    return out


def item_spans(details: Any, item: str, text: str) -> ItemSpans | None:
    """The item as drawn, from a span scheme's ``SchemeResult.details``; ``None`` when the
    scheme did not score ``item`` (nobody marked a span, one annotator, no text)."""
    table, metrics, gammas = _parts(details)
    if table is None or metrics is None or item not in table.item_ids:
        return None
    index = table.item_ids.index(item)
    spans = table.spans_of(index)
    gamma = gammas[index] if gammas is not None and index < len(gammas) else None
    alignment = gamma.alignment if gamma is not None else ()
    values = dict(metrics.item_values(item))
    values["gamma_mathet"] = gamma.gamma if gamma is not None else None
    return ItemSpans(item=item, text=text, lanes=mark(spans, alignment), values=values,
                     gamma_reason=gamma.reason if gamma is not None else "γ was not computed")


def items_by_disagreement(details: Any) -> list[tuple[str, float | None]]:
    """Scored items, most disagreement first, each with its partial F1: the order of
    ``SpanMetrics.items_by_disagreement`` (1 − partial F1, then 1 − exact F1, then id),
    taken by one ``numpy.lexsort`` (the Python sort took 60 ms of the GUI thread at
    10,000 documents)."""
    metrics = _parts(details)[1]
    if metrics is None:
        return []
    ids = metrics.item_ids
    partial = np.asarray(metrics.per_item["span_f1_partial"], dtype=float)
    exact = np.asarray(metrics.per_item["span_f1_exact"], dtype=float)
    id_rank = np.empty(len(ids), dtype=np.int64)
    id_rank[np.argsort(np.asarray(ids, dtype=str), kind="stable")] = np.arange(len(ids))
    order = np.lexsort((id_rank, exact, partial)).tolist()
    values = partial[order].tolist()
    return [(ids[i], None if math.isnan(v) else v) for i, v in zip(order, values, strict=True)]


def _parts(details: Any) -> tuple[Any, Any, Any]:
    """(table, metrics, per-item γ) of a span scheme's details (``SpanDetails``), or
    ``None`` each for anything else."""
    return (getattr(details, "table", None), getattr(details, "metrics", None),
            getattr(details, "gamma", None))
