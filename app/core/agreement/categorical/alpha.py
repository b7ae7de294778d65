"""Krippendorff's α in the coincidence-matrix form, for any distance.

Data enter as a **value-count matrix** ``counts[u, v]``: how many annotators gave value
``v`` on unit ``u`` (values are indices into a table the caller keeps). Units with fewer
than two values are not pairable and drop out, as Krippendorff (2011) prescribes.

With ``m_u`` the values in unit ``u`` and ``n`` all pairable values, the coincidences
are ``o_ck = Σ_u (n_uc·n_uk − [c = k]·n_uc) / (m_u − 1)`` and

    α = 1 − (n − 1) · Σ o_ck δ²_ck / Σ n_c n_k δ²_ck.

The distance ``δ²`` comes from a *metric*: a function of the pairable marginals ``n_c``
that returns the ``V × V`` matrix (the ordinal metric needs the marginals; the others
ignore them). For MASI on label sets the MASI distance itself is used as δ², as in
Passonneau (2006) and NLTK's ``AnnotationTask``.

Cost: one pass to count, one ``V × V`` product; independent of the number of annotators
beyond counting, which is what makes 50,000 units × 20 annotators fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from app.core.agreement.coefficient import Coefficient

Metric = Callable[[np.ndarray], np.ndarray]

NO_PAIRABLE_UNITS = "no unit has values from two or more annotators, so there is nothing to compare"
NO_VARIATION = (
    "every value is the same (0/0): with no variation there is no chance disagreement to "
    "correct against"
)


def value_counts(units: np.ndarray, values: np.ndarray, n_units: int, n_values: int) -> np.ndarray:
    """Count matrix ``(n_units, n_values)`` from parallel arrays of unit and value indices."""
    flat = np.asarray(units, dtype=np.int64) * n_values + np.asarray(values, dtype=np.int64)
    return np.bincount(flat, minlength=n_units * n_values).reshape(n_units, n_values)


def counts_from_codes(codes: np.ndarray, n_values: int) -> np.ndarray:
    """Count matrix from a ``(units, annotators)`` code matrix where −1 is missing.

    One ``bincount`` over every cell, no masking: each unit owns ``n_values + 1`` bins,
    the first for missing codes (any negative code), dropped at the end.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n_units = codes.shape[0]
    width = n_values + 1
    flat = np.maximum(codes, -1)
    flat += (np.arange(n_units, dtype=np.int64) * width + 1)[:, None]
    binned = np.bincount(flat.ravel(), minlength=n_units * width)
    return np.ascontiguousarray(binned.reshape(n_units, width)[:, 1:])


def _row_sums(counts: np.ndarray) -> np.ndarray:
    """``counts.sum(axis=1)``; ``einsum`` is several times faster on narrow rows."""
    sums: np.ndarray = np.einsum("uv->u", counts)
    return sums


def pairable(counts: np.ndarray) -> np.ndarray:
    """The rows of ``counts`` with two or more values."""
    return counts[_row_sums(counts) >= 2]


def _coincidences_of_pairable(c: np.ndarray) -> np.ndarray:
    """The coincidence matrix of rows that are all pairable, as float64 counts."""
    m = _row_sums(c)
    weighted = c / (m - 1.0)[:, None]
    o: np.ndarray = weighted.T @ c
    o[np.diag_indices_from(o)] -= weighted.sum(axis=0)
    return o


def coincidences(counts: np.ndarray) -> np.ndarray:
    """The ``V × V`` coincidence matrix of the pairable units of ``counts``."""
    return _coincidences_of_pairable(pairable(counts).astype(np.float64))


def alpha(counts: np.ndarray, metric: Metric) -> Coefficient:
    """Krippendorff's α of a value-count matrix under ``metric``."""
    c = pairable(np.asarray(counts))
    if c.shape[0] == 0:
        return Coefficient.undefined(NO_PAIRABLE_UNITS)
    o = _coincidences_of_pairable(c.astype(np.float64))
    n_c = o.sum(axis=1)
    n = float(n_c.sum())
    delta2 = metric(n_c)
    observed = float((o * delta2).sum())
    expected = float((np.outer(n_c, n_c) * delta2).sum())
    if expected <= 0.0:
        return Coefficient.undefined(NO_VARIATION)
    return Coefficient.of(1.0 - (n - 1.0) * observed / expected)


# ----------------------------------------------------------------------------- metrics


def nominal_metric(n_c: np.ndarray) -> np.ndarray:
    """δ² = 0 for equal values, 1 otherwise."""
    v = n_c.size
    return 1.0 - np.eye(v)


def ordinal_metric(n_c: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal δ²: (Σ_{g=c..k} n_g − (n_c + n_k)/2)², values in rank order."""
    cumulative = np.concatenate(([0.0], np.cumsum(n_c)))
    lo = np.minimum.outer(np.arange(n_c.size), np.arange(n_c.size))
    hi = np.maximum.outer(np.arange(n_c.size), np.arange(n_c.size))
    between = cumulative[hi + 1] - cumulative[lo]
    d = between - (n_c[:, None] + n_c[None, :]) / 2.0
    d2: np.ndarray = d * d
    d2[np.diag_indices_from(d2)] = 0.0
    return d2


def interval_metric(values: Sequence[float] | np.ndarray) -> Metric:
    """δ² = (v_c − v_k)² for numeric values in table order."""
    v = np.asarray(values, dtype=np.float64)
    d2 = np.subtract.outer(v, v) ** 2

    def metric(_: np.ndarray) -> np.ndarray:
        return d2

    return metric


def ratio_metric(values: Sequence[float] | np.ndarray) -> Metric:
    """δ² = ((v_c − v_k) / (v_c + v_k))², 0 where both are 0."""
    v = np.asarray(values, dtype=np.float64)
    total = np.add.outer(v, v)
    diff = np.subtract.outer(v, v)
    with np.errstate(divide="ignore", invalid="ignore"):
        d2 = np.where(total == 0.0, 0.0, (diff / np.where(total == 0.0, 1.0, total)) ** 2)

    def metric(_: np.ndarray) -> np.ndarray:
        return d2

    return metric


def masi_distance(a: frozenset[str], b: frozenset[str]) -> float:
    """MASI distance (Passonneau 2006): 1 − Jaccard · monotonicity; two empty sets: 0."""
    if a == b:
        return 0.0
    union = len(a | b)
    inter = len(a & b)
    jaccard = inter / union
    if a <= b or b <= a:
        monotonicity = 2.0 / 3.0
    elif inter > 0:
        monotonicity = 1.0 / 3.0
    else:
        monotonicity = 0.0
    return 1.0 - jaccard * monotonicity


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|A ∩ B| / |A ∪ B|; two empty sets are identical answers: 1."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def set_metric(sets: Sequence[frozenset[str]]) -> Metric:
    """MASI δ² between the label sets of a value table."""
    d2 = np.array([[masi_distance(a, b) for b in sets] for a in sets], dtype=np.float64)
    d2 = d2.reshape(len(sets), len(sets))

    def metric(_: np.ndarray) -> np.ndarray:
        return d2

    return metric


# ---------------------------------------------------------------- reliability-data API

LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Up to this many distinct values, counting is one vectorised comparison per value
# (no sort with inverse, no codes array); beyond it, one sort with inverse.
_COMPARE_MAX_VALUES = 16


def _reliability_counts(array: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values and the units × values count matrix of reliability data.

    ``array`` is ``(annotators, units)`` with ``NaN`` for a missing value.
    """
    distinct = np.unique(array)  # NaNs collapse into one trailing entry
    table = distinct[~np.isnan(distinct)]
    n_units = array.shape[1]
    if table.size <= _COMPARE_MAX_VALUES:
        by_value = np.empty((table.size, n_units), dtype=np.int64)
        equal = np.empty(array.shape, dtype=bool)
        for k, value in enumerate(table):
            np.equal(array, value, out=equal)  # NaN equals nothing: missing drops out
            np.sum(equal, axis=0, out=by_value[k])
        return table, np.ascontiguousarray(by_value.T)
    annotators, units = np.nonzero(~np.isnan(array))
    _, inverse = np.unique(array[annotators, units], return_inverse=True)
    return table, value_counts(units, inverse, n_units, table.size)


def alpha_from_reliability(data: np.ndarray | Sequence[Sequence[float | None]],
                           level: str = "nominal") -> Coefficient:
    """α of an ``(annotators, units)`` array of numbers with ``NaN``/``None`` missing.

    The layout of Krippendorff (2011) and of the ``krippendorff`` package; for the
    ordinal, interval and ratio levels the values' numeric order and size are used.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    array = np.asarray(data, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(f"reliability data must be 2-D (annotators, units), got {array.shape}")
    table, counts = _reliability_counts(array)
    metric: Metric
    if level == "nominal":
        metric = nominal_metric
    elif level == "ordinal":
        metric = ordinal_metric
    elif level == "interval":
        metric = interval_metric(table)
    else:
        metric = ratio_metric(table)
    return alpha(counts, metric)
