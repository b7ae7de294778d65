"""MOTA, IDF1 and ID switches between two annotators' tracks (``kinds.md`` B §2.8).

Frame-by-frame matching cannot see an identity error: two annotators who both box two
crossing pedestrians, one swapping their ids where they cross, agree on every frame.
The multi-object-tracking measures see it:

- **CLEAR MOT** (Bernardin and Stiefelhagen 2008), one annotator as the reference: on
  each frame a reference track keeps last frame's partner while their similarity still
  reaches the threshold (and the partner is not taken); the rest are matched by the
  Hungarian algorithm, as many pairs at or above the threshold as exist and among those
  the most similar (a pair below the threshold costs more than any number of valid
  pairs). A reference track matched to another track than its last partner (on any
  earlier frame) is an ID switch. Misses are unmatched reference objects, extras
  unmatched objects of the other.
- **IDTP** (Ristani et al. 2016): the object-frames matched under the one-to-one
  assignment of one annotator's tracks to the other's that maximizes them, a pair
  of objects counting when their similarity reaches the threshold.

Neither annotator is the truth, so MOTA and the switches are counted in both directions
and pooled, as Potato 2.12.1 pools them (``iaa/identity.py``): over every annotator pair
of every tracked item and both directions, MOTA = 1 − Σ(misses + extras + switches) /
Σ reference object-frames, IDF1 = 2·ΣIDTP / Σ(both annotators' object-frames), and the
ID switches are the total halved (per direction). Long sequences weigh more, as the
tracking benchmarks pool over sequences. Each direction's CLEAR MOT is motmetrics'
``MOTAccumulator`` with distance 1 − similarity (tested equal).

The similarity matrices come from the caller, one per frame both annotators have objects
on, computed once for both directions and IDTP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

Scores = Mapping[int, np.ndarray]
"""Per frame, the ``(n_a, n_b)`` similarity of one annotator's objects to the other's."""


@dataclass(frozen=True, slots=True)
class Direction:
    """One direction's CLEAR MOT counts."""

    reference: int
    misses: int
    extra: int
    id_switches: int


@dataclass(frozen=True, slots=True)
class PairCounts:
    """What the pooling needs from one pair of annotators on one item."""

    a_as_reference: Direction
    b_as_reference: Direction
    idtp: int
    object_frames: int


def _hungarian(matrix: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    """Pairs at or above ``threshold``: the most pairs, then the highest similarity."""
    if matrix.size == 0:
        return []
    ineligible = float(min(matrix.shape) + 1)
    cost = np.where(matrix >= threshold, 1.0 - matrix, ineligible)
    rows, cols = linear_sum_assignment(cost)
    return [(i, j) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
            if matrix[i, j] >= threshold]


def clear_mot(reference: Mapping[int, Sequence[str]], other: Mapping[int, Sequence[str]],
              scores: Scores, threshold: float) -> Direction:
    """Misses, extras and ID switches with ``reference`` as the truth.

    ``reference``/``other``: the track ids on each frame (in their objects' order);
    ``scores[frame]``: reference-by-other similarity on the frames both have objects on.
    """
    partner: dict[str, str] = {}
    n_ref = misses = extra = switches = 0
    for frame in sorted(set(reference) | set(other)):
        ref_here, other_here = reference.get(frame, ()), other.get(frame, ())
        n_ref += len(ref_here)
        if not ref_here or not other_here:
            misses += len(ref_here)
            extra += len(other_here)
            continue
        matrix = scores[frame]
        column = {track: j for j, track in enumerate(other_here)}
        matched: dict[int, int] = {}
        taken: set[int] = set()
        for i, track in enumerate(ref_here):
            j = column.get(partner.get(track, ""), -1) if track in partner else -1
            if j >= 0 and j not in taken and matrix[i, j] >= threshold:
                matched[i] = j
                taken.add(j)
        if len(matched) < min(len(ref_here), len(other_here)):
            rest_ref = [i for i in range(len(ref_here)) if i not in matched]
            rest_other = [j for j in range(len(other_here)) if j not in taken]
            block = matrix[np.ix_(rest_ref, rest_other)]
            for a, b in _hungarian(block, threshold):
                i, j = rest_ref[a], rest_other[b]
                track, other_track = ref_here[i], other_here[j]
                if track in partner and partner[track] != other_track:
                    switches += 1
                partner[track] = other_track
                matched[i] = j
        misses += len(ref_here) - len(matched)
        extra += len(other_here) - len(matched)
    return Direction(n_ref, misses, extra, switches)


def id_true_positives(a: Mapping[int, Sequence[str]], b: Mapping[int, Sequence[str]],
                      scores: Scores, threshold: float) -> int:
    """IDTP: object-frames matched under the best track-to-track assignment."""
    tracks_a = sorted({t for ids in a.values() for t in ids})
    tracks_b = sorted({t for ids in b.values() for t in ids})
    if not tracks_a or not tracks_b:
        return 0
    row = {t: i for i, t in enumerate(tracks_a)}
    col = {t: j for j, t in enumerate(tracks_b)}
    weights = np.zeros((len(tracks_a), len(tracks_b)), dtype=np.int64)
    for frame, matrix in scores.items():
        ii, jj = np.nonzero(matrix >= threshold)
        if ii.size:
            rows = np.array([row[t] for t in a[frame]])[ii]
            cols = np.array([col[t] for t in b[frame]])[jj]
            np.add.at(weights, (rows, cols), 1)
    r, c = linear_sum_assignment(-weights)
    return int(weights[r, c].sum())


def pair_counts(a: Mapping[int, Sequence[str]], b: Mapping[int, Sequence[str]],
                scores: Scores, threshold: float) -> PairCounts:
    """Both directions, IDTP and the object-frames of one annotator pair on one item."""
    transposed = {frame: matrix.T for frame, matrix in scores.items()}
    return PairCounts(
        clear_mot(a, b, scores, threshold), clear_mot(b, a, transposed, threshold),
        id_true_positives(a, b, scores, threshold),
        sum(len(v) for v in a.values()) + sum(len(v) for v in b.values()))


@dataclass(frozen=True, slots=True)
class Identity:
    """The pooled measures; ``None`` with :attr:`reason` when no pair has tracks."""

    mota: float | None
    idf1: float | None
    id_switches: float | None
    n_pairs: int
    n_object_frames: int
    misses: int
    extra: int
    reason: str | None = None


NO_TRACKS = "no pair of annotators has tracks on the same item"


def pooled(pairs: Iterable[PairCounts]) -> Identity:
    """MOTA, IDF1 and ID switches pooled over pairs and both directions."""
    pairs = list(pairs)
    reference = misses = extra = switches = idtp = frames = 0
    for pair in pairs:
        for side in (pair.a_as_reference, pair.b_as_reference):
            reference += side.reference
            misses += side.misses
            extra += side.extra
            switches += side.id_switches
        idtp += pair.idtp
        frames += pair.object_frames
    if not pairs or not frames:
        return Identity(None, None, None, len(pairs), frames, misses, extra, NO_TRACKS)
    # both directions count every object-frame once as reference: reference == frames
    return Identity(1.0 - (misses + extra + switches) / reference, 2.0 * idtp / frames,
                    switches / 2.0, len(pairs), frames, misses, extra)
