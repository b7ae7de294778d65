"""The ``budget_first`` contract: what a budget of human labels could buy, projected from
the dev labels so far (``contracts.md``).

``evaluate_budget_first(spec, data, price_usd=None) -> KindOutcome`` promises nothing
about the labels; it never spends a look. For each error target on :data:`ERROR_GRID`
(0.01, 0.02, …, 0.20) it projects the share of the corpus machines could be certified to
label with the budget, and the width of the prevalence intervals at the end of the
budget; ``projection`` is the list of ``{"error", "share_certifiable",
"interval_width", "threshold"}``.

The projection (each choice with its reason; the spec leaves the method open):

- **Budget.** ``human_labels``, or ``⌊human_usd / price_usd⌋``: the price per label
  (``budgets.crowd_reward_usd``) is not in :class:`SchemaData`, so the engine passes it
  as ``price_usd``; the configuration already refuses ``human_usd`` without a price, so
  a missing one here is a caller's error (``ValueError``). The budget counts every
  calibration label, the ones already drawn included; a share ``dev_fraction`` of them
  goes to dev and the rest to cert.
- **Machine label**: the first tier, cheapest first, with a prediction for the item
  (:func:`app.core.contracts.kinds.ppi.delivered_labels`), one threshold on its
  confidence. This is a planning figure, not the cascade's per-tier rule. Unlike
  ``ppi``, it does *not* read the labels the current rules deliver: it projects which
  thresholds a budget could certify, so it must see every prediction, including those a
  current rule rejects ("before the budget is spent", when no rule exists yet, the two
  readings agree).
- **Certifiable at error e** with a grid threshold t (the ``selective_risk`` grid):
  at least :data:`MIN_ACCEPTED` = 10 dev labels accepted at t (the ``selective_risk``
  infeasibility rule's minimum), dev error at t at most e/2 (``selective_risk``'s dev
  choice), and the cert labels the budget would bring into the accepted region —
  ``budget · (1 − dev_fraction) · coverage(t)``, calibration draws being uniform — at
  least :func:`~app.core.contracts.statistics.binomial.cert_labels_needed` at the dev error rate and
  the **first** look's level (``look_level(1, 0.9)``: ``budget_first`` has no
  ``confidence`` key, so ``selective_risk``'s default 0.9 is used). The share is the
  largest such coverage (items whose confidence reaches t, over the whole population),
  0 when no threshold qualifies.
- **Errors** count every dev label once (a label is wrong when its loss is above the
  default tolerance 0.5); pairs with an undefined loss are left out.
- **Interval width**: the widest class's PPI++ (or Horvitz–Thompson) interval from the
  dev labels now, at confidence 0.9, scaled by ``√(n_now / n_end)`` with ``n_end`` the
  dev labels at the end of the budget (never fewer than now). It does not depend on the
  error target (PPI reads dev labels, whatever rule is certified); each row repeats it
  so that a row reads on its own. A mean (numeric schemes) instead of prevalences;
  ``None`` with ``interval_width_reason`` for families without labels or when the
  current interval is undefined.
- **Enough to project**: :data:`MIN_DEV_LABELS` = 30 dev labels on items with a machine
  label. Fewer is ``insufficient`` (``projection`` empty, ``more_dev_labels`` said);
  none at all is ``pending``. 30 is where a binomial error rate first has a usable
  normal approximation and the same minimum the alternative annotator test uses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from itertools import filterfalse
from typing import Any

import numpy as np

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.kinds.base import KindContext, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.kinds.ppi import GroupEstimate, Labelled, estimate_group
from app.core.contracts.labels.families import LABEL_FAMILIES, Family, loss_family
from app.core.contracts.labels.losses import DEFAULT_TOLERANCE, is_correct
from app.core.contracts.labels.machine_labels import machine_labels, population
from app.core.contracts.statistics.binomial import cert_labels_needed, threshold_grid
from app.core.contracts.statistics.looks import look_level

ERROR_GRID: tuple[float, ...] = tuple(round(k / 100, 2) for k in range(1, 21))
MIN_DEV_LABELS = 30
MIN_ACCEPTED = 10


def budget_labels(params: Mapping[str, Any], price_usd: float | None) -> int:
    """The budget as a number of human labels."""
    if params.get("human_labels") is not None:
        return int(params["human_labels"])
    usd = params.get("human_usd")
    if usd is None:
        raise ValueError("budget_first needs human_labels or human_usd")
    if price_usd is None or not price_usd > 0:
        raise ValueError("human_usd is priced at budgets.crowd_reward_usd: pass price_usd, "
                         "a positive price per label")
    return math.floor(float(usd) / float(price_usd) + 1e-9)


def _width(data: SchemaData, machine: Mapping[str, MachineLabel], n_end: int
           ) -> tuple[float | None, float | None, str | None]:
    """(width now, width at the end of the budget, reason when undefined)."""
    family = loss_family(data.scheme)
    if family not in LABEL_FAMILIES:
        return None, None, (f"a {family} schema has no label prevalences to estimate")
    # The few dev items and the many others, each in population order, selected in C.
    items = population(data)
    dev = {item: labels[0] for item, labels in data.dev.items() if labels}
    labelled = [Labelled(item, dev[item].label, m.label, dev[item].pi)
                for item in filter(dev.__contains__, items)
                if (m := machine.get(item)) is not None]
    unlabelled = [m.label for m in map(machine.get, filterfalse(dev.__contains__, items))
                  if m is not None]
    estimand = "mean" if family is Family.NUMERIC else "prevalence"
    group: GroupEstimate = estimate_group(data.scheme, estimand, labelled, unlabelled,
                                          data.dev_fraction, DEFAULT_CONFIDENCE)
    widths = []
    for est in group.estimates.values():
        if est.interval is None:
            return None, None, f"an interval is undefined now: {est.reason}"
        widths.append(est.interval[1] - est.interval[0])
    now = max(widths)
    n_now = len(labelled)
    return now, now * math.sqrt(n_now / max(n_now, n_end)), None


def evaluate_budget_first(spec: ContractSpec, data: SchemaData,
                          price_usd: float | None = None,
                          delivered: Mapping[str, MachineLabel] | None = None
                          ) -> KindOutcome:
    """Project certifiable shares and interval widths for the budget; see the module."""
    budget = budget_labels(spec.params, price_usd)
    notes: list[str] = []
    result: dict[str, Any] = {"budget_labels": budget, "projection": []}
    machine = machine_labels(data, delivered)
    # (confidence, correct) per dev label on an item with a machine label
    scored: list[tuple[float, bool]] = []
    undefined = 0
    for item in sorted(data.dev):
        m = machine.get(item)
        if m is None:
            continue
        for human in data.dev[item]:
            correct = is_correct(data.scheme, m.label, human.label, DEFAULT_TOLERANCE)
            if correct is None:
                undefined += 1
            else:
                scored.append((m.confidence, correct))
    if undefined:
        notes.append(f"{undefined} dev labels have an undefined loss and are not counted")
    n = len(scored)
    result["dev_labels"] = n
    if not any(data.dev.values()):
        notes.append("no dev labels yet: nothing to project from")
        return KindOutcome("pending", result, notes)
    if n < MIN_DEV_LABELS:
        result["more_dev_labels"] = MIN_DEV_LABELS - n
        notes.append(f"{n} dev labels with a machine label; a projection needs "
                     f"{MIN_DEV_LABELS}")
        return KindOutcome("insufficient", result, notes)

    items = population(data)
    members = set(items)
    confidences = [m.confidence for item, m in machine.items() if item in members]
    n_end = math.floor(budget * data.dev_fraction)
    now, width, reason = _width(data, machine, n_end)
    result["interval_width_now"] = now
    if reason is not None:
        result["interval_width_reason"] = reason
        notes.append(f"interval width: {reason}")
    level = look_level(1, DEFAULT_CONFIDENCE)
    cert_budget = budget * (1.0 - data.dev_fraction)
    # per grid threshold: (dev error rate among accepted dev labels, coverage)
    candidates: list[tuple[float, Fraction, float]] = []
    ordered = np.sort(np.asarray(confidences, dtype=np.float64))
    for t in threshold_grid():
        accepted = [ok for c, ok in scored if c >= t]
        if len(accepted) >= MIN_ACCEPTED:
            rate = Fraction(sum(not ok for ok in accepted), len(accepted))
            at_least = ordered.size - int(np.searchsorted(ordered, t, side="left"))
            candidates.append((t, rate, at_least / len(items)))
    needed_cache: dict[tuple[Fraction, float], int | None] = {}
    rows = []
    for error in ERROR_GRID:
        best, best_t = 0.0, None
        for t, rate, coverage in candidates:
            if rate > Fraction(str(error)) / 2:
                continue
            key = (rate, error)
            if key not in needed_cache:
                needed_cache[key] = cert_labels_needed(rate, error, level)
            need = needed_cache[key]
            if need is not None and need <= cert_budget * coverage and coverage > best:
                best, best_t = coverage, t
        rows.append({"error": error, "share_certifiable": best, "interval_width": width,
                     "threshold": best_t})
    result["projection"] = rows
    notes.append("budget_first projects from the dev labels so far; it promises nothing "
                 "about the labels")
    return KindOutcome("met", result, notes)


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the projection at the context's label price (the first
    tier's labels stand in: the projection plans before any rule is met)."""
    return evaluate_budget_first(spec, data, price_usd=context.price_usd)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``budget_first`` contract promises, in one sentence."""
    budget = (f"{params['human_labels']} human labels" if params.get("human_labels")
              else f"{params.get('human_usd')} USD of human labels")
    return (f"a projection of what {budget} can certify on '{schema}'; it promises "
            "nothing about the labels")
