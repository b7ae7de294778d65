"""Certify on Accord's own ``labeling/`` project when the setup moved but the labels did
not (``app/core/contracts/potato_method/tested_setup.py``): a changed contract target
and replaced predictions are new data, tested at the next look, as Potato 2.12.1's
certify decides (its shortcut compares the contract's params, the cascade hash and
``pred_mark`` besides the labels). Before, both came back as "unchanged labels: the
stored result", a ``met`` the new setup was never tested for.

Oracle: Potato's own contract classes evaluate the view Accord reads, at the look Accord
reports (``tests/core/test_label_dev_labels.py`` explains the child process).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from app.core.contracts.label_report import label_report
from app.core.contracts.potato_method.engine import KEY
from app.core.contracts.potato_method.view import MethodView
from app.paths import demo_studies
from tests.core.test_label_dev_labels import (
    _ORACLE,
    _certified,
    _ledger,
    _view,
    _view_json,
    needs_potato,
)
from tests.core.test_potato_record_moved import REPO, _env, _same

UNCHANGED = "unchanged labels: the stored result, nothing spent"


def _potato(view: MethodView, contract: dict[str, Any], look: int) -> dict[str, Any]:
    spec = {"jobs": [{"view": _view_json(view), "look": look, "contract": contract}]}
    done = subprocess.run([sys.executable, "-c", _ORACLE], input=json.dumps(spec),
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    out: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return out[0]


def _last(project: Path, contract: str) -> dict[str, Any]:
    """The contract's latest ledger record (a look or an evaluation) in Potato's shape."""
    for line in reversed(_ledger(project)):
        details = line.get("details") or {}
        if line.get("contract") == contract or details.get("contract") == contract:
            result = line.get("result") or details.get("result")
            return dict(result[KEY])
    raise AssertionError(f"no record of {contract}")


@needs_potato
def test_a_tightened_target_is_tested_not_the_stored_met(tmp_path: Path) -> None:
    project, _, _ = _certified(tmp_path)  # accuracy met at error 0.2, look 1
    engine = project / "labeling" / "engine.yaml"
    config = yaml.safe_load(engine.read_text())
    config["contracts"][0]["error"] = 0.01
    engine.write_text(yaml.safe_dump(config, sort_keys=False))

    report = label_report(project, certify=True)
    accuracy = report.contracts["accuracy"]
    assert UNCHANGED not in accuracy.notes
    assert report.contracts["prevalence"].notes[-1:] == [UNCHANGED]  # its setup is the same
    view = _view(project)
    at_next = _potato(view, config["contracts"][0], 2)
    # Potato spends look 2 when it reaches a test; else its result is the one at look 1
    potato = at_next if at_next["ran"] else _potato(view, config["contracts"][0], 1)
    assert accuracy.looks == (2 if at_next["ran"] else 1)
    assert accuracy.state == potato["status"] != "met"
    assert _same(_last(project, "accuracy"), potato) == []


@needs_potato
def test_replaced_predictions_are_new_data_at_the_next_look(tmp_path: Path) -> None:
    project, _, _ = _certified(tmp_path)
    predictions = project / "labeling" / "predictions.jsonl"
    rows = [json.loads(x) for x in predictions.read_text().splitlines()]
    for row in rows[::3]:  # a third of the machine's answers now say "neu", sure of it
        row["label"], row["confidence"] = "neu", 0.99
    predictions.write_text("".join(json.dumps(x) + "\n" for x in rows))

    report = label_report(project, certify=True)
    prevalence = report.contracts["prevalence"]
    assert UNCHANGED not in prevalence.notes and not prevalence.retest_available
    assert prevalence.looks == 2  # an estimate on new predictions spends the next look
    config = yaml.safe_load((project / "labeling" / "engine.yaml").read_text())
    potato = _potato(_view(project), config["contracts"][1], 2)
    assert _same(_last(project, "prevalence"), potato) == []


def _reorder_cascade(project: Path) -> None:
    config = project / "config.yaml"
    text = config.read_text()
    assert "cascade: [distilbert, gemma-12b]" in text
    config.write_text(text.replace("cascade: [distilbert, gemma-12b]",
                                   "cascade: [gemma-12b, distilbert]"))


def test_status_says_the_cascade_moved_and_its_rule_delivers_nothing(tmp_path: Path) -> None:
    """The bundled labelling demo, certified, then its cascade reordered: status keeps the
    stored results and says they describe the earlier setup; the met selective_risk rule
    delivers no machine label (Potato delivers only under the current cascade hash)."""
    project = tmp_path / "sentiment_reviews"
    shutil.copytree(demo_studies()["sentiment_reviews"], project)
    certified = label_report(project, certify=True)
    assert certified.contracts["accuracy"].state == "met"
    assert certified.accepted()["sentiment"]["by_source"]  # labels delivered under its rule

    _reorder_cascade(project)
    status = label_report(project)
    accuracy = status.contracts["accuracy"]
    assert (accuracy.state, accuracy.looks) == ("met", 1)  # the stored result, shown
    assert accuracy.notes[0].startswith("the cascade changed since this result was tested")
    assert "delivers no machine label" in accuracy.notes[0] and accuracy.accepts is None
    assert status.accepted()["sentiment"]["by_source"] == {}
    assert status.contracts["prevalence"].notes[0].startswith("the cascade changed")
    assert "delivers" not in status.contracts["prevalence"].notes[0]  # an estimate


def test_the_watcher_evaluates_a_contract_whose_cascade_moved(tmp_path: Path) -> None:
    """The scheduler (the window's watcher) does not wait for a label milestone: a new
    cascade is evaluated at once, as Potato's planner does (``same_base`` fails)."""
    project = tmp_path / "sentiment_reviews"
    shutil.copytree(demo_studies()["sentiment_reviews"], project)
    label_report(project, certify=True)
    assert label_report(project, schedule=True).contracts["prevalence"].looks == 1  # no news
    _reorder_cascade(project)
    prevalence = label_report(project, schedule=True).contracts["prevalence"]
    assert prevalence.looks == 2 and not any("changed since" in n for n in prevalence.notes)
