"""What Potato 2.12.1's ``/admin/iaa`` shows for an image scheme, and exactly why.

``agreement.md`` ("Agreeing with Potato 2.12.1's own agreement report"): where both
measure the same thing the numbers are equal; where Accord differs by design the report
says so, with what Potato would report. For an ``image_annotation`` scheme the set
metrics and the detection and classification α are the same measures in both (checked
object pair by object pair against Potato's code on the answers its server wrote), but
Potato's report reads some answers and applies some rules differently:

- **ellipses**: it builds them in normalized coordinates as 36-gons; Accord builds them
  in pixels (``agreement.md``: ellipses are measured as drawn) as 64-gons (Precise
  rules). On a non-square image a rotated ellipse is then a different shape, and the
  36-gon is a coarser ellipse on any image;
- **open paths**: its boundary F1 tolerance of 5 is applied to normalized coordinates
  (5 image widths: any two polylines score 1), Accord's to pixels when the image size
  is known (Potato's similarity is written for pixels; its report feeds it fractions);
- **boxes**: it does not clamp them to the image (Accord does, Precise rules), and a box
  without area has IoU 0;
- **types**: a box, a polygon and an ellipse never match one another (its similarity
  compares an object with objects of its own type only); Accord compares any two
  regions by their IoU (agreement.md, Sets of objects: the IoU of the two objects);
- **matching**: it takes the most pairs at or above the threshold, then the largest
  total, and breaks ties blind to labels; Accord the largest total (Matching objective),
  preferring same-label pairs among equal totals;
- **clusters**: it puts each object in the first detection cluster whose first member
  it reaches the threshold with; Accord matches an annotator's objects to the clusters
  (Detection clusters);
- **few units**: it leaves an α undefined over fewer than two units or two annotators;
- **empty pairs**: it leaves pairs of two empty answers out of its means.

:func:`add_potato_reading` recomputes Potato's numbers with those rules from the same
answers (written here from that behaviour, not copied; checked against Potato's own
code by ``tests/core/test_potato_image_oracle.py``) and, when any differs from Accord's
by more than 1e-9, records them in ``potato_iaa`` with a note naming only the rules that
changed something: a reading rule when it changed the similarity of an object pair that
reaches the threshold on one side, the matching rule when it changed a pair's matches,
the clustering rule when it changed an α. A scheme holding masks too is not recomputed
(Potato scores its masks in the same sets as its regions; the note says so).

σ and KS are not recomputed. They are a different measure by design (Potato: GIoU of
the bounding boxes of every object, a landmark at distance 1, a baseline drawn with
Python's ``random``), and a note says so whenever the two can differ (anything but boxes
in the scheme, or a sampled baseline).

Cost: one more scoring pass over the scored pairs. Accord's own similarity matrices are
kept by its scoring (``SetAgreement.matrices``, at most the comparison budget's entries)
and each pair's Potato matrix is computed once and reused by the clusters.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from app.core.agreement.regions.chance import cluster_rows, nominal_alpha
from app.core.agreement.regions.potato_rules import (
    FirstFit,
    Shape,
    ShapeSet,
    Similarities,
    accord_similarity,
    most_pairs,
    shapes,
)
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import SetAgreement
from app.core.agreement.sets.matching import THRESHOLD_SLACK, match
from app.core.model import Answer
from app.core.objects import BoxRegion, Mask, ObjectSet, OpenPath

SAME = 1e-9
"""Two numbers closer than this are the same number (the tests' tolerance)."""

SET_NAMES = ("mean_agreement", "mean_object_count_diff", "detection_f1", "mean_matched_iou")
ALPHA_NAMES = ("detection_alpha", "classification_alpha")
CLAUSES = {
    "ellipses": "it builds ellipses in normalized coordinates as 36-gons, where Accord "
                "builds them as 64-gons, in pixels where the picture's size is known "
                "(ellipses are measured as drawn; on a non-square picture a turned ellipse "
                "is otherwise another shape)",
    "boxes": "it does not clamp boxes to the image and gives a box without area IoU 0",
    "paths": "it applies the boundary F1 tolerance of open paths (5) to normalized "
             "coordinates, where Accord applies it to pixels",
    "types": "it never matches a box, a polygon and an ellipse with one another, where "
             "Accord compares any two regions by IoU",
    "matching": "it matches the most pairs at or above the threshold before the largest "
                "total similarity and breaks ties without the labels, where Accord takes "
                "the matching with the largest total similarity and, among equal totals, "
                "prefers pairs whose labels agree",
    "clusters": "it puts each object in the first detection cluster it reaches the "
                "threshold with, where Accord matches each annotator's objects to the "
                "clusters one to one",
    "few_units": "it leaves an α undefined over fewer than two units (clusters) or two "
                 "annotators, where Accord computes it",
    "objects": "its similarity of some object pairs differs in the last digits",
}
MASKS_MIXED = ("Potato 2.12.1's /admin/iaa scores this scheme's masks in the same sets as "
               "its regions, so its set metrics and α here are not comparable with these")


@dataclass(slots=True)
class Reading:
    """Potato's per-pair numbers (pairs of two empty answers left out) and the rules of
    its reading that changed a similarity or a matching on the way."""

    scores: list[float]
    diffs: list[int]
    f1: list[float]
    ious: list[float]
    n_empty: int
    rules: set[str]


def _differing_rules(p: np.ndarray, q: np.ndarray, a: Sequence[Shape], b: Sequence[Shape],
                     threshold: float) -> set[str]:
    """The rules behind object pairs whose similarity differs where it can matter."""
    rules = set()
    for i, j in zip(*np.nonzero((np.abs(p - q) > SAME) & (np.maximum(p, q) >= threshold
                                                           - THRESHOLD_SLACK)), strict=True):
        x, y = a[i], b[j]
        if x.tag != y.tag:
            rules.add("types")
        elif x.tag in ("ellipse", "bbox"):
            rules.add("ellipses" if x.tag == "ellipse" else "boxes")
        else:
            rules.add("paths" if isinstance(x.potato, OpenPath) else "objects")
    return rules


def read(pairs: Sequence[tuple[ShapeSet, ShapeSet, np.ndarray | None]], threshold: float,
         similarity: Similarities) -> Reading:
    """Score every pair as Potato does: its similarity, its matching, its item score."""
    out = Reading([], [], [], [], 0, set())
    for a, b, kept in pairs:
        if not a and not b:
            out.n_empty += 1
            continue
        out.diffs.append(abs(len(a) - len(b)))
        if not a or not b:
            out.scores.append(0.0)
            out.f1.append(0.0)
            continue
        p = similarity.matrix(a, b)
        q = accord_similarity(a, b, kept)
        out.rules |= _differing_rules(p, q, a, b, threshold)
        same = np.array([[x.label == y.label for y in b] for x in a])
        rows, cols = most_pairs(p, threshold)
        credit = _credit(p, same, rows, cols)
        r2, c2 = match(p, threshold, same)  # Accord's rule on Potato's similarities
        if r2.size != rows.size or abs(_credit(p, same, r2, c2) - credit) > SAME \
                or abs(float(p[r2, c2].sum()) - float(p[rows, cols].sum())) > SAME:
            out.rules.add("matching")
        out.scores.append(min(1.0, max(0.0, credit / (len(a) + len(b) - rows.size))))
        out.f1.append(2.0 * rows.size / (len(a) + len(b)))
        out.ious.extend(p[rows, cols].tolist())
    return out


def _credit(p: np.ndarray, same: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> float:
    """Matched similarity, halved where the labels differ."""
    if not rows.size:
        return 0.0
    return float(np.where(same[rows, cols], p[rows, cols], p[rows, cols] / 2.0).sum())


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def add_potato_reading(result: SchemeResult, answers: Mapping[str, Mapping[str, Answer]],
                       agreement: SetAgreement, threshold: float) -> None:
    """Record what Potato's ``/admin/iaa`` shows for this image scheme when it differs."""
    _sigma_note(result, agreement)
    if any(isinstance(a, ObjectSet) and a.of_type(Mask) for by in answers.values()
           for a in by.values()):
        result.notes.append(MASKS_MIXED)
        return
    objects: dict[str, dict[str, ShapeSet]] = {}
    pairs: list[tuple[ShapeSet, ShapeSet, np.ndarray | None]] = []
    kept = agreement.matrices or {}
    for item in agreement.items_scored:
        by = {name: ShapeSet(shapes(raw, agreement.objects[item][name]))
              for name, raw in answers[item].items() if isinstance(raw, ObjectSet)}
        objects[item] = by
        pairs.extend((by[x], by[y], kept.get((item, x, y)))
                     for x, y in combinations(sorted(by), 2))
    similarity = Similarities([x for by in objects.values() for x in by.values()])
    reading = read(pairs, threshold, similarity)
    view = SetAgreement(objects=objects, items_scored=list(agreement.items_scored))  # type: ignore[arg-type]
    first_fit = FirstFit(similarity)
    greedy = _alphas(view, threshold, similarity, first_fit, reading.rules)
    if first_fit.departs and any(_differ(g, h) for g, h in zip(
            greedy, _alphas(view, threshold, similarity, None, set()), strict=True)):
        reading.rules.add("clusters")
    potato: dict[str, float | int | None] = dict(zip(
        SET_NAMES, (_mean(reading.scores), _mean(reading.diffs), _mean(reading.f1),
                    _mean(reading.ious)), strict=True))
    potato.update(zip(ALPHA_NAMES, greedy, strict=True))
    changed = [k for k, v in potato.items() if _differ(v, result.metrics.get(k))]
    if not changed:
        return
    potato.update(n_scored_pairs=len(reading.scores), n_empty_pairs=reading.n_empty)
    result.extra["potato_iaa"] = potato
    shown = ", ".join(f"{k} {_fmt(potato[k])}" for k in changed)
    why = [CLAUSES[r] for r in CLAUSES if r in reading.rules]
    if reading.n_empty:
        why.append(f"it leaves the {reading.n_empty} pairs of two empty answers out of its "
                   "means")
    result.notes.append(f"Potato 2.12.1's /admin/iaa shows {shown} on these answers "
                        f"(potato_iaa) because " + "; ".join(why or [CLAUSES["objects"]]))


def _alphas(view: SetAgreement, threshold: float, similarity: Similarities,
            clustering: FirstFit | None, rules: set[str]) -> tuple[float | None, float | None]:
    """Detection and classification α of Potato's reading, clustered by ``clustering``
    (else by Accord's rule). Potato leaves α undefined over fewer than two units or two
    annotators (Accord computes it); that rule goes into ``rules`` when it applies."""
    out = []
    for rows in cluster_rows(view, threshold, similarity, clustering):  # type: ignore[arg-type]
        value = nominal_alpha(rows).value if rows else None
        if len(rows) < 2 or len({n for r in rows for n in r}) < 2:
            if value is not None:
                rules.add("few_units")
            value = None
        out.append(value)
    return out[0], out[1]


def _differ(x: float | int | None, y: float | int | None) -> bool:
    if x is None or y is None:
        return (x is None) != (y is None)
    return abs(float(x) - float(y)) > SAME


def _fmt(v: float | int | None) -> str:
    return "undefined" if v is None else f"{float(v):.6f}"


def _sigma_note(result: SchemeResult, agreement: SetAgreement) -> None:
    baseline = result.extra.get("chance_baseline") or {}
    objects = [o for by in agreement.objects.values() for objs in by.values() for o in objs]
    if result.metrics.get("sigma") is None or (
            baseline.get("all_between_item_pairs") and all(isinstance(o, BoxRegion)
                                                           for o in objects)):
        return
    result.notes.append(
        "Potato 2.12.1's /admin/iaa computes σ and KS another way: its GIoU is that of the "
        "objects' bounding boxes, over every "
        "object type (a landmark is at distance 1), and its chance baseline is 2,000 draws "
        "from Python's random.Random(20260813) when there are more between-item pairs; "
        "here GIoU encloses polygons and ellipses by their convex hull, localization uses "
        "the regions only and the baseline is drawn with numpy's default_rng(seed)")
