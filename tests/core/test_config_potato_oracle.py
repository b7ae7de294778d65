"""Potato 2.12.1's own configuration parser as the oracle for Accord's.

``contracts.md`` ("Agreeing with Potato 2.12.1", point 3): the ``labeling_engine:`` block
takes exactly Potato's keys with Potato's validation. Each block below is given to
Potato's ``parse_engine_config`` and to Accord's reader: both accept it or both refuse
it, and where both accept, the machines, contracts and settings read the same.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from app.core.contracts.config.engine_config import load_engine_config
from app.core.errors import InputError
from tests.potato_project import label, write_project

schema = pytest.importorskip("potato.labeling_engine.config.schema")

SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]},
    {"annotation_type": "likert", "name": "stars", "size": 5},
]

BLOCK: dict[str, Any] = {
    "enabled": True,
    "sources": [
        {"id": "rules", "kind": "static", "predictions_file": "predictions.jsonl"},
        {"id": "gemma", "kind": "llm", "endpoint_type": "ollama", "model": "gemma3:12b",
         "temperature": 0.0, "confidence": {"method": "verbalized"}},
    ],
    "cascade": ["rules", "gemma"],
    "humans": {"pools": ["team"], "dev_fraction": 0.5, "calibration_rate": "auto",
               "min_calibration_per_class": 10, "audit_rate": 0.02, "overlap": 0.2,
               "overlap_k": 3, "verify_visibility": "shown", "distribution_k": 5,
               "truth": "majority"},
    "budgets": {"model_usd": 20, "human_usd": 100, "human_labels": 400},
    "runtime": {"batch_size": 16, "concurrency": 2, "retries": 1, "cache": True,
                "planner_interval": 30, "hold_minutes": 60},
    "features": {"drift": True, "distill": False},
    "crowd": {"provider": "prolific", "reward_usd": 0.1},
    "contracts": [
        {"kind": "selective_risk", "schema": "sentiment", "error": 0.1, "tolerance": 0.0},
        {"id": "prev", "kind": "ppi", "schema": "sentiment", "by": "language",
         "max_width": 0.2, "tier": "gemma", "confidence": 0.95},
        {"id": "nwth", "kind": "no_worse_than_human", "schema": "sentiment",
         "metric": "accuracy", "min_items_per_annotator": 20},
        {"id": "plan", "kind": "budget_first", "schema": "sentiment", "human_usd": 50,
         "reward_per_label_usd": 0.1, "error": 0.05},
        {"id": "dist", "kind": "distributional", "schema": "stars", "max_distance": 0.3},
        {"id": "old", "kind": "threshold_legacy", "schema": "stars", "threshold": 0.7,
         "per_class": False},
    ],
}


def _variant(path: str, value: Any) -> dict[str, Any]:
    """BLOCK with the value at a dotted path replaced (``None`` deletes it)."""
    block = copy.deepcopy(BLOCK)
    *parents, last = path.split(".")
    node: Any = block
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    key: Any = int(last) if last.isdigit() else last
    if value is None:
        del node[key]
    else:
        node[key] = value
    return block


VARIANTS: dict[str, dict[str, Any]] = {
    "the whole block": BLOCK,
    "cascade as mappings": _variant("cascade", [{"source": "rules"}, {"source": "gemma"}]),
    "no cascade: the first source": _variant("cascade", None),
    "cascade names an unknown source": _variant("cascade", ["rules", "gpt"]),
    "unknown top key": _variant("colour", "blue"),
    "unknown source key": _variant("sources.0.colour", "blue"),
    "unknown source kind": _variant("sources.0.kind", "oracle"),
    "duplicate source ids": _variant("sources.1.id", "rules"),
    "static without field or file": _variant("sources.0.predictions_file", None),
    "unknown humans key": _variant("humans.speed", 3),
    "dev_fraction 1": _variant("humans.dev_fraction", 1),
    "truth dawid_skene": _variant("humans.truth", "dawid_skene"),
    "truth unknown": _variant("humans.truth", "vote"),
    "pools unknown": _variant("humans.pools", ["friends"]),
    "pools as a text": _variant("humans.pools", "crowd"),
    "calibration_rate a share": _variant("humans.calibration_rate", 0.1),
    "calibration_rate zero": _variant("humans.calibration_rate", 0),
    "overlap 0 with no_worse_than_human": _variant("humans.overlap", 0),
    "overlap_k 2 with no_worse_than_human": _variant("humans.overlap_k", 2),
    "distribution_k 2": _variant("humans.distribution_k", 2),
    "audit_rate 1.5": _variant("humans.audit_rate", 1.5),
    "visibility blind": _variant("humans.verify_visibility", "blind"),
    "visibility unknown": _variant("humans.verify_visibility", "hidden"),
    "unknown budget": _variant("budgets.gpu_hours", 3),
    "negative budget": _variant("budgets.model_usd", -1),
    "unknown runtime key": _variant("runtime.threads", 3),
    "unknown crowd key": _variant("crowd.colour", "red"),
    "contract kind unknown": _variant("contracts.0.kind", "vibes"),
    "contract unknown key": _variant("contracts.0.colour", "red"),
    "selective_risk without error": _variant("contracts.0.error", None),
    "error 1": _variant("contracts.0.error", 1),
    "confidence 1": _variant("contracts.1.confidence", 1),
    "estimand unknown": _variant("contracts.1.estimand", "median"),
    "epsilon 2": _variant("contracts.2.epsilon", 2),
    "contract on an unknown scheme": _variant("contracts.4.schema", "nothing"),
    "threshold_legacy without threshold": _variant("contracts.5.threshold", None),
    "budget_first without a budget": _variant("contracts.3.human_usd", None),
    "duplicate contract ids": _variant("contracts.1.id", "nwth"),
}


def _potato_accepts(block: dict[str, Any]) -> bool:
    try:
        schema.parse_engine_config({"labeling_engine": block, "annotation_schemes": SCHEMES})
    except schema.EngineConfigError:
        return False
    return True


def _accord(tmp_path: Path, block: dict[str, Any]) -> Any:
    items = [{"id": f"i{k}", "text": f"text {k}", "language": "en"} for k in range(3)]
    write_project(tmp_path, schemes=SCHEMES, items=items,
                  annotators={"ann": {"i0": [label("sentiment", "pos")]}},
                  extra_config={"labeling_engine": block})
    return load_engine_config(tmp_path)


@pytest.mark.parametrize("name", VARIANTS)
def test_accord_accepts_what_potato_accepts(tmp_path: Path, name: str) -> None:
    block = VARIANTS[name]
    potato = _potato_accepts(block)
    try:
        _accord(tmp_path, block)
        accord, message = True, ""
    except InputError as error:
        accord, message = False, str(error)
    assert accord == potato, f"{name}: Potato {'accepts' if potato else 'refuses'}, " \
                             f"Accord {'accepts' if accord else 'refuses'} {message}"
    if not accord:
        assert re.search(r"config\.yaml:\d+: ", message), message


def test_what_both_read_is_the_same(tmp_path: Path) -> None:
    potato = schema.parse_engine_config({"labeling_engine": BLOCK,
                                         "annotation_schemes": SCHEMES})
    config = _accord(tmp_path, BLOCK)
    assert config is not None and config.enabled is potato.enabled is True
    assert config.tier_names == tuple(potato.cascade)
    assert [(s.id, s.kind) for s in config.sources] == [(s.id, s.kind) for s in potato.sources]
    assert [(c.id, str(c.kind), c.schema, c.params.get("confidence", 0.9))
            for c in config.contracts] == [(c.id, c.kind, c.schema, c.confidence)
                                           for c in potato.contracts]
    h = potato.humans
    assert (config.humans.dev_fraction, config.humans.overlap, config.humans.overlap_k,
            config.humans.distribution_k, list(config.humans.pools), config.humans.truth,
            config.humans.audit_rate, config.humans.min_calibration_per_class) == (
        h.dev_fraction, h.overlap, h.overlap_k, h.distribution_k, h.pools, h.truth,
        h.audit_rate, h.min_calibration_per_class)
    nwth = config.contract("nwth")
    assert nwth is not None and nwth.params["epsilon"] == potato.contracts[2].epsilon == 0.1


def test_a_block_without_enabled_is_off_as_in_potato(tmp_path: Path) -> None:
    block = _variant("enabled", None)
    assert schema.parse_engine_config({"labeling_engine": block,
                                       "annotation_schemes": SCHEMES}).enabled is False
    config = _accord(tmp_path, block)
    assert config is not None and config.enabled is False


def test_defaults_match_potato() -> None:
    from app.core.contracts.config.settings import Humans

    h, ours = schema.HumansConfig(), Humans()
    assert (ours.dev_fraction, ours.overlap, ours.overlap_k, ours.distribution_k,
            list(ours.pools), ours.calibration_rate, ours.min_calibration_per_class,
            ours.audit_rate, ours.verify_visibility, ours.truth) == (
        h.dev_fraction, h.overlap, h.overlap_k, h.distribution_k, h.pools,
        h.calibration_rate, h.min_calibration_per_class, h.audit_rate,
        h.verify_visibility, h.truth)


def test_label_status_on_a_disabled_block_says_so(tmp_path: Path) -> None:
    from app.core.contracts.label_report import label_report

    _accord(tmp_path, _variant("enabled", False))
    with pytest.raises(InputError, match="not enabled") as caught:
        label_report(tmp_path)
    assert caught.value.key == "labeling_engine.enabled"


def test_a_source_with_schemas_is_a_tier_of_those_schemas_only(tmp_path: Path) -> None:
    block = _variant("sources.1.schemas", ["stars"])
    config = _accord(tmp_path, block)
    assert config is not None
    assert config.tiers_for("sentiment") == ("rules",)
    assert config.tiers_for("stars") == ("rules", "gemma")
