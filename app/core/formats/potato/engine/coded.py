"""``engine.sqlite``'s prediction table as codes, the form ``label status`` reads fastest.

Why a module: the JSON Lines reader hands its predictions over as numpy codes
(:class:`~app.core.formats.labeling.decoded.Columns`), from which a schema's machine labels
are a lazy mapping per tier (:mod:`app.core.contracts.labels.machine_columns`) instead of
three million ``MachineLabel`` tuples in three million-entry dicts. The engine's columns
give the same codes directly in the common case: every tier of every schema answered the
same items (one shared item list, whose lookup is the code of each item), every answered
value is a string and no tier carries a distribution. Anything else is ``None``, and the
table of lists is built instead. The rows are in the table's order (schema, item, cascade
tier); a stored prediction has no line, so ``line`` is ``None`` for each.

Where every tier came from SQLite as the labels' numbers (:attr:`TierColumns.codes`), the
label codes are made from those numbers, one lookup per label instead of one per row
(a million-item study's three million values were 0.8 s of ``label status``).
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from app.core.formats.labeling.decoded import Columns
from app.core.formats.labeling.table import PredictionTable
from app.core.formats.potato.engine.answers import StoredAnswers, TierColumns
from app.core.nones import Nones
from app.core.slices import (
    array_in_slices,
    dict_update_in_slices,
    list_in_slices,
    repeat_each,
    set_in_slices,
    tiled,
    tolist_in_slices,
)


def coded_prediction_table(stored: StoredAnswers) -> PredictionTable | None:
    """The answered predictions as a coded table, or ``None`` where they cannot be."""
    every = list(stored)
    if not every or any(c.distributions is not None or not c.sorted_items for c in every):
        return None
    shared = every[0]
    if any(c.items is not shared.items and c.items != shared.items for c in every[1:]):
        return None
    schemas = tuple(stored.by_schema)
    tiers: dict[str, int] = {}
    parts: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    labels: dict[str, int] = {}
    for code, name in enumerate(schemas):
        columns = list(stored.by_schema[name].values())
        answered = np.stack([c.answered for c in columns], axis=1)  # item × tier
        every_answer = bool(answered.all())  # the common cascade: the whole grid, in order
        if every_answer:
            item_rows: np.ndarray = repeat_each(np.arange(len(shared), dtype=np.int32),
                                                len(columns))
            positions = np.zeros(0, np.int64)  # not needed: the grid is taken whole
            chosen = [np.arange(len(shared), dtype=np.int64)] * len(columns)
        else:
            item_rows, positions = np.nonzero(answered)  # in (item, tier) order
            chosen = [np.flatnonzero(c.answered) for c in columns]  # each tier's, ascending
        value_codes = _from_codes(columns, chosen, labels)
        if value_codes is None:
            value_codes = _from_values(columns, chosen, labels)
        if value_codes is None:
            return None
        confidence = np.stack([c.confidence_array for c in columns], axis=1)
        tier_codes = np.array([tiers.setdefault(c.tier, len(tiers)) for c in columns],
                              np.int32)
        if every_answer:  # tier after tier, each in item order: the grid transposed
            grid_labels = value_codes.reshape(len(columns), len(shared)).T.ravel()
            grid_confidences = confidence.ravel()
            grid_tiers = tiled(tier_codes, len(shared))
        else:
            label = np.zeros(answered.shape, np.int32)
            start = 0
            for position, rows in enumerate(chosen):  # tier by tier into the grid
                label[rows, position] = value_codes[start:start + len(rows)]
                start += len(rows)
            grid_labels = label[item_rows, positions]
            grid_confidences = confidence[item_rows, positions]
            grid_tiers = tier_codes[positions]
        parts.append((code, item_rows.astype(np.int32, copy=False), grid_tiers, grid_labels,
                      grid_confidences))
    columns_coded = Columns(
        shared.items, shared.row_of, _joined([p[1] for p in parts]), schemas,
        _joined([np.full(len(p[1]), p[0], np.int32) for p in parts]), tuple(tiers),
        _joined([p[2] for p in parts]), list(labels),
        _joined([p[3] for p in parts]), _joined([p[4] for p in parts]))
    table = PredictionTable.from_columns(columns_coded)
    table.line = Nones(len(columns_coded))
    return table


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """The arrays end to end (one schema's: itself, not copied)."""
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _from_values(columns: list[TierColumns], chosen: list[np.ndarray],
                 labels: dict[str, int]) -> np.ndarray | None:
    """The code in ``labels`` of each answer's value, taken tier by tier in row order
    (``chosen``: each tier's answered rows; a value first met gets the next code), or
    ``None`` when a value is not a string."""
    values: list[str] = []
    for column, rows in zip(columns, chosen, strict=True):
        values += list_in_slices(map(column.values.__getitem__, tolist_in_slices(rows)))
    if not set_in_slices(map(type, values)) <= {str}:
        return None
    for value in dict_update_in_slices({}, zip(values, repeat(None))):
        labels.setdefault(value, len(labels))
    return array_in_slices(map(labels.__getitem__, values), np.int32, len(values))


def _from_codes(columns: list[TierColumns], chosen: list[np.ndarray],
                labels: dict[str, int]) -> np.ndarray | None:
    """:func:`_from_values` from the tiers' :attr:`~TierColumns.codes`, when every tier has
    them over one list of known values (no value made or looked up per row): the same
    codes, given out in the same order of first meeting."""
    known = columns[0].known
    codes = [c.codes for c in columns if c.codes is not None and c.known is known]
    if len(codes) != len(columns):
        return None
    met = np.concatenate([tier[rows] for tier, rows in zip(codes, chosen, strict=True)])
    in_order = _first_met(met, len(known))
    if not all(type(known[k]) is str for k in in_order):
        return None
    table = np.full(len(known), -1, np.int32)
    for k in in_order:
        table[k] = labels.setdefault(known[k], len(labels))
    result: np.ndarray = table[met]
    return result


def _first_met(codes: np.ndarray, n_known: int) -> list[int]:
    """The distinct ``codes`` in the order they are first met: where few are (the
    common scheme's handful of labels), found by counting and one search each, not by
    sorting three million codes."""
    present = np.flatnonzero(np.bincount(codes, minlength=n_known)) if len(codes) else \
        np.zeros(0, np.int64)
    if len(present) > 16:
        distinct, first = np.unique(codes, return_index=True)
        return [int(k) for k in distinct[np.argsort(first, kind="stable")]]
    met_at = [int(np.argmax(codes == k)) for k in present]
    return [int(k) for k in present[np.argsort(met_at, kind="stable")]]
