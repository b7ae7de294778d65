"""Distribution statistics of the ``distributional`` contract: JS distance, bootstrap, ceiling.

Pure functions, no I/O and no contract logic.

- :func:`jensen_shannon_distance` is the base-2 Jensen–Shannon distance between two
  label distributions, in [0, 1].
- :func:`bootstrap_interval` is the seeded percentile bootstrap interval of a mean.
- :func:`split_half_noise_ceiling` is how far apart two random halves of the same people
  are, item by item: the best a machine can be expected to do.

Malformed input raises ``ValueError`` (``TypeError`` for a non-integer count) with a
sentence naming the problem; nothing here returns NaN.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from app.core.contracts.statistics.checks import _count, _probability

ItemT = TypeVar("ItemT", bound=Hashable)
LabelT = TypeVar("LabelT", bound=Hashable)

BOOTSTRAP_SEED = 20261129
BOOTSTRAP_RESAMPLES = 2000
NOISE_CEILING_SPLITS = 20


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
