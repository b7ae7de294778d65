"""Objects followed over frames: what a tracked answer holds beside its objects.

Two Potato 2.12.1 widgets store tracks, in two shapes, and both keep only keyframes:

- ``video_annotation`` in tracking mode: ``{"tracks": {id: {"keyframes": {frame:
  {"frame", "bboxNorm": {x, y, width, height}}}}}}`` (``tracking-ui.js``); a track is
  a :class:`VideoTrack`, its boxes fractions of the picture;
- ``spatial_annotation`` on a point-cloud sequence: the flat list of 3D objects, each
  with ``frame`` and ``track_id`` (``export/spatial_sequences.py``); each object's
  :class:`TrackKey` sits beside it in :attr:`~app.core.objects.ObjectSet.keys`.

Both are interpolated between keyframes on every frame from a track's first keyframe to
its last, and absent outside (:mod:`app.core.agreement.identity.sequences`). This module
is data only, so that the readers and the model can hold tracks without importing any
measure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Box2D = tuple[float, float, float, float]
"""``(x, y, width, height)`` as fractions of the picture (Potato's ``bboxNorm``)."""


@dataclass(frozen=True, slots=True)
class VideoTrack:
    """One video track: its id, label and keyframes in frame order.

    A keyframe whose box is ``None`` (saved before the picture was measured: no
    ``bboxNorm``) still bounds the track's frame range but gives no box, as in Potato.
    """

    id: str
    label: str
    keyframes: tuple[tuple[int, Box2D | None], ...]
    aspect: float | None = field(default=None, compare=False)
    """The picture's width over its height as the annotator's canvas showed it (a
    keyframe's pixel ``bbox`` over its ``bboxNorm``), ``None`` when no keyframe says;
    only for drawing the boxes (the tracks view), never in a measure."""


@dataclass(frozen=True, slots=True)
class TrackKey:
    """Where a 3D object of a sequence sits: its frame and its track."""

    frame: int
    track: str
