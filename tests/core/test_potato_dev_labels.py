"""When only dev labels arrived (contracts.md, "Same data, no new look"), checked against
Potato 2.12.1 itself on a real project.

The bundled demo ``potato_reviews`` is copied to a temporary folder and certified once by
``potato label certify`` (its records are then current: ``accuracy`` met at look 1,
``prevalence`` met at look 2, ``plan`` budget_first). Then **only dev labels** arrive,
through Potato's own engine (``tests/potato_real/dev_labels.py``:
``Engine.draw_calibration`` draws a wave, its split decides dev or cert, and only its dev
requests are answered with ``Engine.record_human_label``). That copy is copied again:
``potato label certify --json`` runs on one, ``accord label certify`` on the other, and
both must do the same:

- dev now chooses another rule: the stored result and look, nothing spent, the note and
  ``retest_available`` (for the estimate ``prevalence`` always: it has no signature);
- dev chooses the same selective_risk rule (one dev item that leaves Potato's
  ``_signature`` as stored): the test already run, evaluated again at its look, nothing
  spent, the same numbers;
- ``--retest`` then tests at the next look, with Potato's numbers to 1e-9 (``accuracy``'s
  look 2 reaches no test in either, so both store the evaluation at look 1).

Which dev item keeps the rule was found by running Potato (the wave is seeded); the test
asserts Potato's verdict too, so a different Potato would fail here, not pass silently.
The same on ``tests/data/potato_engine/cascade_fixture`` for the other estimates
(ppi by language, no_worse_than_human, distributional).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.core.contracts.label_report import label_report
from app.core.contracts.statistics.looks import look_level
from tests.core.test_potato_record_moved import (
    DEMO,
    ENGINE,
    POTATO,
    REPO,
    _env,
    _ledger,
    _same,
    _stored,
)

needs_potato = pytest.mark.skipif(not POTATO.is_file(),
                                  reason="potato-annotation 2.12.1 is not installed")
NOTE = "Dev labels now choose a different rule; certify with retest to test it (look {})"
CHANGES_RULE, KEEPS_RULE = 0, 1
"""The wave's dev item (in item order) whose label moves ``accuracy``'s rule, or not."""


def _potato(project: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run([str(POTATO), "label", "certify", "config.yaml", "--json", *args],
                          cwd=project, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    out: dict[str, Any] = json.loads(done.stdout)["sentiment"]
    return out


def _versions(project: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(project / "engine.sqlite") as db:
        rows = [(str(c), int(n)) for c, n in db.execute(
            "SELECT contract_id, looks FROM contract_version ORDER BY id")]
    db.close()
    return rows


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo after one ``potato label certify``: every record current."""
    if not POTATO.is_file():
        pytest.skip("potato-annotation 2.12.1 is not installed")
    base = tmp_path_factory.mktemp("dev_labels") / "base"
    shutil.copytree(DEMO, base)
    first = _potato(base)
    assert {c: (r["status"], r["looks_spent"]) for c, r in first.items()} == {
        "accuracy": ("met", 1), "prevalence": ("met", 2), "plan": ("met", 0)}
    return base


def _copies(certified: Path, tmp_path: Path, start: int) -> tuple[Path, Path]:
    """Two identical copies after one dev label (the ``start``-th of the wave's dev
    requests) arrived through Potato's engine."""
    accord, potato = tmp_path / "accord", tmp_path / "potato"
    shutil.copytree(certified, accord)
    done = subprocess.run([sys.executable, "-m", "tests.potato_real.dev_labels",
                           str(accord), "1", "--start", str(start), "--budget", "400"],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    given = json.loads(done.stdout.strip().splitlines()[-1])
    assert [x["split"] for x in given["labels"]] == ["dev"]
    shutil.copytree(accord, potato)
    return accord, potato


def _counts(project: Path) -> tuple[int, int]:
    """(dev, cert) calibration labels answered, as Potato's rows hold them."""
    with sqlite3.connect(project / "engine.sqlite") as db:
        rows = dict(db.execute("SELECT split, COUNT(*) FROM human_request WHERE "
                               "purpose = 'calibration' AND status = 'done' GROUP BY split"))
    db.close()
    return int(rows["dev"]), int(rows["cert"])


@needs_potato
def test_dev_chooses_another_rule_stored_result_and_note(
        certified: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    accord, potato = _copies(certified, tmp_path, CHANGES_RULE)
    assert _counts(accord) == (85, 82)  # one dev label more; the cert labels as tested
    before = _versions(potato)
    theirs = _potato(potato)
    assert main(["label", "certify", str(accord), "--json"]) == 0
    mine = json.loads(capsys.readouterr().out)["contracts"]
    for ident, recorded in theirs.items():
        entry = mine[ident]
        assert (entry["state"], entry["looks"]) == (recorded["status"],
                                                    recorded["looks_spent"]), ident
        assert entry.get("retest_available", False) is \
            recorded.get("retest_available", False), ident
    # Potato: the stored result with its note, nothing stored but plan's re-evaluation
    for ident, look in (("accuracy", 2), ("prevalence", 3)):
        assert theirs[ident]["notes"][-1] == NOTE.format(look) + "."
        assert any(n.startswith(NOTE.format(look)) for n in mine[ident]["notes"]), ident
        assert not any("new data to certify" in n for n in mine[ident]["notes"])
    assert [v for v in _versions(potato)[len(before):]] == [("plan", 0)]
    # Accord: the stored numbers (Potato's record itself), no look, no evaluation
    assert mine["accuracy"]["result"]["potato_metrics"] == \
        theirs["accuracy"]["metrics"]
    assert mine["prevalence"]["level_spent"] == pytest.approx(
        look_level(1, 0.9) + look_level(2, 0.9), abs=1e-15)
    assert [(line.get("details") or {}).get("contract") for line in _ledger(accord)] \
        == ["plan"]  # budget_first is re-evaluated and never spends, as Potato's
    # like Potato, the note is not stored: status shows the stored result without it
    status = label_report(accord).to_json()["contracts"]
    assert "retest_available" not in status["accuracy"]
    assert not any(n.startswith("Dev labels now choose") for n in status["accuracy"]["notes"])

    # --retest tests at the next look, on both
    theirs = _potato(potato, "--retest")
    report = label_report(accord, certify=True, retest=True)
    for ident, recorded in theirs.items():
        status_now = report.contracts[ident]
        assert (status_now.state, status_now.looks) == (recorded["status"],
                                                        recorded["looks_spent"]), ident
        assert not status_now.retest_available and "retest_available" not in recorded
        assert _same(_stored(accord, ident), recorded) == [], ident
    assert (theirs["accuracy"]["look"], theirs["prevalence"]["look"]) == (1, 3)
    looks = [line for line in _ledger(accord) if line.get("kind") == "look"]
    assert [(line["contract"], line["look"]) for line in looks] == [("prevalence", 3)]
    assert looks[0]["level"] == pytest.approx(look_level(3, 0.9), abs=1e-15)
    assert report.contracts["prevalence"].level_spent == pytest.approx(
        sum(look_level(k, 0.9) for k in (1, 2, 3)), abs=1e-15)


@needs_potato
def test_dev_chooses_the_same_rule_the_test_already_run(certified: Path,
                                                        tmp_path: Path) -> None:
    accord, potato = _copies(certified, tmp_path, KEEPS_RULE)
    theirs = _potato(potato)
    report = label_report(accord, certify=True)
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
        assert status.retest_available is recorded.get("retest_available", False), ident
    # accuracy: Potato stored the test at look 1 with the new dev count; so did Accord
    assert "retest_available" not in theirs["accuracy"]
    assert (theirs["accuracy"]["looks_spent"], theirs["accuracy"]["n_dev"]) == (1, 85)
    assert _same(_stored(accord, "accuracy"), theirs["accuracy"]) == []
    assert any("dev labels arrived since the stored result, the cert labels are the same "
               "and dev chose the same rule: the test already run, evaluated again at "
               "look 1, nothing spent" in n for n in report.contracts["accuracy"].notes)
    assert theirs["prevalence"]["retest_available"] is True  # an estimate: always the note
    assert not any(line.get("kind") == "look" for line in _ledger(accord))
    assert report.contracts["accuracy"].level_spent == pytest.approx(look_level(1, 0.9))
    # --retest with the same rule: still the test already run, at look 1 (Potato's order)
    again = _potato(potato, "--retest")
    report = label_report(accord, certify=True, retest=True)
    assert again["accuracy"]["looks_spent"] == report.contracts["accuracy"].looks == 1


@needs_potato
def test_retest_on_unchanged_data_spends_nothing(certified: Path, tmp_path: Path) -> None:
    """Potato's same-data test comes before ``--retest``: the same data is not a new
    look (contracts.md, Looks)."""
    accord, potato = tmp_path / "accord", tmp_path / "potato"
    shutil.copytree(certified, accord)
    shutil.copytree(certified, potato)
    theirs = _potato(potato, "--retest")
    report = label_report(accord, certify=True, retest=True)
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
        assert status.notes[0] == "unchanged labels: the stored result, nothing spent"
    assert _ledger(accord) == []


@needs_potato
def test_every_estimate_kind_on_the_cascade_fixture(tmp_path: Path) -> None:
    """``cascade_fixture``: ppi by language (look 2), no_worse_than_human (look 1) and
    distributional (look 1) beside a selective_risk that never ran (0 looks) and a
    threshold_legacy on another scheme. Three dev labels on ``sentiment`` (one person
    per item; the distributional contract's overlap copies stay open): every estimate
    returns the stored result with the note, as Potato's; ``--retest`` spends each one's
    next look with Potato's numbers."""
    accord, potato = tmp_path / "accord", tmp_path / "potato"
    shutil.copytree(ENGINE / "cascade_fixture", accord)
    _potato_all(accord)  # Potato's records current first
    subprocess.run([sys.executable, "-m", "tests.potato_real.dev_labels", str(accord), "3",
                    "--scheme", "sentiment", "--rate", "0.5", "--budget", "2000"],
                   cwd=REPO, capture_output=True, text=True, timeout=300, env=_env(),
                   check=True)
    shutil.copytree(accord, potato)
    theirs = _potato_all(potato)
    report = label_report(accord, certify=True)
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
        assert status.retest_available is recorded.get("retest_available", False), ident
    assert sorted(i for i, r in theirs.items() if r.get("retest_available")) == [
        "sentiment_distribution", "sentiment_prevalence", "sentiment_vs_people"]
    assert not any(line.get("kind") == "look" for line in _ledger(accord))
    theirs = _potato_all(potato, "--retest")
    report = label_report(accord, certify=True, retest=True)
    spent = {}
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
        if ident.startswith("sentiment"):
            assert _same(_stored(accord, ident), recorded) == [], ident
    for line in _ledger(accord):
        if line.get("kind") == "look":
            spent[line["contract"]] = line["look"]
    assert spent == {"sentiment_prevalence": 3, "sentiment_vs_people": 2,
                     "sentiment_distribution": 2}


def _potato_all(project: Path, *args: str) -> dict[str, Any]:
    """``potato label certify --json`` on every scheme, contract id → result."""
    done = subprocess.run([str(POTATO), "label", "certify", "config.yaml", "--json", *args],
                          cwd=project, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    return {c: r for scheme in json.loads(done.stdout).values() for c, r in scheme.items()}
