"""Multilabel: a set of labels per item (a ``multiselect`` allowing more than one; a
``hierarchical_multiselect``'s selected names and a ``card_sort``'s "group␟card"
placements, read by ``app/core/agreement/rating_answers.py`` as kinds.md B §2.3 says).

Metrics: α with the MASI distance, mean pairwise κ (undefined with
``categorical.schemes.KAPPA_FOR_SETS``: κ has no standard form for sets), percent
agreement (identical sets), mean Jaccard.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.core.agreement.kinds.common import categorical_consensus, score_categorical
from app.core.agreement.kinds.nominal import single_choice
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("alpha", "kappa", "percent_agreement", "mean_jaccard")


PACKED = frozenset({"hierarchical_multiselect", "card_sort"})


def claims(annotation_type: str, config: Mapping[str, Any]) -> bool:
    return annotation_type in PACKED or not single_choice(config)


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    yield from ()
    score_categorical(study, scheme, result, METRICS)
    return [result]


def consensus(study: Study, scheme: Scheme, method: str, options: SetOptions,
              notes: list[str]) -> Job[list[dict[str, Any]]]:
    """Per-label majority: Dawid–Skene needs one class per answer, so it is said so."""
    if method == "dawid_skene":
        notes.append(f"{scheme.name}: multilabel answers take the per-label majority "
                     "(Dawid–Skene needs one class per answer)")
    return (yield from categorical_consensus(study, scheme, method, options, notes))


SPEC = KindSpec(
    kind=Kind.MULTILABEL, potato_types=frozenset({"multiselect", *PACKED}), claims=claims,
    metrics=METRICS, score=score, consensus=consensus, summary="label sets",
)
