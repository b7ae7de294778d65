"""Where each key sits in a long list of distinct, ascending keys, without a dict until
one pays.

Why a module: a tier of a million-item ``engine.sqlite`` needs "item → its row". As a
dict that is 0.4-0.8 s of this machine's main thread (a million insertions, the last
resize one C call holding the interpreter lock 20-40 ms), and the readers of the tier
mostly do not need it: a tier's rows are its items in ascending order, so

- a single key is found by binary search (a few microseconds; the calibration items of
  a contract, a few thousand), and a reader walking sorted items (the coverage curves
  ask every tier about a million) finds each next key where the last one ended;
- the rows of another long list of the same items (``engine_item``'s ingestion order)
  come from sorting that list (numpy sorts without the lock) and checking it equals the
  keys: each key's row is its rank.

Only a reader that asks something else (many single keys, or a list of other items)
makes the dict, a slice at a time, once. Every answer is the one the dict would give.
:class:`KeyedValues` does the same for keys kept in another order (``engine_item``'s
ids in ingestion order, with their meta codes).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from typing import Any

import numpy as np

from app.core.slices import (
    SLICE,
    dict_in_slices,
    equal_in_slices,
    list_in_slices,
    object_array,
    set_in_slices,
    string_order,
    take_in_slices,
)

SEARCHES = 100_000
"""Single-key lookups answered by binary search before the dict is made (past this
many, the dict's cost is repaid). A key asked right after the one before it in the
keys' order (a reader walking sorted items) is found without a search, uncounted."""
WINDOW = 64
"""Keys ahead of the last one found searched first, for a reader walking sorted items
with gaps (a tier asked only about the items the tiers before it left)."""


class RowIndex(Mapping[str, int]):
    """key → its position in ``keys``: strictly ascending strings (each once), as the
    caller has checked. A read-only mapping equal to ``{k: i for i, k in
    enumerate(keys)}``; :meth:`positions` looks up a whole list."""

    __slots__ = ("_keys", "_next", "_searches", "_table")

    def __init__(self, keys: Sequence[str]) -> None:
        self._keys = keys
        self._next = 0  # the position after the last key found
        self._searches = 0
        self._table: dict[str, int] | None = None

    def _dict(self) -> dict[str, int]:
        if self._table is None:
            self._table = dict_in_slices(zip(self._keys, range(len(self._keys)),
                                                  strict=True))
        return self._table

    def position(self, key: object) -> int:
        """The key's position, or -1: the next key in order, else by binary search (from
        the last key found when the key comes after it) until :data:`SEARCHES`, then by
        the dict."""
        if self._table is not None:
            found: int = self._table.get(key, -1)  # type: ignore[call-overload]
            return found
        keys, at = self._keys, self._next
        n = len(keys)
        if at < n and keys[at] == key:
            self._next = at + 1
            return at
        if not isinstance(key, str):
            return -1  # no key of the list is equal to it (all are strings)
        self._searches += 1
        if self._searches > SEARCHES:
            return self._dict().get(key, -1)
        if 0 < at <= n and key > keys[at - 1]:  # after the last one found
            end = min(n, at + WINDOW)
            i = bisect_left(keys, key, at, end)
            if i == end < n:
                i = bisect_left(keys, key, end)
        else:
            i = bisect_left(keys, key)
        if i < n and keys[i] == key:
            self._next = i + 1
            return i
        return -1

    def __getitem__(self, key: str) -> int:
        at = self.position(key)
        if at < 0:
            raise KeyError(key)
        return at

    def get(self, key: str, default: Any = None) -> Any:
        at = self.position(key)
        return default if at < 0 else at

    def __contains__(self, key: object) -> bool:
        return self.position(key) >= 0

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __repr__(self) -> str:
        return f"RowIndex({len(self._keys)} keys)"

    def positions(self, wanted: Sequence[str]) -> np.ndarray:
        """Each of ``wanted``'s position (``-1``: not a key), as int64."""
        n = len(self._keys)
        if wanted is self._keys or equal_in_slices(wanted, self._keys):
            return np.arange(n, dtype=np.int64)
        if len(wanted) == n and self._table is None:
            listed = list(wanted)
            try:
                order = string_order(listed)
            except TypeError:  # not all strings: no key's equal (all are)
                order = None
            if order is not None \
                    and equal_in_slices(take_in_slices(object_array(listed), order), self._keys):
                out = np.empty(n, np.int64)  # the same keys in another order: their ranks
                out[order] = np.arange(n, dtype=np.int64)
                return out
        return _lookups(self._dict(), wanted)


def _lookups(index: Mapping[str, int], wanted: Sequence[str]) -> np.ndarray:
    out = np.empty(len(wanted), np.int64)
    for start in range(0, len(wanted), SLICE):  # short C calls (app.core.slices)
        part = wanted[start:start + SLICE]
        out[start:start + len(part)] = np.fromiter(map(index.get, part, repeat(-1)),
                                                   np.int64, len(part))
    return out


def positions_in(index: Mapping[str, int], wanted: Sequence[str]) -> np.ndarray:
    """Each of ``wanted``'s value in ``index`` (``-1``: none), as int64: through
    :meth:`RowIndex.positions` where it is one, else a slice of lookups at a time."""
    if isinstance(index, RowIndex):
        return index.positions(wanted)
    return _lookups(index, wanted)


class KeyedValues(Mapping[str, int]):
    """key → value for distinct string keys kept in any order (``listed``, the order the
    mapping iterates in): found by a :class:`RowIndex` of the keys sorted, so a million
    keys (``engine_item``'s ids, in ingestion order, and their meta codes) need no dict.
    Made by :func:`keyed_values`."""

    __slots__ = ("_listed", "_rows", "_values")

    def __init__(self, listed: Sequence[str], rows: RowIndex, values: list[int]) -> None:
        self._listed, self._rows, self._values = listed, rows, values

    def __getitem__(self, key: str) -> int:
        at = self._rows.position(key)
        if at < 0:
            raise KeyError(key)
        return self._values[at]

    def get(self, key: str, default: Any = None) -> Any:
        at = self._rows.position(key)
        return default if at < 0 else self._values[at]

    def __contains__(self, key: object) -> bool:
        return self._rows.position(key) >= 0

    def __len__(self) -> int:
        return len(self._listed)

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed)

    def __repr__(self) -> str:
        return f"KeyedValues({len(self._listed)} keys)"


def keyed_values(listed: Sequence[str], values: Sequence[int]) -> KeyedValues | None:
    """``dict(zip(listed, values))`` as a :class:`KeyedValues` (sorting the keys with
    :func:`~app.core.slices.string_order`, which a study's items usually have sorted
    already), or ``None`` when a key is there twice or is not a string (the caller
    makes the dict, whose last value of a key wins)."""
    keys = list_in_slices(listed)
    if len(keys) != len(values):
        raise ValueError("as many values as keys expected")
    if keys and set_in_slices(map(type, keys)) != {str}:
        return None
    order = string_order(keys)
    ordered = take_in_slices(object_array(keys), order)
    if not strictly_ascending(ordered):
        return None
    sorted_values = take_in_slices(object_array(list(values)), order)
    return KeyedValues(listed, RowIndex(ordered), sorted_values)


def strictly_ascending(values: Sequence[str], size: int = 10 * SLICE) -> bool:
    """Each string after the one before (none twice), a slice at a time."""
    return all(all(map(str.__lt__, values[start:start + size],
                       values[start + 1:start + size + 1]))
               for start in range(0, len(values), size))
