"""Ranking: an order of options per item (``ranking``, stored ``{"rank_order": "A,B,C"}``).

Metrics, Potato 2.12.1's names: Kendall's τ and Spearman's footrule (a distance) per
(annotator pair, shared item) on the options both ranked, the mean over every such
(pair, item). τ on one shared option is undefined with a sentence. ``pairs`` holds each
pair's mean over its shared items (those with a defined value) and its shared
``n_items``; a pair undefined on every item is ``null`` with the reason under
``extra["pair_undefined"]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("kendall_tau", "spearman_footrule")


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.continuous.pairs import pair_entries
    from app.core.agreement.continuous.results import (
        answered_rows,
        pair_count,
        put_block,
        put_pairs,
        undefined_all,
    )
    from app.core.agreement.ranking.metrics import (
        Ranking,
        kendall_tau,
        ranking_block,
        spearman_footrule,
    )

    yield from ()
    rows: dict[str, dict[str, Ranking]] = answered_rows(study.answers_for(scheme.name), tuple)
    if not rows:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        undefined_all(result, METRICS, reason)
        return [result]
    put_block(result, ranking_block(rows))
    put_pairs(result, *pair_entries(
        rows, {"kendall_tau": kendall_tau, "spearman_footrule": spearman_footrule},
        per_item=True))
    result.n_pairs = pair_count(rows)
    result.details = rows
    return [result]


SPEC = KindSpec(
    kind=Kind.RANKING, potato_types=frozenset({"ranking"}), metrics=METRICS, score=score,
    summary="orders",
)
