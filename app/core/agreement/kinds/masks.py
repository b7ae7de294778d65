"""Masks: pixel masks inside an ``image_annotation`` scheme, scored by STAPLE.

No Potato type is read as masks directly: the regions kind finds masks in its answers
and reports them as this kind (``NAME#masks`` beside the regions, or ``NAME`` alone
when the scheme holds masks only; ``regions.py``).

Metrics: mean sensitivity and specificity of STAPLE's estimates per annotator; Dice
against a known truth annotator in ``extra["truth"]`` (``--truth``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("mean_sensitivity", "mean_specificity")


def score_masks(study: Study, scheme: Scheme, masks: SchemeResult, options: SetOptions
                ) -> Job[None]:
    """Fill ``masks`` (an entry of kind masks) from ``scheme``'s masks."""
    from app.core.agreement.masks.report import fill_mask_metrics, mask_agreement

    agreement = yield from mask_agreement(study.answers_for(scheme.name), options.truth)
    fill_mask_metrics(masks, agreement)
    masks.details = agreement


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    result.kind = Kind.MASKS.value
    yield from score_masks(study, scheme, result, options)
    return [result]


def consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
              notes: list[str]) -> Job[list[dict[str, Any]]]:
    """STAPLE and majority-vote masks, every item (the scheme holds masks only)."""
    from app.core.agreement.consensus.masks import mask_rows

    return (yield from mask_rows(scheme.name, study.answers_for(scheme.name),
                                 every_item=True))


SPEC = KindSpec(
    kind=Kind.MASKS, potato_types=frozenset(), metrics=METRICS, score=score,
    consensus=consensus, summary="STAPLE",
)
