"""SQLite's work on ``engine.sqlite`` run on threads of its own, beside the read.

Why a module: SQLite lets go of the interpreter lock while it works, and two pieces of a
million-item read are long stretches of SQLite alone:

- ``PRAGMA quick_check`` reads every page of the file (1.5 s of a million-item
  database, a sixth of ``accord label status``): :class:`IntegrityCheck` runs it on its
  own connection while the tables are read. Nothing read is used until it has answered:
  a damaged file is named as damaged (the same sentence as when the check ran first),
  whatever the read made of it.
- each tier's query works through a million rows before SQLite hands back the first
  (joining them into texts, :class:`~.answers.JoinedQuery`, about two seconds;
  sorting them, for the row-by-row read, about one): :class:`SortedQueries` starts them
  on a worker thread with connections of their own, each fetching only its first row
  (a joined query: its few rows; either waits on that work), so it runs while the
  caller does something else (``label status`` parses the data files and reads the
  other tables meanwhile). The rest of a sorted query's rows are read in order, by the
  caller, a chunk at a time. A worker fetching more than that first row would hold the
  interpreter lock for each row it makes, against the caller's Python work: each hands
  the lock to the other at every row (SQLite lets go of it for each step), and the read
  of the other tables took half as long again.

One sort works at a time (:data:`WORKERS` is one): the caller is the one that cannot
wait, and on two cores three threads beside it left it half a core. The check runs
beside them at the lowest scheduling priority where the system allows it (Linux), so it
takes only the CPU they leave; elsewhere it waits for the sorts.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.core.errors import InputError

WORKERS = 1
"""Threads sorting at once. One: the caller's own thread keeps a core of its own (on two
cores, two sorts and the integrity check beside it took half of it: the data files
parsed meanwhile took 4 s instead of 2.5), and the sorts still end before it needs them."""
Connect = Callable[[], sqlite3.Connection]
Query = str | Callable[[sqlite3.Connection, Sequence[Any]], str]
"""A query's text, or what chooses it for each parameters on the connection it runs on."""


class _Started:
    """A query whose first rows are already fetched: :meth:`fetchmany` hands them back
    with the rest of the first chunk, then the cursor's next chunks."""

    def __init__(self, cursor: sqlite3.Cursor | None, first: list[Any] | None,
                 error: sqlite3.DataError | None = None) -> None:
        self._cursor = cursor
        self._first = first
        self._error = error

    def fetchmany(self, size: int) -> list[Any]:
        if self._error is not None:  # raised where the rows are read, as without workers
            raise self._error
        assert self._cursor is not None
        if self._first is not None:
            rows, self._first = self._first, None
            if rows and size > len(rows):  # (fetchmany(0) would fetch every row)
                rows += self._cursor.fetchmany(size - len(rows))
            return rows
        return self._cursor.fetchmany(size)


class SortedQueries:
    """``query`` run with each of ``params`` (a :data:`Query` that chooses is asked on the
    connection the query runs on, so its own look at the table is a worker's too);
    iterating gives, in order, an object with ``fetchmany`` per query. With ``connect``
    the queries start on worker threads; without, each runs on ``db`` when its turn
    comes."""

    def __init__(self, db: sqlite3.Connection, connect: Connect | None, query: Query,
                 params: Sequence[Sequence[Any]], sorted_event: threading.Event | None = None,
                 first: int = 1) -> None:
        self._db, self._connect, self._query, self._first = db, connect, query, first
        self._params = list(params)
        self._pool: ThreadPoolExecutor | None = None
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._closing = False
        self._started = 0
        self.sorted = sorted_event or threading.Event()
        """Set once no worker sorts any more (every query started, or the queries closed)."""

    def __enter__(self) -> Iterator[Any]:
        if self._connect is None or WORKERS < 1 or not self._params:
            self.sorted.set()
            return (self._here(p) for p in self._params)
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="accord-sort")
        futures: list[Future[_Started]] = [self._pool.submit(self._start, p)
                                           for p in self._params]
        return (future.result() for future in futures)

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the queries: a sort still running is interrupted (its query then fails,
        unread), the workers are waited for and their connections closed. Idempotent."""
        with self._lock:
            self._closing = True
            for connection in self._opened:
                connection.interrupt()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self.sorted.set()
        for connection in self._opened:
            connection.close()
        self._opened.clear()

    def _text(self, db: sqlite3.Connection, params: Sequence[Any]) -> str:
        """The query for ``params`` (one chosen on ``db`` when ``query`` chooses)."""
        return self._query if isinstance(self._query, str) else self._query(db, params)

    def _here(self, params: Sequence[Any]) -> Any:
        """The query run on the caller's connection when its turn comes."""
        try:
            return self._db.execute(self._text(self._db, params), params)
        except sqlite3.DataError as error:  # (an aggregate fails at once): raised on reading
            return _Started(None, None, error)

    def _start(self, params: Sequence[Any]) -> _Started:
        assert self._connect is not None
        try:
            connection = self._connect()  # one per query: its cursor is read later
            with self._lock:
                self._opened.append(connection)
                if self._closing:  # abandoned before it started: nobody will read it
                    raise sqlite3.OperationalError("interrupted")
            try:  # (an aggregate is made by execute: the sort's wait is in either)
                cursor = connection.execute(self._text(connection, params), params)
                return _Started(cursor, cursor.fetchmany(self._first))  # waits on the sort
            except sqlite3.DataError as error:  # a value too long: the reader decides
                return _Started(None, None, error)
        finally:
            with self._lock:
                self._started += 1
                if self._started == len(self._params):
                    self.sorted.set()


def unreadable(shown: Path, error: sqlite3.DatabaseError) -> InputError:
    """The sentence for a file SQLite cannot read."""
    said = " ".join(str(error).split())[:300]  # one line on stderr, whatever SQLite says
    return InputError(f"not a readable SQLite database ({said}); expected Potato 2.12's "
                      "engine database", file=shown)


def damaged(shown: Path, answer: str | None) -> InputError:
    """The sentence for a file whose ``quick_check`` did not answer ``ok``."""
    found = " ".join(answer.split())[:300] if answer is not None else "no answer"
    return InputError(f"the database is damaged ({found}); expected an intact SQLite "
                      "database", file=shown)


class IntegrityCheck:
    """``PRAGMA quick_check`` on a connection of its own, on a thread of its own, from
    ``with`` to :meth:`raise_if_damaged` (which waits for it); with ``after``, once that
    event is set (the sorts are done), unless the thread can run at the lowest priority
    (:func:`_lowest_priority`): then at once, on what CPU the caller and the sorts leave."""

    def __init__(self, connect: Callable[[], sqlite3.Connection],
                 after: threading.Event | None = None) -> None:
        self._connect = connect
        self._after = after
        self._answer: str | None = None
        self._error: sqlite3.DatabaseError | None = None
        self._thread = threading.Thread(target=self._run, name="accord-quick-check",
                                        daemon=True)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._stopped = False

    def __enter__(self) -> IntegrityCheck:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join()

    def _run(self) -> None:
        if self._after is not None and not _lowest_priority():
            self._after.wait()  # one of SQLite's threads at a time beside the caller
        try:
            db = self._connect()
            with self._lock:
                if self._stopped:
                    db.close()
                    return
                self._db = db
            try:
                row = db.execute("PRAGMA quick_check").fetchone()
                self._answer = None if row is None else str(row[0])
            finally:
                with self._lock:
                    self._db = None
                db.close()
        except sqlite3.DatabaseError as error:
            self._error = error

    def stop(self) -> None:
        """Cut the check short (a read abandoned): it then answers nothing useful, so
        :meth:`raise_if_damaged` is not for after this."""
        with self._lock:
            self._stopped = True
            if self._db is not None:
                self._db.interrupt()

    def raise_if_damaged(self, shown: Path) -> None:
        """Wait for the check; raise the sentence for a damaged or unreadable file."""
        self._thread.join()
        if self._error is not None:
            raise unreadable(shown, self._error)
        if self._answer != "ok":
            raise damaged(shown, self._answer)


def _lowest_priority() -> bool:
    """Whether this thread now runs at the lowest scheduling priority (``nice`` 19; Linux
    sets it per thread). Then the check starts with the read instead of after the sorts:
    on two cores it takes the moments the caller and the sort leave (each waits on the
    other now and then) and finishes before the caller needs it; it used to start after
    the sorts and keep the caller waiting 0.4-0.9 s at a million items. Elsewhere, or
    where the system refuses, ``False``: the check waits for the sorts."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except OSError:
        return False
    return True
