"""Potato's record, current or moved (issue 35 part 6; contracts.md, "When Potato's
record is current"), checked against Potato 2.12.1 itself.

Two real cases, both made by Potato's own engine on copies in a temporary folder:

- the bundled demo ``potato_reviews``: Potato's second ``label run`` escalated 315 items
  to gemma-12b after its certify stored ``prevalence`` at ``pred_mark`` 647, and its
  planner kept that record;
- the same demo after 40 new items arrived with their predictions (the static sources'
  files grew; ``tests/potato_real/later_predictions.py`` runs ``Engine.register_items``
  and ``Engine.predict``), so every record is older than 1,002 predictions and two new
  source versions.

``accord label status`` reports the moved record ``stale`` with the sentence, shows the
evaluation of today's rows at the record's look and spends nothing; ``accord label
certify`` does what ``potato label certify --json`` does on an identical copy: the same
states, looks and numbers (to 1e-9), and a ledger line for each look it spends. Potato's
own ``Engine.view`` and contract classes evaluate the fresh result independently.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.core.contracts.label_report import label_report
from app.core.contracts.potato_method.audit import _differences, signature
from app.core.contracts.potato_method.from_store import method_view
from app.core.contracts.statistics.looks import look_level

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo" / "potato_reviews"
ENGINE = REPO / "tests" / "data" / "potato_engine"
POTATO = Path(sys.executable).with_name("potato")
COMPARED = ("status", "acceptance", "metrics", "projection", "look", "alpha")

needs_potato = pytest.mark.skipif(not POTATO.is_file(),
                                  reason="potato-annotation 2.12.1 is not installed")


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0"}


def _potato_certify(project: Path) -> dict[str, Any]:
    done = subprocess.run([str(POTATO), "label", "certify", "config.yaml", "--json"],
                          cwd=project, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    out: dict[str, Any] = json.loads(done.stdout)
    return out


_ORACLE = """
import json, os, sys
os.chdir(sys.argv[1])
from potato.labeling_engine.cli import _engine, load_study
from potato.labeling_engine.contracts import build_contract
config, _ = load_study("config.yaml")
engine = _engine(config)
out = {}
for scheme in engine.schemes():
    view = engine.view(scheme)
    for c in engine.cfg.contracts:
        if c.schema == scheme.name and c.id in sys.argv[3:]:
            contract = build_contract(c)
            contract.dev_fraction = engine.cfg.humans.dev_fraction
            out[c.id] = contract.evaluate(view, look=int(sys.argv[2])).to_dict()
print(json.dumps(out))
"""


def _potato_evaluates(project: Path, look: int, *ids: str) -> dict[str, Any]:
    """Potato's own view and contract classes at ``look``, storing nothing (on a copy)."""
    done = subprocess.run([sys.executable, "-c", _ORACLE, str(project), str(look), *ids],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _same(mine: dict[str, Any], potato: dict[str, Any]) -> list[str]:
    return [d for key in COMPARED for d in _differences(mine.get(key), potato.get(key), key)]


def _ledger(project: Path) -> list[dict[str, Any]]:
    path = project / ".accord" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] \
        if path.is_file() else []


def _stored(project: Path, contract: str) -> dict[str, Any]:
    """Accord's latest stored result of ``contract`` in Potato's shape."""
    for line in reversed(_ledger(project)):
        if line.get("contract") == contract and line.get("kind") == "look":
            return dict(line["result"]["potato_method"])
        details = line.get("details") or {}
        if details.get("contract") == contract:
            return dict(details["result"]["potato_method"])
    raise AssertionError(f"no stored result for {contract}")


def report_moved(project: Path) -> tuple[str, ...]:
    return label_report(project).audits["prevalence"].moved


def _copies(tmp_path: Path, grow: int = 0) -> tuple[Path, Path]:
    accord, potato = tmp_path / "accord", tmp_path / "potato"
    shutil.copytree(DEMO, accord)
    if grow:
        subprocess.run([sys.executable, "-m", "tests.potato_real.later_predictions",
                        str(accord), str(grow)], cwd=REPO, capture_output=True,
                       timeout=300, env=_env(), check=True)
    shutil.copytree(accord, potato)
    return accord, potato


@needs_potato
def test_status_of_a_moved_record_is_today_s_rows_at_its_look(tmp_path: Path) -> None:
    accord, _ = _copies(tmp_path)
    before = sorted(p.name for p in accord.iterdir())
    data = label_report(accord).to_json()["contracts"]
    prevalence = data["prevalence"]
    assert prevalence["audit"]["verdict"] == "stale"
    assert prevalence["audit"]["differences"][0] == (
        "315 predictions arrived after Potato's record: ids up to 647 then, 962 now")
    assert report_moved(accord) == ("315 predictions arrived after Potato's record: ids "
                                    "up to 647 then, 962 now",)  # and nothing else moved
    assert any(d.startswith("the estimate of negative: Accord computes ")
               for d in prevalence["audit"]["differences"])
    assert prevalence["potato"]["result"]["pred_mark"] == 647  # Potato's stays as stored
    assert any("no longer describes today's data: 315 predictions arrived" in n
               for n in prevalence["notes"])
    # the contract's result is today's rows at look 1, as Potato's own engine sees them
    report = label_report(accord)
    fresh = report.audits["prevalence"].fresh
    assert fresh is not None
    oracle = _potato_evaluates(accord, 1, "prevalence")["prevalence"]
    assert _same(fresh, oracle) == []
    assert prevalence["result"]["estimates"]["negative"]["estimate"] == pytest.approx(
        oracle["metrics"]["estimates"]["all"]["negative"]["estimate"], abs=1e-12)
    assert fresh["metrics"]["estimates"]["all"]["negative"]["estimate"] != pytest.approx(
        prevalence["potato"]["result"]["metrics"]["estimates"]["all"]["negative"]
        ["estimate"], abs=1e-6)
    # nothing spent, nothing written
    assert (prevalence["state"], prevalence["looks"]) == ("met", 1)
    assert sorted(p.name for p in accord.iterdir()) == before
    for ident in ("accuracy", "plan"):  # current records: reproduced, as stored
        assert data[ident]["audit"] == {"verdict": "reproduced", "differences": []}


@needs_potato
def test_certify_spends_the_next_look_as_potato_does(tmp_path: Path) -> None:
    accord, potato = _copies(tmp_path)
    theirs = _potato_certify(potato)["sentiment"]
    report = label_report(accord, certify=True)
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
    assert theirs["prevalence"]["looks_spent"] == 2
    assert report.contracts["prevalence"].notes[0] == (
        "Potato's stored result no longer described today's data (315 predictions arrived "
        "after Potato's record: ids up to 647 then, 962 now): new data to certify, as to "
        "Potato's")
    looks = [line for line in _ledger(accord) if line.get("kind") == "look"]
    assert [(line["contract"], line["look"]) for line in looks] == [("prevalence", 2)]
    assert looks[0]["level"] == pytest.approx(look_level(2, 0.9), abs=1e-15)
    assert _same(_stored(accord, "prevalence"), theirs["prevalence"]) == []
    # accuracy and plan were current: nothing evaluated, nothing written for them
    assert not any((line.get("details") or {}).get("contract") in ("accuracy", "plan")
                   for line in _ledger(accord))


@needs_potato
def test_when_the_sources_files_grew(tmp_path: Path) -> None:
    """A grown predictions file is a new source version: to Potato a new cascade with no
    rule yet. Every record moved; certify agrees with Potato's on every contract."""
    accord, potato = _copies(tmp_path, grow=40)
    audits = label_report(accord).audits
    assert audits["accuracy"].moved[0] == (
        "687 predictions arrived after Potato's record: ids up to 962 then, 1649 now")
    assert audits["prevalence"].moved[0].startswith("1,002 predictions arrived")
    assert all("2 source versions made after Potato's record" in a.moved[1]
               for a in audits.values())
    theirs = _potato_certify(potato)["sentiment"]
    report = label_report(accord, certify=True)
    for ident, recorded in theirs.items():
        status = report.contracts[ident]
        assert (status.state, status.looks) == (recorded["status"],
                                                recorded["looks_spent"]), ident
        assert _same(_stored(accord, ident), recorded) == [], ident
    # Potato's look 2 of accuracy reached no test: it spent none and stored look 1
    assert (theirs["accuracy"]["looks_spent"], theirs["prevalence"]["looks_spent"]) == (1, 2)
    assert [line["contract"] for line in _ledger(accord)
            if line.get("kind") == "look"] == ["prevalence"]


@pytest.mark.parametrize("project", [DEMO, *sorted(p for p in ENGINE.iterdir()
                                                   if (p / "engine.sqlite").is_file())],
                         ids=lambda p: p.name)
def test_potato_s_signature_and_cert_hashes_are_reproduced(project: Path) -> None:
    """What Potato's certify shortcut compares, computed by Accord from the rows and
    checked against every selective_risk record Potato stored with them."""
    from app.core.contracts.potato_method.audit import potato_cert_labels

    report = label_report(project)
    store = report.potato
    assert store is not None
    checked = 0
    for ident, record in store.records.contracts.items():
        spec = report.config.contract(ident)
        assert spec is not None
        built = method_view(store, report.config, report.study.schemes[spec.schema],
                            before=record.version_id + 1)
        assert built is not None
        assert potato_cert_labels(built.view) == record.result["cert_labels"], ident
        if record.kind == "selective_risk":
            assert signature(spec, built.view, record.result) == \
                record.result["signature"], ident
            checked += 1
    assert checked >= 1


def test_a_current_record_has_no_moved_sentence() -> None:
    report = label_report(ENGINE / "cascade_fixture")
    assert all(a.moved == () and a.fresh is None for a in report.audits.values())
    assert all(since.predictions_after == 0 and since.labels_after == 0
               for since in report.potato.records.since.values())  # type: ignore[union-attr]


def test_moved_but_the_same_numbers_is_reproduced() -> None:
    """The record moved (a later prediction id, say) yet today's rows give its numbers:
    the record still describes the data, so the verdict is ``reproduced``."""
    from dataclasses import replace

    from app.core.contracts.potato_method.audit import audit_contracts

    report = label_report(DEMO)
    store = report.potato
    assert store is not None
    since = store.records.since["accuracy"]
    store.records.since["accuracy"] = replace(since, pred_mark_now=since.pred_mark_now + 5,
                                              predictions_after=5)
    audit = audit_contracts(store, report.config, report.study)["accuracy"]
    assert audit.moved == ("5 predictions arrived after Potato's record: ids up to 962 then, "
                           "967 now",)
    assert (audit.verdict, audit.differences) == ("reproduced", [])
    assert audit.fresh is not None and audit.fresh["status"] == "met"


def test_a_label_answered_after_the_record_is_said(tmp_path: Path) -> None:
    """A label whose answer time is after the record moves it even when no count
    changed (a later person on an item can change a truth the counts do not see)."""
    import sqlite3

    project = tmp_path / "p"
    shutil.copytree(ENGINE / "sentiment_static", project)
    with sqlite3.connect(project / "engine.sqlite") as db:
        db.execute("UPDATE human_request SET completed_at = completed_at + 1e6 WHERE id = "
                   "(SELECT MIN(id) FROM human_request WHERE status = 'done')")
    db.close()
    audits = label_report(project).audits
    assert all(a.moved == ("1 calibration label was answered after Potato's record",)
               for a in audits.values())
    assert all(a.verdict == "reproduced" for a in audits.values())
