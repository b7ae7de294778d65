"""Statistical primitives for the labelling contracts: exact binomial tests, looks, grids.

Pure functions, no I/O and no contract logic: the contracts (``selective_risk``,
``distributional`` and the others in ``shared/spec/contracts.md``) decide *what* to test;
this module only computes.

- :func:`binomial_p_value` is the one-sided exact binomial test of ``selective_risk``:
  p = P(Binomial(n, error) ≤ k). It takes integer counts only, because a k rebuilt from
  a float rate (``0.29 * 100 == 28.999…``) can silently drop an error.
- :func:`binomial_upper_bound` / :func:`binomial_lower_bound` are the exact one-sided
  Clopper–Pearson (1934) bounds, the duals of that test.
- :func:`look_level` splits a contract's error budget over repeated looks,
  ``(1 − confidence) · 6 / (π² k²)`` for look k; the levels sum to the whole budget
  because Σ 1/k² = π²/6, so testing again as labels arrive never inflates confidence.
- :func:`threshold_grid` is the fixed confidence grid 1.00, 0.99, …, 0.00.
- :func:`cert_labels_needed` projects how many cert labels a test would need.
- :func:`jensen_shannon_distance`, :func:`bootstrap_interval` and
  :func:`split_half_noise_ceiling` serve the ``distributional`` contract.

Undefined cases. Malformed input (a float where a count belongs, a negative count,
mismatched or empty arrays, an item with fewer than two people to split) raises
``ValueError`` (``TypeError`` for a non-integer count) with a sentence naming the
problem: the caller checks that there is something to test before asking. Nothing here
returns NaN.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from numbers import Integral
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

ItemT = TypeVar("ItemT", bound=Hashable)
LabelT = TypeVar("LabelT", bound=Hashable)

BOOTSTRAP_SEED = 20261129
BOOTSTRAP_RESAMPLES = 2000
NOISE_CEILING_SPLITS = 20

#: Largest number of labels :func:`cert_labels_needed` searches before giving up.
MAX_PROJECTED_LABELS = 10_000_000
#: Slack for the float product ``error_rate * n`` before flooring it to a count.
_RATE_SLACK = 1e-9


def _count(value: object, name: str) -> int:
    """An integer count, refusing floats (and bools) with ``TypeError``."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(
            f"{name} must be an integer count, got {value!r} ({type(value).__name__}); "
            "rebuild counts from the labels, never from a float rate")
    return int(value)


def _counts(k: object, n: object) -> tuple[int, int]:
    k_, n_ = _count(k, "k"), _count(n, "n")
    if n_ < 0 or not 0 <= k_ <= n_:
        raise ValueError(f"need 0 <= k <= n, got k={k_}, n={n_}")
    return k_, n_


def _probability(value: float, name: str, *, open_interval: bool = True) -> float:
    v = float(value)
    ok = 0.0 < v < 1.0 if open_interval else 0.0 <= v <= 1.0
    if not ok:
        bounds = "(0, 1)" if open_interval else "[0, 1]"
        raise ValueError(f"{name} must lie in {bounds}, got {value!r}")
    return v


def binomial_p_value(k: int, n: int, error: float) -> float:
    """One-sided exact binomial p-value of "the error rate is above ``error``".

    ``p = P(Binomial(n, error) ≤ k)``: the chance of seeing at most ``k`` errors among
    ``n`` accepted labels if the true error were exactly ``error`` (the least favourable
    point of the null hypothesis). A small p is evidence that the error is below the
    target; ``selective_risk`` passes a test when p is at most the look's level.

    Parameters
    ----------
    k : int
        Errors seen. An integer count: floats are refused with ``TypeError``.
    n : int
        Labels tested (``0 <= k <= n``). ``n = 0`` gives p = 1 (no evidence).
    error : float
        The tolerated error rate, in [0, 1].

    Returns
    -------
    float
        The p-value in [0, 1].
    """
    k_, n_ = _counts(k, n)
    e = _probability(error, "error", open_interval=False)
    return float(min(1.0, max(0.0, sps.binom.cdf(k_, n_, e))))


def binomial_upper_bound(k: int, n: int, confidence: float) -> float:
    """Exact one-sided upper Clopper–Pearson bound of a binomial proportion.

    The largest rate ``u`` with ``P(Binomial(n, u) ≤ k) ≥ 1 − confidence``: the
    ``confidence`` quantile of Beta(k + 1, n − k) (Clopper and Pearson 1934). It is the
    dual of :func:`binomial_p_value`: the test at level ``1 − confidence`` passes for a
    target ``error`` exactly when this bound is below it. Used for the audit's running
    error of accepted labels. ``k == n`` (including ``n == 0``) gives 1.

    Parameters
    ----------
    k, n : int
        Errors and labels, integer counts.
    confidence : float
        In (0, 1).
    """
    k_, n_ = _counts(k, n)
    c = _probability(confidence, "confidence")
    if k_ == n_:
        return 1.0
    return float(sps.beta.ppf(c, k_ + 1, n_ - k_))


def binomial_lower_bound(k: int, n: int, confidence: float) -> float:
    """Exact one-sided lower Clopper–Pearson bound of a binomial proportion.

    The ``1 − confidence`` quantile of Beta(k, n − k + 1); 0 when ``k == 0``.
    ``selective_risk`` calls a tier infeasible when this bound of the dev error is above
    the target at every threshold.

    Parameters
    ----------
    k, n : int
        Errors and labels, integer counts.
    confidence : float
        In (0, 1).
    """
    k_, n_ = _counts(k, n)
    c = _probability(confidence, "confidence")
    if k_ == 0:
        return 0.0
    return float(sps.beta.ppf(1.0 - c, k_, n_ - k_ + 1))


def look_level(look: int, confidence: float) -> float:
    """The share of the error budget spent by look ``look`` (1-based).

    ``(1 − confidence) · 6 / (π² k²)``. Since Σ_k 1/k² = π²/6 the levels of all
    possible looks add up to ``1 − confidence``, so a contract tested again and again
    as labels arrive keeps its overall error probability (a union bound over looks);
    the first look gets 6/π² ≈ 61% of the budget.

    Parameters
    ----------
    look : int
        The look number, 1 for the first test.
    confidence : float
        The contract's confidence, in (0, 1).
    """
    k = _count(look, "look")
    if k < 1:
        raise ValueError(f"looks are numbered from 1, got {k}")
    c = _probability(confidence, "confidence")
    return (1.0 - c) * 6.0 / (math.pi ** 2 * k * k)


@cache
def _grid() -> tuple[float, ...]:
    values = np.round(np.arange(100, -1, -1) / 100, 2)
    return tuple(float(v) for v in values)


def threshold_grid() -> tuple[float, ...]:
    """The fixed confidence thresholds 1.00, 0.99, …, 0.00 (101 values, descending).

    Each value is the double nearest to its two-decimal number (``0.07``, never
    ``0.07000000000000001``), built by dividing integers and rounding rather than by
    adding 0.01 repeatedly, so the grid is the same on every machine and ``t in grid``
    works for a threshold read back from a ledger.
    """
    return _grid()


def _implied_errors(rate: float | Fraction, n: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """⌊rate · n⌋ for each n: exact for a Fraction, with 1e-9 of slack for a float."""
    if isinstance(rate, Fraction):
        return (rate.numerator * n) // rate.denominator
    return np.floor(rate * n.astype(np.float64) + _RATE_SLACK).astype(np.int64)


def _run_starts(rate: float | Fraction, ks: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each k ≥ 0, the smallest n ≥ 1 whose implied error count is at least k."""
    n = np.maximum(1, np.ceil(ks / float(rate)).astype(np.int64) - 2)
    while True:
        short = _implied_errors(rate, n) < ks
        if not short.any():
            break
        n = n + short
    while True:
        back = (n > 1) & (_implied_errors(rate, np.maximum(n - 1, 1)) >= ks)
        if not back.any():
            break
        n = n - back
    return n


def cert_labels_needed(error_rate: float | Fraction, target: float, level: float,
                       max_labels: int = MAX_PROJECTED_LABELS) -> int | None:
    """Smallest number of labels whose test would pass if ``error_rate`` held.

    Returns the smallest ``n ≥ 1`` with ``binomial_p_value(k, n, target) ≤ level`` where
    ``k = ⌊error_rate · n⌋`` is the number of errors the rate implies among ``n`` labels
    (floored, so a rate of 0.05 over 30 labels implies 1 error; a float product is
    given 1e-9 of slack before flooring so that ``0.29 · 100`` counts 29; pass a
    :class:`fractions.Fraction` such as ``Fraction(errors, labels)`` to avoid floats
    altogether).

    Because k grows in steps, the p-value is a sawtooth in n: within a run of equal k it
    falls, and it jumps up when k grows. The search walks the runs of k in order
    (vectorised, a block of runs at a time) and bisects inside the first run whose last
    n passes, so the answer is the literal smallest n, found without testing every n.

    Parameters
    ----------
    error_rate : float or Fraction
        The error rate assumed (dev, or dev and cert together), in [0, 1].
    target : float
        The contract's ``error``, in (0, 1).
    level : float
        The look's level, in (0, 1).
    max_labels : int
        Give up beyond this many labels.

    Returns
    -------
    int or None
        ``None`` when no number of labels can pass (``error_rate ≥ target``) or more than
        ``max_labels`` would be needed.
    """
    t = _probability(target, "target")
    a = _probability(level, "level")
    rate = error_rate if isinstance(error_rate, Fraction) else float(error_rate)
    if not 0 <= rate <= 1:
        raise ValueError(f"error_rate must lie in [0, 1], got {error_rate!r}")
    limit = _count(max_labels, "max_labels")
    # The target is compared as the decimal the user wrote (0.1 is exactly 1/10): an exact
    # Fraction(1, 10) rate lies just below the float 0.1 and would search in vain.
    target_exact = Fraction(repr(t)) if isinstance(rate, Fraction) else t
    if rate >= target_exact:
        return None

    def passes(k: int, n: int) -> bool:
        return float(sps.binom.cdf(k, n, t)) <= a

    def first_passing(k: int, lo: int, hi: int) -> int | None:
        """Smallest n in [lo, hi] with P(Bin(n, t) ≤ k) ≤ a, given that hi passes."""
        while lo < hi:
            mid = (lo + hi) // 2
            if passes(k, mid):
                hi = mid
            else:
                lo = mid + 1
        return lo if lo <= limit else None

    if rate == 0:
        # Every n implies k = 0, and P(Bin(n, t) = 0) = (1 − t)^n falls forever.
        hi = max(1, math.ceil(math.log(a) / math.log1p(-t)))
        while not passes(0, hi):
            hi += 1
        return first_passing(0, 1, hi)

    block = 4096
    k0 = 0
    while True:
        ks = np.arange(k0, k0 + block, dtype=np.int64)
        starts = _run_starts(rate, ks)  # n in [starts, ends] implies exactly k errors
        ends = _run_starts(rate, ks + 1) - 1
        if starts[0] > limit:
            return None
        ok = (ends >= starts) & (sps.binom.cdf(ks, np.maximum(ends, 1), t) <= a)
        if ok.any():
            i = int(np.argmax(ok))
            return first_passing(int(ks[i]), int(starts[i]), int(ends[i]))
        k0 += block


def _distribution(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector, got shape {v.shape}")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ValueError(f"{name} must hold finite non-negative weights, got {v.tolist()}")
    total = float(v.sum())
    if total <= 0:
        raise ValueError(f"{name} sums to zero: it is no distribution")
    return v / total


def jensen_shannon_distance(p: npt.ArrayLike, q: npt.ArrayLike) -> float:
    """Jensen–Shannon distance in base 2, in [0, 1].

    ``sqrt(½ KL(p ‖ m) + ½ KL(q ‖ m))`` with ``m = (p + q) / 2`` and logarithms in
    base 2 (Lin 1991; Endres and Schindelin 2003 show the square root is a metric).
    Base 2 bounds it by 1, reached by distributions with disjoint support. ``p`` and
    ``q`` are normalised to sum to 1 first (as :func:`scipy.spatial.distance.
    jensenshannon` does); 0 · log 0 counts as 0.

    Parameters
    ----------
    p, q : array_like
        Non-negative weights over the same categories, in the same order.
    """
    a = _distribution(p, "p")
    b = _distribution(q, "q")
    if a.shape != b.shape:
        raise ValueError(f"p and q cover different categories: {a.size} vs {b.size}")
    m = (a + b) / 2.0

    def kl_to_m(x: npt.NDArray[np.float64]) -> float:
        mask = x > 0
        return float(np.sum(x[mask] * np.log2(x[mask] / m[mask])))

    divergence = 0.5 * kl_to_m(a) + 0.5 * kl_to_m(b)
    return float(min(1.0, math.sqrt(max(0.0, divergence))))


def bootstrap_interval(values: npt.ArrayLike, confidence: float, seed: int = BOOTSTRAP_SEED,
                       resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap interval of a mean (Efron and Tibshirani 1993, ch. 13).

    Resamples the values with replacement ``resamples`` times; the interval runs from
    the ``(1 − confidence)/2`` to the ``(1 + confidence)/2`` quantile (linear
    interpolation) of the resampled means. The draws are one call
    ``numpy.random.default_rng(seed).integers(0, n, (resamples, n))``, so the same seed
    and values always give the same interval (the contract's seed is 20261129) — the
    same draws as :func:`scipy.stats.bootstrap` with that generator.

    Parameters
    ----------
    values : array_like
        One number per item (for ``distributional``, each item's JS distance).
    confidence : float
        In (0, 1).
    seed, resamples : int
        The generator's seed and the number of resamples.

    Returns
    -------
    tuple of float
        ``(lower, upper)``.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or x.size == 0:
        raise ValueError("bootstrap_interval needs at least one value (a 1-D vector)")
    if not np.all(np.isfinite(x)):
        raise ValueError("bootstrap_interval got a non-finite value")
    c = _probability(confidence, "confidence")
    r = _count(resamples, "resamples")
    if r < 1:
        raise ValueError(f"resamples must be positive, got {r}")
    rng = np.random.default_rng(seed)
    index = rng.integers(0, x.size, (r, x.size))
    means = x[index].mean(axis=1)
    alpha = 1.0 - c
    lower, upper = np.percentile(means, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lower), float(upper)


@dataclass(frozen=True, slots=True)
class NoiseCeiling(Generic[ItemT]):
    """The split-half noise ceiling of ``distributional``.

    Attributes
    ----------
    value : float
        Mean over items of each item's mean split-half JS distance.
    per_item : dict
        Item → its mean JS distance over the splits, in the input's order.
    splits : int
        Random splits per item.
    """

    value: float
    per_item: dict[ItemT, float]
    splits: int


def split_half_noise_ceiling(counts_by_item: Mapping[ItemT, Mapping[LabelT, int]],
                             seed: int = BOOTSTRAP_SEED,
                             splits: int = NOISE_CEILING_SPLITS) -> NoiseCeiling[ItemT]:
    """How far apart two random halves of the same people are, item by item.

    A machine cannot be expected to match the people's label distribution more closely
    than the people match themselves; this is the ceiling ``distributional`` reports
    beside the machine's distance. For each item, its ``k`` people (one per counted
    label) are put in a seeded random order; the first ``⌊k/2⌋`` form one half and the
    rest the other; the Jensen–Shannon distance (base 2) between the halves' label
    distributions is averaged over ``splits`` orders; the ceiling is the mean over
    items.

    Reproducibility: one generator ``numpy.random.default_rng(seed)``; items are taken
    in the mapping's order and each draws its ``splits`` permutations in turn. An item's
    people are listed label by label in the order of its inner mapping; since the order
    is then permuted at random, that listing changes no distribution, only which draw
    lands where.

    Parameters
    ----------
    counts_by_item : Mapping
        Item → (label → number of people who gave it). Every item needs at least two
        people (the contract asks for three, or two within a group).
    seed : int
        Seed of the generator (the contract's is 20261129).
    splits : int
        Random splits per item (20 in the contract).

    Raises
    ------
    ValueError
        No items, a negative or non-integer count, or an item with fewer than two
        people.
    """
    n_splits = _count(splits, "splits")
    if n_splits < 1:
        raise ValueError(f"splits must be positive, got {n_splits}")
    if not counts_by_item:
        raise ValueError("split_half_noise_ceiling needs at least one item")
    rng = np.random.default_rng(seed)
    per_item: dict[ItemT, float] = {}
    for item, counts in counts_by_item.items():
        labels = list(counts)
        people: list[int] = []
        for code, label in enumerate(labels):
            c = _count(counts[label], f"count of {label!r} on item {item!r}")
            if c < 0:
                raise ValueError(f"negative count {c} for {label!r} on item {item!r}")
            people.extend([code] * c)
        k = len(people)
        if k < 2:
            raise ValueError(f"item {item!r} has {k} people; a split needs at least two")
        codes = np.asarray(people, dtype=np.int64)
        half = k // 2
        distances = []
        for _ in range(n_splits):
            order = codes[rng.permutation(k)]
            first = np.bincount(order[:half], minlength=len(labels))
            second = np.bincount(order[half:], minlength=len(labels))
            distances.append(jensen_shannon_distance(first, second))
        per_item[item] = float(np.mean(distances))
    return NoiseCeiling(float(np.mean(list(per_item.values()))), per_item, n_splits)
