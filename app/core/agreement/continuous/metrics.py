"""Potato's CONTINUOUS block: Pearson r, MAE, RMSE, interval α and ICC(2,k).

As Potato 2.12.1 computes them (``iaa/continuous.py``, ``dispatcher.py``
``_aggregate_continuous``), each returning a value or ``None`` with a sentence:

- ``pearson_r``, ``mae``, ``rmse``: per annotator pair on its ≥ 2 shared items, then the
  unweighted mean over pairs. A pair with exactly two shared items has r = ±1 (Potato's
  convention, kept); a pair where one side is constant has no r and is left out.
- ``alpha_interval``: Krippendorff's α with δ = (a − b)² over every item with two or
  more numbers (Accord's α, :mod:`app.core.agreement.categorical.alpha`). Like Potato,
  fewer than two items is undefined (the ``krippendorff`` package would compute one).
- ``icc_2_k``: Shrout & Fleiss ICC(2,k) = (MSR − MSE) / (MSR + (MSC − MSE)/n) on the
  items × raters table of the items rated by **every** annotator of the scheme (Potato's
  listwise choice). A rotating panel has no such item: undefined, with that sentence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from app.core.agreement.categorical.alpha import alpha_from_reliability
from app.core.agreement.coefficient import Coefficient
from app.core.agreement.continuous.block import Block
from app.core.agreement.continuous.pairs import Rows, annotator_count, pair_mean

TOO_FEW = "fewer than two shared items"
CONSTANT = "one of the two gave the same number on every shared item, so r is 0/0"
ALPHA_FEW_ITEMS = "α needs at least two items with numbers from two or more annotators"
ALPHA_FEW_ANNOTATORS = "α needs at least two annotators"


def pearson_r(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    if len(a) < 2:
        return Coefficient.undefined(TOO_FEW)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    dx, dy = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float(dx @ dx) * float(dy @ dy))
    if denominator == 0.0:
        return Coefficient.undefined(CONSTANT)
    return Coefficient.of(max(-1.0, min(1.0, float(dx @ dy) / denominator)))


def mae(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    if not a:
        return Coefficient.undefined(TOO_FEW)
    return Coefficient.of(sum(abs(x - y) for x, y in zip(a, b, strict=True)) / len(a))


def rmse(a: Sequence[float], b: Sequence[float]) -> Coefficient:
    if not a:
        return Coefficient.undefined(TOO_FEW)
    return Coefficient.of(math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b, strict=True))
                                    / len(a)))


def icc_2_k(table: np.ndarray, n_raters: int | None = None) -> Coefficient:
    """ICC(2,k) of a complete ``(items, raters)`` table."""
    arr = np.asarray(table, dtype=np.float64)
    k = arr.shape[1] if arr.ndim == 2 else 0
    raters = n_raters if n_raters is not None else k
    if arr.ndim != 2 or arr.shape[0] == 0:
        return Coefficient.undefined(
            f"no item was rated by all {raters} annotators; ICC(2,k) needs the complete "
            "items × raters table")
    n = arr.shape[0]
    if k < 2:
        return Coefficient.undefined("ICC(2,k) needs at least two raters")
    if n < 2:
        return Coefficient.undefined(
            f"only one item was rated by all {k} annotators; ICC(2,k) needs at least two "
            "complete items")
    grand = arr.mean()
    ss_rows = k * float(((arr.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((arr.mean(axis=0) - grand) ** 2).sum())
    ss_err = float(((arr - grand) ** 2).sum()) - ss_rows - ss_cols
    msr = ss_rows / (n - 1)
    msc = ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    denominator = msr + (msc - mse) / n
    if denominator == 0.0:
        return Coefficient.undefined(
            "the complete items × raters table has no variance between items or raters "
            "(0/0)")
    return Coefficient.of((msr - mse) / denominator)


def reliability(rows: Rows[float]) -> tuple[list[str], np.ndarray]:
    """Annotators and their ``(annotators, items)`` array, NaN where missing."""
    annotators = sorted({a for by in rows.values() for a in by})
    items = list(rows)
    array = np.full((len(annotators), len(items)), np.nan)
    column = {a: j for j, a in enumerate(annotators)}
    for i, item in enumerate(items):
        for annotator, value in rows[item].items():
            array[column[annotator], i] = value
    return annotators, array


def alpha_level(rows: Rows[float], level: str) -> Coefficient:
    """Krippendorff's α at ``level`` over items with ≥ 2 values (Potato: ≥ 2 items)."""
    pairable = {i: by for i, by in rows.items() if len(by) >= 2}
    if annotator_count(pairable) < 2:
        return Coefficient.undefined(ALPHA_FEW_ANNOTATORS)
    if len(pairable) < 2:
        return Coefficient.undefined(ALPHA_FEW_ITEMS)
    _, array = reliability(pairable)
    return alpha_from_reliability(array, level)


def complete_table(rows: Rows[float]) -> tuple[list[str], list[str], np.ndarray]:
    """Annotators, the items every one of them rated, and that items × raters table."""
    annotators = sorted({a for by in rows.values() for a in by})
    items = [i for i, by in rows.items() if all(a in by for a in annotators)]
    table = np.array([[rows[i][a] for a in annotators] for i in items], dtype=np.float64)
    return annotators, items, table.reshape(len(items), len(annotators))


def continuous_block(rows: Rows[float]) -> Block:
    """Potato's CONTINUOUS block on gathered numbers (items with ≥ 2 annotators)."""
    annotators, complete, table = complete_table(rows)
    return Block(
        metrics={
            "pearson_r": pair_mean(rows, pearson_r),
            "mae": pair_mean(rows, mae),
            "rmse": pair_mean(rows, rmse),
            "alpha_interval": alpha_level(rows, "interval"),
            "icc_2_k": icc_2_k(table, len(annotators)),
        },
        counts={"n_items": len(rows), "n_aligned_items": len(complete),
                "n_annotators": len(annotators)},
    )
