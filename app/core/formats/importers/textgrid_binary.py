"""Praat's binary TextGrid (``Save as binary file``), read without Praat.

Why our own reader: praatio (which reads the text forms, :mod:`.textgrid`) does not read
the binary form, and Praat writes it whenever a user picks "Save as binary file" (it is
smaller and faster for long corpora). The layout is Praat's generic binary
serialization (``melder/abcio.cpp``, ``sys/Collection.cpp``, ``fon/TextGrid_def.h``),
big-endian throughout::

    "ooBinaryFile"  s8 "TextGrid"           (s8: u8 length, then that many bytes)
    f64 xmin  f64 xmax  u8 exists           (exists = 0: no tiers, and nothing follows)
    i32 n_tiers
    per tier:  s8 class ("IntervalTier" or "TextTier")  w16 name
               f64 xmin  f64 xmax  i32 n
               per interval: f64 xmin  f64 xmax  w16 text
               per point:    f64 time  w16 mark

``w16`` is a u16 length and that many bytes, one character each (zero-extended: read as
Latin-1); or, when the length is ``0xFFFF``, a u16 count of characters and then UTF-16BE
code units, a character outside the basic plane taking a surrogate pair.

Choices where Praat leaves room:

- A class name may carry Praat's `` <version>`` suffix; only version 0 of TextGrid,
  IntervalTier and TextTier exists, so any other class or version is refused.
- The file must end after the last tier: bytes left over mean it is not what this
  layout says (another object, or a damaged file), and guessing would import nonsense.
- A count is checked against the bytes left before anything is read for it, so a
  damaged count fails at once instead of looping or allocating.
- Errors name the file and the byte offset where reading stopped, and say to save the
  grid again from Praat (``Save as text file`` works for every importer here).
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import InputError

MAGIC = b"ooBinaryFile"
GRID_CLASS = "TextGrid"
INTERVAL_TIER = "IntervalTier"
POINT_TIER = "TextTier"
_VERSION = re.compile(r"^(\w+)(?: 0)?$")
_MIN_INTERVAL = 8 + 8 + 2
_MIN_POINT = 8 + 2
_MIN_TIER = 1 + 2 + 8 + 8 + 4


Entry = tuple[float, float, str] | tuple[float, str]
"""An interval ``(start, end, text)`` or a point ``(time, text)``, as praatio gives them."""


@dataclass(frozen=True)
class BinaryTier:
    name: str
    intervals: bool
    """An interval tier, else a point tier."""
    entries: tuple[Entry, ...]


@dataclass(frozen=True)
class BinaryGrid:
    xmin: float
    xmax: float
    tiers: tuple[BinaryTier, ...]


def is_binary(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a Praat binary file."""
    return head.startswith(MAGIC)


class _Cursor:
    def __init__(self, data: bytes, path: Path) -> None:
        self.data, self.path, self.at = data, path, 0

    def fail(self, what: str) -> InputError:
        return InputError(f"{what} (at byte {self.at}); expected Praat's binary TextGrid as "
                          "Praat writes it: save it again from Praat (Save as binary file, or "
                          "Save as text file)", file=self.path)

    def take(self, n: int, what: str) -> bytes:
        if self.at + n > len(self.data):
            raise self.fail(f"the file ends inside {what}")
        chunk = self.data[self.at:self.at + n]
        self.at += n
        return chunk

    def u8(self, what: str) -> int:
        return self.take(1, what)[0]

    def u16(self, what: str) -> int:
        value: int = struct.unpack(">H", self.take(2, what))[0]
        return value

    def count(self, what: str, least: int) -> int:
        n: int = struct.unpack(">i", self.take(4, what))[0]
        if n < 0 or n * least > len(self.data) - self.at:
            raise self.fail(f"{what} is {n}, more than the {len(self.data) - self.at} bytes "
                            "left can hold" if n >= 0 else f"{what} is negative ({n})")
        return n

    def f64(self, what: str) -> float:
        value: float = struct.unpack(">d", self.take(8, what))[0]
        if not math.isfinite(value):
            raise self.fail(f"{what} is {value}, not a finite number of seconds")
        return value

    def s8(self, what: str) -> str:
        return self.take(self.u8(what), what).decode("latin-1")

    def w16(self, what: str) -> str:
        n = self.u16(what)
        if n != 0xFFFF:
            return self.take(n, what).decode("latin-1")
        chars = self.u16(what)
        units: list[int] = []
        for _ in range(chars):
            unit = self.u16(what)
            units.append(unit)
            if 0xD800 <= unit <= 0xDBFF:
                units.append(self.u16(what))
        raw = struct.pack(f">{len(units)}H", *units)
        try:
            return raw.decode("utf-16-be")
        except UnicodeDecodeError:
            raise self.fail(f"{what} is not valid UTF-16") from None


def read_binary(data: bytes, path: Path) -> BinaryGrid:
    """The grid in ``data``, the bytes of ``path`` (see the module)."""
    cursor = _Cursor(data, path)
    cursor.take(len(MAGIC), "the header")
    if data[:len(MAGIC)] != MAGIC:
        raise cursor.fail("the file does not start with ooBinaryFile")
    grid_class = _class(cursor.s8("the object's class"))
    if grid_class != GRID_CLASS:
        raise cursor.fail(f"the file holds a Praat '{grid_class}', not a TextGrid")
    xmin, xmax = cursor.f64("the grid's xmin"), cursor.f64("the grid's xmax")
    tiers: list[BinaryTier] = []
    names: set[str] = set()
    if cursor.u8("the tiers' presence flag"):
        for k in range(cursor.count("the number of tiers", _MIN_TIER)):
            tiers.append(_tier(cursor, k + 1, names))
    if cursor.at != len(data):
        raise cursor.fail(f"{len(data) - cursor.at} bytes follow the last tier")
    return BinaryGrid(xmin, xmax, tuple(tiers))


def _class(name: str) -> str:
    match = _VERSION.match(name)
    return match.group(1) if match else name


def _tier(cursor: _Cursor, k: int, names: set[str]) -> BinaryTier:
    kind = _class(cursor.s8(f"the class of tier {k}"))
    if kind not in (INTERVAL_TIER, POINT_TIER):
        raise cursor.fail(f"tier {k} is a '{kind}'; expected an IntervalTier or a TextTier")
    name = cursor.w16(f"the name of tier {k}")
    if name in names:
        raise cursor.fail(f"two tiers are named '{name}'; expected unique tier names")
    names.add(name)
    cursor.f64(f"the xmin of tier '{name}'")
    cursor.f64(f"the xmax of tier '{name}'")
    entries: list[Entry] = []
    if kind == INTERVAL_TIER:
        for i in range(cursor.count(f"the number of intervals of tier '{name}'",
                                    _MIN_INTERVAL)):
            where = f"interval {i + 1} of tier '{name}'"
            entries.append((cursor.f64(where), cursor.f64(where), cursor.w16(where)))
    else:
        for i in range(cursor.count(f"the number of points of tier '{name}'", _MIN_POINT)):
            where = f"point {i + 1} of tier '{name}'"
            entries.append((cursor.f64(where), cursor.w16(where)))
    return BinaryTier(name, kind == INTERVAL_TIER, tuple(entries))
