"""Scoring tracked schemes: 3D sequences frame by frame, and identity over tracks.

``kinds.md`` A.7 and B §2.8, as Potato 2.12.1 does (``iaa/structured.py``
``spatial_report``, ``iaa/identity.py`` ``video_identity``):

- **3D sequences** (a ``spatial_annotation`` item where some object has ``frame`` and
  ``track_id``): every (item, frame) that some annotator has an object on is a unit
  ``item@frame`` holding every annotator of the item, boxes interpolated between
  keyframes per track (:mod:`.sequences`), scored by the set metrics as any item is;
  comparing all frames at once would match a box on frame 0 with one on frame 9. The
  bootstrap intervals resample these units. Items without tracks stay whole items. A
  tracked object that is not a cuboid (a tracked point or polyline) is on no frame:
  Accord interpolates cuboids only, and says how many it left out.
- **Identity**: MOTA, IDF1 and ID switches (:mod:`.clear_mot`), every annotator pair of
  every tracked item (an annotator with no tracks on an item someone tracked is paired
  too: each of the other's object-frames is a miss), pooled. Similarity: the exact 3D
  IoU (``cuboid_iou_matrices``) at the scheme's threshold (0.25 unless set) for 3D
  tracks; the 2D IoU of normalized boxes at 0.5 for video tracks (Potato's fixed value:
  the scheme's threshold is the segments' temporal IoU, another question).

The metrics are Potato's names, ``identity.mota``, ``identity.idf1`` and
``identity.id_switches``; their counts are under ``identity`` in the scheme's entry. A
scheme without tracks reports no identity metrics (as Potato); one with tracks but no
annotator pair on a tracked item reports them undefined with that sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from itertools import combinations

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.identity.clear_mot import Identity, PairCounts, pair_counts, pooled
from app.core.agreement.identity.sequences import (
    FrameObjects,
    Frames,
    cuboid_frames,
    is_sequence,
    video_frames,
)
from app.core.agreement.result import SchemeResult
from app.core.model import Answer, Scheme, Study
from app.core.objects import Cuboid, ObjectSet, make_cuboids
from app.core.tracks import TrackKey

VIDEO_IOU = 0.5
"""Two video boxes are the same object at a 2D IoU of at least this (Potato's)."""
CHUNK = 400_000
"""Cross pairs of boxes per call of the 3D IoU (bounds its temporaries)."""
NO_SEGMENTS = ("this scheme holds tracks, not segments: there are no segments to agree "
               "on (its tracks are scored by identity.mota, identity.idf1 and "
               "identity.id_switches)")


def has_video_tracks(answers: Mapping[str, Mapping[str, Answer]]) -> bool:
    return any(isinstance(a, ObjectSet) and a.tracks for by in answers.values()
               for a in by.values())


def has_segments(answers: Mapping[str, Mapping[str, Answer]]) -> bool:
    return any(isinstance(a, ObjectSet) and a.objects for by in answers.values()
               for a in by.values())


def has_sequences(answers: Mapping[str, Mapping[str, Answer]]) -> bool:
    return any(is_sequence(a) for by in answers.values() for a in by.values())


# --------------------------------------------------------------------------- 3D


def sequence_frames(answers: Mapping[str, Mapping[str, Answer]]
                    ) -> dict[str, dict[str, Frames]]:
    """Every sequence item's annotators' tracks on every frame."""
    return {item: {name: cuboid_frames(a) if isinstance(a, ObjectSet) else {}
                   for name, a in by.items()}
            for item, by in answers.items()
            if len(by) >= 2 and any(is_sequence(a) for a in by.values())}


def _frame_set(here: FrameObjects | None) -> ObjectSet:
    if here is None:
        return ObjectSet()
    rows = here.rows.copy()
    cuboids = make_cuboids(here.labels, map(tuple, rows[:, 0:3].tolist()),
                           map(tuple, rows[:, 3:6].tolist()),
                           map(tuple, rows[:, 6:10].tolist()))
    return ObjectSet(cuboids, boxes=rows)


def frame_units(answers: Mapping[str, Mapping[str, Answer]],
                frames: Mapping[str, Mapping[str, Frames]]) -> dict[str, dict[str, Answer]]:
    """The answers with each sequence item replaced by its ``item@frame`` units."""
    out: dict[str, dict[str, Answer]] = {}
    for item, by in answers.items():
        per = frames.get(item)
        if per is None:
            out[item] = dict(by)
            continue
        for frame in sorted(set().union(*(set(f) for f in per.values()))):
            out[f"{item}@{frame}"] = {name: _frame_set(f.get(frame)) for name, f in per.items()}
    return out


def untracked_objects(answers: Mapping[str, Mapping[str, Answer]]) -> int:
    """Tracked objects that are not cuboids (on no frame here)."""
    n = 0
    for by in answers.values():
        for a in by.values():
            if isinstance(a, ObjectSet) and a.keys is not None:
                n += sum(1 for obj, key in zip(a.objects, a.keys, strict=True)
                         if isinstance(key, TrackKey) and not isinstance(obj, Cuboid))
    return n


def cuboid_identity(frames: Mapping[str, Mapping[str, Frames]], threshold: float
                    ) -> Identity:
    """Identity over every annotator pair of every sequence item (exact 3D IoU)."""
    from app.core.geometry.cuboids import cuboid_iou_matrices

    jobs: list[tuple[Frames, Frames, list[int]]] = []
    for per in frames.values():
        for x, y in combinations(sorted(per), 2):
            a, b = per[x], per[y]
            jobs.append((a, b, sorted(set(a) & set(b))))
    blocks = [(job, frame) for job in jobs for frame in job[2]]
    matrices: list[np.ndarray] = []
    start = 0
    while start < len(blocks):
        stop, cost = start, 0
        while stop < len(blocks) and (cost < CHUNK or stop == start):
            (a, b, _), frame = blocks[stop]
            cost += len(a[frame].tracks) * len(b[frame].tracks)
            stop += 1
        matrices.extend(cuboid_iou_matrices([(a[f].rows, b[f].rows)
                                             for (a, b, _), f in blocks[start:stop]]))
        start = stop
    counts: list[PairCounts] = []
    k = 0
    for a, b, shared in jobs:
        scores = dict(zip(shared, matrices[k:k + len(shared)], strict=True))
        k += len(shared)
        counts.append(pair_counts(_ids(a), _ids(b), scores, threshold))
    return pooled(counts)


def _ids(frames: Frames) -> dict[int, list[str]]:
    return {frame: here.tracks for frame, here in frames.items()}


# --------------------------------------------------------------------------- video


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """2D IoU of normalized boxes ``(x, y, width, height)``, every a with every b."""
    ax, ay, aw, ah = (a[:, k, None] for k in range(4))
    bx, by, bw, bh = (b[None, :, k] for k in range(4))
    w = np.maximum(0.0, np.minimum(ax + aw, bx + bw) - np.maximum(ax, bx))
    h = np.maximum(0.0, np.minimum(ay + ah, by + bh) - np.maximum(ay, by))
    inter = w * h
    union = aw * ah + bw * bh - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = np.where(union > 0, inter / union, 0.0)
    return out


def video_identity(answers: Mapping[str, Mapping[str, Answer]]) -> Identity:
    """Identity over every annotator pair of every item someone tracked (2D IoU 0.5)."""
    counts: list[PairCounts] = []
    for _item, by in sorted(answers.items()):
        if len(by) < 2:
            continue
        frames = {name: video_frames(a.tracks or ()) if isinstance(a, ObjectSet) else {}
                  for name, a in by.items()}
        if not any(frames.values()):
            continue
        for x, y in combinations(sorted(frames), 2):
            a, b = frames[x], frames[y]
            scores = {f: box_iou(a[f].rows, b[f].rows) for f in set(a) & set(b)}
            counts.append(pair_counts(_ids(a), _ids(b), scores, VIDEO_IOU))
    return pooled(counts)


# --------------------------------------------------------------------------- result


def put_identity(result: SchemeResult, identity: Identity, threshold: float) -> None:
    values = {"identity.mota": identity.mota, "identity.idf1": identity.idf1,
              "identity.id_switches": identity.id_switches}
    for name, value in values.items():
        result.put(name, Coefficient.of(value) if value is not None
                   else Coefficient.undefined(identity.reason or "undefined"))
    result.extra["identity"] = {
        "n_pairs": identity.n_pairs, "n_object_frames": identity.n_object_frames,
        "misses": identity.misses, "extra": identity.extra, "match_iou": threshold,
        "pooled": "over annotator pairs, items and both directions (ID switches halved)"}


def study_with(study: Study, scheme: Scheme, answers: dict[str, dict[str, Answer]]
               ) -> Study:
    """The study with ``scheme``'s answers replaced (the frame units)."""
    return replace(study, answers={**study.answers, scheme.name: answers})


def frame_notes(result: SchemeResult, answers: Mapping[str, Mapping[str, Answer]],
                frames: Mapping[str, Mapping[str, Frames]]) -> None:
    """Count items (not frames) as items, say what the units are, and correct the empty
    pairs' note (on a frame, Potato counts them too)."""
    scored = set(getattr(result.details, "items_scored", ()))
    units = {item: {f"{item}@{f}" for per in (frames[item],) for fr in per.values()
                    for f in fr} for item in frames}
    in_frames = set().union(*units.values()) if units else set()
    result.n_items = (len(scored - in_frames)
                      + sum(1 for names in units.values() if names & scored))
    result.extra["n_frames"] = len(in_frames)
    result.extra["n_sequence_items"] = len(frames)
    bootstrap = result.extra.get("bootstrap")
    if isinstance(bootstrap, dict):
        bootstrap["over"] = "units (a whole item, or one frame of a sequence item)"
    empty = result.extra.get("n_empty_pairs", 0)
    result.notes[:] = [n for n in result.notes
                       if not n.startswith(f"{empty} pairs of two empty answers")]
    result.notes.append(
        f"{len(frames)} sequence items are scored frame by frame ({len(in_frames)} frames "
        "that some annotator has an object on), boxes interpolated between keyframes per "
        "track, as Potato 2.12.1 does; an annotator with no object on such a frame is "
        "compared there too (two such annotators agree: score 1, as in Potato)")
    left = untracked_objects(answers)
    if left:
        result.extra["n_tracked_not_cuboids"] = left
        result.notes.append(f"{left} tracked objects that are not cuboids are on no frame: "
                            "Accord interpolates cuboid tracks only")
