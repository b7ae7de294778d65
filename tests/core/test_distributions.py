"""``app.core.contracts.statistics.distributions`` against ``scipy.stats`` itself: bit-identical.

The module exists to spare importing ``scipy.stats``; it may only do so if every number
it gives is the one ``scipy.stats`` gives, edges included (counts below 0, at and above
``n``, fractional counts, ``n = 0``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from app.core.contracts.statistics.distributions import beta_ppf, binom_cdf, norm_ppf, t_cdf


def test_binom_cdf_is_scipy_stats_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(0, 3000, 50_000)
    k = rng.integers(-3, 400, 50_000) + np.where(rng.random(50_000) < 0.2, 0.5, 0.0)
    k = np.where(rng.random(50_000) < 0.05, n, k)
    p = np.where(rng.random(50_000) < 0.02, 0.0, rng.random(50_000))
    assert np.array_equal(binom_cdf(k, n, p), sps.binom.cdf(k, n, p))
    for args in [(5, 100, 0.1), (3, 100, 0.1), (0, 30, 0.1), (7, 25, 0.1), (0, 0, 0.1),
                 (4, 4, 0.3), (-1, 4, 0.3), (2.7, 5, 0.3)]:
        assert float(binom_cdf(*args)) == float(sps.binom.cdf(*args))
    assert abs(float(binom_cdf(5, 100, 0.1)) - 0.0575769) < 1e-7  # the spec's reference


def test_binom_cdf_of_one_count_is_scipy_stats_bit_for_bit() -> None:
    """The scalar path (Python numbers, as the sequential tests call it) against
    ``scipy.stats`` on random counts, including those outside the support."""
    rng = np.random.default_rng(5)
    for _ in range(3000):
        n = int(rng.integers(0, 2000))
        k: float = int(rng.integers(-3, n + 3))
        if rng.random() < 0.2:
            k += 0.5
        p = 0.0 if rng.random() < 0.02 else float(rng.random())
        mine, theirs = binom_cdf(k, n, p), sps.binom.cdf(k, n, p)
        assert type(mine) is np.float64 and mine == theirs, (k, n, p, mine, theirs)


def test_beta_norm_and_t_are_scipy_stats_bit_for_bit() -> None:
    rng = np.random.default_rng(4)
    for q, a, b in zip(rng.random(3000), rng.integers(1, 500, 3000),
                       rng.integers(1, 500, 3000), strict=True):
        assert beta_ppf(float(q), int(a), int(b)) == float(sps.beta.ppf(q, a, b))
    assert beta_ppf(0.0, 2, 3) == float(sps.beta.ppf(0.0, 2, 3))
    for q in rng.random(3000):
        assert norm_ppf(float(q)) == float(sps.norm.ppf(q))
    for t, df in zip(rng.normal(size=3000) * 4, rng.integers(1, 300, 3000), strict=True):
        assert t_cdf(float(t), int(df)) == float(sps.t.cdf(t, df))


def test_binom_cdf_outside_its_domain_is_scipy_stats() -> None:
    """NaN and infinite counts, p outside [0, 1] or NaN, n negative or fractional: the
    answer scipy gives (NaN where it is undefined), as scalars and as arrays."""
    cases = [(k, n, p) for k in (float("nan"), float("inf"), float("-inf"), -1, 0, 3, 12)
             for n in (10, -2, 2.5, 0) for p in (0.3, -0.1, 1.5, float("nan"), 0.0, 1.0)]
    for k, n, p in cases:
        mine, theirs = binom_cdf(k, n, p), sps.binom.cdf(k, n, p)
        assert (np.isnan(mine) and np.isnan(theirs)) or mine == theirs, (k, n, p, mine, theirs)
    k, n, p = (np.array(column, dtype=float) for column in zip(*cases, strict=True))
    assert np.array_equal(binom_cdf(k, n, p), sps.binom.cdf(k, n, p), equal_nan=True)
