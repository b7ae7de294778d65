"""Tracks on every frame: keyframes interpolated, as Potato 2.12.1 does.

Only keyframes are stored; between two keyframes of a track the object is interpolated,
and outside its first and last keyframe the track is absent:

- a video track's normalized box (``bboxNorm``) linearly, component by component, on
  every frame from its first keyframe holding a box to its last (a keyframe without a
  box bounds nothing: Potato's ``iaa/attribute_agreement.py`` ``_box_at``);
- a 3D track's centre and size linearly, its rotation by quaternion slerp (the short
  way round; a plain lerp and renormalization when the two are within
  ``dot > 0.9995``), as ``export/spatial_sequences.py`` says and the point-cloud viewer
  draws. The label is the earlier keyframe's. Frames below 0 are dropped, as Potato's
  ``dense_frames`` drops them.

The interpolation runs on numpy arrays, all of a track's frames at once, with the same
arithmetic as Potato's per-frame formulas (``a + (b - a) * t`` with ``t = (f - f0) /
(f1 - f0)``). Where two keyframes of one track share a frame, the first one written is
the object on that frame and the last one written starts the interpolation after it
(what a stable sort by frame gives).

A frame's objects are in track order: a video's tracks as stored, a 3D sequence's tracks
in the order their first object is stored. Ties in the frame-by-frame matching are
broken by that order, as in Potato.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.core.objects import Cuboid, ObjectSet
from app.core.tracks import TrackKey, VideoTrack

NEAR = 0.9995
"""Quaternions closer than this (their dot product) are lerped and renormalized."""


@dataclass(frozen=True, slots=True)
class FrameObjects:
    """One annotator's objects on one frame: their track ids, rows and labels."""

    tracks: list[str]
    rows: np.ndarray
    """``(n, 4)`` boxes ``x, y, width, height`` (video) or ``(n, 10)`` cuboid rows."""
    labels: list[str]


Frames = dict[int, FrameObjects]
"""One annotator's tracks on every frame where they have an object."""


def _spans(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each frame from the first keyframe to the last: the keyframe on it (the first
    one on that frame) or the two it lies between, and ``t``. ``frames`` sorted."""
    every = np.arange(frames[0], frames[-1] + 1)
    at = np.searchsorted(frames, every, side="left")
    exact = frames[np.minimum(at, len(frames) - 1)] == every
    after = np.searchsorted(frames, every, side="right")
    before = np.maximum(after - 1, 0)
    after = np.minimum(after, len(frames) - 1)
    f0, f1 = frames[before].astype(np.float64), frames[after].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(exact, 0.0, (every - f0) / (f1 - f0))
    return every, np.where(exact, at, before), np.where(exact, at, after), t


def _lerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    out: np.ndarray = a + (b - a) * t[:, None]
    return out


def slerp(q0: np.ndarray, q1: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Rows of unit quaternions ``(x, y, z, w)`` interpolated at ``t`` (one per row)."""
    dot = ((q0[:, 0] * q1[:, 0] + q0[:, 1] * q1[:, 1]) + q0[:, 2] * q1[:, 2]) \
        + q0[:, 3] * q1[:, 3]
    flip = dot < 0
    q1 = np.where(flip[:, None], -q1, q1)
    dot = np.where(flip, -dot, dot)
    near = dot > NEAR
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        s0 = np.sin((1 - t) * theta) / np.sin(theta)
        s1 = np.sin(t * theta) / np.sin(theta)
    turned = s0[:, None] * q0 + s1[:, None] * q1
    out = np.where(near[:, None], _lerp(q0, q1, t), turned)
    norm = np.sqrt(((out[:, 0] * out[:, 0] + out[:, 1] * out[:, 1]) + out[:, 2] * out[:, 2])
                   + out[:, 3] * out[:, 3])
    norm = np.where(norm == 0, 1.0, norm)
    result: np.ndarray = out / norm[:, None]
    return result


def _collect(pieces: list[tuple[str, np.ndarray, np.ndarray, list[str]]], width: int
             ) -> Frames:
    """Per-track frames and rows regrouped by frame, tracks in order."""
    by_frame: dict[int, tuple[list[str], list[np.ndarray], list[str]]] = {}
    for track, frames, rows, labels in pieces:
        for frame, row, label in zip(frames.tolist(), rows, labels, strict=True):
            here = by_frame.setdefault(frame, ([], [], []))
            here[0].append(track)
            here[1].append(row)
            here[2].append(label)
    return {frame: FrameObjects(ids, np.array(rows).reshape(len(ids), width), labels)
            for frame, (ids, rows, labels) in sorted(by_frame.items())}


def video_frames(tracks: Sequence[VideoTrack]) -> Frames:
    """A video answer's tracks as normalized boxes on every frame.

    A track is named by its place and its id (``"index:id"``): two tracks saved under
    one id are still two tracks (a merged file), as in Potato."""
    pieces = []
    for index, track in enumerate(tracks):
        boxed = [(f, box) for f, box in track.keyframes if box is not None]
        if not boxed:
            continue
        frames = np.array([f for f, _ in boxed], dtype=np.int64)
        boxes = np.array([box for _, box in boxed], dtype=np.float64)
        every, i0, i1, t = _spans(frames)
        rows = _lerp(boxes[i0], boxes[i1], t)
        pieces.append((f"{index}:{track.id}", every, rows, [track.label] * len(every)))
    return _collect(pieces, 4)


def cuboid_frames(answer: ObjectSet) -> Frames:
    """A 3D sequence answer's cuboid tracks on every frame from 0 on (objects outside a
    track, and objects that are not cuboids, are not in any frame)."""
    if answer.keys is None:
        return {}
    tracks: dict[str, list[tuple[int, Cuboid]]] = {}
    for obj, key in zip(answer.objects, answer.keys, strict=True):
        if isinstance(key, TrackKey) and isinstance(obj, Cuboid):
            tracks.setdefault(key.track, []).append((key.frame, obj))
    pieces = []
    for track, keyframes in tracks.items():
        keyframes.sort(key=lambda pair: pair[0])
        frames = np.array([f for f, _ in keyframes], dtype=np.int64)
        rows = np.array([(*c.center, *c.size, *c.rotation) for _, c in keyframes],
                        dtype=np.float64)
        every, i0, i1, t = _spans(frames)
        out = np.empty((len(every), 10))
        out[:, 0:6] = _lerp(rows[i0, 0:6], rows[i1, 0:6], t)
        same = i0 == i1
        out[:, 6:10] = np.where(same[:, None], rows[i0, 6:10],
                                slerp(rows[i0, 6:10], rows[i1, 6:10], t))
        keep = every >= 0
        labels = [keyframes[i][1].label for i in i0[keep].tolist()]
        pieces.append((track, every[keep], out[keep], labels))
    return _collect(pieces, 10)


def is_sequence(answer: object) -> bool:
    """Does this answer hold a 3D object with a frame and a track?"""
    return isinstance(answer, ObjectSet) and answer.keys is not None and any(
        key is not None for key in answer.keys)
