"""Matching and set agreement: the rules of agreement.md, worked by hand."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.agreement.sets.agreement import (
    SetAgreement,
    bootstrap_intervals,
    per_pair,
    score_pair,
    set_agreement,
    summarize,
)
from app.core.agreement.sets.matching import match
from app.core.geometry.intervals import segment_iou_matrix
from app.core.model import Answer
from app.core.objects import ObjectSet, SceneObject, Segment
from app.core.progress import run


def test_threshold_before_assignment() -> None:
    # Unconstrained Hungarian would take (0,0)=0.3 and (1,1)=0.9 (sum 1.2) over
    # (0,1)=0.95 and (1,0)=0.2; with threshold 0.5 first only (0,1)=0.95 and (1,1)=0.9
    # stay, and one-to-one allows one of them: the larger total is 0.95.
    s = np.array([[0.3, 0.95], [0.2, 0.9]])
    rows, cols = match(s, 0.5)
    assert list(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 1)]


def test_matching_maximizes_total_iou_not_greedy() -> None:
    # Greedy takes 0.9 first and is left with 0.55; the optimum is 0.8 + 0.8 = 1.6.
    s = np.array([[0.9, 0.8], [0.8, 0.55]])
    rows, cols = match(s, 0.5)
    assert sorted(zip(rows.tolist(), cols.tolist(), strict=True)) == [(0, 1), (1, 0)]


def _brute_force_best(s: np.ndarray, threshold: float) -> float:
    """Best total over every one-to-one matching of pairs at or above the threshold."""
    n, m = s.shape
    best = 0.0
    for k in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                if all(s[r, c] >= threshold for r, c in zip(rows, cols, strict=True)):
                    best = max(best, sum(s[r, c] for r, c in zip(rows, cols, strict=True)))
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4), st.integers(0, 10**6),
       st.sampled_from([0.25, 0.5, 0.75]))
def test_matching_against_brute_force(n: int, m: int, seed: int, threshold: float) -> None:
    s = np.random.default_rng(seed).random((n, m))
    rows, cols = match(s, threshold)
    assert (s[rows, cols] >= threshold).all()
    assert len(set(rows.tolist())) == rows.size and len(set(cols.tolist())) == cols.size
    assert math.isclose(float(s[rows, cols].sum()), _brute_force_best(s, threshold),
                        abs_tol=1e-12)


def seg(start: float, end: float, label: str = "x", tier: str | None = None) -> Segment:
    return Segment(start, end, label, tier)


def _score(a: Sequence[SceneObject], b: Sequence[SceneObject], threshold: float = 0.5,
           within_tier: bool = False) -> tuple[float, float, int]:
    sim = segment_iou_matrix(a, b, within_tier=within_tier)  # type: ignore[arg-type]
    o = score_pair("i", "x", "y", a, b, sim, threshold)
    return o.score, o.f1, o.count_diff


def test_item_score_by_hand() -> None:
    a = [seg(0, 10, "speech"), seg(20, 30, "music"), seg(40, 41, "cough")]
    b = [seg(0, 8, "speech"), seg(20, 30, "speech")]
    score, f1, diff = _score(a, b)
    # Matched: (0-10, 0-8) IoU 0.8, same label; (20-30, 20-30) IoU 1, labels differ → ½.
    # One unmatched in A. Score = (0.8 + 0.5) / (2 + 1 + 0).
    assert score == pytest.approx(1.3 / 3)
    assert f1 == pytest.approx(2 * 2 / 5)
    assert diff == 1


def test_two_empty_answers_agree_one_empty_does_not() -> None:
    assert _score([], []) == (1.0, 1.0, 0)
    assert _score([seg(0, 1)], []) == (0.0, 0.0, 1)


def test_tiers_never_match_across_tiers() -> None:
    a = [seg(0, 10, "A", tier="speaker")]
    b = [seg(0, 10, "A", tier="events")]
    assert _score(a, b, within_tier=True)[0] == 0.0
    assert _score(a, b, within_tier=False)[0] == 1.0


def test_label_name_trap_stays_closed() -> None:
    # Three "car" segments each, in different places: label names agree, objects do not.
    a = [seg(0, 1, "car"), seg(10, 11, "car"), seg(20, 21, "car")]
    b = [seg(5, 6, "car"), seg(15, 16, "car"), seg(25, 26, "car")]
    assert _score(a, b)[0] == 0.0


def _answers(data: dict[str, dict[str, list[Segment]]]) -> dict[str, dict[str, Answer]]:
    return {item: {name: ObjectSet(tuple(segs)) for name, segs in by.items()}
            for item, by in data.items()}


def _agreement(data: dict[str, dict[str, list[Segment]]], budget: int = 10**9
               ) -> SetAgreement:
    return run(set_agreement(_answers(data), lambda a: a.of_type(Segment),
                             per_pair(lambda a, b: segment_iou_matrix(a, b)), 0.5, budget))  # type: ignore[arg-type]


def test_budget_skips_items_whole_in_sorted_order() -> None:
    three = [seg(0, 1), seg(2, 3), seg(4, 5)]
    data = {"a": {"x": three, "y": three},            # cost 9
            "b": {"x": three, "y": three, "z": three},  # cost 27: over what is left
            "c": {"x": [seg(0, 1)], "y": [seg(0, 1)]}}   # cost 1: still fits
    agreement = _agreement(data, budget=12)
    assert agreement.items_scored == ["a", "c"]
    assert agreement.items_over_budget == ["b"]
    assert agreement.comparisons == 10
    assert summarize(agreement.outcomes).n_pairs == 2


def test_summary_and_empty_pairs() -> None:
    data = {"a": {"x": [seg(0, 10)], "y": [seg(0, 5)]},
            "b": {"x": [], "y": []},
            "c": {"x": [seg(0, 1)], "y": [], "z": [seg(0, 1)]}}
    s = summarize(_agreement(data).outcomes)
    # Pairs: a x|y 0.5 (IoU 0.5 ≥ 0.5); b empty 1; c x|y 0, x|z 1, y|z 0.
    assert s.n_pairs == 5 and s.n_empty_pairs == 1 and s.n_items == 3
    assert s.mean_agreement == pytest.approx((0.5 + 1 + 0 + 1 + 0) / 5)
    assert s.mean_object_count_diff == pytest.approx((0 + 0 + 1 + 0 + 1) / 5)
    assert s.detection_f1 == pytest.approx((1 + 1 + 0 + 1 + 0) / 5)
    assert s.mean_matched_iou == pytest.approx((0.5 + 1) / 2)


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(3)
    data = {f"i{k}": {"x": [seg(0, 10)], "y": [seg(0, 10 - rng.integers(0, 5))]}
            for k in range(40)}
    outcomes = _agreement(data).outcomes
    first = bootstrap_intervals(outcomes, seed=7)
    assert first == bootstrap_intervals(outcomes, seed=7)
    assert first != bootstrap_intervals(outcomes, seed=8)
    mean = summarize(outcomes).mean_agreement
    assert mean is not None
    lo, hi = first["mean_agreement"]
    assert lo < mean < hi


def test_bootstrap_covers_the_true_mean_about_95_percent() -> None:
    """Monte-Carlo: intervals over items cover the population mean ~95% of the time."""
    covered = 0
    trials = 200
    rng = np.random.default_rng(20261130)
    for t in range(trials):
        # Per item IoU of the two annotators: end point uniform in [5, 10] → IoU U[0.5, 1].
        ends = rng.uniform(5, 10, size=60)
        data = {f"i{k}": {"x": [seg(0, 10)], "y": [seg(0, float(e))]}
                for k, e in enumerate(ends)}
        lo, hi = bootstrap_intervals(_agreement(data).outcomes, seed=t,
                                     resamples=400)["mean_agreement"]
        covered += lo <= 0.75 <= hi
    assert 0.88 <= covered / trials <= 0.99


@st.composite
def segment_studies(draw: st.DrawFn) -> dict[str, dict[str, list[Segment]]]:
    names = ["n1", "n2", "n3"]
    data: dict[str, dict[str, list[Segment]]] = {}
    for i in range(draw(st.integers(1, 5))):
        by = {}
        for name in names:
            starts = draw(st.lists(st.integers(0, 20), max_size=4))
            by[name] = [seg(s, s + draw(st.integers(0, 6)), draw(st.sampled_from("ab")))
                        for s in starts]
        data[f"i{i}"] = by
    return data


@settings(max_examples=50, deadline=None)
@given(segment_studies(), st.permutations(["n1", "n2", "n3"]))
def test_set_agreement_invariant_to_annotator_order(
        data: dict[str, dict[str, list[Segment]]], order: list[str]) -> None:
    rename = dict(zip(["n1", "n2", "n3"], order, strict=True))
    renamed = {item: {rename[n]: segs for n, segs in by.items()} for item, by in data.items()}
    first, second = summarize(_agreement(data).outcomes), summarize(_agreement(renamed).outcomes)
    for name in ("mean_agreement", "mean_object_count_diff", "detection_f1",
                 "mean_matched_iou"):
        x, y = getattr(first, name), getattr(second, name)
        assert (x is None and y is None) or math.isclose(x, y, abs_tol=1e-12)
    assert (first.n_pairs, first.n_empty_pairs) == (second.n_pairs, second.n_empty_pairs)


def test_ties_between_optimal_matchings_prefer_same_labels() -> None:
    # Both of A's instants coincide with B's one: either matching totals IoU 1. The
    # same-label one is taken whatever the order: score (1) / (1 + 1 unmatched) = 0.5.
    a = [seg(3, 3, "door"), seg(3, 3, "bang")]
    b = [seg(3, 3, "bang")]
    assert _score(a, b)[0] == 0.5
    assert _score(b, a)[0] == 0.5
    assert _score(a[::-1], b)[0] == 0.5


def test_label_name_trap_with_cuboids() -> None:
    """Three "car" cuboids each, in different places: the names agree, the boxes do not."""
    from app.core.geometry.cuboids import cuboid_iou_matrix
    from app.core.objects import Cuboid

    a = [Cuboid("car", (x, 0.0, 0.0), (4.5, 1.9, 1.6)) for x in (0.0, 10.0, 20.0)]
    b = [Cuboid("car", (x, 8.0, 0.0), (4.5, 1.9, 1.6)) for x in (0.0, 10.0, 20.0)]
    outcome = score_pair("sweep", "x", "y", a, b, cuboid_iou_matrix(a, b), 0.25)
    assert outcome.score == 0.0 and outcome.f1 == 0.0 and outcome.rows.size == 0
