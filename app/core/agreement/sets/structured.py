"""The set kinds in a report: which objects, which similarity, which threshold.

One table ties each set kind to the objects it compares and its IoU:

| kind     | objects                          | similarity                        | threshold |
|----------|----------------------------------|-----------------------------------|-----------|
| cuboids  | ``Cuboid`` (points, polylines kept, not scored) | exact 3D IoU        | 0.25 |
| segments | ``Segment``                      | temporal IoU                      | 0.5 |
| tiers    | ``Segment`` with a tier          | temporal IoU, 0 across tiers      | 0.5 |
| regions  | boxes, polygons, ellipses        | 2D IoU (boxes clamped to [0, 1])  | 0.5 |

Thresholds can be changed per scheme (``--threshold NAME=VALUE``) and are always stated
in the report. None of these numbers is chance-corrected, and the report says so;
regions add the chance-corrected questions of :mod:`app.core.agreement.regions.chance`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.result import SchemeResult, pair_key
from app.core.agreement.sets.agreement import (
    BOOTSTRAP_RESAMPLES,
    DEFAULT_BUDGET,
    INTERVAL_LEVEL,
    SET_METRICS,
    BatchSimilarity,
    ObjectsPair,
    PairOutcome,
    Selector,
    SetAgreement,
    bootstrap_intervals,
    per_pair,
    set_agreement,
    summarize,
)
from app.core.geometry.cuboids import boxes_array, cuboid_iou_matrices
from app.core.geometry.intervals import segment_iou_matrix
from app.core.geometry.regions import clamp_boxes, region_iou_matrix
from app.core.model import Kind, Scheme, Study
from app.core.objects import (
    BoxRegion,
    Cuboid,
    EllipseRegion,
    ObjectSet,
    PolygonRegion,
    SceneObject,
    Segment,
)
from app.core.progress import Job

DEFAULT_THRESHOLDS = {Kind.CUBOIDS: 0.25, Kind.SEGMENTS: 0.5, Kind.TIERS: 0.5, Kind.REGIONS: 0.5}
SET_KINDS = frozenset(DEFAULT_THRESHOLDS)
NOT_CHANCE_CORRECTED = (
    "not chance-corrected: mean_agreement, mean_object_count_diff, detection_f1 and "
    "mean_matched_iou measure overlap, and say nothing of agreement beyond chance"
)
NO_MATCH = "no pair of objects reached the threshold, so there is no matched IoU to average"


@dataclass(frozen=True, slots=True)
class SetOptions:
    """What the user can set per run: thresholds by scheme name, budget, seed."""

    thresholds: dict[str, float]
    budget: int = DEFAULT_BUDGET
    seed: int = 20261129
    truth: str | None = None
    """An annotator whose masks are the known truth (``--truth``), for Dice."""

    def threshold_for(self, scheme: Scheme) -> float:
        assert scheme.kind is not None
        return self.thresholds.get(scheme.name, DEFAULT_THRESHOLDS[scheme.kind])


def _cuboids(answer: ObjectSet) -> tuple[SceneObject, ...]:
    return answer.of_type(Cuboid)


def _segments(answer: ObjectSet) -> tuple[SceneObject, ...]:
    return answer.of_type(Segment)


class _ClampedRegions:
    """Selects regions, clamping boxes to [0, 1] and counting how many needed it."""

    def __init__(self) -> None:
        self.clamped = 0

    def __call__(self, answer: ObjectSet) -> tuple[SceneObject, ...]:
        regions = answer.of_type(BoxRegion, PolygonRegion, EllipseRegion)
        fixed, n = clamp_boxes(regions)  # type: ignore[arg-type]
        self.clamped += n
        return tuple(fixed)


def _cuboid_similarities(pairs: Sequence[ObjectsPair]) -> list[np.ndarray]:
    """Every pair's 3D IoU matrix from one vectorized call (boxes converted once each)."""
    arrays: dict[int, np.ndarray] = {}

    def rows(objects: Sequence[SceneObject]) -> np.ndarray:
        key = id(objects)
        if key not in arrays:
            arrays[key] = boxes_array(objects)  # type: ignore[arg-type]
        return arrays[key]

    return cuboid_iou_matrices([(rows(a), rows(b)) for a, b in pairs])


def _segment_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    return segment_iou_matrix(a, b)  # type: ignore[arg-type]


def _tier_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    return segment_iou_matrix(a, b, within_tier=True)  # type: ignore[arg-type]


def _region_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    return region_iou_matrix(a, b)  # type: ignore[arg-type]


def selector_and_similarity(kind: Kind) -> tuple[Selector, BatchSimilarity]:
    if kind is Kind.CUBOIDS:
        return _cuboids, _cuboid_similarities
    if kind is Kind.SEGMENTS:
        return _segments, per_pair(_segment_similarity)
    if kind is Kind.TIERS:
        return _segments, per_pair(_tier_similarity)
    if kind is Kind.REGIONS:
        return _ClampedRegions(), per_pair(_region_similarity)
    raise ValueError(f"{kind} is not a set kind")


def score_set_scheme(study: Study, scheme: Scheme, result: SchemeResult,
                     options: SetOptions) -> Job[SetAgreement]:
    """Fill ``result`` for a set kind; returns the pair outcomes for the views."""
    assert scheme.kind is not None
    threshold = options.threshold_for(scheme)
    select, similarity = selector_and_similarity(scheme.kind)
    agreement = yield from set_agreement(study.answers_for(scheme.name), select, similarity,
                                         threshold, options.budget)
    result.extra["threshold"] = threshold
    fill_set_metrics(result, agreement, options)
    if isinstance(select, _ClampedRegions) and select.clamped:
        result.extra["n_boxes_clamped"] = select.clamped
        result.notes.append(f"{select.clamped} boxes reached outside the image and were "
                            "clamped to [0, 1].")
    return agreement


def fill_set_metrics(result: SchemeResult, agreement: SetAgreement, options: SetOptions
                     ) -> None:
    summary = summarize(agreement.outcomes)
    over = len(agreement.items_over_budget)
    result.n_items = summary.n_items
    result.n_pairs = summary.n_pairs
    result.n_items_skipped += over
    result.extra["n_empty_pairs"] = summary.n_empty_pairs
    result.coverage["n_items_over_budget"] = over
    result.extra["comparisons"] = agreement.comparisons
    if over:
        result.notes.append(
            f"{over} items were over the comparison budget ({options.budget:,} object "
            f"comparisons) and were skipped whole; the numbers describe the other "
            f"{summary.n_items} items.")
    if summary.n_pairs == 0:
        for name in SET_METRICS:
            result.put(name, Coefficient.undefined(
                "no item was scored: every item was answered by fewer than two annotators "
                "or was over the comparison budget"))
    else:
        for name in SET_METRICS:
            value = getattr(summary, name)
            result.put(name, Coefficient.of(value) if value is not None
                       else Coefficient.undefined(NO_MATCH))
        result.intervals = bootstrap_intervals(agreement.outcomes, options.seed)
        result.extra["bootstrap"] = {"resamples": BOOTSTRAP_RESAMPLES, "level": INTERVAL_LEVEL,
                                     "seed": options.seed, "over": "items"}
    result.pairs = pair_matrix(agreement.outcomes)
    result.notes.append(NOT_CHANCE_CORRECTED)


def pair_matrix(outcomes: Sequence[PairOutcome]) -> dict[str, dict[str, float | int | None]]:
    by_pair: dict[str, list[PairOutcome]] = {}
    for o in outcomes:
        by_pair.setdefault(pair_key(o.a, o.b), []).append(o)
    out: dict[str, dict[str, float | int | None]] = {}
    for key, group in sorted(by_pair.items()):
        s = summarize(group)
        out[key] = {"mean_agreement": s.mean_agreement,
                    "mean_object_count_diff": s.mean_object_count_diff,
                    "detection_f1": s.detection_f1, "mean_matched_iou": s.mean_matched_iou,
                    "n_items": s.n_items}
    return out
