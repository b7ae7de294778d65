"""``predictions.jsonl`` decoded by msgspec straight into columns, or not at all.

Why: on a 1,000,000-item study (3,000,000 lines) ``json.loads`` built one dict per line,
about 3 GB of dicts and key strings that :func:`~app.core.formats.labeling.table.
read_common_predictions` then read column by column. msgspec decodes each line into a
five-field struct (no dict, no key strings) and the columns are taken from a chunk of
structs at once; a schema, tier or option label comes back as the one string object of
its ``Literal``, so 3,000,000 repeats of ``"sentiment"`` are one string.

It is a fast path only, taken when it provably gives what ``json.loads`` gives per line,
and ``None`` otherwise (then the file is read as before, whose messages name the line):

- every line of the file starts with ``{`` (no blank line but trailing ones), so each
  line holds at least one value. A chunk of lines is decoded by msgspec's
  ``decode_lines``, which reads whitespace-separated values. The struct has only scalar
  fields and refuses unknown keys, so a ``{`` can only open a top-level value: no value
  runs into the next line (that line starts with ``{``), and exactly as many values as
  lines means each line is one object on its own, what ``json.loads`` reads of it;
- the five fields are there and of the common types (``item``, ``schema``, ``tier``
  strings; ``label`` a string, an integer or a float, never a boolean or null;
  ``confidence`` a number, read as a float as ``read_common_predictions`` reads it),
  with no other key (``probs``, even ``null``, goes to the full reader);
- msgspec refuses what ``json.loads`` reads differently or what the per-line reader
  refuses: ``NaN`` and infinities, lone surrogates, numbers out of a float's range;
  a duplicated key keeps its last value in both. An integer label of more than
  :data:`~app.core.formats.reading.nesting.MAX_INT_DIGITS` digits, which the per-line reader
  refuses, sends the file to it too.

Float values are correctly rounded by both parsers (``tests/core/test_labeling_decoded.py``
compares them on hard cases).

The columns come back as numpy codes (:class:`Columns`): an item is its position among
the study's ids, a schema, tier or label its position among the distinct ones, so a
million-item study's 3,000,000 lines cost about 20 bytes each instead of five list slots
and an item string apiece (the strings a line decodes to are dropped with its chunk).
An item that is not one of ``items`` fails the fast path like any other uncommon value.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any, Literal

import msgspec
import numpy as np

from app.core.formats.labeling.item_codes import ItemCodes
from app.core.formats.reading.nesting import MAX_INT_DIGITS
from app.core.sharded import ShardedIndex

CHUNK_BYTES = 1 << 20
"""Bytes per msgspec call (about 10,000 lines): one call holds the interpreter lock, so
the window's thread is never stalled for long (as ``json_lines.CHUNK_LINES``)."""
MAX_LITERALS = 1_000
"""More distinct names than this are decoded as plain strings."""
_BOM = b"\xef\xbb\xbf"
_ITEM, _SCHEMA, _TIER = attrgetter("item"), attrgetter("schema"), attrgetter("tier")
_LABEL, _CONFIDENCE = attrgetter("label"), attrgetter("confidence")


@dataclass(frozen=True, slots=True)
class Columns:
    """The five fields of every line, in file order (line ``k`` is ``k + 1``), as codes:
    ``item[k]`` indexes ``items``, ``schema[k]`` ``schemas``, ``tier[k]`` ``tiers`` and
    ``label[k]`` ``labels`` (each distinct raw label once, ``-0.0`` apart from ``0.0``)."""

    items: Sequence[str]
    index: Mapping[str, int]
    """item → its code (its position in ``items``)."""
    item: np.ndarray
    schemas: tuple[str, ...]
    schema: np.ndarray
    tiers: tuple[str, ...]
    tier: np.ndarray
    labels: list[Any]
    label: np.ndarray
    confidence: np.ndarray

    def __len__(self) -> int:
        return len(self.item)


class _Labels:
    """Distinct raw labels and their codes; an option name is found by one dict lookup,
    any other value through a key that keeps types (and ``-0.0``) apart."""

    def __init__(self, options: Sequence[str]) -> None:
        self.values: list[Any] = list(options)
        self.names = {name: code for code, name in enumerate(options)}
        self.keys: dict[tuple[type, Any], int] = {(str, n): c for n, c in self.names.items()}

    def codes(self, rows: list[Any]) -> np.ndarray:
        """The codes of the rows' labels."""
        try:  # the common chunk: every label an option name
            return np.fromiter(map(self.names.__getitem__, map(_LABEL, rows)), np.int32,
                               len(rows))
        except KeyError:
            return np.fromiter(map(self._code, map(_LABEL, rows)), np.int32, len(rows))

    def _code(self, value: Any) -> int:
        kind = type(value)
        key = (kind, value.hex() if kind is float else value)
        code = self.keys.get(key)
        if code is None:
            code = self.keys[key] = len(self.values)
            self.values.append(value)
        return code


def decode_common(data: bytes | mmap.mmap, schemas: Collection[str], tiers: Collection[str],
                  labels: Collection[str], items: Sequence[str] | None = None,
                  index: Mapping[str, int] | None = None) -> Columns | None:
    """The columns of ``data`` (a whole ``predictions.jsonl``, as bytes or a memory map
    that is read a chunk at a time and never exported), or ``None`` when some line is not
    common. ``schemas``, ``tiers`` and ``labels`` are the expected names: a value among
    them is the same string object every time; any other schema or tier fails the fast
    path (the full reader names it). ``items`` are the known item ids and ``index`` each
    one's position (built when not given); ``None``: any id, coded in order of first
    appearance."""
    start = len(_BOM) if data[:len(_BOM)] == _BOM else 0
    end = len(data)
    while end > start and data[end - 1] == 0x0A:  # trailing blank lines
        end -= 1
    if end == start or data[start] != 0x7B:  # "{"
        return None
    schema_names, tier_names = tuple(dict.fromkeys(schemas)), tuple(dict.fromkeys(tiers))
    decoder_schemas = _names(schema_names)
    decoder = _decoder(decoder_schemas, _names(tier_names), _names(labels))
    seen: dict[str, int] = {}
    if items is not None:
        if index is None:
            index = dict(zip(items, range(len(items)), strict=True))
        codes = _coder(index)
    else:
        codes = _coder(None, seen)
    schema_code = {name: code for code, name in enumerate(schema_names)}
    tier_code = {name: code for code, name in enumerate(tier_names)}
    coded = _Labels(tuple(dict.fromkeys(v for v in labels if isinstance(v, str))))
    one_schema = len(schema_names) == 1 and decoder_schemas is not None
    parts: list[tuple[np.ndarray, ...]] = []
    position = start
    while position < end:
        # Each chunk's lines counted on their own (a count over 300 MB held the lock
        # 0.3 s): every newline of the chunk and the one after it is followed by "{".
        stop = data.find(b"\n", min(position + CHUNK_BYTES, end), end)
        stop = end if stop == -1 else stop
        chunk = data[position:min(stop + 2, end)]  # a copy: a map is never exported
        lines = chunk.count(b"\n", 0, stop - position) + 1
        if chunk.count(b"\n{") != lines - 1 + (stop < end):
            return None  # a blank line, or a line that does not start with "{"
        try:
            rows = decoder.decode_lines(memoryview(chunk)[:stop - position])
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return None
        size = len(rows)
        if size != lines:
            return None
        try:
            part = (codes(map(_ITEM, rows), size),
                    np.zeros(size, np.int32) if one_schema else  # the Literal's one name
                    np.fromiter(map(schema_code.__getitem__, map(_SCHEMA, rows)),
                                np.int32, size),
                    np.fromiter(map(tier_code.__getitem__, map(_TIER, rows)), np.int32,
                                size))
        except KeyError:
            return None  # an unknown item, schema or tier: the full reader names it
        parts.append((*part, coded.codes(rows),
                      np.fromiter(map(_CONFIDENCE, rows), np.float64, size)))
        position = stop + 1
    item, schema, tier, label, confidence = (np.concatenate(c) for c in zip(*parts,
                                                                           strict=True))
    if any(type(v) is int and _too_long(v) for v in coded.values):
        return None
    if items is None or index is None:
        return Columns(list(seen), seen, item, schema_names, schema, tier_names, tier,
                       coded.values, label, confidence)
    return Columns(items, index, item, schema_names, schema, tier_names, tier,
                   coded.values, label, confidence)


def _coder(index: Mapping[str, int] | None, seen: dict[str, int] | None = None
           ) -> Callable[[Iterable[str], int], np.ndarray]:
    """ids → their codes (``KeyError`` for an unknown one): by ``index``, or with no
    known ids each new id coded in order of first appearance into ``seen``."""
    if isinstance(index, ItemCodes | ShardedIndex):
        return lambda ids, size: index.codes(ids, size).astype(np.int32)
    if index is not None:
        lookup = index.__getitem__
    else:
        assert seen is not None

        def lookup(value: str) -> int:
            return seen.setdefault(value, len(seen))
    return lambda ids, size: np.fromiter(map(lookup, ids), np.int32, size)


def _too_long(value: int) -> bool:
    return len(str(abs(value))) > MAX_INT_DIGITS


def _names(values: Collection[str]) -> tuple[str, ...] | None:
    names = tuple(sorted({v for v in values if isinstance(v, str)}))
    return names if 0 < len(names) <= MAX_LITERALS else None


@lru_cache(maxsize=8)
def _decoder(schemas: tuple[str, ...] | None, tiers: tuple[str, ...] | None,
             labels: tuple[str, ...] | None) -> msgspec.json.Decoder[Any]:
    """A decoder of lines (``decode_lines``) into structs of the five fields."""
    def name(values: tuple[str, ...] | None) -> Any:
        return str if values is None else Literal[values]

    label: Any = str if labels is None else Literal[labels]
    line = msgspec.defstruct(
        "CommonPrediction",
        [("item", str), ("schema", name(schemas)), ("tier", name(tiers)),
         ("label", label | int | float), ("confidence", float)],
        forbid_unknown_fields=True, gc=False, frozen=True)
    return msgspec.json.Decoder(line)
