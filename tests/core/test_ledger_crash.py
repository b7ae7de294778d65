"""Crash-proof looks (issue 16, part 3): ``certify`` killed at every write boundary, and
at random instants, loses no look and charges none twice.

Fault injection, not sleeps: a child process (forked from :class:`ForkServer`) runs
``accord label certify`` with ``tempfile.mkstemp``, ``os.fsync``, ``os.replace`` and
``os.unlink`` wrapped so that the k-th call of any of them (and the run's end) ends the
process with ``os._exit(9)`` before it happens, for every k a dry run counted. Then a
plain ``certify`` runs and the project must be exactly what an uninterrupted run leaves:
the same look lines (contract, look number, level, data hash, result) and events, the
same looks and level spent, a whole ledger, no stray temporary file. The reference is
an uninterrupted run of the same scenario on a copy, so "the right look" is what the
ledger rules say, not what this code happens to do.

``ACCORD_KILL_TRIALS`` (default 8) sets the number of random ``kill -9`` trials on a real
``python -m app label certify`` subprocess; ``ACCORD_KILL_TRIALS=100`` is the issue's run.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.main import main
from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.ledger.format import HEAD_FILE, ledger_file
from app.core.contracts.ledger.recovery import stray_files
from tests.potato_project import RADIO, label, simple_items, write_project

REPO = Path(__file__).resolve().parents[2]
POTATO = REPO / "tests" / "data" / "potato_engine"
N_ITEMS = 300
CONTRACTS = [
    {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.2},
    {"id": "strict", "kind": "selective_risk", "schema": "sentiment", "error": 0.1,
     "renamed_from": "old-strict"},  # a rename event, then its look: two writes
]

SERVER = r"""
import json, os, sys, tempfile, traceback
from app.cli.main import main  # imported once; every trial is a fork of this process
import app.core.contracts.label_report  # noqa: F401  (what certify imports lazily)

def trial(spec):
    kill_at, calls = spec["kill_at"], [0]
    def boundary():
        calls[0] += 1
        if calls[0] == kill_at:
            os._exit(9)
    def wrap(module, name):
        real = getattr(module, name)
        def wrapped(*args, **kwargs):
            boundary()
            return real(*args, **kwargs)
        setattr(module, name, wrapped)
    for module, name in ((tempfile, "mkstemp"), (os, "fsync"), (os, "replace"),
                         (os, "unlink")):
        wrap(module, name)
    try:
        code = main(spec["argv"])
        boundary()  # the end of the run is a boundary too: killed after the last write
    except BaseException:
        traceback.print_exc()
        code = 70
    with open(spec["count"], "w") as out:
        out.write(str(calls[0]))
    return code

for line in sys.stdin:
    spec = json.loads(line)
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.dup2(os.open(spec["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
        code = trial(spec)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


# ------------------------------------------------------------------ the projects


def make_project(root: Path, n_cert: int = 120) -> Path:
    """A one-tier Accord project with two contracts (as tests/cli/test_label_cli.py)."""
    rng = random.Random(8)
    truth = {f"item-{k}": rng.choice(["pos", "neg", "neu"]) for k in range(N_ITEMS)}
    project = write_project(root, schemes=[RADIO], items=simple_items(N_ITEMS),
                            annotators={"ann": {"item-0": [label("sentiment", "pos")]}})
    labeling = project / "labeling"
    labeling.mkdir()
    engine = {"cascade": [{"name": "model", "source": "logprob"}],
              "humans": {"dev_fraction": 0.5}, "budgets": {"human_labels": 250},
              "contracts": CONTRACTS}
    (labeling / "engine.yaml").write_text(yaml.safe_dump(engine, sort_keys=False))
    predictions = []
    for item, value in truth.items():
        wrong = rng.random() < 0.04
        guess = rng.choice([v for v in ("pos", "neg", "neu") if v != value]) if wrong else value
        predictions.append({"item": item, "schema": "sentiment", "tier": "model",
                            "label": guess, "confidence": round(
                                rng.uniform(0.9, 0.93 if wrong else 1.0), 3)})
    (labeling / "predictions.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in predictions))
    grow(project, n_cert)
    return project


def grow(project: Path, n_cert: int) -> None:
    """Write the calibration answers with ``n_cert`` cert labels (more: a new look due)."""
    rng = random.Random(8)  # the same truth as make_project's
    truth = {f"item-{k}": rng.choice(["pos", "neg", "neu"]) for k in range(N_ITEMS)}
    requests = [{"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
                 "kind": "calibration", "pi": 0.5, "split": "dev" if k <= 80 else "cert",
                 "annotator": "ann", "label": truth[f"item-{k}"]}
                for k in range(1, 1 + 80 + n_cert)]
    (project / "labeling" / "requests.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in requests))


def certify(project: Path, *extra: str) -> int:
    return main(["label", "certify", str(project), "--json", *extra])


def delete_last_line(project: Path) -> None:
    path = project / ledger_file(project)
    path.write_bytes(b"".join(line + b"\n" for line in path.read_bytes().split(b"\n")[:-2]))


def head_behind_with_strays(project: Path) -> None:
    """A crash's leftovers, made by hand: the head one line behind, two stray temps."""
    raw = (project / ledger_file(project)).read_bytes().split(b"\n")[:-1]
    (project / HEAD_FILE).write_text(
        f"{len(raw) - 1} {hashlib.sha256(raw[-2]).hexdigest()}\n", encoding="ascii")
    (project / ".accord" / ".ledger-head.k3x_9qzp.tmp").write_text("7 ab")
    (project / "labeling" / ".ledger.jsonl.abc12345.tmp").write_bytes(raw[0])


Setup = Callable[[Path], None]


def first_certify(project: Path) -> None:
    """Nothing recorded yet: the first certify spends look 1 of each contract."""


def new_look_due(project: Path) -> None:
    """Look 1 recorded; 40 more cert labels: the next certify spends look 2."""
    assert certify(project) == 0
    grow(project, 160)


def damaged(project: Path) -> None:
    """The last line deleted: ``--acknowledge-ledger`` counts it, then tests again."""
    assert certify(project) == 0
    delete_last_line(project)
    grow(project, 160)


def head_deleted(project: Path) -> None:
    """The head deleted: its last line is unvouched, counted by the acknowledgement.

    Killed after the acknowledgement's line, there is no old head for it to name, so the
    damage shows again and is acknowledged again: the ledger then differs from the
    reference in its events, never in its looks (:data:`EXACT`)."""
    assert certify(project) == 0
    (project / HEAD_FILE).unlink()
    grow(project, 160)


def crashed_before(project: Path) -> None:
    """A crash between ledger and head already happened: the next run cleans up."""
    new_look_due(project)
    assert certify(project) == 0
    head_behind_with_strays(project)


def potato_engine(project: Path) -> None:
    """A real Potato 2.12.1 engine project (``tests/data/potato_engine``) with five new
    cert labels: the ledger is ``.accord/ledger.jsonl`` and ppi spends look 2 after
    Potato's look 1 (as in tests/core/test_potato_engine_projects.py)."""
    shutil.rmtree(project)
    shutil.copytree(POTATO / "sentiment_static", project)
    with sqlite3.connect(project / "engine.sqlite") as db:
        items = [r[0] for r in db.execute(
            "SELECT item_id FROM engine_item WHERE item_id NOT IN "
            "(SELECT item_id FROM human_request) ORDER BY item_id LIMIT 5")]
        db.executemany("INSERT INTO human_request (item_id, schema_name, purpose, "
                       "inclusion_prob, split, status, label_json, user_id, created_at, "
                       "completed_at) VALUES (?, 'sentiment', 'certification', 0.8, 'cert', "
                       "'done', '\"positive\"', 'late', 0, 0)", [(i,) for i in items])
    db.close()


SCENARIOS: dict[str, tuple[Setup, tuple[str, ...]]] = {
    "first": (first_certify, ()),
    "second": (new_look_due, ()),
    "acknowledge": (damaged, ("--acknowledge-ledger",)),
    "acknowledge-no-head": (head_deleted, ("--acknowledge-ledger",)),
    "recover": (crashed_before, ()),
    "potato": (potato_engine, ()),
}


EXACT = {name for name in SCENARIOS if name != "acknowledge-no-head"}
"""Scenarios whose ledger after recovery is the reference's line for line (times aside)."""


# ------------------------------------------------------------------ what must hold


def ledger_record(project: Path) -> list[dict[str, Any]]:
    """Every ledger line without its time stamp and chain hash (those differ per run)."""
    raw = ledger_bytes(project).decode("utf-8").splitlines()
    out = []
    for line in raw:
        entry = json.loads(line)
        entry.pop("time", None)
        entry.pop("prev", None)
        details = entry.get("details", {})
        details.pop("head_was", None)  # the old head names the old run's hash
        out.append(entry)
    return out


def looks_of(project: Path) -> dict[str, tuple[int, float, str]]:
    from app.core.contracts.label_report import label_report
    contracts = label_report(project).to_json()["contracts"]
    return {c: (v["looks"], v["level_spent"], v["state"]) for c, v in contracts.items()}


def ledger_bytes(project: Path) -> bytes:
    path = project / ledger_file(project)
    return path.read_bytes() if path.is_file() else b""


def temporary_files(project: Path) -> list[str]:
    return sorted(p.relative_to(project).as_posix()
                  for folder in ("labeling", ".accord") if (project / folder).is_dir()
                  for p in (project / folder).iterdir() if p.name.endswith(".tmp"))


def check_recovered(project: Path, reference: Path, extra: tuple[str, ...], what: str,
                    *, exact: bool = True) -> None:
    """The next plain certify leaves exactly the reference's ledger, looks and files
    (with ``exact`` false: the same look lines, looks and level spent; events may differ)."""
    assert certify(project, *extra) == 0, what
    assert Ledger.open(project).ok, what
    assert temporary_files(project) == [] and stray_files(project) == [], what
    if exact:
        assert ledger_record(project) == ledger_record(reference), what
    else:
        def looks(folder: Path) -> list[dict[str, Any]]:
            return [e for e in ledger_record(folder) if e["kind"] == "look"]
        assert looks(project) == looks(reference), what
    assert looks_of(project) == looks_of(reference), what


def prepared(tmp_path: Path, name: str) -> tuple[Path, Path, tuple[str, ...]]:
    """The scenario's starting project (to copy per trial) and its reference outcome."""
    setup, extra = SCENARIOS[name]
    start = make_project(tmp_path / "start")
    setup(start)
    reference = tmp_path / "reference"
    shutil.copytree(start, reference)
    assert certify(reference, *extra) == 0
    return start, reference, extra


class ForkServer:
    """One Python process that imports Accord once and forks a child per trial: a fresh
    process per kill (``os._exit(9)`` ends only the child) at a fork's cost, not an
    interpreter start's. The random trials below use real ``python -m app`` runs."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        self.process = subprocess.Popen([sys.executable, "-c", SERVER], cwd=REPO, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def run(self, project: Path, extra: tuple[str, ...], kill_at: int) -> tuple[int, int, str]:
        """Exit status, boundaries passed (when not killed), and stderr of one certify
        killed at the ``kill_at``-th boundary (0: never)."""
        count, err = self.folder / "count", self.folder / "stderr"
        count.write_text("0")
        spec = {"argv": ["label", "certify", str(project), "--json", *extra],
                "kill_at": kill_at, "count": str(count), "stderr": str(err)}
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(spec) + "\n")
        self.process.stdin.flush()
        code = int(self.process.stdout.readline())
        return code, int(count.read_text()), err.read_text()

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)
        self.process.stdout.close()


@pytest.fixture(scope="module")
def forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    server = ForkServer(tmp_path_factory.mktemp("forks"))
    yield server
    server.close()


# ------------------------------------------------------------------ the trials


POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="os.fork and SIGKILL")


@POSIX_ONLY
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_certify_killed_at_every_write_boundary_loses_and_adds_no_look(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], forks: ForkServer,
        name: str) -> None:
    start, reference, extra = prepared(tmp_path, name)
    dry = tmp_path / "dry"
    shutil.copytree(start, dry)
    code, boundaries, err = forks.run(dry, extra, 0)
    assert code == 0, err
    assert ledger_record(dry) == ledger_record(reference)
    assert boundaries >= {"first": 20, "second": 12, "acknowledge": 16,
                          "acknowledge-no-head": 16, "recover": 5, "potato": 8}[name]
    outcomes: Counter[str] = Counter()
    for kill_at in range(1, boundaries + 1):
        trial = tmp_path / f"k{kill_at}"
        shutil.copytree(start, trial)
        before = ledger_bytes(trial)
        code, _, err = forks.run(trial, extra, kill_at)
        assert code == 9, (kill_at, err)
        assert "Traceback" not in err
        outcomes["ledger changed" if ledger_bytes(trial) != before else "ledger as before"] += 1
        if temporary_files(trial):
            outcomes["stray temporary file left"] += 1
        check_recovered(trial, reference, extra, f"{name}, killed at boundary {kill_at}",
                        exact=name in EXACT)
        capsys.readouterr()
        shutil.rmtree(trial)
    print(f"{name}: {boundaries} boundaries killed, {dict(outcomes)}")
    assert outcomes["ledger changed"] > 0 or name == "recover"


@POSIX_ONLY
def test_certify_killed_by_sigkill_at_random_instants(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Half the kills anywhere in the run, half aimed at the ledger's write (measured on an
    uninterrupted run from the ledger's modification time): most of a run is reading."""
    trials = int(os.environ.get("ACCORD_KILL_TRIALS", "8"))
    start, reference, extra = prepared(tmp_path, "second")
    command = [sys.executable, "-m", "app", "label", "certify"]
    timing = tmp_path / "timing"
    shutil.copytree(start, timing)
    began = time.time()
    subprocess.run([*command, str(timing)], cwd=REPO, capture_output=True, check=True)
    duration = time.time() - began
    written = (timing / ledger_file(timing)).stat().st_mtime - began
    rng = random.Random(16)
    outcomes: Counter[str] = Counter()
    for index in range(trials):
        trial = tmp_path / f"r{index}"
        shutil.copytree(start, trial)
        before = ledger_bytes(trial)
        aimed = index % 2 == 1
        delay = (rng.uniform(0.85 * written, 1.15 * written + 0.02) if aimed
                 else rng.uniform(0.0, 1.1 * duration))
        child = subprocess.Popen([*command, str(trial)], cwd=REPO, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
        time.sleep(max(delay, 0.0))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate(timeout=120)
        assert b"Traceback" not in err
        finished = child.returncode == 0
        changed = ledger_bytes(trial) != before
        outcomes[("aimed, " if aimed else "anywhere, ")
                 + ("finished before the kill" if finished else
                    "killed after the ledger changed" if changed else
                    "killed before the ledger changed")] += 1
        if temporary_files(trial):
            outcomes["stray temporary file left"] += 1
        check_recovered(trial, reference, extra, f"random trial {index}")
        capsys.readouterr()
        shutil.rmtree(trial)
    print(f"random kill -9: {trials} trials, runs of {duration:.2f} s, the ledger written at "
          f"{written:.2f} s: {dict(sorted(outcomes.items()))}")


# ------------------------------------------------------------------ the head rules


def _look(ledger: Ledger, contract: str, data: str) -> None:
    from app.core.contracts.ledger.format import data_hash
    number = ledger.looks(contract) + 1
    ledger.append_look(contract, look=number, level=0.01 / number**2,
                       data_hash=data_hash({"c": data}, {"p": data}, None), rule=None,
                       result={"state": "met"}, cascade=["model"])


def test_the_first_write_puts_a_genesis_head_before_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = os.replace
    targets: list[str] = []

    def replace(source: Any, target: Any) -> None:
        targets.append(Path(target).name)
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)
    _look(Ledger.open(tmp_path), "a", "1")
    _look(Ledger.open(tmp_path), "a", "2")
    assert targets == ["ledger-head", "ledger.jsonl", "ledger-head",  # 0 <genesis> first
                       "ledger.jsonl", "ledger-head"]


def test_a_missing_head_is_never_read_as_behind(tmp_path: Path) -> None:
    """Deleting the head (and the lines after an acknowledgement) stays visible."""
    _look(Ledger.open(tmp_path), "a", "1")
    (tmp_path / HEAD_FILE).unlink()
    one_line = Ledger.open(tmp_path)
    assert one_line.damage is not None and "is missing" in one_line.damage
    one_line.acknowledge_damage()  # made for a missing head: head_was is None
    _look(Ledger.open(tmp_path), "a", "2")
    path = tmp_path / ledger_file(tmp_path)
    path.write_bytes(b"".join(line + b"\n" for line in path.read_bytes().split(b"\n")[:-2]))
    (tmp_path / HEAD_FILE).unlink()  # back to the acknowledgement, and no head
    assert not Ledger.open(tmp_path).ok


def test_an_acknowledgement_one_line_ahead_of_the_head_it_replaced_is_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for data in "123":
        _look(Ledger.open(tmp_path), "a", data)
    delete_last_line(tmp_path)  # the head names line 3 of 2
    damaged = Ledger.open(tmp_path)
    assert damaged.damage is not None
    looks = damaged.looks("a")
    real = os.replace

    def no_head(source: Any, target: Any) -> None:
        if Path(target).name == "ledger-head":
            raise OSError("killed")
        real(source, target)

    monkeypatch.setattr(os, "replace", no_head)
    with pytest.raises(OSError, match="killed"):
        damaged.acknowledge_damage()
    monkeypatch.undo()
    reopened = Ledger.open(tmp_path)
    assert reopened.ok and reopened.looks("a") == looks == 3
    stale = (tmp_path / HEAD_FILE).read_text(encoding="ascii")
    (tmp_path / HEAD_FILE).write_text("2" + stale[1:], encoding="ascii")  # not the one named
    assert not Ledger.open(tmp_path).ok
