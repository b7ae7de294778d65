"""A sequence of ``n`` Nones that allocates nothing per element.

Why a module: a column that is ``None`` in every row (the file lines and probability
distributions of the predictions ``engine.sqlite`` holds, which have neither) was a list
of three million Nones on a million-item study: a 24 MB allocation whose pages, touched
in one C call, held the interpreter lock up to 77 ms beside SQLite's threads (a stall
of the GUI, ``tests/benchmarks/bench_gui_stall.py``). Read by index, slice or iteration,
it gives what that list gives, and it compares equal to it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import overload


class Nones(Sequence[None]):
    """``[None] * length``, read-only, without the list."""

    __slots__ = ("_length",)

    def __init__(self, length: int) -> None:
        if length < 0:
            raise ValueError("the length must be at least 0")
        self._length = length

    @overload
    def __getitem__(self, index: int) -> None: ...

    @overload
    def __getitem__(self, index: slice) -> list[None]: ...

    def __getitem__(self, index: int | slice) -> list[None] | None:
        if isinstance(index, slice):
            return [None] * len(range(*index.indices(self._length)))
        range(self._length)[index]  # raises IndexError as a list would
        return None

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[None]:
        return repeat(None, self._length)

    def __reversed__(self) -> Iterator[None]:
        return repeat(None, self._length)

    def __contains__(self, value: object) -> bool:
        return self._length > 0 and value is None

    def count(self, value: object) -> int:
        return self._length if value is None else 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Nones):
            return other._length == self._length
        if isinstance(other, list | tuple):
            return len(other) == self._length and other.count(None) == self._length
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (like the list it stands for)

    def __repr__(self) -> str:
        return f"Nones({self._length})"
