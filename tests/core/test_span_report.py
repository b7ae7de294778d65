"""The span kind in the agreement report (JSON and text) on the projects Potato 2.12.1's
server wrote: Potato's metric names (``char_alpha`` for its ``krippendorff_alpha_u``),
values equal to Potato's ``_aggregate_span`` on Potato's own reading of the same files
(headline people only, and each machine partition), ``potato_iaa`` null as Potato's own
report is, and γ's seed, sample count and interval."""

from __future__ import annotations

import functools
import json
import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from potato.server_utils.iaa import dispatcher

from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.report.agreement_text import render
from tests.core.test_span_potato_server import DATA, potato_rows

NAMES = {"token_level_kappa": "token_level_kappa", "span_f1_exact": "span_f1_exact",
         "span_f1_partial": "span_f1_partial", "char_alpha": "krippendorff_alpha_u"}


@pytest.fixture(autouse=True)
def _potato_warnings() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Starting with pandas version")
        yield


@functools.cache
def _report(name: str) -> Any:
    """One report per project for the whole module (reading only; γ takes a while)."""
    return run(agreement_report(load_study(DATA / name), project=name))


def _equal_to_potato(entry: dict[str, Any], name: str, scheme: str,
                     users: set[str] | None = None) -> None:
    rows, find_item = potato_rows(name, scheme, users)
    potato = dispatcher._aggregate_span(rows, find_item)
    assert entry["n_items"] == potato["n_items"]
    assert entry["n_annotators"] == potato["n_annotators"]
    for ours, theirs in NAMES.items():
        value = potato[theirs]
        if math.isnan(value):
            assert entry["metrics"][ours] is None and entry["undefined"][ours]
        else:
            assert entry["metrics"][ours] == pytest.approx(value, abs=1e-9), ours


@pytest.mark.parametrize("scheme", ["entities", "errors", "answer"])
def test_report_numbers_are_potatos_on_the_same_spans(scheme: str) -> None:
    data = _report("spans").to_json()["schemes"][scheme]
    assert data["kind"] == "spans"
    assert list(data["metrics"]) == ["token_level_kappa", "span_f1_exact", "span_f1_partial",
                                     "char_alpha", "gamma_mathet"]
    _equal_to_potato(data, "spans", scheme)
    iaa = json.loads((DATA / "spans" / "expected" / "iaa.json").read_text())
    potato_own = iaa["schemas"][scheme]["metrics"]
    assert data["potato_iaa"]["n_items"] == potato_own["n_items"] == 0
    for name in ("token_level_kappa", "span_f1_exact", "span_f1_partial",
                 "krippendorff_alpha_u", "gamma_mathet"):
        assert data["potato_iaa"][name] is None and potato_own[name] is None
    assert -1.0 <= data["metrics"]["gamma_mathet"] <= 1.0
    assert data["gamma"]["seed"] == 1234 and data["gamma"]["n_samples"] == 30
    low, high = data["gamma"]["chance_interval_95"]
    assert low <= high
    assert any("not Krippendorff's unitizing" in note for note in data["notes"])


def test_machine_raters_headline_is_people_and_partitions_are_potatos() -> None:
    data = _report("span_machines").to_json()
    people, machines = {"alice", "bob", "carol"}, {"ner_tool", "llm_ner"}
    _equal_to_potato(data["schemes"]["entities"], "span_machines", "entities", people)
    parts = data["partitions"]
    for part, users in (("human_human", people), ("machine_machine", machines),
                        ("pooled", people | machines)):
        _equal_to_potato(parts[part]["schemes"]["entities"], "span_machines", "entities",
                         users)
    assert (parts["machine_machine"]["schemes"]["entities"]["metrics"]["span_f1_partial"]
            > data["schemes"]["entities"]["metrics"]["span_f1_partial"])


def test_text_report_names_the_span_metrics() -> None:
    text = render(_report("spans"))
    block = text[text.index("entities  (span → spans)"):text.index("has_entities")]
    assert "token κ (character BIO)     0.528   chance-corrected" in block
    assert "span F1, partial            0.595   not chance-corrected" in block
    assert "Mathet γ" in block and "char α (nominal)" in block
    assert "alice|bob                span F1 partial  0.5" in block


def test_tree_annotation_is_named_with_its_reason(tmp_path: Path) -> None:
    import shutil

    import yaml

    shutil.copytree(DATA / "spans", tmp_path / "p")
    config_file = tmp_path / "p" / "config.yaml"
    config = yaml.safe_load(config_file.read_text())
    config["annotation_schemes"].append({"annotation_type": "tree_annotation",
                                         "name": "tree", "description": "a tree"})
    config_file.write_text(yaml.safe_dump(config))
    data = run(agreement_report(load_study(tmp_path / "p"), project="p")).to_json()
    assert data["schemes"]["tree"]["not_computed"].startswith(
        "tree_annotation stores per-node answers and a chosen path, not character offsets")


def test_annotator_pairs_are_potatos_pair_f1_over_their_shared_items() -> None:
    from potato.server_utils.iaa import span as potato

    data = _report("spans").to_json()["schemes"]["entities"]
    rows, _ = potato_rows("spans", "entities")
    assert set(data["pairs"]) == {"alice|bob", "alice|carol", "bob|carol"}
    for pair, entry in data["pairs"].items():
        a, b = pair.split("|")
        shared = [by for iid, by in rows.items() if a in by and b in by
                  and iid in set(_report_items())]
        exact = [potato.span_f1_exact(by[a], by[b])[2] for by in shared]
        partial = [potato.span_f1_partial(by[a], by[b])[2] for by in shared]
        assert entry["n_items"] == len(shared)
        assert entry["span_f1_exact"] == pytest.approx(sum(exact) / len(exact), abs=1e-12)
        assert entry["span_f1_partial"] == pytest.approx(sum(partial) / len(partial),
                                                         abs=1e-12)


def _report_items() -> list[str]:
    read = _report("spans").schemes["entities"].details.table
    return list(read.item_ids)


def test_item_scores_are_each_items_partial_f1_and_sort_by_disagreement() -> None:
    from potato.server_utils.iaa import span as potato

    from app.core.agreement.item_scores import item_scores

    result = _report("spans").schemes["entities"]
    rows, _ = potato_rows("spans", "entities")
    scores = item_scores(result)
    assert scores is not None and len(scores) == result.n_items
    for item, score in zip(scores.items, scores.score, strict=True):
        assert score == pytest.approx(potato.pairwise_span_f1(rows[item], partial=True),
                                      abs=1e-12)
    worst = result.details.metrics.items_by_disagreement()
    assert scores.items[int(scores.score.argmin())] == worst[0]
    alone = item_scores(result, "carol")
    assert alone is not None and all(n == 2 for n in alone.n_pairs)


def test_compare_puts_the_span_numbers_side_by_side() -> None:
    from app.core.agreement.compare import compare

    a, b = _report("spans"), _report("span_machines")
    entry = compare(a, b).to_json()["schemes"]["entities"]
    assert entry["kind"] == "spans"
    for side, report in (("a", a), ("b", b)):
        metrics = report.schemes["entities"].metrics
        assert entry[side]["gamma_mathet"] == metrics["gamma_mathet"]
        assert entry[side]["span_f1_partial"] == metrics["span_f1_partial"]
        assert entry[side]["n_pairs"] == report.schemes["entities"].n_pairs == 33


def test_a_linking_scheme_without_spans_of_its_own_says_where_they_are(tmp_path: Path
                                                                        ) -> None:
    import shutil

    import yaml

    shutil.copytree(DATA / "spans", tmp_path / "p")
    config_file = tmp_path / "p" / "config.yaml"
    config = yaml.safe_load(config_file.read_text())
    config["annotation_schemes"].append({"annotation_type": "coreference", "name": "coref",
                                         "description": "chains", "span_schema": "entities"})
    config_file.write_text(yaml.safe_dump(config))
    data = run(agreement_report(load_study(tmp_path / "p"), project="p")).to_json()
    assert data["schemes"]["coref"]["not_computed"] == (
        "coreference stores events or links between spans, not spans of its own (their "
        "mentions are the spans of 'entities', scored there); no span carries the name "
        "'coref'")
    assert data["schemes"]["entities"]["metrics"]["gamma_mathet"] is not None


def test_an_unreadable_label_value_is_listed_and_its_annotator_left_out(tmp_path: Path
                                                                         ) -> None:
    import shutil

    shutil.copytree(DATA / "spans", tmp_path / "p")
    state_file = tmp_path / "p" / "annotation_output" / "bob" / "user_state.json"
    state = json.loads(state_file.read_text())
    for pair in state["instance_id_to_label_to_value"]["n00"]:
        if pair[0]["schema"] == "answer":
            pair[1] = '{"answer_text":"Alice","start":"first","end":5,"unanswerable":false}'
    state_file.write_text(json.dumps(state))
    study = load_study(tmp_path / "p")
    assert set(study.answers["answer"]["n00"]) == {"alice", "carol"}
    data = run(agreement_report(study, project="p")).to_json()["schemes"]["answer"]
    assert data["n_answers_rejected"] == 1
    assert "annotator 'bob', item 'n00': the answer's offsets are not integers" in \
        data["rejected"][0]
