"""The contract-kind registry: every configured kind has a row, a claim and a method."""

from __future__ import annotations

from app.core.contracts.config.contract_specs import ContractKind
from app.core.contracts.kinds.registry import GATING, KINDS, claim, kind_info


def test_every_configurable_kind_has_a_row_and_no_other() -> None:
    assert set(KINDS) == {str(k) for k in ContractKind}


def test_every_kind_has_a_claim_and_a_potato_method() -> None:
    from app.core.contracts.potato_method.audit import evaluator

    for name in KINDS:
        assert claim(name, "s", {"error": 0.1, "threshold": 0.8, "human_labels": 10})
        assert evaluator(name) is not None, name


def test_the_rows_say_what_contracts_md_says() -> None:
    # Potato's looks: every kind that tests spends one; budget_first and threshold_legacy
    # never do; selective_risk certifies, threshold_legacy gates uncertified.
    assert [k for k, i in KINDS.items() if i.spends_looks] == [
        "selective_risk", "ppi", "no_worse_than_human", "distributional"]
    assert GATING == ("selective_risk", "threshold_legacy")
    assert kind_info("threshold_legacy").certifies is False
    assert kind_info(ContractKind.PPI).certifies is None


def test_claims_are_sentences_and_an_unknown_kind_is_named() -> None:
    assert claim("selective_risk", "sentiment", {"error": 0.05}) == (
        "the error among accepted machine labels on 'sentiment' is at most 5%")
    assert claim("mystery", "s", {}) == "a 'mystery' contract on 's'"
