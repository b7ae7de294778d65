"""The bundled demo ``resources/demo/potato_reviews``: a real Potato 2.12.1 engine project.

Potato wrote it (``tests/potato_real/engine_projects.py --only potato_reviews``; its own
outputs are in ``expected/``). Here: the app lists it, ``accord label status --json`` on
the bundled folder gives Potato's state and looks for every contract and the audit
reproduces Potato's record, and opening it writes nothing into the folder.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.paths import demo_studies

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "potato_reviews"


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _potato_contracts() -> dict[str, dict[str, Any]]:
    status = json.loads((DEMO / "expected" / "status.json").read_text(encoding="utf-8"))
    return {ident: recorded for scheme in status["schemes"].values()
            for ident, recorded in scheme["contracts"].items()}


def _status(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["label", "status", str(DEMO), "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_the_demo_is_listed() -> None:
    assert demo_studies()["potato_reviews"] == DEMO


def test_it_is_a_small_self_contained_potato_project() -> None:
    files = _hashes(DEMO)
    assert {"config.yaml", "engine.sqlite", "README.md", "expected/status.json",
            "expected/certify.json", "expected/certificate.json",
            "expected/export/labels.jsonl"} <= set(files)
    assert not [f for f in files if f.endswith(("-wal", "-shm", ".log", ".pyc"))]
    assert not list(DEMO.rglob("__pycache__"))
    assert not list(DEMO.rglob("user_state.json"))  # labels only in engine.sqlite
    assert sum(p.stat().st_size for p in DEMO.rglob("*") if p.is_file()) < 3_000_000


def test_potato_met_the_demo_s_contracts() -> None:
    """What the demo is for: Potato's own certify met selective_risk and ppi."""
    potato = _potato_contracts()
    assert set(potato) == {"accuracy", "prevalence", "plan"}
    assert [potato[c]["status"] for c in ("accuracy", "prevalence", "plan")] == ["met"] * 3
    assert potato["accuracy"]["metrics"]["accepted"] > 0


def test_status_gives_potato_s_state_and_looks(capsys: pytest.CaptureFixture[str]) -> None:
    data = _status(capsys)
    potato = _potato_contracts()
    assert set(data["contracts"]) == set(potato)
    for ident, recorded in potato.items():
        mine = data["contracts"][ident]
        assert (mine["state"], mine["looks"]) == (recorded["status"],
                                                  recorded["looks_spent"]), ident
        assert (mine["potato"]["state"], mine["potato"]["looks"]) == (
            recorded["status"], recorded["looks_spent"]), ident


@pytest.mark.parametrize("ident", [
    "accuracy",
    "plan",
])
def test_the_audit_reproduces_potato_s_record(ident: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    audit = _status(capsys)["contracts"][ident]["audit"]
    assert audit["verdict"] == "reproduced", audit["differences"][:5]


def test_potato_s_prevalence_record_is_stale(capsys: pytest.CaptureFixture[str]) -> None:
    """Potato's second ``label run`` escalated 315 items to gemma-12b after its certify
    stored ``prevalence`` (pred_mark 647); its planner kept that record, so by Potato's
    own same-data test it no longer describes the data (contracts.md, "When Potato's
    record is current"). Was ``reproduced`` before issue 35 part 6."""
    entry = _status(capsys)["contracts"]["prevalence"]
    assert entry["audit"]["verdict"] == "stale"
    assert entry["audit"]["differences"][0] == (
        "315 predictions arrived after Potato's record: ids up to 647 then, 962 now")
    assert entry["potato"]["result"]["pred_mark"] == 647


def test_opening_it_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    from app.core.contracts.label_report import label_report

    before = _hashes(DEMO)
    _status(capsys)
    label_report(DEMO).to_json()
    assert _hashes(DEMO) == before
