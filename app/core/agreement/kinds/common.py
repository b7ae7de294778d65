"""What every kind's scoring shares: coverage, rejected answers, the shared sentences,
and the categorical family's one scoring (nominal, ordinal, multilabel and trace differ
only in their metric, their κ weights and their notes, which their modules add).

Coverage per scheme (``agreement.md``, Units and Precise rules): an item is *scored*
when two or more annotators answered the scheme on it, whatever
``num_annotators_per_item`` says; the report counts scored items below that cap, and
items with one annotator are skipped with that reason. Answers the reader rejected for
an unusable object are counted per scheme (``n_answers_rejected``) with their messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.result import SchemeResult
from app.core.model import Answer, Kind, Scheme, Study
from app.core.objects import ObjectSet

if TYPE_CHECKING:
    from app.core.agreement.categorical.units import CodedUnits
    from app.core.agreement.sets.agreement import SetAgreement
    from app.core.agreement.sets.structured import SetOptions
    from app.core.progress import Job

ONE_ANNOTATOR = (
    "no item was answered by two or more annotators: agreement of one person is undefined, "
    "never perfect"
)
NOBODY = "nobody answered this scheme"


def coverage(study: Study, scheme: Scheme, result: SchemeResult) -> None:
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


def rejections(study: Study, scheme: str, result: SchemeResult) -> None:
    rejected = study.rejected.get(scheme, [])
    if rejected:
        result.extra["n_answers_rejected"] = len(rejected)
        result.extra["rejected"] = rejected[:20]
        result.notes.append(f"{len(rejected)} answers were left out for an unusable object "
                            "(listed under 'rejected').")


def has(answers: dict[str, dict[str, Answer]], *types: type) -> bool:
    """Does any answer hold an object of one of ``types``?"""
    return any(isinstance(a, ObjectSet) and a.of_type(*types)
               for by in answers.values() for a in by.values())


def coded_units(study: Study, scheme: Scheme) -> CodedUnits:
    """A categorical scheme's answers as coded units (steps are units for traces)."""
    from app.core.agreement.categorical.units import categorical_rows, code_rows, trace_rows

    answers = study.answers_for(scheme.name)
    if scheme.kind is Kind.TRACE:
        return code_rows(trace_rows(answers))
    rows = categorical_rows(answers)
    if scheme.kind is Kind.ORDINAL:
        return code_rows(rows, values=scheme.scale)
    return code_rows(rows)


def score_categorical(study: Study, scheme: Scheme, result: SchemeResult,
                      metrics: tuple[str, ...]) -> bool:
    """Score a categorical scheme; ``False`` when no item was scored (every metric then
    undefined with the reason), for the kind to add what it adds only to numbers."""
    assert scheme.kind is not None
    repairs = study.single_choice_repairs.get(scheme.name, 0)
    if repairs:
        result.notes.append(
            f"{repairs} answers kept several options of this single-choice scheme (Potato "
            "issue #167) and were resolved to the latest selection.")
        result.extra["single_choice_repairs"] = repairs
    if result.n_items == 0:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        for metric in metrics:
            result.put(metric, Coefficient.undefined(reason))
        return False
    from app.core.agreement.categorical.schemes import score_units

    units = coded_units(study, scheme)
    score_units(units, scheme.kind, result)
    result.details = units
    return True


def score_objects(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
                  ) -> Job[SetAgreement]:
    """Score a set kind (one-to-one matching, ``agreement.md``, Sets of objects): the
    pair outcomes are the result's details, and returned for the kind to add to."""
    from app.core.agreement.sets.structured import score_set_scheme

    sets = yield from score_set_scheme(study, scheme, result, options)
    result.details = sets
    return sets


def categorical_consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
                          notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Majority or Dawid–Skene labels per item (per step for traces)."""
    from app.core.agreement.consensus.categorical import categorical_rows_of
    from app.core.progress import Progress

    assert scheme.kind is not None
    yield Progress(0, 1, scheme.name)
    return categorical_rows_of(scheme.name, scheme.kind, study.answers_for(scheme.name),
                               method)


def object_consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
                     notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Matched objects and who agreed (a set kind)."""
    from app.core.agreement.consensus.objects import object_rows

    return (yield from object_rows(study, scheme, options))
