"""Error versus coverage by threshold, for the contracts panel's ``selective_risk`` plot.

For each cascade tier and each threshold of the fixed grid (1.00, 0.99, …, 0.00, and
the rule's own thresholds): the share of the population the tier would accept at that
threshold (coverage) and the error among the **dev** labels it would accept (dev
error). The trade-off the dev choice reads, drawn for the person deciding whether to
certify.

Why dev only: cert labels test the chosen rule and nothing else (``contracts.md``,
Precise rules → Which labels). A curve of cert errors by threshold would be a free
look at the test data; the panel shows the tests' own cert counts from the stored
result (``result.tests``) and nothing more of cert.

Choices where the spec is silent:

- **Routing.** Tiers are read in cascade order; the items a tier's rule in the result
  accepts (``result.rule``, per class when ``per_class``) do not reach the next tier,
  as the engine routes them. With no rule (the contract not met) every item reaches
  every tier. So at a met tier's threshold the coverage equals ``accepted_by_tier``.
- **Coverage** is over the whole population (``SchemaData.items``), like
  ``accepted_by_tier``; it reads machine confidences only, never a human label.
- **Dev error**: an item is right when its machine label is correct against a strict
  majority of its dev people (:func:`majority_correct`, with the contract's
  ``tolerance``, else Potato's default for the family); an item with no defined verdict
  is left out. (The test itself uses the majority truth, ties to the first person;
  this curve is a picture of the trade-off, drawn the stricter way.) A
  threshold that accepts no dev label has no dev error (NaN, drawn as a gap).
- Classes are not separated (one curve per tier); with ``per_class`` the routing still
  applies each class's threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.core.contracts.config.contract_specs import ContractSpec
from app.core.contracts.kinds.base import HumanLabel, MachineLabel, SchemaData
from app.core.contracts.labels.families import default_tolerance
from app.core.contracts.labels.losses import is_correct
from app.core.contracts.statistics.binomial import threshold_grid
from app.core.model import Answer, Scheme
from app.core.slices import SLICE as _SLICE
from app.core.slices import list_in_slices, tolist_in_slices

GRID: np.ndarray = np.array(threshold_grid(), dtype=np.float64)
"""1.00, 0.99, …, 0.00: the thresholds the curve is drawn at."""


def class_of(label: Answer) -> str:
    """The predicted class of a single-label answer, as the engine reads it."""
    return str(label)


def majority_correct(scheme: Scheme, machine: Answer, humans: Sequence[HumanLabel],
                     tolerance: float) -> bool | None:
    """Whether the machine label is correct against a strict majority of the people whose
    comparison is defined (a tie is an error); ``None`` when none is defined."""
    verdicts = [is_correct(scheme, machine, h.label, tolerance) for h in humans]
    defined = [v for v in verdicts if v is not None]
    if not defined:
        return None
    return 2 * sum(defined) > len(defined)


@dataclass(frozen=True, slots=True)
class TierCurve:
    tier: str
    thresholds: np.ndarray
    """The grid, most strict first."""
    coverage: np.ndarray
    """Share of the population this tier accepts at each threshold, after routing."""
    dev_error: np.ndarray
    """Error among accepted dev labels at each threshold (NaN where none is accepted)."""
    n_dev: np.ndarray
    """Accepted dev items with a defined verdict at each threshold."""


def _threshold(rule: Mapping[str, Any], tier: str, label: Answer) -> float | None:
    """The rule's threshold for ``label`` on ``tier``: Potato's ``{tier: {class or "*":
    threshold}}`` (or a plain number per tier)."""
    value = rule.get(tier)
    if isinstance(value, Mapping):
        value = value.get(class_of(label), value.get("*"))
    return None if value is None else float(value)


def _grid(rule: Mapping[str, Any]) -> np.ndarray:
    """The fixed grid with the rule's own thresholds added (Potato's thresholds are dev
    confidences, not two-decimal values), most strict first."""
    extra = {float(t) for v in rule.values()
             for t in (v.values() if isinstance(v, Mapping) else [v]) if t is not None}
    return np.array(sorted(set(GRID.tolist()) | extra, reverse=True), dtype=np.float64)


def _tier_thresholds(rule: Mapping[str, Any], tier: str,
                     machines: Sequence[MachineLabel | None]) -> np.ndarray:
    """Per item, the rule's threshold on ``tier`` for its predicted class (NaN: none, or
    no prediction); each distinct class is looked up once. Read from the predictions
    themselves: a list of their labels first was a million-entry list grown in steps,
    the last of which copied 8 MB with the interpreter lock held."""
    by_class: dict[str, float] = {}
    out = np.full(len(machines), np.nan)
    for k, machine in enumerate(machines):
        if machine is None:
            continue
        label = machine.label
        name = class_of(label)
        t = by_class.get(name)
        if t is None:
            found = _threshold(rule, tier, label)
            t = by_class[name] = np.nan if found is None else found
        out[k] = t
    return out


def error_coverage_curves(spec: ContractSpec, data: SchemaData,
                          rule: Mapping[str, Any] | None = None) -> list[TierCurve]:
    """One :class:`TierCurve` per tier of ``data``'s cascade, routed by ``rule``.

    Array work per tier (the contracts panel of a 100,000-item study took 2.4 s in a
    per-item loop): the confidences of the items that reach the tier, one threshold per
    distinct class for the routing, and the majority verdicts of the dev items only."""
    raw = spec.params.get("tolerance")
    tolerance = default_tolerance(data.scheme) if raw is None else float(raw)
    rule = rule or {}
    grid = _grid(rule)
    population = len(data.items)
    reach: list[str] = list_in_slices(data.items)
    dev_items = [item for item in data.items if data.dev.get(item)]
    dev_set = set(dev_items)  # not a set of a million items per tier (a GUI stall)
    curves: list[TierCurve] = []
    for tier in data.tiers:
        predictions = data.predictions.get(tier, {})
        machines = [predictions.get(item) for item in reach]
        present = np.fromiter((m is not None for m in machines), dtype=bool,
                              count=len(machines))
        confidence = np.fromiter((np.nan if m is None else m.confidence for m in machines),
                                 dtype=np.float64, count=len(machines))
        reaching = set().union(*(  # only dev items are asked about; short C calls
            dev_set.intersection(reach[start:start + _SLICE])
            for start in range(0, len(reach), _SLICE)))
        dev_conf: list[float] = []
        dev_wrong: list[bool] = []
        for item in dev_items:
            machine = predictions.get(item)
            if machine is None or item not in reaching:
                continue
            verdict = majority_correct(data.scheme, machine.label, data.dev[item], tolerance)
            if verdict is not None:
                dev_conf.append(machine.confidence)
                dev_wrong.append(not verdict)
        conf = np.array(dev_conf, dtype=np.float64)
        wrong = np.array(dev_wrong, dtype=bool)
        accepted = conf[None, :] >= grid[:, None]
        n_dev = accepted.sum(axis=1)
        errors = (accepted & wrong[None, :]).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            dev_error = np.where(n_dev > 0, errors / np.maximum(n_dev, 1), np.nan)
        # coverage: how many reaching items have a confidence at or above each threshold
        ranked = np.sort(confidence[present])
        covered = ranked.size - np.searchsorted(ranked, grid, side="left")
        coverage = covered / population if population else np.zeros(grid.size)
        curves.append(TierCurve(tier, grid.copy(), coverage.astype(np.float64),
                                dev_error.astype(np.float64), n_dev.astype(np.int64)))
        thresholds = _tier_thresholds(rule, tier, machines)
        with np.errstate(invalid="ignore"):
            taken = present & (confidence >= thresholds)  # NaN (no threshold) takes none
        reach = [item for item, gone in zip(reach, tolist_in_slices(taken), strict=True)
                 if not gone]
    return curves
