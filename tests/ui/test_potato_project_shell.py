"""The shell on a Potato engine project: its database is watched, never auto-certified."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.ui.opening import open_options
from app.ui.watcher import watched_paths

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_engine"


def test_engine_sqlite_and_its_wal_are_watched(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(DATA / "server_engine", project)
    watched = {p.name for p in watched_paths(project)}
    assert {"engine.sqlite", "engine.sqlite-wal", "config.yaml"} <= watched


def test_a_file_change_never_certifies_a_potato_project(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(DATA / "sentiment_static", project)
    assert open_options(project, schedule=True, certify=False, contract=None) == {}
    assert open_options(project, schedule=False, certify=True, contract="sentiment_risk") \
        == {"certify": True, "contract": "sentiment_risk"}
    plain = tmp_path / "plain"
    plain.mkdir()
    assert open_options(plain, schedule=True, certify=False, contract=None) == \
        {"schedule": True}
