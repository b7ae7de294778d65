"""Ordinal: one point of an ordered scale per item (``likert``, ``slider``).

Metrics: α (ordinal metric), mean pairwise κ with quadratic weights over the full
scale, percent agreement. A slider is ordinal here (its positions are the scale);
Potato 2.12.1 reports interval α for it, which the note says.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agreement.kinds.common import categorical_consensus, score_categorical
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("alpha", "kappa", "percent_agreement")
SLIDER_NOTE = ("slider positions are ordinal here (ordinal α); Potato 2.12.1's /admin/iaa "
               "reports interval α for sliders")


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    yield from ()
    if score_categorical(study, scheme, result, METRICS) and scheme.annotation_type == "slider":
        result.notes.append(SLIDER_NOTE)
    return [result]


SPEC = KindSpec(
    kind=Kind.ORDINAL, potato_types=frozenset({"likert", "slider"}), metrics=METRICS,
    score=score, consensus=categorical_consensus, summary="label order",
)
