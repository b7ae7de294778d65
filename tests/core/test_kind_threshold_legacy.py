"""The ``threshold_legacy`` contract kind: always met, uncertified, measured dev error."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from app.core.contracts.config.contract_specs import ContractKind, ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.kinds.threshold_legacy import evaluate_threshold_legacy
from app.core.model import Kind, Scheme

SCHEME = Scheme("sentiment", "radio", Kind.NOMINAL, labels=("pos", "neg"))


def spec(threshold: float = 0.8) -> ContractSpec:
    return ContractSpec("old-rule", ContractKind.THRESHOLD_LEGACY, "sentiment",
                        MappingProxyType({"threshold": threshold}))


def schema_data(tiers: Mapping[str, Mapping[str, tuple[str, float]]],
                dev: Mapping[str, Sequence[str]]) -> SchemaData:
    """``tiers``: tier → item → (label, confidence); ``dev``: item → people's labels."""
    items = tuple(sorted({i for t in tiers.values() for i in t} | set(dev)))
    return SchemaData(scheme=SCHEME, tiers=tuple(tiers), items=items,
                      predictions={t: {i: MachineLabel(label, c) for i, (label, c) in p.items()}
                                   for t, p in tiers.items()},
                      dev={i: tuple(HumanLabel(f"p{j}", label, 0.5)
                                    for j, label in enumerate(people))
                           for i, people in dev.items()},
                      cert={}, dev_fraction=0.5)


TIERS = {
    "cheap": {"a": ("pos", 0.9), "b": ("neg", 0.5), "c": ("neg", 0.3), "d": ("pos", 0.99),
              "e": ("neg", 0.8)},
    "big": {"b": ("pos", 0.85), "c": ("pos", 0.7)},
}


def test_measured_error_by_hand() -> None:
    """a: cheap accepts 'pos', people say pos and neg (1 error of 2); b: cheap declines
    (0.5), big accepts 'pos', right; c: nobody reaches 0.8, not counted; e: confidence
    exactly 0.8 is accepted, right. Error 1 / 4."""
    dev = {"a": ["pos", "neg"], "b": ["pos"], "c": ["neg"], "e": ["neg"]}
    out = evaluate_threshold_legacy(spec(), schema_data(TIERS, dev))
    assert out.state == "met" and out.tested is False
    assert out.result["certified"] is False
    assert out.result["threshold"] == 0.8
    assert out.result["measured_error"] == 0.25
    assert (out.result["n_labels"], out.result["errors"], out.result["n_items"]) == (4, 1, 3)
    assert out.result["by_tier"] == {"cheap": {"n_labels": 3, "errors": 1, "n_items": 2},
                                     "big": {"n_labels": 1, "errors": 0, "n_items": 1}}
    assert out.accepts == {"cheap": 0.8, "big": 0.8}
    assert any("uncertified" in note for note in out.notes)


def test_no_accepted_dev_label_leaves_the_error_undefined_with_a_reason() -> None:
    out = evaluate_threshold_legacy(spec(0.95), schema_data(TIERS, {"a": ["pos"]}))
    assert out.state == "met"
    assert out.result["measured_error"] is None
    assert "cannot be measured" in out.result["measured_error_reason"]


def test_met_even_without_dev_labels() -> None:
    out = evaluate_threshold_legacy(spec(), schema_data(TIERS, {}))
    assert out.state == "met" and out.result["measured_error"] is None
    assert out.accepts == {"cheap": 0.8, "big": 0.8}
