"""The agreement report of a study: one result per scheme, with coverage and reasons.

A generator job (``app.core.progress``): it yields progress per scheme and returns an
:class:`~app.core.agreement.result.AgreementReport`.

Coverage per scheme (``agreement.md``, Units and Precise rules): an item is *scored*
when two or more annotators answered the scheme on it, whatever
``num_annotators_per_item`` says; the report counts scored items below that cap, and
items with one annotator are skipped with that reason. Answers the reader rejected for
an unusable object are counted per scheme (``n_answers_rejected``) with their messages.

An ``image_annotation`` scheme is reported as regions (``NAME``) and, when it holds
masks too, also as ``NAME#masks`` (STAPLE). A scheme holding masks only is reported
once, as ``NAME`` of kind masks: scoring it as regions would count every pair as two
empty answers that agree, a perfect score that hides the structure. Schemes Accord has
no measure for (free text, numbers, spans) are listed with ``not_computed`` and the
reason, so a report never silently omits a scheme.

Each kind's measures are imported when a scheme of that kind is scored: a lidar
study's report needs none of the categorical, mask or region modules (nor shapely),
and their imports were a tenth of a small study's whole run.

For traces, the step-level α is shown beside the α the *same annotators* reach on the
study's categorical scheme with the most shared items (``categorical_reference``),
since both are chance-corrected and read on one scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app import __version__
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.agreement.sets.structured import (
    SET_KINDS,
    SetOptions,
    region_set_similarity,
    score_set_scheme,
)
from app.core.errors import InputError
from app.core.model import Answer, Kind, Scheme, Study
from app.core.objects import BoxRegion, EllipseRegion, Mask, ObjectSet, PolygonRegion
from app.core.progress import Job, Progress, scaled

if TYPE_CHECKING:
    from app.core.agreement.categorical.units import CodedUnits

CATEGORICAL_KINDS = frozenset({Kind.NOMINAL, Kind.ORDINAL, Kind.MULTILABEL, Kind.TRACE})
ONE_ANNOTATOR = (
    "no item was answered by two or more annotators: agreement of one person is undefined, "
    "never perfect"
)
NOBODY = "nobody answered this scheme"


def agreement_report(study: Study, *, project: str, scheme: str | None = None,
                     options: SetOptions | None = None) -> Job[AgreementReport]:
    """Compute every scheme's agreement (or only ``scheme``)."""
    options = options or SetOptions(thresholds={})
    names = list(study.schemes)
    for name in options.thresholds:
        if name not in study.schemes:
            raise InputError(f"no scheme named '{name}'; the project has: {', '.join(names)}",
                             key="--threshold")
    if scheme is not None:
        if scheme not in study.schemes:
            raise InputError(f"no scheme named '{scheme}'; the project has: "
                             f"{', '.join(names)}", key="--scheme")
        names = [scheme]
    if study.machine_raters:  # people are the headline; machines apart (kinds.md A.4)
        from app.core.agreement.partitions import partitioned

        return (yield from partitioned(
            study, lambda part: _one_report(part, project, names, options)))
    return (yield from _one_report(study, project, names, options))


def _one_report(study: Study, project: str, names: list[str], options: SetOptions
                ) -> Job[AgreementReport]:
    """Every scheme in ``names`` over all of ``study``'s annotators."""
    results: dict[str, SchemeResult] = {}
    for i, name in enumerate(names):
        job = _scheme_results(study, study.schemes[name], options)
        for result in (yield from scaled(job, i, i + 1, len(names))):
            results[result.name] = result
    _add_categorical_references(study, results)
    yield Progress(len(names), len(names), "done")
    return AgreementReport(project=project, n_items=len(study.items),
                           n_annotators=len(study.annotators), schemes=results,
                           notes=list(study.notes), version=__version__)


def _scheme_results(study: Study, scheme: Scheme, options: SetOptions
                    ) -> Job[list[SchemeResult]]:
    yield Progress(0, 1, f"scheme {scheme.name}")
    answers = study.answers_for(scheme.name)
    result = SchemeResult(scheme.name, scheme.annotation_type,
                          scheme.kind.value if scheme.kind else None)
    if scheme.kind is None:
        result.not_computed = (f"Accord has no agreement measure for "
                               f"'{scheme.annotation_type}' answers")
        return [result]
    _coverage(study, scheme, result)
    _rejections(study, scheme.name, result)
    results = [result]
    if scheme.kind is Kind.REGIONS and _has(answers, Mask):
        if _has(answers, BoxRegion, PolygonRegion, EllipseRegion):
            masks = SchemeResult(f"{scheme.name}#masks", scheme.annotation_type,
                                 Kind.MASKS.value)
            _coverage(study, scheme, masks)
            results.append(masks)
        else:  # masks only: one entry, or empty region sets would "agree" perfectly
            masks = result
            masks.kind = Kind.MASKS.value
            results = [masks]
        from app.core.agreement.masks.report import fill_mask_metrics, mask_agreement

        agreement = yield from mask_agreement(answers, options.truth)
        fill_mask_metrics(masks, agreement)
        masks.details = agreement
        if masks is result:
            return results
    if scheme.kind in SET_KINDS:
        sets = yield from score_set_scheme(study, scheme, result, options)
        result.details = sets
        if scheme.kind is Kind.CUBOIDS:  # 3D points by distance, said in metres
            from app.core.agreement.sets.spatial_points import add_point_notes

            add_point_notes(result, sets, options.threshold_for(scheme))
        if scheme.kind is Kind.REGIONS:
            from app.core.agreement.regions.chance import fill_region_chance
            from app.core.agreement.regions.distances import RegionAgreement
            from app.core.agreement.regions.potato_reading import add_potato_reading

            threshold = options.threshold_for(scheme)
            loc = fill_region_chance(result, sets, threshold, options.seed,
                                     region_set_similarity)
            add_potato_reading(result, answers, sets, threshold)
            result.details = RegionAgreement.of(sets, loc)
        return results
    _score_categorical(study, scheme, result)
    return results


def _score_categorical(study: Study, scheme: Scheme, result: SchemeResult) -> None:
    assert scheme.kind in CATEGORICAL_KINDS
    repairs = study.single_choice_repairs.get(scheme.name, 0)
    if repairs:
        result.notes.append(
            f"{repairs} answers kept several options of this single-choice scheme (Potato "
            "issue #167) and were resolved to the latest selection.")
        result.extra["single_choice_repairs"] = repairs
    if result.n_items == 0:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        for metric in _metric_names(scheme.kind):
            result.put(metric, Coefficient.undefined(reason))
        if scheme.kind is Kind.TRACE:
            result.metrics["n_units"] = 0
            result.extra["n_units"] = 0
        return
    from app.core.agreement.categorical.schemes import score_units

    units = coded_units(study, scheme)
    score_units(units, scheme.kind, result)
    if scheme.annotation_type == "select":
        result.notes.append("the answer is the chosen value; Potato 2.12.1's /admin/iaa reads "
                            "the stored name 'select-one' for every answer and reports 1.0")
    if scheme.annotation_type == "slider":
        result.notes.append("slider positions are ordinal here (ordinal α); Potato 2.12.1's "
                            "/admin/iaa reports interval α for sliders")
    result.details = units
    if scheme.kind is Kind.TRACE:
        result.notes.append("steps are units: each step of each trace is compared on its own")
        result.notes.extend(_potato_trace_notes(scheme))


def _potato_trace_notes(scheme: Scheme) -> list[str]:
    """What Potato 2.12.1's /admin/iaa shows for a trace scheme where it differs
    (``agreement.md``, "Agreeing with Potato 2.12.1's own agreement report")."""
    kind = scheme.annotation_type
    if kind in ("trajectory_eval", "tool_call_review", "gui_trajectory"):
        what = ("the steps' correctness" if kind == "trajectory_eval"
                else "a bare list of judged steps")
        return [f"Potato 2.12.1's /admin/iaa scores no item of this scheme: its step reader "
                f"does not read {what}, so it reports no agreement here"]
    cfg = scheme.config
    neutral = bool(cfg.get("allow_neutral")) and cfg.get("mode", "first_error") == "per_step"
    if kind == "process_reward" and not neutral:
        return ["an unmarked step (reward 0, with no neutral option) is no label here; "
                "Potato 2.12.1's /admin/iaa counts it as the label 0, so it reports other "
                "numbers"]
    return []


def coded_units(study: Study, scheme: Scheme) -> CodedUnits:
    from app.core.agreement.categorical.units import categorical_rows, code_rows, trace_rows

    answers = study.answers_for(scheme.name)
    if scheme.kind is Kind.TRACE:
        return code_rows(trace_rows(answers))
    rows = categorical_rows(answers)
    if scheme.kind is Kind.ORDINAL:
        return code_rows(rows, values=scheme.scale)
    return code_rows(rows)


def _metric_names(kind: Kind) -> tuple[str, ...]:
    if kind is Kind.NOMINAL:
        return ("alpha", "fleiss_kappa", "kappa", "percent_agreement")
    if kind is Kind.MULTILABEL:
        return ("alpha", "kappa", "percent_agreement", "mean_jaccard")
    return ("alpha", "kappa", "percent_agreement")


def _coverage(study: Study, scheme: Scheme, result: SchemeResult) -> None:
    answers = study.answers_for(scheme.name)
    sizes = [len(by) for by in answers.values()]
    scored = [n for n in sizes if n >= 2]
    one = sum(1 for n in sizes if n == 1)
    cap = study.annotators_per_item
    result.n_items = len(scored)
    result.n_items_skipped = one
    result.coverage = {
        "n_items_answered": len(sizes),
        "n_items_scored": len(scored),
        "n_items_one_annotator": one,
        "n_items_unanswered": len(study.items) - len(sizes),
    }
    if cap is not None:
        result.coverage["n_items_below_cap"] = sum(1 for n in scored if n < cap)
    if one:
        result.notes.append(f"{one} items answered by one annotator only are not scored.")


def _rejections(study: Study, scheme: str, result: SchemeResult) -> None:
    rejected = study.rejected.get(scheme, [])
    if rejected:
        result.extra["n_answers_rejected"] = len(rejected)
        result.extra["rejected"] = rejected[:20]
        result.notes.append(f"{len(rejected)} answers were left out for an unusable object "
                            "(listed under 'rejected').")


def _has(answers: dict[str, dict[str, Answer]], *types: type) -> bool:
    return any(isinstance(a, ObjectSet) and a.of_type(*types)
               for by in answers.values() for a in by.values())


def _add_categorical_references(study: Study, results: dict[str, SchemeResult]) -> None:
    """Beside each trace α, the α of the same annotators on a simpler categorical scheme."""
    candidates = [s for s in study.schemes.values()
                  if s.kind in (Kind.NOMINAL, Kind.ORDINAL) and s.name in results
                  and results[s.name].n_items > 0]
    if not candidates:
        return
    from app.core.agreement.categorical.alpha import alpha, counts_from_codes
    from app.core.agreement.categorical.schemes import metric_for
    from app.core.agreement.categorical.units import restrict

    for name, result in results.items():
        scheme = study.schemes.get(name)
        if scheme is None or scheme.kind is not Kind.TRACE or result.n_items == 0:
            continue
        trace_annotators = {a for by in study.answers_for(name).values() for a in by}
        best: tuple[int, Scheme, CodedUnits] | None = None
        for candidate in candidates:
            units = restrict(coded_units(study, candidate), trace_annotators)
            shared = int(((units.codes >= 0).sum(axis=1) >= 2).sum())
            if shared and (best is None or shared > best[0]):
                best = (shared, candidate, units)
        if best is None:
            continue
        shared, candidate, units = best
        assert candidate.kind is not None
        value = alpha(counts_from_codes(units.codes, len(units.values)),
                      metric_for(candidate.kind, units.values))
        result.extra["categorical_reference"] = {
            "scheme": candidate.name, "kind": candidate.kind.value, "alpha": value.value,
            "n_items": shared, **({"undefined": value.reason} if value.reason else {}),
        }
