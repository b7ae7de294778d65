"""A read-only mapping of many distinct string keys, kept in dicts of at most about
65,000 keys each, so building it never holds the interpreter lock for long.

Why: a study of a million items was a million-entry dict (id → item). Built a slice at
a time (:mod:`app.core.slices`) it still grows by resizes, and the last one re-inserts
700,000 entries into 30 MB of fresh memory in one C call: 35-110 ms with the lock held,
the window's thread frozen meanwhile (``tests/benchmarks/bench_gui_stall.py``, goal 50
ms). Python has no way to make a dict of the right size up front. Here the keys are
split by their hash into :func:`shard_count` dicts of key → position; the largest
resize is a sixteenth of the one before (a few milliseconds). A key's dict is found by
its hash, so a lookup is two dict-speed steps inside one Python call.

:class:`ShardedIndex` is key → position; :class:`ShardedMap` is key → value over it,
iterated in the keys' order as the dict it replaces was (values and items come straight
from the lists, never through a lookup). Both equal the dict they stand for in every
read: ``[]``, ``get``, ``in``, ``len``, iteration, the views, ``==``.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from typing import Any, TypeVar

import numpy as np

from app.core.slices import (
    array_in_slices,
    dict_in_slices,
    let_others_run,
    object_array,
    take_in_slices,
    tolist_in_slices,
)

V = TypeVar("V")

SHARD_KEYS = 1 << 16
"""Keys per dict, about: the last resize of a dict this size re-inserts some 44,000
entries (1-3 ms)."""

ROUTE_SHIFT = 48
"""A key's dict is chosen by bits 48 and up of its hash: a dict places a key by the low
bits, and keys that all shared their low bits would crowd a sixteenth of its slots (a
lookup then probed many times: 3-5 times slower)."""


def shard_count(n: int) -> int:
    """The number of dicts for ``n`` keys: a power of two, one up to
    :data:`SHARD_KEYS`."""
    return 1 << max(0, (n - 1) // SHARD_KEYS).bit_length()


class ShardedIndex(Mapping[str, int]):
    """key → its position in ``keys`` (distinct hashable keys; see :meth:`of`)."""

    __slots__ = ("_keys", "_mask", "_shards")

    def __init__(self, keys: Sequence[str], shards: Sequence[dict[str, int]]) -> None:
        self._keys, self._shards, self._mask = keys, tuple(shards), len(shards) - 1

    @classmethod
    def of(cls, keys: Sequence[str]) -> ShardedIndex | None:
        """The index of ``keys``, or ``None`` when a key is there twice. Built in C a
        slice at a time: each key's dict from its hash (numpy groups the positions),
        then each dict from its keys."""
        count = shard_count(len(keys))
        mask = count - 1
        if count == 1:
            single = dict_in_slices(zip(keys, range(len(keys)), strict=True))
            return cls(keys, [single]) if len(single) == len(keys) else None
        hashes = array_in_slices(map(hash, keys), np.int64, len(keys))
        shard = (hashes >> ROUTE_SHIFT & mask).astype(np.uint16)
        order = np.argsort(shard, kind="stable")  # positions grouped by dict, ascending
        ends = np.cumsum(np.bincount(shard, minlength=count)).tolist()
        del hashes, shard
        names = object_array(keys)  # not a copy of the list first: 8 MB in one call
        shards = []
        start = 0
        for end in ends:
            positions = order[start:end]
            shards.append(dict_in_slices(zip(take_in_slices(names, positions),
                                             tolist_in_slices(positions), strict=True)))
            start = end
            let_others_run()
        if sum(map(len, shards)) != len(keys):
            return None
        return cls(keys, shards)

    def __getitem__(self, key: str) -> int:
        return self._shards[hash(key) >> ROUTE_SHIFT & self._mask][key]

    def get(self, key: object, default: Any = None) -> Any:
        found = self._shards[hash(key) >> ROUTE_SHIFT & self._mask]
        return found.get(key, default)  # type: ignore[call-overload]

    def __contains__(self, key: object) -> bool:
        return key in self._shards[hash(key) >> ROUTE_SHIFT & self._mask]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def codes(self, keys: Iterable[str], size: int) -> np.ndarray:
        """The positions of ``size`` keys (``KeyError`` for a key not here), as int64:
        each key's dict from its hash in numpy, the lookups in one C call."""
        listed = list(keys)
        if len(self._shards) == 1:
            return np.fromiter(map(self._shards[0].__getitem__, listed), np.int64, size)
        routes = np.fromiter(map(hash, listed), np.int64, size) >> ROUTE_SHIFT & self._mask
        dicts = map(self._shards.__getitem__, routes.tolist())
        return np.fromiter(map(dict.__getitem__, dicts, listed), np.int64, size)

    def __repr__(self) -> str:
        return f"ShardedIndex({len(self)} keys in {len(self._shards)} dicts)"


class ShardedMap(Mapping[str, V]):
    """key → value of distinct keys, in the keys' order (see :meth:`of`)."""

    __slots__ = ("_index", "_mask", "_shards", "_values")

    def __init__(self, index: ShardedIndex, values: Sequence[V]) -> None:
        if len(values) != len(index):
            raise ValueError("expected one value per key")
        self._index, self._values = index, values
        self._shards, self._mask = index._shards, index._mask

    @classmethod
    def of(cls, keys: Sequence[str], values: Sequence[V]) -> ShardedMap[V] | None:
        """``dict(zip(keys, values))`` as a sharded map, or ``None`` when a key is there
        twice (the dict would keep one of them)."""
        index = ShardedIndex.of(keys)
        return None if index is None else cls(index, values)

    @property
    def index(self) -> ShardedIndex:
        """key → position, the positions of :meth:`keys`' order."""
        return self._index

    def value_list(self) -> Sequence[V]:
        """The values in the keys' order."""
        return self._values

    def __getitem__(self, key: str) -> V:
        return self._values[self._shards[hash(key) >> ROUTE_SHIFT & self._mask][key]]

    def get(self, key: object, default: Any = None) -> Any:
        found = self._shards[hash(key) >> ROUTE_SHIFT & self._mask]
        position = found.get(key)  # type: ignore[call-overload]
        return default if position is None else self._values[position]

    def __contains__(self, key: object) -> bool:
        return key in self._shards[hash(key) >> ROUTE_SHIFT & self._mask]

    def __iter__(self) -> Iterator[str]:
        return iter(self._index._keys)

    def __len__(self) -> int:
        return len(self._values)

    def values(self) -> ValuesView[V]:
        return _Values(self)

    def items(self) -> ItemsView[str, V]:
        return _Items(self)

    def __repr__(self) -> str:
        return f"ShardedMap({len(self)} keys in {len(self._shards)} dicts)"


class _Values(ValuesView[V]):
    _mapping: ShardedMap[V]

    def __iter__(self) -> Iterator[V]:
        return iter(self._mapping.value_list())


class _Items(ItemsView[str, V]):
    _mapping: ShardedMap[V]

    def __iter__(self) -> Iterator[tuple[str, V]]:
        return zip(self._mapping.index._keys, self._mapping.value_list(), strict=True)
