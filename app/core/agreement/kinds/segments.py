"""Segments: time spans (``audio_annotation``, ``video_annotation``,
``temporal_grounding``), compared by temporal IoU, one-to-one matching at 0.5.

Metrics: the set metrics (``agreement.md``, Sets of objects). A ``video_annotation``
answer in tracking mode holds tracks: identity over them (``identity.mota``,
``identity.idf1``, ``identity.id_switches``, ``agreement/identity/scoring.py``), and a
scheme holding tracks only has no segments to score (kinds.md A.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.agreement.coefficient import Coefficient
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

    answers = study.answers_for(scheme.name)
    tracked = scoring.has_video_tracks(answers)
    if tracked and not scoring.has_segments(answers):
        # kinds.md A.7: tracks only; two empty segment lists are no agreement
        for name in SET_METRICS:
            result.put(name, Coefficient.undefined(scoring.NO_SEGMENTS))
    else:
        yield from score_objects(study, scheme, result, options)
    if tracked:
        identity = scoring.video_identity(answers)
        scoring.put_identity(result, identity, scoring.VIDEO_IOU)
        if not result.n_pairs:  # tracks only: the pairs are the tracks' pairs
            result.n_pairs = identity.n_pairs
    return [result]


def consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
              notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Matched segments and who agreed; none for a scheme of tracks only (an empty
    segment list agreed by everyone would say nothing)."""
    from app.core.agreement.identity import scoring

    answers = study.answers_for(scheme.name)
    if scoring.has_video_tracks(answers) and not scoring.has_segments(answers):
        notes.append(f"'{scheme.name}' holds video tracks only: it has no segments to "
                     "combine, and Accord computes no consensus of tracks")
        return []
    return (yield from object_consensus(study, scheme, method, options, notes))


SPEC = KindSpec(
    kind=Kind.SEGMENTS,
    potato_types=frozenset({"audio_annotation", "video_annotation", "temporal_grounding"}),
    metrics=(*SET_METRICS, *IDENTITY_METRICS), score=score, consensus=consensus,
    summary="temporal IoU",
)
