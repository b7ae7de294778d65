"""SQLite's ``quick_check`` of ``engine.sqlite``, run beside the read instead of before it.

Why a module: the check reads every page of the file (1.5 s of a million-item database,
a sixth of ``accord label status``), and SQLite lets go of the interpreter lock while it
works, so it runs on its own thread and connection while the tables are read. Nothing
read is used until the check has answered: a damaged file is named as damaged (the
same sentence as when the check ran first), whatever the read made of it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from app.core.errors import InputError


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
    ``with`` to :meth:`raise_if_damaged` (which waits for it)."""

    def __init__(self, connect: Callable[[], sqlite3.Connection]) -> None:
        self._connect = connect
        self._answer: str | None = None
        self._error: sqlite3.DatabaseError | None = None
        self._thread = threading.Thread(target=self._run, name="accord-quick-check",
                                        daemon=True)

    def __enter__(self) -> IntegrityCheck:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join()

    def _run(self) -> None:
        try:
            db = self._connect()
            try:
                row = db.execute("PRAGMA quick_check").fetchone()
                self._answer = None if row is None else str(row[0])
            finally:
                db.close()
        except sqlite3.DatabaseError as error:
            self._error = error

    def raise_if_damaged(self, shown: Path) -> None:
        """Wait for the check; raise the sentence for a damaged or unreadable file."""
        self._thread.join()
        if self._error is not None:
            raise unreadable(shown, self._error)
        if self._answer != "ok":
            raise damaged(shown, self._answer)
