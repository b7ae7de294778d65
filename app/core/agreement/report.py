"""The agreement report of a study: one result per scheme, with coverage and reasons.

A generator job (``app.core.progress``): it yields progress per scheme and returns an
:class:`~app.core.agreement.result.AgreementReport`.

How a scheme is scored is its kind's business: the kind table
(``app/core/agreement/kinds/registry.py``) gives each kind's scoring, and this module
switches on no kind. It counts coverage and rejected answers for every scheme
(``kinds/common.py``), asks the scheme's kind to score it, then gives each kind a pass
over the whole report (traces add their categorical reference). Schemes Accord has no
measure for (free text, numbers, spans) are listed with ``not_computed`` and the reason,
so a report never silently omits a scheme.

Each kind's measures are imported when a scheme of that kind is scored: a lidar
study's report needs none of the categorical, mask or region modules (nor shapely),
and their imports were a tenth of a small study's whole run.
"""

from __future__ import annotations

from app import __version__
from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR, coded_units, coverage, rejections
from app.core.agreement.kinds.registry import KINDS, spec_of
from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.agreement.sets.structured import SetOptions
from app.core.errors import InputError
from app.core.model import Scheme, Study
from app.core.progress import Job, Progress, scaled

__all__ = ["NOBODY", "ONE_ANNOTATOR", "agreement_report", "coded_units"]


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
    for spec in list(KINDS):
        if spec.complete is not None:
            spec.complete(study, results)
    yield Progress(len(names), len(names), "done")
    return AgreementReport(project=project, n_items=len(study.items),
                           n_annotators=len(study.annotators), schemes=results,
                           notes=list(study.notes), version=__version__)


def _scheme_results(study: Study, scheme: Scheme, options: SetOptions
                    ) -> Job[list[SchemeResult]]:
    yield Progress(0, 1, f"scheme {scheme.name}")
    result = SchemeResult(scheme.name, scheme.annotation_type,
                          scheme.kind.value if scheme.kind else None)
    if scheme.kind is None:
        result.not_computed = (f"Accord has no agreement measure for "
                               f"'{scheme.annotation_type}' answers")
        return [result]
    coverage(study, scheme, result)
    rejections(study, scheme.name, result)
    return (yield from spec_of(scheme.kind).score(study, scheme, result, options))
