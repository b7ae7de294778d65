"""STAPLE on binary masks, as ITK's ``STAPLEImageFilter`` computes it; majority vote; Dice.

Method
------
STAPLE (Warfield, Zou, Wells 2004, *IEEE TMI* 23(7)) treats the true segmentation as
hidden and estimates, by expectation–maximization over the raters' binary pixel
decisions ``D[j, i]``, each rater's **sensitivity** ``p_j`` (share of true foreground
they marked) and **specificity** ``q_j`` (share of true background they left), plus the
probability ``W_i`` that pixel ``i`` is foreground. The spec asks for ITK's behaviour
(``agreement.md``, Masks), which this module reproduces step for step, following
``Modules/Filtering/ImageCompare/include/itkSTAPLEImageFilter.hxx``:

1. **Start**: ``W_i`` = the pixel's vote fraction (share of raters marking it).
2. **Prior**: ``g = mean_i W_i`` (with ITK's default confidence weight 1), computed once
   from that start and **never re-estimated** - the spec's "prior is the mean vote
   fraction and stays fixed".
3. **Each iteration**: first the M-step from the current ``W``::

       p_j = Σ_{i: D_ji=1} W_i / Σ_i W_i
       q_j = Σ_{i: D_ji=0} (1 − W_i) / Σ_i (1 − W_i)

   then the E-step ``W_i = g·a_i / (g·a_i + (1 − g)·b_i)`` with
   ``a_i = Π_j (p_j if D_ji else 1 − p_j)`` and ``b_i = Π_j (1 − q_j if D_ji else q_j)``.
4. **Stop** after an iteration other than the first when, for every rater, both
   ``(p_j − p_j_prev)²`` and ``(q_j − q_j_prev)²`` are at most ``1e-14`` (ITK's
   ``min_rms_error``; a change of at most 1e-7), or after ``max_iterations``
   iterations (ITK's default: the largest ``unsigned int``, 4294967295).

The reported estimates are those of the last iteration, and ``probability`` is the ``W``
computed from them, as ITK leaves its output image.

Speed: a pixel enters the sums only through its *pattern* of decisions (which raters
marked it), so pixels are grouped by pattern once (``2^raters`` possible patterns, at
most the number of pixels) and every iteration costs ``O(patterns × raters)`` instead of
``O(pixels × raters)``. Five raters on a 1024 × 1024 mask have at most 32 patterns.

Choices where the spec (and ITK) are silent
-------------------------------------------
ITK divides 0 by 0 in three places and then carries NaN; this module does not:

- **Nobody marked anything, or everybody marked everything** (``g`` is 0 or 1): there
  is no foreground (background) to measure sensitivity (specificity) against. The
  result keeps ``probability`` = the vote fraction, sets the measurable estimate to 1
  (nobody marked background / left foreground, so nobody erred on that side), the
  other to NaN, and says why in :attr:`StapleResult.undefined`. The report layer turns
  NaN with that reason into ``null`` and the sentence.
- **A rater's denominator vanishes later** (``Σ W = 0`` or ``Σ (1 − W) = 0`` after the
  first iteration): the estimate keeps its previous value (the data no longer speak to
  it).
- **A pixel both hypotheses call impossible** (``a_i = b_i = 0``, raters estimated as
  perfect contradicting each other): ``W_i`` falls back to the pixel's vote fraction,
  the starting point of the iteration.

**Ties are kept exactly.** EM has symmetric stationary points that are unstable: two
raters (or two pixel patterns) that the data cannot tell apart get equal estimates in
exact arithmetic, but a rounding difference of 1e-17 between them can grow until the
iteration slides to an arbitrary lopsided answer (one rater sensitivity 1, the other
0.5). ITK sums pixel by pixel in scan order, so whether and which way it slides depends
on pixel order. Here every sum over patterns is taken over sorted terms and every
product over sorted factors, so equal multisets give bit-identical results: the answer
is the exact-arithmetic one and does not change when raters or pixels are reordered.
This holds up to 2^16 (rater, pattern) cells (any image with up to 12 raters); beyond,
plain matrix products keep each iteration cheap and the guarantee is dropped.

**Agreement with ITK.** Outside the 0/0 cases and these ties the numbers equal ITK's to
rounding (1e-10 on 5 raters × 1024², 1e-13 on small masks). At a tie ITK happens to
break, the two answers differ by design; on 20,000 random small cases that was 50
(0.26 %), every one a tie ITK broke and this module kept. ``tests/core/test_staple.py``
checks both statements against SimpleITK.

Thresholds: :meth:`StapleResult.consensus` keeps pixels with ``W > threshold`` and
:func:`majority_vote` pixels marked by strictly more than half the raters; both treat a
tie as "not foreground", so the two consensus masks are comparable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.agreement.coefficient import Coefficient

ITK_MAX_ITERATIONS = 2**32 - 1
"""ITK's default ``MaximumIterations`` (``NumericTraits<unsigned int>::max()``)."""

ITK_TOLERANCE = 1.0e-14
"""ITK's ``min_rms_error``: the largest squared change of any estimate at convergence."""

_DIRECT_PATTERN_RATERS = 20
"""Up to this many raters, patterns are counted with one ``bincount`` over 2^raters bins."""

_SYMMETRIC_LIMIT = 1 << 16
"""Up to this many (rater, pattern) cells, sums and products are made order-independent."""

NOTHING_MARKED = (
    "no rater marked any pixel: sensitivity has no foreground to be measured on"
)
EVERYTHING_MARKED = (
    "every rater marked every pixel: specificity has no background to be measured on"
)
BOTH_EMPTY = "both masks are empty: Dice is 0/0"


@dataclass(frozen=True, slots=True)
class StapleResult:
    """What STAPLE estimated for one set of raters on one image and label.

    Attributes
    ----------
    probability : numpy.ndarray
        Per pixel, the estimated probability of true foreground (``W``), float64, in the
        shape of the pixel axes of the input.
    sensitivity, specificity : numpy.ndarray
        Per rater, in input order. Low sensitivity: under-segments; low specificity:
        over-segments (report both, never one accuracy). NaN only in the cases named by
        :attr:`undefined`.
    iterations : int
        EM iterations performed. ITK's ``GetElapsedIterations()`` is the index of the
        last one, ``iterations − 1`` when it converged.
    converged : bool
        False when ``max_iterations`` stopped the loop first.
    prior : float
        The fixed foreground prior ``g``: the mean vote fraction.
    undefined : str or None
        Why an estimate is NaN, when one is.
    """

    probability: np.ndarray
    sensitivity: np.ndarray
    specificity: np.ndarray
    iterations: int
    converged: bool
    prior: float
    undefined: str | None = None

    def consensus(self, threshold: float = 0.5) -> np.ndarray:
        """The consensus mask: pixels whose probability exceeds ``threshold`` (strictly)."""
        mask: np.ndarray = self.probability > threshold
        return mask


def _as_decisions(decisions: np.ndarray) -> np.ndarray:
    """``(raters, pixels)`` bool from ``(raters, ...)`` bool or 0/1 input."""
    d = np.asarray(decisions)
    if d.ndim < 2:
        raise ValueError(f"decisions need a rater axis and pixel axes, got shape {d.shape}")
    if d.dtype != np.bool_:
        if not np.isin(d, (0, 1)).all():
            raise ValueError("decisions must be boolean or 0/1")
        d = d.astype(bool)
    if d.shape[0] == 0 or d[0].size == 0:
        raise ValueError(f"STAPLE needs at least one rater and one pixel, got {d.shape}")
    return d.reshape(d.shape[0], -1)


def _patterns(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Group pixels by their decision pattern (which raters marked them).

    Returns the distinct patterns ``(n_patterns, raters)``, their pixel counts, a code
    per pixel, the code of each distinct pattern, and the number of codes: a per-pattern
    value ``v`` expands to pixels as ``full[codes]`` after ``full[slots] = v``.
    """
    raters = d.shape[0]
    if raters <= _DIRECT_PATTERN_RATERS:
        # Bit j of a pixel's code is rater j's decision, built with in-place shifts on
        # the narrowest unsigned type (a few ms for 5 raters × 1024², no int64 temporary).
        dtype = np.uint8 if raters <= 8 else np.uint16 if raters <= 16 else np.uint32
        as_int = d.view(np.uint8)
        codes = as_int[0].astype(dtype)
        for j in range(1, raters):
            codes |= as_int[j].astype(dtype) << dtype(j)
        n_codes = 1 << raters
        counts_all = np.bincount(codes, minlength=n_codes)
        slots = np.flatnonzero(counts_all)
        bits = np.left_shift(np.int64(1), np.arange(raters, dtype=np.int64))
        patterns = (slots[:, None] & bits[None, :]) != 0
        return patterns, counts_all[slots].astype(np.float64), codes, slots, n_codes
    packed = np.packbits(d, axis=0).T
    unique, inverse, counts = np.unique(packed, axis=0, return_inverse=True,
                                        return_counts=True)
    patterns = np.unpackbits(unique, axis=1, count=raters).astype(bool)
    n_unique = unique.shape[0]
    return (patterns, counts.astype(np.float64), inverse.reshape(-1),
            np.arange(n_unique), n_unique)


def _expand(values: np.ndarray, codes: np.ndarray, slots: np.ndarray, n_codes: int
            ) -> np.ndarray:
    """Per-pattern values to per-pixel values."""
    full = np.zeros(n_codes)
    full[slots] = values
    return np.take(full, codes)


def staple(decisions: np.ndarray, *, max_iterations: int | None = None,
           tolerance: float = ITK_TOLERANCE) -> StapleResult:
    """Run STAPLE as ITK's ``STAPLEImageFilter`` does (foreground value 1, weight 1).

    Parameters
    ----------
    decisions : numpy.ndarray
        ``(raters, pixels)`` (or ``(raters, height, width)``) boolean or 0/1: each
        rater's mask of one label on one item, OR-ed over their masks of that label.
    max_iterations : int, optional
        Iteration cap; ``None`` is ITK's default (4294967295, in practice "until
        converged": EM settles in tens of iterations).
    tolerance : float
        Largest **squared** change of every sensitivity and specificity between two
        iterations at which the loop stops; ITK's fixed value by default.

    Returns
    -------
    StapleResult
    """
    d = _as_decisions(decisions)
    pixel_shape = np.shape(decisions)[1:]
    cap = ITK_MAX_ITERATIONS if max_iterations is None else int(max_iterations)
    if cap < 1:
        raise ValueError(f"max_iterations must be at least 1, got {max_iterations}")
    raters = d.shape[0]
    patterns, counts, codes, slots, n_codes = _patterns(d)
    n_pixels = float(counts.sum())

    vote = patterns.sum(axis=1) / raters  # per pattern: the ITK start
    # Σ votes / (raters · pixels) from integer counts: the mean vote fraction with one
    # rounding, whatever the order of raters and pixels.
    prior = float(np.count_nonzero(d)) / (raters * n_pixels)
    if prior <= 0.0 or prior >= 1.0:
        empty = prior <= 0.0
        ones, nans = np.ones(raters), np.full(raters, np.nan)
        return StapleResult(
            probability=_read_only(_expand(vote, codes, slots, n_codes).reshape(pixel_shape)),
            sensitivity=_read_only(nans if empty else ones),
            specificity=_read_only(ones if empty else nans),
            iterations=0, converged=True, prior=prior,
            undefined=NOTHING_MARKED if empty else EVERYTHING_MARKED)

    marked = np.ascontiguousarray(patterns.T)  # (raters, n_patterns)
    symmetric = marked.size <= _SYMMETRIC_LIMIT
    w = vote.copy()
    p = np.full(raters, np.nan)
    q = np.full(raters, np.nan)
    last_p = np.full(raters, -10.0)  # ITK's sentinel: the first iteration never stops
    last_q = np.full(raters, -10.0)
    iteration = 0
    converged = False
    with np.errstate(divide="ignore", invalid="ignore"):
        while iteration < cap:
            # M-step: sensitivity and specificity from the current W.
            fg = counts * w
            bg = counts * (1.0 - w)
            fg_total, bg_total = _total(fg, symmetric), _total(bg, symmetric)
            if fg_total > 0.0:
                p = _rater_sums(fg, marked, symmetric) / fg_total
            if bg_total > 0.0:
                q = _rater_sums(bg, ~marked, symmetric) / bg_total
            # E-step: W from the estimates and the fixed prior.
            a = _products(np.where(patterns, p, 1.0 - p), symmetric)
            b = _products(np.where(patterns, 1.0 - q, q), symmetric)
            numerator = prior * a
            denominator = numerator + (1.0 - prior) * b
            w = np.where(denominator > 0.0, numerator / denominator, vote)
            iteration += 1
            if iteration > 1 and bool(np.all((p - last_p) ** 2 <= tolerance)
                                      and np.all((q - last_q) ** 2 <= tolerance)):
                converged = True
                break
            last_p, last_q = p, q
    return StapleResult(
        probability=_read_only(_expand(w, codes, slots, n_codes).reshape(pixel_shape)),
        sensitivity=_read_only(p), specificity=_read_only(q),
        iterations=iteration, converged=converged, prior=prior)


def _rater_sums(weights: np.ndarray, select: np.ndarray, symmetric: bool) -> np.ndarray:
    """Per rater, the sum of ``weights`` over the patterns ``select`` picks for them.

    With ``symmetric``, each rater's terms are sorted before one fixed-order sum, so two
    raters whose terms are the same multiset get bit-identical sums (see
    :func:`staple`); otherwise one matrix product.
    """
    if symmetric:
        terms = np.where(select, weights, 0.0)
        terms.sort(axis=1)
        sums: np.ndarray = terms.sum(axis=1)
        return sums
    product: np.ndarray = select.astype(np.float64) @ weights
    return product


def _total(weights: np.ndarray, symmetric: bool) -> float:
    """Sum over patterns (of sorted terms when ``symmetric``: independent of rater order)."""
    return float(np.sort(weights).sum() if symmetric else weights.sum())


def _products(factors: np.ndarray, symmetric: bool) -> np.ndarray:
    """Per pattern, the product of its row of factors (sorted first when ``symmetric``)."""
    if symmetric:
        factors = np.sort(factors, axis=1)
    result: np.ndarray = factors.prod(axis=1)
    return result


def _read_only(array: np.ndarray) -> np.ndarray:
    """The array, made unwritable so a frozen result stays frozen (no copy when owned)."""
    out = np.asarray(array, dtype=np.float64)
    out.setflags(write=False)
    return out


def majority_vote(decisions: np.ndarray) -> np.ndarray:
    """Pixels marked by strictly more than half the raters (a tie is not foreground).

    Parameters
    ----------
    decisions : numpy.ndarray
        ``(raters, ...)`` boolean or 0/1.

    Returns
    -------
    numpy.ndarray
        Boolean, the shape of the pixel axes.
    """
    d = np.asarray(decisions)
    if d.ndim < 2 or d.shape[0] == 0:
        raise ValueError(f"decisions need a rater axis and pixel axes, got shape {d.shape}")
    votes = np.count_nonzero(d, axis=0)
    result: np.ndarray = 2 * votes > d.shape[0]
    return result


def dice(a: np.ndarray, b: np.ndarray) -> Coefficient:
    """Dice ``2|A ∩ B| / (|A| + |B|)`` of two masks of the same shape.

    Two empty masks give 0/0: the result is undefined with a reason, never a silent 1.0
    (an empty consensus matching an empty truth says nothing about segmentation skill),
    in the :class:`~app.core.agreement.coefficient.Coefficient` form the report layer
    already turns into ``null`` plus its sentence.
    """
    x = np.asarray(a, dtype=bool)
    y = np.asarray(b, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"masks differ in shape: {x.shape} and {y.shape}")
    total = np.count_nonzero(x) + np.count_nonzero(y)
    if total == 0:
        return Coefficient.undefined(BOTH_EMPTY)
    return Coefficient.of(2.0 * np.count_nonzero(x & y) / total)
