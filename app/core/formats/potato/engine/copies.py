"""The private copy of ``engine.sqlite`` (and its WAL), made at most once per open.

**Why a copy.** Opening a WAL database, even read-only, creates ``-shm`` (and may create
``-wal``) files beside it, and the last connection to close checkpoints the WAL into the
main file: a reader would write into the user's project. A database at rest (no
``-wal``, ``-shm`` or ``-journal`` beside it) is read in place with SQLite's
``immutable`` flag (:func:`at_rest_uri`), which takes no lock and creates no file; one
with a WAL beside it (Potato's server running, or killed) is copied with its WAL into a
private temporary folder, and only the copy is opened. The user's files are only ever
read (``shutil.copyfile``), nothing is created beside them, and the folder is removed
afterwards. If the files change while they are copied (Potato's server writing), the copy
is retried and, when they keep changing, the read stops with one sentence; a hot rollback
journal (``engine.sqlite-journal``: a write in progress) stops it too.

**One copy per open** (our choice; Potato has no outside reader). Opening a project reads
the database twice: the people who labelled in it (:mod:`.people`, while the study is
read) and, when an engine is configured, the contracts' store
(:mod:`.store`). Each made its own copy: on a million-item database (576 MB) the
second copy cost about 3 s. Inside ``with SharedCopies():`` (what
:func:`app.core.project.open_project` holds around the whole open) the first copy is kept
and handed to the next reader of the same database, **as long as the database and its WAL
have the size and modification time they had when it was copied** (the test the copy
itself relies on to know it is consistent); if they changed, a fresh copy is made and the
stale one removed at once. The copies are removed when the ``with`` ends, whether the open
succeeded, failed or was cancelled (the worker closes the job's generator). A reader that
opens the shared copy may checkpoint its WAL into it when it closes: the copy's contents
stay the same database, so the next reader reads the same rows.

The scope is found by the readers through the thread that entered it (a thread-local
stack), because the readers sit deep in the study reader and ``label_report``, which an
open runs on one worker thread from start to end; a reader on another thread, or outside
any scope (``accord agreement``, ``accord label status``: one reader each), makes and
removes its own copy as before.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from app.core.errors import InputError
from app.core.formats.reading.boundary import checked_file, present

DATABASE = "engine.sqlite"
MAX_DATABASE_BYTES = 4 * 1024 * 1024 * 1024
"""The largest ``engine.sqlite`` (and WAL) read, 4 GiB, above the boundary's 512 MiB for
files parsed whole: a million items with three tiers is about 600 MB of database, of
which only the columns read become Python objects (SQLite pages the rest from a copy)."""
COPY_TRIES = 3

Stamp = tuple[tuple[int, int] | None, ...]




def at_rest_uri(database: Path) -> str:
    """``database`` opened read-only and immutable: SQLite takes no lock and creates no
    ``-shm`` or ``-wal`` beside it (which is only right with no WAL to read and no writer,
    so the caller checks both, before and after)."""
    return database.absolute().as_uri() + "?mode=ro&immutable=1"


def stamp(*paths: Path) -> Stamp:
    """Each file's size and modification time (``None``: absent)."""
    out: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            st = path.stat()
        except FileNotFoundError:
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


@contextmanager
def private_copy(database: Path) -> Iterator[Path]:
    """A consistent copy of ``database`` and its WAL, in a private folder: the open's
    shared copy inside :class:`SharedCopies`, else one made here and removed on exit."""
    shared = _current()
    if shared is not None:
        yield shared.copy_of(database)
        return
    with tempfile.TemporaryDirectory(prefix="accord-engine-") as folder:
        copy = Path(folder) / DATABASE
        _copy(database, copy)
        yield copy


class SharedCopies:
    """The copies made while this scope is entered on this thread, one per database,
    handed to every reader of an unchanged database and removed on exit."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[Stamp, tempfile.TemporaryDirectory[str]]] = {}
        self._lock = threading.Lock()
        self.closed = False
        self.made = 0
        """Copies made (a count for the tests and the benchmark)."""

    def __enter__(self) -> SharedCopies:
        _stack().append(self)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Remove every copy (idempotent; may run on another thread than ``with``'s)."""
        with self._lock:
            self.closed = True
            kept, self._kept = self._kept, {}
        stack = _stack()
        if self in stack:
            stack.remove(self)
        for _, folder in kept.values():
            folder.cleanup()

    def copy_of(self, database: Path) -> Path:
        """The kept copy of ``database`` if its files did not change since, else a new one."""
        key = database.absolute()
        wal = database.with_name(database.name + "-wal")
        with self._lock:
            _refuse_hot_journal(database)
            kept = self._kept.pop(key, None)
            if kept is not None:
                made, folder = kept
                copy = Path(folder.name) / DATABASE
                if made == stamp(database, wal) and copy.is_file():
                    self._kept[key] = kept
                    return copy
                folder.cleanup()  # stale: the database changed since
            folder = tempfile.TemporaryDirectory(prefix="accord-engine-")
            copy = Path(folder.name) / DATABASE
            try:
                made = _copy(database, copy)
            except BaseException:
                folder.cleanup()
                raise
            self._kept[key] = (made, folder)
            self.made += 1
            return copy


_LOCAL = threading.local()


def _stack() -> list[SharedCopies]:
    stack: list[SharedCopies] | None = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


def _current() -> SharedCopies | None:
    """The innermost scope entered on this thread that is still open."""
    stack = _stack()
    stack[:] = [scope for scope in stack if not scope.closed]
    return stack[-1] if stack else None


def _refuse_hot_journal(database: Path) -> None:
    if database.with_name(database.name + "-journal").exists():
        raise InputError("a write is in progress (engine.sqlite-journal is present): Potato "
                         "is changing the database; expected a database at rest (wait, or "
                         "stop Potato's server, and try again)", file=database)


def _copy(database: Path, copy: Path) -> Stamp:
    """Copy ``database`` and its WAL to ``copy`` until both stayed unchanged during the
    copy; their stamp then, which a later reader compares with theirs now."""
    _refuse_hot_journal(database)
    wal = database.with_name(database.name + "-wal")
    copy_wal = copy.with_name(copy.name + "-wal")
    for _ in range(COPY_TRIES):
        before = stamp(database, wal)
        shutil.copyfile(checked_file(database, limit=MAX_DATABASE_BYTES), copy)
        if present(wal):
            shutil.copyfile(checked_file(wal, limit=MAX_DATABASE_BYTES), copy_wal)
        elif copy_wal.exists():
            copy_wal.unlink()
        if stamp(database, wal) == before:
            return before
    raise InputError("the database kept changing while Accord copied it (Potato's "
                     "server is writing); expected a database at rest (try again, or "
                     "stop the server)", file=database)
