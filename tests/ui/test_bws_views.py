"""The best-worst scaling project Potato 2.12.1's server wrote, in the views (issue 37):
its generated tuples are the items, the matrices view holds Potato's /admin/iaa numbers
for best, worst and pooled, each stored answer, and what each answer's letter chose (from
Potato's own ``BwsTupleGenerator``, the oracle for the tuples' members)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import open_project
from app.ui.views.base import ViewContext
from app.ui.views.matrices.model import POOLED
from app.ui.views.matrices.view import MatricesView
from app.ui.views.overview.view import OverviewView

BWS = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "ratings" / "bws"


def _potato_members() -> dict[str, dict[str, str]]:
    """tuple id → position → member text, as Potato's generator made them."""
    from potato.bws_tuple_generator import BwsTupleGenerator

    block = yaml.safe_load((BWS / "config.yaml").read_text())["bws_config"]
    records = [json.loads(line) for line in
               (BWS / "data" / "items.jsonl").read_text().splitlines()]
    tuples: list[dict[str, Any]] = BwsTupleGenerator(
        records, "id", "text", tuple_size=block["tuple_size"], num_tuples=block["num_tuples"],
        seed=block["seed"]).generate()
    return {t["id"]: {m["position"]: m["text"] for m in t["_bws_items"]} for t in tuples}


def _stored(row: str) -> dict[str, dict[str, str]]:
    """tuple id → annotator → the letter Potato stored for ``row`` (best / worst)."""
    out: dict[str, dict[str, str]] = {}
    for path in sorted(BWS.glob("annotation_output/*/user_state.json")):
        state = json.loads(path.read_text())
        for item, pairs in state["instance_id_to_label_to_value"].items():
            for key, value in pairs:
                if key["schema"] == "funniest" and key["name"] == row:
                    out.setdefault(item, {})[state["user_id"]] = value
    return out


def test_the_matrices_view_holds_potatos_numbers_answers_and_tuples(qtbot: QtBot) -> None:
    project = run(open_project(BWS))
    view = MatricesView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, scheme="funniest"))
    shown = view.shown
    assert shown is not None and list(shown.rows) == ["best", "worst", POOLED]
    potato = json.loads((BWS / "expected" / "iaa.json").read_text())[
        "schemas"]["funniest"]["metrics"]
    for r, block in enumerate([potato["best"], potato["worst"], potato["pooled"]]):
        assert view.table.item(r, 0).text() == str(block["n_items"])
        for c, key in enumerate(shown.metrics, start=1):
            assert view.table.item(r, c).text() == f"{block[key]:.3f}", (r, key)
    members = _potato_members()
    for row in ("best", "worst"):
        view._on_row_clicked(["best", "worst"].index(row), 1)
        stored = _stored(row)
        heads = [view.answers.horizontalHeaderItem(c).text()
                 for c in range(view.answers.columnCount())]
        assert heads == ["alice", "bob", "carol"]
        ids = [view.answers.verticalHeaderItem(r).text() for r in range(view.answers.rowCount())]
        assert ids == sorted(members) == sorted(stored)  # all ten tuples, none dropped
        for r, item in enumerate(ids):
            tip = view.answers.verticalHeaderItem(r).toolTip()
            assert tip == "\n".join(f"{p}: {t}" for p, t in members[item].items())
            for c, who in enumerate(heads):
                cell = view.answers.item(r, c)
                letter = stored[item][who]
                assert cell.text() == letter
                assert cell.toolTip() == f"{letter}: {members[item][letter]}"


def test_the_overview_card_is_scored_and_says_why_there_is_no_pair_matrix(qtbot: QtBot
                                                                         ) -> None:
    project = run(open_project(BWS))
    view = OverviewView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project, scheme="funniest"))
    result = project.report.schemes["funniest"]
    assert result.n_items == 10 and not result.undefined
    assert "funniest" in view._cards
    view._select("funniest")
    assert view.heatmap._empty_text.startswith(
        "No annotator-pair matrix: Potato 2.12.1 scores a matrix scheme")


def test_the_items_view_says_the_bws_scheme_is_scored_over_the_study() -> None:
    """The bws study has no per-item scores (a matrix is scored per row, as Potato does):
    the empty list says so and where its answers are, not that nobody answered twice."""
    from app.ui.views.items.view import no_scores_sentence

    sentence = no_scores_sentence(run(open_project(BWS)))
    assert sentence.startswith("No scores item by item: funniest (matrix: the Matrices view)")
    assert "answered by two" not in sentence
