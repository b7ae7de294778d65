"""Ranking: an order of options per item (``ranking``, stored ``{"rank_order": "A,B,C"}``).

Metrics, Potato 2.12.1's names: Kendall's τ and Spearman's footrule (a distance) per
(annotator pair, shared item) on the options both ranked, the mean over every such
(pair, item). τ on one shared option is undefined with a sentence.
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
    from app.core.agreement.continuous.results import (
        answered_rows,
        pair_count,
        put_block,
        undefined_all,
    )
    from app.core.agreement.ranking.metrics import Ranking, ranking_block

    yield from ()
    rows: dict[str, dict[str, Ranking]] = answered_rows(study.answers_for(scheme.name), tuple)
    if not rows:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        undefined_all(result, METRICS, reason)
        return [result]
    put_block(result, ranking_block(rows))
    result.n_pairs = pair_count(rows)
    result.details = rows
    return [result]


SPEC = KindSpec(
    kind=Kind.RANKING, potato_types=frozenset({"ranking"}), metrics=METRICS, score=score,
    summary="orders",
)
