"""``label status`` starts reading ``engine.sqlite`` before it parses the data files
(``label_report._start_engine_read``): the same report, the same errors in the same
order, and nothing left running when the read is not used.

On Potato 2.12.1's own cascade project (``tests/data/potato_engine/cascade_fixture``),
copied, since opening a WAL database writes beside it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import sys
import threading
import time
from pathlib import Path

import pytest

from app.core.contracts import label_report as report_module
from app.core.contracts.label_report import label_report
from app.core.errors import InputError
from app.core.formats.potato.engine.parallel import IntegrityCheck

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "potato_engine" / "cascade_fixture"


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "cascade"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("expected"))
    return project


def _same(a: object, b: object) -> bool:
    return json.dumps(a.to_json(), sort_keys=True) == json.dumps(  # type: ignore[attr-defined]
        b.to_json(), sort_keys=True)  # type: ignore[attr-defined]


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def test_the_early_read_gives_the_report_a_late_read_gives(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path)
    started: list[object] = []
    real = report_module._start_engine_read

    def spied(path: Path) -> object:
        started.append(real(path))
        return started[-1]
    monkeypatch.setattr(report_module, "_start_engine_read", spied)
    early = label_report(project)
    assert started and started[0] is not None  # the read did start before the study
    monkeypatch.setattr(report_module, "_start_engine_read", lambda path: None)
    late = label_report(project)
    assert _same(early, late)


def test_an_early_read_of_another_kind_is_closed_and_the_right_one_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started with other labels than the study's (as if the config changed between),
    it is not used: closed, and the read the study asks for is made."""
    from app.core.formats.potato.engine.store import StartedRead

    project = _project(tmp_path)
    made: list[StartedRead] = []

    def other(path: Path) -> StartedRead:
        made.append(StartedRead(project / "engine.sqlite", ("nobody",), ["x"]))
        return made[-1]
    monkeypatch.setattr(report_module, "_start_engine_read", other)
    before = _threads()
    mismatched = label_report(project)
    monkeypatch.setattr(report_module, "_start_engine_read", lambda path: None)
    assert _same(mismatched, label_report(project))
    assert len(made) == 1 and _threads() <= before


def test_a_bad_data_file_is_named_and_the_early_read_ended(tmp_path: Path) -> None:
    project = _project(tmp_path)
    data = next((project / "data").iterdir())
    data.write_text("{not json\n", encoding="utf-8")
    before = _threads()
    with pytest.raises(InputError) as raised:
        label_report(project)
    assert raised.value.file is not None and Path(raised.value.file).name == data.name
    assert _threads() <= before  # no sort or check left running


def test_a_damaged_database_is_still_named_as_damaged(tmp_path: Path) -> None:
    project = _project(tmp_path)
    database = project / "engine.sqlite"
    raw = bytearray(database.read_bytes())
    page = sqlite3.connect(database).execute("PRAGMA page_size").fetchone()[0]
    for start in range(page * 2, len(raw), page * 3):  # every third page from the third
        raw[start + 100:start + 400] = bytes(300)
    database.write_bytes(bytes(raw))
    with pytest.raises(InputError) as raised:
        label_report(project)
    assert "engine.sqlite" in str(raised.value.file)
    assert "damaged" in str(raised.value) or "not a readable" in str(raised.value)


def test_the_check_waits_for_its_event_and_stops_when_told(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where its thread cannot run at the lowest priority, the check waits for the sorts."""
    from app.core.formats.potato.engine import parallel as engine_parallel

    monkeypatch.setattr(engine_parallel, "_lowest_priority", lambda: False)
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    after = threading.Event()
    connected: list[float] = []

    def connect() -> sqlite3.Connection:
        connected.append(time.monotonic())
        return sqlite3.connect(path, check_same_thread=False)
    with IntegrityCheck(connect, after=after) as check:
        time.sleep(0.05)
        assert connected == []  # not before the event
        after.set()
        check.raise_if_damaged(path)  # ok: no error
    assert len(connected) == 1
    stopped = IntegrityCheck(connect, after=threading.Event())
    with stopped:
        stopped.stop()
        stopped._after.set()  # type: ignore[union-attr]
    assert len(connected) == 2  # it opened, saw it was stopped, and closed



@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice: Linux")
def test_a_check_at_the_lowest_priority_starts_at_once(tmp_path: Path) -> None:
    """On Linux the check's thread lowers itself to nice 19 and does not wait for the
    sorts; the caller's thread keeps its priority."""
    path = tmp_path / "db.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    niceness: list[int] = []

    def connect() -> sqlite3.Connection:
        niceness.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return sqlite3.connect(path, check_same_thread=False)
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    with IntegrityCheck(connect, after=threading.Event()) as check:  # never set
        check.raise_if_damaged(path)  # answers without the event
    assert niceness == [19]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
