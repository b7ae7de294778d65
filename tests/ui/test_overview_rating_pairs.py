"""The overview's pair matrix for numbers and rankings: each pair's Pearson r or Kendall τ
(the per-pair values the report carries, checked against Potato in
tests/core/test_rating_pairs.py), the distances not offered on the red-blue ramp, and an
undefined pair hatched with its own sentence. On the project Potato 2.12.1's server wrote."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.agreement.continuous.metrics import mae, pearson_r, rmse
from app.core.agreement.continuous.pairs import pair_entries
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.overview.heatmap import CellState
from app.ui.views.overview.view import OverviewView

NUMBERS = Path(__file__).resolve().parents[1] / "data" / "potato_server" / "ratings" / "numbers"


@cache
def _project() -> ProjectData:
    return run(open_project(NUMBERS))


def _view(qtbot: QtBot, scheme: str) -> OverviewView:
    project = _project()
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    ctx = ViewContext(project=project, aliases=anonymous_aliases(project.study.annotators))
    view.show_context(ctx.with_(scheme=scheme))
    return view


@pytest.mark.parametrize(("scheme", "metric"), [
    ("count", "pearson_r"), ("pain", "pearson_r"), ("sure", "pearson_r"),
    ("prefer", "pearson_r"), ("priorities", "kendall_tau")])
def test_each_pair_shows_its_own_number(qtbot: QtBot, scheme: str, metric: str) -> None:
    view = _view(qtbot, scheme)
    assert view.selected_scheme == scheme
    assert view.heatmap.empty_text == ""  # no more "no two annotators answered …"
    assert view.heatmap.names == ["alice", "bob", "carol"]
    # r and τ only: MAE, RMSE and the footrule are distances, not on the same ramp
    offered = [view.metric_combo.itemData(i) for i in range(view.metric_combo.count())]
    assert offered == [metric]
    pairs = _project().report.schemes[scheme].pairs
    for (i, j), key in {(0, 1): "alice|bob", (0, 2): "alice|carol",
                        (1, 2): "bob|carol"}.items():
        value = pairs[key][metric]
        assert value is not None
        for cell in (view.heatmap.cell(i, j), view.heatmap.cell(j, i)):
            assert cell.state is CellState.VALUE
            assert cell.text.startswith(f"{value:.3f}\nn={pairs[key]['n_items']}")
            assert cell.shade == pytest.approx(value)
            assert "mean over pairs" not in cell.tooltip  # one pair's number
    # the headline (interval α, τ's mean over every pair and item) is not per pair
    if metric == "pearson_r":
        assert "the headline, is one number over all annotators" in view.pair_title.text()


def test_an_undefined_pair_is_hatched_with_its_reason(qtbot: QtBot) -> None:
    """bob answers one shared item with alice only: the pair has no r (Potato skips it)."""
    result = _project().report.schemes["count"]
    rows = {"n00": {"alice": 1.0, "bob": 2.0, "carol": 2.0}, "n01": {"alice": 2.0, "carol": 2.0},
            "n02": {"alice": 5.0, "carol": 2.0}}
    entries, reasons = pair_entries(rows, {"pearson_r": pearson_r, "mae": mae, "rmse": rmse},
                                    per_item=False)
    saved = (result.pairs, dict(result.extra))
    result.pairs = entries
    result.extra["pair_undefined"] = reasons
    try:
        view = _view(qtbot, "count")
        one = view.heatmap.cell(0, 1)  # alice – bob: one shared item
        assert one.state is CellState.UNDEFINED and one.text == "undefined\nn=1"
        assert reasons["alice|bob"]["pearson_r"] in one.tooltip
        constant = view.heatmap.cell(0, 2)  # alice – carol: carol gave 2 throughout
        assert constant.state is CellState.UNDEFINED
        assert "same number on every shared item" in constant.tooltip
        assert view.heatmap.cell(1, 2).state is CellState.UNDEFINED
    finally:
        result.pairs, result.extra = saved[0], saved[1]
