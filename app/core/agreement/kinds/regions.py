"""Regions: boxes, polygons and ellipses on an image (``image_annotation``), compared by
2D IoU, one-to-one matching at 0.5; the chance-corrected numbers use the GIoU distance.

Metrics: the set metrics, detection and classification α, σ and KS over the within-
and between-item distances (``regions/``), and Potato's reading beside them.

A scheme that holds masks is reported as regions (``NAME``) and, when it holds masks
too, also as ``NAME#masks`` (STAPLE, ``masks.py``). A scheme holding masks only is
reported once, as ``NAME`` of kind masks: scoring it as regions would count every pair
as two empty answers that agree, a perfect score that hides the structure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.agreement.kinds.common import coverage, has, object_consensus, score_objects
from app.core.agreement.kinds.masks import consensus as masks_consensus
from app.core.agreement.kinds.masks import score_masks
from app.core.agreement.kinds.spec import KindSpec
from app.core.agreement.result import SchemeResult
from app.core.agreement.sets.agreement import SET_METRICS
from app.core.model import Kind
from app.core.objects import BoxRegion, EllipseRegion, Mask, PolygonRegion

if TYPE_CHECKING:
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = (*SET_METRICS, "detection_alpha", "classification_alpha", "mean_within_distance",
           "mean_between_distance", "sigma", "ks")


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    answers = study.answers_for(scheme.name)
    results = [result]
    if has(answers, Mask):
        if not has(answers, BoxRegion, PolygonRegion, EllipseRegion):
            # masks only: one entry, or empty region sets would "agree" perfectly
            result.kind = Kind.MASKS.value
            yield from score_masks(study, scheme, result, options)
            return results
        masks = SchemeResult(f"{scheme.name}#masks", scheme.annotation_type, Kind.MASKS.value)
        coverage(study, scheme, masks)
        results.append(masks)
        yield from score_masks(study, scheme, masks, options)
    from app.core.agreement.regions.chance import fill_region_chance
    from app.core.agreement.regions.distances import RegionAgreement
    from app.core.agreement.regions.potato_reading import add_potato_reading
    from app.core.agreement.sets.structured import region_set_similarity

    sets = yield from score_objects(study, scheme, result, options)
    threshold = options.threshold_for(scheme)
    loc = fill_region_chance(result, sets, threshold, options.seed, region_set_similarity)
    add_potato_reading(result, answers, sets, threshold)
    result.details = RegionAgreement.of(sets, loc)
    return results


def consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
              notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Matched regions; masks by STAPLE as ``NAME#masks`` beside them, or as ``NAME``
    alone when the scheme holds masks only (as the report names them)."""
    answers = study.answers_for(scheme.name)
    if not has(answers, Mask):
        return (yield from object_consensus(study, scheme, method, options, notes))
    if not has(answers, BoxRegion, PolygonRegion, EllipseRegion):
        return (yield from masks_consensus(study, scheme, method, options, notes))
    from app.core.agreement.consensus.masks import mask_rows

    rows = yield from mask_rows(f"{scheme.name}#masks", answers, every_item=False)
    return rows + (yield from object_consensus(study, scheme, method, options, notes))


SPEC = KindSpec(
    kind=Kind.REGIONS, potato_types=frozenset({"image_annotation"}), metrics=METRICS,
    score=score, consensus=consensus,
    summary="2D IoU (GIoU distance for the chance-corrected numbers)",
)
