"""Nominal: one label per item (``radio``, ``select``, a single-choice ``multiselect``,
``pairwise`` in its binary mode).

Metrics: α (nominal), Fleiss' κ, mean pairwise Cohen's κ, percent agreement.

``pairwise`` is one type with three widgets, and Potato 2.12.1 (``classify_schema``)
scores it by its ``mode``: ``scale`` is a number (the continuous kind),
``multi_dimension`` a matrix (the matrix kind), any other mode (``binary``, the default)
one nominal choice, A, B or ``tie``, stored under ``selection``.
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

METRICS = ("alpha", "fleiss_kappa", "kappa", "percent_agreement")
SELECT_NOTE = ("the answer is the chosen value; Potato 2.12.1's /admin/iaa reads the stored "
               "name 'select-one' for every answer and reports 1.0")


def single_choice(config: Mapping[str, Any]) -> bool:
    """A ``multiselect`` that allows one choice only (``max_selections: 1`` or
    ``single_select: true``)."""
    return bool(config.get("single_select")) or config.get("max_selections") == 1


def claims(annotation_type: str, config: Mapping[str, Any]) -> bool:
    if annotation_type == "pairwise":
        mode = str(config.get("mode") or "binary").strip().lower()
        return mode not in ("scale", "multi_dimension")
    return annotation_type != "multiselect" or single_choice(config)


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    yield from ()
    if score_categorical(study, scheme, result, METRICS) and scheme.annotation_type == "select":
        result.notes.append(SELECT_NOTE)
    return [result]


SPEC = KindSpec(
    kind=Kind.NOMINAL, potato_types=frozenset({"radio", "select", "multiselect", "pairwise"}),
    claims=claims, metrics=METRICS, score=score, consensus=categorical_consensus,
    summary="label",
)
