"""Two set-valued types Potato stores packed, read as label sets and scored.

- ``hierarchical_multiselect`` stores ``{"selected_labels": "A,B,C"}`` (the widget's
  ``selected.join(',')``): the set of the comma-separated names.
- ``card_sort`` stores ``{<scheme>: "<JSON>"}``, the widget's
  ``{"Group": ["card", …], …}``: the set of ``"group␟card"`` placements, so two
  people agree when they put the same card in the same group (comparing group names
  would agree by construction: everyone sees the same groups). An answer that is not
  such an object is no answer, as in Potato.

An empty selection is no answer (Potato drops the annotator from the item). The
scheme's numbers are Potato's MULTILABEL block: ``mean_jaccard`` over every (pair,
shared item) and ``alpha_masi`` (Krippendorff's α with the MASI distance, Accord's
:func:`~app.core.agreement.categorical.alpha.set_metric`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.core.agreement.categorical.alpha import alpha, counts_from_codes, jaccard, set_metric
from app.core.agreement.categorical.units import code_rows
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.pairs import Entries, Rows, annotator_count, pair_item_mean
from app.core.agreement.continuous.reading import grouped

SEPARATOR = "\u241f"
Labels = frozenset[str]


def read_selected_labels(entries: Entries) -> Labels | None:
    raw: Any = grouped(entries).get("selected_labels")
    if raw is None:
        return None
    parts = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    labels = frozenset(str(p).strip() for p in parts if str(p).strip())
    return labels or None


def read_card_sort(scheme: str, entries: Entries) -> Labels | None:
    raw: Any = grouped(entries).get(scheme)
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    if not isinstance(raw, dict):
        return None
    placements = frozenset(f"{group}{SEPARATOR}{card}" for group, cards in raw.items()
                           if isinstance(cards, list | tuple) for card in cards)
    return placements or None


def read_packed_set(config: Mapping[str, Any], entries: Entries) -> Labels | None:
    kind = str(config.get("annotation_type") or "").strip().lower()
    if kind == "card_sort":
        return read_card_sort(str(config.get("name") or ""), entries)
    return read_selected_labels(entries)


def _jaccard(a: Labels, b: Labels) -> Coefficient:
    return Coefficient.of(jaccard(a, b))


def alpha_masi(rows: Rows[Labels]) -> Coefficient:
    if annotator_count(rows) < 2 or len(rows) < 2:
        return Coefficient.undefined(
            "α needs at least two items with sets from two or more annotators")
    units = code_rows([(item, item, by) for item, by in rows.items()])
    counts = counts_from_codes(units.codes, len(units.values))
    sets = [v for v in units.values if isinstance(v, frozenset)]
    return alpha(counts, set_metric(sets))


def multilabel_block(rows: Rows[Labels]) -> Block:
    return Block(
        metrics={"mean_jaccard": pair_item_mean(rows, _jaccard),
                 "alpha_masi": alpha_masi(rows)},
        counts={"n_items": len(rows), "n_annotators": annotator_count(rows)},
    )
