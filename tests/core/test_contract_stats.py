"""Exact binomial tests, looks, the threshold grid, projections and the JS distance.

References: ``binomial_p_values``, ``looks`` and ``jensen_shannon_distance_base2`` in
``reference-vectors.json``. Oracles: ``scipy.stats.binomtest`` (the p-value, and a
brute-force walk over n for the projection), ``statsmodels``' Clopper–Pearson interval,
and ``scipy.spatial.distance.jensenshannon``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from app.core.contracts.potato_method.distributional import js_distance
from app.core.contracts.statistics.binomial import (
    binomial_lower_bound,
    binomial_p_value,
    binomial_upper_bound,
    cert_labels_needed,
    threshold_grid,
)
from app.core.contracts.statistics.looks import look_level
from tests.reference import reference_vectors

PUBLISHED_P = 1e-9
ORACLE = 1e-9


# Binomial p-values ---------------------------------------------------------------------

@pytest.mark.parametrize("case", reference_vectors()["binomial_p_values"]["cases"])
def test_binomial_p_value_matches_the_reference(case: dict[str, float]) -> None:
    got = binomial_p_value(int(case["k"]), int(case["n"]), 0.1)
    assert got == pytest.approx(case["p"], abs=PUBLISHED_P)


def test_binomial_p_value_matches_scipy_binomtest() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 400))
        k = int(rng.integers(0, n + 1))
        error = float(rng.uniform(0.01, 0.5))
        oracle = binomtest(k, n, error, alternative="less").pvalue
        assert binomial_p_value(k, n, error) == pytest.approx(oracle, abs=ORACLE, rel=1e-9)


@pytest.mark.parametrize("k, n", [(5.0, 100), (5, 100.0), (True, 10), (np.float64(3), 30)])
def test_binomial_p_value_refuses_float_counts(k: object, n: object) -> None:
    with pytest.raises(TypeError, match="integer count"):
        binomial_p_value(k, n, 0.1)  # type: ignore[arg-type]


def test_binomial_p_value_takes_numpy_integers_and_edge_counts() -> None:
    assert binomial_p_value(np.int64(5), np.int32(100), 0.1) == pytest.approx(  # type: ignore[arg-type]
        0.05757688649, abs=PUBLISHED_P)
    assert binomial_p_value(0, 0, 0.1) == 1.0
    assert binomial_p_value(10, 10, 0.1) == 1.0
    with pytest.raises(ValueError, match="0 <= k <= n"):
        binomial_p_value(11, 10, 0.1)
    with pytest.raises(ValueError, match="error"):
        binomial_p_value(1, 10, 1.5)


# Clopper–Pearson bounds ----------------------------------------------------------------

@pytest.mark.parametrize("k, n", [(0, 30), (3, 100), (7, 25), (25, 25), (1, 1), (12, 40)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_one_sided_bounds_match_statsmodels_clopper_pearson(k: int, n: int,
                                                           confidence: float) -> None:
    # A two-sided interval at alpha puts alpha/2 in each tail: one side at 1 - alpha/2.
    low, high = proportion_confint(k, n, alpha=2 * (1 - confidence), method="beta")
    expected_low = 0.0 if k == 0 else low
    expected_high = 1.0 if k == n else high
    assert binomial_lower_bound(k, n, confidence) == pytest.approx(expected_low, abs=ORACLE)
    assert binomial_upper_bound(k, n, confidence) == pytest.approx(expected_high, abs=ORACLE)


def test_upper_bound_is_the_dual_of_the_test() -> None:
    """At the upper bound u, P(Binomial(n, u) ≤ k) is exactly 1 − confidence."""
    for k, n in [(0, 30), (5, 100), (7, 25)]:
        u = binomial_upper_bound(k, n, 0.9)
        assert binomtest(k, n, u, alternative="less").pvalue == pytest.approx(0.1, abs=1e-9)


def test_bounds_refuse_float_counts_and_handle_no_labels() -> None:
    with pytest.raises(TypeError):
        binomial_upper_bound(2.0, 10, 0.9)  # type: ignore[arg-type]
    assert binomial_upper_bound(0, 0, 0.9) == 1.0
    assert binomial_lower_bound(0, 0, 0.9) == 0.0


# Looks ---------------------------------------------------------------------------------

def test_look_levels_match_the_reference() -> None:
    ref = reference_vectors()["looks"]
    for look, expected in enumerate(ref["levels"], start=1):
        assert look_level(look, ref["confidence"]) == pytest.approx(expected, abs=1e-12)
    share = look_level(1, ref["confidence"]) / (1 - ref["confidence"])
    assert share == pytest.approx(ref["first_look_share"], abs=1e-6)


def test_look_levels_sum_to_the_whole_budget() -> None:
    total = math.fsum(look_level(k, 0.9) for k in range(1, 20_001))
    assert total == pytest.approx(0.1, abs=1e-5)
    assert total < 0.1


def test_look_level_refuses_look_zero_and_floats() -> None:
    with pytest.raises(ValueError, match="from 1"):
        look_level(0, 0.9)
    with pytest.raises(TypeError):
        look_level(1.0, 0.9)  # type: ignore[arg-type]


# The threshold grid --------------------------------------------------------------------

def test_threshold_grid_is_exact_two_decimal_values_descending() -> None:
    grid = threshold_grid()
    assert len(grid) == 101
    assert grid[0] == 1.0 and grid[-1] == 0.0
    for i, value in enumerate(grid):
        expected = Decimal(100 - i) / Decimal(100)
        assert value == float(expected)
        assert Decimal(repr(value)) == expected  # prints as its two-decimal number
    assert list(grid) == sorted(grid, reverse=True)
    assert 0.07 in grid and 0.29 in grid


# Projections ---------------------------------------------------------------------------

def brute_force_labels_needed(rate: Fraction, target: float, level: float) -> int:
    """Walk n = 1, 2, … with k = ⌊rate · n⌋ (exact) until scipy's binomtest passes."""
    n = 1
    while True:
        k = math.floor(rate * n)
        if binomtest(k, n, target, alternative="less").pvalue <= level:
            return n
        n += 1


@pytest.mark.parametrize("rate, target, level", [
    (Fraction(0), 0.1, 0.06079),
    (Fraction(1, 50), 0.05, 0.06),
    (Fraction(1, 20), 0.1, 0.0608),
    (Fraction(3, 100), 0.1, 0.01),
    (Fraction(2, 25), 0.1, 0.06),
    (Fraction(1, 5), 0.3, 0.05),
    (Fraction(29, 100), 0.3, 0.2),
    (Fraction(7, 90), 0.1, 0.015),
])
def test_cert_labels_needed_matches_a_brute_force_walk(rate: Fraction, target: float,
                                                       level: float) -> None:
    expected = brute_force_labels_needed(rate, target, level)
    assert cert_labels_needed(rate, target, level) == expected
    assert cert_labels_needed(float(rate), target, level) == expected


def test_cert_labels_needed_floors_a_float_rate_without_drift() -> None:
    # 0.29 * 100 == 28.999999999999996: the slack keeps the implied 29 errors.
    assert cert_labels_needed(0.29, 0.3, 0.2) == cert_labels_needed(Fraction(29, 100), 0.3, 0.2)


def test_cert_labels_needed_is_none_when_no_count_can_pass() -> None:
    assert cert_labels_needed(0.1, 0.1, 0.06) is None
    assert cert_labels_needed(0.2, 0.1, 0.06) is None
    assert cert_labels_needed(0.0999, 0.1, 0.06, max_labels=1000) is None


def test_cert_labels_needed_is_quick_for_a_rate_near_the_target() -> None:
    n = cert_labels_needed(0.049, 0.05, 0.06)
    assert n is not None and 100_000 < n < 130_000
    k = math.floor(0.049 * n + 1e-9)
    assert binomial_p_value(k, n, 0.05) <= 0.06


# Jensen–Shannon distance (the distributional contract's, Potato's method) --------------

def _js(p: object, q: object) -> float:
    a, b = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return js_distance(a / a.sum(), b / b.sum())


@pytest.mark.parametrize("case", reference_vectors()["jensen_shannon_distance_base2"])
def test_jensen_shannon_distance_matches_the_reference(case: dict[str, list[float]]) -> None:
    assert _js(case["p"], case["q"]) == pytest.approx(case["d"], abs=1e-9)


def test_jensen_shannon_distance_matches_scipy_on_random_vectors() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        size = int(rng.integers(2, 8))
        p = rng.dirichlet(np.ones(size))
        q = rng.dirichlet(np.ones(size))
        if rng.random() < 0.3:
            p[rng.integers(size)] = 0.0
        assert _js(p, q) == pytest.approx(float(jensenshannon(p, q, base=2)), abs=1e-9)
    assert _js([3, 0], [0, 5]) == pytest.approx(1.0)


def test_cert_labels_needed_sees_an_exact_rate_equal_to_the_target() -> None:
    """Fraction(1, 10) equals the target the user wrote as 0.1: no n can pass."""
    from fractions import Fraction

    from app.core.contracts.statistics.binomial import cert_labels_needed

    assert cert_labels_needed(Fraction(1, 10), 0.1, 0.06) is None
