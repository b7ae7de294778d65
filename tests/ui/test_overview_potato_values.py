"""The overview card shows Potato 2.12.1's own numbers beside Accord's (``card_notes``):
on a span project Potato's server wrote, the null its ``/admin/iaa`` returned for every
span metric (``expected/iaa.json``) and why; on a slider, Potato's interval block."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import open_project
from app.ui.views.base import ViewContext
from app.ui.views.overview.view import OverviewView

SERVER = Path(__file__).resolve().parents[1] / "data" / "potato_server"


@pytest.mark.parametrize(("project", "scheme", "name"), [
    ("spans", "entities", "span_f1_exact"), ("ratings/numbers", "relevance", "icc_2_k")])
def test_the_card_shows_potatos_value(qtbot: QtBot, project: str, scheme: str,
                                      name: str) -> None:
    potato = json.loads((SERVER / project / "expected" / "iaa.json").read_text())
    value = potato["schemas"][scheme]["metrics"][name]
    shown = "null" if value is None else f"{value:.3f}"
    view = OverviewView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=run(open_project(SERVER / project))))
    texts = view.card(scheme).texts()
    assert any(f"{name} {shown}" in t and "Potato 2.12.1's /admin/iaa" in t for t in texts)
