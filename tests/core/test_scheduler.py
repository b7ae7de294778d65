"""The scheduler's milestones and the edit rules (``contracts.md``, Looks), one rule a test.

Projects are built with predictions equal to the truth and dev labels equal to the
truth (dev error 0), so the dev choice is fixed and only the cert labels decide: a cert
label that differs from the prediction is an error. Target error 0.2, confidence 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from app.core.contracts.label_report import LabelReport, label_report
from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.ledger.format import Event
from app.core.contracts.scheduler import (
    ESTIMATE_EVENT,
    Changes,
    LastTest,
    milestone_reached,
    next_milestone,
    selective_due,
)
from tests.potato_project import RADIO, label, simple_items, write_project

N_ITEMS = 400
LABELS = ("pos", "neg", "neu")


def _truth(k: int) -> str:
    return LABELS[k % 3]


def _wrong(k: int) -> str:
    return LABELS[(k + 1) % 3]


def _request(k: int, split: str, value: str | None, annotator: str = "ann") -> dict[str, Any]:
    line: dict[str, Any] = {"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
                            "kind": "calibration", "pi": 0.5, "split": split,
                            "annotator": annotator}
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
        {"cascade": [{"name": "model", "source": "logprob"}], "humans": {"dev_fraction": 0.5},
         "contracts": contracts}, sort_keys=False))
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


def _add_cert(project: Path, start: int, count: int) -> int:
    _write(project, [_request(k, "cert", _truth(k)) for k in range(start, start + count)])
    return start + count


def _looks(project: Path) -> int:
    return Ledger.open(project).looks("accuracy")


def _scheduled(project: Path) -> LabelReport:
    return label_report(project, schedule=True)


# ------------------------------------------------------------------- the milestone


def test_milestone_needs_a_quarter_and_at_least_ten() -> None:
    assert not milestone_reached(100, 124)          # +24%
    assert milestone_reached(100, 125)              # +25%, 25 labels
    assert not milestone_reached(20, 25)            # +25% but only 5
    assert milestone_reached(20, 30)
    assert next_milestone(100) == 125 and next_milestone(20) == 30


def test_unmet_plus_24_percent_is_not_tested(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=20)
    assert _scheduled(project).contracts["accuracy"].state == "unmet"
    assert _looks(project) == 1
    _add_cert(project, 150, 12)                     # 12 / 50 = 24%
    status = _scheduled(project).contracts["accuracy"]
    assert status.state == "unmet" and status.looks == 1 and _looks(project) == 1
    assert any("tests again at 63" in n for n in status.notes)


def test_unmet_plus_25_percent_but_fewer_than_ten_is_not_tested(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=20, cert_wrong=15)
    assert _scheduled(project).contracts["accuracy"].state == "unmet"
    _add_cert(project, 120, 5)                      # 25%, but 5 < 10
    assert _scheduled(project).contracts["accuracy"].looks == 1
    assert _looks(project) == 1


def test_unmet_plus_25_percent_and_ten_is_tested(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=50, cert_wrong=20)
    _scheduled(project)
    _add_cert(project, 150, 13)                     # 26%, 13 labels
    status = _scheduled(project).contracts["accuracy"]
    assert status.looks == 2 and _looks(project) == 2
    assert any("tested by the scheduler" in n for n in status.notes)


def test_met_is_not_retested_by_the_scheduler_and_is_audited(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2)
    first = _scheduled(project).contracts["accuracy"]
    assert first.state == "met" and first.looks == 1
    # 40 later cert labels, 4 of them errors: far past the milestone.
    _write(project, [_request(k, "cert", _wrong(k) if k < 164 else _truth(k))
                     for k in range(160, 200)])
    later = _scheduled(project).contracts["accuracy"]
    assert later.state == "met" and later.looks == 1 and _looks(project) == 1
    watch = later.result["audit"]
    assert watch["n"] == 40 and watch["errors"] == 4 and watch["since_look"] == 1
    assert watch["error"] == 0.1 and 0.1 < watch["upper"] < 0.25
    assert set(later.result) >= {"rule", "accepted_by_tier", "tests"}
    # An explicit certify does test it again, its data having changed.
    assert label_report(project, certify=True).contracts["accuracy"].looks == 2


def test_untested_contract_is_tested_once_testable(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=40, cert_wrong=1)
    status = _scheduled(project).contracts["accuracy"]
    assert status.state == "met" and status.looks == 1
    assert any("first test" in n for n in status.notes)


def test_a_test_that_could_not_run_spends_nothing(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=0, cert_wrong=0)   # dev labels only
    status = _scheduled(project).contracts["accuracy"]
    assert status.state == "insufficient" and status.looks == 0
    assert not (project / "labeling" / "ledger.jsonl").exists()


def test_selective_due_rules_without_files() -> None:
    none = Changes(frozenset(), frozenset(), frozenset())
    unmet = LastTest(look=1, state="unmet", cert_labels=100)
    grown = Changes(frozenset(f"n{i}" for i in range(20)), frozenset(f"e{i}" for i in range(5)),
                    frozenset())
    # An edited label counts like a new one: 20 new + 5 edited = 25% of 100.
    assert selective_due(unmet, now_labels=120, change=grown, more_errors=False,
                         new_machine=False, wave=(100, 0), complete=False).test
    assert not selective_due(unmet, now_labels=100, change=none, more_errors=False,
                             new_machine=False, wave=(100, 0), complete=True).test
    assert selective_due(unmet, now_labels=100, change=none, more_errors=False,
                         new_machine=True, wave=(100, 0), complete=False).test


# ------------------------------------------------------------------- edit rules


def _edit(project: Path, k: int, value: str) -> None:
    _write(project, [_request(k, "cert", value)])


def test_edit_back_to_a_tested_state_restores_that_result(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2)
    first = label_report(project, certify=True).contracts["accuracy"]
    _edit(project, 130, _wrong(130))                 # an error more: certify tests
    assert label_report(project, certify=True).contracts["accuracy"].looks == 2
    _edit(project, 130, _truth(130))                 # back to look 1's labels
    back = label_report(project, certify=True).contracts["accuracy"]
    assert back.looks == 2 and _looks(project) == 2
    assert back.result == first.result and back.state == first.state
    assert any("back to those tested at look 1" in n for n in back.notes)


def test_edit_that_adds_no_error_keeps_result_and_look(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2)
    first = label_report(project, certify=True).contracts["accuracy"]
    _edit(project, 100, _truth(100))                 # a correction: one error fewer
    for report in (_scheduled(project), label_report(project, certify=True)):
        status = report.contracts["accuracy"]
        assert status.looks == 1 and status.result == first.result
        assert any("result and its look stand" in n for n in status.notes)
    assert _looks(project) == 1


def test_wave_of_corrections_waits_for_a_quarter_since_the_first_edit(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2)
    _scheduled(project)
    for k in (130, 131, 132):                        # a wave of edits adding errors
        _edit(project, k, _wrong(k))
    waiting = _scheduled(project).contracts["accuracy"]
    assert waiting.state == "met" and waiting.looks == 1
    assert any("accepted labels stay accepted" in n for n in waiting.notes)
    assert waiting.accepts is not None
    nxt = _add_cert(project, 160, 14)                # 60 -> 74: not a quarter yet
    assert _scheduled(project).contracts["accuracy"].looks == 1
    _add_cert(project, nxt, 1)                       # 75 = 60 + a quarter (15 >= 10)
    assert _scheduled(project).contracts["accuracy"].looks == 2


def test_edits_adding_errors_are_tested_at_once_when_the_sample_is_complete(
        tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2, unanswered=0)
    _scheduled(project)
    _edit(project, 130, _wrong(130))
    status = _scheduled(project).contracts["accuracy"]
    assert status.looks == 2
    assert any("calibration sample is complete" in n for n in status.notes)


def test_explicit_certify_tests_a_waiting_wave_at_the_next_look(tmp_path: Path) -> None:
    project = _project(tmp_path, n_cert=60, cert_wrong=2)
    _scheduled(project)
    _edit(project, 130, _wrong(130))
    assert _scheduled(project).contracts["accuracy"].looks == 1
    assert label_report(project, certify=True).contracts["accuracy"].looks == 2


# ------------------------------------------------------------------- estimates


def _estimates(project: Path) -> list[Event]:
    return [e for e in Ledger.open(project).entries
            if isinstance(e, Event) and e.event == ESTIMATE_EVENT]


def test_estimates_are_remade_at_milestones_and_when_complete(tmp_path: Path) -> None:
    ppi = {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
           "estimand": "prevalence", "confidence": 0.9}
    project = _project(tmp_path, n_cert=40, cert_wrong=1, extra=[ppi])
    _scheduled(project)
    assert [e.details["dev_labels"] for e in _estimates(project)] == [80]
    _write(project, [_request(k, "dev", _truth(k)) for k in range(200, 219)])  # 99 < 100
    held = _scheduled(project).contracts["prevalence"]
    assert len(_estimates(project)) == 1
    assert any("re-estimated at 100" in n for n in held.notes)
    _write(project, [_request(219, "dev", _truth(219))])                      # 100
    _scheduled(project)
    assert [e.details["dev_labels"] for e in _estimates(project)] == [80, 100]
    _write(project, [_request(k, "cert", _truth(k)) for k in range(350, 355)])  # complete
    _scheduled(project)
    assert [e.details["complete"] for e in _estimates(project)] == [False, False, True]
    # status (no scheduler) still shows a fresh estimate and writes nothing.
    before = (project / "labeling" / "ledger.jsonl").read_bytes()
    label_report(project)
    assert (project / "labeling" / "ledger.jsonl").read_bytes() == before
