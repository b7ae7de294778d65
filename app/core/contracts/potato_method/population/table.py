"""A view's population held as columns: a sequence of :class:`PopulationItem` that makes
an item only when one is asked for.

Why: a million-item Potato project has a million population items with three tier
answers each; building them (and walking them in Python for the coverage and ppi's
machine terms) was most of ``accord label status``. :class:`PopulationTable` keeps each
tier's answers as the store's columns (:class:`~app.core.formats.potato.engine.answers.
TierColumns`) plus, per population item, its row in each tier (``-1``: no answer) and
the position of its routed tier. It equals, item for item, the tuple of
``PopulationItem`` the per-item builder made (``tests/core/test_potato_population.py``),
and the kinds that read the whole population (``selective_risk``'s coverage, ``ppi``'s
machine terms) read its columns instead when they get one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, overload

import numpy as np

from app.core.contracts.potato_method.view import PopulationItem, TierAnswer
from app.core.formats.potato.engine.answers import TierColumns
from app.core.slices import list_in_slices, set_in_slices, tolist_in_slices

Vector = np.ndarray


class PopulationTable(Sequence[PopulationItem]):
    """The population in order; ``rows[j, i]`` is item ``i``'s row in tier ``j``'s
    columns (``-1``: the tier has no answer for it), ``output[i]`` the position of the
    tier whose answer is its routed output (``-1``: none)."""

    __slots__ = ("_fields", "_index", "_members", "_names", "_root", "items", "output", "pi",
                 "rows", "tiers")

    def __init__(self, items: Sequence[str], tiers: Sequence[TierColumns | None],
                 rows: Vector, output: Vector, pi: Sequence[float | None],
                 fields: Callable[[Sequence[str], str], list[str | None]] | None = None,
                 members: Collection[str] | None = None) -> None:
        self.items, self.tiers, self.rows, self.output, self.pi = items, tiers, rows, output, pi
        self._fields = fields
        self._members = members
        """A collection of exactly :attr:`items` the caller has (the store's lookup)."""
        self._root: PopulationTable = self
        self._index: Vector | None = None
        """This table's items' positions in ``_root`` (``None``: it is the root)."""
        self._names: dict[int | None, tuple[Vector, bool]] = {}

    def __len__(self) -> int:
        return len(self.items)

    def answer(self, position: int, row: int) -> TierAnswer | None:
        if row < 0:
            return None
        tier = self.tiers[position]
        assert tier is not None  # a row only where the tier has columns
        return TierAnswer(tier.values[row], tier.confidences[row], tier.statuses[row],
                          None if tier.distributions is None else tier.distributions[row])

    def _item(self, i: int) -> PopulationItem:
        answers = tuple(self.answer(j, int(self.rows[j, i])) for j in range(len(self.tiers)))
        out = int(self.output[i])
        return PopulationItem(self.items[i], answers, None, self.pi[i],
                              answers[out] if out >= 0 else None)

    @overload
    def __getitem__(self, index: int) -> PopulationItem: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[PopulationItem, ...]: ...

    def __getitem__(self, index: int | slice) -> PopulationItem | tuple[PopulationItem, ...]:
        if isinstance(index, slice):
            return tuple(self._item(i) for i in range(len(self))[index])
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._item(index)

    def __iter__(self) -> Iterator[PopulationItem]:
        return map(self._item, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"PopulationTable({len(self)} items)"

    # ----------------------------------------------------------------- the columns

    def take(self, selected: Vector) -> PopulationTable:
        """The items at the indices ``selected``, in that order."""
        chosen = tolist_in_slices(selected)
        taken = PopulationTable(list_in_slices(map(self.items.__getitem__, chosen)),
                                self.tiers, self.rows[:, selected], self.output[selected],
                                list_in_slices(map(self.pi.__getitem__, chosen)),
                                self._fields)
        taken._root = self._root
        taken._index = selected if self._index is None else self._index[selected]
        return taken

    def class_names(self, position: int | None) -> tuple[Vector, bool]:
        """Each item's answer from tier ``position`` (``None``: routed) as its class name
        (``str`` of the value; ``None`` where it has no answer), and whether no answer
        carries a distribution. Computed once on the whole population; a group's
        (:meth:`take`) are its slice."""
        root = self._root
        if position not in root._names:
            answered = root.answered(position)
            names = root._names_from_codes(position)
            if names is None:
                names = np.empty(len(root), dtype=object)
                names[:] = list_in_slices(map(str, root.answer_column(position, "values")))
            names[~answered] = None
            plain = all(t is None or t.distributions is None for t in root.tiers) \
                or not any(root.answer_column(position, "distributions"))
            root._names[position] = (names, plain)
        names, plain = root._names[position]
        if self._index is None:
            return names, plain
        return names[self._index], plain or not any(
            self.answer_column(position, "distributions"))

    def _names_from_codes(self, position: int | None) -> Vector | None:
        """:meth:`class_names` before the unanswered are blanked, from the tiers'
        :attr:`~TierColumns.codes` (``str`` of each known value once, not of each row's),
        or ``None`` when a tier has no codes over the one list of known values."""
        present = [t for t in self.tiers if t is not None]
        known = present[0].known if present else ()
        codes = [t.codes for t in present if t.codes is not None and t.known is known]
        if not present or len(codes) != len(present):
            return None
        flat = np.concatenate([*codes, np.full(1, len(known), codes[0].dtype)])
        index = self._gathered(position, [0 if t is None else len(t) for t in self.tiers])
        name_of: Vector = np.empty(len(known) + 1, dtype=object)
        name_of[:] = [str(value) for value in known] + [None]
        names: Vector = name_of[flat[index]]
        return names

    def members(self) -> Collection[str]:
        """The items, for membership tests: the collection given, else a set of them
        (a million-entry set the store's own lookup spares)."""
        return self._members if self._members is not None else set_in_slices(self.items)

    def field_column(self, key: str) -> list[str | None] | None:
        """Each item's field ``key`` (ppi's ``by``), ``None`` when the table has none."""
        return None if self._fields is None else self._fields(self.items, key)

    def present(self, position: int) -> Vector:
        """Per item: tier ``position`` has an answer (even an abstention)."""
        return np.asarray(self.rows[position] >= 0)

    def answer_rows(self, position: int | None) -> tuple[Vector, Vector]:
        """Per item, the tier position and row of its answer from tier ``position``
        (``None``: its routed output); ``-1`` rows where it has none."""
        if position is None:
            which = self.output
            safe = np.where(which >= 0, which, 0)
            rows = np.where(which >= 0, self.rows[safe, np.arange(len(self))], -1) \
                if len(self) else np.zeros(0, np.int64)
            return which, rows
        return np.full(len(self), position, np.int64), self.rows[position]

    def _gathered(self, position: int | None, lengths: Sequence[int]) -> Vector:
        """Per item, the index of its answer from tier ``position`` (``None``: routed)
        in the tiers' columns laid end to end (of ``lengths``), or the index just past
        them where it has none."""
        which, rows = self.answer_rows(position)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        if not len(self):
            return np.zeros(0, np.int64)
        index: Vector = np.where(rows >= 0, offsets[np.maximum(which, 0)] + rows, offsets[-1])
        return index

    def answer_column(self, position: int | None, column: str) -> list[Any]:
        """Field ``column`` (``values``, ``statuses``, ``distributions``,
        ``confidences``) of each item's answer from tier ``position`` (``None``: its routed
        output); ``None`` where it has none."""
        flat: list[Any] = []
        for tier in self.tiers:
            if tier is not None:
                flat += (tier.distribution_column() if column == "distributions"
                         else getattr(tier, column))
        flat.append(None)
        index = self._gathered(position, [0 if t is None else len(t) for t in self.tiers])
        return list_in_slices(map(flat.__getitem__, tolist_in_slices(index)))

    def answered(self, position: int | None) -> Vector:
        """Per item: its answer from tier ``position`` (``None``: routed) is an answer
        (status ``ok`` and a value)."""
        masks = [t.answered for t in self.tiers if t is not None]
        flat = np.concatenate([*masks, np.zeros(1, bool)])
        index = self._gathered(position, [0 if t is None else len(t) for t in self.tiers])
        return np.asarray(flat[index], bool)
