"""The audit of Potato's records on the projects Potato 2.12.1 wrote.

``reproduced`` where Accord's Potato method gives Potato's stored numbers, ``stale`` when
labels arrived after Potato's record, ``differs`` (with both numbers) when a record does
not match its data; written into ``label status --json`` as ``cli.md`` says.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from app.core.contracts.kinds.registry import KINDS
from app.core.contracts.label_report import label_report
from app.core.contracts.potato_method.audit import evaluator

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
PROJECTS = sorted(p.name for p in DATA.iterdir() if (p / "engine.sqlite").is_file()) \
    if DATA.is_dir() else []


@pytest.mark.parametrize("name", PROJECTS)
def test_every_record_is_reproduced(name: str) -> None:
    report = label_report(DATA / name)
    assert set(report.audits) == {c.id for c in report.config.contracts}
    for ident, audit in report.audits.items():
        assert audit.verdict == "reproduced", (ident, audit.differences[:5])
    data = report.to_json()
    assert all("audit" in entry for entry in data["contracts"].values())


def _copy(tmp_path: Path, name: str) -> Path:
    project = tmp_path / name
    shutil.copytree(DATA / name, project)
    return project


def test_a_label_after_potato_s_record_makes_it_stale(tmp_path: Path) -> None:
    project = _copy(tmp_path, "sentiment_static")
    with sqlite3.connect(project / "engine.sqlite") as db:
        item = db.execute("SELECT item_id FROM engine_item WHERE item_id NOT IN "
                          "(SELECT item_id FROM human_request) LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO human_request (item_id, schema_name, purpose, inclusion_prob,"
                   " split, status, label_json, user_id, created_at, completed_at) VALUES "
                   "(?, 'sentiment', 'calibration', 0.8, 'dev', 'done', '\"positive\"', "
                   "'late', 0, 0)", (item,))
    db.close()
    audit = label_report(project).audits["sentiment_risk"]
    assert audit.verdict == "stale"
    assert audit.differences[0].startswith("dev labels: 65 when Potato recorded it, 66 now")


def test_a_record_that_does_not_match_its_data_differs(tmp_path: Path) -> None:
    project = _copy(tmp_path, "sentiment_static")
    with sqlite3.connect(project / "engine.sqlite") as db:
        ident, raw = db.execute("SELECT id, result_json FROM contract_version WHERE "
                                "contract_id = 'sentiment_legacy' ORDER BY id DESC").fetchone()
        result = json.loads(raw)
        result["metrics"]["measured_error"] = 0.5
        db.execute("UPDATE contract_version SET result_json = ? WHERE id = ?",
                   (json.dumps(result), ident))
    db.close()
    audit = label_report(project).audits["sentiment_legacy"]
    assert audit.verdict == "differs"
    # in words, with both numbers (issue 35 part 8), the path last
    assert any(d.startswith("the measured error: Accord computes ")
               and d.endswith("Potato recorded 0.5 (metrics.measured_error)")
               for d in audit.differences), audit.differences


def test_the_certificate_states_potato_s_record_and_the_audit() -> None:
    from app.core.certificate.build import build_certificate
    from app.core.progress import run
    from app.core.project import open_project

    cert = run(build_certificate(run(open_project(DATA / "sentiment_static")),
                                 generated_at="2026-12-02T00:00:00Z"))
    risk = cert["contracts"]["sentiment_risk"]
    assert risk["potato"]["state"] == "met" and risk["potato"]["looks"] == 1
    assert risk["audit"] == {"verdict": "reproduced", "differences": []}
    assert cert["project"]["name"] == "sentiment_static"
    assert any(i["role"] == "potato_engine" and i["path"] == "engine.sqlite"
               for i in cert["inputs"])


def test_every_kind_has_its_potato_method() -> None:
    assert [k for k in KINDS if evaluator(k) is None] == []
