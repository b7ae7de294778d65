"""PPI++ means and prevalences, and the Horvitz–Thompson difference estimator.

References: ``ppi_mean`` in ``reference-vectors.json`` (ppi-python 0.2.3, 90%).
Oracle: ``ppi-python`` itself (``ppi_mean_ci``, ``ppi_mean_pointestimate``,
``_calc_lam_glm``, ``classical_mean_ci``) on seeded random data, to 1e-9; a hand
computation of the Horvitz–Thompson estimator; Monte-Carlo coverage with fixed seeds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate
from ppi_py.ppi import _calc_lam_glm

from app.core.contracts.statistics.ppi import (
    MeanEstimate,
    classical_mean,
    horvitz_thompson_difference,
    power_tuned_lambda,
    ppi_mean,
    ppi_prevalence,
)
from tests.reference import reference_vectors

PUBLISHED = 1e-6
ORACLE = 1e-9


Vector = npt.NDArray[np.float64]


def reference() -> tuple[Vector, Vector, Vector]:
    ref = reference_vectors()["ppi_mean"]
    y, yhat, yhat_u = (np.asarray(ref[key], dtype=np.float64)
                       for key in ("Y", "Yhat", "Yhat_unlabeled"))
    return y, yhat, yhat_u


def interval(result: MeanEstimate) -> tuple[float, float]:
    assert result.interval is not None, result.reason
    return result.interval


# Reference vectors ---------------------------------------------------------------------

@pytest.mark.parametrize("key, lam", [("classical", 0.0), ("ppi_lambda_1", 1.0),
                                      ("ppi_plus_plus", None)])
def test_ppi_mean_matches_the_reference(key: str, lam: float | None) -> None:
    expected = reference_vectors()["ppi_mean"][key]
    result = ppi_mean(*reference(), confidence=0.9, lam=lam)
    assert result.estimate == pytest.approx(expected["estimate"], abs=PUBLISHED)
    assert interval(result) == pytest.approx(tuple(expected["interval"]), abs=PUBLISHED)
    if lam is None:
        assert result.lam == pytest.approx(expected["lambda"], abs=PUBLISHED)
    assert (result.n_labelled, result.n_unlabelled) == (10, 20)


def test_classical_mean_matches_the_reference() -> None:
    expected = reference_vectors()["ppi_mean"]["classical"]
    result = classical_mean(reference()[0], 0.9)
    assert result.estimate == pytest.approx(expected["estimate"], abs=PUBLISHED)
    assert interval(result) == pytest.approx(tuple(expected["interval"]), abs=PUBLISHED)
    assert result.lam == 0.0


# ppi-python as an oracle ---------------------------------------------------------------

def random_problem(seed: int) -> tuple[Vector, Vector, Vector]:
    rng = np.random.default_rng(seed)
    n, big_n = int(rng.integers(5, 80)), int(rng.integers(5, 400))
    kind = seed % 3
    if kind == 0:  # binary labels, a noisy binary machine
        y = (rng.random(n) < 0.4).astype(float)
        flip = rng.random(n) < 0.2
        yhat = np.where(flip, 1 - y, y)
        yhat_u = (rng.random(big_n) < 0.45).astype(float)
    elif kind == 1:  # numeric scores, a shrunken machine (λ̂ clips at 1)
        y = rng.normal(3, 1, n)
        yhat = 0.4 * y + rng.normal(0, 0.05, n)
        yhat_u = 0.4 * rng.normal(3, 1, big_n)
    else:  # a machine anti-correlated or unrelated (λ̂ clips at 0 or is small)
        y = rng.normal(0, 1, n)
        yhat = -0.5 * y + rng.normal(0, 1, n) if seed % 2 else rng.normal(0, 1, n)
        yhat_u = rng.normal(0, 1, big_n)
    return y, yhat, yhat_u


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("lam", [None, 0.0, 1.0, 0.37])
def test_ppi_mean_matches_ppi_python(seed: int, lam: float | None) -> None:
    y, yhat, yhat_u = random_problem(seed)
    alpha = 0.1 if seed % 2 else 0.05
    result = ppi_mean(y, yhat, yhat_u, confidence=1 - alpha, lam=lam)
    low, high = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam)
    point = ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
    assert result.estimate == pytest.approx(float(np.ravel(point)[0]), abs=ORACLE)
    assert interval(result) == pytest.approx((float(low[0]), float(high[0])), abs=ORACLE)


@pytest.mark.parametrize("seed", range(12))
def test_power_tuned_lambda_matches_ppi_python(seed: int) -> None:
    y, yhat, yhat_u = random_problem(seed)
    # ppi-python tunes λ on gradients at the λ = 1 point estimate; centring removes it.
    centre = float(np.ravel(ppi_mean_pointestimate(y, yhat, yhat_u, lam=1))[0])
    oracle = _calc_lam_glm((y - centre)[:, None], (yhat - centre)[:, None],
                           (yhat_u - centre)[:, None], np.eye(1), clip=True)
    lam, note = power_tuned_lambda(y, yhat, yhat_u)
    assert lam == pytest.approx(float(oracle), abs=ORACLE)
    assert note is None
    assert 0.0 <= lam <= 1.0


def one_hot(labels: Sequence[str] | npt.NDArray[np.str_], classes: Sequence[str]) -> Vector:
    coded: Vector = (np.asarray(labels)[:, None] == np.asarray(classes)[None, :]).astype(
        np.float64)
    return coded


@pytest.mark.parametrize("seed", range(8))
def test_ppi_prevalence_matches_ppi_python_with_one_lambda(seed: int) -> None:
    """ppi-python's "overall" λ on one-hot vectors minimises the summed class variance."""
    rng = np.random.default_rng(100 + seed)
    classes = ["neg", "neu", "pos"]
    n, big_n = int(rng.integers(20, 90)), int(rng.integers(50, 500))
    y = rng.choice(classes, n, p=[0.5, 0.2, 0.3])
    yhat = np.where(rng.random(n) < 0.75, y, rng.choice(classes, n))
    yhat_u = rng.choice(classes, big_n, p=[0.45, 0.25, 0.3])
    result = ppi_prevalence(list(y), list(yhat), list(yhat_u), classes, confidence=0.95)
    low, high = ppi_mean_ci(one_hot(y, classes), one_hot(yhat, classes),
                            one_hot(yhat_u, classes), alpha=0.05)
    point = ppi_mean_pointestimate(one_hot(y, classes), one_hot(yhat, classes),
                                   one_hot(yhat_u, classes))
    for c, label in enumerate(classes):
        estimate = result.by_class[label]
        assert estimate.estimate == pytest.approx(float(point[c]), abs=ORACLE)
        assert interval(estimate) == pytest.approx((float(low[c]), float(high[c])), abs=ORACLE)
        assert estimate.lam == result.lam
    total = math.fsum(e.estimate for e in result.by_class.values())
    assert total == pytest.approx(1.0, abs=1e-12)


def test_ppi_prevalence_classical_matches_ppi_python() -> None:
    classes = ["a", "b"]
    y = ["a", "b", "b", "a", "a", "b", "a", "a"]
    result = ppi_prevalence(y, y, ["a"] * 5, classes, confidence=0.9, lam=0.0)
    for c, label in enumerate(classes):
        low, high = classical_mean_ci(one_hot(y, classes)[:, c], alpha=0.1)
        assert interval(result.by_class[label]) == pytest.approx((low, high), abs=ORACLE)


# Fallbacks and undefined cases ---------------------------------------------------------

def test_constant_predictions_fall_back_to_the_classical_interval() -> None:
    y = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 1], dtype=float)
    result = ppi_mean(y, np.ones(10), np.ones(30), confidence=0.9)
    assert result.lam == 0.0
    assert result.note is not None and "constant" in result.note
    low, high = classical_mean_ci(y, alpha=0.1)
    assert interval(result) == pytest.approx((low, high), abs=ORACLE)
    prevalence = ppi_prevalence(["x", "y", "x"], ["x", "x", "x"], ["x"] * 4, ["x", "y"], 0.9)
    assert prevalence.lam == 0.0 and prevalence.note is not None


def test_zero_standard_error_leaves_the_interval_undefined_with_a_reason() -> None:
    result = ppi_mean(np.ones(12), np.ones(12), np.ones(40), confidence=0.9)
    assert result.interval is None
    assert result.reason is not None and "zero" in result.reason
    assert result.estimate == 1.0
    single = ppi_mean([1.0], [0.0], [0.0, 1.0], confidence=0.9)
    assert single.interval is None and single.reason is not None


def test_no_unlabelled_items_means_the_classical_interval() -> None:
    y, yhat, _ = reference()
    result = ppi_mean(y, yhat, [], confidence=0.9)
    assert result.lam == 0.0 and result.note is not None
    assert interval(result) == pytest.approx(interval(classical_mean(y, 0.9)), abs=ORACLE)
    with pytest.raises(ValueError, match="lam=0"):
        ppi_mean(y, yhat, [], confidence=0.9, lam=1.0)


@pytest.mark.parametrize("call, message", [
    (lambda: ppi_mean([], [], [1.0], 0.9), "at least one human label"),
    (lambda: ppi_mean([1.0, 0.0], [1.0], [1.0], 0.9), "differ in length"),
    (lambda: ppi_mean([1.0], [1.0], [1.0], 1.5), "confidence"),
    (lambda: ppi_prevalence(["a"], ["z"], [], ["a", "b"], 0.9), "not among classes"),
    (lambda: ppi_prevalence([], [], ["a"], ["a"], 0.9), "at least one human label"),
    (lambda: ppi_prevalence(["a"], ["a"], [], ["a", "a"], 0.9), "without repeats"),
    (lambda: horvitz_thompson_difference([1.0], [], [], [], 0.9), "at least one"),
    (lambda: horvitz_thompson_difference([1.0, 0.0], [1.0], [1.0], [0.0], 0.9), "(0, 1]"),
    (lambda: horvitz_thompson_difference([1.0], [1.0, 1.0], [1.0, 1.0], [1, 1], 0.9),
     "larger than the population"),
])
def test_bad_input_is_a_clear_value_error(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("]", r"\]")):
        call()


# Horvitz–Thompson ----------------------------------------------------------------------

def test_horvitz_thompson_difference_by_hand() -> None:
    """Six items; items 0, 1 and 4 drawn with π = 0.5, 0.25 and 0.8.

    Machine: [1, 0, 1, 1, 0, 0]; people on the drawn items: 1, 1, 1; errors 0, 1, 1.
    Σz = 3 + 0/0.5 + 1/0.25 + 1/0.8 = 8.25, so the estimate is 8.25/6 = 1.375.
    N²·se² = 0.5·0/0.25 + 0.75·1/0.0625 + 0.2·1/0.64 = 12 + 0.3125 = 12.3125.
    """
    result = horvitz_thompson_difference([1, 0, 1, 1, 0, 0], [1, 1, 1], [1, 0, 0],
                                         [0.5, 0.25, 0.8], confidence=0.95)
    se = math.sqrt(12.3125) / 6
    assert result.estimate == pytest.approx(1.375, abs=1e-12)
    assert result.std_error == pytest.approx(se, abs=1e-12)
    z95 = 1.959963984540054
    assert interval(result) == pytest.approx((1.375 - z95 * se, 1.375 + z95 * se), abs=1e-9)
    assert (result.lam, result.n_labelled, result.n_unlabelled) == (1.0, 3, 3)


def test_horvitz_thompson_with_no_errors_has_no_interval() -> None:
    result = horvitz_thompson_difference([1, 0, 1], [1], [1], [0.3], confidence=0.9)
    assert result.estimate == pytest.approx(2 / 3)
    assert result.interval is None and result.reason is not None


def test_horvitz_thompson_covers_the_population_mean_at_its_nominal_rate() -> None:
    """Poisson sampling, π between 0.05 and 0.3, higher where the machine is unsure."""
    rng = np.random.default_rng(20261129)
    big_n, reps = 3000, 1500
    confidence_of_machine = rng.uniform(0.5, 1.0, big_n)
    yhat = (rng.random(big_n) < 0.4).astype(float)
    y = np.where(rng.random(big_n) > confidence_of_machine, 1 - yhat, yhat)
    pi = np.clip(0.05 + 0.5 * (1 - confidence_of_machine), 0.05, 0.3)
    truth = float(y.mean())
    covered = 0
    for _ in range(reps):
        drawn = rng.random(big_n) < pi
        low, high = interval(horvitz_thompson_difference(yhat, y[drawn], yhat[drawn],
                                                         pi[drawn], confidence=0.95))
        covered += low <= truth <= high
    assert 0.93 <= covered / reps <= 0.97


# PPI++ coverage ------------------------------------------------------------------------

def test_ppi_plus_plus_covers_at_its_nominal_rate_and_is_narrower_than_people_alone() -> None:
    rng = np.random.default_rng(20261129)
    reps, n, big_n, truth = 1500, 100, 1000, 0.3
    covered, widths, classical_widths = 0, [], []
    for _ in range(reps):
        y = (rng.random(n) < truth).astype(float)
        yhat = np.where(rng.random(n) < 0.85, y, 1 - y)
        y_u = (rng.random(big_n) < truth).astype(float)
        yhat_u = np.where(rng.random(big_n) < 0.85, y_u, 1 - y_u)
        low, high = interval(ppi_mean(y, yhat, yhat_u, confidence=0.9))
        covered += low <= truth <= high
        widths.append(high - low)
        c_low, c_high = interval(classical_mean(y, 0.9))
        classical_widths.append(c_high - c_low)
    assert 0.87 <= covered / reps <= 0.93
    assert np.mean(widths) < 0.85 * np.mean(classical_widths)


def test_ppi_prevalence_covers_every_class() -> None:
    rng = np.random.default_rng(4)
    classes = ["a", "b", "c"]
    shares = np.array([0.5, 0.3, 0.2])
    reps = 800
    covered = dict.fromkeys(classes, 0)
    for _ in range(reps):
        y = rng.choice(classes, 120, p=shares)
        yhat = np.where(rng.random(120) < 0.8, y, rng.choice(classes, 120))
        y_u = rng.choice(classes, 800, p=shares)
        yhat_u = np.where(rng.random(800) < 0.8, y_u, rng.choice(classes, 800))
        result = ppi_prevalence(list(y), list(yhat), list(yhat_u), classes, 0.9)
        for label, share in zip(classes, shares, strict=True):
            low, high = interval(result.by_class[label])
            covered[label] += low <= share <= high
    for label in classes:
        assert 0.86 <= covered[label] / reps <= 0.94, (label, covered[label] / reps)
