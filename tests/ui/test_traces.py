"""The traces grid: steps as rows, annotators and the judge as columns, disagreement."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.core.model import TraceJudgement
from app.ui.views.traces.view import DISAGREE_MARK, MARK, STEP, TOOL, TracesView
from tests.ui.views_helpers import context, demo


def _view(qtbot: QtBot) -> TracesView:
    view = TracesView()
    qtbot.addWidget(view)
    view.resize(1280, 800)
    return view


def test_steps_annotators_and_labels(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="step_correctness", item="conv-009"))
    project = demo("support_triage")
    answers = project.study.answers_for("step_correctness")["conv-009"]
    who = [a for a in project.study.annotators if a in answers]
    assert view.header_labels() == ["", "#", "Step", "Tool call", *who]
    steps = project.study.items["conv-009"].steps["steps"]
    assert view.table.rowCount() == len(steps)
    for r, step in enumerate(steps):
        assert view.cell_text(r, STEP) == step.text
        assert view.cell_text(r, TOOL) == (step.tool_call or "")
        labels = []
        for k, name in enumerate(who):
            judgement = answers[name]
            assert isinstance(judgement, TraceJudgement)
            label = judgement.labels.get(str(step.index))
            shown = view.cell_text(r, 4 + k)
            assert shown == (label.replace("_", " ") if label else "–")
            if label:
                labels.append(label)
        disagree = len(labels) >= 2 and len(set(labels)) > 1
        assert (view.cell_text(r, MARK) == DISAGREE_MARK) == disagree
        item = view.table.item(r, STEP)
        assert item is not None and item.font().bold() == disagree
    assert view.grid is not None and view.grid.n_disagreeing == 4


def test_alpha_beside_the_categorical_reference(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="step_reward", item="conv-009"))
    text = view.summary.text()
    result = demo("support_triage").report.schemes["step_reward"]
    ref = result.extra["categorical_reference"]
    assert f"{result.metrics['alpha']:.3f}" in text
    assert f"{ref['alpha']:.3f}" in text and ref["scheme"] in text
    assert "+1" in {view.cell_text(r, 4) for r in range(view.table.rowCount())}


def test_judge_column_from_labeling_predictions(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("agent_judge", item="trace_010"))
    headers = view.header_labels()
    assert headers[-1] == "judge (machine)"
    assert headers[4:-1] == ["noor", "omar"]
    prediction = demo("agent_judge").labels.labeling.prediction(  # type: ignore[union-attr]
        "steps", "trace_010", "judge")
    assert prediction is not None
    expected = ["+1" if s["reward"] == 1 else "−1" for s in prediction.label["steps"]]
    judge = len(headers) - 1
    assert [view.cell_text(r, judge) for r in range(view.table.rowCount())] == expected


def test_no_judge_without_labeling_engine(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="step_reward", item="conv-001"))
    assert not any("machine" in h for h in view.header_labels())


def test_default_item_is_the_most_disagreeing(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="step_correctness"))
    assert view.grid is not None
    assert "most disagreement" in view.item_line.text()


def test_anonymous_mode(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("support_triage", scheme="step_reward", item="conv-009",
                              anonymous=True))
    headers = view.header_labels()[4:]
    assert headers and all(h in {"A", "B", "C", "D"} for h in headers)
    for r in range(view.table.rowCount()):
        for c in range(4, view.table.columnCount()):
            item = view.table.item(r, c)
            tip = item.toolTip() if item is not None else ""
            assert not any(n in tip for n in demo("support_triage").study.annotators)


def test_study_without_traces(qtbot: QtBot) -> None:
    view = _view(qtbot)
    view.show_context(context("lidar_sweeps"))
    assert "no agent-trace scheme" in view.empty_message
    assert view.table.rowCount() == 0
