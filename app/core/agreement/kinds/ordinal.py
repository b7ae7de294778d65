"""Ordinal: one point of an ordered scale per item (``likert``, ``slider``, ``confidence``
in its likert mode: Potato 2.12.1 scores it ORDINAL unless ``scale_type: slider``, whose
number is the continuous kind's; its radios store the level ``"1"``..``"N"`` as likert's).

Metrics: α (ordinal metric), mean pairwise κ with quadratic weights over the full
scale, percent agreement. A slider is ordinal here (its positions are the scale);
Potato 2.12.1 reports interval α for it, which the note says.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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


def claims(annotation_type: str, config: Mapping[str, Any]) -> bool:
    return annotation_type != "confidence" or config.get("scale_type") != "slider"


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    yield from ()
    if score_categorical(study, scheme, result, METRICS) and scheme.annotation_type == "slider":
        result.notes.append(SLIDER_NOTE)
    return [result]


SPEC = KindSpec(
    kind=Kind.ORDINAL, potato_types=frozenset({"likert", "slider", "confidence"}),
    claims=claims, metrics=METRICS, score=score, consensus=categorical_consensus,
    summary="label order",
)
