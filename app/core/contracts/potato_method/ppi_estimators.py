"""The three estimators of Potato 2.12.1's ppi contract, and the people-only comparison.

Each estimates the population mean of ``Y`` (a class indicator, or a numeric score) from
``n`` labelled items and the machine term ``f`` on all ``N`` population items, and gives
a two-sided normal interval at ``level``. Which one applies is the sampling design's
business (:func:`app.core.contracts.potato_method.ppi.evaluate_ppi` decides):

- :func:`tuned_ppi`: every labelled item had the same inclusion probability, so the
  labelled set is a uniform sample and PPI++ (Angelopoulos, Duchi and Zrnic 2023) applies,
  with the power-tuned weight ``λ = clip(Cov(Y, f) / ((1 + n/N) Var f), 0, 1)``, computed
  per class (Potato tunes each class separately, so prevalences need not sum to 1);
- :func:`post_stratified_difference`: probabilities differ but every population item's is
  known, so the strata (distinct probabilities) and their sizes ``N_h`` are known: each
  stratum's mean residual corrects the machine, weighted by ``N_h``, with a
  finite-population correction;
- :func:`horvitz_thompson_difference`: probabilities differ and the population's are not
  all known, so each sampled residual is weighted by ``1/π`` instead.

Every estimator floors the residual variance it uses at :func:`residual_floor`: a sample
on which the machine never erred says the error is small, not zero, and without a floor
its interval has no width at all. The arithmetic goes through the same ``numpy`` calls
(``var``/``cov`` with ``ddof=1``, ``round`` to 12 places for strata) so the numbers are
Potato's to the last few digits (``potato-engine.md`` §4, ``contracts/ppi.py:39-147``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.contracts.statistics.distributions import norm_ppf

Vector = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Estimate:
    """One estimator's answer: the point estimate, its interval, the machine's weight."""

    estimate: float
    lo: float
    hi: float
    weight: float
    n: int
    N: int

    def as_metrics(self, estimator: str) -> dict[str, Any]:
        """The keys Potato writes for one label (``machine_only``/``human_only`` are
        added by the caller, which knows the population)."""
        return {"estimate": self.estimate, "lo": self.lo, "hi": self.hi,
                "lambda": self.weight, "n": self.n, "N": self.N, "estimator": estimator}


def residual_floor(n: int, value_range: float) -> float:
    """The smallest residual variance ``n`` labels may claim: one full-size error in
    ``n + 2`` draws, ``range² · q(1 − q)`` with ``q = 1/(n + 2)`` (the Agresti–Coull
    pseudo-count idea)."""
    q = 1.0 / (n + 2)
    return (value_range ** 2) * q * (1 - q)


def normal_interval(centre: float, se: float, level: float) -> tuple[float, float]:
    """``centre ± z·se`` with ``z`` the ``1 − (1 − level)/2`` normal quantile."""
    z = norm_ppf(1 - (1 - level) / 2)
    return centre - z * se, centre + z * se


def _sample_variance(values: Vector) -> float:
    return float(np.var(values, ddof=1))


def _interval(centre: float, variance: float, level: float) -> tuple[float, float]:
    return normal_interval(centre, math.sqrt(max(variance, 0.0)), level)


def tuned_ppi(y: Vector, f_labelled: Vector, f_population: Vector, level: float,
              value_range: float = 1.0) -> Estimate:
    """PPI++ for a uniform sample: ``λ·mean(f_pop) + mean(Y − λf)``.

    λ is the variance-minimising weight, clipped to [0, 1] and 0 when the labelled
    machine terms do not vary (then the machine cannot help and the estimate is the
    people's). The variance adds the machine's sampling noise over the population
    (``λ² Var f_pop / N``) to the floored residual variance over ``n``.
    """
    n, big_n = len(y), len(f_population)
    if n < 2 or big_n < 1:
        raise ValueError("tuned_ppi needs at least two labelled items and a population")
    weight = 0.0
    var_f = _sample_variance(f_labelled)
    if var_f > 0:
        cov = float(np.cov(y, f_labelled, ddof=1)[0, 1])
        weight = min(1.0, max(0.0, cov / ((1 + n / big_n) * var_f)))
    residual = y - weight * f_labelled
    centre = weight * float(np.mean(f_population)) + float(np.mean(residual))
    var_residual = max(_sample_variance(residual), residual_floor(n, value_range))
    var_machine = _sample_variance(f_population) if big_n > 1 else 0.0
    variance = (weight ** 2) * var_machine / big_n + var_residual / n
    lo, hi = _interval(centre, variance, level)
    return Estimate(centre, lo, hi, weight, n, big_n)


def post_stratified_difference(y: Vector, f_labelled: Vector, pi_labelled: Vector,
                               f_population: Vector, pi_population: Vector, level: float,
                               value_range: float = 1.0) -> Estimate:
    """The difference estimator post-stratified by inclusion probability.

    A stratum is a distinct probability (to 12 places) among the *population's*; within
    one the labelled items are a uniform sample, so their mean residual estimates that
    stratum's machine error, weighted by its size ``N_h`` (the realised ``n_h``, not
    ``N_h π_h``, which is steadier when ``n_h`` is small). A stratum nobody labelled adds
    its whole range to the variance instead of being ignored; labelled items whose
    probability is no population stratum's are not used.
    """
    big_n = len(f_population)
    if big_n < 1 or len(y) < 2:
        raise ValueError("the difference estimator needs two labelled items and a population")
    residual = y - f_labelled
    centre = float(np.mean(f_population))
    variance = 0.0
    lab_key = np.round(pi_labelled, 12)
    pop_key = np.round(pi_population, 12)
    for stratum in np.unique(pop_key):
        size = int(np.sum(pop_key == stratum))
        r = residual[lab_key == stratum]
        n_h = len(r)
        if n_h == 0:
            variance += (size * value_range) ** 2 / 4
            continue
        centre += size * float(np.mean(r)) / big_n
        s2 = _sample_variance(r) if n_h > 1 else 0.0
        s2 = max(s2, residual_floor(n_h, value_range))
        fpc = max(0.0, 1.0 - n_h / size)
        variance += size ** 2 * fpc * s2 / n_h
    variance /= big_n ** 2
    lo, hi = _interval(centre, variance, level)
    return Estimate(centre, lo, hi, 1.0, len(y), big_n)


def horvitz_thompson_difference(y: Vector, f_labelled: Vector, pi_labelled: Vector,
                                f_population: Vector, level: float,
                                value_range: float = 1.0) -> Estimate:
    """``mean(f_pop) + Σ (Y − f)/π / N`` under Bernoulli sampling, for a population
    whose probabilities are not all known (so no strata can be formed).

    The variance ``Σ (1 − π)/π² (Y − f)² / N²`` is floored at the same weights times
    :func:`residual_floor` of the whole sample.
    """
    big_n = len(f_population)
    if big_n < 1 or len(y) < 2:
        raise ValueError("the difference estimator needs two labelled items and a population")
    error = y - f_labelled
    centre = float(np.mean(f_population)) + float(np.sum(error / pi_labelled)) / big_n
    weights = (1 - pi_labelled) / pi_labelled ** 2
    variance = float(np.sum(weights * error ** 2)) / big_n ** 2
    floor = float(np.sum(weights)) * residual_floor(len(y), value_range) / big_n ** 2
    lo, hi = _interval(centre, max(variance, floor), level)
    return Estimate(centre, lo, hi, 1.0, len(y), big_n)


def people_only(y: Vector, pi_labelled: Vector | None, big_n: int,
                level: float) -> dict[str, Any]:
    """The estimate from the human labels alone, for comparison (``human_only``).

    Uniform sample (``pi_labelled`` None): the sample mean with ``sd/√n``; otherwise the
    Horvitz–Thompson mean ``Σ Y/π / N`` with its Bernoulli-sampling standard error (also
    under post-stratification). Not clipped to [0, 1].
    """
    n = len(y)
    if pi_labelled is None:
        centre = float(np.mean(y))
        se = math.sqrt(_sample_variance(y) / n) if n > 1 else float("inf")
    else:
        centre = float(np.sum(y / pi_labelled)) / big_n
        se = math.sqrt(float(np.sum((1 - pi_labelled) / pi_labelled ** 2 * y ** 2))) / big_n
    lo, hi = normal_interval(centre, se, level)
    return {"estimate": centre, "lo": lo, "hi": hi, "n": n}
