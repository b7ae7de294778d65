"""Mathet's shuffle sampler: the chance continua γ's expected disorder is measured on.

Why this sampler: kinds.md A.2 asks for Mathet et al. (2015) §5.2 as the Java
gamma-software and pygamma-agreement 0.5.9's ``ShuffleContinuumSampler`` implement it,
seeded. It keeps what an annotator's behaviour is made of (how many units, their lengths,
labels, gaps and order) and destroys only the agreement between annotators: each sampled
annotator is a whole real annotation set, shifted along the continuum by a random pivot.
Potato's own baseline (every unit dropped uniformly on [0, L]) also destroys each
annotator's own structure, so its chance disorder grows with the text length.

One sample over the continuum [0, L] (L = the item's text length, Potato's axis):

1. ``spacing`` = half the mean unit length over all annotators' units.
2. For each of the n annotators in turn: a pivot is drawn from what is still available
   of [0, L] (an available stretch chosen with probability proportional to its length,
   then a uniform point in it, truncated to an integer as the Java software does), and
   [pivot − spacing, pivot + spacing] is excluded from the available stretches (by
   pygamma's rule, below) so that the next pivots fall apart; when nothing is available
   any more the pivot is uniform on [0, L] (not truncated). Then one of the real
   annotators is drawn uniformly, with replacement, and all its units are copied shifted
   by the pivot; a unit whose shifted start passes L wraps around to the start (shifted
   by pivot − L instead).
3. A sample in which no annotator holds a unit is drawn again.

Choices where the spec is silent or pygamma is peculiar:

- The available stretches are updated as pygamma's ``_remove_pivot_segment`` updates
  them, not by exact subtraction: a stretch wholly inside [pivot − spacing, pivot +
  spacing] goes, one straddling it is cut in two, but one lying wholly on one side is
  *widened* up to that interval (a stretch left of it becomes [start, pivot − spacing]),
  so later pivots can land where earlier exclusions were. Measured on 600 samples of
  three small continua, exact subtraction raises the mean chance disorder by about 1.5 %
  (some 2 standard errors) above pygamma's, while this rule agrees with it; kinds.md A.2
  asks for γ as pygamma computes it, so its rule is kept.
- Randomness is a ``numpy.random.Generator`` passed in (seeded by the caller, reported),
  not the global ``np.random`` state pygamma uses: the same γ as pygamma in distribution,
  not draw for draw.
- L below the last unit's end (spans past the text) widens the continuum to that end, so
  no unit starts outside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from app.core.agreement.spans.gamma_alignment import Units

MAX_DRAWS = 1000
"""Redraws of an all-empty sample before giving up (only when some annotator has units,
each draw is empty with probability at most ((n − 1)/n)^n, so this never binds)."""


def _subtract(stretches: list[tuple[float, float]], low: float,
              high: float) -> list[tuple[float, float]]:
    """The available stretches after a pivot excluded [low, high], by pygamma's rule
    (see the module text: stretches wholly on one side are widened up to the interval)."""
    kept: list[tuple[float, float]] = []
    for start, end in stretches:
        if start >= low:
            if end > high:
                kept.append((high, end))
        elif end > high:
            kept.extend([(start, low), (high, end)])
        else:
            kept.append((start, low))
    return kept


def _pivot(stretches: list[tuple[float, float]], length: float,
           rng: np.random.Generator) -> float:
    """A pivot from the available stretches (integer), or uniform on [0, length]."""
    if not stretches:
        return float(rng.uniform(0.0, length))
    if len(stretches) >= 8:  # numpy sums 8 or more widths pairwise: its own calls
        widths = np.array([e - s for s, e in stretches])
        chosen = int(rng.choice(len(stretches), p=widths / widths.sum()))
        start, end = stretches[chosen]
        return float(int(rng.uniform(start, end)))
    # The same draws as the calls above (Generator.choice with p: cdf = cumsum(p) / its
    # last entry, one random() searched from the right; uniform(a, b) = a + (b − a) ·
    # random()), the same float operations in the same order, without numpy's per-call
    # cost (tested equal on 200,000 random stretch lists).
    total = 0.0
    for start, end in stretches:
        total += end - start
    cdf: list[float] = []
    running = 0.0
    for start, end in stretches:
        running += (end - start) / total
        cdf.append(running)
    draw = rng.random()
    chosen = 0
    while chosen < len(cdf) and cdf[chosen] / running <= draw:
        chosen += 1
    start, end = stretches[chosen]
    return float(int(start + (end - start) * rng.random()))


def shuffle_sample(units: Sequence[Units], length: float,
                   rng: np.random.Generator) -> list[Units]:
    """One chance continuum with as many annotators as ``units`` (see the module text)."""
    return shuffle_samples(units, length, rng, 1)[0]


def shuffle_draws(units: Sequence[Units], length: float, rng: np.random.Generator,
                  count: int) -> tuple[list[tuple[int, float]], float]:
    """The draws of ``count`` chance continua: (source annotator, pivot) for each annotator
    of each sample in turn, and the continuum's length (widened to the last unit's end).
    :mod:`.gamma_draws` takes the same draws for many items at once."""
    all_starts = np.concatenate([u.starts for u in units])
    all_ends = np.concatenate([u.ends for u in units])
    if not len(all_starts):
        raise ValueError("a chance continuum needs at least one unit")
    spacing = float(np.mean(all_ends - all_starts)) / 2.0
    length = max(float(length), float(all_ends.max()))
    sizes = [len(u) for u in units]
    draws: list[tuple[int, float]] = []
    for _sample in range(count):
        for _ in range(MAX_DRAWS):
            stretches = [(0.0, length)]
            drawn: list[tuple[int, float]] = []
            for _annotator in units:
                pivot = _pivot(stretches, length, rng)
                if stretches:
                    stretches = _subtract(stretches, pivot - spacing, pivot + spacing)
                drawn.append((int(rng.integers(len(units))), pivot))
            if any(sizes[source] for source, _ in drawn):
                break
        else:  # pragma: no cover
            raise RuntimeError("no chance sample held a unit")
        draws.extend(drawn)
    return draws, length


def shuffle_samples(units: Sequence[Units], length: float, rng: np.random.Generator,
                    count: int) -> list[list[Units]]:
    """``count`` chance continua, the same draws as ``count`` calls of
    :func:`shuffle_sample`: the draws first (pivot and source of each annotator of each
    sample), then every shifted copy in one numpy pass (same float operations)."""
    draws, length = shuffle_draws(units, length, rng, count)
    sizes = [len(u) for u in units]
    counts = np.array([sizes[source] for source, _ in draws], dtype=np.int64)
    pivots = np.repeat(np.array([pivot for _, pivot in draws]), counts)
    starts = np.concatenate([units[source].starts for source, _ in draws])
    shift = np.where(starts + pivots > length, pivots - length, pivots)
    starts = starts + shift
    ends = np.concatenate([units[source].ends for source, _ in draws]) + shift
    labels = np.concatenate([units[source].labels for source, _ in draws])
    bounds = np.concatenate([[0], np.cumsum(counts)]).tolist()
    copies = [Units(starts[a:b], ends[a:b], labels[a:b])
              for a, b in pairwise(bounds)]
    n = len(units)
    return [copies[k * n: (k + 1) * n] for k in range(count)]
