"""The estimates read the machine label the cascade would deliver (``contracts.md``, ppi:
"The machine label is the one the cascade would deliver"; Which labels: the unlabelled
set is every other item with a delivered machine label).

Oracle: ppi-python (``ppi_py``) on exactly the labels the cascade delivers, routed here
by hand from the rule the engine reports (first tier whose threshold the confidence
reaches), never by the engine's own routing. The study is built so that the first tier
with a prediction and the cascade disagree on many items: the old approximation would
give another estimate, and the test checks that it does.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.config.engine_config import Budgets, EngineConfig, Humans, Source, Tier
from app.core.contracts.engine import evaluate_contracts
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.ppi import evaluate_ppi
from app.core.contracts.labels.machine_labels import delivered_labels
from app.core.contracts.ledger.chain import Ledger
from app.core.model import Kind, Scheme

CLASSES = ("neg", "neu", "pos")
SCHEME = Scheme("sentiment", "radio", Kind.NOMINAL, labels=CLASSES)
TIERS = ("fast", "big")
ORACLE = 1e-9


def _spec(ident: str, kind: ContractKind, **params: Any) -> ContractSpec:
    return ContractSpec(ident, kind, "sentiment", MappingProxyType(params))


SELECTIVE = _spec("accuracy", ContractKind.SELECTIVE_RISK, error=0.1, confidence=0.9,
                  per_class=False, tolerance=0.5)
LEGACY = _spec("old-rule", ContractKind.THRESHOLD_LEGACY, threshold=0.8)
PPI = _spec("prevalence", ContractKind.PPI, estimand="prevalence", by=None, confidence=0.9,
            max_width=None)


def _config(*contracts: ContractSpec) -> EngineConfig:
    return EngineConfig(tuple(Tier(t, Source.LOGPROB) for t in TIERS), Humans(), Budgets(),
                        tuple(contracts), Path("engine.yaml"))


def _study(seed: int = 7) -> SchemaData:
    """600 items. ``fast`` is sure and right on 40% of them; elsewhere it is unsure
    (0.3) and mostly wrong, so ``big`` (sure and right) delivers; on 10% of the items
    both are unsure (0.2) and wrong: the cascade delivers nothing there. dev: 120 items, cert: 240
    items, every one labelled by one person with the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(CLASSES, 600, p=[0.5, 0.2, 0.3])
    kind = rng.choice(["fast", "big", "none"], 600, p=[0.4, 0.5, 0.1])
    predictions: dict[str, dict[str, MachineLabel]] = {"fast": {}, "big": {}}
    dev: dict[str, tuple[HumanLabel, ...]] = {}
    cert: dict[str, tuple[HumanLabel, ...]] = {}
    for k in range(600):
        item, y = f"i{k:03d}", str(truth[k])
        wrong = str(rng.choice([c for c in CLASSES if c != y]))
        if kind[k] == "fast":
            predictions["fast"][item] = MachineLabel(y, 0.95)
            predictions["big"][item] = MachineLabel(y, 0.9)
        elif kind[k] == "big":
            fast = wrong if rng.random() < 0.7 else y
            predictions["fast"][item] = MachineLabel(fast, 0.3)
            predictions["big"][item] = MachineLabel(y, 0.9)
        else:
            predictions["fast"][item] = MachineLabel(wrong, 0.2)
            predictions["big"][item] = MachineLabel(wrong, 0.2)
        if k < 120:
            dev[item] = (HumanLabel("ann", y, 0.6),)
        elif k < 360:
            cert[item] = (HumanLabel("ann", y, 0.6),)
    items = tuple(f"i{k:03d}" for k in range(600))
    return SchemaData(SCHEME, TIERS, items, predictions, dev, cert, 0.5)


def _routed(data: SchemaData, rule: dict[str, float]) -> dict[str, str]:
    """item → the label delivered under ``rule``, routed by hand."""
    out: dict[str, str] = {}
    for item in data.items:
        for tier in TIERS:
            machine = data.predictions[tier][item]
            if tier in rule and machine.confidence >= rule[tier]:
                out[item] = str(machine.label)
                break
    return out


def _one_hot(labels: list[str]) -> npt.NDArray[np.float64]:
    coded: npt.NDArray[np.float64] = (
        np.asarray(labels)[:, None] == np.asarray(CLASSES)[None, :]).astype(np.float64)
    return coded


def _oracle(data: SchemaData, machine: dict[str, str]) -> dict[str, tuple[float, float, float]]:
    """ppi-python: labelled = dev items with a delivered label, unlabelled = every other
    item with one (cert items included, their human labels unread)."""
    y = [str(data.dev[i][0].label) for i in sorted(data.dev) if i in machine]
    yhat = [machine[i] for i in sorted(data.dev) if i in machine]
    rest = [machine[i] for i in data.items if i in machine and i not in data.dev]
    low, high = ppi_mean_ci(_one_hot(y), _one_hot(yhat), _one_hot(rest), alpha=0.1)
    point = ppi_mean_pointestimate(_one_hot(y), _one_hot(yhat), _one_hot(rest))
    return {c: (float(point[j]), float(low[j]), float(high[j]))
            for j, c in enumerate(CLASSES)}


def _check(result: dict[str, Any], oracle: dict[str, tuple[float, float, float]]) -> None:
    for label, (point, low, high) in oracle.items():
        got = result["estimates"][label]
        assert got["estimate"] == pytest.approx(point, abs=ORACLE)
        assert got["interval"] == pytest.approx([low, high], abs=ORACLE)


def test_the_study_separates_the_first_tier_from_the_cascade() -> None:
    data = _study()
    first = {i: str(m.label) for i, (_, m) in delivered_labels(data).items()}
    cascade = _routed(data, {"fast": 0.8, "big": 0.8})
    assert sum(first[i] != cascade[i] for i in cascade) > 100
    assert len(cascade) < len(first)


def test_ppi_after_a_met_selective_risk_reads_the_labels_the_cascade_delivers(
        tmp_path: Path) -> None:
    data = _study()
    statuses = evaluate_contracts(_config(SELECTIVE, PPI), {"sentiment": data},
                                  Ledger.open(tmp_path), certify=True)
    accuracy = statuses["accuracy"]
    assert accuracy.state == "met" and accuracy.accepts is not None
    rule = {tier: float(t) for tier, t in accuracy.accepts.items()}
    assert set(rule) == set(TIERS)
    machine = _routed(data, rule)
    assert len(machine) < len(data.items)  # some items go to people
    ppi = statuses["prevalence"]
    assert ppi.state == "met"
    _check(ppi.result, _oracle(data, machine))
    assert list(statuses) == ["accuracy", "prevalence"]  # the configuration's order
    left_out = sum(i not in machine for i in data.dev)
    assert left_out > 0
    assert ppi.result["details"]["n_labelled"] == len(data.dev) - left_out
    assert any(f"{left_out} dev-labelled items have no machine label the cascade would "
               "deliver" in n for n in ppi.notes)
    # the old approximation (first tier with a prediction) gives another estimate
    first = evaluate_ppi(PPI, data)
    assert first.result["estimates"]["neg"]["estimate"] != pytest.approx(
        ppi.result["estimates"]["neg"]["estimate"], abs=1e-3)


def test_ppi_under_threshold_legacy_reads_its_delivered_labels(tmp_path: Path) -> None:
    data = _study(11)
    statuses = evaluate_contracts(_config(PPI, LEGACY), {"sentiment": data},
                                  Ledger.open(tmp_path), certify=False)
    assert statuses["old-rule"].state == "met"
    assert list(statuses) == ["prevalence", "old-rule"]
    _check(statuses["prevalence"].result, _oracle(data, _routed(data, {"fast": 0.8,
                                                                       "big": 0.8})))


def test_before_any_rule_is_met_the_first_tier_stands_in_with_a_note(tmp_path: Path
                                                                     ) -> None:
    data = _study()
    statuses = evaluate_contracts(_config(SELECTIVE, PPI), {"sentiment": data},
                                  Ledger.open(tmp_path), certify=False)
    assert statuses["accuracy"].state == "pending"  # status never tests
    first = {i: str(m.label) for i, (_, m) in delivered_labels(data).items()}
    ppi = statuses["prevalence"]
    _check(ppi.result, _oracle(data, first))
    assert any("no machine label is delivered until accuracy is met: the machine label "
               "is the prediction of the first cascade tier that has one" in n for n in ppi.notes)


def test_without_a_gating_contract_the_first_tier_stands_in_with_a_note(tmp_path: Path
                                                                        ) -> None:
    data = _study()
    statuses = evaluate_contracts(_config(PPI), {"sentiment": data},
                                  Ledger.open(tmp_path), certify=False)
    first = {i: str(m.label) for i, (_, m) in delivered_labels(data).items()}
    _check(statuses["prevalence"].result, _oracle(data, first))
    assert any(n.startswith("no selective_risk or threshold_legacy contract on this "
                            "schema delivers machine labels")
               for n in statuses["prevalence"].notes)
