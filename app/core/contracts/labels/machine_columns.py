"""One tier's machine labels read straight from the prediction codes, without a dict.

Why: :func:`~app.core.contracts.labels.schema_data.schema_data` gave every tier a dict
item → :class:`MachineLabel`; on a million-item study that was 3,000,000 named tuples
and three million-entry dicts (4.5 s of ``label status``, which then read none of them
while a gating contract is not met). :class:`TierLabels` is the same mapping over the
columns of :class:`~app.core.formats.labeling.decoded.Columns`: the tier's rows in file
order, one position per item code (built on the first lookup), and each distinct label
converted once. A lookup makes its one ``MachineLabel``; iterating the items or values
makes them all, in C, a slice at a time (:mod:`app.core.slices`). Equal to the dict it
replaces, key order included.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, Mapping, Sequence, ValuesView
from functools import partial
from itertools import repeat
from typing import Any

import numpy as np

from app.core.contracts.kinds.base import MachineLabel
from app.core.formats.labeling.decoded import Columns
from app.core.formats.labeling.item_codes import WARM
from app.core.model import Answer
from app.core.slices import list_in_slices, take_in_slices, tolist_in_slices

_MACHINE = partial(tuple.__new__, MachineLabel)


class TierLabels(Mapping[str, MachineLabel]):
    """item → machine label of one schema and tier, over coded columns.

    ``rows``: the tier's rows in file order; ``index``: item → code (the study's items,
    shared by every tier); ``answers``: the answer of each label code (``None`` for a
    code no row here uses).
    """

    __slots__ = ("_answers", "_asked", "_columns", "_index", "_items", "_rows", "_slot",
                 "_values")

    def __init__(self, columns: Columns, rows: np.ndarray, index: Mapping[str, int],
                 answers: Sequence[Answer | None]) -> None:
        self._columns, self._rows, self._index, self._answers = columns, rows, index, answers
        self._slot: np.ndarray | list[int] | None = None
        self._asked = 0
        self._items: list[str] | None = None
        self._values: list[MachineLabel] | None = None

    def __len__(self) -> int:
        return len(self._rows)

    def _position(self, item: object) -> int:
        """The item's row among this tier's, or -1: its code by the shared index, then
        each code's position (a list once :data:`WARM` items were asked: a numpy call
        per item cost microseconds, and the coverage curves ask every item of every
        tier)."""
        code = self._index.get(item) if isinstance(item, str) else None
        if code is None:
            return -1
        slot = self._slot
        if slot is None:
            slot = self._slot = np.full(len(self._columns.items), -1, dtype=np.int64)
            slot[self._columns.item[self._rows]] = np.arange(len(self._rows))
        if isinstance(slot, np.ndarray):
            self._asked += 1
            if self._asked < WARM:
                return int(slot[code])
            slot = self._slot = tolist_in_slices(slot)
        return slot[code]

    def __contains__(self, item: object) -> bool:
        return self._position(item) >= 0

    def get(self, item: str, default: Any = None) -> Any:
        """``Mapping.get`` without its exception."""
        position = self._position(item)
        return self._label(position) if position >= 0 else default

    def __getitem__(self, item: str) -> MachineLabel:
        position = self._position(item)
        if position < 0:
            raise KeyError(item)
        return self._label(position)

    def _label(self, position: int) -> MachineLabel:
        if self._values is not None or self._asked >= WARM:
            return self.value_list()[position]
        row = int(self._rows[position])
        columns = self._columns
        answer = self._answers[int(columns.label[row])]
        assert answer is not None, "every label code on this schema has its answer"
        return MachineLabel(answer, float(columns.confidence[row]), None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.item_list())

    def item_list(self) -> list[str]:
        """The tier's items in file order (the study's own id strings)."""
        if self._items is None:
            names = np.empty(len(self._columns.items), dtype=object)
            names[:] = self._columns.items
            self._items = take_in_slices(names, self._columns.item[self._rows])
        return self._items

    def value_list(self) -> list[MachineLabel]:
        """The machine labels in the order of :meth:`item_list`."""
        if self._values is None:
            columns = self._columns
            answers = np.empty(len(self._answers), dtype=object)
            answers[:] = self._answers
            labels = take_in_slices(answers, columns.label[self._rows])
            confidence = tolist_in_slices(columns.confidence[self._rows])
            self._values = list_in_slices(map(_MACHINE, zip(
                labels, confidence, repeat(None, len(labels)), strict=True)))
        return self._values

    def items(self) -> ItemsView[str, MachineLabel]:
        return _Items(self)

    def values(self) -> ValuesView[MachineLabel]:
        return _Values(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TierLabels({len(self)} items)"


class _Items(ItemsView[str, MachineLabel]):
    _mapping: TierLabels

    def __iter__(self) -> Iterator[tuple[str, MachineLabel]]:
        return zip(self._mapping.item_list(), self._mapping.value_list(), strict=True)


class _Values(ValuesView[MachineLabel]):
    _mapping: TierLabels

    def __iter__(self) -> Iterator[MachineLabel]:
        return iter(self._mapping.value_list())


def coded_machine_labels(columns: Columns, schema: str, tiers: tuple[str, ...],
                         to_answer: Callable[[Any], Answer]
                         ) -> dict[str, Mapping[str, MachineLabel]] | None:
    """tier → :class:`TierLabels` of ``schema`` (an empty dict for a tier with no row on
    it), or ``None`` when ``schema`` is not one of the columns' (then the caller's loop
    gives the empty tiers). ``to_answer`` converts a raw label, once per distinct label
    (an equal label of the same type shares the answer, as the loop's cache does)."""
    if schema not in columns.schemas:
        return None
    on_schema = columns.schema == columns.schemas.index(schema)
    answers: list[Answer | None] = [None] * len(columns.labels)
    converted: dict[tuple[type, Any], Answer] = {}
    used = np.bincount(columns.label[on_schema], minlength=len(columns.labels))
    for code in np.flatnonzero(used).tolist():  # counted: np.unique sorted 3,000,000
        raw = columns.labels[code]
        found = converted.get((type(raw), raw))
        if found is None:
            found = converted[type(raw), raw] = to_answer(raw)
        answers[code] = found
    out: dict[str, Mapping[str, MachineLabel]] = {}
    for tier in tiers:
        if tier not in columns.tiers:
            out[tier] = {}
            continue
        rows = np.flatnonzero(on_schema & (columns.tier == columns.tiers.index(tier)))
        out[tier] = TierLabels(columns, rows, columns.index, answers)
    return out
