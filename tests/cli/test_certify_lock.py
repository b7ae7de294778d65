"""One certify at a time (issue 16, part 4): 20 at once, a held lock, the GUI's path.

Every run ends with exit 0, or exit 2 and exactly one line saying another certify is
running; never a traceback; the ledger holds exactly what one uninterrupted certify
writes (tests/core/test_ledger_crash.py builds the same project and compares the same
way). The GUI certifies and schedules through ``app.core.project.open_project``, so
that path is held to the same lock here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from app.cli.main import main
from app.core.contracts.label_report import SCHEDULE_BUSY, label_report
from app.core.contracts.ledger.chain import Ledger, LookConflictError
from app.core.contracts.ledger.lock import CertifyBusyError, certify_lock
from app.core.progress import run
from app.core.project import open_project
from tests.core.test_ledger_crash import (
    certify,
    delete_last_line,
    grow,
    ledger_record,
    looks_of,
    make_project,
)

REPO = Path(__file__).resolve().parents[2]
BUSY = "another certify is running on this project"


def _start(project: Path, wait: float) -> subprocess.Popen[str]:
    env = {**os.environ, "ACCORD_CERTIFY_WAIT": str(wait)}
    return subprocess.Popen([sys.executable, "-m", "app", "label", "certify", str(project)],
                            cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _concurrently(project: Path, runs: int, wait: float) -> Counter[int]:
    """``runs`` certify processes at once; each must end in exit 0 or one busy line."""
    children = [_start(project, wait) for _ in range(runs)]
    codes: Counter[int] = Counter()
    for child in children:
        _, err = child.communicate(timeout=120)
        assert "Traceback" not in err
        codes[child.returncode] += 1
        if child.returncode == 0:
            assert err == ""
        else:
            assert child.returncode == 2, err
            lines = err.splitlines()
            assert len(lines) == 1 and BUSY in lines[0], err
            assert lines[0].startswith("accord: error: ") and "certify.lock" in lines[0]
    return codes


def _reference(tmp_path: Path, project: Path, name: str) -> Path:
    reference = tmp_path / name
    shutil.copytree(project, reference)
    assert certify(reference) == 0
    return reference


def test_twenty_concurrent_certify_runs(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path / "proj")
    reference = _reference(tmp_path, project, "first")
    waited = _concurrently(project, 20, wait=5.0)  # long enough for everyone to get a turn
    assert Ledger.open(project).ok
    assert ledger_record(project) == ledger_record(reference)  # one look each, no more
    assert looks_of(project) == looks_of(reference)

    grow(project, 160)  # a new look is due; this time nobody waits
    reference = _reference(tmp_path, project, "second")
    hurried = _concurrently(project, 20, wait=0.0)
    assert Ledger.open(project).ok
    assert ledger_record(project) == ledger_record(reference)  # look 2 once, at its level
    assert looks_of(project) == looks_of(reference)
    assert hurried[0] >= 1  # the first to try always gets the lock
    # (how many give up depends on the machine's timing; test_a_second_certify_waits...
    # exercises the busy line deterministically)
    capsys.readouterr()
    print(f"20 concurrent, waiting 5 s: {dict(waited)}; waiting 0 s: {dict(hurried)}")


def test_a_second_certify_waits_then_gives_up_in_one_line(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj")
    with certify_lock(project):
        began = time.monotonic()
        child = _start(project, wait=0.6)
        _, err = child.communicate(timeout=60)
        waited = time.monotonic() - began
    assert child.returncode == 2
    assert len(err.splitlines()) == 1 and BUSY in err and "waited 0.6 s" in err
    assert waited >= 0.6
    assert not (project / "labeling" / "ledger.jsonl").exists()  # nothing tested

    holder = threading.Event()

    def hold() -> None:
        with certify_lock(project):
            holder.set()
            time.sleep(0.8)

    thread = threading.Thread(target=hold)
    thread.start()
    holder.wait(10)
    child = _start(project, wait=10.0)  # waits for the holder, then certifies
    out, err = child.communicate(timeout=60)
    thread.join()
    assert child.returncode == 0 and err == "" and "looks 1" in out


def test_the_gui_path_shares_the_lock(tmp_path: Path) -> None:
    """The window's certify and its watcher's scheduled look both call open_project."""
    project = make_project(tmp_path / "proj")
    os.environ["ACCORD_CERTIFY_WAIT"] = "0.2"
    try:
        with certify_lock(project):
            with pytest.raises(CertifyBusyError, match=BUSY):
                run(open_project(project, certify=True))
            scheduled = run(open_project(project, schedule=True))
            assert scheduled.labels is not None
            assert SCHEDULE_BUSY in scheduled.labels.notes
            assert all(c.looks == 0 and SCHEDULE_BUSY in c.notes
                       for c in scheduled.labels.contracts.values())
        assert not (project / "labeling" / "ledger.jsonl").exists()
        spent = label_report(project, schedule=True)  # free again: the planner certifies
        assert SCHEDULE_BUSY not in spent.notes
        assert {c.looks for c in spent.contracts.values()} == {1}
    finally:
        del os.environ["ACCORD_CERTIFY_WAIT"]


def test_a_look_conflict_is_one_line_and_exit_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that ignores the lock (an older Accord) recorded a look meanwhile."""
    project = make_project(tmp_path / "proj")

    def conflict(*_: object, **__: object) -> None:
        raise LookConflictError("contract 'accuracy' is at look 2, not 1: another test was "
                                "recorded meanwhile; test again at look 2's level")

    monkeypatch.setattr(Ledger, "append_look", conflict)
    assert main(["label", "certify", str(project)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is at look 2, not 1" in err and "nothing was recorded" in err


def test_the_acknowledge_hint_is_printed_once(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    project = make_project(tmp_path / "proj")
    assert certify(project) == 0
    delete_last_line(project)
    capsys.readouterr()
    assert main(["label", "certify", str(project)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("--acknowledge-ledger") == 1
    assert main(["label", "status", str(project)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.count("--acknowledge-ledger") == 1
