"""The contracts panel on the labeling demos: badges, numbers, look costs, Certify.

Oracles: states and numbers from the LabelReport (what ``accord label status`` prints);
look costs from the formula (1 − confidence)·6/(π²k²) written out here; the rule's point
on the coverage curve against the engine's ``accepted_by_tier``. Certification runs only
on a copy in the test's temporary folder, never on resources/demo.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases
from app.ui.views.contracts import plots as contract_plots
from app.ui.views.contracts.view import ContractsView

DEMOS = Path(__file__).resolve().parents[2] / "resources" / "demo"


def level(look: int, confidence: float = 0.9) -> float:
    return (1 - confidence) * 6 / (math.pi ** 2 * look ** 2)


@pytest.fixture(scope="module")
def sentiment() -> ProjectData:
    """The bundled demo as the window opens it: a preview (evaluated, nothing recorded)."""
    return run(open_project(DEMOS / "sentiment_reviews", preview=True))


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> ProjectData:
    folder = tmp_path_factory.mktemp("demos") / "sentiment_reviews"
    shutil.copytree(DEMOS / "sentiment_reviews", folder)
    return run(open_project(folder, certify=True))


class Answers:
    """A stand-in for the confirmation dialog: records what it was told."""

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.asked: list[tuple[str, str]] = []

    def __call__(self, parent: QWidget, title: str, text: str) -> bool:
        self.asked.append((title, text))
        return self.yes


def all_text(widget: QWidget) -> str:
    return "\n".join(label.text() for label in widget.findChildren(QLabel))


def test_badges_and_numbers(qtbot, sentiment: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=sentiment))
    view.complete()
    labels = sentiment.labels
    assert labels is not None
    assert list(view.cards) == list(labels.contracts)
    for ident, card in view.cards.items():
        assert card.badge.text() == labels.contracts[ident].state
    assert view.cards["accuracy"].badge.text() == "met"
    assert view.cards["prevalence"].badge.text() == "met"
    assert view.accepted.text().startswith("Machine labels accepted, by source")
    english = labels.contracts["prevalence"].result["estimates"]["en"]["positive"]
    numbers = view.cards["prevalence"].numbers.text()
    assert f"en: ppi++, {english['n']} labelled of {english['N']}" in numbers
    assert view.cards["prevalence"].plot is not None
    # a preview records nothing: the looks it would spend are not counted
    assert "Looks: 0 · level spent 0.000000" in view.cards["accuracy"].numbers.text()
    assert any("nothing recorded" in n for n in labels.contracts["accuracy"].notes)
    assert not (DEMOS / "sentiment_reviews" / "labeling" / "ledger.jsonl").exists()


def test_certify_asks_first_and_says_what_a_look_costs(qtbot, sentiment: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=sentiment))
    view.complete()
    no = Answers(False)
    view.confirm = no
    with qtbot.assertNotEmitted(view.certify_requested):
        view.cards["accuracy"].certify.click()
    ((title, text),) = no.asked
    assert "accuracy" in title
    assert f"look 1 and spends level {level(1):.6f}" in text
    yes = Answers(True)
    view.confirm = yes
    with qtbot.waitSignal(view.certify_requested) as blocker:
        view.cards["accuracy"].certify.click()
    assert blocker.args == ["accuracy"]
    with qtbot.waitSignal(view.certify_requested) as blocker:
        view.certify_all.click()
    assert blocker.args == [""]
    everything = yes.asked[-1][1]
    assert f"{level(1):.6f}" in everything and "spend no look" in everything
    assert "'prevalence'" in everything


def test_after_a_look_the_next_costs_a_quarter(qtbot, certified: ProjectData) -> None:  # type: ignore[no-untyped-def]
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=certified))
    view.complete()
    labels = certified.labels
    assert labels is not None
    status = labels.contracts["accuracy"]
    assert (status.state, status.looks) == ("met", 1)
    assert view.cards["accuracy"].badge.text() == "met"
    text = view.look_cost_text("accuracy")
    assert f"look 2 and spends level {level(2):.6f}" in text
    assert f"({level(1):.6f} spent so far)" in text
    assert f"level spent {level(1):.6f}" in view.cards["accuracy"].numbers.text()
    accepted = labels.accepted()["sentiment"]["by_source"]
    for source, count in accepted.items():
        assert f"{source} {count}" in view.accepted.text()


def test_the_rule_sits_on_the_curve_at_its_coverage(certified: ProjectData) -> None:
    from app.core.contracts.kinds.coverage_curve import error_coverage_curves

    labels = certified.labels
    assert labels is not None
    status = labels.contracts["accuracy"]
    rule = status.result["rule"]
    curves = error_coverage_curves(status.spec, labels.data["sentiment"], rule)
    tested = 0
    for curve in curves:
        threshold = rule[curve.tier]["*"]
        if threshold is None:  # this tier accepts nothing: its items go on
            continue
        j = curve.thresholds.tolist().index(threshold)
        assert curve.coverage[j] == pytest.approx(status.result["accepted_by_tier"][curve.tier])
        tested += 1
    assert tested == 1


def test_the_curve_is_computed_in_the_open_job_not_on_the_gui_thread(
    qtbot: QtBot, certified: ProjectData, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.contracts.kinds import coverage_curve

    labels = certified.labels
    assert labels is not None
    status = labels.contracts["accuracy"]
    expected = coverage_curve.error_coverage_curves(
        status.spec, labels.data["sentiment"], status.result["rule"])
    (stored,) = [certified.coverage_curves["accuracy"]]
    assert [c.tier for c in stored] == [c.tier for c in expected]
    for got, want in zip(stored, expected, strict=True):
        assert got.coverage.tolist() == want.coverage.tolist()
        assert got.n_dev.tolist() == want.n_dev.tolist()

    def refuse(*args: object) -> object:
        raise AssertionError("the contracts view computed a curve on the GUI thread")

    monkeypatch.setattr(coverage_curve, "error_coverage_curves", refuse)
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=certified))
    view.complete()
    assert view.cards["accuracy"].plot is not None


def test_presentation_mode_hides_names(qtbot) -> None:  # type: ignore[no-untyped-def]
    project = run(open_project(DEMOS / "agent_judge", preview=True))
    view = ContractsView()
    qtbot.addWidget(view)
    names = project.study.annotators
    view.show_context(ViewContext(project=project))
    view.complete()
    shown = all_text(view)
    people = project.labels.contracts["replaces-a-person"].result["per_annotator"]
    assert people and all(f"vs {name}" in shown for name in people)
    view.show_context(ViewContext(project=project, anonymous=True,
                                  aliases=anonymous_aliases(names)))
    view.complete()
    hidden = all_text(view)
    assert not any(name in hidden for name in people)
    assert "vs C" in hidden  # after the study's annotators noor (A) and omar (B)
    assert view.cards["judge-accuracy"].badge.text() == "infeasible"


def test_no_engine_says_why(qtbot) -> None:  # type: ignore[no-untyped-def]
    project = run(open_project(DEMOS / "street_images"))
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project))
    view.complete()
    assert project.labels is None and project.labels_absent
    assert project.labels_absent in view.empty_message
    assert not view.certify_all.isEnabled() and not view.cards
    view.show_context(ViewContext())
    view.complete()
    assert "No project" in view.empty_message


def test_distributional_plot_draws_bars_and_ceilings(qtbot) -> None:  # type: ignore[no-untyped-def]
    result = {"mean_js": 0.2, "interval": [0.15, 0.26], "noise_ceiling": 0.18, "n_items": 30,
              "groups": {"young": {"mean_js": 0.25, "interval": [0.2, 0.3],
                                   "noise_ceiling": 0.2, "n_items": 12}}}
    widget = contract_plots.distributional_plot(result, 0.15)
    assert widget is not None
    qtbot.addWidget(widget)
    items = widget.getPlotItem().items
    bars = [i for i in items if type(i).__name__ == "BarGraphItem"]
    assert len(bars) == 2
    ticks = widget.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [t[1] for t in ticks] == ["all (n=30)", "young (n=12)"]
    assert contract_plots.distributional_plot({"mean_js": None}, None) is None


def test_a_potato_project_shows_potato_s_record_beside_accord_s(qtbot) -> None:  # type: ignore[no-untyped-def]
    """On a project Potato 2.12.1 wrote, each card carries Potato's stored state and looks
    (tests/data/potato_engine/cascade_fixture/expected/status.json says which)."""
    folder = Path(__file__).resolve().parents[1] / "data" / "potato_engine" / "cascade_fixture"
    project = run(open_project(folder))
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project))
    view.complete()
    badges = {ident: card.potato_badge for ident, card in view.cards.items()}
    assert all(b is not None for b in badges.values())
    # State and looks as Potato stored them, then the audit's verdict.
    assert badges["sentiment_prevalence"].text() == "Potato: met · look 2 · reproduced"  # type: ignore[union-attr]
    assert badges["sentiment_vs_people"].text().startswith("Potato: violated · look 1")  # type: ignore[union-attr]
    assert badges["sentiment_vs_people"].state() == "violated"  # type: ignore[union-attr]
    demo = run(open_project(DEMOS / "sentiment_reviews"))
    view.show_context(ViewContext(project=demo))
    view.complete()
    assert all(card.potato_badge is None for card in view.cards.values())


def test_cards_are_built_a_step_per_event_loop_turn(qtbot: QtBot,
                                                    sentiment: ProjectData) -> None:
    """The panel never builds every card and plot in one go on the GUI thread: the
    first card comes at once, the rest (and each plot) on later turns; a newer context
    drops what was left of the older one."""
    labels = sentiment.labels
    assert labels is not None and len(labels.contracts) >= 2
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=sentiment))
    first = next(iter(labels.contracts))
    assert list(view.cards) == [first] and view.cards[first].plot is None
    assert view.building
    qtbot.waitUntil(lambda: not view.building, timeout=5000)
    assert list(view.cards) == list(labels.contracts)
    assert view.cards["accuracy"].plot is not None
    view.show_context(ViewContext(project=sentiment))
    view.show_context(ViewContext())  # before the first context's steps ran
    qtbot.wait(50)
    assert not view.cards and view.cards_layout.count() == 0


def test_a_coverage_plot_is_drawn_a_curve_per_turn(qtbot: QtBot,
                                                   certified: ProjectData) -> None:
    """With ``defer``, the plot's frame and each tier's curve are steps of their own (all
    of them at once were 25-40 ms of the GUI thread on a million-item study); run in
    order, they draw what the plot drawn at once shows."""
    from app.core.contracts.kinds.coverage_curve import error_coverage_curves
    from app.ui.views.contracts import plots

    labels = certified.labels
    assert labels is not None
    status = labels.contracts["accuracy"]
    rule = status.result["rule"]
    curves = error_coverage_curves(status.spec, labels.data["sentiment"], rule)
    error = float(status.spec.params["error"])
    steps: list[Any] = []
    deferred = plots.coverage_plot(curves, rule, error, defer=steps.extend)
    whole = plots.coverage_plot(curves, rule, error)
    assert deferred is not None and whole is not None
    qtbot.addWidget(deferred)
    qtbot.addWidget(whole)

    def drawn(widget: Any) -> list[str]:
        return sorted(type(item).__name__ for item in widget.getPlotItem().items)
    assert len(steps) == 1 + len(curves) + 1  # the frame, a curve each, the target line
    assert drawn(deferred) == []
    for step in steps:
        before = drawn(deferred)
        step()
        assert len(drawn(deferred)) <= len(before) + 2  # a curve and its rule's star at most
    assert drawn(deferred) == drawn(whole) and "PlotDataItem" in drawn(whole)
    stars = [item for item in whole.getPlotItem().items
             if type(item).__name__ == "ScatterPlotItem" and item.name()
             and item.name().startswith("rule: ")]
    accepting = [tier for tier, value in rule.items()  # Potato's {tier: {"*": t}}
                 if isinstance(value, dict) and value.get("*") is not None]
    assert accepting and [s.name().split(" ")[1] for s in stars] == accepting
    assert deferred.getPlotItem().viewRange() == whole.getPlotItem().viewRange()
