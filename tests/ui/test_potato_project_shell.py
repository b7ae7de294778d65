"""The shell on a Potato engine project: its database is watched, never auto-certified
(Potato's own planner decides when its contracts are tested again)."""

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


def test_the_overview_says_where_the_labels_are(qtbot) -> None:  # type: ignore[no-untyped-def]
    from app.core.progress import run
    from app.core.project import open_project
    from app.ui.views.base import ViewContext
    from app.ui.views.overview.view import OverviewView

    view = OverviewView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=run(open_project(DATA / "labels_only_in_db"))))
    # No user_state.json at all: the people who labelled in engine.sqlite are the
    # annotators (issue 35), and a note says where their answers come from.
    assert "60 items · 3 annotators:" in view.header_text
    assert "ann_a" in view.header_text
    assert any("labelled only in Potato's labelling engine" in n
               for n in view._context.project.report.notes)  # type: ignore[union-attr]
