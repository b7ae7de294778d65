"""Per-item agreement of one scheme: which items people disagree on most.

The report gives one number per scheme; an annotation lead then wants the items behind
it, worst first. This module turns what the report already computed
(``SchemeResult.details``) into one row per item, in numpy, so a table of 100,000 items
can be filled and re-filtered without recomputing any matching.

Per item:

- ``score``: the mean pair score over the item's annotator pairs.
  - Set kinds (cuboids, segments, tiers, regions): the mean of the pairs' item scores
    (``agreement.md``, Sets of objects, step 3), from the ``SetAgreement`` outcomes.
  - Categorical kinds and traces: the share of agreeing pairs, pooled over the item's
    units (one unit per item for nominal, ordinal and multilabel; one per labelled step
    for traces), which is ``percent_agreement`` restricted to the item. Two labels agree
    when they are identical (for multilabel: the same set), as in ``percent_agreement``.
- ``count_diff``: the mean ``|objects of A − objects of B|`` over the item's pairs, for
  set kinds; NaN for categorical kinds and traces, which have no objects to count.
- ``n_pairs``: the pairs the score is over (pairs of units for traces).
- ``answered``: which of the scheme's annotators answered the item.

Choices where the spec is silent:

- Only items with at least one pair appear (an item with one annotator has no score;
  the report counts those in its coverage). For traces, an item whose steps were never
  labelled by two annotators has no pair and is left out too.
- **Filter by annotator** keeps the items that annotator answered and scores each item
  over the pairs *that include that annotator* only: it answers "where does this person
  disagree with the others", which an item-level mean over all pairs would blur.
- Spans: the pairs' partial span F1 (``count_diff``: their span counts' difference).
- Volumes: a pair's score is its mean Dice over the labels either painted on the item
  (a pair that painted nothing at all is no pair, as Potato leaves both-empty out);
  no ``count_diff``.
- Masks (STAPLE) and schemes without a measure have no per-item pair score:
  :func:`item_scores` returns ``None`` for them.
- Rows are in sorted item-id order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from operator import attrgetter

import numpy as np

from app.core.agreement.categorical.alpha import counts_from_codes
from app.core.agreement.categorical.units import CodedUnits
from app.core.agreement.result import AgreementReport, SchemeResult
from app.core.agreement.sets.agreement import SetAgreement
from app.core.agreement.spans.metrics import SpanDetails
from app.core.agreement.volumes.report import VolumeAgreement


@dataclass(frozen=True, slots=True)
class ItemScores:
    """One row per item of one scheme (see the module docstring for each column)."""

    scheme: str
    kind: str
    items: tuple[str, ...]
    annotators: tuple[str, ...]
    answered: np.ndarray
    """``bool`` of shape ``(n_items, n_annotators)``."""
    score: np.ndarray
    count_diff: np.ndarray
    """NaN where the kind has no objects (categorical, traces)."""
    n_pairs: np.ndarray
    annotator: str | None = None
    """The annotator filter applied, if any (scores are then over their pairs only)."""

    def __len__(self) -> int:
        return len(self.items)

    @property
    def has_counts(self) -> bool:
        """Whether ``count_diff`` means anything for this kind."""
        return bool(self.count_diff.size) and not bool(np.isnan(self.count_diff).all())

    def only(self, items: Collection[str]) -> ItemScores:
        """The rows of ``items`` only (a confusion-matrix cell's items), in this order."""
        keep = set(items)
        rows = np.asarray([k for k, item in enumerate(self.items) if item in keep],
                          dtype=np.int64)
        return replace(self, items=tuple(self.items[k] for k in rows),
                       answered=self.answered[rows], score=self.score[rows],
                       count_diff=self.count_diff[rows], n_pairs=self.n_pairs[rows])

    def answered_by(self, row: int) -> tuple[str, ...]:
        """The annotators who answered the item of ``row``, in study order."""
        return tuple(a for a, yes in zip(self.annotators, self.answered[row], strict=True)
                     if yes)


def item_scores(result: SchemeResult, annotator: str | None = None) -> ItemScores | None:
    """Per-item scores of one scheme, or ``None`` when it has none (masks, no measure)."""
    details = result.details
    kind = result.kind or ""
    if isinstance(details, SetAgreement):
        return _from_sets(result.name, kind, details, annotator)
    if isinstance(details, CodedUnits):
        return _from_units(result.name, kind, details, annotator)
    if isinstance(details, SpanDetails):
        return _from_spans(result.name, kind, details, annotator)
    if isinstance(details, VolumeAgreement):
        return _from_volumes(result.name, kind, details, annotator)
    return None


def all_item_scores(report: AgreementReport, annotator: str | None = None
                    ) -> dict[str, ItemScores]:
    """Every scheme's per-item scores, in report order (schemes without any left out)."""
    out: dict[str, ItemScores] = {}
    for name, result in report.schemes.items():
        scores = item_scores(result, annotator)
        if scores is not None:
            out[name] = scores
    return out


# --------------------------------------------------------------------------- sets


def _from_sets(scheme: str, kind: str, sets: SetAgreement, annotator: str | None
               ) -> ItemScores:
    names = sorted({a for by in sets.objects.values() for a in by})
    column = {a: j for j, a in enumerate(names)}
    item_names = sorted(sets.objects)
    row = {item: i for i, item in enumerate(item_names)}
    outcomes = sets.outcomes
    # map/attrgetter keep the per-outcome work in C: ~10x faster than generators here.
    pair_item = _ints(map(row.__getitem__, map(attrgetter("item"), outcomes)))
    pair_a = _ints(map(column.__getitem__, map(attrgetter("a"), outcomes)))
    pair_b = _ints(map(column.__getitem__, map(attrgetter("b"), outcomes)))
    score = np.array(list(map(attrgetter("score"), outcomes)), dtype=np.float64)
    diff = np.abs(_ints(map(attrgetter("n_a"), outcomes))
                  - _ints(map(attrgetter("n_b"), outcomes))).astype(np.float64)
    answered = np.zeros((len(item_names), len(names)), dtype=bool)
    for a, j in column.items():
        answered[:, j] = list(map(_holds(a), map(sets.objects.__getitem__, item_names)))
    if annotator is not None:
        j = column.get(annotator, -1)
        keep = (pair_a == j) | (pair_b == j)
        pair_item, score, diff = pair_item[keep], score[keep], diff[keep]
    k = len(item_names)
    pairs = np.bincount(pair_item, minlength=k)
    sum_score = np.bincount(pair_item, weights=score, minlength=k)
    sum_diff = np.bincount(pair_item, weights=diff, minlength=k)
    return _rows(scheme, kind, item_names, names, answered, pairs, sum_score, sum_diff,
                 annotator)


# --------------------------------------------------------------------------- units


def _from_units(scheme: str, kind: str, units: CodedUnits, annotator: str | None
                ) -> ItemScores:
    codes = units.codes
    # Units come grouped by item (sorted item order); a dict keeps this exact if not.
    index: dict[str, int] = {}
    unit_row = _ints(map(lambda item: index.setdefault(item, len(index)),
                         units.unit_items))
    order = sorted(index)
    if order != list(index):  # not already sorted: renumber rows in item order
        rank = np.empty(len(order), dtype=np.int64)
        rank[[index[i] for i in order]] = np.arange(len(order))
        unit_row = rank[unit_row]
    item_names = order
    k = len(item_names)
    labelled = codes >= 0
    answered = np.zeros((k, len(units.annotators)), dtype=bool)
    for j in range(len(units.annotators)):
        answered[:, j] = np.bincount(unit_row, weights=labelled[:, j], minlength=k) > 0
    counts = counts_from_codes(codes, len(units.values)).astype(np.float64)
    per_unit = counts.sum(axis=1)
    if annotator is None:
        agree = (counts * (counts - 1.0) / 2.0).sum(axis=1)
        total = per_unit * (per_unit - 1.0) / 2.0
    else:
        j = units.annotators.index(annotator) if annotator in units.annotators else -1
        mine = codes[:, j] if j >= 0 else np.full(codes.shape[0], -1)
        has = mine >= 0
        same = np.where(has, counts[np.arange(codes.shape[0]), np.maximum(mine, 0)] - 1.0,
                        0.0)
        agree = same
        total = np.where(has, per_unit - 1.0, 0.0)
    pairs = np.bincount(unit_row, weights=total, minlength=k)
    sum_agree = np.bincount(unit_row, weights=agree, minlength=k)
    return _rows(scheme, kind, item_names, list(units.annotators), answered,
                 pairs, sum_agree, None, annotator)


# --------------------------------------------------------------------------- spans


def _from_spans(scheme: str, kind: str, details: SpanDetails, annotator: str | None
                ) -> ItemScores:
    """Spans: a pair's score is its partial span F1 (Potato's rule), ``count_diff`` the
    difference of the two annotators' span counts."""
    table, values = details.table, details.metrics.pair_values
    names = list(table.annotators)
    answered = np.zeros((table.n_items, len(names)), dtype=bool)
    answered[table.member_item, table.member_annotator] = True
    k = table.n_items
    if not values:
        empty = np.zeros(k)
        return _rows(scheme, kind, list(table.item_ids), names, answered, empty, empty,
                     empty, annotator)
    item, score = values["item"], values["span_f1_partial"]
    diff = np.abs(values["n_a"] - values["n_b"]).astype(np.float64)
    if annotator is not None:
        j = names.index(annotator) if annotator in names else -1
        keep = (values["a"] == j) | (values["b"] == j)
        item, score, diff = item[keep], score[keep], diff[keep]
    return _rows(scheme, kind, list(table.item_ids), names, answered,
                 np.bincount(item, minlength=k).astype(np.float64),
                 np.bincount(item, weights=score, minlength=k),
                 np.bincount(item, weights=diff, minlength=k), annotator)


def _from_volumes(scheme: str, kind: str, details: VolumeAgreement, annotator: str | None
                  ) -> ItemScores:
    """Volumes: a pair's score is its mean Dice over the labels with a value."""
    per_pair: dict[tuple[str, str, str], list[float]] = {}
    for c in details.comparisons:
        if c.dice is not None and (annotator is None or annotator in (c.a, c.b)):
            per_pair.setdefault((c.item, c.a, c.b), []).append(c.dice)
    items = sorted({c.item for c in details.comparisons})
    names = sorted({who for c in details.comparisons for who in (c.a, c.b)})
    row = {item: k for k, item in enumerate(items)}
    answered = np.zeros((len(items), len(names)), dtype=bool)
    for c in details.comparisons:
        answered[row[c.item], names.index(c.a)] = answered[row[c.item], names.index(c.b)] = True
    pairs, total = np.zeros(len(items)), np.zeros(len(items))
    for (item, _a, _b), values in per_pair.items():
        pairs[row[item]] += 1
        total[row[item]] += sum(values) / len(values)
    return _rows(scheme, kind, items, names, answered, pairs, total, None, annotator)


# --------------------------------------------------------------------------- common


def _ints(values: Iterable[int]) -> np.ndarray:
    return np.fromiter(values, dtype=np.int64)


def _holds(annotator: str) -> Callable[[Mapping[str, object]], bool]:
    return lambda by: annotator in by


def _rows(scheme: str, kind: str, item_names: list[str], annotators: list[str],
          answered: np.ndarray, pairs: np.ndarray, sum_score: np.ndarray,
          sum_diff: np.ndarray | None, annotator: str | None) -> ItemScores:
    keep = pairs > 0
    if annotator is not None:
        j = annotators.index(annotator) if annotator in annotators else -1
        keep &= answered[:, j] if j >= 0 else False
    idx = np.flatnonzero(keep)
    n = pairs[idx].astype(np.float64)
    score = sum_score[idx] / n
    diff = sum_diff[idx] / n if sum_diff is not None else np.full(idx.size, np.nan)
    return ItemScores(
        scheme=scheme, kind=kind,
        items=tuple(item_names[i] for i in idx),
        annotators=tuple(annotators),
        answered=answered[idx],
        score=score, count_diff=diff,
        n_pairs=np.rint(pairs[idx]).astype(np.int64),
        annotator=annotator,
    )

