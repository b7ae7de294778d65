"""When only dev labels arrived, on Accord's own ``labeling/`` project (contracts.md,
"Same data, no new look"), with Potato 2.12.1's own contract classes as the oracle.

A ``labeling/`` project has no ``engine.sqlite``, so Potato cannot certify it. What it can
do is decide, on the same data, what its certify decides: the view Accord reads (every
calibration item with its truth, split, pi and tiers' answers, and the population) is
handed to Potato's ``CalibrationView`` in a child process, and Potato's ``build_contract``
evaluates it at a look and ``Engine._signature`` says what the test was. Then:

- the estimate ``prevalence`` has no signature: after a dev label, certify returns the
  stored result with the note and ``retest_available``, writes nothing, and ``--retest``
  spends look 2 with Potato's numbers at look 2 (to 1e-9);
- ``accuracy`` (selective_risk) takes the path Potato's signatures choose: the same
  signature before and after the dev label is the test already run (an ``evaluated``
  event at look 1, Potato's numbers at look 1), another is the note. Both cases are
  built (one dev label each), and the test checks Potato's verdict for each, so each
  branch is exercised against Potato, not against Accord;
- the scheduler (the GUI's watcher: Potato's ``auto``) never returns the note: once its
  milestone is due it tests at the next look.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.core.contracts.label_report import label_report
from app.core.contracts.ledger.chain import Ledger
from app.core.contracts.potato_method.engine import KEY, _own_route
from app.core.contracts.potato_method.from_labeling import labeling_view
from app.core.contracts.potato_method.view import MethodView, TierAnswer
from app.core.contracts.statistics.looks import look_level
from tests.core.test_potato_record_moved import POTATO, REPO, _env, _same
from tests.potato_project import RADIO, label, simple_items, write_project

needs_potato = pytest.mark.skipif(not POTATO.is_file(),
                                  reason="potato-annotation 2.12.1 is not installed")
N_ITEMS = 300
CONTRACTS: list[dict[str, Any]] = [
    {"id": "accuracy", "kind": "selective_risk", "schema": "sentiment", "error": 0.2},
    {"id": "prevalence", "kind": "ppi", "schema": "sentiment"}]
NOTE = "Dev labels now choose a different rule; certify with retest to test it (look 2)"

_ORACLE = """
import json, sys
from potato.labeling_engine.config.schema import ContractConfig
from potato.labeling_engine.contracts import build_contract
from potato.labeling_engine.contracts.base import CalibrationView, CalItem, PopItem, TierPred
from potato.labeling_engine.service import Engine
spec = json.load(sys.stdin)
def tier(t):
    return None if t is None else TierPred(value=t[0], conf=t[1], status=t[2], dist=t[3])
out = []
for job in spec["jobs"]:
    v = job["view"]
    view = CalibrationView(
        scheme=v["scheme"], labels=v["labels"], tier_ids=v["tiers"],
        cal=[CalItem(item_id=c["item"], human=c["human"], split=c["split"], pi=c["pi"],
                     tiers=[tier(t) for t in c["tiers"]], output=tier(c["output"]),
                     humans=c["humans"]) for c in v["cal"]],
        population=[PopItem(item_id=p["item"], tiers=[tier(t) for t in p["tiers"]],
                            pi=p["pi"], output=tier(p["output"])) for p in v["pop"]],
        output_complete=v["complete"])
    raw = job["contract"]
    cfg = ContractConfig(id=raw["id"], kind=raw["kind"], schema=raw["schema"],
                         error=raw.get("error"), per_class=bool(raw.get("per_class", False)),
                         raw=raw)
    contract = build_contract(cfg)
    contract.dev_fraction = 0.5
    res = contract.evaluate(view, look=job["look"]).to_dict()
    res["signature"] = Engine._signature(raw["kind"], view, raw, res)
    out.append(res)
print(json.dumps(out))
"""


def _tier(answer: TierAnswer | None) -> list[Any] | None:
    if answer is None:
        return None
    dist = None if answer.distribution is None else dict(answer.distribution)
    return [answer.value, answer.confidence, answer.status, dist]


def _view_json(view: MethodView) -> dict[str, Any]:
    """The view Accord reads, in the fields Potato's ``CalibrationView`` takes."""
    return {"scheme": view.scheme, "labels": list(view.labels), "tiers": list(view.tiers),
            "complete": view.output_complete,
            "cal": [{"item": c.item, "human": c.truth, "split": c.split, "pi": c.pi,
                     "tiers": [_tier(t) for t in c.tiers], "output": _tier(c.output),
                     "humans": dict(c.people)} for c in view.calibration],
            "pop": [{"item": p.item, "tiers": [_tier(t) for t in p.tiers], "pi": p.pi,
                     "output": _tier(p.output)} for p in view.population]}


def _view(project: Path) -> MethodView:
    """Today's view as certify builds it (the route of Accord's latest look)."""
    report = label_report(project)
    route = _own_route("sentiment", report.config, Ledger.open(project, {}))
    built = labeling_view(report.study, report.labeling, report.config,
                          report.study.schemes["sentiment"], route)
    assert built is not None
    return built.view


def _potato(jobs: list[tuple[MethodView, str, int]]) -> list[dict[str, Any]]:
    """Potato's own contract on each (view, contract id, look)."""
    spec = {"jobs": [{"view": _view_json(view), "look": look,
                      "contract": next(c for c in CONTRACTS if c["id"] == ident)}
                     for view, ident, look in jobs]}
    done = subprocess.run([sys.executable, "-c", _ORACLE], input=json.dumps(spec),
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=_env(), check=True)
    out: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """One tier, 80 dev and 120 cert labels; the wrong guesses have the lower
    confidences (as ``tests/cli/test_label_cli.py`` builds it)."""
    rng = random.Random(8)
    project = write_project(tmp_path / "proj", schemes=[RADIO], items=simple_items(N_ITEMS),
                            annotators={"ann": {"item-0": [label("sentiment", "pos")]}})
    labeling = project / "labeling"
    labeling.mkdir()
    (labeling / "engine.yaml").write_text(yaml.safe_dump({
        "cascade": [{"name": "model", "source": "logprob"}], "humans": {"dev_fraction": 0.5},
        "budgets": {"human_labels": 250}, "contracts": CONTRACTS}, sort_keys=False))
    truth = {f"item-{k}": rng.choice(["pos", "neg", "neu"]) for k in range(N_ITEMS)}
    lines = []
    for item, value in truth.items():
        wrong = rng.random() < 0.04
        guess = rng.choice([v for v in ("pos", "neg", "neu") if v != value]) if wrong else value
        lines.append({"item": item, "schema": "sentiment", "tier": "model", "label": guess,
                      "confidence": round(rng.uniform(0.9, 0.93 if wrong else 1.0), 3)})
    (labeling / "predictions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    _requests(project, [(f"item-{k}", "dev" if k <= 80 else "cert", truth[f"item-{k}"])
                        for k in range(1, 201)])
    return project, truth


def _requests(project: Path, rows: list[tuple[str, str, str]]) -> None:
    path = project / "labeling" / "requests.jsonl"
    old = path.read_text() if path.is_file() else ""
    start = len(old.splitlines())
    path.write_text(old + "".join(json.dumps({
        "request": f"r{start + i + 1}", "item": item, "schema": "sentiment",
        "kind": "calibration", "pi": 0.5, "split": split, "annotator": "ann",
        "label": value}) + "\n" for i, (item, split, value) in enumerate(rows)))


def _ledger(project: Path) -> list[dict[str, Any]]:
    path = project / "labeling" / "ledger.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.is_file() else []


def _certified(tmp_path: Path) -> tuple[Path, dict[str, str], MethodView]:
    project, truth = _project(tmp_path)
    before = _view(project)
    report = label_report(project, certify=True)
    assert {i: (s.state, s.looks) for i, s in report.contracts.items()} == {
        "accuracy": ("met", 1), "prevalence": ("met", 1)}
    return project, truth, before


@needs_potato
@pytest.mark.parametrize("item", ["item-201", "item-203"])
def test_one_dev_label_as_potato_decides(tmp_path: Path, item: str) -> None:
    project, truth, before = _certified(tmp_path)
    stored = [line["result"][KEY] for line in _ledger(project)]
    _requests(project, [(item, "dev", truth[item])])
    after = _view(project)
    old, new, prevalence_2 = _potato([(before, "accuracy", 1), (after, "accuracy", 1),
                                      (after, "prevalence", 2)])
    # Accord's stored look is Potato's test (signature and numbers) on the same view
    assert stored[0]["signature"] == old["signature"]
    assert _same(stored[0], old) == []
    lines = len(_ledger(project))
    report = label_report(project, certify=True)
    accuracy, prevalence = report.contracts["accuracy"], report.contracts["prevalence"]
    # the estimate: the stored result, the note, nothing written
    assert (prevalence.state, prevalence.looks, prevalence.retest_available) == (
        "met", 1, True)
    assert any(n.startswith(NOTE) for n in prevalence.notes)
    assert prevalence.result == label_report(project).contracts["prevalence"].result
    if new["signature"] == old["signature"]:  # Potato: the test already run, at look 1
        assert not accuracy.retest_available and accuracy.looks == 1
        assert [x["kind"] for x in _ledger(project)[lines:]] == ["event"]
        assert _same(_ledger(project)[-1]["details"]["result"][KEY], new) == []
        assert any("the test already run, evaluated again at look 1, nothing spent" in n
                   for n in accuracy.notes)
    else:  # Potato: the stored result, with the note
        assert accuracy.retest_available and accuracy.looks == 1
        assert any(n.startswith(NOTE) for n in accuracy.notes)
        assert len(_ledger(project)) == lines
    # --retest: the estimate spends look 2, with Potato's numbers
    report = label_report(project, certify=True, retest=True)
    assert report.contracts["prevalence"].looks == 2
    look = [x for x in _ledger(project) if x.get("contract") == "prevalence"][-1]
    assert (look["kind"], look["look"]) == ("look", 2)
    assert look["level"] == pytest.approx(look_level(2, 0.9), abs=1e-15)
    assert _same(look["result"][KEY], prevalence_2) == []


@needs_potato
def test_both_paths_are_exercised(tmp_path: Path) -> None:
    """The two dev items of the test above give Potato different verdicts."""
    project, truth, before = _certified(tmp_path)
    verdicts = []
    for item in ("item-201", "item-203"):
        _requests(project, [(item, "dev", truth[item])])
        old, new = _potato([(before, "accuracy", 1), (_view(project), "accuracy", 1)])
        verdicts.append(new["signature"] == old["signature"])
        path = project / "labeling" / "requests.jsonl"
        path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))
    assert sorted(verdicts) == [False, True]


def test_the_scheduler_never_gets_the_note(tmp_path: Path) -> None:
    """Potato's planner (``auto``) falls through to the next look once its milestone is
    due: ``max(ceil(1.25 n), n + 10)`` calibration labels, n = 200 at look 1."""
    project, truth = _project(tmp_path)
    label_report(project, certify=True)
    _requests(project, [(f"item-{k}", "dev", truth[f"item-{k}"]) for k in range(201, 251)])
    report = label_report(project, schedule=True)
    prevalence = report.contracts["prevalence"]
    assert (prevalence.looks, prevalence.retest_available) == (2, False)
    assert not any(n.startswith("Dev labels now choose") for n in prevalence.notes)
    # an explicit certify on the same data now: unchanged, nothing spent
    again = label_report(project, certify=True).contracts["prevalence"]
    assert again.notes[0] == "unchanged labels: the stored result, nothing spent"
