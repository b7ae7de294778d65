"""``engine_item``: the items in ingestion order and what Potato keeps of each
(``meta_json``'s inclusion probabilities ``pi`` and the ``fields`` ppi's ``by`` reads).

Why a module: a million items share a handful of ``meta_json`` texts (the same language,
the same inclusion probability), so each distinct text is parsed once and the items keep
a code into the parsed entries, instead of a million parsed dicts. The views read whole
columns (:meth:`ItemMeta.pi_column`, :meth:`ItemMeta.field_column`) by C-level lookups;
the per-item mappings (:attr:`ItemMeta.item_pi`, :attr:`ItemMeta.item_fields`) are built
only when asked for, each item with its own copy as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise, repeat
from operator import itemgetter
from typing import Any

import numpy as np

from app.core.formats.potato.engine.json_cells import stored_json
from app.core.row_index import keyed_values
from app.core.slices import (
    dict_in_slices,
    ints_in_slices,
    joined_object_array,
    list_in_slices,
    split_in_slices,
    take_in_slices,
    tolist_in_slices,
)

Entry = tuple[dict[str, float] | None, dict[str, str] | None]
"""One parsed ``meta_json``: (``pi`` per schema, ``fields``), each ``None`` when absent."""


@dataclass(frozen=True)
class ItemMeta:
    """The items of ``engine_item`` in ingestion order, each with its parsed meta."""

    order: tuple[str, ...] = ()
    """Item ids ordered by ``ingest_seq``."""
    entries: list[Entry] = field(default_factory=list)
    code_of: Mapping[str, int] = field(default_factory=dict)
    """item → its entry in :attr:`entries`."""
    codes: list[int] = field(default_factory=list)
    """Each item's entry in :attr:`order`'s order: the lookups of :attr:`order` itself,
    made once (the population is :attr:`order`, a million items)."""

    def entry(self, item: str) -> Entry | None:
        code = self.code_of.get(item)
        return None if code is None else self.entries[code]

    def pi(self, item: str, schema: str, default: float | None) -> float | None:
        """The item's stored inclusion probability for ``schema``, else ``default``."""
        entry = self.entry(item)
        pis = entry[0] if entry is not None else None
        return pis.get(schema, default) if pis is not None else default

    def pi_column(self, items: Sequence[str], schema: str, default: float) -> list[float]:
        """:meth:`pi` of each of ``items`` (``default`` where there is none)."""
        per_entry = [default if pis is None else pis.get(schema, default)
                     for pis, _ in self.entries] + [default]
        return list_in_slices(map(per_entry.__getitem__, self._codes_of(items)))

    def field_column(self, items: Sequence[str], key: str) -> list[str | None]:
        """Each item's ``fields[key]`` (``None`` where it has none)."""
        per_entry = [None if values is None else values.get(key)
                     for _, values in self.entries] + [None]
        return list_in_slices(map(per_entry.__getitem__, self._codes_of(items)))

    def _codes_of(self, items: Sequence[str]) -> Iterator[int]:
        """Each item's entry (``len(entries)`` for an unknown item)."""
        if items is self.order and len(self.codes) == len(items) == len(self.code_of):
            return iter(self.codes)  # the same as the lookups: no item is there twice
        return map(self.code_of.get, items, repeat(len(self.entries)))

    @property
    def item_pi(self) -> dict[str, dict[str, float]]:
        """item → schema → pi, for the items whose meta has ``pi``."""
        return {item: dict(pis) for item, code in self.code_of.items()
                if (pis := self.entries[code][0]) is not None}

    @property
    def item_fields(self) -> dict[str, dict[str, str]]:
        """item → fields, for the items whose meta has ``fields``."""
        return {item: dict(values) for item, code in self.code_of.items()
                if (values := self.entries[code][1]) is not None}

    def fields_view(self) -> Mapping[str, Mapping[str, str]]:
        """item → its fields, for the items with at least one (read-only, made lazily)."""
        return _FieldsView(self)


class _FieldsView(Mapping[str, Mapping[str, str]]):
    """:attr:`ItemMeta.item_fields` without its empty entries, each item's fields made
    when looked up: a million items share a few entries."""

    def __init__(self, meta: ItemMeta) -> None:
        self._meta = meta

    def __getitem__(self, item: str) -> Mapping[str, str]:
        entry = self._meta.entry(item)
        if entry is None or not entry[1]:
            raise KeyError(item)
        return dict(entry[1])

    def get(self, item: str, default: Any = None) -> Any:
        entry = self._meta.entry(item)
        return dict(entry[1]) if entry is not None and entry[1] else default

    def __iter__(self) -> Iterator[str]:
        entries = self._meta.entries
        return (item for item, code in self._meta.code_of.items() if entries[code][1])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(values for _, values in self._meta.entries)


FEW_METAS = 64
"""Distinct ``meta_json`` texts up to which SQLite hands back each item's text's number
instead of the text (a million 60-character strings made and hashed for two values)."""


def read_items(db: sqlite3.Connection) -> ItemMeta:
    """``engine_item`` in ingestion order; each distinct ``meta_json`` text parsed once."""
    distinct = [text for (text,) in db.execute("SELECT DISTINCT meta_json FROM engine_item")]
    if len(distinct) <= FEW_METAS and all(type(text) is str for text in distinct):
        cases = " ".join(f"WHEN ? THEN {code}" for code in range(len(distinct)))
        joined = _joined_items(db, cases, distinct)
        if joined is not None:
            return joined
        rows = _fetched(db.execute(f"SELECT item_id, CASE meta_json {cases} END"
                                   " FROM engine_item ORDER BY ingest_seq", distinct))
        items = list_in_slices(map(itemgetter(0), rows))
        codes = list_in_slices(map(itemgetter(1), rows))
        if None not in codes:
            if rows and set(map(type, items)) != {str}:
                items = [str(item) for item in items]
            return ItemMeta(tuple(items), [_meta(stored_json(text)) for text in distinct],
                            dict_in_slices(zip(items, codes, strict=True)), codes)
    rows = _fetched(db.execute("SELECT item_id, meta_json FROM engine_item"
                               " ORDER BY ingest_seq"))
    items = list(map(itemgetter(0), rows))
    if rows and set(map(type, items)) != {str}:
        items = [str(item) for item in items]
    texts = list(map(itemgetter(1), rows))
    del rows
    entries: list[Entry] = []
    if set(map(type, texts)) <= {str}:
        index: dict[str, int] = {}
        for text in dict.fromkeys(texts):
            index[text] = len(entries)
            entries.append(_meta(stored_json(text)))
        codes = list(map(index.__getitem__, texts))
    else:  # a meta stored as a number or null: read row by row
        codes = list(range(len(texts)))
        entries = [_meta(stored_json(text)) for text in texts]
    return ItemMeta(tuple(items), entries, dict_in_slices(zip(items, codes, strict=True)),
                    codes)


def _joined_items(db: sqlite3.Connection, cases: str, distinct: list[str]
                  ) -> ItemMeta | None:
    """:func:`read_items`'s coded read from rows of joined texts (``group_concat`` in
    table order, ordered by ``ingest_seq`` in numpy, ties in table order as Potato's
    index orders them): a million ids come back as a few texts split in C instead of a
    million rows fetched. ``None`` where the texts cannot stand for the rows exactly (an
    id that is not text or holds the separator, a sequence number that is not an
    integer, a meta none of ``distinct``).

    The table is read in :data:`ITEM_PIECES` rowid ranges from :data:`PIECE_ROWS` rows
    on, each one query: SQLite's texts become Python strings with the interpreter lock
    held, a row at a time, and one row of a million items' texts (17 MB) held it 50 ms,
    the GUI's thread waiting."""
    (last,) = db.execute("SELECT max(rowid) FROM engine_item").fetchone()
    cuts = [last * k // ITEM_PIECES for k in range(1, ITEM_PIECES)] \
        if isinstance(last, int) and last >= PIECE_ROWS else []
    bounds = [None, *cuts, None]
    pieces = []
    for low, high in pairwise(bounds):
        where = " AND ".join([*([f"rowid > {low}"] if low is not None else []),
                              *([f"rowid <= {high}"] if high is not None else [])])
        try:
            pieces.append(db.execute(
                "SELECT count(*), count(item_id), typeof(max(item_id)),"
                " typeof(sum(ingest_seq)), count(ingest_seq), group_concat(item_id, char(31)),"
                " group_concat(ingest_seq), group_concat(ifnull(CASE meta_json"
                f" {cases} END, -1)) FROM engine_item{' WHERE ' + where if where else ''}",
                distinct).fetchone())
        except (sqlite3.DataError, sqlite3.OperationalError):  # too long; a sum past int64
            return None
    filled = [piece for piece in pieces if piece[0]]
    count = sum(piece[0] for piece in filled)
    if not count or any(piece[0] != piece[1] or piece[0] != piece[4] or piece[2] != "text"
                        or piece[3] != "integer" for piece in filled):
        return None
    scanned = [split_in_slices(piece[5], SEPARATOR) for piece in filled]
    if sum(map(len, scanned)) != count:
        return None
    order = np.argsort(np.concatenate([ints_in_slices(piece[6], np.int64) for piece in filled]),
                       kind="stable")
    coded = np.concatenate([ints_in_slices(piece[7], np.int64) for piece in filled])[order]
    if (coded < 0).any():
        return None
    names = joined_object_array(scanned)
    items = tuple(take_in_slices(names, order))
    code_list = tolist_in_slices(coded)
    code_of = keyed_values(items, code_list)  # no million-entry dict (item ids sorted)
    return ItemMeta(items, [_meta(stored_json(text)) for text in distinct],
                    dict_in_slices(zip(items, code_list, strict=True)) if code_of is None
                    else code_of, code_list)


ITEM_PIECES = 4
"""Rowid ranges :func:`_joined_items` reads ``engine_item`` in (from :data:`PIECE_ROWS`)."""
PIECE_ROWS = 100_000


SEPARATOR = "\x1f"
"""Between the ids of :func:`_joined_items`' text."""
FETCH = 20_000
"""Rows fetched at a time (:func:`_fetched`)."""


def _fetched(cursor: sqlite3.Cursor) -> list[Any]:
    """``cursor.fetchall()``, :data:`FETCH` rows at a time: a million rows in one call
    kept the GUI thread (which opens projects on a worker) waiting 150-180 ms."""
    rows: list[Any] = []
    while chunk := cursor.fetchmany(FETCH):
        rows += chunk
    return rows


def _meta(meta: Any) -> Entry:
    if not isinstance(meta, dict):
        return None, None
    pi, values = meta.get("pi"), meta.get("fields")
    return ({str(k): float(v) for k, v in pi.items()
             if isinstance(v, int | float) and not isinstance(v, bool)}
            if isinstance(pi, dict) else None,
            {str(k): str(v) for k, v in values.items()} if isinstance(values, dict) else None)
