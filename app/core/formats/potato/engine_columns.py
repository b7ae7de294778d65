"""One cascade tier's current predictions as columns, built from its rows a chunk at a time.

Why a module: a tier of a million-item study is a million rows. Fetched at once they are a
million tuples and some three million strings alive together (about 300 MB), and each
whole-column call over them held the interpreter lock for a second. Here the cursor is
read :data:`CHUNK` rows at a time, each chunk's fields go straight into the columns
(``value_json`` parsed once per distinct text, statuses one string object each), and a
tier whose ids are, chunk after chunk, those of a tier already read keeps that tier's
string objects, list and lookup: the cascade's tiers usually answer the same items.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import is_not
from typing import Any

import numpy as np

from app.core.formats.potato.engine_json import json_column, stored_json
from app.core.slices import array_in_slices, dict_in_slices

CHUNK = 50_000
"""Rows fetched and turned into columns at a time."""
_SHARED = (str, int, float, bool, type(None))
"""Parsed values every row holding the same text may share (never mutable)."""


@dataclass(frozen=True, slots=True)
class TierColumns:
    """One tier's current predictions on one schema: a row per item (its last stored
    row), one list per field; in sorted item order when :attr:`sorted_items`."""

    schema: str
    tier: str
    items: list[str]
    values: list[Any]
    confidences: list[float]
    statuses: list[str]
    distributions: list[dict[str, float] | None] | None
    """``None`` when no row has a distribution (the common database)."""
    row_of: dict[str, int] = field(repr=False)
    """item → its row."""
    answered: np.ndarray = field(repr=False, compare=False)
    """Per row: status ``ok`` and a value (what Potato's router calls an answer)."""
    confidence_array: np.ndarray = field(repr=False, compare=False)
    """:attr:`confidences` as float64."""
    sorted_items: bool = False
    """The rows are in ``sorted(items)`` order (SQLite sorted string ids)."""
    codes: np.ndarray | None = field(default=None, repr=False, compare=False)
    """Per row, the index in :attr:`known` of its value (``values[r] is known[codes[r]]``),
    when every row's value came from SQLite as a known label's number; else ``None``.
    Readers of a million rows turn codes into labels once per label, not once per row."""
    known: Sequence[Any] = field(default=(), repr=False, compare=False)
    """The values :attr:`codes` index (the schemes' labels, one list for every tier)."""

    @classmethod
    def build(cls, schema: str, tier: str, items: list[str], values: list[Any],
              confidences: list[float], statuses: list[str],
              distributions: list[dict[str, float] | None] | None,
              row_of: dict[str, int] | None = None, sorted_items: bool = False,
              codes: np.ndarray | None = None, known: Sequence[Any] = ()) -> TierColumns:
        """The columns, with ``row_of`` (made here unless given) and the masks."""
        n = len(items)  # each column a slice at a time: a million rows held the lock
        ok = array_in_slices(map("ok".__eq__, statuses), bool, n)
        if codes is not None:
            valued = np.array([value is not None for value in known], bool)[codes] \
                if len(known) else np.zeros(n, bool)
        else:
            valued = array_in_slices(map(is_not, values, repeat(None)), bool, n)
        if row_of is None:
            row_of = dict_in_slices(zip(items, range(n), strict=True))
        return cls(schema, tier, items, values, confidences, statuses, distributions, row_of,
                   ok & valued, array_in_slices(confidences, np.float64, n),
                   sorted_items, codes, known if codes is not None else ())

    def __len__(self) -> int:
        return len(self.items)

    def distribution_column(self) -> list[dict[str, float] | None]:
        return self.distributions if self.distributions is not None \
            else [None] * len(self.items)


OK = "ok"
"""A prediction's status when the query hands back ``0`` for it (see :func:`tier_columns`)."""


def tier_columns(cursor: sqlite3.Cursor, schema: str, tier: str, shared: dict[str, str],
                 read: list[TierColumns], known: Sequence[Any] = ()) -> TierColumns | None:
    """The columns of one tier's rows ``(item_id, value, status, raw_conf, conf_json)``,
    ordered by item and id (``None`` without rows); the last row of each item is kept.
    String ids come as ``sorted`` sorts them (SQLite's binary order of UTF-8 is code point
    order). The query may hand back, instead of a text, the integer ``k`` for a
    ``value_json`` whose parsed value is ``known[k]`` and ``0`` for the status ``ok``
    (integers that column never holds as text): a million small integers instead of two
    million strings made, hashed and dropped."""
    items: list[Any] = []
    values: list[Any] = []
    statuses: list[Any] = []
    confidences: list[float] = []
    distributions: list[dict[str, float] | None] | None = None
    parse_values = _ValueReader(known)
    parse_distribution = json_column()
    candidates = [c for c in read if c.sorted_items]  # the tiers read so far, still equal
    while chunk := cursor.fetchmany(CHUNK):
        ids, value_texts, status_texts, confs, conf_texts = zip(*chunk, strict=True)
        del chunk
        start = len(items)
        candidates = [c for c in candidates if c.items[start:start + len(ids)] == list(ids)]
        items += candidates[0].items[start:start + len(ids)] if candidates else ids
        values += parse_values(value_texts)
        statuses += _statuses(status_texts, shared)
        if set(map(type, confs)) == {float} and 0.0 not in confs:
            confidences += confs  # float(conf or 0.0) is conf itself: no null, no zero
        else:
            confidences += [float(conf or 0.0) for conf in confs]
        if distributions is not None or conf_texts.count(None) != len(conf_texts):
            if distributions is None:
                distributions = [None] * start
            distributions += [probs(parse_distribution(text)) for text in conf_texts]
    if not items:
        return None
    codes = parse_values.codes()
    text_ids = set(map(type, items)) == {str}
    same = next((c for c in candidates if len(c.items) == len(items)), None)
    if same is not None and text_ids:
        return TierColumns.build(schema, tier, same.items, values, confidences, statuses,
                                 distributions, same.row_of, sorted_items=True,
                                 codes=codes, known=known)
    row_of: dict[Any, int] = dict_in_slices(zip(items, range(len(items)), strict=True))
    if len(row_of) != len(items):  # an item stored twice: its last row stays
        kept = list(row_of.values())
        items, values, statuses, confidences = (
            list(map(column.__getitem__, kept))
            for column in (items, values, statuses, confidences))
        if distributions is not None:
            distributions = list(map(distributions.__getitem__, kept))
        if codes is not None:
            codes = codes[np.array(kept, np.int64)]
        row_of = dict_in_slices(zip(items, range(len(items)), strict=True))
    if not text_ids:  # not stored as text (null, a number): named by its text, as before
        items = [str(item) for item in items]
        row_of = dict_in_slices(zip(items, range(len(items)), strict=True))
    return TierColumns.build(schema, tier, items, values, confidences, statuses,
                             distributions, row_of, sorted_items=text_ids, codes=codes,
                             known=known)


def _statuses(texts: tuple[Any, ...], shared: dict[str, str]) -> list[str]:
    """The stored statuses as strings (``0``: ``ok``; one object per distinct text)."""
    kinds = set(map(type, texts))
    if kinds == {int}:
        return [OK] * len(texts)
    if kinds == {str}:
        return list(map(shared.setdefault, texts, texts))
    return [OK if type(s) is int else shared.setdefault(s, s) if type(s) is str else str(s)
            for s in texts]


class _ValueReader:
    """``value_json`` parsed as :func:`stored_json` parses each text: an integer ``k`` is
    the known value ``known[k]``; each distinct text once while every text is a string
    (or null) parsing to a value rows may share; any other text row by row (a list or an
    object is each row's own)."""

    def __init__(self, known: Sequence[Any] = ()) -> None:
        self._known = list(known)
        self._parsed: dict[str | None, Any] = {}
        self._per_row: Callable[[Any], Any] = json_column()
        self._codes: list[np.ndarray] | None = []

    def codes(self) -> np.ndarray | None:
        """The numbers of every text read so far, when each was one (else ``None``)."""
        if self._codes is None:
            return None
        return np.concatenate(self._codes) if self._codes else np.zeros(0, np.int32)

    def __call__(self, texts: tuple[Any, ...]) -> list[Any]:
        kinds = set(map(type, texts))
        if kinds == {int}:
            if self._codes is not None:
                self._codes.append(np.fromiter(texts, np.int32, len(texts)))
            return list(map(self._known.__getitem__, texts))
        self._codes = None
        if int in kinds:
            return [self._known[t] if type(t) is int else self._per_row(t) for t in texts]
        if kinds <= {str, type(None)}:
            parsed = self._parsed
            for text in set(texts).difference(parsed):
                value = stored_json(text)
                if type(value) not in _SHARED:
                    break
                parsed[text] = value
            else:
                return list(map(parsed.__getitem__, texts))
        return [self._per_row(text) for text in texts]


def probs(raw: Any) -> dict[str, float] | None:
    """``conf_json`` as a label distribution (``None`` when it is not one)."""
    if not isinstance(raw, dict) or not raw:
        return None
    try:
        return {str(k): float(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        return None
