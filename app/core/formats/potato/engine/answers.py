"""Each cascade tier's current prediction in ``engine.sqlite``, read into columns.

Why a module: this is the one table that grows with the corpus times the cascade (three
million rows for a million items and three tiers). Its rows become one list per field per
(schema, tier), :class:`TierColumns`. Given the schemes' labels, SQLite joins each tier's
rows into one text per column (:class:`~.answers.JoinedQuery`, on a worker thread,
without the interpreter lock), which numpy splits, parses and sorts; where those texts
cannot stand for the rows exactly, or without labels, the columns are filled a chunk of
sorted rows at a time by C-level calls (:mod:`.columns`). Either way the same
columns, and no Python object per prediction is made until someone asks for one
(:meth:`StoredAnswers.raw_answers`, kept for the tests and for small readers). The
consumers that scale (the prediction table of :mod:`.store`, Potato's view in
:mod:`app.core.contracts.potato_method.from_store`) read the columns.

A column whose values are not all plain stored texts (a number or bytes in
``value_json``, a label that parses to a list or an object, which each row must own) is
read row by row as before, with the same values.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.core.formats.potato.engine.columns import (
    DISTRIBUTION_SEPARATOR,
    SCALE,
    SEPARATOR,
    TierColumns,
    joined_tier,
    probs,
    tier_columns,
)
from app.core.formats.potato.engine.json_cells import stored_json
from app.core.formats.potato.engine.parallel import Connect, SortedQueries
from app.core.row_index import positions_in
from app.core.slices import repeat_each, tiled

__all__ = ["PendingColumns", "RawAnswer", "StoredAnswers", "TierColumns", "probs",
           "read_answers", "read_columns", "tier_columns"]


@dataclass(frozen=True, slots=True)
class RawAnswer:
    """One tier's current prediction as Potato stores it, whatever its status."""

    item: str
    schema: str
    tier: str
    value: Any
    confidence: float
    status: str
    distribution: dict[str, float] | None


@dataclass(frozen=True)
class StoredAnswers:
    """Every wanted tier's columns: schema → tier (cascade order) → :class:`TierColumns`,
    schemas in sorted order."""

    by_schema: dict[str, dict[str, TierColumns]] = field(default_factory=dict)

    def merged_order(self, schema: str) -> tuple[list[TierColumns], np.ndarray, np.ndarray]:
        """The schema's tiers, and the rows of every tier in the order ``read_answers``
        lists them (items sorted, each item's tiers in cascade order): per listed answer
        its tier's position and its row in that tier."""
        columns = list(self.by_schema.get(schema, {}).values())
        if columns and all(c.sorted_items for c in columns) \
                and all(c.items == columns[0].items for c in columns[1:]):
            # every tier answered the same items (the common cascade), already sorted
            k = len(columns[0])
            return (columns, tiled(np.arange(len(columns), dtype=np.int64), k),
                    repeat_each(np.arange(k, dtype=np.int64), len(columns)))
        union: dict[str, None] = {}
        for tier in columns:
            union.update(dict.fromkeys(tier.items))
        keys = sorted(union)
        rows = np.array([positions_in(tier.row_of, keys) for tier in columns],
                        dtype=np.int64).reshape(len(columns), len(keys))
        flat = rows.T.ravel()
        positions = tiled(np.arange(len(columns), dtype=np.int64), len(keys))
        present = flat >= 0
        return columns, positions[present], flat[present]

    def raw_answers(self) -> list[RawAnswer]:
        """Every current prediction as a :class:`RawAnswer`, ordered by schema, item and
        tier (the reader's order before it read columns)."""
        out: list[RawAnswer] = []
        for schema in self.by_schema:
            columns, positions, rows = self.merged_order(schema)
            for position, row in zip(positions.tolist(), rows.tolist(), strict=True):
                tier = columns[position]
                out.append(RawAnswer(str(tier.items[row]), tier.schema, tier.tier,
                                     tier.values[row], tier.confidences[row],
                                     tier.statuses[row], tier.distribution_column()[row]))
        return out

    def __iter__(self) -> Iterator[TierColumns]:
        for tiers in self.by_schema.values():
            yield from tiers.values()


def read_answers(db: sqlite3.Connection, tiers: tuple[str, ...]) -> list[RawAnswer]:
    """Each tier's current prediction per item and schema, ordered by schema, item and
    tier (see :func:`read_columns`)."""
    return read_columns(db, tiers).raw_answers()


def read_columns(db: sqlite3.Connection, tiers: tuple[str, ...], labels: Sequence[Any] = (),
                 connect: Connect | None = None) -> StoredAnswers:
    """Each tier's current prediction per item and schema: of the version of each
    (source, schema) ordered last by ``created_at`` and version id, the row of the
    highest id per item.

    Index seeks find the versions (:func:`_versions`), then one query per wanted
    (source, schema) fetches only that version's rows, which become columns
    (``tests/core/test_potato_engine_answers.py`` compares with the whole-table reader
    this replaced). ``labels``: the values the schemes allow; a ``value_json`` that is one
    of them as ``json.dumps`` writes it comes back from SQLite as its number
    (:func:`_value_cases`). ``connect``: opens another connection to the same database,
    so the queries start side by side (:mod:`.parallel`)."""
    return PendingColumns(db, tiers, labels, connect).finish()


class PendingColumns:
    """:func:`read_columns` started: the queries are running (with ``connect``, each
    sorting on a thread and connection of its own, without the interpreter lock: a
    second for a million rows), and :meth:`finish` reads their rows. Between the two the
    caller may do other work, on ``db`` too; :meth:`close` abandons them.
    ``sorted_event`` is set once no query sorts any more."""

    def __init__(self, db: sqlite3.Connection, tiers: tuple[str, ...],
                 labels: Sequence[Any] = (), connect: Connect | None = None,
                 sorted_event: threading.Event | None = None) -> None:
        latest: dict[tuple[Any, Any], Any] = {}  # (source, schema) -> the last version
        for source, schema, version in _versions(db):
            latest[(source, schema)] = version
        sources = set(tiers)
        self._tiers = tiers
        self._wanted = [(source, schema, version) for (source, schema), version
                        in latest.items() if source in sources]
        value, status, label_texts = _value_cases(db, labels)
        self._known = [stored_json(text) for text in label_texts]
        self._db = db
        rows = (" FROM prediction p JOIN source_version v ON v.version_id ="
                " p.source_version_id WHERE v.source_id = ? AND p.schema_name = ?"
                " AND v.version_id = ?")
        self._select = (f"SELECT p.item_id, {value}, {status}, p.raw_conf, p.conf_json"
                        f"{rows} ORDER BY p.item_id, p.id")
        # with the labels' numbers, each tier comes back as a few joined texts, unsorted
        self._joined = JoinedQuery(label_texts)
        query = self._joined.chosen if label_texts else self._select
        self._queries = SortedQueries(db, connect, query, self._wanted, sorted_event,
                                      first=PIECES if label_texts else 1)
        self._cursors = self._queries.__enter__()

    def finish(self) -> StoredAnswers:
        """Every wanted tier's columns (:func:`tier_columns`), read in turn; the queries
        are closed whatever happens."""
        try:
            columns = self._tier_by_tier()
        finally:
            self.close()
        by_schema: dict[Any, dict[Any, TierColumns]] = {}
        for (source, schema, _version), column in zip(self._wanted, columns, strict=True):
            if column is not None:
                by_schema.setdefault(schema, {})[source] = column
        return StoredAnswers({schema: {t: by_schema[schema][t] for t in self._tiers
                                       if t in by_schema[schema]}
                              for schema in sorted(by_schema)})

    def close(self) -> None:
        """Stop the queries (their sorts cut short) and close their connections."""
        self._queries.close()

    def _tier_by_tier(self) -> list[TierColumns | None]:
        shared: dict[str, str] = {}  # one string object per status, all tiers
        read: list[TierColumns] = []
        joined: list[Any] = []  # the tiers read from joined texts (see joined_tier)
        out: list[TierColumns | None] = []
        for (source, schema, version), cursor in zip(self._wanted, self._cursors,
                                                     strict=True):
            column: TierColumns | bool | None = False
            if self._known:
                column = self._from_texts(cursor, (source, schema, version), shared, joined)
                if column is False:  # the texts cannot say it: the rows, read here
                    cursor = self._db.execute(self._select, (source, schema, version))
            if column is False:
                column = tier_columns(cursor, str(schema), str(source), shared, read,
                                      self._known)
            assert column is None or isinstance(column, TierColumns)
            out.append(column)
            if column is not None:
                read.append(column)
        return out

    def _from_texts(self, cursor: Any, params: tuple[Any, Any, Any],
                    shared: dict[str, str], joined: list[Any]) -> TierColumns | bool | None:
        """The tier from its :class:`JoinedQuery` row (``False``: read its rows)."""
        def distributions() -> Sequence[Any] | None:
            try:
                sql = self._joined.chosen(self._db, params, distributions=True)
                return merged_distribution_pieces(self._db.execute(sql, params).fetchall())
            except sqlite3.DataError:
                return None

        try:
            row = merged_pieces(cursor.fetchmany(PIECES))
        except sqlite3.DataError:  # a joined text longer than SQLite allows
            return False
        source, schema, _version = params
        return joined_tier(row, str(schema), str(source), shared, joined, self._known,
                           distributions)


SCAN_SHARE = 4
"""A tier holding at least a quarter of the predictions is read by scanning the table
(SQLite's ``NOT INDEXED``): a million rows of three took 1.8 s so instead of 2.2-2.6 s
through the index, one seek per row. A smaller tier is read through the index."""


@dataclass(frozen=True)
class JoinedQuery:
    """A tier's rows joined into one text per column inside SQLite (``group_concat``),
    in whatever order SQLite scans them, no sort: a million rows come back as a few
    texts, split and parsed in C in a fraction of the time their million rows took to
    fetch, and SQLite's share (about two seconds) runs without the interpreter lock.
    :func:`joined_tier` sorts them in numpy. Run with ``(source, schema, version)``;
    ``labels``: each label's ``value_json`` text, its number its place."""

    labels: Sequence[str]

    def chosen(self, db: sqlite3.Connection, params: Sequence[Any],
               distributions: bool = False) -> str:
        """:meth:`sql` for this tier: scanning the table when the tier is at least
        :data:`SCAN_SHARE`'s share of it (counted on Potato's index, a tenth of a second
        for a million rows), in :data:`PIECES` pieces from :data:`PIECE_ROWS` rows on."""
        _source, schema, version = params
        (rows,) = db.execute("SELECT count(*) FROM prediction WHERE source_version_id = ?"
                             " AND schema_name = ?", (version, schema)).fetchone()
        last = db.execute("SELECT max(rowid) FROM prediction").fetchone()[0] or 0
        cuts = [last * k // PIECES for k in range(1, PIECES)] if rows >= PIECE_ROWS else []
        return self.sql(scan=rows * SCAN_SHARE >= last, distributions=distributions,
                        cuts=cuts)

    def sql(self, scan: bool = False, distributions: bool = False,
            cuts: Sequence[int] = ()) -> str:
        """The query; with ``distributions``, the one a tier with some runs besides: its
        joined ids again (the same order, checked) and its ``conf_json`` texts. With
        ``cuts`` (ascending rowids), one row per piece of the table between them
        (:func:`merged_pieces` makes them one).

        Only what varies is joined: a status other than ``ok`` follows its id after
        :data:`~.columns.MARK` (Potato writes ``ok`` only, so the status column,
        a million separators, is not joined), and the few checks are aggregates (a
        third of the query's time; a confidence of 2 or more shows as SQLite's largest
        integer once parsed)."""
        ids = ("group_concat(CASE p.status WHEN 'ok' THEN p.item_id"
               " ELSE p.item_id || char(30) || p.status END, char(31))")
        if distributions:
            select = f"{ids}, group_concat(ifnull(p.conf_json, ''), char(30))"
        else:
            cases = " ".join(f"WHEN {_quoted(text)} THEN {code}"
                             for code, text in enumerate(self.labels))
            value = (f"CASE p.value_json {cases} ELSE"
                     " CASE WHEN p.value_json IS NULL THEN -1 ELSE 'x' END END")
            select = ("count(*), typeof(max(p.item_id)), typeof(max(p.status)),"
                      " typeof(max(p.conf_json)), typeof(max(p.raw_conf)),"
                      " min(abs(nullif(p.raw_conf, 0))), count(p.conf_json),"
                      f" sum(p.status <> 'ok'), {ids}, group_concat({value}),"
                      f" group_concat(ifnull(CAST(p.raw_conf * {SCALE!r} AS INTEGER), 0))")
        whole = (f"SELECT {select} FROM prediction p{' NOT INDEXED' if scan else ''}"
                 " JOIN source_version v ON v.version_id = p.source_version_id"
                 " WHERE v.source_id = ?1 AND p.schema_name = ?2 AND v.version_id = ?3")
        if not cuts:
            return whole
        key = "p.rowid" if scan else "+p.rowid"  # scanning, a seek per piece; else a filter
        bounds = [f" AND {key} <= {cuts[0]}"]
        bounds += [f" AND {key} > {low} AND {key} <= {high}"
                   for low, high in itertools.pairwise(cuts)]
        bounds.append(f" AND {key} > {cuts[-1]}")
        return " UNION ALL ".join(whole + bound for bound in bounds)


PIECES = 4
"""A tier of :data:`PIECE_ROWS` rows or more is joined in this many pieces of the table.
Why: SQLite's texts become Python strings with the interpreter lock held, one C call per
row (a million rows' 28 MB: 12-14 ms alone, up to 60 ms beside busy threads, a stall of
the GUI); between rows SQLite steps without it. Four pieces cost SQLite about 3% more."""
PIECE_ROWS = 100_000


def merged_pieces(rows: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """The one row :meth:`JoinedQuery.sql` gives without cuts, from its rows with them:
    counts added, the greatest value's type (SQLite orders null, numbers, text, blob),
    the least magnitude, the texts of the pieces with rows joined."""
    filled = [row for row in rows if row[0]] or rows[:1]
    if len(filled) == 1:
        return tuple(filled[0])
    count, least = sum(row[0] for row in filled), [row[5] for row in filled
                                                   if row[5] is not None]
    types = [max((row[k] for row in filled), key=_TYPE_RANK.__getitem__) for k in (1, 2, 3, 4)]
    return (count, *types, min(least) if least else None,
            sum(row[6] for row in filled), sum(row[7] or 0 for row in filled),
            *_joined_texts(filled, 8, (SEPARATOR, ",", ",")))


def merged_distribution_pieces(rows: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """:func:`merged_pieces` of the distributions query (ids, ``conf_json`` texts)."""
    filled = [row for row in rows if row[0] is not None] or rows[:1]
    return tuple(_joined_texts(filled, 0, (SEPARATOR, DISTRIBUTION_SEPARATOR)))


_TYPE_RANK = {"null": 0, "integer": 1, "real": 1, "text": 2, "blob": 3}


def _joined_texts(rows: Sequence[Sequence[Any]], first: int, separators: Sequence[str]
                  ) -> list[str | None]:
    """Columns ``first`` on of ``rows``, each column's texts joined by its separator
    (``None`` if one is: the reader then reads the rows)."""
    out: list[str | None] = []
    for offset, separator in enumerate(separators):
        texts = [row[first + offset] for row in rows]
        out.append(None if None in texts else separator.join(texts))
    return out


def _quoted(text: str) -> str:
    """An SQL string literal of ``text``."""
    return "'" + text.replace("'", "''") + "'"


def _value_cases(db: sqlite3.Connection, labels: Sequence[Any]
                 ) -> tuple[str, str, list[str]]:
    """The value and status expressions of the predictions query, and the texts their
    numbers stand for: ``value_json`` equal to ``json.dumps`` of a label is that label's
    number, status ``ok`` is ``0``. Only where Potato's schema declares both columns
    ``TEXT``: SQLite then stores any number written there as text, so an integer can
    only be one of these numbers."""
    declared = {str(row[1]): str(row[2]).upper()
                for row in db.execute("PRAGMA table_info(prediction)")}
    if declared.get("value_json") != "TEXT" or declared.get("status") != "TEXT":
        return "p.value_json", "p.status", []
    texts: list[str] = []
    for label in labels:
        text = json.dumps(label)
        if type(label) in (str, int, float, bool) and text not in texts \
                and stored_json(text) == label and type(stored_json(text)) is type(label):
            texts.append(text)
    status = "CASE WHEN p.status = 'ok' THEN 0 ELSE p.status END"
    if not texts or len(texts) > 200:
        return "p.value_json", status, []
    cases = " ".join(f"WHEN {_quoted(text)} THEN {code}" for code, text in enumerate(texts))
    return f"CASE p.value_json {cases} ELSE p.value_json END", status, texts


_VERSIONS = ("SELECT v.source_id, p.schema_name, v.version_id FROM prediction p"
             " JOIN source_version v ON v.version_id = p.source_version_id"
             " GROUP BY v.source_id, p.schema_name, v.created_at, v.version_id"
             " ORDER BY v.source_id, p.schema_name, v.created_at, v.version_id")
"""Every (source, schema, version) with predictions, in the order whose last row per
(source, schema) is the current version: the whole-table form (a scan of every
prediction), run when the seek below cannot be."""
_SEEK_LIMIT = 300
"""Pairs of version and schema beyond which the whole-table form is used instead."""


def _versions(db: sqlite3.Connection) -> list[tuple[Any, Any, Any]]:
    """:data:`_VERSIONS`'s rows, found by seeking Potato's index on
    ``prediction(source_version_id, schema_name, ...)``: per source version, each of its
    schemas is the smallest ``schema_name`` after the previous one (one index seek each;
    the GROUP BY over three million predictions took seconds), then the pairs are
    ordered by SQLite as the GROUP BY orders them."""
    pairs: list[tuple[Any, Any]] = []
    for (version,) in db.execute("SELECT version_id FROM source_version").fetchall():
        schema = db.execute("SELECT min(schema_name) FROM prediction"
                            " WHERE source_version_id = ?", (version,)).fetchone()[0]
        while schema is not None:
            pairs.append((version, schema))
            if len(pairs) > _SEEK_LIMIT:
                return db.execute(_VERSIONS).fetchall()
            schema = db.execute("SELECT min(schema_name) FROM prediction WHERE"
                                " source_version_id = ? AND schema_name > ?",
                                (version, schema)).fetchone()[0]
    if not pairs:
        return []
    values = ", ".join(["(?, ?)"] * len(pairs))
    return db.execute(
        f"WITH pair(version, schema) AS (VALUES {values})"
        " SELECT v.source_id, pair.schema, v.version_id FROM pair"
        " JOIN source_version v ON v.version_id = pair.version"
        " ORDER BY v.source_id, pair.schema, v.created_at, v.version_id",
        [x for pair in pairs for x in pair]).fetchall()
