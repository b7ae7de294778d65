"""A rating block written into a scheme's report entry (``SchemeResult``).

The block's coefficients go to ``metrics`` under Potato's names (an undefined one as
``null`` with its sentence under ``undefined``), its counts (``n_aligned_items``,
``n_annotators``) to the entry's extra keys. ``put_pairs`` writes the per-pair numbers
(numbers and rankings: Pearson r, MAE, RMSE; τ, footrule) to ``pairs`` and the reasons
of a pair's undefined values to ``extra["pair_undefined"]`` (pair → metric → sentence),
since a pair entry holds numbers only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.result import SchemeResult

T = TypeVar("T")


def put_block(result: SchemeResult, block: Block, prefix: str = "") -> None:
    for name, coefficient in block.metrics.items():
        result.put(prefix + name, coefficient)
    for name, count in block.counts.items():
        if name != "n_items":
            result.extra[prefix + name] = count


def put_pairs(result: SchemeResult, entries: dict[str, dict[str, float | int | None]],
              reasons: dict[str, dict[str, str]]) -> None:
    result.pairs = entries
    if reasons:
        result.extra["pair_undefined"] = reasons


def undefined_all(result: SchemeResult, metrics: Sequence[str], reason: str) -> None:
    for name in metrics:
        result.put(name, Coefficient.undefined(reason))


def answered_rows(answers: Mapping[str, Mapping[str, Any]], kind: type[T]
                  ) -> dict[str, dict[str, T]]:
    """``item → annotator → answer`` for the answers of ``kind``, items with ≥ 2."""
    rows: dict[str, dict[str, T]] = {}
    for item, by in answers.items():
        kept: dict[str, T] = {a: v for a, v in by.items() if isinstance(v, kind)}
        if len(kept) >= 2:
            rows[item] = kept
    return rows


def pair_count(rows: Mapping[str, Mapping[str, Any]]) -> int:
    """Annotator pairs over all scored items (``n_pairs``, as the categorical kinds)."""
    return sum(len(by) * (len(by) - 1) // 2 for by in rows.values())
