"""One open of a project copies ``engine.sqlite`` (with its WAL) at most once.

``server_engine`` is the project Potato 2.12.1's server wrote and was killed on: its
``engine.sqlite-wal`` and ``-shm`` are beside the database, so every reader works on a
private copy. Opening it reads the engine twice (its people, with the study; the
contracts' store); each made its own copy before. What is counted here is the copies
themselves (the function that copies the files), not the readers' requests for one.

The rules kept: nothing is created beside the user's files, the copies are removed when
the open ends (done or cancelled), a database that changed between two reads is copied
again (the second reader must see the new rows), and the shared copy gives the same
study and contracts as two separate reads do.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from app.core.contracts.label_report import label_report
from app.core.formats.potato.engine import copies
from app.core.formats.potato.engine.copies import SharedCopies, private_copy
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.core.project import open_project

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"


def _copy_of(name: str, tmp: Path) -> Path:
    out = tmp / name
    shutil.copytree(DATA / name, out)
    return out


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every copy made of a database's files, by where it was made."""
    made: list[Path] = []
    real = copies._copy

    def spying(database: Path, copy: Path) -> copies.Stamp:
        made.append(copy)
        return real(database, copy)
    monkeypatch.setattr(copies, "_copy", spying)
    return made


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_an_open_copies_a_wal_database_once_and_removes_the_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _copy_of("server_engine", tmp_path)
    assert (project / "engine.sqlite-wal").is_file()
    before = _listing(project)
    made = _spy(monkeypatch)
    data = run(open_project(project))
    assert data.labels is not None and data.labels.potato is not None  # both readers read
    assert set(data.study.annotators) >= {"ann_a", "ann_b", "ann_c"}
    assert len(made) == 1  # two before: one for the people, one for the store
    assert not made[0].parent.exists()
    assert _listing(project) == before


def test_the_shared_copy_reads_what_two_separate_copies_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _copy_of("server_engine", tmp_path)
    made = _spy(monkeypatch)
    study = load_study(project)  # outside an open: the people's own copy
    separate = label_report(project, study=study)  # and the store's
    assert len(made) == 2
    shared = run(open_project(project))
    assert len(made) == 3
    assert shared.study.answers == study.answers
    assert shared.study.notes == study.notes
    assert shared.labels is not None
    assert shared.labels.to_json() == separate.to_json()


def test_a_cancelled_open_removes_its_copy(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    project = _copy_of("server_engine", tmp_path)
    made = _spy(monkeypatch)
    job = open_project(project)
    while not made:  # the study (and its people) read: the copy is kept for the store
        next(job)
    next(job)
    assert made[0].is_file()
    job.close()  # what the worker does on cancel
    assert not made[0].parent.exists()


def _wal_database(path: Path) -> sqlite3.Connection:
    """A writer that keeps its rows in ``-wal`` (as Potato's running server does)."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE t (x INTEGER)")
    db.execute("INSERT INTO t VALUES (1)")
    return db


def _count(copy: Path) -> int:
    with sqlite3.connect(copy) as db:
        n = int(db.execute("SELECT COUNT(*) FROM t").fetchone()[0])
    db.close()
    return n


def test_a_database_changed_between_two_reads_is_copied_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "engine.sqlite"
    writer = _wal_database(path)
    made = _spy(monkeypatch)
    try:
        with SharedCopies() as shared:
            with private_copy(path) as first:
                assert _count(first) == 1
            with private_copy(path) as again:  # unchanged: the same copy
                assert again == first and _count(again) == 1
            writer.execute("INSERT INTO t VALUES (2)")  # the server writes meanwhile
            with private_copy(path) as second:
                assert second != first and _count(second) == 2
            assert not first.parent.exists()  # the stale copy removed at once
            assert shared.made == 2 and len(made) == 2
        assert not second.parent.exists()
    finally:
        writer.close()


def test_a_read_on_another_thread_or_outside_a_scope_copies_on_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "engine.sqlite"
    writer = _wal_database(path)
    made = _spy(monkeypatch)
    seen: list[Path] = []

    def elsewhere() -> None:
        with private_copy(path) as copy:
            seen.append(copy)
    try:
        with SharedCopies() as shared:
            with private_copy(path) as mine:
                pass
            thread = threading.Thread(target=elsewhere)
            thread.start()
            thread.join()
            assert seen and seen[0] != mine and not seen[0].parent.exists()
            assert shared.made == 1 and len(made) == 2
        with private_copy(path) as alone:
            assert alone.is_file()
        assert not alone.parent.exists() and len(made) == 3
    finally:
        writer.close()
