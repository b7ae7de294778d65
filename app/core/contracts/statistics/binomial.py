"""Exact binomial tests and bounds for the labelling contracts, and the threshold grid.

Pure functions, no I/O and no contract logic: the contracts (``selective_risk``,
``distributional`` and the others in ``shared/spec/contracts.md``) decide *what* to test;
this module only computes.

- :func:`binomial_p_value` is the one-sided exact binomial test of ``selective_risk``:
  p = P(Binomial(n, error) ≤ k). It takes integer counts only, because a k rebuilt from
  a float rate (``0.29 * 100 == 28.999…``) can silently drop an error.
- :func:`binomial_upper_bound` / :func:`binomial_lower_bound` are the exact one-sided
  Clopper–Pearson (1934) bounds, the duals of that test.
- :func:`threshold_grid` is the fixed confidence grid 1.00, 0.99, …, 0.00.
- :func:`cert_labels_needed` projects how many cert labels a test would need.

The level each look spends is :mod:`.looks`; the ``distributional`` contract's
statistics are :mod:`.jensen_shannon`.

Undefined cases. Malformed input (a float where a count belongs, a negative count,
mismatched or empty arrays, an item with fewer than two people to split) raises
``ValueError`` (``TypeError`` for a non-integer count) with a sentence naming the
problem: the caller checks that there is something to test before asking. Nothing here
returns NaN.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import numpy.typing as npt

from app.core.contracts.statistics.checks import _count, _counts, _probability
from app.core.contracts.statistics.distributions import beta_ppf, binom_cdf

#: Largest number of labels :func:`cert_labels_needed` searches before giving up.
MAX_PROJECTED_LABELS = 10_000_000
#: Slack for the float product ``error_rate * n`` before flooring it to a count.
_RATE_SLACK = 1e-9


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
    return float(min(1.0, max(0.0, binom_cdf(k_, n_, e))))


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
    return beta_ppf(c, k_ + 1, n_ - k_)


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
    return beta_ppf(1.0 - c, k_, n_ - k_ + 1)


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
        return float(binom_cdf(k, n, t)) <= a

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
        ok = (ends >= starts) & (binom_cdf(ks, np.maximum(ends, 1), t) <= a)
        if ok.any():
            i = int(np.argmax(ok))
            return first_passing(int(ks[i]), int(starts[i]), int(ends[i]))
        k0 += block
