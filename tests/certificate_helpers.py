"""A small contracts project for the certificate tests (core, CLI and PDF).

300 items, one radio scheme whose labels may be hostile strings, two people who both
labelled 20 items (so agreement is defined), one logprob tier whose predictions are
right 96% of the time, 80 dev and 120 cert calibration labels, and four contracts:
``selective_risk``, ``ppi``, ``budget_first`` and ``threshold_legacy``. After
:func:`certified_project` the selective_risk contract has one look in the ledger.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import yaml

from app.core.contracts.label_report import label_report
from tests.potato_project import label, simple_items, write_project

IMG = '<img src="file:///etc/hostname">'
LINK = '<a href="http://x">x</a>'
HOSTILE = (IMG, LINK, "plain")
N_ITEMS = 300


def contracts_project(root: Path, labels: Sequence[str] = ("pos", "neg", "neu"),
                      engine: bool = True) -> Path:
    rng = random.Random(11)
    names = list(labels)
    truth = {f"item-{k}": rng.choice(names) for k in range(N_ITEMS)}
    people = {who: {item: [label("sentiment", truth[item] if rng.random() < 0.9
                                 else rng.choice(names))]
                    for item in list(truth)[:20]} for who in ("ana", "ben")}
    scheme = {"annotation_type": "radio", "name": "sentiment", "labels": names}
    project = write_project(root, schemes=[scheme], items=simple_items(N_ITEMS),
                            annotators=people)
    if not engine:
        return project
    folder = project / "labeling"
    folder.mkdir()
    (folder / "engine.yaml").write_text(yaml.safe_dump({
        "cascade": [{"name": "model", "source": "logprob"}],
        "humans": {"dev_fraction": 0.5}, "budgets": {"human_labels": 250},
        "contracts": [
            {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.2},
            {"id": "prevalence", "kind": "ppi", "schema": "sentiment",
             "estimand": "prevalence"},
            {"id": "plan", "kind": "budget_first", "schema": "sentiment", "human_labels": 250},
            {"id": "old-rule", "kind": "threshold_legacy", "schema": "sentiment",
             "threshold": 0.95}]}, sort_keys=False))
    predictions = []
    for item, value in truth.items():
        wrong = rng.random() < 0.04
        guess = rng.choice([v for v in names if v != value]) if wrong else value
        # the wrong guesses are the less confident ones, so Potato's method (which starts
        # at the most conservative threshold) can certify
        predictions.append({"item": item, "schema": "sentiment", "tier": "model",
                            "label": guess,
                            "confidence": round(rng.uniform(0.9, 0.93 if wrong else 1.0), 3)})
    (folder / "predictions.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in predictions))
    requests = [{"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
                 "kind": "calibration", "pi": 0.5, "split": "dev" if k <= 80 else "cert",
                 "annotator": "ana", "label": truth[f"item-{k}"]} for k in range(1, 201)]
    (folder / "requests.jsonl").write_text("".join(json.dumps(x) + "\n" for x in requests))
    return project


def certified_project(root: Path, labels: Sequence[str] = ("pos", "neg", "neu")) -> Path:
    """The project above with its selective_risk contract tested once (a look)."""
    project = contracts_project(root, labels)
    label_report(project, certify=True)
    return project


def add_cert_labels(project: Path, count: int = 20) -> None:
    """Append ``count`` more answered cert requests (new data: the next certify is a look)."""
    path = project / "labeling" / "requests.jsonl"
    predictions = {json.loads(line)["item"]: json.loads(line)["label"]
                   for line in (project / "labeling" / "predictions.jsonl").read_text()
                   .splitlines()}
    start = 201
    lines = [{"request": f"r{k}", "item": f"item-{k}", "schema": "sentiment",
              "kind": "calibration", "pi": 0.5, "split": "cert", "annotator": "ana",
              "label": predictions[f"item-{k}"]} for k in range(start, start + count)]
    with path.open("a") as handle:
        handle.write("".join(json.dumps(x) + "\n" for x in lines))
