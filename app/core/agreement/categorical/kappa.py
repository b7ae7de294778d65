"""Cohen's κ (plain and weighted), Fleiss' κ, and pooled pairwise agreement.

- Cohen's κ compares two annotators on the units both labelled. Weighted κ uses
  disagreement weights over the scheme's *full* scale (``n_categories`` positions),
  not only the values used, so a 1-to-5 likert gives the same weights whatever the
  annotators happened to pick: κ_w = 1 − Σ w·O / Σ w·E.
- Fleiss' κ allows a varying number of raters per unit: each unit's agreement is over
  its own raters, ``P_u = (Σ n_uj² − m_u) / (m_u (m_u − 1))``, and the category shares
  are pooled over all ratings of those units. Units with one rating drop out (they hold
  no pair), which makes the result equal to Fleiss (1971) when every unit has the same
  number of raters.
- Pooled pairwise similarity: each unit contributes one pair per two annotators; the
  mean over all pairs of all units of a similarity (identity → percent agreement,
  Jaccard → mean Jaccard).
"""

from __future__ import annotations

import numpy as np

from app.core.agreement.categorical.alpha import pairable
from app.core.agreement.coefficient import Coefficient

NO_SHARED_UNITS = "the two annotators labelled no unit in common"
KAPPA_NO_VARIATION = (
    "chance agreement is total (0/0): on their shared units both annotators used one and "
    "the same label throughout"
)


def weight_matrix(n_categories: int, weights: str | None) -> np.ndarray:
    """Disagreement weights: ``None`` (0/1), ``"linear"`` or ``"quadratic"``."""
    i = np.arange(n_categories, dtype=np.float64)
    if weights is None:
        return 1.0 - np.eye(n_categories)
    span = max(n_categories - 1, 1)
    d = np.abs(np.subtract.outer(i, i)) / span
    if weights == "linear":
        return d
    if weights == "quadratic":
        return d * d
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")


def cohen_kappa(a: np.ndarray, b: np.ndarray, n_categories: int,
                weights: str | None = None) -> Coefficient:
    """κ of two parallel code arrays (category indices; −1 marks a missing label)."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    shared = (a >= 0) & (b >= 0)
    if not shared.any():
        return Coefficient.undefined(NO_SHARED_UNITS)
    a, b = a[shared], b[shared]
    confusion = np.bincount(a * n_categories + b, minlength=n_categories * n_categories)
    observed = confusion.reshape(n_categories, n_categories) / a.size
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    w = weight_matrix(n_categories, weights)
    chance = float((w * expected).sum())
    if chance <= 0.0:
        return Coefficient.undefined(KAPPA_NO_VARIATION)
    return Coefficient.of(1.0 - float((w * observed).sum()) / chance)


def fleiss_kappa(counts: np.ndarray) -> Coefficient:
    """Fleiss' κ of a ``(units, categories)`` count matrix; raters may vary per unit."""
    c = pairable(np.asarray(counts)).astype(np.float64)
    if c.shape[0] == 0:
        return Coefficient.undefined(
            "no unit has labels from two or more annotators, so there is nothing to compare")
    m = c.sum(axis=1)
    per_unit = ((c * c).sum(axis=1) - m) / (m * (m - 1.0))
    shares = c.sum(axis=0) / m.sum()
    chance = float((shares * shares).sum())
    if chance >= 1.0:
        return Coefficient.undefined(
            "every label is the same (0/0): with one category there is no chance "
            "disagreement to correct against")
    return Coefficient.of((float(per_unit.mean()) - chance) / (1.0 - chance))


def pooled_pair_similarity(counts: np.ndarray, similarity: np.ndarray | None = None
                           ) -> tuple[float | None, int]:
    """Mean similarity over every annotator pair of every unit, and the number of pairs.

    ``similarity`` is a ``V × V`` matrix with ones on the diagonal (identity when
    ``None``: the share of agreeing pairs). Returns ``(None, 0)`` without pairs.
    """
    c = pairable(np.asarray(counts)).astype(np.float64)
    m = c.sum(axis=1)
    n_pairs = float((m * (m - 1.0) / 2.0).sum())
    if n_pairs == 0:
        return None, 0
    same_value_pairs = float((c * (c - 1.0) / 2.0).sum())
    if similarity is None:
        return same_value_pairs / n_pairs, int(n_pairs)
    s = np.asarray(similarity, dtype=np.float64).copy()
    np.fill_diagonal(s, 0.0)
    cross = float(np.einsum("uc,ck,uk->", c, s, c)) / 2.0
    return (same_value_pairs + cross) / n_pairs, int(n_pairs)
