"""Grounding agreement (``grounding_eval``, ``kinds.md`` B §2.12), Potato 2.12.1's groups.

The expression id is the correspondence, so nothing is matched across expressions:

- **detection**: nominal α over ``(annotator, item::expression)`` = located / not
  present, and the raw percent agreement over annotator pairs who both answered;
- **localization**: per pair where both located the expression, the optimal one-to-one
  assignment of their regions, Σ matched similarity / max(|A|, |B|) (one region each:
  plain IoU); mean and median over those pairs, and the share at or above each IoU
  threshold of the sweep (0.25, 0.5, 0.75, 0.9; headline 0.5);
- **pointing**: for point answers, the Euclidean distance between the two annotators'
  first points in normalized image units (a distance: 0 is perfect, never banded);
- **coverage**: answered / possible (expression, annotator) answers; unanswered
  expressions are left out of the other groups and counted.

Similarity between two shapes is 0 across shape types (a box never matches a polygon),
as Potato's ``geometry.similarity``.

Shapes, as Potato 2.12.1 scores a grounding region (``grounding/metrics.region_similarity``
on a 1 × 1 image, so in normalized coordinates) and Accord with it, to 1e-9:

- boxes, polygons: area IoU; a shape **without area** (a zero-width box, a polygon on a
  line) scores 0 against anything, itself included, as Potato's ``iou_bbox`` and
  ``iou_polygon`` (Accord's region IoU elsewhere calls two identical zero-area shapes
  identical; a grounding region without area has located nothing, so not here);
- ellipses: Potato's **36-gon** (vertices at ``2πk/36``, ``cv_utils.ellipse_to_polygon``)
  in normalized coordinates, not the 64-gon of the regions kind (``agreement.md``): the
  grounding kind reports Potato's numbers (kinds.md A.1) and the two polygons differ by
  about 2e-4 in IoU; a radius ≤ 0 scores 0, as Potato drops it;
- masks (brush, fill, sam): pixel IoU of the two run-length masks, as Potato's
  ``iou_mask``; an empty mask scores 0. Choice where Potato is silent: two masks of
  different sizes (the picture changed between annotators) score 0, are counted in
  ``localization.n_mask_pairs_size_differs`` and a note says so; Potato compares their
  flat pixel indices, which mean different pixels at different widths;
- landmarks, keypoint sets, open paths: Potato's similarities (``sets/structured.py``);
  a landmark answer goes to the pointing distance instead, as Potato;
- ``cuboid_2d`` (a 3-D box drawn in the picture): the IoU of the front faces, as Potato;
- a shape of a type Potato's canvas does not make (no tool draws it) is never dropped: a
  pair holding one is left out of localization, counted in
  ``localization.n_pairs_unscored_shapes`` and named in a note.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.vlm.common import Row, coefficient, long_alpha, median
from app.core.agreement.vlm.reading import Cuboid2D, Grounded
from app.core.objects import EllipseRegion, Landmark, Mask, PolygonRegion, SceneObject

THRESHOLDS = (0.25, 0.5, 0.75, 0.9)
HEADLINE = 0.5
Shape = SceneObject | Cuboid2D
POTATO_ELLIPSE_VERTICES = 36
"""Potato 2.12.1's ``cv_utils.ELLIPSE_POLYGON_VERTICES``."""
METRICS = ("detection.alpha", "detection.percent_agreement", "localization.mean_iou",
           "localization.median_iou", "pointing.mean_pairwise_distance",
           "coverage.answered_fraction")
NO_PAIRS = "no two annotators answered the same expression"
NO_LOCATED = "no two annotators both located the same expression with regions"


@dataclass(slots=True)
class GroundingAgreement:
    metrics: dict[str, Coefficient] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    sweep: list[dict[str, float | None]] = field(default_factory=list)
    per_item: dict[str, list[float]] = field(default_factory=dict)
    """Each item's localization scores (the answers view sorts by them)."""
    notes: list[str] = field(default_factory=list)
    """Sentences for the report: shapes left unscored, masks of different sizes."""


def potato_polygon(ellipse: EllipseRegion) -> PolygonRegion | None:
    """An ellipse as Potato's 36-gon in normalized coordinates; None without area."""
    if ellipse.rx <= 0 or ellipse.ry <= 0:
        return None
    theta = math.radians(ellipse.angle_deg)
    c, s = math.cos(theta), math.sin(theta)
    points = []
    for k in range(POTATO_ELLIPSE_VERTICES):
        phi = 2.0 * math.pi * k / POTATO_ELLIPSE_VERTICES
        ex, ey = ellipse.rx * math.cos(phi), ellipse.ry * math.sin(phi)
        points.append((ellipse.cx + ex * c - ey * s, ellipse.cy + ex * s + ey * c))
    return PolygonRegion(ellipse.label, tuple(points))


def mask_iou(a: Mask, b: Mask) -> float | None:
    """Pixel IoU of two masks of one size (0 if either is empty); None across sizes."""
    if (a.height, a.width) != (b.height, b.width):
        return None
    x, y = a.to_array(), b.to_array()
    union = int(np.count_nonzero(x | y))
    if not np.any(x) or not np.any(y) or union == 0:
        return 0.0
    return int(np.count_nonzero(x & y)) / union


def shape_similarity(a: Shape, b: Shape) -> float:
    """Potato's ``region_similarity`` for two shapes of one type (module text), 0 across
    types; masks of two sizes score 0 here (the caller counts them)."""
    from app.core.agreement.sets.structured import REGION_TYPES, region_set_similarity
    from app.core.geometry.region_overlap import prepare

    if type(a) is not type(b):
        return 0.0
    if isinstance(a, Cuboid2D) or isinstance(b, Cuboid2D):
        assert isinstance(a, Cuboid2D) and isinstance(b, Cuboid2D)
        return shape_similarity(PolygonRegion(a.label, a.front),
                                PolygonRegion(b.label, b.front))
    if isinstance(a, Mask) and isinstance(b, Mask):
        return mask_iou(a, b) or 0.0
    if not isinstance(a, REGION_TYPES):
        return float(region_set_similarity([a], [b])[0, 0])
    x, y = (potato_polygon(r) if isinstance(r, EllipseRegion) else r for r in (a, b))
    if x is None or y is None or not (prepare([x, y]).area > 0.0).all():  # type: ignore[list-item]
        return 0.0
    return float(region_set_similarity([x], [y])[0, 0])


def set_similarity(a: Sequence[Shape], b: Sequence[Shape]) -> float | None:
    from scipy.optimize import linear_sum_assignment

    if not a or not b:
        return None
    scores = np.array([[shape_similarity(x, y) for y in b] for x in a], dtype=np.float64)
    rows, cols = linear_sum_assignment(-scores)
    return float(scores[rows, cols].sum()) / max(len(a), len(b))


def _first_point(regions: Sequence[SceneObject]) -> tuple[float, float] | None:
    for r in regions:
        if isinstance(r, Landmark):
            return r.x, r.y
    return None


def grounding_agreement(answers: Mapping[str, Mapping[str, Mapping[str, Grounded]]]
                        ) -> GroundingAgreement:
    """``answers``: item → annotator → expression → answer (items with ≥ 2 answers)."""
    out = GroundingAgreement()
    rows: list[Row] = []
    hits = pairs = multi = answered = possible = unscored = sizes_differ = 0
    unread: set[str] = set()
    scores: list[float] = []
    distances: list[float] = []
    for item in sorted(answers):
        by = answers[item]
        if len(by) < 2:
            continue
        for expression in sorted({e for a in by.values() for e in a}):
            here: dict[str, Grounded] = {}
            for annotator, mine in by.items():
                possible += 1
                if expression in mine:
                    answered += 1
                    here[annotator] = mine[expression]
                    rows.append((annotator, f"{item}::{expression}",
                                 "not_present" if mine[expression].absent else "located"))
            for x, y in combinations(sorted(here), 2):
                left, right = here[x], here[y]
                pairs += 1
                hits += left.absent == right.absent
                if left.absent or right.absent:
                    continue
                multi += len(left.shapes) > 1 or len(right.shapes) > 1
                if any(isinstance(r, Landmark) for r in left.regions):
                    p, q = _first_point(left.regions), _first_point(right.regions)
                    if p is not None and q is not None:
                        distances.append(math.hypot(p[0] - q[0], p[1] - q[1]))
                    continue
                if left.unread or right.unread:
                    unscored += 1
                    unread.update(left.unread + right.unread)
                    continue
                sizes_differ += any(
                    isinstance(r, Mask) and isinstance(q, Mask) and mask_iou(r, q) is None
                    for r in left.regions for q in right.regions)
                score = set_similarity(left.shapes, right.shapes)
                if score is not None:
                    scores.append(score)
                    out.per_item.setdefault(item, []).append(score)
    distinct = {v for _, _, v in rows}
    m = out.metrics
    if len(distinct) < 2:
        m["detection.alpha"] = Coefficient.undefined(
            f"every answer was '{next(iter(distinct), 'absent')}', so there is no "
            "variation to correct for chance against" if rows else NO_PAIRS)
    else:
        m["detection.alpha"] = long_alpha(rows, "nominal")
    m["detection.percent_agreement"] = coefficient(hits / pairs if pairs else None, NO_PAIRS)
    m["localization.mean_iou"] = coefficient(
        sum(scores) / len(scores) if scores else None, NO_LOCATED)
    m["localization.median_iou"] = coefficient(median(scores), NO_LOCATED)
    if distances:
        m["pointing.mean_pairwise_distance"] = Coefficient.of(
            sum(distances) / len(distances))
        out.counts["pointing.n_pairs_compared"] = len(distances)
    m["coverage.answered_fraction"] = coefficient(
        answered / possible if possible else None, "no expression on any scored item")
    out.counts.update({"detection.n_expression_pairs": pairs,
                       "detection.n_present_absent_answers": len(rows),
                       "localization.n_pairs_compared": len(scores),
                       "coverage.n_answered": answered,
                       "coverage.n_unanswered_excluded": possible - answered})
    if multi:
        out.counts["localization.n_pairs_multi_region"] = multi
    if unscored:
        out.counts["localization.n_pairs_unscored_shapes"] = unscored
        out.notes.append(
            f"{unscored} pairs of answers hold shapes Accord does not score "
            f"({', '.join(sorted(unread))}, no tool of Potato 2.12.1's canvas draws them): "
            "they are left out of localization, not scored 0 or 1")
    if sizes_differ:
        out.counts["localization.n_mask_pairs_size_differs"] = sizes_differ
        out.notes.append(
            f"{sizes_differ} pairs of answers hold masks of different sizes (the picture "
            "changed between annotators?): such masks score 0 against each other (Potato "
            "2.12.1 compares their flat pixel indices)")
    out.sweep = [{"iou_threshold": t,
                  "agreement": (sum(1 for s in scores if s >= t) / len(scores)
                                if scores else None)} for t in THRESHOLDS]
    return out
