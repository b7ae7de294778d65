"""Several sorted queries of ``engine.sqlite`` started at once, each on its own thread.

Why a module: a tier's query sorts a million rows before SQLite hands back the first
(about a second, during which SQLite does not hold the interpreter lock). Read one after
the other, three tiers wait three seconds on sorts; started together on two threads
with connections of their own, the sorts overlap each other and the decoding of the
rows already sorted. Each query's rows are still read in order, by the caller, a chunk
at a time: only the first chunk (the one that waits on the sort) is fetched on the
worker.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

WORKERS = min(2, os.cpu_count() or 1)
"""Threads sorting at once."""
Connect = Callable[[], sqlite3.Connection]


class _Started:
    """A query whose first chunk is already fetched: :meth:`fetchmany` hands it back first,
    then the cursor's next chunks."""

    def __init__(self, cursor: sqlite3.Cursor, first: list[Any]) -> None:
        self._cursor = cursor
        self._first: list[Any] | None = first

    def fetchmany(self, size: int) -> list[Any]:
        if self._first is not None:
            rows, self._first = self._first, None
            return rows
        return self._cursor.fetchmany(size)


class SortedQueries:
    """``query`` run with each of ``params``; iterating gives, in order, an object with
    ``fetchmany`` per query. With ``connect`` the queries start on worker threads;
    without, each runs on ``db`` when its turn comes."""

    def __init__(self, db: sqlite3.Connection, connect: Connect | None, query: str,
                 params: Sequence[Sequence[Any]], chunk: int) -> None:
        self._db, self._connect, self._query = db, connect, query
        self._params, self._chunk = list(params), chunk
        self._pool: ThreadPoolExecutor | None = None
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Iterator[Any]:
        if self._connect is None or WORKERS < 2 or len(self._params) < 2:
            return (self._db.execute(self._query, p) for p in self._params)
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="accord-sort")
        futures: list[Future[_Started]] = [self._pool.submit(self._start, p)
                                           for p in self._params]
        return (future.result() for future in futures)

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        for connection in self._opened:
            connection.close()

    def _start(self, params: Sequence[Any]) -> _Started:
        assert self._connect is not None
        connection = self._connect()  # one per query: a cursor is read by the caller later
        with self._lock:
            self._opened.append(connection)
        cursor = connection.execute(self._query, params)
        return _Started(cursor, cursor.fetchmany(self._chunk))
