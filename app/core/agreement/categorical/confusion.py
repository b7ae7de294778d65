"""Confusion matrices of a categorical scheme: who said what when someone else said what.

A lead who knows Label Studio's and CVAT's review screens asks first "which labels do
people confuse?". α answers "how much", not "where". This module counts, over the coded
units of a scheme (:mod:`app.core.agreement.categorical.units`: one unit per item, one
per trace step), how often two annotators' answers fell in each pair of values, and
keeps the items behind every cell so the items list can show exactly them.

Two forms (the spec is silent; chosen to read without a legend):

- **A pair** ``(a, b)``: rows are ``a``'s answers, columns ``b``'s, over the units both
  answered. The matrix is not symmetric; its total is the number of shared units.
- **Pooled**: every annotator pair on every unit both answered, each pair of answers
  counted in **both orders**, on and off the diagonal alike (issue 35: the diagonal
  counted an agreeing pair once and a disagreeing pair twice, once in each mirror cell,
  so agreement looked half as common as it was). Cell ``(x, y)`` counts the times one
  annotator said ``x`` and the other of the pair said ``y``: a pair who said ``x`` and
  ``y`` adds 1 to ``(x, y)`` and 1 to ``(y, x)``; a pair who both said ``x`` adds 2 to
  ``(x, x)``. This is Krippendorff's coincidence matrix with unweighted pairs: it is
  symmetric, a row reads "when someone said x, the other said …", and its total is
  twice ``n_pair_units``, the number of pairs of answers (:data:`POOLED_CONVENTION`).

Values are the scheme's value table (``CodedUnits.values``: observed labels sorted, or an
ordinal scheme's full scale, so unused scale points show as empty rows). Multilabel
schemes (values are label sets) are counted the same way; the caller decides whether a
matrix over label sets is worth showing.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, pairwise

import numpy as np

from app.core.agreement.categorical.units import CodedUnits

POOLED_CONVENTION = (
    "Every pair of answers is counted in both orders, on and off the diagonal: when two "
    "annotators said x and y, cell (x, y) and cell (y, x) each count 1; when both said x, "
    "cell (x, x) counts 2. The matrix's total is twice the number of pairs of answers.")
"""The pooled matrix's convention, as the window writes it under the matrix."""
PAIR_CONVENTION = (
    "Each shared item (or step) is counted once: rows are the first annotator's answers, "
    "columns the second's.")
"""An annotator pair's matrix's convention, in the same place."""


@dataclass(frozen=True, slots=True)
class Confusion:
    values: tuple[object, ...]
    """The value of each row and column."""
    pair: tuple[str, str] | None
    """``(rows, columns)`` annotators, or ``None`` for the pooled matrix."""
    counts: np.ndarray
    """``int64`` of shape ``(n_values, n_values)``."""
    cell_items: dict[tuple[int, int], tuple[str, ...]]
    """The items (sorted, each once) behind every non-empty cell."""
    n_pair_units: int

    def items_in(self, row: int, column: int) -> tuple[str, ...]:
        return self.cell_items.get((row, column), ())

    @property
    def n_disagreeing(self) -> int:
        """Pair-units whose two answers differ."""
        off = int(self.counts.sum() - np.trace(self.counts))
        return off if self.pair is not None else off // 2

    def pairs_in(self, row: int, column: int) -> int:
        """The pairs of answers behind a cell: its count, or for the pooled matrix's
        diagonal half of it (each agreeing pair is counted in both orders there)."""
        count = int(self.counts[row, column])
        return count // 2 if self.pair is None and row == column else count


def annotator_pairs(units: CodedUnits) -> list[tuple[str, str]]:
    """The annotator pairs (sorted names) that share at least one unit."""
    answered = units.codes >= 0
    out = []
    for i, j in combinations(range(len(units.annotators)), 2):
        if bool((answered[:, i] & answered[:, j]).any()):
            out.append((units.annotators[i], units.annotators[j]))
    return out


def confusion(units: CodedUnits, pair: tuple[str, str] | None = None) -> Confusion:
    """The confusion matrix of one annotator pair, or pooled over all pairs."""
    n = len(units.values)
    column = {a: k for k, a in enumerate(units.annotators)}
    if pair is not None:
        missing = [a for a in pair if a not in column]
        if missing:
            raise KeyError(f"annotator {missing[0]!r} did not answer this scheme")
        pairs = [(column[pair[0]], column[pair[1]])]
    else:
        pairs = list(combinations(range(len(units.annotators)), 2))
    items = np.asarray(units.unit_items, dtype=object)
    cells: list[np.ndarray] = []
    unit_rows: list[np.ndarray] = []
    n_pair_units = 0
    for i, j in pairs:
        x, y = units.codes[:, i], units.codes[:, j]
        both = np.flatnonzero((x >= 0) & (y >= 0))
        n_pair_units += int(both.size)
        cells.append(x[both] * n + y[both])
        unit_rows.append(both)
        if pair is None:  # the other order, for every pair alike (diagonal included)
            cells.append(y[both] * n + x[both])
            unit_rows.append(both)
    flat = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
    rows = np.concatenate(unit_rows) if unit_rows else np.zeros(0, dtype=np.int64)
    counts = np.bincount(flat, minlength=n * n).reshape(n, n).astype(np.int64)
    order = np.argsort(flat, kind="stable")
    flat, rows = flat[order], rows[order]
    starts: list[int] = (np.flatnonzero(np.r_[True, flat[1:] != flat[:-1]]).tolist()
                         if flat.size else [])
    cell_items: dict[tuple[int, int], tuple[str, ...]] = {}
    for start, stop in pairwise([*starts, int(flat.size)]):
        code = int(flat[start])
        cell_items[(code // n, code % n)] = tuple(sorted(set(items[rows[start:stop]])))
    return Confusion(values=units.values, pair=pair, counts=counts, cell_items=cell_items,
                     n_pair_units=n_pair_units)
