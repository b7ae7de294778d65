"""Which items show the most disagreement: the order presentation mode steps through.

Presentation mode (desktop issue, part 10) walks an audience through the items where
annotators disagree most, lowest item score first. This module computes that order from
the report's ``details`` alone (pure, numpy; no Qt), so it is tested without a window.

The item score per scheme, in [0, 1] (1 = full agreement), where ``agreement.md`` is
silent on anything but set kinds (the items table's score, from ``item_scores``, for
every kind but masks):

- set kinds (cuboids, segments, tiers, regions): the mean over annotator pairs of the
  pair's item score (``PairOutcome.score``, ``agreement.md`` step 3);
- categorical and trace kinds (``CodedUnits``): the share of agreeing annotator pairs
  over every unit of the item (for a trace, all its steps together); units with fewer
  than two values give no pairs; an item with no pairs gets no score;
- masks (``MaskAgreement``): the mean over annotators and labels of STAPLE's balanced
  accuracy ``(sensitivity + specificity) / 2``.

Across schemes (no scheme chosen) an item's score is its *worst* scheme score: an item
on which any question splits the annotators is worth showing. Ties break by item id so
the order is stable from run to run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import numpy as np

from app.core.agreement.item_scores import item_scores as per_item_scores
from app.core.agreement.masks.report import MaskAgreement
from app.core.agreement.result import AgreementReport, SchemeResult


def scheme_item_scores(result: SchemeResult) -> dict[str, float]:
    """Item id → item score in [0, 1] for one scheme (empty when it has no details).

    Set, categorical and trace kinds are the items table's scores
    (:mod:`app.core.agreement.item_scores`), so the two can never disagree; masks, which
    the table does not score, use STAPLE's balanced accuracy.
    """
    details = result.details
    if isinstance(details, MaskAgreement):
        pairs: list[tuple[str, float]] = []
        for run in details.runs:
            balanced = (np.asarray(run.sensitivity) + np.asarray(run.specificity)) / 2.0
            pairs.extend((run.item, float(v)) for v in balanced)
        return _mean_by_item(pairs)
    scores = per_item_scores(result)
    if scores is None:
        return {}
    return {item: float(score) for item, score in zip(scores.items, scores.score, strict=True)
            if np.isfinite(score)}


def item_scores(report: AgreementReport, scheme: str | None = None) -> dict[str, float]:
    """Item id → score: that scheme's, or with ``scheme=None`` the worst over schemes."""
    if scheme is not None:
        result = report.schemes.get(scheme)
        return {} if result is None else scheme_item_scores(result)
    worst: dict[str, float] = {}
    for result in report.schemes.values():
        for item, score in scheme_item_scores(result).items():
            worst[item] = min(score, worst.get(item, score))
    return worst


def rank_items(report: AgreementReport, scheme: str | None = None) -> list[str]:
    """Items with a score, most disagreement (lowest score) first; ties by item id."""
    scores = item_scores(report, scheme)
    return sorted(scores, key=lambda item: (scores[item], item))


def _mean_by_item(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for item, value in pairs:
        if np.isfinite(value):
            sums[item] += float(value)
            counts[item] += 1
    return {item: sums[item] / counts[item] for item in sums if counts[item]}
