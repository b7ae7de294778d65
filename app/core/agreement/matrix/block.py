"""A matrix scheme read and scored per row and pooled, as Potato 2.12.1 does.

Stored ``{sub_answer: value}`` (``dispatcher.py`` ``_gather_matrix``,
``_aggregate_matrix``): multirate ``{"Urgency": "High"}``, constant_sum and soft_label
``{label: "30"}``, semantic_differential ``{"Formal__Informal": "3"}``, range_slider
``{"range_low", "range_high"}``, bws ``{"best": "A", "worst": "C"}``. ``None`` and ``""``
are dropped (a 0 is kept); an annotator with no sub-answer left gave no answer.

The scale comes from the data: **interval** (Potato's CONTINUOUS block) if every stored
sub-answer of the scheme parses as a number (one word flips the whole scheme), else
**nominal** for ``bws`` / ``best_worst_scaling`` / ``pairwise``, else **ordinal** (the
ORDINAL block) on the positions of the scheme's ``labels`` list. Where no ``labels``
list is declared, Accord ranks the scheme's words alphabetically once for the whole
scheme (Potato ranks them per annotator pair; the spec is silent; a scheme with words
and no declared order has no meaningful order either way). A word the list does not
name is ranked after the declared ones.

Rows: the declared ``options`` first, in order, then the others as first seen. Each row
is scored over the items where two or more annotators answered it; ``pooled`` takes
every (item, row) as a unit, as Potato does (its ICC and κ then treat rows as items).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.metrics import continuous_block
from app.core.agreement.continuous.ordinal import ordinal_block, scale_order
from app.core.agreement.continuous.pairs import Entries, Rows, annotator_count
from app.core.agreement.continuous.reading import as_float, grouped
from app.core.agreement.matrix.nominal import nominal_block

MATRIX_TYPES = frozenset({"multirate", "constant_sum", "soft_label", "semantic_differential",
                          "range_slider", "bws", "best_worst_scaling"})
NOMINAL_TYPES = frozenset({"bws", "best_worst_scaling", "pairwise"})
RESERVED = frozenset({"pooled", "note"})
NO_ROW = ("No sub-answer was given by two or more annotators on the same item, so there "
          "is nothing to compare.")
Answers = dict[str, Any]


@dataclass(frozen=True, slots=True)
class MatrixResult:
    scale: str
    rows: dict[str, Block]
    pooled: Block
    n_items: int
    n_annotators: int
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            (k if k not in RESERVED else f"{k} (row)"): b.to_json() for k, b in self.rows.items()}
        out.update(pooled=self.pooled.to_json(), n_rows=len(self.rows), n_items=self.n_items,
                   n_annotators=self.n_annotators, scale=self.scale)
        if self.note:
            out["note"] = self.note
        return out


def read_matrix(entries: Entries) -> Answers | None:
    answers = {k: v for k, v in grouped(entries).items() if v is not None and str(v) != ""}
    return answers or None


def _is_numeric(rows: Rows[Answers]) -> bool:
    values = [raw for by in rows.values() for answers in by.values() for raw in answers.values()]
    return bool(values) and all(as_float(raw) is not None and not isinstance(raw, bool)
                                for raw in values)


def _row_names(config: Mapping[str, Any], rows: Rows[Answers]) -> list[str]:
    names: list[str] = []
    for declared in config.get("options") or []:
        name = declared.get("name") if isinstance(declared, dict) else declared
        if isinstance(name, str) and name not in names:
            names.append(name)
    for by in rows.values():
        for answers in by.values():
            names.extend(k for k in answers if k not in names)
    return names


def _ordinal_values(config: Mapping[str, Any], rows: Rows[Answers]) -> dict[str, float]:
    order = scale_order(config)
    words = sorted({str(raw) for by in rows.values() for a in by.values() for raw in a.values()})
    if order is None:
        return {w: float(i) for i, w in enumerate(words)}
    ranks = {w: float(r) for w, r in order.items()}
    for w in words:
        ranks.setdefault(w, float(len(ranks)))
    return ranks


def matrix_block(config: Mapping[str, Any], rows: Rows[Answers]) -> MatrixResult:
    """Per row and pooled blocks of a matrix scheme on gathered answers."""
    kind = str(config.get("annotation_type") or "").strip().lower()
    numeric = _is_numeric(rows)
    scale = "interval" if numeric else ("nominal" if kind in NOMINAL_TYPES else "ordinal")
    ranks = _ordinal_values(config, rows) if scale == "ordinal" else {}

    def value(raw: Any) -> Any:
        if scale == "interval":
            return as_float(raw)
        return ranks[str(raw)] if scale == "ordinal" else str(raw)

    per_row: dict[str, dict[str, dict[str, Any]]] = {}
    pooled: dict[str, dict[str, Any]] = {}
    for name in _row_names(config, rows):
        for item, by in rows.items():
            answered = {a: value(ans[name]) for a, ans in by.items() if name in ans}
            if len(answered) >= 2:
                per_row.setdefault(name, {})[item] = answered
                pooled[f"{item}\u241f{name}"] = answered
    scorers: dict[str, Callable[[Any], Block]] = {
        "interval": continuous_block, "ordinal": ordinal_block, "nominal": nominal_block}
    score = scorers[scale]
    return MatrixResult(
        scale=scale,
        rows={name: score(gathered) for name, gathered in per_row.items()},
        pooled=score(pooled),
        n_items=len(rows),
        n_annotators=annotator_count(rows),
        note=None if per_row else NO_ROW,
    )
