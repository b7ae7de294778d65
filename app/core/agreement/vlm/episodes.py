"""Robot episode agreement (``episode_annotation``, ``kinds.md`` B §2.9): three groups,
because phases, outcome and reward are three different answers with different fixes.

- **phases**: the timeline's segments scored as every segment scheme is (temporal IoU,
  one-to-one matching at 0.5, ``sets/agreement.py``): ``mean_agreement`` (a label
  mismatch is half credit), ``mean_matched_iou``, ``detection_f1``; a pair where both
  marked no phase is counted (``n_empty_pairs``), not scored, as Potato does;
- **outcome**: nominal α over each episode's ``outcome.result``, unanswered outcomes
  left out; undefined with a sentence when fewer than two were recorded or all agree;
- **reward**: per item and pair, both curves linearly interpolated (no extrapolation)
  on 200 points over [0, duration] where both drew; with ≥ 3 such points ICC(2,1) and
  Pearson r; coverage = shared points / 200; means over pairs, then over items.
  ``duration`` is the latest time anyone annotated on the item (Potato's dispatcher
  passes no episode length), so the grid is Potato's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations, pairwise

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.vlm.common import Row, coefficient, long_alpha, mean
from app.core.agreement.vlm.reading import Episode
from app.core.model import Answer, Kind
from app.core.objects import ObjectSet

GRID = 200
METRICS = ("phases.mean_agreement", "phases.mean_matched_iou", "phases.detection_f1",
           "outcome.outcome_alpha", "reward.reward_icc", "reward.reward_pearson_r",
           "reward.reward_coverage")
NO_PHASES = ("no two annotators marked phases on a shared episode (pairs where both "
             "marked none are counted, not scored)")
NO_CURVES = "no episode has reward curves from two annotators overlapping on 3 or more " \
    "grid points"


@dataclass(slots=True)
class EpisodeAgreement:
    metrics: dict[str, Coefficient] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def reward_at(points: tuple[tuple[float, float], ...], t: float) -> float | None:
    if not points or t < points[0][0] or t > points[-1][0]:
        return None
    for (t0, v0), (t1, v1) in pairwise(points):
        if t <= t1:
            return v1 if t1 - t0 <= 0 else v0 + (v1 - v0) * ((t - t0) / (t1 - t0))
    return points[-1][1]


def icc_2_1(x: list[float], y: list[float]) -> float | None:
    """ICC(2,1) (Shrout & Fleiss; McGraw & Wong's A,1) of two raters' columns."""
    arr = np.column_stack([x, y]).astype(np.float64)
    n, k = arr.shape
    grand = arr.mean()
    ss_rows = k * float(((arr.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((arr.mean(axis=0) - grand) ** 2).sum())
    ss_err = float(((arr - grand) ** 2).sum()) - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    den = msr + (k - 1) * mse + k * (msc - mse) / n
    return None if den == 0 else (msr - mse) / den


def pearson(x: list[float], y: list[float]) -> float | None:
    a, b = np.asarray(x), np.asarray(y)
    da, db = a - a.mean(), b - b.mean()
    den = float(np.sqrt((da @ da) * (db @ db)))
    return None if den == 0 else max(-1.0, min(1.0, float(da @ db) / den))


def reward_pairs(curves: Mapping[str, tuple[tuple[float, float], ...]], duration: float
                 ) -> dict[str, float | None]:
    iccs: list[float | None] = []
    rs: list[float | None] = []
    cover: list[float | None] = []
    for a, b in combinations(sorted(k for k, v in curves.items() if v), 2):
        xs: list[float] = []
        ys: list[float] = []
        for i in range(GRID):
            t = duration * i / (GRID - 1)
            va, vb = reward_at(curves[a], t), reward_at(curves[b], t)
            if va is not None and vb is not None:
                xs.append(va)
                ys.append(vb)
        cover.append(len(xs) / GRID)
        if len(xs) >= 3:
            iccs.append(icc_2_1(xs, ys))
            rs.append(pearson(xs, ys))
    return {"reward.reward_icc": mean(iccs), "reward.reward_pearson_r": mean(rs),
            "reward.reward_coverage": mean(cover)}


def episode_agreement(answers: Mapping[str, Mapping[str, Episode]]) -> EpisodeAgreement:
    from app.core.agreement.sets.agreement import set_agreement, summarize
    from app.core.agreement.sets.structured import selector_and_similarity
    from app.core.progress import run

    out = EpisodeAgreement()
    items = {i: by for i, by in answers.items() if len(by) >= 2}
    segments: dict[str, dict[str, Answer]] = {
        i: {a: ObjectSet(e.phases) for a, e in by.items()} for i, by in items.items()}
    select, similarity = selector_and_similarity(Kind.SEGMENTS)
    agreement = run(set_agreement(segments, select, similarity, 0.5))
    scored = [o for o in agreement.outcomes if not o.empty]
    summary = summarize(scored)
    m = out.metrics
    m["phases.mean_agreement"] = coefficient(summary.mean_agreement, NO_PHASES)
    m["phases.mean_matched_iou"] = coefficient(
        summary.mean_matched_iou, "no phase of one annotator matched one of another's "
        "at temporal IoU 0.5" if scored else NO_PHASES)
    m["phases.detection_f1"] = coefficient(summary.detection_f1, NO_PHASES)
    out.counts["phases.n_scored_pairs"] = len(scored)
    out.counts["phases.n_empty_pairs"] = len(agreement.outcomes) - len(scored)
    rows: list[Row] = [(a, i, e.outcome) for i, by in items.items() for a, e in by.items()
                       if e.outcome]
    labels = {v for _, _, v in rows}
    if len(rows) < 2:
        m["outcome.outcome_alpha"] = Coefficient.undefined(
            "fewer than two outcomes were recorded")
    elif len(labels) < 2:
        m["outcome.outcome_alpha"] = Coefficient.undefined(
            f"every annotator recorded '{next(iter(labels))}', so there is no variation "
            "for α to correct against: perfect agreement, not a failed computation")
    else:
        m["outcome.outcome_alpha"] = long_alpha(rows, "nominal")
    out.counts["outcome.n_outcomes"] = len(rows)
    per_item: list[dict[str, float | None]] = []
    for by in items.values():
        curves = {a: e.reward for a, e in by.items()}
        ends = [t for e in by.values() for t, _ in e.reward]
        ends += [s.end for e in by.values() for s in e.phases]
        duration = max(ends) if ends else 0.0
        if duration > 0 and sum(1 for c in curves.values() if c) >= 2:
            per_item.append(reward_pairs(curves, duration))
    for name in ("reward.reward_icc", "reward.reward_pearson_r", "reward.reward_coverage"):
        m[name] = coefficient(mean([p[name] for p in per_item]), NO_CURVES)
    out.counts["reward.n_items"] = len(per_item)
    return out
