"""The track id of each box the 3D view draws of a point-cloud sequence's frame.

A sequence is scored, and drawn, one frame unit at a time (``item@frame``, boxes
interpolated between keyframes: :func:`app.core.agreement.identity.scoring.frame_units`);
the unit's boxes are each annotator's objects on that frame in track order, so the
track of the k-th box is the k-th track :func:`~app.core.agreement.identity.sequences.
cuboid_frames` lists on that frame. The labels then say which track each box belongs to,
so an ID switch seen in the tracks view can be checked on the boxes.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.agreement.identity.lanes import split_unit
from app.core.agreement.identity.sequences import Frames, cuboid_frames
from app.core.objects import ObjectSet
from app.core.project import ProjectData

_FRAMES: dict[int, tuple[ObjectSet, Frames]] = {}
"""The last answers' frames (by object identity: the answer is kept to check it)."""
KEEP = 64


def _frames(answer: ObjectSet) -> Frames:
    held = _FRAMES.get(id(answer))
    if held is not None and held[0] is answer:
        return held[1]
    if len(_FRAMES) >= KEEP:
        _FRAMES.clear()
    frames = cuboid_frames(answer)
    _FRAMES[id(answer)] = (answer, frames)
    return frames


def unit_track_ids(project: ProjectData, scheme: str, unit: str,
                   annotators: Sequence[str], n_boxes: int) -> list[str] | None:
    """Each drawn box's track id (annotator by annotator, as the scene orders them), or
    ``None`` when ``unit`` is not a frame of a sequence or the boxes do not line up."""
    answers = project.study.answers_for(scheme)
    item, frame = split_unit(unit, answers)
    if item is None or frame is None:
        return None
    out: list[str] = []
    for name in annotators:
        answer = answers[item].get(name)
        here = _frames(answer).get(frame) if isinstance(answer, ObjectSet) else None
        if here is not None:
            out.extend(here.tracks)
    return out if len(out) == n_boxes else None
