"""Prediction-powered means and prevalences, and the Horvitz–Thompson difference estimator.

Prediction-powered inference (PPI; Angelopoulos, Bates, Fannjiang, Jordan and Zrnic
2023, *Science* 382) estimates a population mean from a few human labels ``Y`` and many
machine predictions ``Ŷ``: the machine's mean over the unlabelled items, corrected by
its average error on the labelled ones. PPI++ (Angelopoulos, Duchi and Zrnic 2023,
arXiv:2311.01453) weights the machine by a power-tuning ``λ`` ∈ [0, 1]:

    θ̂_λ = mean(Y − λ·Ŷ) over the n labelled items + λ · mean(Ŷ) over the N unlabelled,
    se² = Var(Y − λ·Ŷ) / n + λ² · Var(Ŷ_unlabelled) / N,

and a normal interval θ̂ ± z·se. ``λ = 0`` is the classical interval from people
alone, ``λ = 1`` plain PPI. The tuned λ minimises se²:
``λ̂ = Cov(Y, Ŷ) / ((1 + n/N) · Var(Ŷ))``, clipped to [0, 1], so a good machine
narrows the interval and a useless one (λ̂ → 0) cannot widen it beyond the classical one
by much. The estimates follow ``ppi-python`` 0.2.3 (``ppi_mean_ci``) to the last digit:
the covariance and the interval variances divide by n (and N), the variance of Ŷ in λ̂
pools labelled and unlabelled predictions with ddof 1. When the predictions are
constant Var(Ŷ) = 0 and λ̂ is 0/0: λ falls back to 0 (the classical interval).

For prevalences one λ is shared by all classes (PPI++'s "overall" mode): it minimises
the *summed* variance of the class estimates, ``λ̂ = Σ_c Cov(Y_c, Ŷ_c) / ((1 + n/N) ·
Σ_c Var(Ŷ_c))`` over one-hot codings. With one λ each class estimate is
``λ·p̂_u + p_l − λ·p̂_l`` and the estimates sum to exactly 1.

With unequal inclusion probabilities PPI's i.i.d. assumption fails; the
Horvitz–Thompson difference estimator (Särndal, Swensson and Wretman 1992, *Model
Assisted Survey Sampling*; the PPI form in Zrnic and Candès 2024, "Active statistical
inference") corrects each sampled item's error by its inverse inclusion probability.

Undefined cases. No labelled items, mismatched lengths or non-finite values raise
``ValueError``. A zero standard error (every human label equal and nothing else varying,
or one label) leaves the interval undefined: ``interval`` is ``None`` and ``reason``
says why, because a zero-width normal interval would claim certainty from no spread.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from app.core.contracts.statistics.distributions import norm_ppf

LabelT = TypeVar("LabelT", bound=Hashable)

ZERO_SE = ("the standard error is zero ({why}), so a normal interval would have no width "
           "and claim a certainty the sample cannot give")
CONSTANT_PREDICTIONS = ("the machine's predictions are constant, so they carry no "
                        "information: λ falls back to 0 (the classical interval)")
NO_UNLABELLED = ("there are no unlabelled predictions to impute: λ is 0 "
                 "(the classical interval from the labels alone)")


@dataclass(frozen=True, slots=True)
class MeanEstimate:
    """An estimated mean with its normal interval.

    Attributes
    ----------
    estimate : float
        The point estimate (for prevalences a share; it may be slightly outside [0, 1]
        for PPI, which corrects the machine by a difference, and is never clipped).
    interval : tuple of float or None
        ``(lower, upper)`` at the requested confidence; ``None`` when undefined.
    std_error : float
        The estimated standard error of ``estimate``.
    lam : float
        The weight given to the machine: PPI++'s λ, 0 for the classical interval, 1 for
        plain PPI and for the Horvitz–Thompson difference estimator.
    n_labelled, n_unlabelled : int
        Items with a human label, and items with only a machine label.
    reason : str or None
        Why ``interval`` is ``None``.
    note : str or None
        How λ was chosen when it fell back to 0.
    """

    estimate: float
    interval: tuple[float, float] | None
    std_error: float
    lam: float
    n_labelled: int
    n_unlabelled: int
    reason: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class PrevalenceEstimate(Generic[LabelT]):
    """Class prevalences estimated with one shared λ (they sum to 1).

    Attributes
    ----------
    by_class : dict
        Class → its :class:`MeanEstimate`, in the order of ``classes``.
    lam : float
        The λ shared by every class.
    n_labelled, n_unlabelled : int
        As in :class:`MeanEstimate`.
    note : str or None
        How λ was chosen when it fell back to 0.
    """

    by_class: dict[LabelT, MeanEstimate]
    lam: float
    n_labelled: int
    n_unlabelled: int
    note: str | None = None


def _confidence(confidence: float) -> float:
    c = float(confidence)
    if not 0.0 < c < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence!r}")
    return c


def _z(confidence: float) -> float:
    return norm_ppf(1.0 - (1.0 - _confidence(confidence)) / 2.0)


def _matrix(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2:
        raise ValueError(f"{name} must be a vector (or items × coordinates), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} holds a non-finite value")
    return x


def _vector(values: npt.ArrayLike, name: str) -> npt.NDArray[np.float64]:
    x = _matrix(values, name)
    if x.shape[1] != 1:
        raise ValueError(f"{name} must be a 1-D vector, got shape {x.shape}")
    return x[:, 0]


def power_tuned_lambda(y: npt.ArrayLike, yhat: npt.ArrayLike,
                       yhat_unlabeled: npt.ArrayLike) -> tuple[float, str | None]:
    """PPI++'s variance-minimising λ, one for all coordinates, clipped to [0, 1].

    ``λ̂ = Σ_c Cov_n(Y_c, Ŷ_c) / ((1 + n/N) · Σ_c Var(Ŷ_c))`` where the covariance is
    over the labelled items with divisor n, and the variance pools the labelled and
    unlabelled predictions with ddof 1 (Angelopoulos, Duchi and Zrnic 2023, mean
    estimation; ``ppi-python``'s ``_calc_lam_glm`` in "overall" mode). Summing over the
    coordinates minimises the total variance of a vector of means, which for one-hot
    class codings keeps one λ for every class.

    Parameters
    ----------
    y, yhat : array_like
        Labels and predictions of the labelled items, ``(n,)`` or ``(n, d)``.
    yhat_unlabeled : array_like
        Predictions of the unlabelled items, ``(N,)`` or ``(N, d)``.

    Returns
    -------
    tuple
        ``(λ, note)``; ``note`` says why λ fell back to 0 (constant predictions, or no
        unlabelled items), else ``None``.
    """
    yl = _matrix(y, "y")
    yh = _matrix(yhat, "yhat")
    yu = _matrix(yhat_unlabeled, "yhat_unlabeled")
    n, big_n = yl.shape[0], yu.shape[0]
    if big_n == 0:
        return 0.0, NO_UNLABELLED
    pooled = np.concatenate([yh, yu], axis=0)
    if np.all(pooled == pooled[0]):
        return 0.0, CONSTANT_PREDICTIONS
    covariance = float(np.sum((yl - yl.mean(axis=0)) * (yh - yh.mean(axis=0)))) / n
    variance = float(np.sum(pooled.var(axis=0, ddof=1)))
    lam = covariance / ((1.0 + n / big_n) * variance)
    return float(min(1.0, max(0.0, lam))), None


def _estimates(yl: npt.NDArray[np.float64], yh: npt.NDArray[np.float64],
               yu: npt.NDArray[np.float64], confidence: float, lam: float,
               note: str | None) -> list[MeanEstimate]:
    n, big_n = yl.shape[0], yu.shape[0]
    rectifier = yl - lam * yh
    estimate = rectifier.mean(axis=0)
    variance = rectifier.var(axis=0) / n
    if big_n:
        estimate = estimate + lam * yu.mean(axis=0)
        variance = variance + (lam * yu).var(axis=0) / big_n
    z = _z(confidence)
    out = []
    for est, var in zip(estimate, variance, strict=True):
        se = math.sqrt(max(0.0, float(var)))
        if se > 0:
            out.append(MeanEstimate(float(est), (float(est - z * se), float(est + z * se)),
                                    se, lam, n, big_n, None, note))
        else:
            why = ("a single label" if n == 1 else
                   "the human labels and the machine's errors do not vary")
            out.append(MeanEstimate(float(est), None, 0.0, lam, n, big_n,
                                    ZERO_SE.format(why=why), note))
    return out


def _check_lambda(lam: float | None, big_n: int) -> float | None:
    if lam is None:
        return None
    value = float(lam)
    if not math.isfinite(value):
        raise ValueError(f"lam must be finite, got {lam!r}")
    if big_n == 0 and value != 0.0:
        raise ValueError("with no unlabelled predictions only lam=0 (classical) is defined")
    return value


def ppi_mean(y: npt.ArrayLike, yhat: npt.ArrayLike, yhat_unlabeled: npt.ArrayLike,
             confidence: float, lam: float | None = None) -> MeanEstimate:
    """PPI++ estimate and two-sided interval of a mean (equal inclusion probabilities).

    Parameters
    ----------
    y : array_like
        Human labels (numbers; 0/1 for a share) of the ``n`` labelled items.
    yhat : array_like
        The machine's predictions for the same items, in the same order.
    yhat_unlabeled : array_like
        The machine's predictions for the ``N`` items without a human label.
    confidence : float
        Coverage of the interval, in (0, 1).
    lam : float, optional
        ``None`` tunes λ (PPI++); 0 gives the classical interval, 1 plain PPI.

    Returns
    -------
    MeanEstimate

    Raises
    ------
    ValueError
        No labelled items, ``y`` and ``yhat`` of different lengths, or a λ other than 0
        with no unlabelled items.
    """
    yl, yh, yu = _mean_inputs(y, yhat, yhat_unlabeled)
    fixed = _check_lambda(lam, yu.shape[0])
    value, note = power_tuned_lambda(yl, yh, yu) if fixed is None else (fixed, None)
    return _estimates(yl, yh, yu, confidence, value, note)[0]


def _mean_inputs(y: npt.ArrayLike, yhat: npt.ArrayLike, yhat_unlabeled: npt.ArrayLike
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                            npt.NDArray[np.float64]]:
    yl, yh = _matrix(y, "y"), _matrix(yhat, "yhat")
    yu = _matrix(yhat_unlabeled, "yhat_unlabeled")
    if yl.shape[1] != 1 or yh.shape[1] != 1 or yu.shape[1] != 1:
        raise ValueError("ppi_mean takes 1-D vectors; use ppi_prevalence for classes")
    if yl.shape[0] == 0:
        raise ValueError("ppi_mean needs at least one human label")
    if yl.shape != yh.shape:
        raise ValueError(f"y and yhat differ in length: {yl.shape[0]} vs {yh.shape[0]}")
    return yl, yh, yu


def classical_mean(y: npt.ArrayLike, confidence: float) -> MeanEstimate:
    """The classical normal interval of a mean from the human labels alone (λ = 0).

    The same arithmetic as :func:`ppi_mean` with ``lam=0`` (standard deviation with
    divisor n, as ``ppi-python``'s ``classical_mean_ci``), so the two are comparable.
    """
    yl = _matrix(y, "y")
    if yl.shape[0] == 0 or yl.shape[1] != 1:
        raise ValueError("classical_mean needs a non-empty 1-D vector of labels")
    empty = np.empty((0, 1), dtype=np.float64)
    return _estimates(yl, np.zeros_like(yl), empty, confidence, 0.0, None)[0]


def _one_hot(labels: Sequence[LabelT], index: dict[LabelT, int], name: str
             ) -> npt.NDArray[np.float64]:
    out = np.zeros((len(labels), len(index)), dtype=np.float64)
    for row, label in enumerate(labels):
        if label not in index:
            raise ValueError(f"{name} has the label {label!r}, which is not among classes")
        out[row, index[label]] = 1.0
    return out


def ppi_prevalence(y_labels: Sequence[LabelT], yhat_labels: Sequence[LabelT],
                   yhat_unlabeled_labels: Sequence[LabelT], classes: Sequence[LabelT],
                   confidence: float, lam: float | None = None
                   ) -> PrevalenceEstimate[LabelT]:
    """PPI++ prevalence of every class, with one λ shared by all classes.

    Each class is a mean of a one-hot indicator. λ is chosen once, minimising the
    summed variance of the class estimates (see :func:`power_tuned_lambda`), so the
    prevalences sum to exactly 1 (up to rounding) and their intervals use the same
    weighting of the machine. A constant machine gives λ = 0 for all classes.

    Parameters
    ----------
    y_labels : sequence
        Human labels of the labelled items.
    yhat_labels : sequence
        The machine's labels for the same items, in the same order.
    yhat_unlabeled_labels : sequence
        The machine's labels for the items without a human label.
    classes : sequence
        Every class, in the order wanted; a label outside it is a ``ValueError``.
    confidence : float
        Coverage of each class's interval (not simultaneous over classes).
    lam : float, optional
        ``None`` tunes λ; 0 gives the classical intervals.

    Returns
    -------
    PrevalenceEstimate
    """
    index = {label: i for i, label in enumerate(classes)}
    if len(index) != len(classes) or not index:
        raise ValueError("classes must be non-empty and without repeats")
    if len(y_labels) == 0:
        raise ValueError("ppi_prevalence needs at least one human label")
    if len(y_labels) != len(yhat_labels):
        raise ValueError(
            f"y_labels and yhat_labels differ in length: {len(y_labels)} vs "
            f"{len(yhat_labels)}")
    yl = _one_hot(y_labels, index, "y_labels")
    yh = _one_hot(yhat_labels, index, "yhat_labels")
    yu = _one_hot(yhat_unlabeled_labels, index, "yhat_unlabeled_labels")
    fixed = _check_lambda(lam, yu.shape[0])
    value, note = power_tuned_lambda(yl, yh, yu) if fixed is None else (fixed, None)
    per_class = _estimates(yl, yh, yu, confidence, value, note)
    return PrevalenceEstimate(dict(zip(classes, per_class, strict=True)), value,
                              yl.shape[0], yu.shape[0], note)


def horvitz_thompson_difference(yhat_all: npt.ArrayLike, y_sample: npt.ArrayLike,
                                yhat_sample: npt.ArrayLike, pi_sample: npt.ArrayLike,
                                confidence: float) -> MeanEstimate:
    """Difference estimator of a population mean under unequal inclusion probabilities.

    Over all N items, ``z_i = Ŷ_i + (Y_i − Ŷ_i) · ξ_i / π_i`` (ξ_i = 1 when item i was
    drawn for a human label, with probability π_i); the estimate is the mean of z — the
    machine's mean plus the Horvitz–Thompson estimate of the mean error — with λ = 1
    and no Hájek normalisation, so it is exactly unbiased under any design with known
    π_i > 0. The standard error is the Horvitz–Thompson variance estimator of a Poisson
    (independent-draw) design,
    ``sqrt(Σ_{i in sample} (1 − π_i) · e_i² / π_i²) / N`` with ``e = Y − Ŷ``, and the
    interval is a two-sided normal one (Särndal, Swensson and Wretman 1992;
    ``shared/spec/contracts.md``, precise rules). A good machine makes the errors small
    and the interval narrow whatever the design.

    Parameters
    ----------
    yhat_all : array_like
        The machine's prediction for every one of the N items, sampled ones included.
    y_sample, yhat_sample : array_like
        Human label and machine prediction of each sampled item.
    pi_sample : array_like
        Each sampled item's inclusion probability, in (0, 1].
    confidence : float
        Coverage of the interval, in (0, 1).

    Returns
    -------
    MeanEstimate
        With ``lam = 1``, ``n_labelled`` the sample size and ``n_unlabelled`` the other
        items (``N − n``).
    """
    all_ = _vector(yhat_all, "yhat_all")
    y = _vector(y_sample, "y_sample")
    yh = _vector(yhat_sample, "yhat_sample")
    pi = _vector(pi_sample, "pi_sample")
    big_n, n = all_.size, y.size
    if n == 0:
        raise ValueError("horvitz_thompson_difference needs at least one sampled label")
    if not y.size == yh.size == pi.size:
        raise ValueError(
            f"y_sample, yhat_sample and pi_sample differ in length: {y.size}, {yh.size}, "
            f"{pi.size}")
    if n > big_n:
        raise ValueError(f"the sample ({n}) is larger than the population ({big_n})")
    if np.any(pi <= 0) or np.any(pi > 1):
        raise ValueError("inclusion probabilities must lie in (0, 1]")
    error = y - yh
    estimate = float((all_.sum() + np.sum(error / pi)) / big_n)
    se = math.sqrt(float(np.sum((1.0 - pi) * error ** 2 / pi ** 2))) / big_n
    if se > 0:
        z = _z(confidence)
        return MeanEstimate(estimate, (estimate - z * se, estimate + z * se), se, 1.0, n,
                            big_n - n)
    _confidence(confidence)
    why = "every sampled item's human label equals the machine's, or it was sure to be drawn"
    return MeanEstimate(estimate, None, 0.0, 1.0, n, big_n - n, ZERO_SE.format(why=why))
