"""World-model rollout agreement (``rollout_evaluation``, ``kinds.md`` B §2.10).

Four questions, a tolerance sweep behind the first three (0.04, 0.25, 0.5, 1, 2 s;
headline 0.5 s), as Potato 2.12.1 reports them:

- **detection**: does it break? An annotator answers a stream by marking a break on it
  or listing it clean. Per (item, stream) with two or more who answered, breaks are
  clustered greedily (annotators in sorted order, a mark joins the first cluster it
  overlaps: similarity 1 − |Δt| / tolerance > 0 to the cluster's first mark) and each
  cluster is a unit with "break" or "none" per answering annotator: nominal α;
- **category** (break ``type``, nominal α) and **severity** (ordinal α) over the
  clusters that two or more annotators' marks joined;
- **localization**: per pair and stream, marks matched one-to-one (Hungarian on the
  similarity, any positive similarity eligible); ``mean_offset`` and
  ``median_offset`` of the matched |Δt| (seconds); ``sigma`` = 1 − mean matched offset /
  mean offset between marks of different items (every such pair when there are at most
  2,000, else 2,000 drawn with Python's ``random.Random(20260815)`` as Potato draws
  them); ``ks`` the two-sample Kolmogorov-Smirnov statistic between the two samples;
- **preference** (``preference.winner``) and **counterfactual**
  (``counterfactual.verdict``): nominal α over items; **coverage**: answered /
  possible (stream, annotator) responses.

α is undefined with a sentence for fewer than two judgements or one value throughout.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.vlm.common import Row, coefficient, long_alpha, match_one_to_one, median
from app.core.agreement.vlm.reading import Rollout, Violation

TOLERANCES = (0.04, 0.25, 0.5, 1.0, 2.0)
HEADLINE = 0.5
CHANCE_SAMPLES = 2000
SEED = 20260815
METRICS = ("detection.alpha", "localization.mean_offset", "localization.sigma",
           "localization.ks", "category.alpha", "severity.alpha", "preference.alpha",
           "counterfactual.alpha", "coverage.answered_fraction")
Items = Mapping[str, Mapping[str, Rollout]]


@dataclass(slots=True)
class RolloutAgreement:
    metrics: dict[str, Coefficient] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    sweep: list[dict[str, Any]] = field(default_factory=list)


def similarity(a: float, b: float, tolerance: float) -> float:
    if tolerance <= 0:
        return 1.0 if a == b else 0.0
    return max(0.0, 1.0 - abs(a - b) / tolerance)


def by_stream(r: Rollout) -> dict[str, list[Violation]]:
    out: dict[str, list[Violation]] = {}
    for v in r.violations:
        out.setdefault(v.stream, []).append(v)
    for marks in out.values():
        marks.sort(key=lambda v: v.t)
    return out


def answered(r: Rollout) -> set[str]:
    return {v.stream for v in r.violations} | set(r.clean)


def streams_in(by: Mapping[str, Rollout]) -> set[str]:
    return set().union(*(answered(r) for r in by.values())) if by else set()


def clusters(marks: Mapping[str, list[Violation]], tolerance: float
             ) -> list[dict[str, Violation]]:
    out: list[dict[str, Violation]] = []
    for annotator in sorted(marks):
        for mark in marks[annotator]:
            for cluster in out:
                if annotator not in cluster and similarity(
                        next(iter(cluster.values())).t, mark.t, tolerance) > 0:
                    cluster[annotator] = mark
                    break
            else:
                out.append({annotator: mark})
    return out


def _alpha(rows: list[Row], level: str, unanimous: str) -> Coefficient:
    if len(rows) < 2:
        return Coefficient.undefined("fewer than two judgements to compare")
    values = {str(v) for _, _, v in rows}
    if len(values) < 2:
        return Coefficient.undefined(
            f"{unanimous}, so there is no variation for α to correct against: perfect "
            "agreement, not a failed computation")
    return long_alpha(rows, level)


def detection(items: Items, tolerance: float) -> Coefficient:
    rows: list[Row] = []
    for item, by in items.items():
        for stream in sorted(streams_in(by)):
            who = [a for a, r in by.items() if stream in answered(r)]
            if len(who) < 2:
                continue
            marks = {a: by_stream(by[a]).get(stream, []) for a in who}
            for k, cluster in enumerate(clusters(marks, tolerance)):
                rows.extend((a, f"{item}::{stream}#{k}",
                             "break" if a in cluster else "none") for a in who)
    return _alpha(rows, "nominal", "every annotator marked the same breaks")


def category(items: Items, tolerance: float, which: str) -> Coefficient:
    rows: list[Row] = []
    for item, by in items.items():
        for stream in sorted(streams_in(by)):
            marks = {a: m for a, r in by.items() if (m := by_stream(r).get(stream, []))}
            for k, cluster in enumerate(clusters(marks, tolerance)):
                if len(cluster) < 2:
                    continue
                for a, mark in cluster.items():
                    value = mark.type if which == "type" else mark.severity
                    if value not in (None, ""):
                        rows.append((a, f"{item}::{stream}#{k}", value))
    level = "nominal" if which == "type" else "ordinal"
    return _alpha(rows, level, f"every matched break got the same {which}")


def within_offsets(items: Items, tolerance: float) -> list[float]:
    out: list[float] = []
    for item in sorted(items):
        by = items[item]
        for stream in sorted(streams_in(by)):
            marks = {a: by_stream(r).get(stream, []) for a, r in by.items()}
            for a, b in combinations(sorted(by), 2):
                left, right = marks[a], marks[b]
                if not left or not right:
                    continue
                scores = np.array([[similarity(x.t, y.t, tolerance) for y in right]
                                   for x in left])
                out.extend(abs(left[i].t - right[j].t)
                           for i, j, _ in match_one_to_one(scores, 1e-9))
    return out


def between_offsets(items: Items, samples: int = CHANCE_SAMPLES, seed: int = SEED
                    ) -> list[float]:
    pool = [(item, v.t) for item in sorted(items) for a in sorted(items[item])
            for v in items[item][a].violations]
    if len(pool) < 2:
        return []
    per_item: dict[str, int] = {}
    for item, _ in pool:
        per_item[item] = per_item.get(item, 0) + 1
    n_between = (len(pool) * (len(pool) - 1)
                 - sum(c * (c - 1) for c in per_item.values())) // 2
    if n_between <= samples:
        return [abs(t - u) for k, (i, t) in enumerate(pool) for j, u in pool[k + 1:]
                if i != j]
    rng = random.Random(seed)
    out: list[float] = []
    attempts = 0
    while len(out) < samples and attempts < samples * 4:
        attempts += 1
        i, t = pool[rng.randrange(len(pool))]
        j, u = pool[rng.randrange(len(pool))]
        if i != j:
            out.append(abs(t - u))
    return out


def ks_statistic(a: list[float], b: list[float]) -> float | None:
    """Two-sample KS statistic, ties counted at once (scipy's ``ks_2samp``)."""
    if not a or not b:
        return None
    x, y = np.sort(a), np.sort(b)
    grid = np.concatenate([x, y])
    fx = np.searchsorted(x, grid, side="right") / x.size
    fy = np.searchsorted(y, grid, side="right") / y.size
    return float(np.abs(fx - fy).max())


def localization(items: Items, tolerance: float, between: list[float]
                 ) -> dict[str, Coefficient]:
    within = within_offsets(items, tolerance)
    none = "no break of one annotator matched another's within the tolerance"
    mw = sum(within) / len(within) if within else None
    mb = sum(between) / len(between) if between else None
    sigma = None if mw is None or not mb else 1.0 - mw / mb
    why_sigma = none if mw is None else \
        "σ needs breaks on two or more items (the chance offsets are between items)"
    return {"localization.mean_offset": coefficient(mw, none),
            "localization.median_offset": coefficient(median(within), none),
            "localization.sigma": coefficient(sigma, why_sigma),
            "localization.ks": coefficient(ks_statistic(within, between), why_sigma),
            "localization.n_matched_pairs": Coefficient.of(len(within))}


def scalar(items: Items, which: str, unanimous: str) -> Coefficient:
    rows: list[Row] = [(a, item, r.winner if which == "winner" else r.verdict)
                       for item, by in items.items() for a, r in by.items()]
    rows = [(a, i, v) for a, i, v in rows if v is not None]
    return _alpha(rows, "nominal", unanimous)


def rollout_agreement(answers: Items) -> RolloutAgreement:
    items = {i: by for i, by in answers.items() if len(by) >= 2}
    out = RolloutAgreement()
    out.counts = {"n_items": len(items), "n_items_skipped": len(answers) - len(items)}
    between = between_offsets(items)
    for tolerance in sorted({*TOLERANCES, HEADLINE}):
        row: dict[str, Coefficient] = {
            "detection.alpha": detection(items, tolerance),
            **localization(items, tolerance, between),
            "category.alpha": category(items, tolerance, "type"),
            "severity.alpha": category(items, tolerance, "severity"),
        }
        out.sweep.append({"tolerance": tolerance,
                          **{k: v.value for k, v in row.items()}})
        if abs(tolerance - HEADLINE) < 1e-9:
            out.metrics.update(row)
    out.metrics["preference.alpha"] = scalar(items, "winner",
                                             "every annotator preferred the same rollout")
    out.metrics["counterfactual.alpha"] = scalar(items, "verdict",
                                                 "every annotator gave the same verdict")
    got = possible = 0
    for by in items.values():
        streams = streams_in(by)
        for r in by.values():
            possible += len(streams)
            got += len(answered(r) & streams)
    out.metrics["coverage.answered_fraction"] = coefficient(
        got / possible if possible else None, "no stream was answered on a scored item")
    out.counts["coverage.answered_stream_responses"] = got
    out.counts["coverage.possible_stream_responses"] = possible
    out.counts["localization.n_chance_pairs"] = len(between)
    return out
