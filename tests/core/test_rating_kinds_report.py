"""The rating kinds wired into Accord's report: the projects Potato 2.12.1's server wrote
(``tests/data/potato_server/ratings/``) opened with Accord's own Potato reader, and
every continuous, ranking and matrix scheme's report entry equal to Potato's
``/admin/iaa`` (headline and machine partitions) to 1e-9, in the JSON and the text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.core.agreement.report import agreement_report
from app.core.errors import InputError
from app.core.formats.potato.project import load_study
from app.core.progress import run
from app.report.agreement_export import render_json
from app.report.agreement_text import render
from tests.core import rating_support as rs

WIRED = {"continuous", "ranking", "matrix"}


def _report(project: str) -> Any:
    return run(agreement_report(load_study(rs.ROOT / project), project=project))


def _potato_view(entry: dict[str, Any]) -> dict[str, Any]:
    """Accord's entry in Potato's shape: the metrics, counts, and a matrix's rows."""
    out = dict(entry["metrics"])
    out.update({k: v for k, v in entry.items() if k.startswith("n_") and k != "n_pairs"})
    if entry["kind"] == "matrix":
        out["n_items"] = entry["n_units"]  # Potato counts the pooled (item, row) units
        out = {"pooled": out, **entry["rows"], "scale": entry["scale"]}
    return out


def _compare(ours: dict[str, Any], theirs: dict[str, Any]) -> int:
    compared = 0
    for name, entry in ours.items():
        if entry["kind"] not in WIRED:
            continue
        metrics = dict(theirs[name]["metrics"])
        if entry["kind"] == "matrix":  # the scheme-level counts are Accord's coverage
            metrics = {k: v for k, v in metrics.items() if k not in ("n_items", "n_rows",
                                                                       "n_annotators")}
        worst, problems = rs.differences(_potato_view(entry), metrics, name)
        assert not problems, problems
        assert worst <= 1e-9
        compared += 1
    return compared


def test_the_numbers_project_reports_every_wired_scheme_as_potato_does() -> None:
    report = _report("numbers")
    ours = report.to_json()["schemes"]
    kinds = {name: entry["kind"] for name, entry in ours.items()}
    assert kinds["count"] == kinds["pain"] == kinds["sure"] == kinds["prefer"] == "continuous"
    assert kinds["priorities"] == "ranking"
    assert {kinds[n] for n in ("triage", "budget", "stance", "tone", "age")} == {"matrix"}
    assert _compare(ours, rs.expected("numbers")["schemas"]) == 10
    assert ours["pain"]["n_pairs"] == 12 and ours["triage"]["n_pairs"] == 36  # 2 vs 3 each
    rows = ours["triage"]["rows"]
    assert (f"α per row (ordinal): Urgency {rows['Urgency']['alpha_ordinal']:.3f}, "
            f"Impact {rows['Impact']['alpha_ordinal']:.3f}, Effort "
            f"{rows['Effort']['alpha_ordinal']:.3f}") in ours["triage"]["notes"]


def test_the_rotating_panels_icc_is_null_with_its_sentence_in_json_and_text() -> None:
    report = _report("numbers")
    pain = report.to_json()["schemes"]["pain"]
    assert pain["metrics"]["icc_2_k"] is None
    sentence = ("no item was rated by all 3 annotators; ICC(2,k) needs the complete items × "
                "raters table")
    assert pain["undefined"]["icc_2_k"] == sentence
    assert '"icc_2_k": null' in render_json(report)
    assert f"icc_2_k undefined: {sentence}" in render(report)


def test_bws_from_potatos_own_tuples() -> None:
    """bws items are the tuples Potato generated (``bws_config``), not data/items.jsonl:
    Accord draws them again (issue 37; it said "nobody answered" before), so the scheme
    is scored as Potato scores it (tests/core/test_bws_tuples.py holds the tuples)."""
    ours = _report("bws").to_json()["schemes"]
    assert ours["funniest"]["kind"] == "matrix" and not ours["funniest"]["undefined"]
    assert _compare(ours, rs.expected("bws")["schemas"]) == 1


@pytest.mark.parametrize("partition", ["human_human", "machine_machine", "pooled"])
def test_machine_partitions_equal_potatos(partition: str) -> None:
    out = _report("machines").to_json()
    theirs = rs.expected("machines")
    assert out["schemes"] == out["partitions"]["human_human"]["schemes"]
    assert _compare(out["partitions"][partition]["schemes"],
                    theirs["partitions"][partition]["schemas"]) == 2  # ranking, multirate


def test_a_number_that_is_not_a_number_names_its_place(tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "numbers"
    shutil.copytree(rs.ROOT / "numbers", project)
    state = project / "annotation_output" / "bob" / "user_state.json"
    text = state.read_text()
    state.write_text(text.replace('"name": "number"\n        },\n        "',
                                  '"name": "number"\n        },\n        "x', 1))
    with pytest.raises(InputError) as caught:
        load_study(project)
    assert "scheme 'count'" in str(caught.value) and "is not a number" in str(caught.value)
    assert "bob" in str(caught.value)


@pytest.mark.parametrize(("annotation_type", "config", "kind"), [
    ("confidence", {"scale_type": "slider"}, "continuous"),
    ("confidence", {}, "ordinal"),  # likert mode: ordinal, as Potato
    ("confidence", {"scale_type": "likert"}, "ordinal"),
    ("pairwise", {"mode": "scale"}, "continuous"),
    ("pairwise", {"mode": "binary"}, "nominal"),  # one choice: A, B or tie
    ("pairwise", {}, "nominal"),
    ("pairwise", {"mode": " Multi_Dimension "}, "matrix"),  # Potato strips, lowers
    ("number", {}, "continuous"), ("vas", {}, "continuous"), ("ranking", {}, "ranking"),
    ("bws", {}, "matrix"), ("range_slider", {}, "matrix"),
    ("slider", {}, "ordinal"),  # the slider keeps its ordinal report
])
def test_which_schemes_the_rating_kinds_read(annotation_type: str, config: dict[str, Any],
                                             kind: str | None) -> None:
    from app.core.agreement.kinds.registry import kind_for

    found = kind_for(annotation_type, config)
    assert (None if found is None else str(found)) == kind


@pytest.mark.parametrize("project", ["numbers", "machines"])
def test_slider_and_likert_keep_their_ordinal_report_and_carry_potatos_block(
        project: str) -> None:
    """kinds.md A.3: the slider keeps its ordinal α; Potato's interval block (slider) and
    its ordinal extras (likert) are beside it under potato_iaa, equal to /admin/iaa."""
    out = _report(project).to_json()["schemes"]
    theirs = rs.expected(project)["schemas"]
    for name, entry in out.items():
        if entry["annotation_type"] not in ("slider", "likert"):
            continue
        assert entry["kind"] == "ordinal"
        assert set(entry["metrics"]) == {"alpha", "kappa", "percent_agreement"}
        worst, problems = rs.differences(entry["potato_iaa"], theirs[name]["metrics"], name)
        assert not problems and worst <= 1e-9, problems
    assert "alpha_interval" in out["relevance"]["potato_iaa"]
    assert out["relevance"]["potato_iaa"]["alpha_interval"] != out["relevance"]["metrics"][
        "alpha"]  # interval and ordinal α differ on the same answers


def test_packed_sets_are_multilabel_and_equal_potatos_masi_and_jaccard() -> None:
    out = _report("numbers").to_json()["schemes"]
    theirs = rs.expected("numbers")["schemas"]
    for name in ("taxon", "features"):  # hierarchical_multiselect, card_sort
        entry = out[name]
        assert entry["kind"] == "multilabel"
        potato = theirs[name]["metrics"]
        assert entry["metrics"]["alpha"] == pytest.approx(potato["alpha_masi"], abs=1e-9)
        assert entry["metrics"]["mean_jaccard"] == pytest.approx(potato["mean_jaccard"],
                                                                 abs=1e-9)
        assert entry["n_items"] == potato["n_items"]
    study = load_study(rs.ROOT / "numbers")
    sort = study.answers_for("features")["n00"]["alice"]
    assert isinstance(sort, frozenset) and all("\u241f" in p for p in sort)
    assert len(sort) == 5  # five cards, each placed once


def test_compare_shows_numbers_and_rankings_on_their_headlines() -> None:
    from app.core.agreement.compare import compare
    from app.report.agreement_text import render_comparison

    a, b = _report("numbers"), _report("machines")
    schemes = compare(a, b).schemes
    assert schemes["priorities"]["a"]["kendall_tau"] == a.schemes["priorities"].metrics[
        "kendall_tau"]
    assert schemes["priorities"]["b"]["spearman_footrule"] == b.schemes[
        "priorities"].metrics["spearman_footrule"]
    assert set(schemes["triage"]["a"]) == {"alpha", "n_pairs", "intervals"}
    same = compare(a, a).schemes["count"]["a"]
    assert same["alpha_interval"] == a.schemes["count"].metrics["alpha_interval"]
    assert same["icc_2_k"] == a.schemes["count"].metrics["icc_2_k"]
    assert compare(a, a).schemes["pain"]["a"]["icc_2_k"] is None  # the rotating panel
    assert "priorities  (ranking)" in render_comparison(compare(a, b))
