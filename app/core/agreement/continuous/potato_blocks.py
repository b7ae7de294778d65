"""Potato's numbers for the schemes that stay ordinal in Accord: slider and likert (and
``confidence`` in likert mode, which Potato scores as likert).

Accord reports a ``slider`` and a ``likert`` as ordinal (ordinal α, quadratic κ over the
declared full scale, percent agreement; agreement.md). Potato 2.12.1's ``/admin/iaa``
scores a slider with its CONTINUOUS block and a likert with its ORDINAL block, whose
weighted κ fills the scale differently (every integer between the pair's lowest and
highest answer). kinds.md A.3 asks for both; so each such scheme's entry also carries
``potato_iaa``: Potato's block under Potato's names, equal to its report, with the
sentence of any undefined number. The scheme's own ``metrics`` are unchanged.

Answers are the labels Accord read (a slider position, a likert point); as Potato, a
likert point is its position in a declared ``labels`` list, else its number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.metrics import continuous_block
from app.core.agreement.continuous.ordinal import ordinal_block, scale_order, to_number
from app.core.agreement.result import SchemeResult
from app.core.model import Kind, Study

SLIDER_NOTE = ("potato_iaa: Potato 2.12.1's numbers for this slider (its interval block: "
               "Pearson r, MAE, RMSE, interval α, ICC(2,k)), computed here the same way")
LIKERT_NOTE = ("potato_iaa: Potato 2.12.1's numbers for this scale (weighted κ over the "
               "integers each pair spans, Spearman ρ, ordinal α), computed here the same way")


def _numbers(answers: Mapping[str, Mapping[str, Any]], order: Mapping[str, int] | None
             ) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    for item, by in answers.items():
        numbers = {a: n for a, v in by.items()
                   if isinstance(v, str) and (n := to_number(v, order)) is not None}
        if len(numbers) >= 2:
            rows[item] = numbers
    return rows


def potato_block(study: Study, name: str) -> Block | None:
    """Potato's block for a slider or likert scheme, or ``None`` for another type."""
    scheme = study.schemes[name]
    if scheme.annotation_type == "slider":
        return continuous_block(_numbers(study.answers_for(name), None))
    if scheme.annotation_type == "likert" or (scheme.annotation_type == "confidence"
                                              and scheme.kind is Kind.ORDINAL):
        return ordinal_block(_numbers(study.answers_for(name), scale_order(scheme.config)))
    return None


def add_potato_blocks(study: Study, results: dict[str, SchemeResult]) -> None:
    """The report's pass: ``potato_iaa`` on every slider and likert scheme scored."""
    for name, result in results.items():
        if name not in study.schemes or result.not_computed is not None or not result.n_items:
            continue
        block = potato_block(study, name)
        if block is None:
            continue
        result.extra["potato_iaa"] = block.to_json()
        slider = study.schemes[name].annotation_type == "slider"
        result.notes.append(SLIDER_NOTE if slider else LIKERT_NOTE)
