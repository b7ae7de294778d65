"""The contracts view states what holds (issue 36): per-class test levels, every test,
ppi intervals on too few labels of their class, and what moved a state on certify.

References come from the files the test wrote (:mod:`tests.contract_statements`): the
level is the series ``(1 − confidence)·6/(π² k²)`` divided by the tested cells, a test
passes when scipy's binomial p (on brute-force counts) is at most that level, and a
class's labels are counted in ``requests.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.core.progress import run
from app.core.project import open_project
from app.ui.views.base import ViewContext
from app.ui.views.contracts.view import ContractsView
from tests.certificate_helpers import contracts_project
from tests.contract_statements import (
    Written,
    append_requests,
    binomial_p,
    cert_counts,
    look_alpha,
    statement_project,
)


def _view(qtbot: QtBot, project: Path, certify: bool = True) -> ContractsView:
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=run(open_project(project, certify=certify))))
    view.complete()
    return view


def test_each_cell_shows_its_tests_at_the_right_level(qtbot: QtBot, tmp_path: Path) -> None:
    cells, error = 3, 0.15
    labels = ("pos", "neg", "neu")
    written = statement_project(tmp_path / "proj", labels=labels, contracts=[
        {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": error,
         "per_class": True}])
    project = run(open_project(written.project, certify=True))
    view = ContractsView()
    qtbot.addWidget(view)
    view.show_context(ViewContext(project=project))
    view.complete()
    numbers = view.cards["accuracy"].numbers.text()
    assert project.labels is not None
    tests = project.labels.contracts["accuracy"].result["tests"]
    level = look_alpha(1) / cells
    assert f"{level:.4g}" == "0.02026"
    band = 0
    for cls in labels:
        thresholds = [t["threshold"] for t in tests if t["class"] == cls]
        # each listed threshold tested again by brute force against the reference level
        p = [binomial_p(*cert_counts(written, t, cls), error) for t in thresholds]
        passed = [t for t, x in zip(thresholds, p, strict=True) if x <= level]
        band += sum(1 for x in p if level / cells < x <= level)
        line = (f"model / {cls}: {len(thresholds)} tests at level {level:.4g} each, "
                f"{len(passed)} passed")
        if passed:
            line += f", down to threshold {passed[-1]}"
        assert line in numbers.split("<br>")
    assert band  # tests the old level (divided twice) showed as failed
    # every test is shown, past the 40 Potato stores
    assert max(sum(1 for t in tests if t["class"] == c) for c in labels) > 40


def test_a_class_on_fewer_than_three_labels_says_so(qtbot: QtBot, tmp_path: Path) -> None:
    written = statement_project(tmp_path / "proj", labels=("pos", "neg", "rare"), contracts=[
        {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
         "estimand": "prevalence"}], n_items=500, n_dev=25, n_cert=25,
        weights=(0.47, 0.47, 0.06), seed=1)
    rare = sum(1 for r in written.requests if r["label"] == "rare")
    assert rare <= 2
    numbers = _view(qtbot, written.project).cards["prevalence"].numbers.text()
    assert ("<b>Coverage not assured: 1 interval rests on fewer than 3 labels of its class "
            f"(rare: {rare} label") in numbers


def test_the_note_of_a_moved_state_is_on_the_card(qtbot: QtBot, tmp_path: Path) -> None:
    project = contracts_project(tmp_path / "proj")
    _view(qtbot, project)
    guess = {p["item"]: (p["label"], p["confidence"]) for p in map(
        json.loads, (project / "labeling" / "predictions.jsonl").read_text().splitlines())}
    written = Written(project, {}, guess, [])
    append_requests(written, [
        {"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
         "kind": "calibration", "pi": 0.5, "split": "cert", "annotator": "ana",
         "label": next(v for v in ("pos", "neg", "neu") if v != guess[f"item-{k}"][0])}
        for k in range(201, 241)])
    card = _view(qtbot, project).cards["accuracy"]
    assert card.badge.text() == "insufficient"
    assert ("State moved from met to insufficient on this certify, look 2 at level "
            f"{look_alpha(2):.6f} (the stored result was look 1): 40 cert labels arrived "
            "(120 then, 160 now); dev labels unchanged (80).") in card.notes.text()
    assert card.notes.isVisibleTo(card)
