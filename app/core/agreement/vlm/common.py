"""What the four measures share: Krippendorff's α over ``(annotator, unit, value)``
rows with any distance, Potato's one-to-one matching rule, the median and the mean.

α is Accord's coincidence-matrix α (``categorical/alpha.py``) on a value table built
from the rows, with Potato 2.12.1's gates kept (``iaa/alpha.py``): undefined when the
rows hold fewer than two units or fewer than two annotators (counted over every row,
pairable or not), and when there is no expected disagreement.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from app.core.agreement.categorical.alpha import (
    alpha,
    counts_from_codes,
    nominal_metric,
    ordinal_metric,
)
from app.core.agreement.coefficient import Coefficient

Row = tuple[str, str, Any]
"""``(annotator, unit, value)``."""

FEW_UNITS = "α needs answers on at least two units from at least two annotators"


def long_alpha(rows: Sequence[Row], level: str | Callable[[Any, Any], float] = "nominal"
               ) -> Coefficient:
    """Krippendorff's α of long-format rows: ``level`` is ``"nominal"``, ``"ordinal"``
    (values ranked as numbers; nominal when one is not a number, as Potato) or a
    distance ``δ²(a, b)``. One value per (annotator, unit): the last row wins."""
    units = sorted({u for _, u, _ in rows})
    annotators = sorted({a for a, _, _ in rows})
    if len(units) < 2 or len(annotators) < 2:
        return Coefficient.undefined(FEW_UNITS)
    values: list[Hashable] = list(dict.fromkeys(v for _, _, v in rows))
    metric: Callable[[np.ndarray], np.ndarray]
    if level == "ordinal":
        try:
            values.sort(key=lambda v: float(v))  # type: ignore[arg-type]
            metric = ordinal_metric
        except (TypeError, ValueError):
            metric = nominal_metric
    elif level == "nominal":
        metric = nominal_metric
    else:
        distance = level
        assert callable(distance)
        d2 = np.array([[distance(a, b) for b in values] for a in values], dtype=np.float64)
        d2 = d2.reshape(len(values), len(values))

        def metric(_: np.ndarray) -> np.ndarray:
            return d2
    index = {v: k for k, v in enumerate(values)}
    unit_of = {u: i for i, u in enumerate(units)}
    column = {a: j for j, a in enumerate(annotators)}
    codes = np.full((len(units), len(annotators)), -1, dtype=np.int64)
    for a, u, v in rows:
        codes[unit_of[u], column[a]] = index[v]
    return alpha(counts_from_codes(codes, len(values)), metric)


def match_one_to_one(scores: np.ndarray, threshold: float) -> list[tuple[int, int, float]]:
    """Potato's matching (``iaa/geometry.match_instances``): the most pairs at or above
    ``threshold``, among those the highest total similarity (one assignment whose
    ineligible pairs cost more than any number of eligible ones)."""
    from scipy.optimize import linear_sum_assignment

    s = np.asarray(scores, dtype=np.float64)
    if s.size == 0:
        return []
    ineligible = float(min(s.shape) + 1)
    cost = np.where(s >= threshold, 1.0 - s, ineligible)
    rows, cols = linear_sum_assignment(cost)
    return [(int(i), int(j), float(s[i, j])) for i, j in zip(rows, cols, strict=True)
            if s[i, j] >= threshold]


def median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2.0


def mean(values: Sequence[float | None]) -> float | None:
    real = [v for v in values if v is not None]
    return sum(real) / len(real) if real else None


def coefficient(value: float | None, reason: str) -> Coefficient:
    """A number, or undefined with ``reason``."""
    return Coefficient.undefined(reason) if value is None or value != value \
        else Coefficient.of(value)
