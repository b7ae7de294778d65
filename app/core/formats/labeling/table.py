"""The predictions of ``predictions.jsonl`` as columns, read without one object per line.

A 100,000-item study with three cascade tiers has 300,000 predictions; building a frozen
:class:`~app.core.formats.labeling.data.Prediction` for each cost close to a second of
``accord label status``, which reads them only column by column (every item's label and
confidence of one schema and tier). :class:`PredictionTable` keeps the file's values in
one list per field, in file order, and is a read-only sequence of ``Prediction``: a
prediction object is made only when one is asked for (the GUI's traces view, the
certificate, tests), equal to the one the per-line reader would have made.

:func:`read_common_predictions` is the reader's fast path: it checks a whole file of
*common* lines at once (string ids of known items, schemes and tiers, a plain label
already valid for its scheme, a finite confidence in [0, 1], no ``probs``, no repeated
item, schema and tier; exactly these five fields, so an unknown field or ``probs``, even
``null``, sends the file to the per-line reader) and returns ``None`` as soon as one line
is not common, so the
per-line reader runs and names the file, line and field of the problem exactly as
before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import compress
from operator import itemgetter
from typing import Any, overload

import numpy as np

from app.core.formats.labeling.data import Prediction
from app.core.formats.labeling.decoded import Columns
from app.core.nones import Nones
from app.core.slices import take_in_slices, tolist_in_slices

__all__ = ["PredictionTable", "coded_table", "common_table", "read_common_predictions"]

_PLAIN = (str, int, float)
_KEYS = ("item", "schema", "tier", "label", "confidence")
_FIELDS = len(_KEYS)


class PredictionTable(Sequence[Prediction]):
    """Predictions in file order, one column per field; a sequence of :class:`Prediction`.

    A table read by the fast path keeps its columns as numpy codes (:attr:`coded`, a
    :class:`~app.core.formats.labeling.decoded.Columns`) and makes each field's list
    (``item``, ``schema``, …) only when it is first asked for: ``label status`` reads the
    codes alone. Equal to any sequence of the same predictions (a tuple of them included).
    """

    __slots__ = ("_lists", "coded", "line", "probs")

    def __init__(self, item: list[str], schema: list[str], tier: list[str], label: list[Any],
                 confidence: list[float], probs: list[Mapping[str, float] | None] | None,
                 line: Sequence[int | None]) -> None:
        self._lists: dict[str, list[Any]] = {
            "item": item, "schema": schema, "tier": tier, "label": label,
            "confidence": confidence}
        self.coded: Columns | None = None
        """The columns as codes, when the table was read from them."""
        self.line = line
        self.probs = probs
        """``None`` when no prediction has ``probs`` (the common file)."""

    @classmethod
    def from_columns(cls, columns: Columns) -> PredictionTable:
        """The table of coded columns (no probs; line ``k + 1`` for row ``k``)."""
        table = cls.__new__(cls)
        table._lists = {}
        table.coded = columns
        table.line = range(1, len(columns) + 1)
        table.probs = None
        return table

    @classmethod
    def of(cls, predictions: Sequence[Prediction]) -> PredictionTable:
        return cls([p.item for p in predictions], [p.schema for p in predictions],
                   [p.tier for p in predictions], [p.label for p in predictions],
                   [p.confidence for p in predictions],
                   [p.probs for p in predictions]
                   if any(p.probs is not None for p in predictions) else None,
                   [p.line for p in predictions])

    def _column(self, name: str) -> list[Any]:
        found = self._lists.get(name)
        if found is None:
            found = self._lists[name] = _decoded_column(self.coded, name)
        return found

    @property
    def item(self) -> list[str]:
        return self._column("item")

    @property
    def schema(self) -> list[str]:
        return self._column("schema")

    @property
    def tier(self) -> list[str]:
        return self._column("tier")

    @property
    def label(self) -> list[Any]:
        return self._column("label")

    @property
    def confidence(self) -> list[float]:
        return self._column("confidence")

    def __len__(self) -> int:
        return len(self.coded) if self.coded is not None else len(self._lists["item"])

    def probs_column(self) -> Sequence[Mapping[str, float] | None]:
        return self.probs if self.probs is not None else Nones(len(self))

    def __iter__(self) -> Iterator[Prediction]:
        return map(Prediction, self.item, self.schema, self.tier, self.label,
                   self.confidence, self.probs_column(), self.line)

    @overload
    def __getitem__(self, index: int) -> Prediction: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Prediction, ...]: ...

    def __getitem__(self, index: int | slice) -> Prediction | tuple[Prediction, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        probs = self.probs[index] if self.probs is not None else None
        return Prediction(self.item[index], self.schema[index], self.tier[index],
                          self.label[index], self.confidence[index], probs, self.line[index])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PredictionTable({len(self)} predictions)"

    def rows(self, schema: str) -> Iterator[tuple[str, str, Any, float,
                                                  Mapping[str, float] | None]]:
        """``(item, tier, label, confidence, probs)`` of every prediction on ``schema``."""
        rows = zip(self.item, self.schema, self.tier, self.label, self.confidence,
                   self.probs_column(), strict=True)
        return ((i, t, lab, c, p) for i, s, t, lab, c, p in rows if s == schema)


def _decoded_column(coded: Columns | None, name: str) -> list[Any]:
    """One field's list from its codes, the very objects the codes point at (the
    study's item ids, one string per schema, tier and option label)."""
    assert coded is not None, "a table made of lists holds every column"
    if name == "confidence":
        return tolist_in_slices(coded.confidence)
    names: dict[str, tuple[Sequence[Any], np.ndarray]] = {
        "item": (coded.items, coded.item), "schema": (coded.schemas, coded.schema),
        "tier": (coded.tiers, coded.tier), "label": (coded.labels, coded.label)}
    values, codes = names[name]
    table = np.empty(len(values), dtype=object)
    table[:] = values
    return take_in_slices(table, codes)


def coded_table(columns: Columns, tiers: frozenset[str],
                valid_label: Callable[[str, Any], bool]) -> PredictionTable | None:
    """:func:`common_table` of columns decoded as codes (their items, schemes and tiers
    are known by construction; ``tiers`` limits the tiers), or ``None`` when some value
    is not common."""
    used = np.flatnonzero(np.bincount(columns.tier, minlength=len(columns.tiers)))
    if not {columns.tiers[t] for t in used.tolist()} <= tiers:
        return None  # (codes counted, not np.unique: a sort of 3,000,000 held the lock)
    values = columns.confidence
    if not bool(((values >= 0) & (values <= 1)).all()):  # NaN fails too
        return None
    width = max(len(columns.labels), 1)
    keys = columns.schema.astype(np.int64) * width + columns.label
    pairs = np.flatnonzero(np.bincount(keys)) \
        if len(columns.schemas) * width <= 4 * len(keys) + 1024 else np.unique(keys)
    for pair in pairs.tolist():
        if not valid_label(columns.schemas[pair // width], columns.labels[pair % width]):
            return None
    if _repeated_codes(columns):
        return None  # the per-line reader names both lines
    return PredictionTable.from_columns(columns)


def _repeated_codes(columns: Columns) -> bool:
    """Some (schema, item, tier) is on two lines: the three codes as one number, counted
    in bins when they are few enough, else sorted."""
    size = len(columns)
    span = len(columns.schemas) * len(columns.tiers) * max(len(columns.items), 1)
    key = (columns.schema.astype(np.int64) * len(columns.tiers) + columns.tier) \
        * max(len(columns.items), 1) + columns.item
    if span <= 4 * size + 1024:
        return bool(size) and int(np.bincount(key, minlength=1).max()) > 1
    return len(np.unique(key)) != size


def read_common_predictions(records: list[tuple[int, dict[str, Any]]],
                            schemes: Mapping[str, object], items: Mapping[str, object],
                            tiers: frozenset[str],
                            valid_label: Callable[[str, Any], bool]) -> PredictionTable | None:
    """The table of a file whose every line is common, or ``None`` (then read per line).

    ``valid_label(schema, label)`` says a plain label is valid for the scheme (it is
    asked once per distinct schema, type and label).
    """
    objects = [record for _, record in records]
    if not objects:
        return PredictionTable([], [], [], [], [], None, [])
    if sum(map(len, objects)) != _FIELDS * len(objects):
        return None  # a missing field, ``probs`` or another field: read per line
    try:
        item, schema, tier, label, confidence = (
            list(map(itemgetter(key), objects)) for key in _KEYS)
    except KeyError:
        return None
    if not (set(map(type, item)) == {str} and set(map(type, schema)) == {str}
            and set(map(type, tier)) == {str}):
        return None
    if not set(map(type, confidence)) <= {float, int}:
        return None
    if not set(map(type, label)) <= set(_PLAIN):
        return None
    return common_table(item, schema, tier, label, confidence,
                        [line for line, _ in records], schemes, items, tiers, valid_label)


def common_table(item: list[str], schema: list[str], tier: list[str], label: list[Any],
                 confidence: list[Any], line: Sequence[int | None],
                 schemes: Mapping[str, object], items: Mapping[str, object],
                 tiers: frozenset[str], valid_label: Callable[[str, Any], bool]
                 ) -> PredictionTable | None:
    """The table of columns already of the common types (string ids, a plain label, a
    number for the confidence), or ``None`` when some value is not common: an unknown
    item, scheme or tier, a confidence outside [0, 1], a label not valid for its scheme,
    or an item, schema and tier on two lines."""
    if not (set(item) <= items.keys() and set(schema) <= schemes.keys()
            and set(tier) <= tiers):
        return None
    try:
        values = np.array(confidence, dtype=np.float64)
    except OverflowError:
        return None
    if not bool(((values >= 0) & (values <= 1)).all()):  # NaN fails too
        return None
    for s, _kind, value in set(zip(schema, map(type, label), label, strict=True)):
        if not valid_label(s, value):
            return None
    if _repeated(item, schema, tier):
        return None  # the per-line reader names both lines
    return PredictionTable(item, schema, tier, label, values.tolist(), None, line)


def _repeated(item: list[str], schema: list[str], tier: list[str]) -> bool:
    """Some (schema, item, tier) is on two lines; with one schema, each tier's items are
    selected in C and counted (a set of 300,000 key tuples costs three times more)."""
    if len(set(schema)) != 1:
        return len(set(zip(schema, item, tier, strict=True))) != len(item)
    for name in set(tier):
        chosen = list(compress(item, map(name.__eq__, tier)))
        if len(set(chosen)) != len(chosen):
            return True
    return False
