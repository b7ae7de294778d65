"""A float64 array that reads as a list of Python floats, the list made only if needed.

Why a module: each tier of a million-item ``engine.sqlite`` keeps its confidences as an
array (what the prediction table and the contracts compute with) and, for the readers
that take one answer at a time, as a list. Made eagerly, the three tiers' lists were a
third of a second of the main thread and 100 MB; most runs read a few thousand of them
(a contract's calibration items). Here an element is ``float(array[i])``, the very float
``array.tolist()[i]`` gives, and the list is made (a slice at a time) the first time the
whole column is iterated.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from app.core.slices import tolist_in_slices


class FloatList(Sequence[float]):
    """``array`` (one-dimensional float64) as a read-only sequence of floats; equal to
    a list or another :class:`FloatList` with the same floats."""

    __slots__ = ("_array", "_listed")

    def __init__(self, array: np.ndarray) -> None:
        if array.ndim != 1 or array.dtype != np.float64:
            raise ValueError("expected a one-dimensional float64 array")
        self._array = array
        self._listed: list[float] | None = None

    def _list(self) -> list[float]:
        if self._listed is None:
            self._listed = tolist_in_slices(self._array)
        return self._listed

    @overload
    def __getitem__(self, index: int) -> float: ...

    @overload
    def __getitem__(self, index: slice) -> list[float]: ...

    def __getitem__(self, index: int | slice) -> float | list[float]:
        if self._listed is not None:
            return self._listed[index]
        if isinstance(index, slice):
            sliced: list[float] = self._array[index].tolist()
            return sliced
        return float(self._array[index])

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self) -> Iterator[float]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FloatList | list):
            return len(self) == len(other) and self._list() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a list's equality, a list's hash

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self) -> tuple[Any, ...]:
        return (FloatList, (self._array,))
