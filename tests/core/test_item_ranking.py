"""The order presentation mode steps through: scores worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.agreement.categorical.units import CodedUnits
from app.core.agreement.item_ranking import item_scores, rank_items, scheme_item_scores
from app.core.agreement.masks.report import MaskAgreement, MaskRun
from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.agreement.sets.agreement import PairOutcome, SetAgreement
from app.core.progress import run
from app.core.project import open_project
from app.paths import demo_studies

EMPTY = np.zeros(0)


def _outcome(item: str, a: str, b: str, score: float) -> PairOutcome:
    return PairOutcome(item=item, a=a, b=b, n_a=1, n_b=1, score=score, f1=score,
                       rows=EMPTY, cols=EMPTY, matched_iou=EMPTY, label_match=EMPTY)


def _sets(outcomes: list[PairOutcome]) -> SetAgreement:
    """A SetAgreement as the report builds it: the objects compared, by item and annotator."""
    objects: dict[str, dict[str, tuple[()]]] = {}
    for o in outcomes:
        objects.setdefault(o.item, {}).update({o.a: (), o.b: ()})
    return SetAgreement(outcomes=outcomes, objects=objects)  # type: ignore[arg-type]


def _scheme(name: str, details: object) -> SchemeResult:
    return SchemeResult(name=name, annotation_type="x", kind="x", details=details)


def _report(*schemes: SchemeResult) -> AgreementReport:
    return AgreementReport(project="p", n_items=0, n_annotators=0,
                           schemes={s.name: s for s in schemes})


def test_set_scores_are_the_mean_pair_score_per_item() -> None:
    sets = _sets([_outcome("i1", "a", "b", 0.2), _outcome("i1", "a", "c", 0.6),
                                  _outcome("i2", "a", "b", 0.9)])
    assert scheme_item_scores(_scheme("s", sets)) == pytest.approx({"i1": 0.4, "i2": 0.9})


def test_coded_scores_are_the_share_of_agreeing_pairs() -> None:
    # i1: one unit x, x, y -> pairs (xx agree, xy, xy) = 1/3.
    # i2: two steps: (x, x) agree 1/1, (x, -, y) 0/1 -> 1/2 over the item.
    # i3: one value only -> no pairs, no score.
    codes = np.array([[0, 0, 1], [0, 0, -1], [0, -1, 1], [1, -1, -1]])
    units = CodedUnits(codes=codes, annotators=("a", "b", "c"), values=("x", "y"),
                       unit_items=("i1", "i2", "i2", "i3"), unit_keys=("", "0", "1", ""))
    assert scheme_item_scores(_scheme("s", units)) == pytest.approx({"i1": 1 / 3, "i2": 0.5})


def test_mask_scores_are_mean_balanced_accuracy() -> None:
    run_ = MaskRun(item="m", label="car", annotators=("a", "b"),
                   sensitivity=np.array([1.0, 0.5]), specificity=np.array([1.0, 0.9]),
                   consensus=np.zeros((2, 2)))
    # (1 + 1) / 2 = 1 and (0.5 + 0.9) / 2 = 0.7 -> mean 0.85
    got = scheme_item_scores(_scheme("s", MaskAgreement(runs=[run_])))
    assert got == pytest.approx({"m": 0.85})


def test_rank_is_lowest_first_worst_scheme_and_ties_by_id() -> None:
    one = _scheme("one", _sets([_outcome("b", "x", "y", 0.5),
                                                _outcome("a", "x", "y", 0.5),
                                                _outcome("c", "x", "y", 0.9)]))
    two = _scheme("two", _sets([_outcome("c", "x", "y", 0.1)]))
    report = _report(one, two)
    assert item_scores(report) == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.1})
    assert rank_items(report) == ["c", "a", "b"]
    assert rank_items(report, "one") == ["a", "b", "c"]
    assert rank_items(report, "missing") == []


def test_scheme_without_details_has_no_scores() -> None:
    assert scheme_item_scores(_scheme("s", None)) == {}


def test_demo_order_starts_with_a_split_item() -> None:
    data = run(open_project(demo_studies()["support_triage"]))
    order = rank_items(data.report)
    scores = item_scores(data.report)
    assert order and all(0.0 <= scores[i] <= 1.0 for i in order)
    assert [scores[i] for i in order] == sorted(scores[i] for i in order)
    assert scores[order[0]] < 1.0
