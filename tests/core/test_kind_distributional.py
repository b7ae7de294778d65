"""The ``distributional`` contract kind.

Oracles: scipy's ``jensenshannon`` (base 2) per item, a bootstrap written out here with
the spec's seed and resamples, and the tested ``split_half_noise_ceiling`` on the
items' counts; every state (pending, insufficient, met, infeasible) and ``groups_by``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.distributional import MIN_ITEMS, evaluate_distributional
from app.core.contracts.statistics.jensen_shannon import split_half_noise_ceiling
from app.core.model import Kind, Scheme

SCHEME = Scheme("offensive", "likert", Kind.ORDINAL, scale=("1", "2", "3"))
CLASSES = ("1", "2", "3")


def spec(**params: Any) -> ContractSpec:
    base = {"max_distance": None, "groups_by": None, "confidence": 0.9}
    base.update(params)
    return ContractSpec("dist", ContractKind.DISTRIBUTIONAL, "offensive",
                        MappingProxyType(base))


def schema_data(machine: Mapping[str, MachineLabel], dev: Mapping[str, Sequence[tuple[str, str]]],
                annotators: Mapping[str, Mapping[str, Any]] | None = None) -> SchemaData:
    items = tuple(sorted(set(machine) | set(dev)))
    return SchemaData(scheme=SCHEME, tiers=("m",), items=items, predictions={"m": machine},
                      dev={i: tuple(HumanLabel(who, label, 0.5) for who, label in people)
                           for i, people in dev.items()},
                      cert={}, dev_fraction=0.5, annotators=annotators or {})


def random_study(n_items: int, seed: int = 5, people: int = 4, sharp: float = 0.0
                 ) -> tuple[dict[str, MachineLabel], dict[str, list[tuple[str, str]]]]:
    """Items with ``people`` labels each; the machine's probs drift towards the truth."""
    rng = np.random.default_rng(seed)
    machine: dict[str, MachineLabel] = {}
    dev: dict[str, list[tuple[str, str]]] = {}
    for k in range(n_items):
        item = f"i{k:02d}"
        p = rng.dirichlet([1, 1, 1])
        labels = [str(x) for x in rng.choice([1, 2, 3], size=people, p=p)]
        dev[item] = [(f"p{j}", label) for j, label in enumerate(labels)]
        q = (1 - sharp) * rng.dirichlet([1, 1, 1]) + sharp * p
        machine[item] = MachineLabel(labels[0], 0.8, dict(zip(CLASSES, q, strict=True)))
    return machine, dev


def expected(machine: Mapping[str, MachineLabel], dev: Mapping[str, Sequence[tuple[str, str]]],
             confidence: float = 0.9) -> tuple[float, list[float], float]:
    items = sorted(dev)
    values = []
    counts = {}
    for item in items:
        c = {x: sum(1 for _, label in dev[item] if label == x) for x in CLASSES}
        counts[item] = c
        probs = machine[item].probs
        q = ([probs[x] for x in CLASSES] if probs else
             [float(machine[item].label == x) for x in CLASSES])
        values.append(float(jensenshannon(q, [c[x] for x in CLASSES], base=2)))
    x = np.asarray(values)
    rng = np.random.default_rng(20261129)
    means = x[rng.integers(0, x.size, (2000, x.size))].mean(axis=1)
    alpha = 1 - confidence
    low, high = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(x.mean()), [float(low), float(high)], split_half_noise_ceiling(counts).value


def test_numbers_match_scipy_and_the_met_state_without_max_distance() -> None:
    machine, dev = random_study(MIN_ITEMS)
    out = evaluate_distributional(spec(), schema_data(machine, dev))
    mean, interval, ceiling = expected(machine, dev)
    assert out.state == "met" and out.tested is False
    assert out.result["mean_js"] == pytest.approx(mean, abs=1e-9)
    assert out.result["interval"] == pytest.approx(interval, abs=1e-9)
    assert out.result["noise_ceiling"] == pytest.approx(ceiling, abs=1e-12)
    assert out.result["n_items"] == MIN_ITEMS


def test_confidence_sets_the_bootstrap_level() -> None:
    machine, dev = random_study(25)
    out = evaluate_distributional(spec(confidence=0.95), schema_data(machine, dev))
    assert out.result["interval"] == pytest.approx(expected(machine, dev, 0.95)[1])


def test_pending_and_insufficient() -> None:
    machine, dev = random_study(MIN_ITEMS)
    assert evaluate_distributional(spec(), schema_data(machine, {})).state == "pending"
    few = {i: dev[i] for i in sorted(dev)[:7]}
    two = {i: dev[i][:2] for i in sorted(dev)[7:]}  # two people: not counted
    out = evaluate_distributional(spec(), schema_data(machine, {**few, **two}))
    assert out.state == "insufficient"
    assert out.result["n_items"] == 7
    assert out.result["projection"] == {"items_needed": MIN_ITEMS,
                                        "more_items": MIN_ITEMS - 7}
    assert out.result["mean_js"] == pytest.approx(expected(machine, few)[0])


def test_no_eligible_item_gives_none_not_nan() -> None:
    machine, dev = random_study(5)
    out = evaluate_distributional(spec(), schema_data(machine, {i: d[:2] for i, d in dev.items()}))
    assert out.state == "insufficient"
    assert out.result["mean_js"] is None and out.result["interval"] is None


def test_max_distance_met_infeasible_and_straddling() -> None:
    machine, dev = random_study(40, sharp=0.6)
    data = schema_data(machine, dev)
    mean, (low, high), _ = expected(machine, dev)
    assert evaluate_distributional(spec(max_distance=high + 0.01), data).state == "met"
    infeasible = evaluate_distributional(spec(max_distance=low - 0.01), data)
    assert infeasible.state == "infeasible"
    middle = (low + mean) / 2
    out = evaluate_distributional(spec(max_distance=(mean + high) / 2), data)
    assert out.state == "insufficient"
    target = (mean + high) / 2
    needed = int(np.ceil(40 * ((high - mean) / (target - mean)) ** 2))
    assert out.result["projection"] == {"items_needed": needed, "more_items": needed - 40}
    above = evaluate_distributional(spec(max_distance=middle), data)
    assert above.state == "insufficient" and "projection" not in above.result


def test_the_label_one_hot_stands_in_for_missing_probs() -> None:
    machine, dev = random_study(MIN_ITEMS)
    plain = {i: MachineLabel(m.label, m.confidence) for i, m in machine.items()}
    out = evaluate_distributional(spec(), schema_data(plain, dev))
    assert out.result["mean_js"] == pytest.approx(expected(plain, dev)[0])


def test_a_machine_that_matches_people_exactly_has_distance_zero() -> None:
    dev = {f"i{k:02d}": [("a", "1"), ("b", "1"), ("c", "2"), ("d", "3")] for k in range(20)}
    machine = {i: MachineLabel("1", 0.9, {"1": 0.5, "2": 0.25, "3": 0.25}) for i in dev}
    out = evaluate_distributional(spec(max_distance=0.0), schema_data(machine, dev))
    assert out.result["mean_js"] == pytest.approx(0.0, abs=1e-7)
    assert out.state == "met"


def test_groups_by_uses_each_groups_people_only() -> None:
    machine, dev = random_study(MIN_ITEMS, people=5)
    annotators = {"p0": {"age": "young"}, "p1": {"age": "young"}, "p2": {"age": "old"},
                  "p3": {"age": "old"}, "p4": {"age": "old"}}
    out = evaluate_distributional(spec(groups_by="age"),
                                  schema_data(machine, dev, annotators))
    assert out.state == "met"
    groups = out.result["groups"]
    assert set(groups) == {"old", "young"}
    for name, people in (("young", {"p0", "p1"}), ("old", {"p2", "p3", "p4"})):
        mine = {i: [(w, label) for w, label in d if w in people] for i, d in dev.items()}
        mean, interval, ceiling = expected(machine, mine)
        assert groups[name]["mean_js"] == pytest.approx(mean)
        assert groups[name]["interval"] == pytest.approx(interval)
        assert groups[name]["noise_ceiling"] == pytest.approx(ceiling)
        assert groups[name]["n_items"] == MIN_ITEMS
    assert out.result["mean_js"] == pytest.approx(expected(machine, dev)[0])


def test_a_group_of_one_has_no_numbers_and_says_why() -> None:
    machine, dev = random_study(MIN_ITEMS, people=4)
    annotators = {"p0": {"age": "young"}, "p1": {"age": "old"}, "p2": {"age": "old"}}
    out = evaluate_distributional(spec(groups_by="age"), schema_data(machine, dev, annotators))
    assert out.result["groups"]["young"]["mean_js"] is None
    assert "reason" in out.result["groups"]["young"]
    assert out.result["groups"]["old"]["n_items"] == MIN_ITEMS
    assert any("did not answer 'age'" in note for note in out.notes)


def test_nobody_answered_the_groups_question() -> None:
    machine, dev = random_study(MIN_ITEMS)
    out = evaluate_distributional(spec(groups_by="age"),
                                  schema_data(machine, dev, {"p0": {"country": "x"}}))
    assert out.result["groups"] == {}
    assert "nobody answered" in out.result["groups_reason"]
    assert any("nobody answered the prestudy question 'age'" in note for note in out.notes)
    assert out.state == "met"
