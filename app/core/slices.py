"""Whole-column loops run in C, a slice at a time, so no single call holds the lock long.

Why: the fastest way to build a million-entry dict or list in CPython is one C call
(``dict(zip(...))``, ``list(map(...))``, ``dict(compress(...))``): no bytecode runs
inside it, so it is 3–10× faster than a comprehension. But the interpreter switches
threads only between bytecodes, so such a call holds the interpreter lock from start to
end: on a study of a million predictions one ``dict(compress(zip(...)))`` held it for
over a second, and the GUI thread, which opens projects on a worker, froze for that long
(``tests/benchmarks/bench_gui_stall.py``; the goal is no stall over 50 ms).

These helpers consume the same iterator in slices of :data:`SLICE` entries, each one C
call of a few milliseconds, with a bytecode boundary between slices where the GUI thread
gets its turn. The result is exactly what the single call would give (same entries, same
order, the last value of a repeated key wins); the cost is one Python iteration per
slice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any, TypeVar

import numpy as np

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

SLICE = 10_000
"""Entries per C call: about 2–5 ms on this machine for the loops above, well under the
GUI's 50 ms budget even on a busy machine."""


def let_others_run() -> None:
    """Hand the interpreter lock to a thread waiting for it (the GUI's), if one is.

    Why, between slices: a thread waiting for the lock asks its holder to let go only
    when no other thread has taken it meanwhile, and a C call that lets go of the lock
    and takes it back inside (numpy's string conversions, SQLite's steps) counts as such
    a switch. A loop of those calls never hands the lock over: the GUI thread waited
    60-90 ms through the 100 slices that sort a million item ids, every time
    (``tests/benchmarks/bench_gui_stall.py``). ``sleep(0)`` lets go of it in a system
    call, long enough for the waiting thread to take it; alone, it costs a microsecond."""
    time.sleep(0)


def list_in_slices(values: Iterable[T], size: int = SLICE) -> list[T]:
    """``list(values)``, built a slice at a time."""
    if size < 1:
        raise ValueError("size must be at least 1")
    out: list[T] = []
    iterator = iter(values)
    while True:
        before = len(out)
        out.extend(islice(iterator, size))
        if len(out) - before < size:
            return out
        let_others_run()


_END = object()


def _update_in_slices(out: Any, values: Iterable[Any], size: int) -> Any:
    """``out.update`` with ``values``, a slice at a time; returns ``out``.

    Each slice goes straight from the iterator into ``update`` (no list of it is made:
    ``zip`` then reuses one tuple for every pair, which made a million-entry dict 30%
    faster); whether the values are done is seen by taking the next one, which is put in
    before the next slice, so the order is the iterator's."""
    if size < 1:
        raise ValueError("size must be at least 1")
    iterator = iter(values)
    while True:
        out.update(islice(iterator, size))
        following = next(iterator, _END)
        if following is _END:
            return out
        out.update((following,))
        let_others_run()


def dict_update_in_slices(out: dict[K, V], pairs: Iterable[tuple[K, V]], size: int = SLICE
                          ) -> dict[K, V]:
    """``out.update(pairs)``, a slice at a time; returns ``out``."""
    result: dict[K, V] = _update_in_slices(out, pairs, size)
    return result


def dict_in_slices(pairs: Iterable[tuple[K, V]], size: int = SLICE) -> dict[K, V]:
    """``dict(pairs)``, built a slice at a time (a later pair of a key wins, as in
    ``dict``)."""
    result: dict[K, V] = _update_in_slices({}, pairs, size)
    return result


def set_in_slices(values: Iterable[T], size: int = SLICE) -> set[T]:
    """``set(values)``, built a slice at a time."""
    result: set[T] = _update_in_slices(set(), values, size)
    return result


DROP_SLICE = 256
"""Entries freed between two hand-overs by :func:`empty_in_slices` (a parsed item's
answers are a few hundred objects: about 2 ms a slice)."""


def empty_in_slices(values: dict[Any, Any], size: int = DROP_SLICE) -> None:
    """Empty ``values``, the entries (and all only they hold) freed a slice at a time.

    Why: dropping the last reference to a big parsed structure frees it all in one step
    of bytecode. A Potato ``user_state.json`` of 10,000 documents with 20 spans each
    parsed into a million small dicts, lists and strings, freed in 47 ms with the lock
    held, three times while a span study opened (``bench_gui_stall.py --spans``). Only
    for a dict nobody else sees: it is emptied, not copied."""
    if size < 1:
        raise ValueError("size must be at least 1")
    pop = values.popitem
    while values:
        for _ in range(min(size, len(values))):
            pop()
        let_others_run()


def contains_in_slices(values: Sequence[Any], target: object, size: int = SLICE * 10
                       ) -> bool:
    """``target in values``, a slice at a time: the ``in`` of a list is one step of
    bytecode that compares every element (``"" in ids`` over a million item ids held the
    lock 20-25 ms)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    for start in range(0, len(values), size):
        if target in values[start:start + size]:
            return True
        let_others_run()
    return False


def tolist_in_slices(values: np.ndarray, size: int = SLICE * 10) -> list[Any]:
    """``values.tolist()`` of a one-dimensional array, a slice at a time (3,000,000
    floats in one call held the lock for about 50 ms)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    out: list[Any] = []
    for start in range(0, len(values), size):
        out += values[start : start + size].tolist()
        let_others_run()
    return out


def array_in_slices(values: Iterable[Any], dtype: Any, count: int, size: int = SLICE * 10
                    ) -> np.ndarray:
    """``np.fromiter(values, dtype, count)``, a slice at a time (3,000,000 label codes in
    one call held the lock over 100 ms)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    out = np.empty(count, dtype=dtype)
    iterator = iter(values)
    for start in range(0, count, size):
        stop = min(start + size, count)
        out[start:stop] = np.fromiter(iterator, dtype, stop - start)
        let_others_run()
    return out


def take_in_slices(values: np.ndarray, codes: np.ndarray, size: int = SLICE * 10
                   ) -> list[Any]:
    """``values[codes].tolist()`` (the objects ``codes`` point at, in a list), a slice
    at a time."""
    if size < 1:
        raise ValueError("size must be at least 1")
    out: list[Any] = []
    for start in range(0, len(codes), size):
        out += values[codes[start : start + size]].tolist()
        let_others_run()
    return out


SORT_IN_NUMPY = 200_000
"""From this many strings on, :func:`sorted_strings` sorts in numpy."""


def sorted_strings(values: list[str], size: int = SLICE) -> list[str]:
    """``sorted(values)``, the very string objects, with the sort itself done by numpy,
    which releases the interpreter lock while it sorts (``sorted`` of a million item ids
    held it 50-120 ms in one call): :func:`string_order`, then the strings taken back a
    slice at a time."""
    if len(values) < SORT_IN_NUMPY:
        return sorted(values)
    return take_in_slices(object_array(values, size), string_order(values, size))


def string_order(values: list[str], size: int = SLICE) -> np.ndarray:
    """The stable order that sorts ``values`` (``sorted(range(n), key=values.__getitem__)``
    as a read-only int64 array). From :data:`SORT_IN_NUMPY` strings on, the strings are
    copied into a numpy string array a slice at a time and argsorted there; small lists,
    and strings numpy orders otherwise or cannot hold (a NUL character, a lone surrogate),
    are ordered by ``sorted``. The last long list's order is kept: the same strings
    again (:data:`_last_order`) get it back without sorting."""
    if len(values) < SORT_IN_NUMPY:
        return _readonly(np.array(sorted(range(len(values)), key=values.__getitem__),
                                  dtype=np.int64))
    with _order_lock:
        last = _last_order[0] if _last_order else None
    if last is not None and equal_in_slices(last[0], values):
        return last[1]
    order = _readonly(_numpy_order(values, size))
    with _order_lock:
        _last_order[:] = [(tuple(values), order)]
    return order


_last_order: list[tuple[tuple[str, ...], np.ndarray]] = []
"""The last long list :func:`string_order` sorted, and its order. Why: a million-item
``engine.sqlite`` study sorts the same ids up to three times (a tier's ids, the
study's items for the contracts, the engine's items in ingestion order, which Potato
usually stores in the data file's order): 0.3-0.5 s each, against 10-30 ms to see
that the strings are the same."""
_order_lock = threading.Lock()


def _numpy_order(values: list[str], size: int) -> np.ndarray:
    parts = []
    for start in range(0, len(values), size):
        chunk = values[start : start + size]
        if "\x00" in "".join(chunk):
            break
        try:
            parts.append(np.array(chunk, dtype=np.dtypes.StringDType()))
        except UnicodeEncodeError:
            break
        let_others_run()
    else:
        return np.argsort(np.concatenate(parts), kind="stable")
    return np.array(sorted(range(len(values)), key=values.__getitem__), dtype=np.int64)


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def equal_in_slices(a: Sequence[Any], b: Sequence[Any], size: int = SLICE * 10) -> bool:
    """``list(a) == list(b)``, a slice at a time (the same string objects compare in
    nanoseconds, equal copies by their characters)."""
    if len(a) != len(b):
        return False
    for start in range(0, len(a), size):
        if list(a[start:start + size]) != list(b[start:start + size]):
            return False
        let_others_run()
    return True


def object_array(values: Sequence[Any], size: int = SLICE * 10) -> np.ndarray:
    """``values`` in an object array, filled a slice at a time (any sequence: a list is
    not copied first)."""
    return joined_object_array([values], size)


def joined_object_array(parts: Sequence[Sequence[Any]], size: int = SLICE * 10
                        ) -> np.ndarray:
    """The values of ``parts``, one part after the other, in one object array filled a
    slice at a time: ``np.concatenate`` of the parts' object arrays copied a million
    references in one call, 15-19 ms with the interpreter lock held."""
    if size < 1:
        raise ValueError("size must be at least 1")
    objects = np.empty(sum(map(len, parts)), dtype=object)
    at = 0
    for part in parts:
        for start in range(0, len(part), size):
            piece = part[start : start + size]
            objects[at + start : at + start + len(piece)] = piece
            let_others_run()
        at += len(part)
    return objects


TEXT_SLICE = 1 << 19
"""Characters of a joined text split or parsed per C call (:func:`split_in_slices`,
:func:`ints_in_slices`): half a megabyte, a few milliseconds."""


def _pieces(text: str, separator: str, size: int) -> list[str]:
    """``text`` cut at a ``separator`` about every ``size`` characters (the cutting
    separators dropped): joining the pieces with ``separator`` gives ``text`` back."""
    if len(separator) != 1:
        raise ValueError("the separator must be one character")
    if size < 1:
        raise ValueError("size must be at least 1")
    pieces: list[str] = []
    start = 0
    while (end := text.find(separator, start + size)) >= 0:
        pieces.append(text[start:end])
        start = end + 1
    pieces.append(text[start:])
    return pieces


def split_in_slices(text: str, separator: str, size: int = TEXT_SLICE) -> list[str]:
    """``text.split(separator)`` of a one-character separator, a piece of about ``size``
    characters at a time (a million ids joined in one text took 75 ms in one call)."""
    out: list[str] = []
    for piece in _pieces(text, separator, size):
        out += piece.split(separator)
        let_others_run()
    return out


def ints_in_slices(text: str, dtype: Any, size: int = TEXT_SLICE) -> np.ndarray:
    """The comma-separated decimal integers of ``text`` (as SQLite's ``group_concat``
    writes them) as an array of ``dtype``, parsed by numpy a piece at a time; a text that
    is not only such integers raises ``ValueError``."""
    parts = []
    for piece in _pieces(text, ",", size):
        if "," not in piece:  # one number (fromstring reads "" as no number)
            parts.append(np.array([int(piece)], dtype=dtype))
            continue
        parsed = np.fromstring(piece, dtype=dtype, sep=",")
        if len(parsed) != piece.count(",") + 1:
            raise ValueError("not comma-separated integers")
        parts.append(parsed)
        let_others_run()
    return np.concatenate(parts)


def repeat_each(values: np.ndarray, times: int) -> np.ndarray:
    """``np.repeat(values, times)`` of a one-dimensional array and one count, filled by
    broadcasting: numpy lets go of the lock while it copies, not while it repeats
    (a million rows three times: 28 ms holding it, against 6 ms not)."""
    out = np.empty(len(values) * times, dtype=values.dtype)
    out.reshape(len(values), times)[...] = values[:, None]
    return out


def tiled(values: np.ndarray, times: int) -> np.ndarray:
    """``np.tile(values, times)`` of a one-dimensional array, filled by broadcasting (for
    the same reason as :func:`repeat_each`: ``tile`` repeats)."""
    out = np.empty(len(values) * times, dtype=values.dtype)
    out.reshape(times, len(values))[...] = values
    return out
