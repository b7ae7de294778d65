"""The contract-kind registry: every configured kind has a module behind one interface."""

from __future__ import annotations

import importlib
import inspect

from app.core.contracts.config.contract_specs import ContractKind
from app.core.contracts.kinds.registry import GATING, KINDS, claim, kind_info


def test_every_configurable_kind_has_a_row_and_no_other() -> None:
    assert set(KINDS) == {str(k) for k in ContractKind}


def test_every_kind_module_has_evaluate_and_claim_of_one_shape() -> None:
    for info in KINDS.values():
        module = importlib.import_module(f"app.core.contracts.kinds.{info.module}")
        assert list(inspect.signature(module.evaluate).parameters) == [
            "spec", "data", "context"], info.name
        assert list(inspect.signature(module.claim).parameters) == [
            "schema", "params"], info.name


def test_the_rows_say_what_contracts_md_says() -> None:
    # Only selective_risk spends looks and certifies; threshold_legacy gates uncertified.
    assert [k for k, i in KINDS.items() if i.spends_looks] == ["selective_risk"]
    assert GATING == ("selective_risk", "threshold_legacy")
    assert kind_info("threshold_legacy").certifies is False
    assert kind_info(ContractKind.PPI).certifies is None
    assert {k for k, i in KINDS.items() if i.reads_delivered} == {
        "ppi", "distributional", "no_worse_than_human"}


def test_claims_are_sentences_and_an_unknown_kind_is_named() -> None:
    assert claim("selective_risk", "sentiment", {"error": 0.05}) == (
        "the error among accepted machine labels on 'sentiment' is at most 5%")
    assert claim("mystery", "s", {}) == "a 'mystery' contract on 's'"
