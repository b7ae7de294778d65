"""Which track matched which, frame by frame: what the tracks view draws.

:func:`~.clear_mot.clear_mot` counts misses, extras and ID switches; a person looking at
two annotators' tracks wants to see *where* they happen. :func:`frame_matching` runs the
same CLEAR MOT rule (a reference track keeps last frame's partner while their similarity
reaches the threshold and the partner is free; the rest by the Hungarian algorithm over
the pairs at or above it; a new partner after an earlier one is a switch) and keeps every
frame's outcome instead of its counts. Its counts equal :func:`.clear_mot.clear_mot`'s and
its events motmetrics' event log (tested), so the view marks what the metrics count.

:func:`item_lanes` is the job the tracks view runs on a worker thread for one item: every
annotator's tracks on every frame (interpolated as they are scored), the matching in
both directions of every annotator pair, and the rows that align one object's tracks.

Choices where the spec is silent:

- **Rows that align matched tracks** (:func:`group_tracks`): annotators are taken in
  order; each one's tracks are assigned one-to-one to the rows so far (the Hungarian
  algorithm on the frames where the CLEAR MOT matching paired the track with a row's
  tracks, the earlier annotator as reference: the most frames aligned in all), a track
  that matched no row on any frame starts a new row. So a row is one object as the
  annotators' matches say and an annotator has at most one track per row; a track that
  swapped objects sits in one of their rows, its frames on the other object marked as
  that row's misses and the switch.
- A video track is named ``index:id`` by the interpolation (two tracks saved under one
  id stay two); :func:`shown_track` is its id alone, with ``#index`` only where an
  annotator used one id twice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy.optimize import linear_sum_assignment

from app.core.agreement.identity.clear_mot import Scores
from app.core.agreement.identity.sequences import Frames, cuboid_frames, video_frames
from app.core.model import Answer
from app.core.objects import ObjectSet
from app.core.progress import Job, Progress

BATCH = 200
"""Frames per call of the 3D IoU (and per progress step)."""
UNIT = re.compile(r"^(?P<item>.+)@(?P<frame>-?\d+)$")
"""A frame unit of a 3D sequence, ``item@frame`` (:func:`.scoring.frame_units`)."""


@dataclass(frozen=True, slots=True)
class Matching:
    """One direction's CLEAR MOT outcome on every frame, ``reference`` as the truth."""

    reference: str
    other: str
    matches: dict[int, dict[str, str]]
    """Frame → reference track → the other's track it is matched to."""
    misses: list[tuple[int, str]]
    """(frame, reference track) the other has no object matched to."""
    extras: list[tuple[int, str]]
    """(frame, other's track) matched to no reference object."""
    switches: list[tuple[int, str, str, str]]
    """(frame, reference track, previous partner, new partner)."""


def _hungarian(matrix: np.ndarray, threshold: float) -> list[tuple[int, int]]:
    if matrix.size == 0:
        return []
    ineligible = float(min(matrix.shape) + 1)
    cost = np.where(matrix >= threshold, 1.0 - matrix, ineligible)
    rows, cols = linear_sum_assignment(cost)
    return [(i, j) for i, j in zip(rows.tolist(), cols.tolist(), strict=True)
            if matrix[i, j] >= threshold]


def frame_matching(reference: Mapping[int, Sequence[str]], other: Mapping[int, Sequence[str]],
                   scores: Scores, threshold: float, names: tuple[str, str] = ("", "")
                   ) -> Matching:
    """:func:`.clear_mot.clear_mot`'s matching, frame by frame (same arguments)."""
    partner: dict[str, str] = {}
    out = Matching(names[0], names[1], {}, [], [], [])
    for frame in sorted(set(reference) | set(other)):
        ref_here, other_here = reference.get(frame, ()), other.get(frame, ())
        if not ref_here or not other_here:
            out.misses.extend((frame, t) for t in ref_here)
            out.extras.extend((frame, t) for t in other_here)
            continue
        matrix = scores[frame]
        column = {track: j for j, track in enumerate(other_here)}
        matched: dict[int, int] = {}
        taken: set[int] = set()
        for i, track in enumerate(ref_here):
            j = column.get(partner[track], -1) if track in partner else -1
            if j >= 0 and j not in taken and matrix[i, j] >= threshold:
                matched[i] = j
                taken.add(j)
        if len(matched) < min(len(ref_here), len(other_here)):
            rest_ref = [i for i in range(len(ref_here)) if i not in matched]
            rest_other = [j for j in range(len(other_here)) if j not in taken]
            block = matrix[np.ix_(rest_ref, rest_other)]
            for a, b in _hungarian(block, threshold):
                i, j = rest_ref[a], rest_other[b]
                track, new = ref_here[i], other_here[j]
                if track in partner and partner[track] != new:
                    out.switches.append((frame, track, partner[track], new))
                partner[track] = new
                matched[i] = j
                taken.add(j)
        out.matches[frame] = {ref_here[i]: other_here[j] for i, j in matched.items()}
        out.misses.extend((frame, t) for i, t in enumerate(ref_here) if i not in matched)
        out.extras.extend((frame, t) for j, t in enumerate(other_here) if j not in taken)
    return out


@dataclass(frozen=True, slots=True)
class TrackSpan:
    """One annotator's track: where it starts and ends (it is on every frame between)."""

    annotator: str
    track: str
    shown: str
    label: str
    first: int
    last: int


@dataclass(frozen=True, slots=True)
class ItemLanes:
    """Everything the tracks view draws of one item of one scheme."""

    item: str
    video: bool
    threshold: float
    annotators: tuple[str, ...]
    frames: dict[str, Frames]
    """Per annotator, their objects on every frame (for the frame panel)."""
    tracks: dict[str, list[TrackSpan]]
    rows: list[list[tuple[str, str]]]
    """One row per object: (annotator, track) of the tracks aligned on it."""
    matchings: dict[tuple[str, str], Matching] = field(default_factory=dict)
    """(reference, other) → that direction's matching, both directions of every pair."""

    @property
    def first(self) -> int:
        return min((s.first for spans in self.tracks.values() for s in spans), default=0)

    @property
    def last(self) -> int:
        return max((s.last for spans in self.tracks.values() for s in spans), default=0)

    def span(self, annotator: str, track: str) -> TrackSpan | None:
        return next((s for s in self.tracks.get(annotator, []) if s.track == track), None)


def shown_track(track: str, video: bool, same_id: int = 1) -> str:
    """A track's name as the annotator saved it (see the module docstring)."""
    if not video or ":" not in track:
        return track
    index, _, name = track.partition(":")
    return f"{name} #{index}" if same_id > 1 else name


def _spans(annotator: str, frames: Frames, video: bool) -> list[TrackSpan]:
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    label: dict[str, str] = {}
    for frame, here in sorted(frames.items()):
        for track, lab in zip(here.tracks, here.labels, strict=True):
            first.setdefault(track, frame)
            label.setdefault(track, lab)
            last[track] = frame
    ids = [t.partition(":")[2] if video else t for t in first]
    return [TrackSpan(annotator, t, shown_track(t, video, ids.count(i)), label[t], first[t],
                      last[t]) for t, i in zip(first, ids, strict=True)]


def group_tracks(annotators: Sequence[str], tracks: Mapping[str, Sequence[TrackSpan]],
                 matchings: Mapping[tuple[str, str], Matching]) -> list[list[tuple[str, str]]]:
    """The rows of matched tracks (the module docstring's rule)."""
    rows: list[list[tuple[str, str]]] = []
    for name in annotators:
        mine = [s.track for s in tracks.get(name, [])]
        if not mine:
            continue
        weights = np.zeros((len(mine), len(rows)), dtype=np.int64)
        index = {t: k for k, t in enumerate(mine)}
        for r, row in enumerate(rows):
            for ref_name, ref_track in row:
                matching = matchings.get((ref_name, name))
                if matching is None:
                    continue
                for on_frame in matching.matches.values():
                    partner = on_frame.get(ref_track)
                    if partner is not None:
                        weights[index[partner], r] += 1
        placed: set[int] = set()
        if rows:
            ii, rr = linear_sum_assignment(-weights)
            for i, r in zip(ii.tolist(), rr.tolist(), strict=True):
                if weights[i, r] > 0:
                    rows[r].append((name, mine[i]))
                    placed.add(i)
        rows.extend([[(name, t)] for k, t in enumerate(mine) if k not in placed])
    return rows


def _frames_of(answer: Answer | None, video: bool) -> Frames:
    if not isinstance(answer, ObjectSet):
        return {}
    return video_frames(answer.tracks or ()) if video else cuboid_frames(answer)


def item_lanes(item: str, answers: Mapping[str, Answer], *, video: bool, threshold: float
               ) -> Job[ItemLanes]:
    """The lanes of ``item``: ``answers`` by annotator; ``video`` tracks (2D IoU) or 3D
    tracks (exact 3D IoU); ``threshold`` the IoU at which two objects are one."""
    from app.core.agreement.identity.scoring import box_iou
    from app.core.geometry.cuboids import cuboid_iou_matrices

    annotators = tuple(sorted(answers))
    frames = {name: _frames_of(answers[name], video) for name in annotators}
    pairs = list(combinations(annotators, 2))
    matchings: dict[tuple[str, str], Matching] = {}
    for k, (x, y) in enumerate(pairs):
        yield Progress(k, len(pairs), f"matching {item}'s tracks frame by frame")
        a, b = frames[x], frames[y]
        shared = sorted(set(a) & set(b))
        scores: dict[int, np.ndarray] = {}
        if video:
            scores = {f: box_iou(a[f].rows, b[f].rows) for f in shared}
        else:
            for start in range(0, len(shared), BATCH):
                batch = shared[start:start + BATCH]
                scores.update(zip(batch, cuboid_iou_matrices(
                    [(a[f].rows, b[f].rows) for f in batch]), strict=True))
                yield Progress(k + start / max(1, len(shared)), len(pairs),
                               f"matching {item}'s tracks frame by frame")
        ids_a = {f: here.tracks for f, here in a.items()}
        ids_b = {f: here.tracks for f, here in b.items()}
        matchings[(x, y)] = frame_matching(ids_a, ids_b, scores, threshold, (x, y))
        matchings[(y, x)] = frame_matching(ids_b, ids_a, {f: m.T for f, m in scores.items()},
                                           threshold, (y, x))
    tracks = {name: _spans(name, frames[name], video) for name in annotators}
    rows = group_tracks(annotators, tracks, matchings)
    return ItemLanes(item, video, threshold, annotators, frames, tracks, rows, matchings)


def split_unit(item: str | None, items: Iterable[str]) -> tuple[str | None, int | None]:
    """``item@frame`` → (item, frame) when ``item`` is a frame unit of one of ``items``;
    otherwise (item, None)."""
    if item is None:
        return None, None
    known = set(items)
    if item in known:
        return item, None
    match = UNIT.match(item)
    if match is not None and match["item"] in known:
        return match["item"], int(match["frame"])
    return item, None
