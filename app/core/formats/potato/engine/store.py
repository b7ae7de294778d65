"""Potato 2.12.1's labelling engine database, ``<task_dir>/engine.sqlite``, read safely.

A real Potato project keeps every piece of the engine's state in this SQLite file
(``potato-engine.md`` §1): predictions per source version, the human requests with their
split, inclusion probability and label, the stored contract results and looks, the
resolved labels and the certificates. This module reads it into Accord's model
(:class:`~app.core.formats.labeling.data.LabelingData`) and Potato's own records
(:mod:`app.core.formats.potato.engine.records`), one query per table.

**Never touching the user's file.** A database at rest (no ``-wal``, ``-shm`` or
``-journal`` beside it: Potato's server stopped cleanly) is opened in place read-only with
SQLite's ``immutable`` flag, which takes no lock and creates no file (a 576 MB
million-item database is not copied); if its size or time changed while it was read, or
a side file appeared, the read is done again from a copy. Otherwise the database and its
WAL are copied into a private temporary folder and only the copy is opened
(:mod:`.engine.copies`: why, and how one open of a project makes that copy once for the
engine's people and this store); nothing is ever created beside the user's files.

Choices where Potato is silent on what an outside reader should do:

- **Tiers** are the cascade's source ids; a source with several versions (a changed
  prompt or model is a new version) contributes the predictions of the version created
  last that has predictions on the schema. A prediction whose status is not ``ok``
  (abstain, error) or whose value is null is no prediction, as Potato's router treats it.
- **Confidence** is ``raw_conf`` (0 when null), what Potato's contracts read; ``conf_json``
  (the label distribution) becomes ``probs``.
- **Requests**: see :mod:`.records`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.labeling.data import LabelingData
from app.core.formats.labeling.table import PredictionTable
from app.core.formats.potato.engine.answers import PendingColumns, StoredAnswers
from app.core.formats.potato.engine.copies import DATABASE as DATABASE
from app.core.formats.potato.engine.copies import MAX_DATABASE_BYTES as MAX_DATABASE_BYTES
from app.core.formats.potato.engine.copies import at_rest_uri as _at_rest_uri
from app.core.formats.potato.engine.copies import private_copy as _private_copy
from app.core.formats.potato.engine.copies import stamp as _stamp
from app.core.formats.potato.engine.items import ItemMeta, read_items
from app.core.formats.potato.engine.parallel import IntegrityCheck
from app.core.formats.potato.engine.parallel import unreadable as _unreadable
from app.core.formats.potato.engine.predictions import (
    check_labels,
    kept_whole,
    plain_labels,
    prediction_table,
    table_for_study,
)
from app.core.formats.potato.engine.records import (
    DoneRequest,
    EngineRecords,
    read_done,
    read_records,
    read_requests,
)
from app.core.formats.reading.database_file import at_rest, named_database_file

COLUMNS: dict[str, tuple[str, ...]] = {
    "engine_item": ("item_id", "ingest_seq", "meta_json"),
    "source_version": ("version_id", "source_id", "kind", "created_at"),
    "prediction": ("id", "item_id", "schema_name", "source_version_id", "value_json",
                   "status", "raw_conf", "conf_json"),
    "human_request": ("id", "item_id", "schema_name", "purpose", "inclusion_prob", "split",
                      "status", "label_json", "user_id", "assigned_user", "completed_at",
                      "priority"),
    "contract_version": ("id", "contract_id", "kind", "cascade_hash", "looks", "status",
                         "result_json", "created_at"),
}
"""The tables and columns Accord reads; any of them missing is a database of another
Potato version."""


@dataclass(frozen=True)
class EngineRows:
    """The rows Potato's own contracts are built from (``potato_method`` reads them):
    every current prediction with its status, the answered calibration requests in
    Potato's order, and the item ids in ingestion order."""

    answers: StoredAnswers = field(default_factory=StoredAnswers)
    done: tuple[DoneRequest, ...] = ()
    items: tuple[str, ...] = ()


@dataclass(frozen=True)
class EngineStore:
    """What ``engine.sqlite`` holds, in Accord's model and as Potato recorded it."""

    path: Path
    labeling: LabelingData
    records: EngineRecords
    meta: ItemMeta = field(default_factory=ItemMeta)
    """Each item's ``engine_item.meta_json``: its inclusion probability per schema and
    the fields Potato copied for ppi's ``by``."""
    other_requests: Counter[str] = field(default_factory=Counter)
    """Requests of purposes that are not calibration or verification, by purpose."""
    rows: EngineRows = field(default_factory=EngineRows)

    @property
    def item_pi(self) -> dict[str, dict[str, float]]:
        """item → schema → the item's inclusion probability (made when asked for)."""
        return self.meta.item_pi

    @property
    def item_fields(self) -> dict[str, dict[str, str]]:
        """item → the fields Potato copied for ppi's ``by`` (made when asked for)."""
        return self.meta.item_fields


def engine_database(task_dir: Path) -> Path | None:
    """``<task_dir>/engine.sqlite`` if there is one; one that is a link out of the
    project, a FIFO, a device or too large is refused (never skipped as absent)."""
    return named_database_file(task_dir / DATABASE, root=task_dir, limit=MAX_DATABASE_BYTES)


def read_engine_store(database: Path, tiers: tuple[str, ...], labels: Sequence[Any] = ()
                      ) -> EngineStore:
    """Read ``database`` (a Potato 2.12 ``engine.sqlite``): in place when it is at rest and
    did not change while it was read, else from a private copy. ``labels``: the values
    the project's schemes allow (read faster when given; the same store either way)."""
    return StartedRead(database, tiers, labels).finish()


class StartedRead:
    """:func:`read_engine_store` started: SQLite's long work (the integrity check, each
    tier's sort) runs on its threads, without the interpreter lock, while the caller
    does something else (``label status`` parses the data files meanwhile);
    :meth:`finish` reads the rest and gives the same store, :meth:`close` abandons it.
    A problem met while starting is raised by :meth:`finish`, where it would have been."""

    def __init__(self, database: Path, tiers: tuple[str, ...], labels: Sequence[Any] = ()
                 ) -> None:
        self.database, self.tiers, self.labels = database, tiers, list(labels)
        self._reading: _Reading | None = None
        self._error: InputError | None = None
        self._before = _stamp(database)
        self._in_place = at_rest(database)
        if self._in_place:
            try:
                self._reading = _Reading(_at_rest_uri(database), database, tiers, labels)
            except InputError as error:
                self._error = error

    def finish(self) -> EngineStore:
        """The store (read again from a copy when the file changed meanwhile)."""
        database = self.database
        if self._in_place:
            try:
                if self._reading is None:
                    assert self._error is not None
                    raise self._error
                store = self._reading.finish()
            except InputError:
                if _stamp(database) == self._before:
                    raise  # the file did not change: a real problem, named
            else:
                if _stamp(database) == self._before and at_rest(database):
                    return store
        with _private_copy(database) as copy:
            return _Reading(str(copy), database, self.tiers, self.labels).finish()

    def close(self) -> None:
        """Abandon the read: its queries stopped, its connections and threads ended."""
        if self._reading is not None:
            self._reading.close()


class _Reading:
    """One read of the database at ``location`` (named ``shown``), started."""

    def __init__(self, location: str, shown: Path, tiers: tuple[str, ...],
                 labels: Sequence[Any]) -> None:
        def connect() -> sqlite3.Connection:
            return _open(location)

        self._shown = shown
        self._sorted = threading.Event()  # the check waits for the sorts: one at a time
        self._check = IntegrityCheck(connect, after=self._sorted)
        self._check.__enter__()
        self._db: sqlite3.Connection | None = None
        self._columns: PendingColumns | None = None
        try:
            with self._named():
                self._db = _connected(location, shown)
                _check_tables(self._db, shown)
                self._columns = PendingColumns(self._db, tiers, labels, connect,
                                               self._sorted)
        except BaseException:
            self.close()
            raise

    def finish(self) -> EngineStore:
        db, columns, shown = self._db, self._columns, self._shown
        assert db is not None and columns is not None
        try:
            with self._named():  # the other tables first, while SQLite sorts the tiers
                requests, others = read_requests(db)
                meta = read_items(db)
                records = read_records(db, shown)
                rows = EngineRows(columns.finish(), read_done(db), meta.order)
                self._release()  # the check runs on alone while the table is made
                labeling = LabelingData(prediction_table(rows.answers), requests)
            self._check.raise_if_damaged(shown)
        finally:
            self._end()
        return EngineStore(shown, labeling, records, meta, others, rows)

    def close(self) -> None:
        """Abandon the read (its sorts and the integrity check cut short)."""
        self._check.stop()
        self._end()

    def _end(self) -> None:
        self._release()
        self._check.__exit__(None, None, None)

    def _release(self) -> None:
        """Close the queries and the connection (idempotent); the check runs on."""
        self._sorted.set()  # nothing sorts any more (or nothing was started)
        if self._columns is not None:
            self._columns.close()
        if self._db is not None:
            self._db.close()

    @contextmanager
    def _named(self) -> Iterator[None]:
        """SQLite's errors as one sentence; a damaged file named as damaged (the check
        answers first), whatever the read made of it."""
        try:
            yield
        except sqlite3.DatabaseError as error:
            self._sorted.set()  # the check runs now, if it waited for sorts
            self._check.raise_if_damaged(self._shown)
            raise _unreadable(self._shown, error) from None
        except InputError as error:
            self._sorted.set()
            self._check.raise_if_damaged(self._shown)
            if error.file is None:  # a value of the database: named with the file
                raise InputError(error.problem, file=self._shown, key=error.key) from None
            raise
        except Exception:  # (what a damaged file's rows made go wrong, too)
            self._sorted.set()
            self._check.raise_if_damaged(self._shown)
            raise


def _open(location: str) -> sqlite3.Connection:
    """A read-only connection to ``location`` (usable from another thread, one at a
    time)."""
    db = sqlite3.connect(location, uri=location.startswith("file:"),
                         check_same_thread=False)
    try:
        db.execute("PRAGMA query_only = ON")
    except sqlite3.DatabaseError:
        db.close()
        raise
    return db


def _connected(location: str, shown: Path) -> sqlite3.Connection:
    try:
        return _open(location)
    except sqlite3.DatabaseError as error:
        raise _unreadable(shown, error) from None


def _check_tables(db: sqlite3.Connection, shown: Path) -> None:
    try:
        present = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        for table, columns in COLUMNS.items():
            if table not in present:
                raise InputError(f"no table '{table}': this is not a Potato 2.12 engine "
                                 f"database (another Potato version?); expected the tables "
                                 f"{', '.join(COLUMNS)}", file=shown, key=table)
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in columns if c not in have]
            if missing:
                raise InputError(f"table '{table}' has no column {', '.join(missing)}; "
                                 "expected Potato 2.12's engine database", file=shown,
                                 key=table)
    except sqlite3.DatabaseError as error:
        raise _unreadable(shown, error) from None


def for_study(store: EngineStore, items: Collection[str], schemes: Collection[str]
              ) -> tuple[LabelingData, list[str]]:
    """The store's labels restricted to the study's items and schemes, and a note for
    what was left out (an item removed from the data files keeps its rows in Potato).

    Given the schemes themselves (a mapping of name to :class:`Scheme`), every kept
    label is checked against its scheme here, where the database can be named: a label
    that is not an option any more (the config changed after Potato stored it) is one
    error naming ``engine.sqlite``, as a bad line of ``predictions.jsonl`` names its line.
    """
    data = store.labeling
    table = data.predictions
    whole = isinstance(table, PredictionTable) and kept_whole(store.rows.answers, items,
                                                              schemes)
    predictions = table if isinstance(table, PredictionTable) and whole \
        else table_for_study(table, items, schemes)
    requests = tuple(r for r in data.requests if r.item in items and r.schema in schemes)
    if isinstance(schemes, Mapping):
        check_labels(store.path, schemes, predictions, requests,
                     plain_labels(store.rows.answers) if whole else None)
    notes = []
    dropped = (len(data.predictions) - len(predictions), len(data.requests) - len(requests))
    if any(dropped):
        notes.append(f"engine.sqlite: {dropped[0]} predictions and {dropped[1]} requests are "
                     "on items or schemes that are not in the project's data files or config, "
                     "and were left out")
    if store.other_requests:
        counts = ", ".join(f"{n} {purpose}" for purpose, n in sorted(store.other_requests.items()))
        notes.append(f"engine.sqlite: requests of other purposes are not calibration labels "
                     f"and were not read as such ({counts})")
    return LabelingData(predictions, requests, data.annotators), notes
