"""The widgets whose ``mode`` decides Potato 2.12.1's measure (issue 37): ``confidence``
in likert mode (ordinal), ``pairwise`` binary (nominal) and ``pairwise``
``multi_dimension`` (a matrix of nominal rows), on ``tests/data/potato_server/ratings/modes``
(written by Potato's server through ``tests/potato_real/rating_projects.py``). Oracle: the
``/admin/iaa`` that server saved, to 1e-9; the answers against its raw user states."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.report import agreement_report
from app.core.formats.potato.project import load_study
from app.core.progress import run
from tests.core import rating_support as rs

PROJECT = rs.ROOT / "modes"


def _schemes(project: Path = PROJECT) -> dict[str, Any]:
    report = run(agreement_report(load_study(project), project="modes"))
    return report.to_json()["schemes"]  # type: ignore[no-any-return]


def _potato(name: str) -> dict[str, Any]:
    return rs.expected("modes")["schemas"][name]  # type: ignore[no-any-return]


def _stored(name: str, label: str) -> dict[tuple[str, str], Any]:
    """(annotator, item) → the value Potato stored under ``name:::label``."""
    out = {}
    for user, state in rs.states("modes").items():
        for item, pairs in state["instance_id_to_label_to_value"].items():
            for key, value in pairs:
                if key["schema"] == name and key["name"] == label:
                    out[(user, item)] = value
    return out


def test_confidence_in_likert_mode_is_ordinal_and_its_block_is_potatos() -> None:
    entry = _schemes()["certainty"]
    potato = _potato("certainty")
    assert entry["kind"] == potato["kind"] == "ordinal"
    worst, problems = rs.differences(entry["potato_iaa"], potato["metrics"], "certainty")
    assert not problems, problems
    assert worst <= 1e-9
    assert entry["metrics"]["alpha"] == pytest.approx(potato["metrics"]["alpha_ordinal"],
                                                      abs=1e-9)
    study = load_study(PROJECT)
    assert study.schemes["certainty"].scale == ("1", "2", "3", "4", "5")
    levels = {(u, i): v for i, by in study.answers_for("certainty").items()
              for u, v in by.items()}
    assert levels == _stored_levels()


def _stored_levels() -> dict[tuple[str, str], str]:
    out = {}
    for user, state in rs.states("modes").items():
        for item, pairs in state["instance_id_to_label_to_value"].items():
            for key, value in pairs:
                if key["schema"] == "certainty":
                    assert key["name"] == value  # the radio's label_name is the level
                    out[(user, item)] = value
    return out


def test_pairwise_binary_is_nominal_with_potatos_numbers_and_the_stored_choice() -> None:
    entry = _schemes()["better"]
    potato = _potato("better")["metrics"]
    assert entry["kind"] == _potato("better")["kind"] == "nominal"
    mine = {"alpha_nominal": entry["metrics"]["alpha"],
            "fleiss_kappa": entry["metrics"]["fleiss_kappa"],
            "cohen_kappa": entry["metrics"]["kappa"],
            "pairwise_cohen_kappa": entry["metrics"]["kappa"],
            "percent_agreement": entry["metrics"]["percent_agreement"],
            "n_items": entry["n_items"], "n_aligned_items": entry["n_items"],
            "n_annotators": 3}
    worst, problems = rs.differences(mine, potato, "better")
    assert not problems, problems
    assert worst <= 1e-9
    study = load_study(PROJECT)
    chosen = {(u, i): v for i, by in study.answers_for("better").items() for u, v in by.items()}
    stored = _stored("better", "selection")
    assert chosen == stored and "tie" in set(stored.values())  # the value, never "selection"


def test_pairwise_multi_dimension_is_a_matrix_of_nominal_rows_as_potato() -> None:
    entry = _schemes()["aspects"]
    potato = _potato("aspects")["metrics"]
    assert entry["kind"] == _potato("aspects")["kind"] == "matrix"
    pooled = {**entry["metrics"], "n_items": entry["n_units"],
              "n_aligned_items": entry["n_aligned_items"], "n_annotators": entry["n_annotators"]}
    mine = {**entry["rows"], "pooled": pooled, "n_items": entry["n_items"],
            "n_annotators": entry["n_annotators"], "n_rows": len(entry["rows"]),
            "scale": entry["scale"]}
    worst, problems = rs.differences(mine, potato, "aspects")
    assert not problems, problems
    assert worst <= 1e-9
    assert potato["accuracy"]["n_aligned_items"] == 12  # carol left two accuracies empty


def test_a_justification_beside_a_binary_choice_is_not_a_choice(tmp_path: Path) -> None:
    """Potato reads only ``selection``; the widget's ``justification`` input is text."""
    project = tmp_path / "modes"
    shutil.copytree(PROJECT, project)
    path = project / "annotation_output" / "bob" / "user_state.json"
    state = json.loads(path.read_text())
    state["instance_id_to_label_to_value"]["m00"].append(
        [{"schema": "better", "name": "justification"}, "clearer wording"])
    path.write_text(json.dumps(state))
    study = load_study(project)
    assert study.answers_for("better")["m00"]["bob"] == _stored("better", "selection")[
        ("bob", "m00")]
    assert not study.single_choice_repairs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_labelled_confidence_scale_ranks_its_stored_levels_as_potato(seed: int) -> None:
    """With ``labels``, Potato's order maps the label texts, which its radios never store
    (they store "1".."N"): the levels fall through to their numbers, in Accord too."""
    import random

    from potato.server_utils.iaa.dispatcher import _aggregate_ordinal, _scale_ordering

    from app.core.agreement.continuous.ordinal import ordinal_block, scale_order, to_number

    scheme = {"annotation_type": "confidence", "name": "c", "scale_points": 3,
              "labels": ["Unsure", "Fairly", "Sure"]}
    rng = random.Random(seed)
    rows = {f"i{k}": {u: [str(rng.randint(1, 3))] for u in "abc"} for k in range(15)}
    theirs = _aggregate_ordinal(rows, _scale_ordering(scheme))
    order = scale_order(scheme)
    numbers = {i: {u: to_number(v[0], order) for u, v in by.items()} for i, by in rows.items()}
    mine = ordinal_block(numbers).to_json()  # type: ignore[arg-type]
    worst, problems = rs.differences(mine, theirs, "c")
    assert not problems, problems
    assert worst <= 1e-9


def test_a_binary_pairwise_with_labels_still_scores_its_stored_choices(tmp_path: Path
                                                                       ) -> None:
    """``labels`` name the two items shown (A and B), not the stored choices: the
    numbers stay Potato's."""
    import yaml

    project = tmp_path / "modes"
    shutil.copytree(PROJECT, project)
    config = yaml.safe_load((project / "config.yaml").read_text())
    config["annotation_schemes"][1]["labels"] = ["Left reply", "Right reply"]
    (project / "config.yaml").write_text(yaml.safe_dump(config))
    assert _schemes(project)["better"]["metrics"] == _schemes()["better"]["metrics"]
