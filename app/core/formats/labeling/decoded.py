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
  line holds at least one value. The struct has only scalar fields and refuses unknown
  keys, so no value can contain an array or an object: a raw newline cannot be inside a
  string (msgspec, like ``json.loads``, refuses control characters in strings), so every
  joining ``,\\n`` is between two values of the outer array, and exactly one value per
  line means each line is that object on its own;
- the five fields are there and of the common types (``item``, ``schema``, ``tier``
  strings; ``label`` a string, an integer or a float, never a boolean or null;
  ``confidence`` a number, read as a float as ``read_common_predictions`` reads it),
  with no other key (``probs``, even ``null``, goes to the full reader);
- msgspec refuses what ``json.loads`` reads differently or what the per-line reader
  refuses: ``NaN`` and infinities, lone surrogates, numbers out of a float's range;
  a duplicated key keeps its last value in both. An integer label of more than
  :data:`~app.core.formats.nesting.MAX_INT_DIGITS` digits, which the per-line reader
  refuses, sends the file to it too.

Float values are correctly rounded by both parsers (``tests/core/test_labeling_decoded.py``
compares them on hard cases).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any, Literal

import msgspec

from app.core.formats.nesting import MAX_INT_DIGITS

CHUNK_BYTES = 1 << 20
"""Bytes per msgspec call (about 10,000 lines): one call holds the interpreter lock, so
the window's thread is never stalled for long (as ``json_lines.CHUNK_LINES``)."""
MAX_LITERALS = 1_000
"""More distinct names than this are decoded as plain strings."""
_BOM = b"\xef\xbb\xbf"
_FIELDS = attrgetter("item", "schema", "tier", "label", "confidence")


@dataclass(frozen=True, slots=True)
class Columns:
    """The five fields of every line, in file order (line ``k`` is ``k + 1``)."""

    item: list[str]
    schema: list[str]
    tier: list[str]
    label: list[Any]
    confidence: list[float]


def decode_common(data: bytes, schemas: Collection[str], tiers: Collection[str],
                  labels: Collection[str]) -> Columns | None:
    """The columns of ``data`` (a whole ``predictions.jsonl``), or ``None`` when some line
    is not common. ``schemas``, ``tiers`` and ``labels`` are the expected names: a value
    among them is the same string object every time; any other fails the fast path (the
    full reader names it)."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    end = len(data)
    while end > start and data[end - 1] == 0x0A:  # trailing blank lines
        end -= 1
    if end == start or data[start] != 0x7B:  # "{"
        return None
    newlines = data.count(b"\n", start, end)
    if data.count(b"\n{", start, end) != newlines:
        return None  # a blank line, or a line that does not start with "{"
    decoder = _decoder(_names(schemas), _names(tiers), _names(labels))
    out = Columns([], [], [], [], [])
    position = start
    while position < end:
        stop = data.find(b"\n", min(position + CHUNK_BYTES, end), end)
        stop = end if stop == -1 else stop
        piece = data[position:stop]
        try:
            rows = decoder.decode(b"[" + piece.replace(b"\n", b",\n") + b"]")
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return None
        if len(rows) != piece.count(b"\n") + 1:
            return None
        if rows:
            item, schema, tier, label, confidence = zip(*map(_FIELDS, rows), strict=True)
            out.item.extend(item)
            out.schema.extend(schema)
            out.tier.extend(tier)
            out.label.extend(label)
            out.confidence.extend(confidence)
        position = stop + 1
    if any(type(v) is int and _too_long(v) for v in set(out.label)):
        return None
    return out


def _too_long(value: int) -> bool:
    return len(str(abs(value))) > MAX_INT_DIGITS


def _names(values: Collection[str]) -> tuple[str, ...] | None:
    names = tuple(sorted({v for v in values if isinstance(v, str)}))
    return names if 0 < len(names) <= MAX_LITERALS else None


@lru_cache(maxsize=8)
def _decoder(schemas: tuple[str, ...] | None, tiers: tuple[str, ...] | None,
             labels: tuple[str, ...] | None) -> msgspec.json.Decoder[Any]:
    """A decoder of ``[line, line, …]`` into structs of the five fields."""
    def name(values: tuple[str, ...] | None) -> Any:
        return str if values is None else Literal[values]

    label: Any = str if labels is None else Literal[labels]
    line = msgspec.defstruct(
        "CommonPrediction",
        [("item", str), ("schema", name(schemas)), ("tier", name(tiers)),
         ("label", label | int | float), ("confidence", float)],
        forbid_unknown_fields=True, gc=False, frozen=True)
    return msgspec.json.Decoder(list[line])  # type: ignore[valid-type]
