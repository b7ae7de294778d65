"""Agreement on coded units: nominal, ordinal, multilabel and agent-trace schemes.

What is reported (``agreement.md``, Categorical schemes, Agent traces):

- nominal: α (nominal), Fleiss' κ, mean pairwise Cohen's κ, percent agreement;
- ordinal: α (ordinal metric), mean pairwise κ with quadratic weights over the full
  scale, percent agreement;
- multilabel: α with the MASI distance, mean Jaccard, percent agreement (identical
  sets). Cohen's κ compares single labels and has no standard form for label sets, so
  ``kappa`` is ``null`` with that sentence rather than an invented number;
- trace: nominal α over step units, mean pairwise Cohen's κ over the steps both
  labelled, percent agreement, ``n_units``.

``kappa`` is the mean over annotator pairs whose κ is defined; the pairs left out and
why are reported. Percent agreement pools pairs over units. Every coefficient is also
given per annotator pair (α, κ, percent agreement over the units the pair shares).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from app.core.agreement.categorical.alpha import (
    Metric,
    alpha,
    counts_from_codes,
    jaccard,
    nominal_metric,
    ordinal_metric,
    set_metric,
)
from app.core.agreement.categorical.kappa import cohen_kappa, fleiss_kappa, pooled_pair_similarity
from app.core.agreement.categorical.units import CodedUnits
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.result import SchemeResult, pair_key
from app.core.model import Kind

NO_PAIRS = "no unit was labelled by two or more annotators, so there is no pair to compare"
KAPPA_FOR_SETS = (
    "Cohen's κ compares single labels and has no standard form for label sets; read α "
    "(MASI distance) and mean Jaccard instead"
)


def metric_for(kind: Kind, values: tuple[object, ...]) -> Metric:
    if kind is Kind.ORDINAL:
        return ordinal_metric
    if kind is Kind.MULTILABEL:
        return set_metric([v for v in values if isinstance(v, frozenset)])
    return nominal_metric


def _kappa_weights(kind: Kind) -> str | None:
    return "quadratic" if kind is Kind.ORDINAL else None


def score_units(units: CodedUnits, kind: Kind, result: SchemeResult) -> None:
    """Fill ``result`` with the coefficients of ``kind`` on ``units``."""
    n_values = len(units.values)
    counts = counts_from_codes(units.codes, n_values)
    metric = metric_for(kind, units.values)
    per_unit = counts.sum(axis=1)
    pairable_units = int((per_unit >= 2).sum())
    result.n_pairs = int((per_unit * (per_unit - 1) // 2).sum())

    result.put("alpha", alpha(counts, metric))
    if kind is Kind.NOMINAL:
        result.put("fleiss_kappa", fleiss_kappa(counts))
    if kind is Kind.MULTILABEL:
        result.put("kappa", Coefficient.undefined(KAPPA_FOR_SETS))
    else:
        result.put("kappa", _mean_pair_kappa(units, kind, result))
    share, _ = pooled_pair_similarity(counts)
    result.put("percent_agreement",
               Coefficient.of(share) if share is not None else Coefficient.undefined(NO_PAIRS))
    if kind is Kind.MULTILABEL:
        similarity = _jaccard_matrix(units.values)
        mean_j, _ = pooled_pair_similarity(counts, similarity)
        result.put("mean_jaccard", Coefficient.of(mean_j) if mean_j is not None
                   else Coefficient.undefined(NO_PAIRS))
    if kind is Kind.TRACE:
        result.metrics["n_units"] = pairable_units
        result.extra["n_units"] = pairable_units
    result.pairs = _pair_matrix(units, kind, metric)


def _mean_pair_kappa(units: CodedUnits, kind: Kind, result: SchemeResult) -> Coefficient:
    n_categories = len(units.values)
    defined: list[float] = []
    left_out: list[str] = []
    for j, k in combinations(range(len(units.annotators)), 2):
        a, b = units.codes[:, j], units.codes[:, k]
        if not ((a >= 0) & (b >= 0)).any():
            continue
        kappa = cohen_kappa(a, b, n_categories, _kappa_weights(kind))
        if kappa.value is None:
            left_out.append(pair_key(units.annotators[j], units.annotators[k]))
        else:
            defined.append(kappa.value)
    result.extra["kappa_pairs"] = {"defined": len(defined), "left_out": len(left_out)}
    if left_out:
        result.notes.append(
            f"κ is the mean over {len(defined)} annotator pairs; {len(left_out)} left out "
            f"because their κ is undefined ({', '.join(left_out[:5])}"
            f"{', …' if len(left_out) > 5 else ''}).")
    if not defined:
        if left_out:
            return Coefficient.undefined(
                "no annotator pair has a defined κ: every pair used one and the same label "
                "on all the units it shares")
        return Coefficient.undefined(NO_PAIRS)
    return Coefficient.of(float(np.mean(defined)))


def _pair_matrix(units: CodedUnits, kind: Kind, metric: Metric
                 ) -> dict[str, dict[str, float | int | None]]:
    n_values = len(units.values)
    size_key = "n_units" if kind is Kind.TRACE else "n_items"
    pairs: dict[str, dict[str, float | int | None]] = {}
    for j, k in combinations(range(len(units.annotators)), 2):
        both = (units.codes[:, j] >= 0) & (units.codes[:, k] >= 0)
        n_shared = int(both.sum())
        if n_shared == 0:
            continue
        codes = units.codes[both][:, [j, k]]
        counts = counts_from_codes(codes, n_values)
        entry: dict[str, float | int | None] = {
            "alpha": alpha(counts, metric).value,
            "kappa": (None if kind is Kind.MULTILABEL else
                      cohen_kappa(codes[:, 0], codes[:, 1], n_values,
                                  _kappa_weights(kind)).value),
            "percent_agreement": float(np.mean(codes[:, 0] == codes[:, 1])),
            size_key: n_shared,
        }
        pairs[pair_key(units.annotators[j], units.annotators[k])] = entry
    return pairs


def _jaccard_matrix(values: tuple[object, ...]) -> np.ndarray:
    sets = [v if isinstance(v, frozenset) else frozenset() for v in values]
    return np.array([[jaccard(a, b) for b in sets] for a in sets],
                    dtype=np.float64).reshape(len(sets), len(sets))
