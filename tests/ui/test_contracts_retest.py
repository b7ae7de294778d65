"""The contracts view's Retest (contracts.md, "When only dev labels arrived"), in the real
window, against ``accord label certify --retest`` on an identical copy.

The bundled demo ``potato_reviews`` is certified once by Potato 2.12.1 itself
(``potato label certify``), then one dev label arrives through Potato's own engine
(``tests/potato_real/dev_labels.py``; the wave's dev item that moves ``accuracy``'s
rule, as ``tests/core/test_potato_dev_labels.py`` found by running Potato). That copy is
copied again: the window certifies and retests one, the CLI the other. Certify in the
window returns the stored results with ``retest_available`` (Potato's verdict too, in
``test_potato_dev_labels``), so the cards of ``accuracy`` and ``prevalence`` carry
"Retest at look N"; clicking ``prevalence``'s (the confirmation accepted, as the other
view tests do) spends exactly its look 3, and the window then shows what the CLI's
``--retest --contract prevalence`` reports. ``accuracy``'s look 2 reaches no test (in
Potato too), so its Retest spends nothing: also the CLI's result. Without the dev label
no card has the button.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot

from app.cli.main import main
from app.core.contracts.potato_method.same_cert import DEV_NOTE
from app.core.contracts.statistics.looks import look_level
from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.main_window import MainWindow
from app.ui.opening import open_options
from app.ui.settings import Settings
from app.ui.views.base import ViewContext
from app.ui.views.contracts.view import ContractsView
from tests.core.test_potato_dev_labels import (  # noqa: F401 (certified: a fixture)
    CHANGES_RULE,
    _copies,
    certified,
    needs_potato,
)
from tests.core.test_potato_record_moved import REPO, _ledger

DEMOS = REPO / "resources" / "demo"


class Answers:
    """The confirmation, accepted: records what it was told."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def __call__(self, parent: QWidget, title: str, text: str) -> bool:
        self.asked.append((title, text))
        return True


def _window(qtbot: QtBot, settings: Settings) -> tuple[MainWindow, ContractsView]:
    window = MainWindow(settings, views={"contracts": ContractsView}, watch=False,
                        dialogs=False)
    qtbot.addWidget(window)
    view = window.views["contracts"]
    assert isinstance(view, ContractsView)
    view.confirm = Answers()
    return window, view


def _shown(qtbot: QtBot, window: MainWindow, view: ContractsView, act: Any) -> ProjectData:
    """Run ``act`` (a click, an open) and wait for the project it loads, cards built."""
    with qtbot.waitSignal(window.project_loaded, timeout=120000) as loaded:
        act()
    data = loaded.args[0]
    assert isinstance(data, ProjectData)
    view.complete()
    assert window.project is data
    return data


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["label", "certify", str(project), "--json", *args]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)["contracts"]
    return out


def _looks(project: Path) -> list[tuple[str, int, float]]:
    return [(line["contract"], line["look"], line["level"]) for line in _ledger(project)
            if line.get("kind") == "look"]


def _diff(mine: Any, theirs: Any, where: str = "") -> list[str]:
    """Where two JSON values differ (paths), for a readable failure."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return [d for k in sorted(set(mine) | set(theirs), key=str)
                for d in _diff(mine.get(k), theirs.get(k), f"{where}.{k}")]
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return [d for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
                for d in _diff(a, b, f"{where}[{i}]")]
    return [] if mine == theirs else [f"{where}: {mine!r} != {theirs!r}"]


def _same_as_cli(mine: dict[str, Any], theirs: dict[str, Any]) -> None:
    """The window's status as the CLI prints it (JSON: a tuple is a list) is the CLI's."""
    mine = json.loads(json.dumps(mine))
    for key in ("state", "looks", "level_spent", "result", "notes"):
        assert _diff(mine[key], theirs[key], key) == []
    assert "retest_available" not in mine and "retest_available" not in theirs


def test_retest_is_certify_with_retest_for_one_contract(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    assert open_options(project, schedule=False, certify=True, contract="prevalence",
                        retest=True) == {"certify": True, "contract": "prevalence",
                                         "retest": True}
    assert open_options(project, schedule=False, certify=True, contract=None) == {
        "certify": True, "contract": None}
    assert open_options(project, schedule=True, certify=False, contract=None,
                        retest=True) == {"schedule": True}  # retest only with a certify


@needs_potato
def test_the_window_retests_as_the_cli_does(
        qtbot: QtBot, settings: Settings, certified: Path, tmp_path: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    accord, twin = _copies(certified, tmp_path, CHANGES_RULE)
    window, view = _window(qtbot, settings)
    _shown(qtbot, window, view, lambda: window.open_path(accord))
    # status never carries the flag (Potato's note is not stored): no button yet
    assert view.cards and all(card.retest is None for card in view.cards.values())

    data = _shown(qtbot, window, view, view.certify_all.click)
    labels = data.labels
    assert labels is not None
    theirs = _cli(twin, capsys)  # the same certify on the twin
    flagged = {i for i, s in labels.contracts.items() if s.retest_available}
    assert flagged == {i for i, s in theirs.items() if s.get("retest_available")} \
        == {"accuracy", "prevalence"}
    assert view.cards["plan"].retest is None
    buttons = {i: view.cards[i].retest for i in flagged}
    assert {i: b.text() for i, b in buttons.items() if b is not None} == {
        "accuracy": "Retest at look 2…", "prevalence": "Retest at look 3…"}
    notes = view.cards["prevalence"].notes.text()
    assert "Dev labels now choose a different rule: 'Retest at look 3' above tests it" \
        in notes and "--retest" in notes
    assert not any("certify with retest" in label.text()
                   for label in view.findChildren(QLabel))
    before = _looks(accord)
    assert before == _looks(twin) == []  # Potato's looks are in its store, not the ledger

    button = buttons["prevalence"]
    assert button is not None and button.isEnabled()
    answers = view.confirm
    assert isinstance(answers, Answers)
    with qtbot.assertNotEmitted(view.certify_requested):
        data = _shown(qtbot, window, view, button.click)
    title, text = answers.asked[-1]
    assert title == "Retest 'prevalence'?"
    assert f"at look 3, which spends at most level {look_level(3, 0.9):.6f}" in text
    assert "reaches no test" not in text  # an estimate always tests
    # exactly one look spent, prevalence's third
    ((contract, look, spent),) = _looks(accord)
    assert (contract, look) == ("prevalence", 3)
    assert spent == pytest.approx(look_level(3, 0.9), abs=1e-15)
    theirs = _cli(twin, capsys, "--retest", "--contract", "prevalence")
    assert data.labels is not None
    mine = data.labels.to_json()["contracts"]
    _same_as_cli(mine["prevalence"], theirs["prevalence"])
    assert (mine["prevalence"]["looks"], mine["prevalence"]["state"]) == (3, "met")
    assert _looks(accord) == _looks(twin)
    assert view.cards["prevalence"].retest is None  # tested: the button is gone
    assert view.cards["prevalence"].numbers.text().count("Looks: 3") == 1

    # accuracy's Retest: its look 2 reaches no test (as in Potato), so nothing is spent
    data = _shown(qtbot, window, view, view.certify_all.click)
    _cli(twin, capsys)
    button = view.cards["accuracy"].retest
    assert button is not None and view.cards["prevalence"].retest is None
    data = _shown(qtbot, window, view, button.click)
    assert answers.asked[-1][0] == "Retest 'accuracy'?"
    assert f"at look 2, which spends at most level {look_level(2, 0.9):.6f}" in \
        answers.asked[-1][1] and "reaches no test spends nothing" in answers.asked[-1][1]
    theirs = _cli(twin, capsys, "--retest", "--contract", "accuracy")
    assert data.labels is not None
    _same_as_cli(data.labels.to_json()["contracts"]["accuracy"], theirs["accuracy"])
    assert theirs["accuracy"]["looks"] == 1
    assert _looks(accord) == _looks(twin) and len(_looks(accord)) == 1


@needs_potato
def test_no_dev_label_no_button(qtbot: QtBot, settings: Settings,
                                certified: Path, tmp_path: Path) -> None:  # noqa: F811
    project = tmp_path / "same"
    shutil.copytree(certified, project)
    window, view = _window(qtbot, settings)
    data = _shown(qtbot, window, view, lambda: window.open_path(project, certify=True))
    assert data.labels is not None and not any(
        s.retest_available for s in data.labels.contracts.values())
    assert list(view.cards) == ["accuracy", "prevalence", "plan"]
    assert all(card.retest is None for card in view.cards.values())
    assert _looks(project) == []


def test_a_damaged_ledger_disables_retest_too(qtbot: QtBot) -> None:
    """Certify would refuse on a damaged ledger, so Retest is disabled with it; the
    dev-labels note is shown with the button, other notes as they are."""
    data = run(open_project(DEMOS / "sentiment_reviews", preview=True))
    assert data.labels is not None
    status = data.labels.contracts["accuracy"]
    status.retest_available = True
    status.notes = [*status.notes, f"{DEV_NOTE} a different rule; certify with retest to "
                    f"test it (look {status.looks + 1}): 'accord label certify --retest' "
                    "spends that look"]
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=data))
    view.complete()
    card = view.cards["accuracy"]
    assert card.retest is not None and card.retest.isEnabled()
    assert card.retest.text() == f"Retest at look {status.looks + 1}…"
    shown = card.notes.text()
    assert "certify with retest" not in shown and "nothing recorded" in shown
    assert f"'Retest at look {status.looks + 1}' above tests it" in shown
    assert all(view.cards[i].retest is None for i in view.cards if i != "accuracy")

    data.labels.ledger = {**data.labels.ledger, "ok": False, "problem": "line 2 changed"}
    view.show_context(ViewContext(project=data))
    view.complete()
    retest = view.cards["accuracy"].retest
    assert retest is not None and not retest.isEnabled()
    assert not view.cards["accuracy"].certify.isEnabled()
