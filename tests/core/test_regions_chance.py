"""Chance-corrected region agreement: detection, classification, localization."""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely
from scipy.stats import ks_2samp

from app.core.agreement.regions.chance import (
    EVERYONE_FOUND_ALL,
    between_pairs,
    detection_and_classification,
    detection_clusters,
    fill_region_chance,
)
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import SetAgreement, per_pair, set_agreement
from app.core.geometry.regions import region_iou_matrix
from app.core.model import Answer
from app.core.objects import BoxRegion, ObjectSet
from app.core.progress import run


def b(x: float, y: float, w: float = 0.2, label: str = "car") -> BoxRegion:
    return BoxRegion(label, x, y, w, w)


def _agreement(data: dict[str, dict[str, list[BoxRegion]]]) -> SetAgreement:
    answers: dict[str, dict[str, Answer]] = {
        item: {n: ObjectSet(tuple(objs)) for n, objs in by.items()} for item, by in data.items()}
    return run(set_agreement(answers, lambda a: a.of_type(BoxRegion),
                             per_pair(lambda p, q: region_iou_matrix(p, q)), 0.5))  # type: ignore[arg-type]


def test_clusters_follow_sorted_annotators_and_first_members() -> None:
    objects = {
        "zed": (b(0.1, 0.1), b(0.7, 0.7)),
        "amy": (b(0.1, 0.11),),
        "bob": (b(0.4, 0.4), b(0.1, 0.1)),
    }
    clusters = detection_clusters(objects, 0.5)  # type: ignore[arg-type]
    # amy starts cluster 0; bob's second box joins it, his first starts cluster 1;
    # zed's first joins cluster 0, his second starts cluster 2.
    assert [sorted(c) for c in clusters] == [["amy", "bob", "zed"], ["bob"], ["zed"]]


def test_detection_alpha_by_hand() -> None:
    data = {
        "i1": {"x": [b(0.1, 0.1), b(0.6, 0.6)], "y": [b(0.1, 0.1)]},
        "i2": {"x": [b(0.1, 0.1)], "y": [b(0.1, 0.1), b(0.6, 0.6)]},
        "i3": {"x": [b(0.3, 0.3)], "y": [b(0.3, 0.3)]},
    }
    detection, classification, n = detection_and_classification(_agreement(data), 0.5)
    assert n == 5
    # Units: i1 (P, P), (P, A); i2 (P, P), (A, P); i3 (P, P). Nominal α by hand:
    # values P×8, A×2; o_PA = o_AP = 2, o_PP = 6: α = 1 − (10 − 1)·4 / (2·8·2) = −0.125.
    assert detection.value == pytest.approx(1 - 9 * 4 / 32)
    assert classification.value is None  # every shared cluster has one label


def test_everyone_found_everything_is_undefined_not_perfect() -> None:
    data = {f"i{k}": {"x": [b(0.1, 0.1)], "y": [b(0.1, 0.1)]} for k in range(3)}
    detection, _, _ = detection_and_classification(_agreement(data), 0.5)
    assert detection.value is None and detection.reason == EVERYONE_FOUND_ALL


def test_between_pairs_all_when_few_and_seeded_when_many() -> None:
    owner = np.array([0, 0, 1, 2])
    pairs, everything = between_pairs(owner, seed=1)
    assert everything and sorted(pairs) == [(0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    big = np.repeat(np.arange(100), 3)
    drawn, everything = between_pairs(big, seed=5)
    assert not everything and len(drawn) == 2000
    assert all(big[i] != big[j] for i, j in drawn)
    assert drawn == between_pairs(big, seed=5)[0]


def _oracle_distance(p: BoxRegion, q: BoxRegion) -> float:
    a = shapely.box(p.x, p.y, p.x + p.width, p.y + p.height)
    c = shapely.box(q.x, q.y, q.x + q.width, q.y + q.height)
    union = a.union(c).area
    iou = a.intersection(c).area / union
    hull = shapely.box(*a.union(c).bounds).area
    return (1 - (iou - (hull - union) / hull)) / 2


def test_sigma_and_ks_against_an_independent_computation() -> None:
    rng = np.random.default_rng(11)
    data: dict[str, dict[str, list[BoxRegion]]] = {}
    for k in range(12):
        x, y = rng.uniform(0.05, 0.7, 2)
        data[f"i{k}"] = {name: [b(x + rng.normal(0, 0.01), y + rng.normal(0, 0.01))]
                         for name in ("p", "q", "r")}
    agreement = _agreement(data)
    result = SchemeResult("objects", "image_annotation", "regions")
    fill_region_chance(result, agreement, 0.5, seed=3)
    within = []
    for by in data.values():
        names = sorted(by)
        for i, j in [(0, 1), (0, 2), (1, 2)]:
            within.append(_oracle_distance(by[names[i]][0], by[names[j]][0]))
    pool = [(item, obj) for item, by in data.items() for name in sorted(by)
            for obj in by[name]]
    # 36 objects in 12 items: 36·35/2 − 12·3 = 594 between-item pairs (≤ 2,000: all).
    between = [_oracle_distance(p, q) for i, (ip, p) in enumerate(pool)
               for (iq, q) in pool[i + 1:] if ip != iq]
    assert len(between) == 594 == result.extra["chance_baseline"]["n_pairs"]
    sigma = 1 - np.mean(within) / np.mean(between)
    assert math.isclose(result.metrics["sigma"], sigma, abs_tol=1e-9)  # type: ignore[arg-type]
    ks = ks_2samp(within, between).statistic
    assert math.isclose(result.metrics["ks"], ks, abs_tol=1e-12)  # type: ignore[arg-type]
    assert sigma > 0.5


def test_negative_sigma_is_not_clipped() -> None:
    # Every item looks the same, and x and y always place their box a little apart: half
    # the between-item pairs coincide (x with x, y with y), so chance does better than
    # the annotators on one item. σ = 1 − d / (d / 2) = −1, reported as it is.
    data = {f"i{k}": {"x": [b(0.1, 0.1, 0.4)], "y": [b(0.15, 0.1, 0.4)]} for k in range(4)}
    result = SchemeResult("objects", "image_annotation", "regions")
    fill_region_chance(result, _agreement(data), 0.5, seed=3)
    assert result.metrics["sigma"] == pytest.approx(-1.0)
