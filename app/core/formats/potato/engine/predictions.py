"""``engine.sqlite``'s machine labels as Accord's prediction table, restricted to the study
and checked against the schemes, by whole columns.

Why a module: the reader used to make a ``Prediction`` per answered row, a list of them
per study, and an f-string per prediction for the label check; at a million items and
three tiers that was nine million objects. Here the table is assembled from the tiers'
columns (:mod:`~app.core.formats.potato.engine.answers`) in the order the per-row reader
listed the predictions (schema, item, cascade tier), and the check reads each distinct
plain label once; anything else (a label that is a list, a float or a boolean; a label
that fails) takes the per-row check, whose first error names the prediction or request
exactly as before.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from itertools import compress, repeat
from operator import and_
from pathlib import Path
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.formats.labeling.data import Prediction, Request
from app.core.formats.labeling.table import PredictionTable
from app.core.formats.potato.engine.answers import StoredAnswers
from app.core.formats.potato.engine.coded import coded_prediction_table
from app.core.model import Scheme
from app.core.slices import equal_in_slices, list_in_slices, sorted_strings


def prediction_table(stored: StoredAnswers) -> PredictionTable:
    """Every answered current prediction (status ``ok`` and a value), ordered by schema,
    item and cascade tier: as codes where it can be (:mod:`.coded`), else lists."""
    coded = coded_prediction_table(stored)
    return coded if coded is not None else listed_prediction_table(stored)


def listed_prediction_table(stored: StoredAnswers) -> PredictionTable:
    """:func:`prediction_table` as one list per field."""
    item: list[str] = []
    schema: list[str] = []
    tier: list[str] = []
    label: list[Any] = []
    confidence: list[float] = []
    probs: list[Any] = []
    with_probs = any(c.distributions is not None for c in stored)
    for name in stored.by_schema:
        columns, positions, rows = stored.merged_order(name)
        if not columns:
            continue
        offsets = np.cumsum([0] + [len(c) for c in columns[:-1]])
        answered = np.concatenate([c.answered for c in columns])
        taken = offsets[positions] + rows
        keep = answered[taken]
        take = taken[keep].tolist()
        where = positions[keep].tolist()
        item += list_in_slices(map(_joined([c.items for c in columns]).__getitem__, take))
        schema += repeat(columns[0].schema, len(take))
        tier += list_in_slices(map([c.tier for c in columns].__getitem__, where))
        label += list_in_slices(map(_joined([c.values for c in columns]).__getitem__, take))
        confidence += list_in_slices(map(_joined([c.confidences for c in columns]).__getitem__,
                                         take))
        if with_probs:
            probs += list_in_slices(map(
                _joined([c.distribution_column() for c in columns]).__getitem__, take))
    return PredictionTable(item, schema, tier, label, confidence,
                           probs if with_probs else None, [None] * len(item))


def _parts(values: list[str], size: int = 10_000) -> Iterator[list[str]]:
    """``values`` a slice at a time (each a short C call; see :mod:`app.core.slices`)."""
    return (values[start:start + size] for start in range(0, len(values), size))


def _joined(lists: Sequence[Sequence[Any]]) -> list[Any]:
    out: list[Any] = []
    for part in lists:
        out += part
    return out


def table_for_study(predictions: Any, items: Collection[str], schemes: Collection[str]
                    ) -> PredictionTable:
    """The predictions on the study's items and schemes (the same table when all are)."""
    table = predictions if isinstance(predictions, PredictionTable) \
        else PredictionTable.of(predictions)
    if all(map(items.__contains__, table.item)) \
            and all(map(schemes.__contains__, set(table.schema))):
        return table
    keep = list(map(and_, map(items.__contains__, table.item),
                    map(schemes.__contains__, table.schema)))
    return PredictionTable(
        list(compress(table.item, keep)), list(compress(table.schema, keep)),
        list(compress(table.tier, keep)), list(compress(table.label, keep)),
        list(compress(table.confidence, keep)),
        None if table.probs is None else list(compress(table.probs, keep)),
        list(compress(table.line, keep)))


def kept_whole(stored: StoredAnswers, items: Collection[str], schemes: Collection[str]
               ) -> bool:
    """Every tier's items are the study's and its schema one of the schemes, so the
    table needs no filtering (tiers sharing one item list are checked once)."""
    checked: list[list[str]] = []
    for column in stored:
        if column.schema not in schemes:
            return False
        if any(column.items is other for other in checked):
            continue
        if column.sorted_items and len(column.items) == len(items) and equal_in_slices(
                sorted_strings(list_in_slices(items)), column.items):
            checked.append(column.items)  # the study's items themselves (each once, sorted)
            continue
        if not all(all(map(items.__contains__, part)) for part in _parts(column.items)):
            return False
        checked.append(column.items)
    return True


def plain_labels(stored: StoredAnswers) -> set[tuple[str, Any]] | None:
    """Each (schema, label) of the answered predictions once, when every label is a
    string or an integer (no two distinct ones equal); else ``None``."""
    out: set[tuple[str, Any]] = set()
    for column in stored:
        if column.codes is not None:  # each label once, from its number
            distinct = [column.known[k] for k in np.unique(column.codes[column.answered])]
        else:
            distinct = list(set(list_in_slices(compress(column.values, column.answered))))
        if not set(map(type, distinct)) <= {str, int}:
            return None
        out.update(zip(repeat(column.schema), distinct))
    return out


def check_labels(database: Path, schemes: Mapping[str, Scheme], table: PredictionTable,
                 requests: tuple[Request, ...],
                 distinct: set[tuple[str, Any]] | None = None) -> None:
    """Every kept label is an option of its scheme, else one error naming the first
    prediction or request (in table order) whose label is not. ``distinct``: the
    table's (schema, label) pairs when known (:func:`plain_labels`)."""
    from app.core.formats.labeling.answers import to_answer  # the labels' one reader

    if distinct is None and set(map(type, table.label)) <= {str, int}:
        names = set(table.schema)  # no two distinct labels are equal (no bool, no float)
        only = next(iter(names)) if len(names) == 1 else None
        distinct = {(only, label) for label in set(table.label)} if only is not None \
            else set(zip(table.schema, table.label, strict=True))
    if distinct is not None:
        try:
            for name, label in distinct:
                scheme = schemes[name]
                if scheme.scale or scheme.labels:
                    to_answer(scheme, label)
        except InputError:
            pass  # the per-row check names the first one
        else:
            _check_rows(database, schemes, [], requests)
            return
    _check_rows(database, schemes, list(table), requests)


def _check_rows(database: Path, schemes: Mapping[str, Scheme], predictions: list[Prediction],
                requests: tuple[Request, ...]) -> None:
    from app.core.formats.labeling.answers import to_answer  # the labels' one reader

    labelled: list[tuple[str, Any, Prediction | Request]] = [
        (p.schema, p.label, p) for p in predictions]
    labelled += [(r.schema, v.label, r) for r in requests for v in r.label_history]
    valid: set[tuple[str, type, Any]] = set()  # a name or an integer read once
    for schema, label, where in labelled:
        scheme = schemes[schema]
        if not scheme.scale and not scheme.labels:
            continue  # a free-form scheme: its labels are read where they are compared
        key = (schema, type(label), label) if type(label) in (str, int) else None
        if key is not None and key in valid:
            continue
        try:
            to_answer(scheme, label)
        except InputError as exc:
            what = (f"a prediction of tier '{where.tier}' on item '{where.item}'"
                    if isinstance(where, Prediction) else
                    f"the label of request '{where.request}' on item '{where.item}'")
            raise InputError(f"{what}: {exc.problem}", file=database, key=schema) from None
        if key is not None:
            valid.add(key)
