"""Trace: an agent trace judged step by step (``process_reward``, ``trajectory_eval``,
``tool_call_review``, ``failure_attribution``, ``gui_trajectory``).

Steps are units: nominal α over step units, mean pairwise Cohen's κ over the steps both
labelled, percent agreement, ``n_units``. Beside each trace α, the report gives the α the
*same annotators* reach on the study's categorical scheme with the most shared items
(``categorical_reference``, :func:`complete`), since both are chance-corrected and read
on one scale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agreement.kinds.common import categorical_consensus, coded_units, score_categorical
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import TRACE_TYPES, Kind, Scheme

if TYPE_CHECKING:
    from app.core.agreement.categorical.units import CodedUnits
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Study
    from app.core.progress import Job

METRICS = ("alpha", "kappa", "percent_agreement")
STEPS_NOTE = "steps are units: each step of each trace is compared on its own"


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    yield from ()
    if not score_categorical(study, scheme, result, METRICS):
        result.metrics["n_units"] = 0
        result.extra["n_units"] = 0
        return [result]
    result.notes.append(STEPS_NOTE)
    result.notes.extend(potato_trace_notes(scheme))
    return [result]


def potato_trace_notes(scheme: Scheme) -> list[str]:
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


def add_categorical_references(study: Study, results: dict[str, SchemeResult]) -> None:
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


SPEC = KindSpec(
    kind=Kind.TRACE, potato_types=TRACE_TYPES, metrics=METRICS, score=score,
    complete=add_categorical_references, consensus=categorical_consensus,
    summary="step label",
)
