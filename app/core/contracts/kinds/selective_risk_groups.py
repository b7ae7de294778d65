"""The pieces of ``selective_risk`` below the verdict: groups, counts, the dev choice.

A **group** is what one threshold governs: a cascade tier, or a tier and a predicted
class with ``per_class``. Each group sees the items that reach it (with a prediction of
its tier, of its class, and not accepted by an earlier tier's tested rule) and counts,
at every threshold of the fixed grid, how many dev labels, dev errors, cert items and
population items it accepts. :func:`dev_choice` then applies the rules of
``contracts.md`` (Precise rules → selective_risk) to one group, reading dev labels and
cert *confidences* only, never a cert human label; :mod:`app.core.contracts.kinds.selective_risk`
runs the tests and assembles the outcome.

Everything here is pure and deterministic, and counts are integers throughout (numpy
``int64`` arrays or Python ints; rates are :class:`fractions.Fraction`), so no error
count is ever rebuilt from a float rate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import compress
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.contracts.kinds.base import HumanLabel, MachineLabel
from app.core.contracts.labels.losses import is_correct
from app.core.contracts.statistics.binomial import (
    binomial_lower_bound,
    cert_labels_needed,
    threshold_grid,
)
from app.core.contracts.statistics.distributions import binom_cdf
from app.core.model import Answer, Scheme

GRID: npt.NDArray[np.float64] = np.array(threshold_grid(), dtype=np.float64)
"""1.00, 0.99, …, 0.00: index j is the threshold ``GRID[j]``, larger j more permissive."""

MIN_DEV_FOR_INFEASIBLE = 10
"""A threshold speaks for infeasibility only when it accepts at least this many dev
labels (``contracts.md``: "at every grid threshold accepting at least 10 dev labels")."""

PI_RELATIVE_TOLERANCE = 1e-9
"""Inclusion probabilities within this relative distance count as equal (they are
floats read from JSON; a uniform draw writes the same number on every line)."""

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
GroupKey = tuple[str, str | None]
"""(tier, predicted class or ``None`` without ``per_class``)."""


def decimal(value: float) -> Fraction:
    """The number the user wrote: ``0.1`` is exactly 1/10 here, not the double above it.

    Rates are exact fractions of counts; comparing 1/10 with the double 0.1
    (0.1000000000000000055…) would call a dev error of 1 in 10 "below 0.1". Reading the
    target through its shortest repr keeps "dev error at most error / 2" and "rate below
    the target" exact.
    """
    return Fraction(repr(float(value)))


def majority_correct(scheme: Scheme, machine: Answer, humans: Sequence[HumanLabel],
                     tolerance: float) -> bool | None:
    """Whether the machine label is right on an item labelled by ``humans``.

    The **item** is the unit (items are drawn at random; the people on an item are not,
    and counting each person as a unit would treat correlated labels as independent
    draws and overstate the evidence). The label is correct when it is correct
    (:func:`is_correct`) against a strict majority of the people whose comparison is
    defined; a tie counts as an error, so disagreement among people can only make a
    test harder to pass. ``None`` (no evidence either way) when no comparison is defined,
    as for a trace sharing no labelled step with anyone.
    """
    verdicts = [is_correct(scheme, machine, h.label, tolerance) for h in humans]
    defined = [v for v in verdicts if v is not None]
    if not defined:
        return None
    return 2 * sum(defined) > len(defined)


def answer_json(value: Any) -> Any:
    """A JSON value for an answer, the same for equal answers (for the ledger's hash).

    Strings stay, sets become sorted lists, dataclasses (spans, boxes, traces) become
    objects with their type name, mappings and tuples recurse, numpy arrays become
    lists.
    """
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, frozenset | set):
        return sorted((answer_json(v) for v in value), key=repr)
    if is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__,
                **{f.name: answer_json(getattr(value, f.name)) for f in fields(value)}}
    if isinstance(value, Mapping):
        return {str(k): answer_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [answer_json(v) for v in value]
    to_list = getattr(value, "tolist", None)
    if callable(to_list):
        return to_list()
    return repr(value)


def class_of(label: Answer) -> str:
    """The predicted class of a single-label answer, as the engine reads it
    (``str(machine.label)``)."""
    return str(label)


@dataclass(slots=True)
class Group:
    """One tier (and class): the items reaching it and its counts on the grid."""

    tier: str
    cls: str | None
    dev: list[tuple[float, bool]] = field(default_factory=list)
    """(confidence, error) of dev items reaching the group with a defined verdict."""
    cert_conf: list[float] = field(default_factory=list)
    """Confidences of every cert item reaching the group (the dev choice reads these)."""
    cert: list[tuple[str, float, bool]] = field(default_factory=list)
    """(item, confidence, error) of cert items with a defined verdict (the test reads these)."""
    cert_ids: list[str] = field(default_factory=list)
    """Every cert item reaching the group (what a test of it reads, for the data hash)."""
    cert_pi: list[tuple[float, float]] = field(default_factory=list)
    """(confidence, pi) of every cert label reaching the group."""
    pop_conf: list[float] = field(default_factory=list)
    """Confidences of the population items reaching the group (coverage)."""
    memo: dict[str, tuple[IntArray, IntArray]] = field(default_factory=dict, repr=False)
    """Grid counts, computed once (the group is filled before any count is read)."""

    @property
    def key(self) -> GroupKey:
        return (self.tier, self.cls)

    def name(self) -> str:
        return f"tier '{self.tier}'" + ("" if self.cls is None else f", class '{self.cls}'")

    def dev_counts(self) -> tuple[IntArray, IntArray]:
        """(labels, errors) accepted at each grid threshold, on dev."""
        if "dev" not in self.memo:
            conf = np.array([c for c, _ in self.dev], dtype=np.float64)
            err = np.array([e for _, e in self.dev], dtype=bool)
            accepted = conf[:, None] >= GRID[None, :]
            self.memo["dev"] = (accepted.sum(axis=0).astype(np.int64),
                                (accepted & err[:, None]).sum(axis=0).astype(np.int64))
        return self.memo["dev"]

    def cert_counts(self) -> IntArray:
        """Cert items (any verdict) accepted at each grid threshold: confidences only."""
        if "cert" not in self.memo:
            counts = _accepted_counts(self.cert_conf)
            self.memo["cert"] = (counts, counts)
        return self.memo["cert"][0]

    def population_at(self) -> IntArray:
        """Population items accepted at each grid threshold."""
        if "population" not in self.memo:
            counts = _accepted_counts(self.pop_conf)
            self.memo["population"] = (counts, counts)
        return self.memo["population"][0]

    def cert_test(self, j: int) -> tuple[int, int]:
        """(n, errors) of the cert labels accepted at grid index ``j``: integer counts."""
        t = GRID[j]
        accepted = [e for _, c, e in self.cert if c >= t]
        return len(accepted), sum(accepted)

    def uniform_at(self, j: int) -> bool:
        """Whether the cert items accepted at grid index ``j`` (the ones a test there
        reads) were drawn with equal inclusion probabilities."""
        t = GRID[j]
        pis = [pi for c, pi in self.cert_pi if c >= t]
        if not pis:
            return True
        low, high = min(pis), max(pis)
        return high - low <= PI_RELATIVE_TOLERANCE * max(abs(high), 1e-300)


def _accepted_counts(confidences: Sequence[float]) -> IntArray:
    conf = np.array(confidences, dtype=np.float64)
    counts: IntArray = (conf[:, None] >= GRID[None, :]).sum(axis=0).astype(np.int64)
    return counts


@dataclass(frozen=True, slots=True)
class Projection:
    """Labels still needed at one threshold (``contracts.md``: ``projection``)."""

    threshold: float
    cert_labels_needed: int
    requests_needed: int

    def to_json(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "cert_labels_needed": self.cert_labels_needed,
                "requests_needed": self.requests_needed}


@dataclass(frozen=True, slots=True)
class Choice:
    """The dev verdict on one group.

    ``status``: ``chosen`` (``index`` is the grid index of the dev choice),
    ``needs_labels`` (some threshold is selectable but the cert labels present are not
    expected to pass; ``candidates`` are the selectable grid indices), ``between``
    (lowest dev error in (error/2, error]), ``above`` (lowest dev error above error),
    ``infeasible``, or ``no_dev`` (no dev label reaches the group).
    """

    status: str
    index: int | None = None
    lowest: Fraction | None = None
    candidates: tuple[int, ...] = ()


def dev_choice(group: Group, error: float, confidence: float, level: float) -> Choice:
    """Apply the dev rules of ``contracts.md`` to one group.

    The choice is the most permissive grid threshold whose dev error is at most
    ``error / 2`` and at which the cert labels present would be expected to pass at
    ``level`` (the first look's level, split over the groups): expected errors =
    ⌊dev error rate × cert items accepted⌋, an exact integer. Without one, the group is
    infeasible when every threshold accepting at least 10 dev labels has its exact lower
    confidence bound above ``error``; otherwise the lowest dev error decides between
    ``above``, ``between`` and ``needs_labels``. A threshold accepting no dev label has
    no dev error and is never selectable.
    """
    n_dev, k_dev = group.dev_counts()
    if not n_dev.any():
        return Choice("no_dev")
    n_cert = group.cert_counts()
    target = decimal(error)
    # dev error k/n at most target/2, in integers: 2·k·den ≤ num·n.
    ok_rate = (n_dev > 0) & (2 * k_dev * target.denominator <= target.numerator * n_dev)
    selectable = [int(j) for j in np.flatnonzero(ok_rate)]
    if selectable:
        sel = np.array(selectable, dtype=np.int64)
        nc = n_cert[sel]
        expected = (k_dev[sel] * nc) // n_dev[sel]
        p = binom_cdf(expected, nc, error)
        ok = (nc > 0) & (p <= level)
        if ok.any():
            return Choice("chosen", index=int(sel[np.flatnonzero(ok)[-1]]))
    lowest = min(Fraction(int(k), int(n)) for k, n in zip(k_dev, n_dev, strict=True) if n > 0)
    if _infeasible(n_dev, k_dev, error, confidence):
        return Choice("infeasible", lowest=lowest)
    if lowest > target:
        return Choice("above", lowest=lowest)
    if 2 * lowest > target:
        return Choice("between", lowest=lowest)
    return Choice("needs_labels", lowest=lowest, candidates=tuple(selectable))


def _infeasible(n_dev: IntArray, k_dev: IntArray, error: float, confidence: float) -> bool:
    pairs = {(int(k), int(n)) for k, n in zip(k_dev, n_dev, strict=True)
             if n >= MIN_DEV_FOR_INFEASIBLE}
    return bool(pairs) and all(binomial_lower_bound(k, n, confidence) > error
                               for k, n in pairs)


def project(group: Group, j: int, errors: int, labels: int, error: float, level: float,
            population: int, dev_fraction: float) -> Projection | None:
    """How many cert labels at grid index ``j`` a test at ``level`` would need.

    ``errors / labels`` is the rate assumed (dev, or dev and cert together after a
    failed test). ``cert_labels_needed`` is the smallest number of cert labels at that
    threshold that would pass; ``requests_needed`` the calibration requests still to
    draw for the missing ones: (needed − cert items already accepted there) divided by
    the threshold's coverage of the population and by ``1 − dev_fraction``, rounded
    up. ``None`` when no number of labels can pass or nothing would be accepted.
    """
    if labels <= 0 or population <= 0 or dev_fraction >= 1:
        return None
    rate = Fraction(errors, labels)
    if rate >= decimal(error):
        return None  # no number of labels can pass (checked exactly, see decimal())
    needed = _needed(rate, error, level)
    coverage = Fraction(int(group.population_at()[j]), population)
    if needed is None or coverage == 0:
        return None
    have = int(group.cert_counts()[j])
    missing = max(0, needed - have)
    share = coverage * (1 - Fraction(dev_fraction))
    return Projection(float(GRID[j]), needed, math.ceil(Fraction(missing) / share))


@lru_cache(maxsize=4096)
def _needed(rate: Fraction, error: float, level: float) -> int | None:
    """:func:`cert_labels_needed`, remembered: many thresholds share one dev rate."""
    return cert_labels_needed(rate, error, level)


def build_groups(scheme: Scheme, tier: str, per_class: bool, reach: Sequence[str],
                 predictions: Mapping[str, MachineLabel],
                 dev: Mapping[str, tuple[HumanLabel, ...]],
                 cert: Mapping[str, tuple[HumanLabel, ...]],
                 population: frozenset[str], tolerance: float) -> dict[GroupKey, Group]:
    """The groups of one tier over the items in ``reach`` (not accepted earlier).

    Dev and cert items enter with their majority verdict; population items (those of
    ``population``) with their confidence only.
    """
    groups: dict[GroupKey, Group] = {}
    if not per_class:
        return _one_group(scheme, tier, reach, predictions, dev, cert, population, tolerance)
    for item in reach:
        machine = predictions.get(item)
        if machine is None:
            continue
        cls = class_of(machine.label)
        group = groups.setdefault((tier, cls), Group(tier, cls))
        if item in population:
            group.pop_conf.append(float(machine.confidence))
        _add_labelled(group, scheme, item, machine, dev, cert, tolerance)
    return groups


def _add_labelled(group: Group, scheme: Scheme, item: str, machine: MachineLabel,
                  dev: Mapping[str, tuple[HumanLabel, ...]],
                  cert: Mapping[str, tuple[HumanLabel, ...]], tolerance: float) -> None:
    """Record ``item``'s dev and cert verdicts (majority of its people) in ``group``."""
    conf = float(machine.confidence)
    humans = dev.get(item)
    if humans:
        verdict = majority_correct(scheme, machine.label, humans, tolerance)
        if verdict is not None:
            group.dev.append((conf, not verdict))
    humans = cert.get(item)
    if humans:
        group.cert_conf.append(conf)
        group.cert_ids.append(item)
        group.cert_pi.extend((conf, h.pi) for h in humans)
        verdict = majority_correct(scheme, machine.label, humans, tolerance)
        if verdict is not None:
            group.cert.append((item, conf, not verdict))


_CONFIDENCE = attrgetter("confidence")


def _one_group(scheme: Scheme, tier: str, reach: Sequence[str],
               predictions: Mapping[str, MachineLabel],
               dev: Mapping[str, tuple[HumanLabel, ...]],
               cert: Mapping[str, tuple[HumanLabel, ...]],
               population: frozenset[str], tolerance: float) -> dict[GroupKey, Group]:
    """:func:`build_groups` without ``per_class``: one group, the same lists in the same
    order, with the population's confidences gathered in one pass and the few labelled
    items visited on their own (100,000 items, a few thousand labelled)."""
    # Gathered in C (compress, map): the items of ``reach`` with a prediction, in order.
    items = list(compress(reach, map(predictions.__contains__, reach)))
    if not items:
        return {}
    group = Group(tier, None)
    machines = map(predictions.__getitem__, compress(items, map(population.__contains__, items)))
    group.pop_conf.extend(map(float, map(_CONFIDENCE, machines)))
    labelled = dev.keys() | cert.keys()
    for item in compress(items, map(labelled.__contains__, items)):
        _add_labelled(group, scheme, item, predictions[item], dev, cert, tolerance)
    return {(tier, None): group}
