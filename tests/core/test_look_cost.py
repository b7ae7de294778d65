"""What the next look costs, against the formula written out independently."""

from __future__ import annotations

import math
from types import MappingProxyType

import pytest

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.look_cost import certify_message, next_look_cost
from app.core.contracts.status import ContractStatus


def status(kind: ContractKind, looks: int, spent: float, **params: object) -> ContractStatus:
    spec = ContractSpec("c", kind, "s", MappingProxyType(dict(params)))
    return ContractStatus(spec, "met", looks, spent, {})


@pytest.mark.parametrize(("looks", "confidence"), [(0, 0.9), (1, 0.9), (4, 0.95)])
def test_the_next_look_spends_its_share_of_the_budget(looks: int, confidence: float) -> None:
    cost = next_look_cost(status(ContractKind.SELECTIVE_RISK, looks, 0.01, error=0.1,
                                 confidence=confidence))
    k = looks + 1
    assert cost.look == k
    assert cost.level == pytest.approx((1 - confidence) * 6 / (math.pi ** 2 * k * k),
                                       rel=1e-15)
    assert f"look {k}" in cost.sentence() and f"{cost.level:.6f}" in cost.sentence()


def test_first_look_default_confidence_is_61_percent_of_a_tenth() -> None:
    cost = next_look_cost(status(ContractKind.SELECTIVE_RISK, 0, 0.0, error=0.1))
    assert cost.level == pytest.approx(0.0607927, abs=1e-7)
    assert "0.060793" in cost.sentence()


def test_estimates_spend_a_look_as_in_potato() -> None:
    cost = next_look_cost(status(ContractKind.PPI, 0, 0.0, estimand="prevalence"))
    assert cost.look == 1 and cost.level == pytest.approx(0.0607927, abs=1e-7)


def test_budget_first_and_threshold_legacy_spend_nothing() -> None:
    cost = next_look_cost(status(ContractKind.BUDGET_FIRST, 0, 0.0, human_labels=10))
    assert cost.level is None and cost.look is None
    assert "spends no look" in cost.sentence()


def test_message_for_several_contracts_lists_the_spending_ones() -> None:
    costs = [next_look_cost(status(ContractKind.SELECTIVE_RISK, 1, 0.06, error=0.1)),
             next_look_cost(status(ContractKind.THRESHOLD_LEGACY, 0, 0.0, threshold=0.8))]
    text = certify_message(costs)
    assert "look 2" in text and "spend no look" in text
