"""The overview shows each scheme's numbers, the undefined reasons and the pair matrix."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.views.overview.heatmap import CellState
from app.ui.views.overview.view import OverviewView
from tests.ui.views_helpers import context, demo


def _view(qtbot: QtBot) -> OverviewView:
    view = OverviewView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    return view


def test_cards_show_numbers_groups_and_coverage(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage"))
    text = "\n".join(view.card("resolution").texts())
    report = demo("support_triage").report.schemes["resolution"]
    assert "Chance-corrected" in text and "Not chance-corrected" in text
    assert f"{report.metrics['alpha']:.3f}" in text
    assert f"{report.metrics['percent_agreement']:.3f}" in text
    assert "38 of 40 answered items scored" in text
    assert "2 with one annotator" in text
    # The trace card reads its step-level α beside the categorical reference.
    trace = "\n".join(view.card("step_reward").texts())
    assert "Step-level α 0.209 beside α 0.796 on resolution" in trace


def test_interval_shown_for_set_kinds(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("lidar_sweeps"))
    low, high = demo("lidar_sweeps").report.schemes["objects"].intervals["mean_agreement"]
    text = "\n".join(view.card("objects").texts())
    assert f"95% CI {low:.3f} – {high:.3f}" in text


def test_undefined_metric_shows_its_sentence_never_a_number(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("people_photos", scheme="people"))
    text = "\n".join(view.card("people").texts())
    reason = demo("people_photos").report.schemes["people"].undefined["detection_alpha"]
    assert reason in text
    assert "Detection α (found the same objects) is undefined" in text
    line = next(t for t in text.splitlines() if t.startswith("Detection α (found"))
    assert "undefined" in line and "0.000" not in line and "1.000" not in line


def test_pair_heatmap_cells_and_scheme_pick(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage"))
    assert view.selected_scheme == "resolution"
    with qtbot.waitSignal(view.scheme_picked) as picked:
        view._pick("step_reward")  # what a click on the card does
    assert picked.args == ["step_reward"]
    assert view.heatmap.names == ["amara", "bruno", "chen", "dilnoza"]
    pairs = demo("support_triage").report.schemes["step_reward"].pairs
    cell = view.heatmap.cell(0, 2)
    assert cell.state is CellState.VALUE
    assert cell.text.startswith(f"{pairs['amara|chen']['alpha']:.3f}")
    assert view.heatmap.cell(1, 1).state is CellState.DIAGONAL


def test_undefined_pair_cell_is_not_coloured_as_a_value(qtbot: QtBot) -> None:
    project = demo("support_triage")
    result = project.report.schemes["resolution"]
    saved = dict(result.pairs["amara|bruno"])
    result.pairs["amara|bruno"]["alpha"] = None
    try:
        view = _view(qtbot)
        view.show_context(context("support_triage", scheme="resolution"))
        cell = view.heatmap.cell(0, 1)
        assert cell.state is CellState.UNDEFINED
        assert cell.text.startswith("undefined")
    finally:
        result.pairs["amara|bruno"] = saved


def test_anonymous_mode_hides_names(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", anonymous=True))
    assert view.heatmap.names == ["A", "B", "C", "D"]
    shown = view.header_text + "\n".join(view.card("resolution").texts())
    for name in demo("support_triage").study.annotators:
        assert name not in shown


def test_anonymous_mode_hides_names_inside_notes_and_reasons(qtbot: QtBot) -> None:
    ctx = context("support_triage", anonymous=True)
    assert ctx.project is not None
    result = ctx.project.report.schemes["resolution"]
    note = "the pair amara|chen was left out; Amara's note about bananas stays"
    result.notes.append(note)
    result.undefined["probe"] = "chen answered nothing"
    try:
        view = _view(qtbot)
        view.show_context(ctx)
        shown = "\n".join(view.card("resolution").texts())
    finally:
        result.notes.remove(note)
        del result.undefined["probe"]
    aliases = ctx.aliases
    assert f"the pair {aliases['amara']}|{aliases['chen']} was left out" in shown
    assert f"{aliases['chen']} answered nothing" in shown
    assert "Amara's note about bananas stays" in shown  # another word, not the name
    assert "amara" not in shown and "chen " not in shown


def test_no_project(qtbot: QtBot) -> None:
    view = _view(qtbot)
    assert "No project" in view.empty_message
