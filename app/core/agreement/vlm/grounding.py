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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.vlm.common import Row, coefficient, long_alpha, median
from app.core.agreement.vlm.reading import Grounded
from app.core.objects import Landmark, SceneObject

THRESHOLDS = (0.25, 0.5, 0.75, 0.9)
HEADLINE = 0.5
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


def shape_similarity(a: SceneObject, b: SceneObject) -> float:
    """Potato's ``region_similarity``: IoU (or its point and keypoint similarities) for
    two shapes of one type, 0 across types."""
    from app.core.agreement.sets.structured import region_set_similarity

    if type(a) is not type(b):
        return 0.0
    return float(region_set_similarity([a], [b])[0, 0])


def set_similarity(a: Sequence[SceneObject], b: Sequence[SceneObject]) -> float | None:
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
    hits = pairs = multi = answered = possible = 0
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
                multi += len(left.regions) > 1 or len(right.regions) > 1
                if any(isinstance(r, Landmark) for r in left.regions):
                    p, q = _first_point(left.regions), _first_point(right.regions)
                    if p is not None and q is not None:
                        distances.append(math.hypot(p[0] - q[0], p[1] - q[1]))
                    continue
                score = set_similarity(left.regions, right.regions)
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
    out.sweep = [{"iou_threshold": t,
                  "agreement": (sum(1 for s in scores if s >= t) / len(scores)
                                if scores else None)} for t in THRESHOLDS]
    return out
