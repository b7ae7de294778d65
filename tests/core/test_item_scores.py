"""Per-item scores against a brute force written here from the answers themselves.

The categorical and trace oracle never touches ``CodedUnits``: it reads each
annotator's answer from ``study.answers`` and counts agreeing pairs with
``itertools.combinations``. The set-kind oracle groups the pair outcomes in plain
Python (the pair scores themselves are tested in ``test_sets.py``).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from app.core.agreement.categorical.units import CodedUnits
from app.core.agreement.item_scores import ItemScores, all_item_scores, item_scores
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import PairOutcome, SetAgreement
from app.core.model import TraceJudgement
from app.core.progress import run
from app.core.project import ProjectData, open_project

DEMOS = Path(__file__).resolve().parents[2] / "resources" / "demo"
EMPTY = np.zeros(0)


@pytest.fixture(scope="module")
def triage() -> ProjectData:
    return run(open_project(DEMOS / "support_triage"))


@pytest.fixture(scope="module")
def lidar() -> ProjectData:
    return run(open_project(DEMOS / "lidar_sweeps"))


def _brute_categorical(project: ProjectData, scheme: str, annotator: str | None = None
                       ) -> dict[str, tuple[float, int, frozenset[str]]]:
    """item → (share of agreeing pairs, pairs, annotators with a label), by hand."""
    out: dict[str, tuple[float, int, frozenset[str]]] = {}
    for item, by in project.study.answers_for(scheme).items():
        units: dict[str, dict[str, object]] = defaultdict(dict)
        for name, answer in by.items():
            if isinstance(answer, TraceJudgement):
                for step, label in answer.labels.items():
                    if label is not None:
                        units[step][name] = label
            else:
                units[""][name] = answer
        agree = total = 0
        for labels in units.values():
            for (x, vx), (y, vy) in combinations(sorted(labels.items()), 2):
                if annotator is not None and annotator not in (x, y):
                    continue
                total += 1
                agree += vx == vy
        who = frozenset(n for labels in units.values() for n in labels)
        if total and (annotator is None or annotator in who):
            out[item] = (agree / total, total, who)
    return out


def _as_dict(s: ItemScores | None) -> dict[str, tuple[float, int, frozenset[str]]]:
    assert s is not None
    return {item: (float(s.score[i]), int(s.n_pairs[i]), frozenset(s.answered_by(i)))
            for i, item in enumerate(s.items)}


@pytest.mark.parametrize("scheme", ["resolution", "helpfulness", "step_reward",
                                    "step_correctness"])
@pytest.mark.parametrize("annotator", [None, "bruno", "dilnoza"])
def test_categorical_and_trace_match_brute_force(triage: ProjectData, scheme: str,
                                                  annotator: str | None) -> None:
    mine = _as_dict(item_scores(triage.report.schemes[scheme], annotator))
    oracle = _brute_categorical(triage, scheme, annotator)
    assert set(mine) == set(oracle)
    assert len(mine) > 5
    for item, (score, pairs, who) in oracle.items():
        assert mine[item][0] == pytest.approx(score, abs=1e-12)
        assert mine[item][1] == pairs
        assert mine[item][2] == who


def test_categorical_has_no_count_difference(triage: ProjectData) -> None:
    scores = item_scores(triage.report.schemes["resolution"])
    assert scores is not None
    assert np.isnan(scores.count_diff).all()
    assert not scores.has_counts
    assert list(scores.items) == sorted(scores.items)


def _brute_sets(outcomes: list[PairOutcome], annotator: str | None = None
                ) -> dict[str, tuple[float, float, int]]:
    by_item: dict[str, list[PairOutcome]] = defaultdict(list)
    for o in outcomes:
        if annotator is None or annotator in (o.a, o.b):
            by_item[o.item].append(o)
    return {item: (sum(o.score for o in group) / len(group),
                   sum(abs(o.n_a - o.n_b) for o in group) / len(group), len(group))
            for item, group in by_item.items()}


@pytest.mark.parametrize("annotator", [None, "lena"])
def test_sets_match_brute_force(lidar: ProjectData, annotator: str | None) -> None:
    result = lidar.report.schemes["objects"]
    assert isinstance(result.details, SetAgreement)
    scores = item_scores(result, annotator)
    assert scores is not None and scores.has_counts
    oracle = _brute_sets(result.details.outcomes, annotator)
    assert list(scores.items) == sorted(oracle)
    for i, item in enumerate(scores.items):
        score, diff, pairs = oracle[item]
        assert scores.score[i] == pytest.approx(score, abs=1e-12)
        assert scores.count_diff[i] == pytest.approx(diff, abs=1e-12)
        assert scores.n_pairs[i] == pairs
        assert set(scores.answered_by(i)) == set(result.details.objects[item])


def _outcome(item: str, a: str, b: str, n_a: int, n_b: int, score: float) -> PairOutcome:
    return PairOutcome(item=item, a=a, b=b, n_a=n_a, n_b=n_b, score=score, f1=score,
                       rows=EMPTY, cols=EMPTY, matched_iou=EMPTY, label_match=EMPTY)


def test_sets_by_hand() -> None:
    """Two items worked out on paper, one of them answered by x and y only."""
    sets = SetAgreement(
        outcomes=[_outcome("i2", "x", "y", 2, 0, 0.0), _outcome("i1", "x", "y", 1, 1, 0.8),
                  _outcome("i1", "x", "z", 1, 3, 0.2), _outcome("i1", "y", "z", 1, 3, 0.5)],
        objects={"i1": {"x": (), "y": (), "z": ()}, "i2": {"x": (), "y": ()}})
    result = SchemeResult("s", "spatial_annotation", "cuboids", details=sets)
    scores = item_scores(result)
    assert scores is not None
    assert scores.items == ("i1", "i2")
    assert scores.score.tolist() == pytest.approx([0.5, 0.0])
    assert scores.count_diff.tolist() == pytest.approx([4 / 3, 2.0])
    only_z = item_scores(result, "z")
    assert only_z is not None
    assert only_z.items == ("i1",)
    assert only_z.score.tolist() == pytest.approx([0.35])
    assert only_z.count_diff.tolist() == pytest.approx([2.0])
    assert item_scores(result, "nobody") is not None
    assert len(item_scores(result, "nobody") or ()) == 0


def test_units_by_hand_unsorted_items() -> None:
    """Units not grouped in item order still land on the right items."""
    codes = np.array([[0, 0, 1], [1, 1, -1], [0, -1, -1], [2, 2, 2]])
    units = CodedUnits(codes, ("p", "q", "r"), ("a", "b", "c"), ("t2", "t1", "t1", "t2"),
                       ("0", "0", "1", "1"))
    scores = item_scores(SchemeResult("s", "process_reward", "trace", details=units))
    assert scores is not None
    assert scores.items == ("t1", "t2")
    # t1: one unit with two agreeing labels (the other unit has one label): 1/1.
    # t2: unit 0: pq agree, pr and qr not; unit 3: all three agree: 4/6.
    assert scores.score.tolist() == pytest.approx([1.0, 4 / 6])
    assert scores.n_pairs.tolist() == [1, 6]
    assert scores.answered_by(0) == ("p", "q")
    by_r = item_scores(SchemeResult("s", "process_reward", "trace", details=units), "r")
    assert by_r is not None
    assert by_r.items == ("t2",)
    assert by_r.score.tolist() == pytest.approx([2 / 4])


def test_masks_and_unmeasured_have_no_item_scores(triage: ProjectData) -> None:
    assert item_scores(SchemeResult("m", "image_annotation", "masks", details=object())) \
        is None
    assert set(all_item_scores(triage.report)) == set(triage.report.schemes)
