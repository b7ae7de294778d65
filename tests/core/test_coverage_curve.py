"""Error versus coverage by threshold on dev labels, routed by the rule.

Oracle: a hand-built cascade whose counts are written out below, and a brute-force loop
over items (no numpy) for every grid threshold.
"""

from __future__ import annotations

import math
from types import MappingProxyType

import pytest

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.coverage_curve import error_coverage_curves
from app.core.model import Kind, Scheme

SCHEME = Scheme("sentiment", "radio", Kind.NOMINAL, labels=("a", "b"))
SPEC = ContractSpec("accuracy", ContractKind.SELECTIVE_RISK, "sentiment",
                    MappingProxyType({"error": 0.1}))


def data() -> SchemaData:
    """10 items. Tier "small": confidence 0.9 on items 0-4 (item 4 wrong), 0.3 on 5-9.
    Tier "big": confidence 0.8 everywhere, wrong on item 9. Dev: items 0-7 (truth "a");
    cert: items 8-9 (never read here: their labels are "b", which would change errors)."""
    items = [f"i{k}" for k in range(10)]
    small = {i: MachineLabel("b" if k == 4 else "a", 0.9 if k < 5 else 0.3)
             for k, i in enumerate(items)}
    big = {i: MachineLabel("b" if k == 9 else "a", 0.8) for k, i in enumerate(items)}
    dev = {i: (HumanLabel("p", "a", 0.5),) for i in items[:8]}
    cert = {i: (HumanLabel("p", "b", 0.5),) for i in items[8:]}
    return SchemaData(SCHEME, ("small", "big"), tuple(items), {"small": small, "big": big},
                      dev, cert, 0.5)


def brute(d: SchemaData, tier: str, reach: list[str], t: float) -> tuple[float, float | None]:
    accepted = [i for i in reach if i in d.predictions[tier]
                and d.predictions[tier][i].confidence >= t]
    dev = [i for i in accepted if d.dev.get(i)]
    wrong = [i for i in dev if d.predictions[tier][i].label != d.dev[i][0].label]
    return len(accepted) / len(d.items), (len(wrong) / len(dev) if dev else None)


def test_without_a_rule_every_item_reaches_every_tier() -> None:
    d = data()
    curves = error_coverage_curves(SPEC, d)
    assert [c.tier for c in curves] == ["small", "big"]
    for curve in curves:
        for j, t in enumerate(curve.thresholds.tolist()):
            coverage, error = brute(d, curve.tier, list(d.items), t)
            assert curve.coverage[j] == pytest.approx(coverage)
            if error is None:
                assert math.isnan(curve.dev_error[j])
            else:
                assert curve.dev_error[j] == pytest.approx(error)
    small = curves[0]
    j09 = small.thresholds.tolist().index(0.9)
    assert (small.coverage[j09], small.dev_error[j09], small.n_dev[j09]) == (0.5, 0.2, 5)


def test_a_rule_routes_accepted_items_away_from_later_tiers() -> None:
    d = data()
    curves = error_coverage_curves(SPEC, d, {"small": 0.9, "big": 0.8})
    big = curves[1]
    j = big.thresholds.tolist().index(0.8)
    # small accepts i0-i4; big sees i5-i9: coverage 5/10, dev items i5-i7, none wrong
    assert big.coverage[j] == pytest.approx(0.5)
    assert big.dev_error[j] == 0.0 and big.n_dev[j] == 3
    # the cert items' human labels ("b") never enter the dev error
    assert brute(d, "big", [f"i{k}" for k in range(5, 10)], 0.8) == (0.5, 0.0)


def test_per_class_rules_route_by_the_predicted_class() -> None:
    d = data()
    curves = error_coverage_curves(SPEC, d, {"small": {"b": 0.9}})
    big = curves[1]
    j = big.thresholds.tolist().index(0.8)
    assert big.coverage[j] == pytest.approx(0.9)  # only i4 (class b) was taken by small


def reference_curves(d: SchemaData, rule: dict[str, object]
                     ) -> list[tuple[str, list[float], list[float | None], list[int]]]:
    """Per tier, item by item in plain Python: (tier, coverage, dev error, n) per
    threshold of the curve's own grid, routing items as the engine does."""
    reach = list(d.items)
    out = []
    for tier in d.tiers:
        preds = d.predictions.get(tier, {})
        curve = next(c for c in error_coverage_curves(SPEC, d, rule) if c.tier == tier)
        coverage, errors, counts = [], [], []
        for t in curve.thresholds.tolist():
            covered = sum(1 for i in reach if i in preds and preds[i].confidence >= t)
            judged = []
            for i in reach:
                if i in preds and preds[i].confidence >= t and d.dev.get(i):
                    votes = [preds[i].label == h.label for h in d.dev[i]]
                    judged.append(2 * sum(votes) <= len(votes))  # wrong unless a majority
            coverage.append(covered / len(d.items))
            errors.append(sum(judged) / len(judged) if judged else None)
            counts.append(len(judged))
        out.append((tier, coverage, errors, counts))
        kept = []
        for i in reach:
            value = rule.get(tier)
            if isinstance(value, dict):
                value = value.get(str(preds[i].label), value.get("*")) if i in preds else None
            if i in preds and value is not None and preds[i].confidence >= float(value):
                continue
            kept.append(i)
        reach = kept
    return out


@pytest.mark.parametrize("seed", range(12))
def test_random_cascades_match_an_item_by_item_count(seed: int) -> None:
    """Array routing and counting against the loop above: missing predictions, several
    dev people per item (ties are errors), per-class and '*' rules, confidences on the
    grid's own steps (ties with a threshold are accepted)."""
    import random

    rng = random.Random(seed)
    items = [f"i{k:03d}" for k in range(rng.randint(20, 120))]
    tiers = ("t1", "t2", "t3")
    predictions = {
        tier: {i: MachineLabel(rng.choice("ab"), round(rng.random(), rng.choice((2, 3))))
               for i in items if rng.random() < 0.9}
        for tier in tiers
    }
    dev = {i: tuple(HumanLabel(f"p{k}", rng.choice("ab"), 0.5)
                    for k in range(rng.randint(1, 4)))
           for i in items if rng.random() < 0.4}
    d = SchemaData(SCHEME, tiers, tuple(items), predictions, dev, {}, 0.5)
    rule: dict[str, object] = {
        "t1": rng.choice([0.9, {"a": 0.8}, {"*": 0.95, "b": 0.7}]),
        "t2": rng.choice([0.6, {"b": 0.5}]),
    }
    got = error_coverage_curves(SPEC, d, rule)
    for curve, (tier, coverage, errors, counts) in zip(got, reference_curves(d, rule),
                                                       strict=True):
        assert curve.tier == tier
        assert curve.coverage.tolist() == pytest.approx(coverage)
        assert curve.n_dev.tolist() == counts
        for value, expected in zip(curve.dev_error.tolist(), errors, strict=True):
            assert math.isnan(value) if expected is None else value == pytest.approx(expected)
