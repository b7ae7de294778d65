"""A database file of the project (SQLite: Potato's ``engine.sqlite``): the entry for files
that SQLite opens itself.

Why an entry of its own: Accord never parses a database's bytes, SQLite does, so the
checks are made on the path before SQLite opens it (inside the project, a regular file,
at most ``limit`` bytes); and whether a database is *at rest* (no write in progress, none
killed midway) depends on the files SQLite keeps beside it, which are looked for here in
one call. Reading it in place or from a private copy is the engine reader's choice
(:mod:`app.core.formats.potato.engine.copies`).
"""

from __future__ import annotations

from pathlib import Path

from app.core.formats.reading.boundary import MAX_FILE_BYTES, checked_file, present

SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database that is being written (or was, by a process
that was killed): its write-ahead log, the log's index, a rollback journal."""


def side_files(database: Path) -> tuple[Path, ...]:
    """The side files of ``database`` (:data:`SIDE_SUFFIXES`), present or not."""
    return tuple(database.with_name(database.name + suffix) for suffix in SIDE_SUFFIXES)


def at_rest(database: Path) -> bool:
    """Whether no side file is beside ``database`` (a broken link or a FIFO named like
    one counts as present): no writer is in the middle of it."""
    return not any(present(side) for side in side_files(database))


def named_database_file(path: Path, *, root: Path | None = None,
                        limit: int = MAX_FILE_BYTES) -> Path | None:
    """``path`` once it is a regular file of at most ``limit`` bytes inside ``root``
    (default: its folder), ``None`` when nothing at all is named ``path``; a link out of
    the project, a FIFO, a device or a file too large is one
    :class:`~app.core.errors.InputError`, never skipped as absent. The path is returned
    as named (SQLite's URI and the messages name it so), not resolved."""
    if not present(path):
        return None
    checked_file(path, root=root, limit=limit)
    return path
