"""The engine configuration: the spec's example, its two homes, and every bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from app.core.contracts.config.engine_config import (
    Budgets,
    ContractKind,
    EngineConfig,
    Humans,
    Source,
    Tier,
    load_engine_config,
    loss_family,
)
from app.core.errors import InputError
from app.core.formats.potato.project import load_study
from app.core.model import Kind, Scheme
from tests.potato_project import label, write_project

SCHEMES: list[dict[str, Any]] = [
    {"annotation_type": "radio", "name": "sentiment", "labels": ["pos", "neg", "neu"]},
    {"annotation_type": "radio", "name": "verdict", "labels": ["yes", "no"]},
    {"annotation_type": "likert", "name": "offensiveness", "size": 5},
    {"annotation_type": "text", "name": "comment"},
    {"annotation_type": "image_annotation", "name": "boxes"},
]

# The example of contracts.md, as written there (line numbers matter below).
EXAMPLE = """\
cascade:                       # tiers, cheapest first; each names a source of predictions
  - {name: distilbert, source: decision_model}
  - {name: gemma-12b, source: logprob}      # sources: decision_model, logprob, k_sample, verbalized
humans:
  dev_fraction: 0.5            # share of calibration requests that go to dev
  overlap: 0.2                 # share of the sample labelled by several people
  overlap_k: 3                 # people per overlap item (at least 3 for no_worse_than_human)
  distribution_k: 5            # people per item for distributional
budgets:
  human_labels: 500
  crowd_reward_usd: 0.08       # prices human_usd
contracts:
  - {id: accuracy, kind: selective_risk, schema: sentiment, error: 0.05, confidence: 0.9,
     per_class: true, tolerance: 0.5}
  - {id: prevalence, kind: ppi, schema: sentiment, estimand: prevalence, by: language,
     confidence: 0.95, max_width: 0.05}
  - {id: replaces-a-person, kind: no_worse_than_human, schema: verdict, epsilon: 0.1}
  - {id: plan, kind: budget_first, schema: sentiment, human_labels: 500}   # or human_usd
  - {id: disagreement, kind: distributional, schema: offensiveness, max_distance: 0.15,
     groups_by: age_band}
  - {id: old-rule, kind: threshold_legacy, schema: sentiment, threshold: 0.8}
"""

HEAD = """\
cascade:
  - {name: small, source: logprob}
contracts:
"""
"""A minimal configuration; contracts appended from line 4 on."""


def _project(root: Path, engine: str | None = None, block: object = None) -> Path:
    items = [{"id": f"i{k}", "text": f"text {k}", "language": "en"} for k in range(3)]
    extra = {"labeling_engine": block} if block is not None else None
    write_project(root, schemes=SCHEMES, items=items,
                  annotators={"ann": {"i0": [label("sentiment", "pos")]}}, extra_config=extra)
    if engine is not None:
        (root / "labeling").mkdir(exist_ok=True)
        (root / "labeling" / "engine.yaml").write_text(engine)
    return root


def _error(root: Path, engine: str) -> InputError:
    _project(root, engine)
    with pytest.raises(InputError) as caught:
        load_engine_config(root)
    return caught.value


def test_the_spec_example_parses(tmp_path: Path) -> None:
    root = _project(tmp_path, EXAMPLE)
    config = load_engine_config(root, load_study(root))
    assert isinstance(config, EngineConfig)
    assert config.source == root / "labeling" / "engine.yaml"
    assert config.cascade == (Tier("distilbert", Source.DECISION_MODEL),
                              Tier("gemma-12b", Source.LOGPROB))
    assert config.tier_names == ("distilbert", "gemma-12b")
    assert config.humans == Humans(0.5, 0.2, 3, 5)
    assert config.budgets == Budgets(500, 0.08)
    assert [c.id for c in config.contracts] == ["accuracy", "prevalence", "replaces-a-person",
                                                "plan", "disagreement", "old-rule"]
    assert [c.kind for c in config.contracts] == list(ContractKind)
    accuracy, prevalence, person, plan, disagreement, old = config.contracts
    assert dict(accuracy.params) == {"error": 0.05, "confidence": 0.9, "per_class": True,
                                     "tolerance": 0.5}
    assert accuracy.line == 13 and accuracy.schema == "sentiment"
    assert dict(prevalence.params) == {"estimand": "prevalence", "by": "language",
                                       "confidence": 0.95, "max_width": 0.05}
    assert dict(person.params) == {"epsilon": 0.1, "confidence": 0.9}  # the default level
    assert dict(plan.params) == {"human_labels": 500, "human_usd": None}
    assert dict(disagreement.params) == {"max_distance": 0.15, "groups_by": "age_band",
                                         "confidence": 0.9}
    assert dict(old.params) == {"threshold": 0.8}
    assert config.contract("plan") is plan
    assert config.contracts_for("verdict") == (person,)


def test_defaults_and_no_engine(tmp_path: Path) -> None:
    assert load_engine_config(_project(tmp_path / "none")) is None
    root = _project(tmp_path / "min", HEAD + "  - {id: a, kind: selective_risk, schema: "
                    "boxes, error: 0.1}\n  - {id: b, kind: ppi, schema: offensiveness}\n")
    config = load_engine_config(root)
    assert config is not None
    assert config.humans == Humans() and config.budgets == Budgets(None, None)
    assert dict(config.contracts[0].params) == {"error": 0.1, "confidence": 0.9,
                                                "per_class": False, "tolerance": 0.5}
    assert config.contracts[1].params["estimand"] == "prevalence"


def test_the_labeling_engine_block_in_config_yaml(tmp_path: Path) -> None:
    block = yaml.safe_load(EXAMPLE)
    root = _project(tmp_path, block=block)
    config = load_engine_config(root)
    assert config is not None and config.source == root / "config.yaml"
    assert len(config.contracts) == 6 and config.budgets.crowd_reward_usd == 0.08
    # An error inside the block names config.yaml and the line there.
    block["contracts"][0]["error"] = 2
    _project(tmp_path, block=block)
    text = (root / "config.yaml").read_text().splitlines()
    error_line = next(i for i, t in enumerate(text, 1) if "error: 2" in t)
    with pytest.raises(InputError) as caught:
        load_engine_config(root)
    assert caught.value.file == str(root / "config.yaml")
    assert caught.value.line == error_line
    assert caught.value.key == "labeling_engine.contracts[0].error"
    assert "(0, 1)" in str(caught.value)


def test_both_homes_present_is_an_error_naming_both(tmp_path: Path) -> None:
    root = _project(tmp_path, EXAMPLE, block=yaml.safe_load(EXAMPLE))
    with pytest.raises(InputError) as caught:
        load_engine_config(root)
    message = str(caught.value)
    assert str(root / "labeling" / "engine.yaml") in message
    assert str(root / "config.yaml") in message and "labeling_engine" in message


def test_unknown_contract_kind_names_its_line(tmp_path: Path) -> None:
    error = _error(tmp_path, HEAD + "  - id: a\n    schema: sentiment\n    kind: magic\n")
    assert error.line == 6 and error.key == "contracts[0].kind"
    assert str(error).startswith(f"{tmp_path / 'labeling' / 'engine.yaml'}:6")
    assert "unknown contract kind 'magic'" in str(error) and "selective_risk" in str(error)


def test_missing_error_names_the_contract_line(tmp_path: Path) -> None:
    error = _error(tmp_path, HEAD + "  - {id: ok, kind: threshold_legacy, schema: sentiment, "
                   "threshold: 0.8}\n  - {id: acc, kind: selective_risk, schema: sentiment}\n")
    assert error.line == 5 and "missing key 'error'" in str(error)


def test_schema_without_loss_family(tmp_path: Path) -> None:
    error = _error(tmp_path, HEAD + "  - id: notes\n    kind: selective_risk\n"
                   "    schema: comment\n    error: 0.1\n")
    assert error.line == 6 and error.key == "contracts[0].schema"
    assert "no loss family" in str(error) and "comment" in str(error)


@pytest.mark.parametrize(("contract", "key", "words"), [
    ("{id: a, kind: selective_risk, schema: nope, error: 0.1}", "schema", "not a scheme"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: 0.1, colour: red}", "colour",
     "unknown key 'colour'"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: 1.5}", "error", "(0, 1)"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: 0.1, confidence: 1}",
     "confidence", "(0, 1)"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: .nan}", "error", "error rate"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: true}", "error", "error rate"),
    ("{id: a, kind: selective_risk, schema: offensiveness, error: 0.1, tolerance: 1}",
     "tolerance", "[0, 1)"),
    ("{id: a, kind: selective_risk, schema: boxes, error: 0.1, per_class: true}",
     "per_class", "one predicted class"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: 0.1, per_class: 1}",
     "per_class", "true or false"),
    ("{id: a, kind: threshold_legacy, schema: sentiment, threshold: 1.2}", "threshold",
     "[0, 1]"),
    ("{id: a, kind: no_worse_than_human, schema: verdict, epsilon: -0.1}", "epsilon", "[0, 1)"),
    ("{id: a, kind: ppi, schema: sentiment, estimand: median}", "estimand", "prevalence"),
    ("{id: a, kind: ppi, schema: sentiment, estimand: mean}", "estimand", "numeric"),
    ("{id: a, kind: ppi, schema: boxes}", "schema", "regions"),
    ("{id: a, kind: ppi, schema: sentiment, max_width: 0}", "max_width", "width"),
    ("{id: a, kind: distributional, schema: sentiment, max_distance: 2}", "max_distance",
     "[0, 1]"),
    ("{id: a, kind: budget_first, schema: sentiment, human_labels: 10, human_usd: 5}",
     "human_usd", "not both"),
    ("{id: a, kind: budget_first, schema: sentiment, human_labels: 2.5}", "human_labels",
     "number of labels"),
    ("{id: a, kind: budget_first, schema: sentiment, human_usd: 40}", "human_usd",
     "crowd_reward_usd"),
    ("{id: a, kind: selective_risk, schema: sentiment, error: 0.1, renamed_from: a}",
     "renamed_from", "own id"),
    ("{id: '', kind: selective_risk, schema: sentiment, error: 0.1}", "id", "non-empty"),
])
def test_each_bad_contract_names_its_key_and_line(tmp_path: Path, contract: str, key: str,
                                                  words: str) -> None:
    error = _error(tmp_path, HEAD + f"  - {contract}\n")
    assert error.line == 4, str(error)
    assert error.key == f"contracts[0].{key}"
    assert words in str(error)
    assert str(error).startswith(f"{tmp_path / 'labeling' / 'engine.yaml'}:4: ")


def test_budget_first_needs_a_budget(tmp_path: Path) -> None:
    error = _error(tmp_path, HEAD + "  - {id: a, kind: budget_first, schema: sentiment}\n")
    assert error.line == 4 and "human_labels' or 'human_usd'" in str(error)


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    error = _error(tmp_path, HEAD + "  - {id: a, kind: threshold_legacy, schema: sentiment, "
                   "threshold: 0.8}\n  - {id: b, kind: ppi, schema: sentiment}\n"
                   "  - {id: a, kind: ppi, schema: verdict}\n")
    assert error.line == 6 and "used twice (first at line 4)" in str(error)


def test_renamed_contracts(tmp_path: Path) -> None:
    root = _project(tmp_path, HEAD + "  - {id: new, kind: threshold_legacy, schema: sentiment, "
                    "threshold: 0.8, renamed_from: old}\n")
    config = load_engine_config(root)
    assert config is not None and config.contracts[0].history_id == "old"
    error = _error(tmp_path, HEAD + "  - {id: a, kind: ppi, schema: verdict}\n"
                   "  - {id: b, kind: ppi, schema: sentiment, renamed_from: a}\n")
    assert error.line == 5 and "still the id" in str(error)


@pytest.mark.parametrize(("engine", "line", "words"), [
    ("cascade: []\ncontracts: []\n", 1, "at least one tier"),
    (HEAD, 3, "'contracts' is empty"),
    (HEAD + "  []\n", 3, "at least one contract"),
    ("cascade:\n  - {name: a, source: oracle}\ncontracts: []\n", 2, "decision_model"),
    ("cascade:\n  - {name: a, source: logprob}\n  - {name: a, source: k_sample}\n"
     "contracts: []\n", 3, "appears twice (first at line 2)"),
    ("cascade:\n  - {name: a, source: logprob, model: x}\ncontracts: []\n", 2, "unknown key"),
    # A text in the cascade is a Potato source id (contracts.md, Agreeing with Potato).
    ("cascade:\n  - logprob\ncontracts: []\n", 2, "unknown source 'logprob'"),
    ("cascade:\n  - {name: a, source: logprob}\nbudget: {}\ncontracts: []\n", 3,
     "unknown key 'budget'"),
    ("cascade:\n  - {name: a, source: logprob}\nhumans:\n  dev_fraction: 1\ncontracts: []\n",
     4, "(0, 1)"),
    ("cascade:\n  - {name: a, source: logprob}\nhumans:\n  overlap_k: 2.5\ncontracts: []\n",
     4, "whole number"),
    ("cascade:\n  - {name: a, source: logprob}\nbudgets:\n  human_labels: -1\ncontracts: []\n",
     4, "at least 0"),
    ("cascade:\n  - {name: a, source: logprob}\ncascade: []\ncontracts: []\n", 3,
     "written twice (first at line 1)"),
    ("cascade: [\n", 2, "malformed YAML"),
    ("", None, "expected a mapping"),
])
def test_bad_top_level_settings(tmp_path: Path, engine: str, line: int | None,
                                words: str) -> None:
    error = _error(tmp_path, engine)
    assert error.line == line, str(error)
    assert words in str(error)


def test_humans_settings_a_contract_needs(tmp_path: Path) -> None:
    engine = ("cascade:\n  - {name: a, source: logprob}\nhumans:\n  overlap_k: 2\n"
              "contracts:\n  - {id: p, kind: no_worse_than_human, schema: verdict, "
              "epsilon: 0.1}\n")
    error = _error(tmp_path, engine)
    assert error.line == 4 and "at least 3" in str(error) and "'p' (line 6)" in str(error)
    # Potato accepts a distribution_k below 3; the contract can then never decide, which
    # is said with the contract instead of refusing the configuration.
    _project(tmp_path, HEAD.replace("contracts:", "humans: {distribution_k: 2}\ncontracts:")
             + "  - {id: d, kind: distributional, schema: sentiment}\n")
    config = load_engine_config(tmp_path)
    assert config is not None
    assert [(c, "distribution_k is 2" in w) for c, w in config.warnings] == [("d", True)]


def test_ppi_by_must_be_an_item_field(tmp_path: Path) -> None:
    root = _project(tmp_path, HEAD + "  - {id: p, kind: ppi, schema: sentiment, by: country}\n")
    assert load_engine_config(root) is not None  # no study: the items are not read
    with pytest.raises(InputError) as caught:
        load_engine_config(root, load_study(root))
    assert caught.value.line == 4 and "no item has a field 'country'" in str(caught.value)


def test_loss_families() -> None:
    cases = [
        (Scheme("a", "radio", Kind.NOMINAL), "categorical"),
        (Scheme("a", "select", Kind.NOMINAL), "categorical"),
        (Scheme("a", "multiselect", Kind.NOMINAL), "categorical"),  # one choice only
        (Scheme("a", "likert", Kind.ORDINAL), "ordinal"),
        (Scheme("a", "slider", Kind.ORDINAL), "numeric"),
        (Scheme("a", "multiselect", Kind.MULTILABEL), "multilabel"),
        (Scheme("a", "span", None), "spans"),
        (Scheme("a", "image_annotation", Kind.REGIONS), "regions"),
        (Scheme("a", "audio_annotation", Kind.SEGMENTS), "segments"),
        (Scheme("a", "tiered_annotation", Kind.TIERS), "segments"),
        (Scheme("a", "temporal_grounding", Kind.SEGMENTS), "segments"),
        (Scheme("a", "spatial_annotation", Kind.CUBOIDS), "objects3d"),
        (Scheme("a", "failure_attribution", Kind.TRACE), "traces"),
        (Scheme("a", "text", None), None),
        (Scheme("a", "pairwise", None), None),
    ]
    for scheme, family in cases:
        assert loss_family(scheme) == family, scheme.annotation_type


def test_config_is_frozen(tmp_path: Path) -> None:
    config = load_engine_config(_project(tmp_path, EXAMPLE))
    assert config is not None
    with pytest.raises(AttributeError):
        config.humans.overlap = 0.5  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.contracts[0].params["error"] = 0.5  # type: ignore[index]

