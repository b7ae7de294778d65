"""``delivered_labels``: the first tier (cheapest first) that predicts an item, in the
order a plain ``setdefault`` walk over the tiers gives (the oracle here), including tiers
that predict nothing and later tiers that predict items the earlier ones do not."""

from __future__ import annotations

import random

import pytest

from app.core.contracts.kinds.base import MachineLabel, SchemaData
from app.core.contracts.labels.machine_labels import delivered_labels, machine_labels
from app.core.model import Kind, Scheme

TIERS = ("a", "b", "c")


def _oracle(data: SchemaData) -> dict[str, tuple[str, MachineLabel]]:
    out: dict[str, tuple[str, MachineLabel]] = {}
    for tier in data.tiers:
        for item, label in data.predictions.get(tier, {}).items():
            out.setdefault(item, (tier, label))
    return out


def _data(seed: int, shares: tuple[float, float, float]) -> SchemaData:
    rng = random.Random(seed)
    predictions: dict[str, dict[str, MachineLabel]] = {}
    for tier, share in zip(TIERS, shares, strict=True):
        items = [f"i{k}" for k in range(60) if rng.random() < share]
        rng.shuffle(items)
        if share:
            predictions[tier] = {i: MachineLabel(rng.choice("xyz"), rng.random())
                                 for i in items}
    scheme = Scheme("s", "radio", Kind.NOMINAL, labels=("x", "y", "z"))
    population = tuple(sorted(f"i{k}" for k in range(60)))
    return SchemaData(scheme=scheme, tiers=TIERS, items=population,
                      predictions=predictions, dev={}, cert={}, dev_fraction=0.5)


@pytest.mark.parametrize("shares", [(1.0, 1.0, 1.0), (0.5, 0.7, 0.9), (0.0, 0.4, 1.0),
                                    (0.0, 0.0, 0.0), (0.3, 0.0, 0.6)])
@pytest.mark.parametrize("seed", range(4))
def test_same_pairs_in_the_same_order(shares: tuple[float, float, float], seed: int) -> None:
    data = _data(seed, shares)
    expected = _oracle(data)
    got = delivered_labels(data)
    assert list(got.items()) == list(expected.items())
    assert list(machine_labels(data).items()) == [(i, m) for i, (_, m) in expected.items()]
