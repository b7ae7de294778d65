"""Scheme reports: undefined values with reasons, step units, invariances, JSON shape."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.agreement.report import agreement_report
from app.core.agreement.result import AgreementReport
from app.core.model import Answer, Kind, Scheme, Study, TraceJudgement
from app.core.progress import run

RADIO = Scheme("q", "radio", Kind.NOMINAL, labels=("a", "b", "c"))
LIKERT = Scheme("q", "likert", Kind.ORDINAL, scale=("1", "2", "3", "4", "5"))
MULTI = Scheme("q", "multiselect", Kind.MULTILABEL)
TRACE = Scheme("q", "process_reward", Kind.TRACE)


def study_of(scheme: Scheme, answers: dict[str, dict[str, Answer]],
             others: list[tuple[Scheme, dict[str, dict[str, Answer]]]] | None = None,
             cap: int | None = None) -> Study:
    all_answers = {scheme.name: answers, **{s.name: a for s, a in (others or [])}}
    items = {i for a in all_answers.values() for i in a}
    annotators = {n for a in all_answers.values() for by in a.values() for n in by}
    schemes = {scheme.name: scheme, **{s.name: s for s, _ in (others or [])}}
    return Study(root=Path(), items={i: None for i in items},  # type: ignore[misc]
                 schemes=schemes, annotators=tuple(sorted(annotators)), answers=all_answers,
                 annotators_per_item=cap)


def report_of(study: Study) -> AgreementReport:
    return run(agreement_report(study, project="test"))


def scheme_json(study: Study, name: str = "q") -> dict[str, Any]:
    text = json.dumps(report_of(study).to_json(), allow_nan=False)
    return json.loads(text)["schemes"][name]  # type: ignore[no-any-return]


def test_one_annotator_is_undefined_never_perfect() -> None:
    data = scheme_json(study_of(RADIO, {"i1": {"ann": "a"}, "i2": {"ann": "b"}}))
    assert data["n_items"] == 0 and data["n_pairs"] == 0 and data["n_items_skipped"] == 2
    for metric in ("alpha", "kappa", "fleiss_kappa", "percent_agreement"):
        assert data["metrics"][metric] is None
        assert "one person" in data["undefined"][metric]


def test_unanimous_data_alpha_undefined_percent_one() -> None:
    data = scheme_json(study_of(RADIO, {f"i{k}": {"x": "a", "y": "a", "z": "a"}
                                        for k in range(5)}))
    assert data["metrics"]["alpha"] is None and "0/0" in data["undefined"]["alpha"]
    assert data["metrics"]["fleiss_kappa"] is None
    assert data["metrics"]["kappa"] is None and "kappa" in data["undefined"]
    assert data["metrics"]["percent_agreement"] == 1.0
    assert data["kappa_pairs"] == {"defined": 0, "left_out": 3}


def test_trace_without_shared_steps() -> None:
    answers: dict[str, dict[str, Answer]] = {"t1": {
        "x": TraceJudgement({"0": "1", "1": "-1"}),
        "y": TraceJudgement({"2": "1", "3": "1"}),
    }}
    data = scheme_json(study_of(TRACE, answers))
    assert data["n_items"] == 1  # both answered the trace...
    assert data["metrics"]["n_units"] == 0  # ...but no step was labelled by both
    assert data["n_pairs"] == 0
    assert data["metrics"]["alpha"] is None and data["undefined"]["alpha"]
    assert data["metrics"]["kappa"] is None and data["undefined"]["kappa"]
    assert data["metrics"]["percent_agreement"] is None
    assert data["pairs"] == {}


def test_trace_steps_are_units() -> None:
    # Two traces, three annotators; step labels differ on a few steps.
    answers: dict[str, dict[str, Answer]] = {
        "t1": {"x": TraceJudgement({"0": "1", "1": "1", "2": "-1"}),
               "y": TraceJudgement({"0": "1", "1": "-1", "2": "-1"}),
               "z": TraceJudgement({"0": "1", "1": None, "2": "-1"})},
        "t2": {"x": TraceJudgement({"0": "-1", "1": "1"}),
               "y": TraceJudgement({"0": "-1", "1": "1"})},
    }
    data = scheme_json(study_of(TRACE, answers))
    # Units: t1/0 (3 labels), t1/1 (2), t1/2 (3), t2/0 (2), t2/1 (2).
    assert data["metrics"]["n_units"] == 5
    assert data["n_pairs"] == 3 + 1 + 3 + 1 + 1
    # Percent agreement pools pairs: only t1/1 disagrees (1 pair of 9).
    assert data["metrics"]["percent_agreement"] == 8 / 9
    # α against the krippendorff package on the same step matrix (coders × units).
    matrix = np.array([[1, 1, -1, -1, 1], [1, -1, -1, -1, 1],
                       [1, np.nan, -1, np.nan, np.nan]], dtype=float)
    oracle = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert math.isclose(data["metrics"]["alpha"], oracle, abs_tol=1e-12)
    assert data["pairs"]["x|y"]["n_units"] == 5


def test_trace_is_shown_beside_a_categorical_alpha() -> None:
    trace = {"t1": {"x": TraceJudgement({"0": "1", "1": "-1"}),
                    "y": TraceJudgement({"0": "1", "1": "1"})}}
    radio = Scheme("overall", "radio", Kind.NOMINAL)
    study = study_of(TRACE, trace, others=[(radio, {
        "t1": {"x": "a", "y": "a", "w": "b"}, "t2": {"x": "b", "y": "a", "w": "b"}})])
    reference = scheme_json(study)["categorical_reference"]
    assert reference["scheme"] == "overall" and reference["n_items"] == 2
    # Only x and y (the trace's annotators): units (a, a) and (b, a).
    oracle = krippendorff.alpha(reliability_data=[[0, 1], [0, 0]],
                                level_of_measurement="nominal")
    assert math.isclose(reference["alpha"], oracle, abs_tol=1e-12)


def test_ordinal_uses_full_scale_for_weighted_kappa() -> None:
    answers: dict[str, dict[str, Answer]] = {
        "i1": {"x": "1", "y": "2"}, "i2": {"x": "2", "y": "2"}, "i3": {"x": "3", "y": "2"},
        "i4": {"x": "2", "y": "3"}}
    data = scheme_json(study_of(LIKERT, answers))
    # Hand computation over the full 1..5 scale (weights (i−j)²/16):
    observed = np.zeros((5, 5))
    for a, b in [(0, 1), (1, 1), (2, 1), (1, 2)]:
        observed[a, b] += 0.25
    w = np.subtract.outer(np.arange(5), np.arange(5)) ** 2 / 16
    expected = np.outer(observed.sum(1), observed.sum(0))
    kappa = 1 - (w * observed).sum() / (w * expected).sum()
    assert math.isclose(data["metrics"]["kappa"], kappa, abs_tol=1e-12)
    oracle = krippendorff.alpha(reliability_data=[[1, 2, 3, 2], [2, 2, 2, 3]],
                                level_of_measurement="ordinal")
    assert math.isclose(data["metrics"]["alpha"], oracle, abs_tol=1e-12)


def test_multilabel_report() -> None:
    answers: dict[str, dict[str, Answer]] = {
        "i1": {"x": frozenset("ab"), "y": frozenset("ab")},
        "i2": {"x": frozenset("a"), "y": frozenset("ab")},
        "i3": {"x": frozenset(), "y": frozenset("c")},
    }
    data = scheme_json(study_of(MULTI, answers))
    assert data["metrics"]["kappa"] is None and "label sets" in data["undefined"]["kappa"]
    assert data["metrics"]["percent_agreement"] == 1 / 3
    assert math.isclose(data["metrics"]["mean_jaccard"], (1 + 0.5 + 0) / 3)
    # α with MASI: distances 0, 2/3, 1 (hand-checked in test_alpha).
    assert data["metrics"]["alpha"] is not None


def test_coverage_counts_cap_and_one_annotator_items() -> None:
    answers: dict[str, dict[str, Answer]] = {
        "i1": {"x": "a", "y": "a", "z": "b"}, "i2": {"x": "a", "y": "b"}, "i3": {"x": "a"}}
    data = scheme_json(study_of(RADIO, answers, cap=3))
    assert data["coverage"] == {"n_items_answered": 3, "n_items_scored": 2,
                                "n_items_one_annotator": 1, "n_items_unanswered": 0,
                                "n_items_below_cap": 1}
    assert data["n_pairs"] == 3 + 1


def test_schemes_without_a_measure_are_listed_with_the_reason() -> None:
    scheme = Scheme("comment", "text", None)
    data = scheme_json(study_of(scheme, {"i1": {"x": "hello", "y": "hi"}}), "comment")
    assert data["kind"] is None
    assert data["not_computed"] == "Accord has no agreement measure for 'text' answers"
    assert "metrics" not in data


labels = st.sampled_from(["a", "b", "c", "d"])


@st.composite
def nominal_studies(draw: st.DrawFn) -> dict[str, dict[str, str]]:
    n_items = draw(st.integers(2, 12))
    names = ["ann1", "ann2", "ann3", "ann4"][: draw(st.integers(2, 4))]
    out: dict[str, dict[str, str]] = {}
    for i in range(n_items):
        by = {n: draw(labels) for n in names if draw(st.booleans()) or n == names[0]}
        out[f"i{i}"] = by
    return out


def _metrics(answers: dict[str, dict[str, Answer]], scheme: Scheme = RADIO) -> dict[str, Any]:
    return scheme_json(study_of(scheme, answers))["metrics"]  # type: ignore[no-any-return]


def _close(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all((a[k] is None and b[k] is None) or
               (a[k] is not None and b[k] is not None and math.isclose(a[k], b[k], abs_tol=1e-12))
               for k in a)


@settings(max_examples=60, deadline=None)
@given(nominal_studies(), st.permutations(["a", "b", "c", "d"]),
       st.permutations(["ann1", "ann2", "ann3", "ann4"]))
def test_nominal_invariant_to_renaming_labels_and_annotators(
        data: dict[str, dict[str, str]], new_labels: list[str], new_names: list[str]) -> None:
    rename = dict(zip(["a", "b", "c", "d"], new_labels, strict=True))
    rename_ann = dict(zip(["ann1", "ann2", "ann3", "ann4"], new_names, strict=True))
    original: dict[str, dict[str, Answer]] = {i: dict(by) for i, by in data.items()}
    renamed: dict[str, dict[str, Answer]] = {
        i: {rename_ann[n]: rename[v] for n, v in by.items()} for i, by in data.items()}
    first, second = _metrics(original), _metrics(renamed)
    assert _close(first, second)
    for value in first.values():
        assert value is None or math.isfinite(value)


@settings(max_examples=40, deadline=None)
@given(nominal_studies(), st.permutations(["ann1", "ann2", "ann3", "ann4"]))
def test_ordinal_and_trace_invariant_to_annotator_order(
        data: dict[str, dict[str, str]], new_names: list[str]) -> None:
    to_scale = {"a": "1", "b": "2", "c": "4", "d": "5"}
    rename_ann = dict(zip(["ann1", "ann2", "ann3", "ann4"], new_names, strict=True))
    ordinal: dict[str, dict[str, Answer]] = {i: {n: to_scale[v] for n, v in by.items()}
                                             for i, by in data.items()}
    ordinal_renamed: dict[str, dict[str, Answer]] = {
        i: {rename_ann[n]: v for n, v in by.items()} for i, by in ordinal.items()}
    assert _close(_metrics(ordinal, LIKERT), _metrics(ordinal_renamed, LIKERT))
    trace: dict[str, dict[str, Answer]] = {
        "t": {n: TraceJudgement({i: by[n] for i, by in data.items() if n in by})
              for n in {n for by in data.values() for n in by}}}
    trace_renamed: dict[str, dict[str, Answer]] = {
        "t": {rename_ann[n]: j for n, j in trace["t"].items()}}
    assert _close(_metrics(trace, TRACE), _metrics(trace_renamed, TRACE))
