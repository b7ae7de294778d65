"""Potato 2.12.1's planner on Accord's own projects: what the GUI's file watcher evaluates
on its own (``label_report(schedule=True)``), one rule a test.

Potato's rule (``service.py``, ``certify(auto=True)``; ``potato-engine.md`` §5): a contract
never evaluated is evaluated; a met selective_risk stays met; any other stored result is
evaluated again only once the calibration labels reach ``max(ceil(1.25 n), n + 10)``
(``n`` at its look), or, for an estimate, once more when the sample is complete.

Projects have predictions equal to the truth and dev labels equal to the truth, so only
the cert labels decide: a cert label that differs from the prediction is an error.
Target error 0.2, confidence 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from app.core.contracts.label_report import LabelReport, label_report
from app.core.contracts.ledger.chain import Ledger
from tests.potato_project import RADIO, label, simple_items, write_project

N_ITEMS = 400
LABELS = ("pos", "neg", "neu")


def _truth(k: int) -> str:
    return LABELS[k % 3]


def _wrong(k: int) -> str:
    return LABELS[(k + 1) % 3]


def _request(k: int, split: str, value: str | None) -> dict[str, Any]:
    line: dict[str, Any] = {"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
                            "kind": "calibration", "pi": 0.5, "split": split,
                            "annotator": "ann"}
    if value is not None:
        line["label"] = value
    return line


def _project(tmp_path: Path, *, n_cert: int, cert_wrong: int, unanswered: int = 5,
             extra: list[dict[str, Any]] | None = None) -> Path:
    project = write_project(tmp_path / "proj", schemes=[RADIO], items=simple_items(N_ITEMS),
                            annotators={"ann": {"item-0": [label("sentiment", "pos")]}})
    labeling = project / "labeling"
    labeling.mkdir()
    contracts = [{"id": "accuracy", "kind": "selective_risk", "schema": "sentiment",
                  "error": 0.2}, *(extra or [])]
    (labeling / "engine.yaml").write_text(yaml.safe_dump(
        {"enabled": True, "sources": [{"id": "model", "kind": "llm"}],
         "cascade": ["model"], "humans": {"dev_fraction": 0.5}, "contracts": contracts},
        sort_keys=False))
    (labeling / "predictions.jsonl").write_text("".join(
        json.dumps({"item": f"item-{k}", "schema": "sentiment", "tier": "model",
                    "label": _truth(k), "confidence": 0.9 + (k % 10) / 100}) + "\n"
        for k in range(N_ITEMS)))
    lines = [_request(k, "dev", _truth(k)) for k in range(1, 81)]
    lines += [_request(k, "cert", _wrong(k) if k < 100 + cert_wrong else _truth(k))
              for k in range(100, 100 + n_cert)]
    lines += [_request(k, "cert", None) for k in range(350, 350 + unanswered)]
    _write(project, lines, mode="w")
    return project


def _write(project: Path, lines: list[dict[str, Any]], mode: str = "a") -> None:
    with (project / "labeling" / "requests.jsonl").open(mode) as f:
        f.writelines(json.dumps(x) + "\n" for x in lines)


def _add_cert(project: Path, start: int, count: int) -> None:
    _write(project, [_request(k, "cert", _truth(k)) for k in range(start, start + count)])


def _looks(project: Path, contract: str = "accuracy") -> int:
    return Ledger.open(project).looks(contract)


def _scheduled(project: Path) -> LabelReport:
    return label_report(project, schedule=True)


def test_a_contract_never_evaluated_is_evaluated(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=20)
    assert label_report(project).contracts["accuracy"].notes[0].startswith(
        "not evaluated yet")
    status = _scheduled(project).contracts["accuracy"]
    assert status.state == "insufficient" and status.looks == 1 and _looks(project) == 1


def test_below_the_growth_step_nothing_is_spent(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=20)   # 80 dev + 50 cert = 130
    _scheduled(project)
    _add_cert(project, 150, 32)                             # 162 < ceil(1.25 * 130) = 163
    status = _scheduled(project).contracts["accuracy"]
    assert status.looks == 1 and _looks(project) == 1
    assert any("again at 163 calibration labels" in n for n in status.notes)


def test_at_the_growth_step_it_is_evaluated_at_the_next_look(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=20)
    _scheduled(project)
    _add_cert(project, 150, 33)                             # 163 = ceil(1.25 * 130)
    assert _scheduled(project).contracts["accuracy"].looks == 2
    assert _looks(project) == 2


def test_ten_labels_at_least(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=0, cert_wrong=0, unanswered=0)
    _write(project, [_request(k, "dev", _truth(k)) for k in range(1, 21)]
           + [_request(k, "cert", _wrong(k)) for k in range(100, 104)], mode="w")  # n = 24
    _scheduled(project)
    written = len(Ledger.open(project).entries)
    _add_cert(project, 150, 9)          # 33: past ceil(1.25 * 24) = 30, short of 24 + 10
    status = _scheduled(project).contracts["accuracy"]
    assert len(Ledger.open(project).entries) == written      # nothing evaluated
    assert any("again at 34 calibration labels" in n for n in status.notes)
    _add_cert(project, 160, 1)          # 34
    _scheduled(project)
    assert len(Ledger.open(project).entries) == written + 1  # evaluated (a look or not)


def test_a_met_selective_risk_stays_met(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=120, cert_wrong=0)
    first = _scheduled(project).contracts["accuracy"]
    assert first.state == "met" and first.looks == 1
    _add_cert(project, 250, 90)
    again = _scheduled(project).contracts["accuracy"]
    assert again.state == "met" and again.looks == 1 and _looks(project) == 1


def test_an_estimate_is_evaluated_once_more_when_the_sample_is_complete(
        tmp_path: Path) -> None:
    ppi = {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
           "estimand": "prevalence", "confidence": 0.9}
    project = _project(tmp_path, n_cert=60, cert_wrong=0, unanswered=2, extra=[ppi])
    assert _scheduled(project).contracts["prevalence"].looks == 1
    _write(project, [_request(350, "cert", _truth(350))])   # one of two open requests
    assert _scheduled(project).contracts["prevalence"].looks == 1
    _write(project, [_request(351, "cert", _truth(351))])   # the sample is complete
    assert _scheduled(project).contracts["prevalence"].looks == 2
    assert _scheduled(project).contracts["prevalence"].looks == 2   # and no more


def test_an_evaluation_that_reaches_no_test_is_stored_and_spends_nothing(
        tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=0, cert_wrong=0, unanswered=0)
    scheduled = _scheduled(project).contracts["accuracy"]
    assert scheduled.looks == 0 and _looks(project) == 0
    shown = label_report(project).contracts["accuracy"]
    assert shown.state == scheduled.state and shown.looks == 0
    assert not any(n.startswith("not evaluated yet") for n in shown.notes)


def test_status_never_writes(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=0)
    label_report(project)
    assert not (project / "labeling" / "ledger.jsonl").exists()
    assert _looks(project) == 0
