"""Real Potato 2.12.1 engine projects (``tests/data/potato_engine``, written by Potato
itself through ``tests/potato_real/engine_projects.py``) open in Accord as they are.

What must hold on every one of them (issue 13, parts 2 and 5; ``contracts.md``,
"Agreeing with Potato 2.12.1"): ``label status`` reads it with no ``labeling/`` folder
and, for ``labels_only_in_db``, no ``user_state.json`` at all; nothing is created or
changed in the project (no ``-shm``/``-wal`` beside ``engine.sqlite``); what Accord reads
from ``engine.sqlite`` is what Potato's own ``potato label status --json`` counted; and
Potato's record of every contract (state, looks spent) is carried through as stored.
Accord's own recomputation with Potato's statistics, and the audit comparing the two,
are not here yet.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.core.contracts.label_report import label_report

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
PROJECTS = sorted(p.name for p in DATA.iterdir() if (p / "engine.sqlite").is_file()) \
    if DATA.is_dir() else []


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _potato_status(name: str) -> dict[str, Any]:
    status: dict[str, Any] = json.loads((DATA / name / "expected" / "status.json").read_text())
    return status


@pytest.fixture(params=PROJECTS)
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """A copy of one committed project (the committed one is checked separately)."""
    copy = tmp_path / request.param
    shutil.copytree(DATA / request.param, copy)
    return copy


def test_there_are_real_projects() -> None:
    assert {"sentiment_static", "cascade_fixture", "labels_only_in_db"} <= set(PROJECTS)


@pytest.mark.parametrize("name", PROJECTS)
def test_status_writes_nothing_into_the_committed_project(name: str, capsys: Any) -> None:
    before = _snapshot(DATA / name)
    assert main(["label", "status", str(DATA / name), "--json"]) == 0
    assert _snapshot(DATA / name) == before
    json.loads(capsys.readouterr().out)


def test_labels_only_in_the_database(tmp_path: Path) -> None:
    project = tmp_path / "labels_only_in_db"
    shutil.copytree(DATA / "labels_only_in_db", project)
    assert not list(project.rglob("user_state.json"))
    report = label_report(project)
    assert report.study.annotators == ()
    assert report.potato is not None and report.potato.labeling.calibration_labels("sentiment")


def test_what_accord_reads_is_what_potato_counted(project: Path) -> None:
    report = label_report(project)
    potato = _potato_status(project.name)
    store = report.potato
    assert store is not None
    assert len(report.study.items) == potato["items"]
    calibration = sum(1 for r in store.labeling.requests if r.calibration and r.answered)
    assert calibration == potato["requests"]["calibration"].get("done", 0)
    for schema, scheme in potato["schemes"].items():
        for tier, counts in scheme["sources"].items():
            mine = store.labeling.predictions_for(schema, tier)
            assert len(mine) == counts["ok"], (schema, tier)


def test_potato_s_record_of_each_contract_is_carried_through(project: Path) -> None:
    data = label_report(project).to_json()
    potato = _potato_status(project.name)
    for scheme in potato["schemes"].values():
        for ident, recorded in scheme["contracts"].items():
            mine = data["contracts"][ident]["potato"]
            assert mine is not None, ident
            assert (mine["state"], mine["looks"]) == (recorded["status"],
                                                      recorded["looks_spent"]), ident


def test_accord_s_looks_start_after_potato_s(project: Path) -> None:
    report = label_report(project)
    for ident, status in report.contracts.items():
        record = report.potato.records.contracts.get(ident) if report.potato else None
        if record is not None and str(status.spec.kind) == "selective_risk":
            assert status.looks >= record.looks, ident


def test_certify_writes_only_dot_accord_and_continues_after_potato(tmp_path: Path) -> None:
    """Unchanged labels: Potato's stored results, nothing spent or written. New cert labels:
    the contracts are evaluated at the next look, after Potato's, and only .accord/ is
    written."""
    import sqlite3

    project = tmp_path / "sentiment_static"
    shutil.copytree(DATA / "sentiment_static", project)
    before = _snapshot(project)
    unchanged = label_report(project, certify=True)
    # nothing but the empty lock that keeps certify runs one at a time (ledger/lock.py)
    assert _snapshot(project) == {**before, ".accord/certify.lock": b""}
    assert unchanged.contracts["sentiment_risk"].looks == 1  # Potato's one look
    with sqlite3.connect(project / "engine.sqlite") as db:
        items = [r[0] for r in db.execute(
            "SELECT item_id FROM engine_item WHERE item_id NOT IN "
            "(SELECT item_id FROM human_request) ORDER BY item_id LIMIT 5")]
        db.executemany("INSERT INTO human_request (item_id, schema_name, purpose, "
                       "inclusion_prob, split, status, label_json, user_id, created_at, "
                       "completed_at) VALUES (?, 'sentiment', 'certification', 0.8, 'cert', "
                       "'done', '\"positive\"', 'late', 0, 0)", [(i,) for i in items])
    db.close()
    changed_db = _snapshot(project)
    report = label_report(project, certify=True)
    after = _snapshot(project)
    added = sorted(set(after) - set(changed_db))
    assert added == [".accord/ledger-head", ".accord/ledger.jsonl", ".accord/ledger.lock"]
    assert after[".accord/certify.lock"] == b""
    assert {k: after[k] for k in changed_db} == changed_db  # no file of Potato's changed
    looks = [json.loads(line) for line in (project / ".accord" / "ledger.jsonl")
             .read_text().splitlines()]
    # ppi spends look 2 (Potato spent look 1); with five cert labels that disagree with
    # the machine, selective_risk reaches no test and spends nothing, as in Potato.
    assert [(e["contract"], e["look"]) for e in looks if e["kind"] == "look"] == [
        ("sentiment_prevalence", 2)]
    # the evaluation that reached no test is stored (as Potato stores it) and spends none
    assert [(e["event"], e["details"]["contract"]) for e in looks if e["kind"] == "event"] \
        == [("evaluated", "sentiment_risk"), ("evaluated", "sentiment_legacy")]
    assert report.contracts["sentiment_prevalence"].looks == 2
    assert report.contracts["sentiment_risk"].looks == 1
    assert any("reached no test" in n for n in report.contracts["sentiment_risk"].notes)
    assert report.contracts["sentiment_legacy"].looks == 0  # never spends


def test_status_gives_potato_s_states_and_looks(project: Path) -> None:
    """cli.md: on a Potato project label status gives Potato's states (its five) and
    looks; the stored results are Potato's (here every one is reproduced)."""
    report = label_report(project)
    potato = _potato_status(project.name)
    for scheme in potato["schemes"].values():
        for ident, recorded in scheme["contracts"].items():
            status = report.contracts[ident]
            assert (status.state, status.looks) == (recorded["status"],
                                                    recorded["looks_spent"]), ident


def test_after_accord_s_own_look_the_route_is_accord_s(tmp_path: Path) -> None:
    from app.core.contracts.ledger.chain import Ledger
    from app.core.contracts.potato_method.engine import KEY, _own_route
    from app.core.contracts.potato_method.from_store import method_view

    project = tmp_path / "sentiment_static"
    shutil.copytree(DATA / "sentiment_static", project)
    report = label_report(project)
    assert report.potato is not None
    route = {"imported": {"*": 0.99}}
    Ledger.open(project, {"sentiment_risk": (1, 0.06)}).append_look(
        "sentiment_risk", look=2, level=0.015, data_hash="0" * 64, rule=route,
        result={KEY: {"status": "met", "metrics": {"route": route, "cells": {}}}},
        cascade=["imported"])
    ledger = Ledger.open(project, {"sentiment_risk": (1, 0.06)})
    own = _own_route("sentiment", report.config, ledger)
    assert own == (route, {})
    built = method_view(report.potato, report.config, report.study.schemes["sentiment"],
                        route=own)
    assert built is not None
    # One tier at 0.99: an item below it goes past the last tier and stays with the
    # last tier that answered, so every item still has an output (Potato's rule).
    assert all(p.output is not None for p in built.view.population)
    assert any("Accord's latest selective_risk look" in n for n in built.notes)
