"""Temporal IoU of time segments, vectorized with numpy.

Method
------
Segments are closed intervals ``[start, end]`` in seconds (``agreement.md``, Sets of
objects: temporal IoU = length of the overlap / length of the union). For every pair at
once, by broadcasting::

    overlap = max(0, min(end_a, end_b) - max(start_a, start_b))
    union   = length_a + length_b - overlap

which is exact for the overlapping pairs and gives IoU 0 for the disjoint ones, whose
union length does not matter.

Choices
-------
- **Zero-length segments** (instants): two identical instants have IoU 1; any other
  zero-length case is 0 (the spec's rule). An instant inside a segment overlaps it by a
  length of 0, so it is 0 too.
- **Touching segments** (one ends where the other starts) share one instant, a length of
  0: IoU 0.
- **Tiers**: with ``within_tier=True`` segments whose ``tier`` differs get 0 so they can
  never be matched (spec, Precise rules, Tiers). ``None`` is a tier like any other.
- **Invalid input** (an end before its start, a non-finite bound) raises
  :class:`ValueError`: an IoU of a backwards segment has no meaning, and a NaN would
  silently poison every number it touches.
- No tolerance is applied: identical instants are equal floats (both come from the same
  kind of source), and the arithmetic above is exact for identical segments.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.core.objects import Segment


def _bounds(start: np.ndarray | Sequence[float],
            end: np.ndarray | Sequence[float], name: str) -> tuple[np.ndarray, np.ndarray]:
    """Validated 1-D float arrays of one side's starts and ends."""
    s = np.asarray(start, dtype=np.float64).reshape(-1)
    e = np.asarray(end, dtype=np.float64).reshape(-1)
    if s.shape != e.shape:
        raise ValueError(f"{name}: {s.size} starts but {e.size} ends")
    if not (np.isfinite(s).all() and np.isfinite(e).all()):
        raise ValueError(f"{name}: segment bounds must be finite numbers of seconds")
    if (e < s).any():
        i = int(np.flatnonzero(e < s)[0])
        raise ValueError(f"{name}: segment {i} ends ({e[i]}) before it starts ({s[i]})")
    return s, e


def interval_iou_matrix(a_start: np.ndarray | Sequence[float],
                        a_end: np.ndarray | Sequence[float],
                        b_start: np.ndarray | Sequence[float],
                        b_end: np.ndarray | Sequence[float]) -> np.ndarray:
    """Temporal IoU of every segment of ``a`` with every segment of ``b``.

    Parameters
    ----------
    a_start, a_end, b_start, b_end
        Segment bounds in seconds, one value per segment.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(a), len(b))``, values in ``[0, 1]``.

    Raises
    ------
    ValueError
        When a segment ends before it starts or a bound is not finite.
    """
    s1, e1 = _bounds(a_start, a_end, "a")
    s2, e2 = _bounds(b_start, b_end, "b")
    s1, e1 = s1[:, None], e1[:, None]
    s2, e2 = s2[None, :], e2[None, :]
    overlap = np.maximum(np.minimum(e1, e2) - np.maximum(s1, s2), 0.0)
    union = (e1 - s1) + (e2 - s2) - overlap
    positive = union > 0.0
    iou = np.divide(overlap, union, out=np.zeros(overlap.shape), where=positive)
    # A union of length 0 means two instants: 1 when they are the same instant.
    same_instant = ~positive & (s1 == s2) & (e1 == e2)
    iou[same_instant] = 1.0
    clipped: np.ndarray = np.clip(iou, 0.0, 1.0)
    return clipped


def segment_iou_matrix(a: Sequence[Segment], b: Sequence[Segment], *,
                       within_tier: bool = False) -> np.ndarray:
    """Temporal IoU of two annotators' segments, shape ``(len(a), len(b))``.

    Parameters
    ----------
    a, b
        The segments of annotator A and of annotator B.
    within_tier
        When true, segments in different tiers get 0: for tiered annotations a segment
        can only ever match one of its own tier.

    Returns
    -------
    numpy.ndarray
        IoU values in ``[0, 1]``.
    """
    iou = interval_iou_matrix([s.start for s in a], [s.end for s in a],
                              [s.start for s in b], [s.end for s in b])
    if within_tier and iou.size:
        codes: dict[str | None, int] = {}
        tier_a = np.array([codes.setdefault(s.tier, len(codes)) for s in a])
        tier_b = np.array([codes.setdefault(s.tier, len(codes)) for s in b])
        iou[tier_a[:, None] != tier_b[None, :]] = 0.0
    return iou
