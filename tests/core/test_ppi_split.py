"""The ``ppi`` group split: the column path gives exactly what the plain per-item loop
(the oracle) gives: the same groups in the same order, the same lists and counts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.core.contracts.inputs import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.ppi_split import Split, _split_columns, _split_loop, split_groups
from app.core.model import Kind, Scheme

SCHEME = Scheme("s", "radio", Kind.NOMINAL, labels=("x", "y", "z"))


def _data(seed: int, *, odd_dev: bool = False, odd_machine: bool = False,
          n_groups: int = 3) -> tuple[SchemaData, dict[str, MachineLabel]]:
    rng = random.Random(seed)
    items = tuple(sorted(f"i{k:03d}" for k in range(300)))
    machine: dict[str, MachineLabel] = {}
    dev: dict[str, tuple[HumanLabel, ...]] = {}
    fields: dict[str, dict[str, Any]] = {}
    for item in items:
        if rng.random() < 0.85:
            label: Any = rng.choice("xyz")
            if odd_machine and rng.random() < 0.05:
                label = frozenset({"x"})
            machine[item] = MachineLabel(label, rng.random())
        if rng.random() < 0.2:
            y: Any = rng.choice("xyz")
            if odd_dev and rng.random() < 0.2:
                y = frozenset({"y"})
            dev[item] = (HumanLabel("p", y, rng.random()),) if rng.random() < 0.9 else ()
        if rng.random() < 0.9:
            fields[item] = {"g": rng.randrange(n_groups) if rng.random() < 0.9 else None}
    data = SchemaData(scheme=SCHEME, tiers=("t",), items=items, predictions={"t": machine},
                      dev=dev, cert={}, dev_fraction=0.5, item_fields=fields)
    return data, machine


def _same(a: Split, b: Split) -> None:
    assert (a.no_machine, a.no_field, a.bad_shape) == (b.no_machine, b.no_field, b.bad_shape)
    assert list(a.groups) == list(b.groups)
    for key, group in a.groups.items():
        other = b.groups[key]
        assert (group.labelled, group.unlabelled, group.size) == (
            other.labelled, other.unlabelled, other.size)


@pytest.mark.parametrize("by", [None, "g", "absent"])
@pytest.mark.parametrize("seed", range(5))
def test_columns_match_the_loop(seed: int, by: str | None) -> None:
    data, machine = _data(seed, odd_dev=seed % 2 == 1)
    fast = _split_columns(data, data.items, machine, by, str)
    assert fast is not None
    loop = _split_loop(data, data.items, machine, by, str)
    _same(fast, loop)
    assert fast.no_machine > 0 and (by != "g" or fast.no_field > 0)
    if seed % 2 == 1 and by != "absent":  # with no field every item is in no group
        assert fast.bad_shape > 0


def test_an_odd_machine_label_or_many_groups_take_the_loop() -> None:
    data, machine = _data(1, odd_machine=True)
    assert _split_columns(data, data.items, machine, "g", str) is None
    _same(split_groups(data, data.items, machine, "g", str),
          _split_loop(data, data.items, machine, "g", str))
    data, machine = _data(2, n_groups=200)
    assert _split_columns(data, data.items, machine, "g", str) is None
    _same(split_groups(data, data.items, machine, "g", str),
          _split_loop(data, data.items, machine, "g", str))
