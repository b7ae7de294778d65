"""Segments: time spans (``audio_annotation``, ``video_annotation``,
``temporal_grounding``), compared by temporal IoU, one-to-one matching at 0.5.

Metrics: the set metrics (``agreement.md``, Sets of objects).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    yield from score_objects(study, scheme, result, options)
    return [result]


SPEC = KindSpec(
    kind=Kind.SEGMENTS,
    potato_types=frozenset({"audio_annotation", "video_annotation", "temporal_grounding"}),
    metrics=SET_METRICS, score=score, consensus=object_consensus, summary="temporal IoU",
)
