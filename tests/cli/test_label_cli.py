"""`accord label`: states, looks and the ledger, acceptance and export, from the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli.main import main
from app.core.contracts.statistics.looks import look_level
from tests.potato_project import RADIO, label, simple_items, write_project

N_ITEMS = 300


def _engine(contracts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"cascade": [{"name": "model", "source": "logprob"}],
            "humans": {"dev_fraction": 0.5},
            "budgets": {"human_labels": 250},
            "contracts": contracts, **extra}


def _project(tmp_path: Path, *, n_cert: int = 120, error_rate: float = 0.04,
             contracts: list[dict[str, Any]] | None = None, informative: bool = True
             ) -> Path:
    """A one-tier project; with ``informative`` the wrong guesses have the lower
    confidences (0.90-0.93), so Potato's method, which starts at the most conservative
    threshold, sees a clean top."""
    rng = random.Random(8)
    project = write_project(tmp_path / "proj", schemes=[RADIO], items=simple_items(N_ITEMS),
                            annotators={"ann": {"item-0": [label("sentiment", "pos")]}})
    labeling = project / "labeling"
    labeling.mkdir()
    (labeling / "engine.yaml").write_text(yaml.safe_dump(_engine(contracts or [
        {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.2}]),
        sort_keys=False))
    truth = {f"item-{k}": rng.choice(["pos", "neg", "neu"]) for k in range(N_ITEMS)}
    lines = []
    for item, value in truth.items():
        wrong = rng.random() < error_rate
        guess = rng.choice([v for v in ("pos", "neg", "neu") if v != value]) if wrong else value
        lines.append({"item": item, "schema": "sentiment", "tier": "model", "label": guess,
                      "confidence": round(rng.uniform(0.9, 0.93 if wrong and informative
                                                      else 1.0), 3)})
    (labeling / "predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    requests = []
    for k in range(1, 1 + 80 + n_cert):
        item = f"item-{k}"
        requests.append({"request": f"r{k}", "item": item, "schema": "sentiment",
                         "kind": "calibration", "pi": 0.5, "split": "dev" if k <= 80 else "cert",
                         "annotator": "ann", "label": truth[item]})
    (labeling / "requests.jsonl").write_text("".join(json.dumps(x) + "\n" for x in requests))
    return project


def _json(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 0) -> dict[str, Any]:
    assert main(argv) == code
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_status_never_spends_and_certify_spends_once(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    project = _project(tmp_path)
    ledger = project / "labeling" / "ledger.jsonl"
    status = _json(["label", "status", str(project), "--json"], capsys)
    entry = status["contracts"]["accuracy"]
    assert entry["looks"] == 0 and entry["state"] == "insufficient"  # Potato's status
    assert entry["notes"][0].startswith("not evaluated yet: 'accord label certify' "
                                        "evaluates it at look 1")
    assert not ledger.exists()
    first = _json(["label", "certify", str(project), "--json"], capsys)
    entry = first["contracts"]["accuracy"]
    assert entry["state"] == "met" and entry["looks"] == 1
    assert entry["level_spent"] == pytest.approx(look_level(1, 0.9))
    assert len(ledger.read_text().splitlines()) == 1
    # Unchanged data: the stored result, nothing spent.
    again = _json(["label", "certify", str(project), "--json"], capsys)
    assert again["contracts"]["accuracy"] == {**entry, "notes": [
        "unchanged labels: the stored result, nothing spent"]}
    assert len(ledger.read_text().splitlines()) == 1
    before = ledger.read_bytes()
    assert _json(["label", "status", str(project), "--json"], capsys)["contracts"][
        "accuracy"]["state"] == "met"
    assert ledger.read_bytes() == before
    assert first["accepted"]["sentiment"]["by_source"]["model"] > 0
    assert first["ledger"] == {"ok": True, "problem": None}


def test_new_cert_labels_are_a_new_look(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    project = _project(tmp_path)
    _json(["label", "certify", str(project), "--json"], capsys)
    requests = project / "labeling" / "requests.jsonl"
    extra = {"request": "r-new", "item": "item-250", "schema": "sentiment",
             "kind": "calibration", "pi": 0.5, "split": "cert", "annotator": "ann",
             "label": "pos"}
    requests.write_text(requests.read_text() + json.dumps(extra) + "\n")
    second = _json(["label", "certify", str(project), "--json"], capsys)
    assert second["contracts"]["accuracy"]["looks"] == 2
    assert second["contracts"]["accuracy"]["level_spent"] == pytest.approx(
        look_level(1, 0.9) + look_level(2, 0.9))


def test_renamed_contract_keeps_its_looks(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    project = _project(tmp_path)
    _json(["label", "certify", str(project), "--json"], capsys)
    engine = project / "labeling" / "engine.yaml"
    config = yaml.safe_load(engine.read_text())
    config["contracts"][0].update(id="error-bound", renamed_from="accuracy")
    engine.write_text(yaml.safe_dump(config))
    status = _json(["label", "status", str(project), "--json"], capsys)
    assert status["contracts"]["error-bound"]["looks"] == 1


def test_damaged_ledger_is_reported_and_stops_certify(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    project = _project(tmp_path)
    _json(["label", "certify", str(project), "--json"], capsys)
    ledger = project / "labeling" / "ledger.jsonl"
    ledger.write_text("")  # the only line deleted
    assert main(["label", "status", str(project), "--json"]) == 1
    captured = capsys.readouterr()
    status = json.loads(captured.out)
    assert status["ledger"]["ok"] is False and "ledger.jsonl" in status["ledger"]["problem"]
    assert "ledger.jsonl" in captured.err
    assert main(["label", "certify", str(project)]) == 1
    assert "ledger damaged" in capsys.readouterr().err
    done = _json(["label", "certify", str(project), "--json", "--acknowledge-ledger"], capsys)
    assert done["ledger"]["ok"] is True
    assert done["contracts"]["accuracy"]["looks"] >= 1  # a deleted look is never given back


def test_export_gives_every_item_one_status(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path)
    _json(["label", "certify", str(project), "--json"], capsys)
    out = tmp_path / "export.jsonl"
    assert main(["label", "export", str(project), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["item"] for r in rows) == sorted(f"item-{k}" for k in range(N_ITEMS))
    statuses = {(r["status"], r["label_origin"]) for r in rows}
    assert statuses <= {("accepted", "auto"), ("accepted_uncertified", "auto"),
                        ("accepted", "human"), ("pending", None)}  # Potato's export
    assert {("accepted", "auto"), ("accepted", "human")} <= statuses
    humans = [r for r in rows if r["label_origin"] == "human"]
    assert len(humans) == 201  # 200 calibration labels and item-0's Potato answer
    assert {r["source"] for r in humans} == {"ann"}
    training = tmp_path / "training.jsonl"
    assert main(["label", "export", str(project), "-o", str(out), "--training",
                 str(training)]) == 0
    lines = [json.loads(line) for line in training.read_text().splitlines()]
    # Only the outside (Potato) label: calibration labels never become training data.
    assert lines == [{"item": "item-0", "schema": "sentiment", "label": "pos",
                      "annotator": "ann", "origin": "outside"}]


def test_unmet_contract_blocks_acceptance(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    project = _project(tmp_path, error_rate=0.5, informative=False)
    data = _json(["label", "certify", str(project), "--json"], capsys)
    assert data["contracts"]["accuracy"]["state"] in ("insufficient", "infeasible")
    assert data["accepted"]["sentiment"]["by_source"] == {}


def test_unknown_contract_kind_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                            ) -> None:
    project = _project(tmp_path, contracts=[{"id": "x", "kind": "vibes", "schema": "sentiment"}])
    assert main(["label", "status", str(project)]) == 2
    err = capsys.readouterr().err
    assert "engine.yaml" in err and "vibes" in err


def test_migrate_config_writes_legacy_contracts(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    project = write_project(tmp_path / "old", schemes=[RADIO], items=simple_items(3),
                            annotators={"ann": {}},
                            extra_config={"icl_labeling": {"confidence_threshold": 0.8}})
    before = (project / "config.yaml").read_bytes()
    assert main(["label", "migrate-config", str(project)]) == 0
    engine = yaml.safe_load((project / "labeling" / "engine.yaml").read_text())
    assert engine["contracts"] == [{"id": "legacy-sentiment", "kind": "threshold_legacy",
                                    "schema": "sentiment", "threshold": 0.8}]
    assert (project / "config.yaml").read_bytes() == before
    # Potato 2.12.1's keys, and a file Accord reads back
    assert engine["enabled"] is True and engine["cascade"] == ["icl"]
    assert engine["sources"] == [{"id": "icl", "kind": "llm", "model": "icl",
                                  "confidence": {"method": "verbalized"}}]
    capsys.readouterr()
    status = _json(["label", "status", str(project), "--json"], capsys)
    assert status["contracts"]["legacy-sentiment"]["kind"] == "threshold_legacy"
