"""Machine raters apart from people (kinds.md A.4), on a project Potato 2.12.1 wrote.

``tests/data/potato_server/machines/`` was written by the real Potato 2.12.1 server
(``tests/potato_real/machine_projects.py``): three people and three declared machine
annotators (``machine_annotators`` in its config); Potato stamped the machines'
``origin`` on their ``user_state.json`` itself, and ``expected/iaa.json`` is its
``/admin/iaa`` body with its ``partitions`` and ``annotators`` blocks.

Oracles: Potato's own report (partition numbers where Potato computes the same thing),
the ``krippendorff`` package (nominal α where Potato's number is not Accord's: a
``select`` scheme, whose stored constant Potato reads), and Potato's
``annotator_origin.summarize`` run on the user states Potato's ``UserState.load`` reads
(for origins Potato's server cannot be made to write: unreadable ones).
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from potato.annotator_origin import partition, summarize
from potato.user_state_management import UserState

from app.core.agreement.partitions import HUMAN_HUMAN, MACHINE_MACHINE, POOLED
from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.formats.potato.project import load_study
from app.core.model import Study
from app.core.progress import run

DATA = Path(__file__).resolve().parents[1] / "data" / "potato_server"
MACHINES = DATA / "machines"
TOL = 1e-9
# Accord's metric → Potato's, where both measure the same thing (as in
# test_potato_server_answers.py)
SAME = {
    "sentiment": {"alpha": "alpha_nominal", "fleiss_kappa": "fleiss_kappa",
                  "kappa": "pairwise_cohen_kappa", "percent_agreement": "percent_agreement"},
    "aspects": {"alpha": "alpha_masi", "mean_jaccard": "mean_jaccard"},
    "quality": {"alpha": "alpha_ordinal", "kappa": "weighted_kappa_quadratic"},
}


def report_of(study: Study) -> AgreementReport:
    return run(agreement_report(study, project=str(study.root)))


@cache
def machines() -> tuple[Study, AgreementReport, dict[str, Any]]:
    study = load_study(MACHINES)
    potato = json.loads((MACHINES / "expected" / "iaa.json").read_text())
    return study, report_of(study), potato


def potato_states(project: Path) -> dict[str, Any]:
    """Every participant's state as Potato 2.12.1 loads it from disk."""
    return {folder.name: UserState.load(str(folder))
            for folder in sorted((project / "annotation_output").iterdir())}


def test_the_fixture_has_declared_machines_stamped_by_potato() -> None:
    config = (MACHINES / "config.yaml").read_text()
    assert "machine_annotators:" in config and "origin" not in config
    raw = json.loads((MACHINES / "annotation_output/ner_tool/user_state.json").read_text())
    assert raw["origin"]["declared_in"] == "config"  # Potato wrote it, not a test
    people = json.loads((MACHINES / "annotation_output/alice/user_state.json").read_text())
    assert people["origin"] == {}


def test_machine_raters_are_potatos() -> None:
    study, _, _ = machines()
    groups = partition(potato_states(MACHINES))
    assert study.machine_raters == set(groups["machine"])
    assert set(study.annotators) - study.machine_raters == set(groups["human"])


def test_annotators_block_equals_potatos_summarize() -> None:
    _, report, potato = machines()
    out = report.to_json()
    assert out["annotators"] == summarize(potato_states(MACHINES))
    assert out["annotators"] == potato["annotators"]
    assert out["pooling"]["headline"] == "human_human"


@pytest.mark.parametrize("part", [HUMAN_HUMAN, MACHINE_MACHINE, POOLED])
def test_partitions_equal_potatos(part: str) -> None:
    _, report, potato = machines()
    theirs = potato["partitions"][part]["schemas"]
    ours = report.to_json()["partitions"][part]
    checked = 0
    for scheme, pairs in SAME.items():
        assert ours["schemes"][scheme]["n_items"] == theirs[scheme]["metrics"]["n_items"]
        for accord, name in pairs.items():
            expected = theirs[scheme]["metrics"][name]
            assert expected is not None
            assert ours["schemes"][scheme]["metrics"][accord] == pytest.approx(expected, abs=TOL)
            checked += 1
    assert checked == 8
    n = {HUMAN_HUMAN: 3, MACHINE_MACHINE: 3, POOLED: 6}[part]
    assert ours["coverage"]["n_annotators"] == n == len(ours["annotators"])
    assert theirs["sentiment"]["metrics"]["n_annotators"] == n


def test_headline_is_people_only_as_potatos() -> None:
    _, report, potato = machines()
    out = report.to_json()
    assert out["schemes"] == out["partitions"]["human_human"]["schemes"]
    for scheme, pairs in SAME.items():
        for accord, name in pairs.items():
            assert out["schemes"][scheme]["metrics"][accord] == pytest.approx(
                potato["schemas"][scheme]["metrics"][name], abs=TOL)
    for scheme in out["schemes"].values():
        assert all(not ({"llm_judge", "ner_tool", "rule_bot"} & set(k.split("|")))
                   for k in scheme["pairs"])
    # the three numbers differ, so the headline cannot be the pooled one by accident
    alphas = {p: out["partitions"][p]["schemes"]["sentiment"]["metrics"]["alpha"]
              for p in (HUMAN_HUMAN, MACHINE_MACHINE, POOLED)}
    assert len(set(alphas.values())) == 3


def _nominal_alpha(study: Study, scheme: str, raters: list[str]) -> float:
    answers = study.answers[scheme]
    items = sorted(answers)
    values = sorted({v for by in answers.values() for v in by.values()})  # type: ignore[type-var]
    data = np.full((len(raters), len(items)), np.nan)
    for j, item in enumerate(items):
        for i, rater in enumerate(raters):
            if rater in answers[item]:
                data[i, j] = values.index(answers[item][rater])
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))


@pytest.mark.parametrize("part", [HUMAN_HUMAN, MACHINE_MACHINE, POOLED])
def test_select_partitions_equal_krippendorff(part: str) -> None:
    """Potato reads the dropdown's constant ("select-one") and reports 1.0 / null; the
    answer is the value (agreement.md), so the oracle is the krippendorff package."""
    study, report, potato = machines()
    assert potato["partitions"][part]["schemas"]["topic"]["metrics"]["percent_agreement"] == 1
    raters = report.partitions[part].members
    expected = _nominal_alpha(study, "topic", list(raters))
    assert report.partitions[part].schemes["topic"].metrics["alpha"] == pytest.approx(
        expected, abs=TOL)


def _rewrite(project: Path, origins: dict[str, Any]) -> None:
    for user, origin in origins.items():
        path = project / "annotation_output" / user / "user_state.json"
        state = json.loads(path.read_text())
        if origin is KeyError:
            state.pop("origin", None)
        else:
            state["origin"] = origin
        path.write_text(json.dumps(state))


def test_no_origin_anywhere_is_the_report_it_was(tmp_path: Path) -> None:
    project = tmp_path / "machines"
    shutil.copytree(MACHINES, project)
    _rewrite(project, {u: KeyError for u in ("llm_judge", "ner_tool", "rule_bot")})
    _, before, _ = machines()
    report = report_of(load_study(project))
    out = report.to_json()
    assert not ({"annotators", "partitions", "pooling"} & set(out))
    assert report.partitions == {} and report.annotators is None
    pooled = before.partitions[POOLED]
    for name, result in report.schemes.items():
        assert result.metrics == pooled.schemes[name].metrics
        assert result.pairs == pooled.schemes[name].pairs


ODD = {
    "alice": {"kind": "human", "id": "alice"},  # a person, declared
    "bob": "a robot",  # not a mapping: a machine (malformed)
    "carol": {"kind": "  ", "id": "carol-bot", "version": "2"},  # no readable kind
    "llm_judge": None,  # absent
    "ner_tool": [],  # empty: Potato loads `origin or {}`, a person
    "rule_bot": {"kind": 3},  # a kind that is not a string
}


def test_unreadable_origins_read_as_potato_reads_them(tmp_path: Path) -> None:
    project = tmp_path / "machines"
    shutil.copytree(MACHINES, project)
    _rewrite(project, ODD)
    study = load_study(project)
    report = report_of(study)
    expected = summarize(potato_states(project))
    assert report.to_json()["annotators"] == expected
    assert expected["machine"] == ["bob", "carol", "rule_bot"]  # the oracle, not us
    assert set(report.partitions[HUMAN_HUMAN].members) == {"alice", "llm_judge", "ner_tool"}


def test_one_machine_says_why_machine_agreement_is_undefined(tmp_path: Path) -> None:
    project = tmp_path / "machines"
    shutil.copytree(MACHINES, project)
    _rewrite(project, {u: KeyError for u in ("ner_tool", "rule_bot")})
    report = report_of(load_study(project))
    machine = report.partitions[MACHINE_MACHINE].schemes["sentiment"]
    assert machine.metrics["alpha"] is None
    assert "one annotator" in machine.undefined["alpha"] or "two or more" in \
        machine.undefined["alpha"]
    assert report.to_json()["annotators"]["machine"] == ["llm_judge"]


def test_only_machines_say_no_person_answered(tmp_path: Path) -> None:
    project = tmp_path / "machines"
    shutil.copytree(MACHINES, project)
    _rewrite(project, {u: {"kind": "llm", "id": u} for u in ("alice", "bob", "carol")})
    report = report_of(load_study(project))
    headline = report.schemes["sentiment"]
    assert headline.metrics["alpha"] is None
    assert headline.undefined["alpha"] == ("no person answered this scheme; only machine "
                                           "raters did")
    assert report.partitions[POOLED].schemes["sentiment"].metrics["alpha"] is not None
