"""The committed real Potato 2.12.1 labelling-engine projects are what their README says.

Built by ``python -m tests.potato_real.engine_projects`` (on purpose only; this test
never runs Potato). A database is opened only as a copy in a temporary folder: opening
a WAL database writes ``-shm``/``-wal`` side files beside it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"
PROJECTS = ["sentiment_static", "cascade_fixture", "labels_only_in_db", "server_engine",
            "engine_panels"]
TABLES = {"engine_item", "prediction", "source_version", "human_request", "contract_version"}


def _present() -> list[str]:
    return [p for p in PROJECTS if (DATA / p / "config.yaml").is_file()]


def _db_copy(project: Path, tmp_path: Path) -> sqlite3.Connection:
    dest = tmp_path / project.name
    dest.mkdir()
    for f in project.glob("engine.sqlite*"):
        shutil.copy2(f, dest / f.name)
    return sqlite3.connect(dest / "engine.sqlite")


def test_the_projects_are_there():
    assert _present()[:3] == PROJECTS[:3]


@pytest.mark.parametrize("name", _present())
def test_config_enables_the_engine(name):
    cfg = yaml.safe_load((DATA / name / "config.yaml").read_text(encoding="utf-8"))
    block = cfg["labeling_engine"]
    assert block["enabled"] is True
    assert block["sources"] and block["contracts"]
    assert all(isinstance(s, str) for s in block["cascade"])


@pytest.mark.parametrize("name", _present())
def test_engine_db_has_the_tables(name, tmp_path):
    conn = _db_copy(DATA / name, tmp_path)
    try:
        names = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        assert names >= TABLES
        assert "current_prediction" in names
        assert conn.execute("SELECT COUNT(*) FROM engine_item").fetchone()[0] > 0
        done = conn.execute(
            "SELECT COUNT(*) FROM human_request WHERE status = 'done'").fetchone()[0]
        assert done > 0
    finally:
        conn.close()


@pytest.mark.parametrize("name", _present())
def test_expected_outputs_parse(name):
    expected = DATA / name / "expected"
    status = json.loads((expected / "status.json").read_text(encoding="utf-8"))
    assert status["schemes"]
    json.loads((expected / "certify.json").read_text(encoding="utf-8"))
    json.loads((expected / "certificate.json").read_text(encoding="utf-8"))
    assert (expected / "export" / "labels.jsonl").is_file()


def test_labels_only_in_db_has_no_user_state():
    project = DATA / "labels_only_in_db"
    assert not list(project.rglob("user_state.json"))
    assert (project / "engine.sqlite").is_file()


def test_wal_cases():
    """One project fully checkpointed, one with a WAL a killed server left."""
    assert not list((DATA / "sentiment_static").glob("engine.sqlite-*"))
    if "server_engine" in _present():
        wal = DATA / "server_engine" / "engine.sqlite-wal"
        assert wal.is_file() and wal.stat().st_size > 0
        assert list((DATA / "server_engine" / "annotation_output").glob("*/user_state.json"))


def test_no_pycache_and_small():
    for name in _present():
        project = DATA / name
        assert not list(project.rglob("__pycache__"))
        size = sum(f.stat().st_size for f in project.rglob("*") if f.is_file())
        assert size < 1_600_000, (name, size)
