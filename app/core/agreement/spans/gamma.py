"""Mathet et al. (2015)'s γ for span schemes, per item and as the mean over items.

Why: Potato 2.12.1's ``gamma_mathet`` averages pairwise alignments and draws its chance
units uniformly over the text (kinds.md B §2.6); kinds.md A.2 asks instead for γ as
pygamma-agreement 0.5.9 computes it - one n-ary best alignment of all annotators
(:mod:`.gamma_alignment`, exact for any number of annotators) and Mathet's shuffle
sampler for chance (:mod:`.gamma_chance`), seeded - per item, then the unweighted mean
over items as Potato averages its span metrics.

Many items (a project's span scheme): :func:`items_gamma` aligns them by
:mod:`.gamma_batch`, the items and all their chance samples together, with the same
chance draws and the same optimum (tested to 1e-12 against :func:`item_gamma`): some
0.6 ms of CPU a document of 3 annotators × 20 spans, against 6.6 ms before and 35 ms
item by item (tests/benchmarks/bench_span_metrics.py, bench_gamma.py).

γ = 1 − observed disorder / expected disorder, the expected disorder being the mean best
alignment disorder of ``n_samples`` chance continua over [0, L], L the item's text length.
As in pygamma, γ is 1 when the observed disorder is 0 (everybody marked the same spans).

What is reported (kinds.md A.2): the seed, the number of chance samples, and the 95 %
interval of the chance disorder - the interval of its mean, mean ± 1.96·s/√n (Mathet
§5.3's precision criterion, s the samples' standard deviation) - and the γ interval it
gives, (1 − obs/low, 1 − obs/high).

Choices where the spec is silent:

- Every item draws from its own ``numpy.random.default_rng(seed)``, so an item's γ does
  not depend on which other items the project holds or their order. Annotators are taken
  in sorted order of their ids, so the draw does not depend on the input's order.
- A span with end ≤ start cannot be aligned (its positional dissimilarity is 0/0 and
  pygamma refuses it); it is dropped and counted in ``dropped_empty``. The same span
  (start, end, label) twice from one annotator counts once, as pygamma keeps units in a
  set; counted in ``dropped_duplicates``.
- Undefined, with a sentence (never NaN, never 1.0 for no data): fewer than two
  annotators, no text (L ≤ 0, Potato skips such items), nobody marked a span, or a chance
  disorder of 0. One span on the whole item is defined, as in pygamma (Potato says NaN):
  a lone unit against chance samples that may copy it to several annotators, so γ is
  about 0 (0.02 below it with two annotators and seed 1234).
- Out of reach, also undefined with the reason: an item whose exact best alignment needs
  more than ``MAX_CANDIDATES`` candidate tuples, or that HiGHS cannot prove optimal in
  ``TIME_BUDGET`` seconds (many annotators on one item: eight annotators of ten spans
  each take minutes; pygamma enumerates 11⁸ tuples there).
- The default seed is Potato's (1234) and the default sample count pygamma's and
  Potato's (30).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from app.core.agreement.spans.gamma_alignment import (
    EMPTY,
    AlignmentTooLargeError,
    BestAlignment,
    Units,
    best_alignments,
)
from app.core.agreement.spans.gamma_batch import batch_alignments, chance_draws
from app.core.agreement.spans.gamma_chance import shuffle_samples

Span = tuple[float, float, str | None]
"""(start, end, label): end-exclusive character offsets, as Potato stores them."""

DEFAULT_SEED = 1234
DEFAULT_SAMPLES = 30
BATCH_ITEMS = 40
"""Items aligned together by :func:`items_gamma` (1,240 continua of 3 × 20 spans, some
70,000 units: its arrays stay in the processor's cache). CPU time a document on 2,000
documents of the span benchmark: 15 items 0.69 ms, 25-50 0.63-0.69, 100 0.68, 200 0.78,
400 0.94 (larger arrays leave the cache; smaller batches pay numpy's per-call cost)."""
Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95 % interval (Mathet §5.3 uses 1.96)."""


@dataclass(frozen=True)
class ItemGamma:
    """γ on one item. ``gamma`` is ``None`` exactly when ``reason`` holds the sentence.

    ``alignment`` is the best alignment: one tuple per unitary alignment, holding for each
    annotator (in ``annotators`` order) the index of its span in the caller's list, or
    ``None`` for the empty unit.
    """

    gamma: float | None
    reason: str | None
    observed_disorder: float | None
    chance_disorder: float | None
    chance_interval: tuple[float, float] | None
    gamma_interval: tuple[float, float] | None
    seed: int
    n_samples: int
    annotators: tuple[str, ...]
    n_units: int
    dropped_empty: int
    dropped_duplicates: int
    alignment: tuple[tuple[int | None, ...], ...]


@dataclass(frozen=True)
class GammaSummary:
    """γ over items: the unweighted mean of the items where it is defined."""

    gamma: float | None
    reason: str | None
    items_scored: int
    items_undefined: int
    undefined_reasons: dict[str, int]
    gamma_interval: tuple[float, float] | None
    seed: int
    n_samples: int


def _units(spans: Sequence[Span], codes: dict[str | None, int]) -> tuple[Units, np.ndarray, int,
                                                                           int]:
    """Clean one annotator's spans: (units sorted by position, input index of each unit,
    empty spans dropped, duplicates dropped)."""
    seen: dict[tuple[float, float, int], int] = {}
    empty = 0
    for index, (start, end, label) in enumerate(spans):
        start, end = float(start), float(end)
        if not (math.isfinite(start) and math.isfinite(end)):
            raise ValueError(f"span {index} has a position that is not a finite number")
        if end <= start:
            empty += 1
            continue
        seen.setdefault((start, end, codes[label]), index)
    kept = len(spans) - empty
    # Codes follow the labels' sorted text, so (start, end, code) is the position order.
    keys = sorted(seen)
    table = np.array(keys, dtype=np.float64).reshape(len(keys), 3)
    units = Units(table[:, 0].copy(), table[:, 1].copy(), table[:, 2].astype(np.int64))
    return units, np.array([seen[k] for k in keys], dtype=np.int64), empty, kept - len(keys)


def _undefined(reason: str, seed: int, n_samples: int, annotators: tuple[str, ...],
               n_units: int, empty: int, duplicates: int) -> ItemGamma:
    return ItemGamma(None, reason, None, None, None, None, seed, n_samples, annotators,
                     n_units, empty, duplicates, ())


@dataclass(frozen=True)
class _Prepared:
    """An item ready to align: its cleaned units, its length and reported facts (its
    chance samples are drawn when it is aligned)."""

    units: list[Units]
    length: float
    cleaned: list[tuple[Units, np.ndarray, int, int]]
    facts: tuple[int, int, tuple[str, ...], int, int, int]


def _prepare(spans_by_annotator: Mapping[str, Sequence[Span]], length: float, seed: int,
             n_samples: int) -> _Prepared | ItemGamma:
    """Clean the spans, or the item's undefined answer."""
    if n_samples < 2:
        raise ValueError("γ's chance interval needs at least two chance samples")
    annotators = tuple(sorted(spans_by_annotator, key=str))
    labels = sorted({s[2] for spans in spans_by_annotator.values() for s in spans}, key=str)
    codes = {label: code for code, label in enumerate(labels)}
    cleaned = [_units(spans_by_annotator[a], codes) for a in annotators]
    units = [c[0] for c in cleaned]
    empty = sum(c[2] for c in cleaned)
    duplicates = sum(c[3] for c in cleaned)
    n_units = sum(len(u) for u in units)
    facts = (seed, n_samples, annotators, n_units, empty, duplicates)
    if len(annotators) < 2:
        return _undefined(f"γ needs at least two annotators on the item; it has "
                          f"{len(annotators)}.", *facts)
    if length <= 0:
        return _undefined("the item has no text (length 0), so there is no continuum to "
                          "place spans on.", *facts)
    if n_units == 0:
        return _undefined("nobody marked a span on this item: there is nothing to align.",
                          *facts)
    return _Prepared(units, float(length), cleaned, facts)


def _aligned(item: _Prepared) -> ItemGamma:
    """γ of a prepared item, continuum by continuum (HiGHS where the search gives up)."""
    seed, n_samples = item.facts[0], item.facts[1]
    samples = shuffle_samples(item.units, item.length, np.random.default_rng(seed), n_samples)
    try:
        best, *chance_alignments = best_alignments([item.units, *samples])
    except AlignmentTooLargeError as error:
        return _undefined(f"γ was not computed: {error}.", *item.facts)
    return _conclude(item, best, np.array([c.disorder for c in chance_alignments]))


def _conclude(item: _Prepared, best: BestAlignment, chance: np.ndarray,
              stats: tuple[float, float] | None = None) -> ItemGamma:
    """γ, its interval and the alignment in the caller's span indices. ``stats``: the
    chance disorders' mean and standard deviation (ddof 1) when already computed."""
    seed, n_samples, annotators, n_units, empty, duplicates = item.facts
    spans = [c[1].tolist() for c in item.cleaned]
    alignment = tuple(tuple(None if unit == EMPTY else spans[a][unit]
                            for a, unit in enumerate(row))
                      for row in best.tuples.tolist())
    mean, spread = stats or (float(chance.mean()), float(chance.std(ddof=1)))
    half = Z95 * spread / math.sqrt(n_samples)
    interval = (mean - half, mean + half)
    observed = best.disorder
    if observed == 0.0:
        return ItemGamma(1.0, None, observed, mean, interval, (1.0, 1.0), seed, n_samples,
                         annotators, n_units, empty, duplicates, alignment)
    if mean <= 0.0:
        return ItemGamma(None, "every chance sample aligned without disorder, so γ = 1 − "
                         "observed / 0 is undefined.", observed, mean, interval, None,
                         seed, n_samples, annotators, n_units, empty, duplicates, alignment)
    gamma_interval = ((1.0 - observed / interval[0], 1.0 - observed / interval[1])
                      if interval[0] > 0.0 else None)
    return ItemGamma(1.0 - observed / mean, None, observed, mean, interval, gamma_interval,
                     seed, n_samples, annotators, n_units, empty, duplicates, alignment)


def item_gamma(spans_by_annotator: Mapping[str, Sequence[Span]], length: float, *,
               seed: int = DEFAULT_SEED, n_samples: int = DEFAULT_SAMPLES) -> ItemGamma:
    """γ on one item from each annotator's spans (an annotator who saved the item but
    marked nothing is given as ``[]`` and takes part) and the item's text length ``L``."""
    prepared = _prepare(spans_by_annotator, length, seed, n_samples)
    return prepared if isinstance(prepared, ItemGamma) else _aligned(prepared)


def items_gamma(items: Sequence[tuple[Mapping[str, Sequence[Span]], float]], *,
                seed: int = DEFAULT_SEED, n_samples: int = DEFAULT_SAMPLES,
                batch_items: int = BATCH_ITEMS) -> list[ItemGamma]:
    """:func:`item_gamma` of every (spans by annotator, length) item, the same values, by
    :mod:`.gamma_batch`: items with the same number of annotators are aligned
    ``batch_items`` at a time with their chance samples; an item the batch cannot solve
    (a segment too wide for the search, a batch with too many candidates) is aligned on
    its own as :func:`item_gamma` does, with the same samples."""
    results: list[ItemGamma | None] = [None] * len(items)
    groups: dict[int, list[tuple[int, _Prepared]]] = {}
    for index, (spans, length) in enumerate(items):
        prepared = _prepare(spans, length, seed, n_samples)
        if isinstance(prepared, ItemGamma):
            results[index] = prepared
        else:
            groups.setdefault(len(prepared.units), []).append((index, prepared))
    for group in groups.values():
        sources, pivots, widened = chance_draws([(p.units, p.length) for _, p in group],
                                                seed, n_samples)
        for at in range(0, len(group), batch_items):
            chunk = group[at: at + batch_items]
            part = slice(at, at + batch_items)
            try:
                aligned = batch_alignments([(p.units, p.length) for _, p in chunk], seed,
                                           n_samples,
                                           (sources[part], pivots[part], widened[part]))
            except AlignmentTooLargeError:
                aligned = [None] * len(chunk)
            chance = np.array([a[0] if a else np.zeros(n_samples) for a in aligned])
            stats = zip(chance.mean(axis=1).tolist(), chance.std(axis=1, ddof=1).tolist(),
                        strict=True)
            for (index, prepared), answer, stat in zip(chunk, aligned, stats, strict=True):
                results[index] = (_aligned(prepared) if answer is None
                                  else _conclude(prepared, answer[1], answer[0], stat))
    return [r for r in results if r is not None]


def mean_gamma(items: Sequence[ItemGamma]) -> GammaSummary:
    """The unweighted mean of the defined items' γ, as Potato averages per-item metrics.

    ``gamma_interval`` averages the items' interval bounds: it holds the mean whenever
    every item's γ lies in its own interval, so it is wider than a 95 % interval of the
    mean (``None`` when an item has no interval).
    """
    defined = [i for i in items if i.gamma is not None]
    reasons: dict[str, int] = {}
    for item in items:
        if item.reason is not None:
            reasons[item.reason] = reasons.get(item.reason, 0) + 1
    seed = items[0].seed if items else DEFAULT_SEED
    n_samples = items[0].n_samples if items else DEFAULT_SAMPLES
    if not defined:
        reason = ("no item has a γ: " + " ".join(sorted(reasons)) if reasons
                  else "there are no items with spans to score.")
        return GammaSummary(None, reason, 0, len(items), reasons, None, seed, n_samples)
    bounds = [i.gamma_interval for i in defined]
    interval = (None if any(b is None for b in bounds) else
                (math.fsum(b[0] for b in bounds if b) / len(bounds),
                 math.fsum(b[1] for b in bounds if b) / len(bounds)))
    value = math.fsum(i.gamma for i in defined if i.gamma is not None) / len(defined)
    return GammaSummary(value, None, len(defined), len(items) - len(defined), reasons,
                        interval, seed, n_samples)
