"""Tiers: time spans on named tiers (``tiered_annotation``), compared by temporal IoU
within the same tier only, one-to-one matching at 0.5.

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
    kind=Kind.TIERS, potato_types=frozenset({"tiered_annotation"}), metrics=SET_METRICS,
    score=score, consensus=object_consensus, summary="temporal IoU, within the same tier only",
)
