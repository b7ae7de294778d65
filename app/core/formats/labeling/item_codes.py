"""Each item id's position among the study's items, without a second million-entry dict.

Why: the predictions are coded by item (:mod:`app.core.formats.labeling.decoded`), which
needs id → position. A dict of a million ids cost about half a second to build, and its
resizes (or even a copy of the study's dict) were single calls that held the interpreter
lock for 50-270 ms: the GUI thread, opening the project on a worker, froze that long.

:class:`ItemCodes` looks an id up in the study's own dict (id → :class:`~app.core.model.
Item`) and turns the item object into its position by its address: the addresses of the
items in study order are sorted once by numpy (which releases the lock while sorting)
and each chunk of lookups is one ``searchsorted``. Every item is a distinct object alive
as long as the study, so its address names it; when two ids share one object (never in a
study the reader builds) the codes are a plain dict instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any

import numpy as np

from app.core.sharded import ShardedMap
from app.core.slices import SLICE, dict_update_in_slices, list_in_slices

WARM = 1_000
"""Lookups one id at a time answered without building anything; past them, the caller
is walking many ids and the lists and dicts that make each lookup fast pay off."""


class ItemCodes(Mapping[str, int]):
    """id → position of the id among ``by_id``'s keys (in their order)."""

    __slots__ = ("_asked", "_by_id", "_order", "_plain", "_sorted")

    def __init__(self, by_id: Mapping[str, object]) -> None:
        self._by_id = by_id
        values = iter(by_id.values())
        addresses = np.concatenate([
            np.fromiter(map(id, islice(values, SLICE)), np.int64,
                        min(SLICE, len(by_id) - start))
            for start in range(0, len(by_id), SLICE)] or [np.empty(0, np.int64)])
        self._plain: dict[str, int] | None = None
        self._asked = 0
        self._order = np.argsort(addresses, kind="stable")
        self._sorted = addresses[self._order]
        if len(self._sorted) > 1 and not bool((self._sorted[1:] != self._sorted[:-1]).all()):
            raise ValueError("two ids share one object; expected one object per item")

    def codes(self, ids: Iterable[str], size: int) -> np.ndarray:
        """The positions of the ``size`` ``ids`` (``KeyError`` for an id not among them)."""
        found = np.fromiter(map(id, map(self._by_id.__getitem__, ids)), np.int64, size)
        return self._order[np.searchsorted(self._sorted, found)]

    def plain(self) -> dict[str, int]:
        """The same mapping as a dict, for lookups one id at a time (a numpy call per id
        cost microseconds; the coverage curves ask every item of every tier): a copy of
        the study's dict, one fast call, its values then replaced a slice at a time, which
        never resizes it. Made on the first such lookup (``label status`` makes none)."""
        if self._plain is None:
            plain: dict[str, Any] = dict(self._by_id)
            ids = list_in_slices(self._by_id)
            dict_update_in_slices(plain, zip(ids, range(len(ids)), strict=True))
            self._plain = plain
        return self._plain

    def get(self, item: object, default: int | None = None) -> int | None:  # type: ignore[override]
        """One id's code: by numpy for the first :data:`WARM` ids asked (the GUI thread
        asks one at a time), then by :meth:`plain`."""
        if self._plain is None and self._asked < WARM:
            self._asked += 1
            value = self._by_id.get(item) if isinstance(item, str) else None
            if value is None:
                return default
            return int(self._order[int(self._sorted.searchsorted(id(value)))])
        return self.plain().get(item, default)  # type: ignore[call-overload, no-any-return]

    def __getitem__(self, item: str) -> int:
        code = self.get(item)
        if code is None:
            raise KeyError(item)
        return code

    def __contains__(self, item: object) -> bool:
        return self.get(item) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)


def item_codes(by_id: Mapping[str, object]) -> Mapping[str, int]:
    """id → position: a sharded study's own index, else :class:`ItemCodes` of ``by_id``,
    or a plain dict when two ids share one object."""
    if isinstance(by_id, ShardedMap):
        return by_id.index
    try:
        return ItemCodes(by_id)
    except ValueError:
        return {item: k for k, item in enumerate(by_id)}
