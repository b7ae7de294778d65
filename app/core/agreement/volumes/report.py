"""Dice per label and its mean over a ``volume_annotation`` scheme (``kinds.md`` B §2.7).

As Potato 2.12.1's ``volume_report``: per item answered by ≥ 2 annotators whose answers
share one 3-D shape (else the item is skipped, and counted), every annotator pair, every
label of the scheme; Dice of a pair that painted neither is left out (``None``) and
counted (``kinds.md`` A.5); ``dice_by_label`` = mean over (item, pair) of the values,
``mean_dice`` = mean over labels that have one. Accord keeps the exact means; Potato
rounds both to 4 decimals, and the caller reports Potato's rounded ones beside them.

Where the spec is silent: per annotator pair (the pair matrix), the same construction on
that pair's own values: per label the mean over its items, then the mean over labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from app.core.agreement.volumes.dice import Intervals, dice, intervals
from app.core.model import VolumeMasks

DIFFERENT_SHAPES = "answers on different volume shapes (or none)"


@dataclass(slots=True)
class PairDice:
    """One (item, pair, label) comparison; ``dice`` ``None``: both painted nothing."""

    item: str
    a: str
    b: str
    label: str
    dice: float | None


@dataclass(slots=True)
class VolumeAgreement:
    labels: tuple[str, ...]
    dice_by_label: dict[str, float | None]
    mean_dice: float | None
    n_pairs_by_label: dict[str, int]
    n_pairs_both_empty: dict[str, int]
    n_items: int
    items_skipped: dict[str, str]
    comparisons: list[PairDice] = field(default_factory=list)
    pairs: dict[tuple[str, str], float | None] = field(default_factory=dict)
    pair_items: dict[tuple[str, str], int] = field(default_factory=dict)

    def item_dice(self, item: str) -> dict[str, float | None]:
        """Per label the mean Dice over the item's pairs (``None``: all both empty)."""
        return _means({lab: [c.dice for c in self.comparisons
                             if c.item == item and c.label == lab and c.dice is not None]
                       for lab in self.labels})


def _means(values: Mapping[str, Sequence[float | None]]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, vals in values.items():
        kept = [v for v in vals if v is not None]
        out[name] = sum(kept) / len(kept) if kept else None
    return out


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def volume_agreement(answers: Mapping[str, Mapping[str, VolumeMasks]],
                     labels: Sequence[str]) -> VolumeAgreement:
    """Score every item of ``answers`` (item → annotator → answer) on ``labels``."""
    names = tuple(dict.fromkeys(labels))
    found: dict[str, list[float | None]] = {n: [] for n in names}
    empty = dict.fromkeys(names, 0)
    skipped: dict[str, str] = {}
    comparisons: list[PairDice] = []
    per_pair: dict[tuple[str, str], dict[str, list[float | None]]] = {}
    pair_items: dict[tuple[str, str], int] = {}
    n_items = 0
    for item in sorted(answers):
        by = answers[item]
        if len(by) < 2:
            continue
        shapes = {v.shape for v in by.values()}
        shape = next(iter(shapes))
        if len(shapes) != 1 or shape is None:
            skipped[item] = DIFFERENT_SHAPES
            continue
        n_items += 1
        size = shape[0] * shape[1]
        runs: dict[str, dict[str, Intervals]] = {
            who: {n: intervals(v.masks.get(n, {}), size) for n in names}
            for who, v in by.items()}
        for a, b in combinations(sorted(by), 2):
            pair = per_pair.setdefault((a, b), {n: [] for n in names})
            pair_items[(a, b)] = pair_items.get((a, b), 0) + 1
            for name in names:
                value = dice(runs[a][name], runs[b][name])
                comparisons.append(PairDice(item, a, b, name, value))
                pair[name].append(value)
                if value is None:
                    empty[name] += 1
                else:
                    found[name].append(value)
    by_label = _means(found)
    return VolumeAgreement(
        labels=names, dice_by_label=by_label, mean_dice=_mean(list(by_label.values())),
        n_pairs_by_label={n: len(v) for n, v in found.items()}, n_pairs_both_empty=empty,
        n_items=n_items, items_skipped=skipped, comparisons=comparisons,
        pairs={p: _mean(list(_means(v).values())) for p, v in per_pair.items()},
        pair_items=pair_items)
