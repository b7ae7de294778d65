"""Every span metric of one scheme: per item, then the unweighted mean over items.

Names are Potato 2.12.1's (``iaa/dispatcher.py`` ``_aggregate_span``) except
``char_alpha``, which Potato calls ``krippendorff_alpha_u`` (``kinds.md`` A.2): the value
is Potato's, the name says what it is. An item whose value is undefined is left out of
that metric's mean (Potato drops NaN items) and counted; a metric undefined on every item,
or on a scheme with no item, is ``None`` with a sentence saying why, never NaN or 1.0.

Where the spec is silent:

- Pairs of annotators who both marked nothing on an item score F1 = 1.0, as Potato
  (``kinds.md`` A.5); they are counted (``n_pairs_both_empty``) and a note gives the count.
- An item's *disagreement* (the view's sort order) is 1 − its partial F1, ties broken by
  1 − exact F1, then by item id: partial F1 is the number a lead reads first, and every
  item has it (F1 is never undefined on a scored item).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.core.agreement.spans.char_tags import char_tags
from app.core.agreement.spans.f1 import both_empty, exact_f1, partial_f1
from app.core.agreement.spans.kappa import char_alpha, pair_agreement, token_kappa
from app.core.agreement.spans.table import SpanTable, pair_members

METRICS = ("token_level_kappa", "span_f1_exact", "span_f1_partial", "char_alpha")
"""The metric names in the report (γ, ``gamma_mathet``, is added by ``gamma*.py``)."""

POTATO_NAMES = {"char_alpha": "krippendorff_alpha_u"}

CHAR_ALPHA_NOTE = ("char_alpha is Potato's krippendorff_alpha_u: Krippendorff's nominal α "
                   "over characters (each character labelled with its span's label or O), "
                   "not Krippendorff's unitizing α; a boundary moved by one character "
                   "costs one character.")
POTATO_IAA_NOTE = ("Potato 2.12.1's /admin/iaa reports null for every span metric: its "
                   "gathering looks the scheme up by name where spans are keyed by span, "
                   "so it never finds them. Accord computes Potato's span formulas on the "
                   "spans as stored.")

_UNDEFINED_ALL = {
    "token_level_kappa": "on every item each annotator gave every character the same one "
                         "tag, so chance agreement is 1 and κ is 0/0",
    "char_alpha": "on every item every character carries one label from every annotator "
                  "(or the item's text is one character), so there is no expected "
                  "disagreement and α is 0/0",
}


@dataclass(frozen=True)
class SpanMetrics:
    """One scheme's span agreement: values, per-item values and the sentences."""

    values: dict[str, float | None]
    undefined: dict[str, str]
    item_ids: tuple[str, ...]
    per_item: dict[str, np.ndarray]
    n_items: int
    n_annotators: int
    n_pairs: int
    n_pairs_both_empty: int
    n_items_undefined: dict[str, int]
    left_out: dict[str, int]
    notes: list[str] = field(default_factory=list)
    pairs: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    """Per annotator pair ``"a|b"`` (names sorted): mean exact and partial F1 over the
    items both count on, and ``n_items``."""
    pair_values: dict[str, np.ndarray] = field(default_factory=dict)
    """Every (item, member pair) in combinations order: ``item``, annotators ``a`` and
    ``b`` (indices into the table's), their span counts ``n_a``, ``n_b``, and the pair's
    ``span_f1_exact`` and ``span_f1_partial`` (the items view's rows)."""

    def items_by_disagreement(self) -> list[str]:
        """Item ids, most disagreement first (1 − partial F1, then 1 − exact F1, then id)."""
        partial = self.per_item["span_f1_partial"]
        exact = self.per_item["span_f1_exact"]
        order = sorted(range(self.n_items),
                       key=lambda i: (partial[i], exact[i], self.item_ids[i]))
        return [self.item_ids[i] for i in order]

    def item_values(self, item_id: str) -> dict[str, float | None]:
        i = self.item_ids.index(item_id)
        return {name: _number(values[i]) for name, values in self.per_item.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "metrics": dict(self.values),
            "undefined": dict(self.undefined),
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "n_pairs": self.n_pairs,
            "n_pairs_both_empty": self.n_pairs_both_empty,
            "n_items_undefined": dict(self.n_items_undefined),
            "n_items_left_out": dict(self.left_out),
            "notes": list(self.notes),
        }


def span_metrics(table: SpanTable) -> SpanMetrics:
    """Token κ, exact and partial span F1 and char_alpha of every item of ``table``."""
    per_item: dict[str, np.ndarray]
    pairs: dict[str, dict[str, float | int | None]] = {}
    pair_values: dict[str, np.ndarray] = {}
    if table.n_items:
        tags = char_tags(table)
        agree = pair_agreement(table, tags)
        exact, exact_pairs = exact_f1(table)
        partial, partial_pairs = partial_f1(table)
        per_item = {
            "token_level_kappa": token_kappa(table, tags, agree),
            "span_f1_exact": exact,
            "span_f1_partial": partial,
            "char_alpha": char_alpha(table, tags, agree),
        }
        empty_pairs = int(both_empty(table).sum())
        pairs = _annotator_pairs(table, {"span_f1_exact": exact_pairs,
                                         "span_f1_partial": partial_pairs})
        pair_item, ma, mb = pair_members(table)
        size = table.spans_per_member
        pair_values = {"item": pair_item, "a": table.member_annotator[ma],
                       "b": table.member_annotator[mb], "n_a": size[ma], "n_b": size[mb],
                       "span_f1_exact": exact_pairs, "span_f1_partial": partial_pairs}
    else:
        per_item = {name: np.zeros(0) for name in METRICS}
        empty_pairs = 0
    m = table.members_per_item
    values: dict[str, float | None] = {}
    undefined: dict[str, str] = {}
    n_undefined: dict[str, int] = {}
    for name in METRICS:
        v = per_item[name]
        ok = ~np.isnan(v)
        if ok.any():
            values[name] = float(v[ok].mean())
        else:
            values[name] = None
            undefined[name] = (_no_items(table) if not table.n_items
                               else _UNDEFINED_ALL.get(name, "no item has a value"))
        if table.n_items and not ok.all():
            n_undefined[name] = int((~ok).sum())
    notes = [CHAR_ALPHA_NOTE]
    if empty_pairs:
        notes.append(f"{empty_pairs} pairs of annotators marked nothing on an item both; "
                     "Potato scores such a pair's span F1 as 1.0 and so does Accord.")
    for name, n in n_undefined.items():
        if values[name] is not None:
            notes.append(f"{name} is undefined on {n} of {table.n_items} items (left out "
                         f"of the mean): {_UNDEFINED_ALL.get(name, '')}.")
    for reason, n in table.left_out.items():
        notes.append(f"{n} items not scored: {_LEFT_OUT[reason]}.")
    return SpanMetrics(
        values=values, undefined=undefined, item_ids=table.item_ids, per_item=per_item,
        n_items=table.n_items,
        n_annotators=len(set(table.member_annotator.tolist())),
        n_pairs=int((m * (m - 1) // 2).sum()), n_pairs_both_empty=empty_pairs,
        n_items_undefined=n_undefined, left_out=dict(table.left_out), notes=notes,
        pairs=pairs, pair_values=pair_values)


@dataclass(frozen=True)
class SpanDetails:
    """What the views read of a span scheme (``SchemeResult.details``): the table, the
    metrics with their per-item and per-pair values, and each item's γ."""

    table: SpanTable
    metrics: SpanMetrics
    gamma: list[Any]


def _annotator_pairs(table: SpanTable, values: dict[str, np.ndarray]
                     ) -> dict[str, dict[str, float | int | None]]:
    """Per annotator pair ``"a|b"``: each F1's mean over the items both count on, and
    how many items that is (the window's pair matrix)."""
    _, ma, mb = pair_members(table)
    n = len(table.annotators)
    key = table.member_annotator[ma] * n + table.member_annotator[mb]
    found, where, count = np.unique(key, return_inverse=True, return_counts=True)
    out: dict[str, dict[str, float | int | None]] = {}
    sums = {name: np.bincount(where, weights=v, minlength=len(found))
            for name, v in values.items()}
    for k, code in enumerate(found.tolist()):
        a, b = table.annotators[code // n], table.annotators[code % n]
        entry: dict[str, float | int | None] = {
            name: float(total[k] / count[k]) for name, total in sums.items()}
        entry["n_items"] = int(count[k])
        out[f"{a}|{b}"] = entry
    return out


_LEFT_OUT = {
    "nothing_marked": "nobody marked a span on them",
    "one_annotator": "one annotator only saved them",
    "no_text": "their text is empty or not a string (no characters to mark)",
}


def _no_items(table: SpanTable) -> str:
    lo = table.left_out
    if not lo:
        return "nobody answered this scheme on any item"
    if set(lo) == {"nothing_marked"}:
        return "nobody marked a span on any item"
    if lo.get("one_annotator") and not lo.get("no_text"):
        return "no item with spans was saved by two annotators"
    return "no item with spans has two annotators and text to mark"


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
