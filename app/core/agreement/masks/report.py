"""Masks in a report: whose boundary to trust, by STAPLE (``agreement.md``, Masks).

STAPLE runs per item and label over the annotators who answered the item; an
annotator's masks of one label on an item are OR-ed, and an annotator who answered the
item without drawing that label contributes an empty mask (they said the region is not
there). Reported per annotator: **sensitivity** (low: under-segments) and
**specificity** (low: over-segments), never a single accuracy.

Per-annotator values are means over the (item, label) runs the annotator took part in
(a choice: ``agreement.md`` says "the items that annotator marked"; counting every run
they answered keeps an annotator who missed a region from looking perfect). Masks of
different sizes on one item cannot be compared: that item is skipped and counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from app.core.agreement.coefficient import Coefficient
from app.core.agreement.masks.staple import StapleResult, dice, majority_vote, staple
from app.core.agreement.result import SchemeResult
from app.core.model import Answer
from app.core.objects import Mask, ObjectSet
from app.core.progress import Job, Progress

MAX_ITERATIONS = 100_000
"""ITK's cap is 2³²; a desktop report needs one it can reach. EM iterations here cost
microseconds (pixels are grouped by which raters marked them), so 100,000 takes
seconds at most; a run that stops there is counted in the report."""


@dataclass(frozen=True, slots=True)
class MaskRun:
    """STAPLE on one item and label: the estimates and the consensus mask (h × w).

    Only the consensus is kept, not the per-pixel probabilities or the raters' masks, so
    a study of many large masks does not hold them all.
    """

    item: str
    label: str
    annotators: tuple[str, ...]
    sensitivity: np.ndarray
    specificity: np.ndarray
    consensus: np.ndarray

    @classmethod
    def of(cls, item: str, label: str, annotators: tuple[str, ...], shape: tuple[int, int],
           result: StapleResult) -> MaskRun:
        return cls(item, label, annotators, np.asarray(result.sensitivity),
                   np.asarray(result.specificity), result.consensus().reshape(shape))


@dataclass(frozen=True, slots=True)
class TruthDice:
    """Dice against a given truth of the STAPLE consensus and of the majority vote."""

    item: str
    label: str
    staple: float | None
    majority: float | None


@dataclass(slots=True)
class MaskAgreement:
    runs: list[MaskRun] = field(default_factory=list)
    items_scored: list[str] = field(default_factory=list)
    items_size_mismatch: list[str] = field(default_factory=list)
    truth: str | None = None
    dice: list[TruthDice] = field(default_factory=list)
    not_converged: list[str] = field(default_factory=list)


def mask_agreement(answers: Mapping[str, Mapping[str, Answer]], truth: str | None = None
                   ) -> Job[MaskAgreement]:
    """STAPLE per item and label. ``truth`` names an annotator whose masks are the known
    truth: they are left out of STAPLE and the consensus and majority vote are scored
    against them (Dice), as in ``agreement.md``'s reference case."""
    out = MaskAgreement(truth=truth)
    items = sorted(i for i, by in answers.items()
                   if len([n for n in by if n != truth]) >= 2)
    for k, item in enumerate(items):
        if k % 50 == 0:
            yield Progress(k, len(items), f"STAPLE on item {k + 1} of {len(items)}")
        truth_answer = answers[item].get(truth) if truth is not None else None
        truth_masks = (truth_answer.of_type(Mask) if isinstance(truth_answer, ObjectSet)
                       else None)
        masks = {name: a.of_type(Mask) for name, a in sorted(answers[item].items())
                 if isinstance(a, ObjectSet) and name != truth}
        drawn = [m for ms in masks.values() for m in ms if isinstance(m, Mask)]
        if len(masks) < 2 or not drawn:
            continue
        shapes = {(m.height, m.width) for m in drawn + [
            m for m in truth_masks or () if isinstance(m, Mask)]}
        if len(shapes) > 1:
            out.items_size_mismatch.append(item)
            continue
        (shape,) = shapes
        out.items_scored.append(item)
        names = tuple(masks)
        for label in sorted({m.label for m in drawn}):
            decisions = np.zeros((len(names), shape[0] * shape[1]), dtype=bool)
            for r, name in enumerate(names):
                for m in masks[name]:
                    if isinstance(m, Mask) and m.label == label:
                        decisions[r] |= m.to_array().ravel()
            result = staple(decisions, max_iterations=MAX_ITERATIONS)
            if not result.converged:
                out.not_converged.append(f"{item}/{label}")
            out.runs.append(MaskRun.of(item, label, names, shape, result))
            if truth_masks is not None:
                known = np.zeros(shape[0] * shape[1], dtype=bool)
                for m in truth_masks:
                    if isinstance(m, Mask) and m.label == label:
                        known |= m.to_array().ravel()
                out.dice.append(TruthDice(item, label, dice(result.consensus(), known).value,
                                          dice(majority_vote(decisions), known).value))
    return out


def fill_mask_metrics(result: SchemeResult, agreement: MaskAgreement) -> None:
    sensitivity: dict[str, list[float]] = {}
    specificity: dict[str, list[float]] = {}
    for run in agreement.runs:
        for r, name in enumerate(run.annotators):
            # NaN marks an estimate with nothing to measure on (a label covering the whole
            # image has no background): left out of that annotator's mean.
            if np.isfinite(run.sensitivity[r]):
                sensitivity.setdefault(name, []).append(float(run.sensitivity[r]))
            if np.isfinite(run.specificity[r]):
                specificity.setdefault(name, []).append(float(run.specificity[r]))
    result.n_items = len(agreement.items_scored)
    result.n_pairs = sum(len(list(combinations(range(len(names)), 2))) for names in
                         {run.item: run.annotators for run in agreement.runs}.values())
    result.extra["n_runs"] = len(agreement.runs)
    mismatched = len(agreement.items_size_mismatch)
    result.n_items_skipped += mismatched
    if mismatched:
        result.coverage["n_items_mask_size_mismatch"] = mismatched
        result.notes.append(f"{mismatched} items hold masks of different sizes and were "
                            "skipped.")
    if agreement.truth is not None:
        _truth_summary(result, agreement)
    if agreement.not_converged:
        result.extra["n_runs_not_converged"] = len(agreement.not_converged)
        result.notes.append(f"STAPLE stopped at {MAX_ITERATIONS:,} iterations before "
                            f"converging on {len(agreement.not_converged)} item/label runs.")
    names = sorted(set(sensitivity) | set(specificity))
    result.extra["annotators"] = {
        name: {"sensitivity": _mean(sensitivity.get(name)),
               "specificity": _mean(specificity.get(name)),
               "n_runs": sum(1 for run in agreement.runs if name in run.annotators)}
        for name in names}
    for metric, values in (("mean_sensitivity", sensitivity), ("mean_specificity",
                                                                specificity)):
        means = [m for m in (_mean(v) for v in values.values()) if m is not None]
        result.put(metric, Coefficient.of(float(np.mean(means))) if means else
                   Coefficient.undefined(_NO_ESTIMATE[metric] if agreement.runs else
                                         "no item has masks from two or more annotators"))
    result.notes.append("STAPLE (Warfield, Zou, Wells 2004) per item and label, prior fixed "
                        "at the mean vote fraction as in ITK")


def _truth_summary(result: SchemeResult, agreement: MaskAgreement) -> None:
    staple_dice = [d.staple for d in agreement.dice if d.staple is not None]
    majority_dice = [d.majority for d in agreement.dice if d.majority is not None]
    result.extra["truth"] = {
        "annotator": agreement.truth,
        "n_runs": len(agreement.dice),
        "mean_dice_staple": float(np.mean(staple_dice)) if staple_dice else None,
        "mean_dice_majority": float(np.mean(majority_dice)) if majority_dice else None,
    }
    if not agreement.dice:
        result.notes.append(f"the truth annotator '{agreement.truth}' has no masks on the "
                            "scored items: no Dice against the truth")


_NO_ESTIMATE = {
    "mean_sensitivity": "no run had foreground to measure sensitivity on",
    "mean_specificity": "no run had background to measure specificity on: every rater "
                        "marked every pixel",
}


def _mean(values: list[float] | None) -> float | None:
    return float(np.mean(values)) if values else None
