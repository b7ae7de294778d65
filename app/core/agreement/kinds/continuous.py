"""Continuous: one number per item (``number``, ``vas``, ``confidence`` with
``scale_type: slider``, ``pairwise`` with ``mode: scale``).

Metrics, Potato 2.12.1's CONTINUOUS block under its names (kinds.md A.3): Pearson r,
MAE, RMSE (per annotator pair on ≥ 2 shared items, mean over pairs), interval α, and
ICC(2,k) on the items every annotator rated (undefined for a rotating panel, with the
sentence). ``pairs`` holds each pair's r, MAE and RMSE and its shared ``n_items`` (a
pair sharing one item: ``null`` with the reason under ``extra["pair_undefined"]``).
``slider`` stays ordinal (its ordinal report is unchanged); this kind's
pass over the finished report adds Potato's block to every slider and likert scheme as
``potato_iaa`` (``app/core/agreement/continuous/potato_blocks.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

METRICS = ("pearson_r", "mae", "rmse", "alpha_interval", "icc_2_k")


def claims(annotation_type: str, config: Mapping[str, Any]) -> bool:
    from app.core.agreement.continuous.reading import is_number_scheme

    return is_number_scheme({**config, "annotation_type": annotation_type})


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.continuous.metrics import continuous_block, mae, pearson_r, rmse
    from app.core.agreement.continuous.pairs import pair_entries
    from app.core.agreement.continuous.results import (
        answered_rows,
        pair_count,
        put_block,
        put_pairs,
        undefined_all,
    )

    yield from ()
    rows: dict[str, dict[str, float]] = answered_rows(study.answers_for(scheme.name), float)
    if not rows:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        undefined_all(result, METRICS, reason)
        return [result]
    put_block(result, continuous_block(rows))
    put_pairs(result, *pair_entries(
        rows, {"pearson_r": pearson_r, "mae": mae, "rmse": rmse}, per_item=False))
    result.n_pairs = pair_count(rows)
    result.details = rows
    return [result]


def complete(study: Study, results: dict[str, SchemeResult]) -> None:
    from app.core.agreement.continuous.potato_blocks import add_potato_blocks

    add_potato_blocks(study, results)


SPEC = KindSpec(
    kind=Kind.CONTINUOUS,
    potato_types=frozenset({"number", "vas", "confidence", "pairwise"}),
    claims=claims, metrics=METRICS, score=score, complete=complete, summary="numbers",
)
