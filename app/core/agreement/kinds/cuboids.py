"""Cuboids: 3D boxes (``spatial_annotation``'s ``cuboid_3d``), compared by exact 3D IoU
of oriented boxes, one-to-one matching at 0.25 by default.

Metrics: the set metrics (``agreement.md``, Sets of objects); a point-cloud sequence
(objects with ``frame`` and ``track_id``) is scored frame by frame and adds
``identity.mota``, ``identity.idf1`` and ``identity.id_switches``
(``agreement/identity/scoring.py``). Points, polylines and
point-cloud segments kept beside the boxes are matched by distance and said in metres
(``sets/spatial_points.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.agreement.identity.names import IDENTITY_METRICS
from app.core.agreement.kinds.common import object_consensus, score_objects
from app.core.agreement.kinds.spec import KindSpec
from app.core.agreement.sets.agreement import SET_METRICS
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.identity import scoring
    from app.core.agreement.sets.spatial_points import add_point_notes

    answers = study.answers_for(scheme.name)
    if not scoring.has_sequences(answers):
        sets = yield from score_objects(study, scheme, result, options)
        add_point_notes(result, sets, options.threshold_for(scheme))
        return [result]
    # A sequence: the set metrics frame by frame, then identity over the tracks
    # (kinds.md A.7, B §2.8; identity/scoring.py).
    frames = scoring.sequence_frames(answers)
    units = scoring.frame_units(answers, frames)
    sets = yield from score_objects(scoring.study_with(study, scheme, units), scheme, result,
                                    options)
    add_point_notes(result, sets, options.threshold_for(scheme))
    scoring.frame_notes(result, answers, frames)
    scoring.put_identity(result, scoring.cuboid_identity(frames, options.threshold_for(scheme)),
                         options.threshold_for(scheme))
    return [result]


def consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
              notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Matched objects and who agreed; a sequence's per frame (its ``item@frame`` units,
    boxes interpolated), as it is scored."""
    from app.core.agreement.identity import scoring

    answers = study.answers_for(scheme.name)
    if scoring.has_sequences(answers):
        units = scoring.frame_units(answers, scoring.sequence_frames(answers))
        study = scoring.study_with(study, scheme, units)
        notes.append(f"'{scheme.name}' holds point-cloud sequences: its consensus is per "
                     "frame (item@frame), boxes interpolated between keyframes per track")
    return (yield from object_consensus(study, scheme, method, options, notes))


SPEC = KindSpec(
    kind=Kind.CUBOIDS, potato_types=frozenset({"spatial_annotation"}),
    metrics=(*SET_METRICS, *IDENTITY_METRICS),
    score=score, consensus=consensus, summary="exact 3D IoU of oriented boxes",
)
