"""Potato's ORDINAL extras: weighted κ (linear, quadratic) and Spearman's ρ.

How Potato 2.12.1 computes them (``iaa/ordinal.py``, ``dispatcher.py``
``_aggregate_ordinal``), followed here:

- Values become numbers first: with the scheme's ``labels`` list (two or more) each
  label is its position in that list; otherwise a likert answer is its number. A value
  the list does not name keeps its number if it has one.
- Weighted κ per annotator pair on its ≥ 2 shared items, then the mean over pairs. The
  categories are Potato's *filled scale*: when every value of the pair is an integer,
  every integer from the pair's lowest to its highest value (at most 1001 points), else
  the sorted values seen. Potato's dispatcher passes no declared scale to this step, so
  the fill spans what the pair used; a scale point inside that span that nobody chose
  still counts (it changes κ), an unused end point does not. Index-difference weights
  (linear |i−j|, quadratic (i−j)²), as scikit-learn's ``cohen_kappa_score``.
- Spearman's ρ per pair on its ≥ 2 shared items (average ranks for ties), mean over
  pairs; a pair where one side is constant has no ρ and is left out.
- ``alpha_ordinal`` is Krippendorff's ordinal α on the same numbers.

Accord's own ordinal report (``kappa``: quadratic κ over the *declared* full scale)
stays as it is; these are Potato's numbers under Potato's names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

from app.core.agreement.categorical.kappa import cohen_kappa
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.metrics import TOO_FEW, alpha_level, pearson_r
from app.core.agreement.continuous.pairs import Rows, annotator_count, pair_mean
from app.core.agreement.continuous.reading import as_float

MAX_FILL = 1000
RHO_CONSTANT = "one of the two gave the same rank on every shared item, so ρ is 0/0"


def scale_order(config: Mapping[str, Any]) -> dict[str, int] | None:
    """``{label: position}`` from the scheme's ``labels`` list (Potato's ordering)."""
    labels = config.get("labels")
    if not isinstance(labels, list) or len(labels) < 2:
        return None
    order: dict[str, int] = {}
    for rank, label in enumerate(labels):
        name = label.get("name") if isinstance(label, dict) else label
        if name is None:
            return None
        order[str(name)] = rank
    return order


def to_number(value: str, order: Mapping[str, int] | None) -> float | None:
    """A stored ordinal answer as Potato ranks it; ``None`` if it has no number."""
    if order is not None and value in order:
        return float(order[value])
    return as_float(value)


def filled_scale(a: Sequence[float], b: Sequence[float]) -> list[float]:
    points = set(a) | set(b)
    if all(float(p).is_integer() for p in points):
        low, high = int(min(points)), int(max(points))
        if high - low <= MAX_FILL:
            return [float(p) for p in range(low, high + 1)]
    return sorted(points)


def weighted_kappa(a: Sequence[float], b: Sequence[float], weights: str) -> Coefficient:
    if len(a) < 1:
        return Coefficient.undefined(TOO_FEW)
    points = filled_scale(a, b)
    index = {p: k for k, p in enumerate(points)}
    codes_a = np.array([index[x] for x in a], dtype=np.int64)
    codes_b = np.array([index[x] for x in b], dtype=np.int64)
    return cohen_kappa(codes_a, codes_b, len(points), weights)


def weighted_kappa_linear(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    return weighted_kappa(a, b, "linear")


def weighted_kappa_quadratic(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    return weighted_kappa(a, b, "quadratic")


def spearman_rho(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    if len(a) < 2:
        return Coefficient.undefined(TOO_FEW)
    r = pearson_r(list(rankdata(a)), list(rankdata(b)))
    return r if r.value is not None else Coefficient.undefined(RHO_CONSTANT)


def ordinal_block(rows: Rows[float]) -> Block:
    """Potato's ORDINAL block on answers already turned into numbers."""
    return Block(
        metrics={
            "weighted_kappa_linear": pair_mean(rows, weighted_kappa_linear),
            "weighted_kappa_quadratic": pair_mean(rows, weighted_kappa_quadratic),
            "spearman_rho": pair_mean(rows, spearman_rho),
            "alpha_ordinal": alpha_level(rows, "ordinal"),
        },
        counts={"n_items": len(rows), "n_annotators": annotator_count(rows)},
    )
