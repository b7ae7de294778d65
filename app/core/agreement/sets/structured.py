"""The set kinds in a report: which objects, which similarity, which threshold.

One table ties each set kind to the objects it compares and its IoU:

| kind     | objects                          | similarity                        | threshold |
|----------|----------------------------------|-----------------------------------|-----------|
| cuboids  | ``Cuboid`` (+ 3D points, polylines, segments) | exact 3D IoU (+ *)  | 0.25 |
| segments | ``Segment``                      | temporal IoU                      | 0.5 |
| tiers    | ``Segment`` with a tier          | temporal IoU, 0 across tiers      | 0.5 |
| regions  | boxes, polygons, ellipses (+ landmarks, keypoints, open paths) | 2D IoU (+ *) | 0.5 |

(*) Potato 2.12.1's similarity for objects without a volume or an area
(:mod:`~app.core.geometry.point_objects`); boxes are clamped to [0, 1].

Objects of different families (a box and a landmark, a cuboid and a 3D point) never
match. Ellipses and freeform strokes are given the item's image size (the image file's
header, else a mask's size) before comparing: ``agreement.md``, "Ellipses are measured as
drawn".

Each kind's geometry is imported where it is used: a lidar study's report needs
neither shapely (regions) nor the segment and point similarities, and importing them
was a tenth of a small study's whole run.

Thresholds can be changed per scheme (``--threshold NAME=VALUE``) and are always stated
in the report. None of these numbers is chance-corrected, and the report says so;
regions add the chance-corrected questions of :mod:`app.core.agreement.regions.chance`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

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
from app.core.model import Answer, Kind, Scheme, Study
from app.core.objects import (
    BoxRegion,
    Cuboid,
    EllipseRegion,
    KeypointSet,
    Landmark,
    Mask,
    ObjectSet,
    OpenPath,
    Point3D,
    PolygonRegion,
    Polyline3D,
    SceneObject,
    Segment,
    Segment3D,
    unit_quaternion_rows,
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


REGION_TYPES = (BoxRegion, PolygonRegion, EllipseRegion)
IMAGE_POINT_TYPES = (Landmark, KeypointSet, OpenPath)
SPATIAL_POINT_TYPES = (Point3D, Polyline3D, Segment3D)


class _Cuboids:
    """Selects a spatial answer's objects, and remembers the packed boxes of answers that
    hold only cuboids (:attr:`ObjectSet.boxes`) for :meth:`similarities`."""

    def __init__(self) -> None:
        self.packed: dict[int, tuple[Sequence[SceneObject], np.ndarray]] = {}

    def __call__(self, answer: ObjectSet) -> tuple[SceneObject, ...]:
        if answer.boxes is not None:  # every object a cuboid: of_type would copy them all
            self.packed[id(answer.objects)] = (answer.objects, answer.boxes)
            return answer.objects
        return answer.of_type(Cuboid, *SPATIAL_POINT_TYPES)

    def similarities(self, pairs: Sequence[ObjectsPair]) -> list[np.ndarray]:
        return _cuboid_similarities(pairs, self.packed)


def _segments(answer: ObjectSet) -> tuple[SceneObject, ...]:
    return answer.of_type(Segment)


class _ClampedRegions:
    """Selects regions, clamping boxes to [0, 1] and counting how many needed it."""

    def __init__(self) -> None:
        self.clamped = 0

    def __call__(self, answer: ObjectSet) -> tuple[SceneObject, ...]:
        from app.core.geometry.regions import clamp_boxes

        regions = answer.of_type(*REGION_TYPES)
        fixed, n = clamp_boxes(regions)  # type: ignore[arg-type]
        self.clamped += n
        return (*fixed, *answer.of_type(*IMAGE_POINT_TYPES))


def _mixed(a: Sequence[SceneObject], b: Sequence[SceneObject], family: tuple[type, ...],
           block: np.ndarray | None) -> np.ndarray:
    """Similarity of two mixed sets: ``block`` for the ``family`` pairs (given in the
    order they appear), Potato's similarity for the point objects, 0 across families."""
    from app.core.geometry.point_objects import POINT_TYPES, similarity_matrix

    out = np.zeros((len(a), len(b)))
    ia = [i for i, o in enumerate(a) if isinstance(o, family)]
    ib = [j for j, o in enumerate(b) if isinstance(o, family)]
    if block is not None and ia and ib:
        out[np.ix_(ia, ib)] = block
    pa = [i for i, o in enumerate(a) if isinstance(o, POINT_TYPES)]
    pb = [j for j, o in enumerate(b) if isinstance(o, POINT_TYPES)]
    if pa and pb:
        out[np.ix_(pa, pb)] = similarity_matrix([a[i] for i in pa],  # type: ignore[misc]
                                                [b[j] for j in pb])  # type: ignore[misc]
    return out


def _only(objects: Sequence[SceneObject], family: tuple[type, ...]) -> list[SceneObject]:
    return [o for o in objects if isinstance(o, family)]


def _cuboid_similarities(pairs: Sequence[ObjectsPair],
                         packed: Mapping[int, tuple[Sequence[SceneObject], np.ndarray]]
                         | None = None) -> list[np.ndarray]:
    """Every pair's 3D IoU matrix from one vectorized call (boxes converted once each).

    ``packed``: object sets (by id, with the set itself) whose rows the reader kept."""
    known = packed or {}
    sets: dict[int, Sequence[SceneObject]] = {}
    for a, b in pairs:
        sets.setdefault(id(a), a)
        sets.setdefault(id(b), b)
    kept_rows: dict[int, np.ndarray] = {}
    for key, objects in sets.items():
        kept = known.get(key)
        if kept is not None and kept[0] is objects:
            kept_rows[key] = kept[1]
    arrays = _sliced(kept_rows, unit_quaternion_rows)  # boxes_array's rows, all at once
    rest = {key: objects for key, objects in sets.items() if key not in arrays}
    if all(isinstance(o, Cuboid) for objects in rest.values() for o in objects):
        # Every other distinct object set packed in one boxes_array call (its arithmetic
        # is per row, so the same bits as one call per set, or as the reader's rows) and
        # sliced back.
        rows = boxes_array([o for objects in rest.values() for o in objects])  # type: ignore[misc]
        ends = np.cumsum([len(objects) for objects in rest.values()]).tolist()
        arrays.update({key: rows[end - len(objects):end]
                       for (key, objects), end in zip(rest.items(), ends, strict=True)})
        return cuboid_iou_matrices([(arrays[id(a)], arrays[id(b)]) for a, b in pairs])
    cuboid_pairs = [(_only(a, (Cuboid,)), _only(b, (Cuboid,))) for a, b in pairs]
    blocks = cuboid_iou_matrices([(boxes_array(x), boxes_array(y))  # type: ignore[arg-type]
                                  for x, y in cuboid_pairs])
    return [_mixed(a, b, (Cuboid,), block) for (a, b), block in zip(pairs, blocks, strict=True)]


def _sliced(blocks: dict[int, np.ndarray], pack: Callable[[np.ndarray], object]
            ) -> dict[int, np.ndarray]:
    """``pack`` run in place over all ``blocks`` stacked (one call; its arithmetic is per
    row), and the stack sliced back by key."""
    if not blocks:
        return {}
    stacked = np.concatenate(list(blocks.values()))
    pack(stacked)
    ends = np.cumsum([len(rows) for rows in blocks.values()]).tolist()
    return {key: stacked[end - len(rows):end]
            for (key, rows), end in zip(blocks.items(), ends, strict=True)}


def _segment_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    from app.core.geometry.intervals import segment_iou_matrix

    return segment_iou_matrix(a, b)  # type: ignore[arg-type]


def _tier_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    from app.core.geometry.intervals import segment_iou_matrix

    return segment_iou_matrix(a, b, within_tier=True)  # type: ignore[arg-type]


def region_set_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> np.ndarray:
    """An image scheme's similarity: 2D IoU between regions, Potato 2.12.1's similarity
    between landmarks, keypoint sets and open paths, 0 across the two families."""
    from app.core.geometry.regions import region_iou_matrix

    ra, rb = _only(a, REGION_TYPES), _only(b, REGION_TYPES)
    if len(ra) == len(a) and len(rb) == len(b):
        return region_iou_matrix(a, b)  # type: ignore[arg-type]
    block = region_iou_matrix(ra, rb) if ra and rb else None  # type: ignore[arg-type]
    return _mixed(a, b, REGION_TYPES, block)


def selector_and_similarity(kind: Kind) -> tuple[Selector, BatchSimilarity]:
    if kind is Kind.CUBOIDS:
        cuboids = _Cuboids()
        return cuboids, cuboids.similarities
    if kind is Kind.SEGMENTS:
        return _segments, per_pair(_segment_similarity)
    if kind is Kind.TIERS:
        return _segments, per_pair(_tier_similarity)
    if kind is Kind.REGIONS:
        return _ClampedRegions(), per_pair(region_set_similarity)
    raise ValueError(f"{kind} is not a set kind")


def score_set_scheme(study: Study, scheme: Scheme, result: SchemeResult,
                     options: SetOptions) -> Job[SetAgreement]:
    """Fill ``result`` for a set kind; returns the pair outcomes for the views."""
    assert scheme.kind is not None
    threshold = options.threshold_for(scheme)
    select, similarity = selector_and_similarity(scheme.kind)
    answers = study.answers_for(scheme.name)
    if scheme.kind is Kind.REGIONS:
        answers = with_image_sizes(study, answers)
        unsized = unsized_ellipse_items(answers)
        if unsized:
            result.extra["n_items_ellipses_normalized"] = unsized
            result.notes.append(
                f"{unsized} items have ellipses but no image size was found for them (no "
                "readable picture, no mask): their ellipses are compared in normalized "
                "coordinates, not in pixels, so on a non-square picture a turned ellipse "
                "is measured as another shape")
    agreement = yield from set_agreement(answers, select, similarity, threshold,
                                         options.budget, scheme.kind is Kind.REGIONS)
    if scheme.kind is Kind.REGIONS and _holds(answers, IMAGE_POINT_TYPES):
        # localization (σ, KS) needs an area for GIoU: regions only
        agreement.regions_only = yield from set_agreement(
            answers, _RegionsOnly(), per_pair(region_set_similarity), threshold, options.budget)
        result.notes.append(
            "landmarks, keypoint sets and open paths are matched by Potato 2.12.1's "
            "similarity (1 - d/0.05, OKS, boundary F1) in the set metrics and in the "
            "detection and classification α; localization (σ, KS) uses the boxes, "
            "polygons and ellipses only (GIoU needs an area)")
    result.extra["threshold"] = threshold
    fill_set_metrics(result, agreement, options)
    result.notes.extend(potato_notes(scheme, agreement))
    if isinstance(select, _ClampedRegions) and select.clamped:
        result.extra["n_boxes_clamped"] = select.clamped
        result.notes.append(f"{select.clamped} boxes reached outside the image and were "
                            "clamped to [0, 1].")
    return agreement


class _RegionsOnly(_ClampedRegions):
    def __call__(self, answer: ObjectSet) -> tuple[SceneObject, ...]:
        from app.core.geometry.regions import clamp_boxes

        fixed, _ = clamp_boxes(answer.of_type(*REGION_TYPES))  # type: ignore[arg-type]
        return tuple(fixed)


def _holds(answers: Mapping[str, Mapping[str, Answer]], types: tuple[type, ...]) -> bool:
    return any(isinstance(a, ObjectSet) and a.of_type(*types)
               for by in answers.values() for a in by.values())


def item_image_size(study: Study, item: str, by: Mapping[str, Answer]
                    ) -> tuple[int, int] | None:
    """The item's image size: its image file's header, else the size of a mask on it."""
    from app.core.image_size import image_size

    record = study.items.get(item)
    if record is not None:
        for path in record.media.values():
            size = image_size(path)
            if size is not None:
                return size
    for answer in by.values():
        if isinstance(answer, ObjectSet):
            for mask in answer.of_type(Mask):
                assert isinstance(mask, Mask)
                return (mask.width, mask.height)
    return None


def with_image_sizes(study: Study, answers: Mapping[str, Mapping[str, Answer]]
                     ) -> dict[str, dict[str, Answer]]:
    """The answers with each item's image size on its ellipses and open paths."""
    out: dict[str, dict[str, Answer]] = {}
    for item, by in answers.items():
        needs = any(isinstance(a, ObjectSet) and a.of_type(EllipseRegion, OpenPath)
                    for a in by.values())
        size = item_image_size(study, item, by) if needs else None
        if size is None:
            out[item] = dict(by)
            continue
        w, h = size
        out[item] = {name: ObjectSet(tuple(
            replace(o, image_width=float(w), image_height=float(h))
            if isinstance(o, EllipseRegion | OpenPath) else o for o in a.objects))
            if isinstance(a, ObjectSet) else a for name, a in by.items()}
    return out


def unsized_ellipse_items(answers: Mapping[str, Mapping[str, Answer]]) -> int:
    """How many items hold an ellipse without the image size (compared normalized)."""
    return sum(1 for by in answers.values() if any(
        isinstance(a, ObjectSet) and any(isinstance(o, EllipseRegion) and o.image_width is None
                                         for o in a.objects) for a in by.values()))


def potato_notes(scheme: Scheme, agreement: SetAgreement) -> list[str]:
    """What Potato 2.12.1's /admin/iaa reports differently here, by design."""
    notes = []
    n_empty = sum(1 for o in agreement.outcomes if o.empty)
    if n_empty:
        notes.append(f"{n_empty} pairs of two empty answers agree here (score 1); Potato "
                     "2.12.1's /admin/iaa leaves them out of its means")
    if scheme.kind is Kind.TIERS:
        notes.append("segments are matched within their tier; Potato 2.12.1's /admin/iaa "
                     "ignores the tier and matches segments of different tiers")
    if scheme.annotation_type == "temporal_grounding":
        notes.append("an event without an end is an instant at its start; Potato 2.12.1's "
                     "/admin/iaa drops it")
    return notes


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
