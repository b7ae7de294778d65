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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import contains, is_not
from typing import Any

import numpy as np

from app.core.errors import InputError
from app.core.float_list import FloatList
from app.core.formats.potato.engine.json_cells import json_column, stored_json
from app.core.row_index import RowIndex, strictly_ascending
from app.core.slices import (
    array_in_slices,
    dict_in_slices,
    ints_in_slices,
    list_in_slices,
    object_array,
    split_in_slices,
    string_order,
    take_in_slices,
)

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
    confidences: Sequence[float]
    """A :class:`~app.core.float_list.FloatList` of :attr:`confidence_array` for a joined
    tier."""
    statuses: list[str]
    distributions: list[dict[str, float] | None] | None
    """``None`` when no row has a distribution (the common database)."""
    row_of: Mapping[str, int] = field(repr=False)
    """item → its row (a :class:`~app.core.row_index.RowIndex` for a joined tier, whose
    items are strictly ascending)."""
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
              confidences: Sequence[float], statuses: list[str],
              distributions: list[dict[str, float] | None] | None,
              row_of: Mapping[str, int] | None = None, sorted_items: bool = False,
              codes: np.ndarray | None = None, known: Sequence[Any] = (),
              confidence_array: np.ndarray | None = None, all_ok: bool = False
              ) -> TierColumns:
        """The columns, with ``row_of`` (made here unless given) and the masks;
        ``confidence_array``: :attr:`confidence_array`, when the caller has it;
        ``all_ok``: every status is ``ok``, as the caller knows."""
        n = len(items)  # each column a slice at a time: a million rows held the lock
        ok = np.ones(n, bool) if all_ok else array_in_slices(map("ok".__eq__, statuses),
                                                             bool, n)
        if codes is not None:
            valued = np.array([value is not None for value in known], bool)[codes] \
                if len(known) else np.zeros(n, bool)
        else:
            valued = array_in_slices(map(is_not, values, repeat(None)), bool, n)
        if row_of is None:
            row_of = dict_in_slices(zip(items, range(n), strict=True))
        if confidence_array is None:
            confidence_array = array_in_slices(confidences, np.float64, n)
        return cls(schema, tier, items, values, confidences, statuses, distributions, row_of,
                   ok & valued, confidence_array, sorted_items, codes,
                   known if codes is not None else ())

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
            confidences += _confidences(confs, tier)
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


SEPARATOR = "\x1f"
"""Between the ids of a tier's joined columns."""
MARK = "\x1e"
"""Between an id and its status, in a joined id text, where the status is not ``ok``."""
DISTRIBUTION_SEPARATOR = "\x1e"
"""Between the ``conf_json`` texts of a tier's joined columns."""
SCALE = 4611686018427387904.0
"""2**62: a confidence ``c`` with ``2**-10 <= |c| < 2`` (or zero) times this is an
integer below 2**63 (its lowest bit, 2**-62 at the smallest, becomes at least one),
which SQLite writes exactly and numpy reads back exactly; the product and its inverse
are exact (a power of two)."""
LARGEST = 2 ** 63 - 1024
"""The largest magnitude of ``c * SCALE`` with ``|c| < 2`` (the double below 2**63);
SQLite casts a larger product to ±(2**63 - 1) or -2**63, which is no confidence."""


def _odd(id_type: str, status_type: str, distribution_type: str, conf_type: str,
         least: Any) -> bool:
    """Whether the joined texts cannot stand for a tier's rows: a blob anywhere, a
    confidence not a number, or one (besides zero) smaller in magnitude than
    :data:`SMALLEST` (too large ones are seen in the parsed integers)."""
    if "blob" in (id_type, status_type, distribution_type):
        return True
    return conf_type not in ("real", "integer", "null") \
        or (least is not None and least < SMALLEST)


SMALLEST = 2.0 ** -10
"""The smallest confidence magnitude (besides zero) whose :data:`SCALE` multiple is an
integer."""


@dataclass
class _Joined:
    """A tier read from its texts: its ids as SQLite joined them, their sorting order,
    and its columns (a later tier with the same ids keeps them)."""

    ids: str
    order: np.ndarray
    columns: TierColumns


Distributions = Callable[[], Sequence[Any] | None]
"""Runs a tier's distributions query: its row (the joined ids, then the joined
``conf_json`` texts), or ``None`` where SQLite could not join them."""


def joined_tier(row: Sequence[Any], schema: str, tier: str, shared: dict[str, str],
                read: list[_Joined], known: Sequence[Any],
                distributions: Distributions = lambda: None) -> TierColumns | bool | None:
    """The columns of one tier from the row of its :class:`~.answers.JoinedQuery`: what
    :func:`tier_columns` makes of the same rows (``None`` for none), or ``False`` where
    the texts cannot say it exactly (an odd row; a separator inside an id, a status or a
    distribution; a value not a label; an item stored twice): the caller then reads the
    rows. ``read``: the tiers read so far this way; a tier with the same ids in the same
    order keeps that tier's order, string objects and lookup. The distributions, rare
    (Potato itself writes none), come from a query of their own, run only for a tier that
    has some."""
    count, id_type, status_type, distribution_type, conf_type, least, with_distribution, \
        not_ok, ids, value_text, conf_text = row
    if not count:
        return None
    if _odd(id_type, status_type, distribution_type, conf_type, least) \
            or None in (ids, value_text, conf_text) or "x" in value_text:
        return False  # "x": a value that is not one of the labels
    distribution_text = ""
    if with_distribution:
        joined = distributions()
        if joined is None or joined[0] != ids:  # the rows in another order: unlikely
            return False
        distribution_text = joined[1]
    same = next((joined for joined in read if joined.ids == ids), None)
    if same is not None:
        order, items, row_of = same.order, same.columns.items, same.columns.row_of
        statuses = same.columns.statuses
    else:
        scanned = split_in_slices(ids, SEPARATOR)
        marked = _marked_statuses(ids, scanned, not_ok or 0, shared) \
            if len(scanned) == count else None
        if marked is None:
            return False
        order = string_order(scanned)
        items = take_in_slices(object_array(scanned), order)
        if not strictly_ascending(items):  # an item stored twice: its last row is the rows' to say
            return False
        row_of = RowIndex(items)
        statuses = _in_order(marked, order, count)
    scaled = ints_in_slices(conf_text, np.int64)
    if len(scaled) and (scaled.max() > LARGEST or scaled.min() < -LARGEST):
        return False  # a confidence of 2 or more in magnitude
    codes = ints_in_slices(value_text, np.int32)[order]
    confidence_array = scaled[order] * (1 / SCALE)
    distribution_list: list[dict[str, float] | None] | None = None
    if with_distribution:
        texts = split_in_slices(distribution_text, DISTRIBUTION_SEPARATOR)
        if len(texts) != count:
            return False
        parse = json_column()
        distribution_list = take_in_slices(object_array(
            [probs(parse(text)) if text else None for text in texts]), order)
    per_code = [*known, None]  # a null value is -1: None, and the tier has no codes
    values = list_in_slices(map(per_code.__getitem__, codes.tolist()))
    column = TierColumns.build(schema, tier, items, values, FloatList(confidence_array),
                               statuses, distribution_list, row_of, sorted_items=True,
                               codes=None if (codes < 0).any() else codes, known=known,
                               confidence_array=confidence_array,
                               all_ok=not not_ok)
    if same is None:
        read.append(_Joined(ids, order, column))
    return column


def _marked_statuses(ids: str, scanned: list[str], not_ok: int, shared: dict[str, str]
                     ) -> dict[int, str] | None:
    """The statuses other than ``ok`` that the joined id text carries after a
    :data:`MARK`, by scanned position; their ids in ``scanned`` are cut back to the id.
    ``None`` when a mark is not one of those (a mark inside an id or a status: then the
    marks outnumber the rows not ``ok``) or a status is empty (the rows say it)."""
    if ids.count(MARK) != not_ok:
        return None
    out: dict[int, str] = {}
    if not not_ok:
        return out
    for k in list_in_slices(compress(range(len(scanned)), map(contains, scanned, repeat(MARK)))):
        item, _, status = scanned[k].partition(MARK)
        if not status:
            return None
        scanned[k] = item
        out[k] = shared.setdefault(status, status)
    return out


def _in_order(marked: dict[int, str], order: np.ndarray, count: int) -> list[str]:
    """Every row's status in ``order``: ``ok`` but where ``marked`` says otherwise."""
    statuses = [OK] * count
    if marked:
        place = np.empty(count, np.int64)
        place[order] = np.arange(count, dtype=np.int64)
        for k, position in zip(marked, place[list(marked)].tolist(), strict=True):
            statuses[position] = marked[k]
    return statuses


def _confidences(stored: tuple[Any, ...], tier: str) -> list[float]:
    """Each stored ``raw_conf`` as a float (null: ``0.0``); one that is no number is
    refused, named."""
    try:
        return [float(conf or 0.0) for conf in stored]
    except (TypeError, ValueError):
        bad = next(conf for conf in stored if not _number(conf))
        raise InputError(f"a prediction of tier '{tier}' has raw_conf {bad!r}; expected a "
                         "number or null", key="prediction.raw_conf") from None


def _number(value: Any) -> bool:
    try:
        float(value or 0.0)
    except (TypeError, ValueError):
        return False
    return True


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
