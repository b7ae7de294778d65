"""The ``budget_first`` contract kind: hand-worked projections and every state.

The certifiable share is worked out by hand from the closed form of a test with no
errors, ``(1 − e)^n ≤ level``; the interval width from the tested ``ppi_prevalence``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import pytest

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.budget_first import (
    ERROR_GRID,
    MIN_DEV_LABELS,
    evaluate_budget_first,
)
from app.core.contracts.statistics.looks import look_level
from app.core.contracts.statistics.ppi import ppi_prevalence
from app.core.model import Kind, Scheme

SCHEME = Scheme("sentiment", "radio", Kind.NOMINAL, labels=("pos", "neg"))


def spec(**params: Any) -> ContractSpec:
    base: dict[str, Any] = {"human_labels": None, "human_usd": None}
    base.update(params)
    return ContractSpec("plan", ContractKind.BUDGET_FIRST, "sentiment", MappingProxyType(base))


def schema_data(machine: Mapping[str, tuple[str, float]],
                dev: Mapping[str, Sequence[str]]) -> SchemaData:
    """``machine``: item → (label, confidence); ``dev``: item → the people's labels."""
    items = tuple(sorted(set(machine) | set(dev)))
    return SchemaData(scheme=SCHEME, tiers=("m",), items=items,
                      predictions={"m": {i: MachineLabel(label, c)
                                         for i, (label, c) in machine.items()}},
                      dev={i: tuple(HumanLabel(f"p{j}", label, 0.5)
                                    for j, label in enumerate(people))
                           for i, people in dev.items()},
                      cert={}, dev_fraction=0.5)


def study(n_dev: int, n_items: int = 200, confidence: float = 0.95
          ) -> tuple[dict[str, tuple[str, float]], dict[str, list[str]]]:
    """A machine always right, labels alternating pos/neg (so intervals have width)."""
    machine = {f"i{k:03d}": ("pos" if k % 2 else "neg", confidence) for k in range(n_items)}
    dev = {f"i{k:03d}": [machine[f"i{k:03d}"][0]] for k in range(n_dev)}
    return machine, dev


def smallest_n(error: float, level: float) -> int:
    """Cert labels a test with no errors needs: the smallest n with (1 − e)^n ≤ level."""
    return math.ceil(math.log(level) / math.log(1 - error) - 1e-12)


def test_pending_and_insufficient() -> None:
    machine, _ = study(0)
    assert evaluate_budget_first(spec(human_labels=500),
                                 schema_data(machine, {})).state == "pending"
    machine, dev = study(20)
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    assert out.state == "insufficient"
    assert out.result["projection"] == []
    assert out.result["more_dev_labels"] == MIN_DEV_LABELS - 20


def test_a_perfect_machine_is_certifiable_where_the_budget_reaches() -> None:
    """500 labels, half to cert: 250 cert labels over a coverage of 1 at t = 0.95.

    The first look's level is 0.1 · 6/π² ≈ 0.0608; with no errors the test needs
    279 labels at 1% (more than 250: nothing certifiable) and 139 at 2% (all of it).
    """
    machine, dev = study(40)
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    assert out.state == "met" and out.tested is False
    level = look_level(1, 0.9)
    assert smallest_n(0.01, level) == 279 and smallest_n(0.02, level) == 139
    rows = out.result["projection"]
    assert [row["error"] for row in rows] == list(ERROR_GRID)
    assert ERROR_GRID[0] == 0.01 and ERROR_GRID[-1] == 0.2 and len(ERROR_GRID) == 20
    assert rows[0]["share_certifiable"] == 0.0 and rows[0]["threshold"] is None
    for row in rows[1:]:
        assert row["share_certifiable"] == 1.0 and row["threshold"] == 0.95


def test_errors_at_low_confidence_limit_the_share() -> None:
    """Half the corpus at 0.9 (all right on dev), half at 0.5 (half wrong on dev).

    Above 0.5 the dev error is 0 and coverage 0.5: 125 cert labels. Down to 0.5 the dev
    error is 5/40 = 0.125 > e/2 for every e on the grid. 2% needs 139 > 125 labels;
    3% needs 92.
    """
    machine = {f"i{k:03d}": ("pos", 0.9 if k < 100 else 0.5) for k in range(200)}
    dev = {f"i{k:03d}": ["pos"] for k in range(30)}
    dev |= {f"i{k:03d}": ["pos" if k % 2 else "neg"] for k in range(100, 110)}
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    assert out.state == "met"
    level = look_level(1, 0.9)
    assert smallest_n(0.02, level) > 125 >= smallest_n(0.03, level)
    shares = {row["error"]: row["share_certifiable"] for row in out.result["projection"]}
    assert shares[0.01] == shares[0.02] == 0.0
    assert all(shares[e] == 0.5 for e in ERROR_GRID[2:])
    assert out.result["projection"][2]["threshold"] == 0.9


def test_interval_width_scales_as_one_over_root_n() -> None:
    machine, dev = study(40)
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    ys = [dev[i][0] for i in sorted(dev)]
    unlabelled = [machine[i][0] for i in sorted(machine) if i not in dev]
    expected = ppi_prevalence(ys, ys, unlabelled, ["pos", "neg"], 0.9)
    now = max(e.interval[1] - e.interval[0] for e in expected.by_class.values()
              if e.interval is not None)
    assert out.result["interval_width_now"] == pytest.approx(now)
    for row in out.result["projection"]:
        assert row["interval_width"] == pytest.approx(now * math.sqrt(40 / 250))


def test_an_undefined_width_is_none_with_a_reason() -> None:
    machine = {f"i{k:03d}": ("pos", 0.95) for k in range(100)}
    dev = {f"i{k:03d}": ["pos"] for k in range(40)}
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    assert out.state == "met"
    assert all(row["interval_width"] is None for row in out.result["projection"])
    assert "undefined" in out.result["interval_width_reason"]


def test_a_dollar_budget_is_priced_per_label() -> None:
    machine, dev = study(40)
    data = schema_data(machine, dev)
    by_usd = evaluate_budget_first(spec(human_usd=40.0), data, price_usd=0.08)
    by_labels = evaluate_budget_first(spec(human_labels=500), data)
    assert by_usd.result["budget_labels"] == 500
    assert by_usd.result["projection"] == by_labels.result["projection"]
    with pytest.raises(ValueError, match="price_usd"):
        evaluate_budget_first(spec(human_usd=40.0), data)


def test_every_dev_label_counts_once() -> None:
    """Two people on each of 15 items: 30 labels, enough to project."""
    machine, _ = study(0)
    dev = {f"i{k:03d}": [machine[f"i{k:03d}"][0]] * 2 for k in range(15)}
    out = evaluate_budget_first(spec(human_labels=500), schema_data(machine, dev))
    assert out.result["dev_labels"] == 30 and out.state == "met"
