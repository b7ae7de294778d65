"""Matrix: several sub-answers per item (``multirate``, ``constant_sum``, ``soft_label``,
``semantic_differential``, ``range_slider``, ``bws``, ``pairwise`` with
``mode: multi_dimension``: one A / B / tie choice per dimension, nominal rows).

Metrics as Potato 2.12.1 reports them (kinds.md B §2.4): each row and the pooled
(item, row) units get the block of the scheme's scale, decided from the data (interval
if every sub-answer is a number, nominal for bws, else ordinal on the declared
``labels``). The entry's ``metrics`` are the pooled block under Potato's names, headed
by ``alpha`` (the pooled α at that scale, the same number as its ``alpha_*``) so every
matrix scheme has one headline whatever its scale; ``rows`` holds each row's block, ``scale``
the scale and ``n_units`` the pooled (item, row) units.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.core.agreement.kinds.common import NOBODY, ONE_ANNOTATOR
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.continuous.block import Block
    from app.core.agreement.matrix.block import MatrixResult
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

INTERVAL = ("pearson_r", "mae", "rmse", "alpha_interval", "icc_2_k")
ORDINAL = ("weighted_kappa_linear", "weighted_kappa_quadratic", "spearman_rho",
           "alpha_ordinal")
NOMINAL = ("alpha_nominal", "fleiss_kappa", "percent_agreement", "cohen_kappa",
           "pairwise_cohen_kappa")
METRICS = ("alpha", *INTERVAL, *ORDINAL, *NOMINAL)
TYPES = frozenset({"multirate", "constant_sum", "soft_label", "semantic_differential",
                   "range_slider", "bws", "best_worst_scaling", "pairwise"})


def claims(annotation_type: str, config: Mapping[str, Any]) -> bool:
    """``pairwise`` only in its ``multi_dimension`` mode (Potato's ``classify_schema``)."""
    return (annotation_type != "pairwise"
            or str(config.get("mode") or "binary").strip().lower() == "multi_dimension")


def score(study: Study, scheme: Scheme, result: SchemeResult, options: SetOptions
          ) -> Job[list[SchemeResult]]:
    from app.core.agreement.coefficient import Coefficient
    from app.core.agreement.continuous.results import answered_rows, pair_count, put_block
    from app.core.agreement.matrix.block import matrix_block
    from app.core.model import SubAnswers

    yield from ()
    answers = answered_rows(study.answers_for(scheme.name), SubAnswers)
    if not answers:
        reason = NOBODY if not study.answers_for(scheme.name) else ONE_ANNOTATOR
        result.put("alpha", Coefficient.undefined(reason))
        return [result]
    rows = {item: {a: v.as_dict() for a, v in by.items()} for item, by in answers.items()}
    matrix = matrix_block(dict(scheme.config) or {"annotation_type": scheme.annotation_type},
                          rows)
    alpha = next(c for name, c in matrix.pooled.metrics.items() if name.startswith("alpha"))
    result.put("alpha", alpha)
    put_block(result, matrix.pooled)
    result.extra["n_units"] = matrix.pooled.counts["n_items"]  # (item, row) units
    result.extra["scale"] = matrix.scale
    result.extra["rows"] = {name: block.to_json() for name, block in matrix.rows.items()}
    result.n_pairs = pair_count(answers)
    if matrix.rows:
        result.notes.append(rows_sentence(matrix))
    if matrix.note:
        result.notes.append(matrix.note)
    result.details = matrix
    return [result]


def rows_sentence(matrix: MatrixResult) -> str:
    """Each row's α in one line, for the text report (the numbers are under ``rows``)."""
    def alpha(block: Block) -> str:
        value = next(c.value for n, c in block.metrics.items() if n.startswith("alpha"))
        return "undefined" if value is None else f"{value:.3f}"
    parts = [f"{name} {alpha(block)}" for name, block in matrix.rows.items()]
    return f"α per row ({matrix.scale}): " + ", ".join(parts)


SPEC = KindSpec(
    kind=Kind.MATRIX, potato_types=TYPES, claims=claims, metrics=METRICS, score=score,
    summary="rows of answers",
)
