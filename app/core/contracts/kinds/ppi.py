"""The ``ppi`` contract: prediction-powered estimates of label prevalences or a mean.

``evaluate_ppi(spec, data) -> KindOutcome`` is a pure function of the contract and the
schema's data (``contracts.md``, sections ppi and Precise rules → Which labels). It reads
the **dev** labels only and never spends a look (``tested`` is ``False``).

The statistics are :mod:`app.core.contracts.statistics.ppi`'s: PPI++ with the power-tuned λ
(:func:`ppi_prevalence`, one λ for every class, or :func:`ppi_mean`) when every dev item
of a group was drawn with the same inclusion probability, and the Horvitz–Thompson
difference estimator (:func:`horvitz_thompson_difference`) with ``π = pi · dev_fraction``
when they differ.

Choices where the spec is silent (each with its reason):

- **Machine label** (``contracts.md``: "the machine label is the one the cascade would
  deliver"). The engine evaluates the gating contracts (``selective_risk``,
  ``threshold_legacy``) first and passes, as ``delivered``, the label the cascade
  delivers under their current rules for every item, a person's label on it ignored
  (dev items get the label the cascade *would* deliver, :func:`~app.core.contracts.
  labels.delivery.would_deliver`). The labelled set is then the dev items the cascade would
  label and the unlabelled set every other item it labels: both are drawn from the same
  items (the cascade's choice reads the machine's confidence only), so the estimate is
  valid for the prevalence **among the items the cascade labels**. A dev item the
  cascade would route to people has no ``Ŷ`` and is left out, with a note: keeping it
  with some tier's label would compare a labelled set drawn from the whole corpus with
  an unlabelled set drawn from the accepted items, and bias the estimate.
- **Before certification** (no gating contract met, none on the schema, or met rules
  that accept nothing: the cascade delivers nothing), ``delivered`` is ``None`` and the
  first tier (cheapest first) that has a prediction stands in
(:func:`~app.core.contracts.labels.machine_labels.delivered_labels`:
  what a cascade accepting everything delivers), with a note from the engine saying so.
  PPI is valid with any ``Ŷ`` that does not read the human labels, so this is an honest
  estimate of the corpus prevalence; refusing to estimate until a rule is certified
  would hide the one number a study wants first, and people alone (λ = 0) is what PPI++
  falls back to anyway when the machine does not help. Once a rule is met, the estimate
  is of the labels actually delivered.
- **Several people on one item.** ``Y`` is the *first* dev label listed for the item
  (the engine lists them in file order, so the first answered request), with its ``pi``.
  A majority vote would change the estimand between items labelled once and items
  labelled three times (the prevalence of a majority label is not the prevalence of a
  person's label) and needs a tie rule; the first label is a random person's label on
  every item, so one estimand holds throughout.
- **Unlabelled set.** Every item of the schema that is not dev-labelled and has a
  (delivered) machine label, cert items included with the label the cascade would
  deliver on them: their *human* labels are never read (cert only tests
  ``selective_risk``). A dev item without a machine label cannot enter the difference
  and is left out with a note.
- **Equal or unequal.** Decided per group (``by`` value): PPI++ needs the group's
  labelled items to be a uniform draw, which holds when every one of them had the same
  ``pi`` (compared with a relative tolerance of 1e-9, so a ``pi`` read back from JSON is
  not "different" by rounding). Multilabel prevalences are means of per-label
  indicators; they do not sum to 1, so λ is chosen once for every label by
  :func:`power_tuned_lambda` on the indicator matrix and each label then uses
  :func:`ppi_mean` with that λ.
- **Classes.** The scheme's labels (or its scale for likert and sliders), then any
  other label a person or the machine used, sorted, so that an unexpected label is
  counted rather than an error.
- **Means.** Numeric (slider) answers are their number; ordinal answers are their
  number when every scale value is a number, else their 1-based position on the scale.
- **Enough labels to report.** :data:`MIN_LABELS` = 10 labelled items per group (the
  spec's own reference example has 10) and a defined interval for every estimate;
  fewer is ``insufficient``. A normal interval from fewer items is not worth showing as
  a result.
- **Projection.** For an interval wider than ``max_width`` the dev labels needed assume
  the width shrinks as 1/√n: ``n · (width / max_width)²``; requests to draw divide the
  missing labels by ``dev_fraction`` and by the group's share of the population.
- **Items without the ``by`` field** are in no group; they are counted in a note.
- ``estimates`` holds ``{"estimate", "interval"}`` per label (``interval`` a pair, or
  ``None`` with the reason in ``notes``); the method, λ and sample sizes are under
  ``details`` (per group with ``by``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.kinds.base import KindContext, KindOutcome, MachineLabel, SchemaData
from app.core.contracts.labels.families import Family, loss_family
from app.core.contracts.labels.machine_labels import (
    dev_label_count,
    label_classes,
    machine_labels,
    population,
)
from app.core.contracts.statistics.ppi import (
    MeanEstimate,
    horvitz_thompson_difference,
    power_tuned_lambda,
    ppi_mean,
    ppi_prevalence,
)
from app.core.model import Answer, Scheme

#: Labelled items a group needs before its estimates are reported as a result.
MIN_LABELS = 10
PPI_PLUS_PLUS = "ppi++"
HORVITZ_THOMPSON = "horvitz_thompson"
_PI_TOLERANCE = 1e-9


def score(scheme: Scheme, answer: Answer) -> float:
    """The number a ``mean`` averages: the value, or the 1-based position on the scale."""
    text = str(answer)
    if loss_family(scheme) is Family.NUMERIC:
        return float(text)
    try:
        values = [float(v) for v in scheme.scale]
    except ValueError:
        return float(scheme.scale.index(text) + 1)
    return values[scheme.scale.index(text)] if scheme.scale else float(text)


@dataclass(frozen=True, slots=True)
class Labelled:
    """A dev-labelled item: the human label used, the machine's, and the item's ``pi``."""

    item: str
    y: Answer
    yhat: Answer
    pi: float


@dataclass(frozen=True, slots=True)
class GroupEstimate:
    """One group's estimates (the whole schema without ``by``).

    ``estimates`` maps a label (or ``"mean"``) to its :class:`MeanEstimate`; ``method``
    is :data:`PPI_PLUS_PLUS` or :data:`HORVITZ_THOMPSON`.
    """

    estimates: dict[str, MeanEstimate]
    method: str
    lam: float
    n_labelled: int
    n_unlabelled: int
    note: str | None


def _equal(pis: Sequence[float]) -> bool:
    return max(pis) - min(pis) <= _PI_TOLERANCE * max(pis)


def _indicator(answer: Answer, label: str) -> float:
    if isinstance(answer, frozenset):
        return 1.0 if label in answer else 0.0
    return 1.0 if answer == label else 0.0


def estimate_group(scheme: Scheme, estimand: str, labelled: Sequence[Labelled],
                   unlabelled: Sequence[Answer], dev_fraction: float, confidence: float
                   ) -> GroupEstimate:
    """PPI++ or Horvitz–Thompson estimates for one group with at least one label."""
    family = loss_family(scheme)
    ys = [u.y for u in labelled]
    yhats = [u.yhat for u in labelled]
    pis = [u.pi for u in labelled]
    n, big_n = len(labelled), len(unlabelled)
    equal = _equal(pis)
    if estimand == "mean":
        y = [score(scheme, a) for a in ys]
        yh = [score(scheme, a) for a in yhats]
        yu = [score(scheme, a) for a in unlabelled]
        if equal:
            est = ppi_mean(y, yh, yu, confidence)
            return GroupEstimate({"mean": est}, PPI_PLUS_PLUS, est.lam, n, big_n, est.note)
        est = horvitz_thompson_difference(yh + yu, y, yh, [p * dev_fraction for p in pis],
                                          confidence)
        return GroupEstimate({"mean": est}, HORVITZ_THOMPSON, 1.0, n, big_n, None)
    classes = label_classes(scheme, [*ys, *yhats, *unlabelled])
    if not equal:
        pi_dev = [p * dev_fraction for p in pis]
        out = {}
        for c in classes:
            y = [_indicator(a, c) for a in ys]
            yh = [_indicator(a, c) for a in yhats]
            yu = [_indicator(a, c) for a in unlabelled]
            out[c] = horvitz_thompson_difference(yh + yu, y, yh, pi_dev, confidence)
        return GroupEstimate(out, HORVITZ_THOMPSON, 1.0, n, big_n, None)
    if family is Family.MULTILABEL:
        def matrix(answers: Sequence[Answer]) -> npt.NDArray[np.float64]:
            return np.asarray([[_indicator(a, c) for c in classes] for a in answers],
                              dtype=np.float64).reshape(len(answers), len(classes))
        ym, yhm, yum = matrix(ys), matrix(yhats), matrix(unlabelled)
        lam, note = power_tuned_lambda(ym, yhm, yum)
        out = {c: ppi_mean(ym[:, j], yhm[:, j], yum[:, j], confidence, lam=lam)
               for j, c in enumerate(classes)}
        return GroupEstimate(out, PPI_PLUS_PLUS, lam, n, big_n, note)
    prev = ppi_prevalence([str(a) for a in ys], [str(a) for a in yhats],
                          [str(a) for a in unlabelled], classes, confidence)
    return GroupEstimate(dict(prev.by_class), PPI_PLUS_PLUS, prev.lam, n, big_n, prev.note)


@dataclass(slots=True)
class _Group:
    labelled: list[Labelled]
    unlabelled: list[Answer]
    size: int


def _split(data: SchemaData, machine: Mapping[str, MachineLabel], by: str | None,
           notes: list[str], delivered_only: bool = False) -> dict[str, _Group]:
    """Each group's labelled and unlabelled items, in population order.

    One pass over 100,000 items, so the loop is kept lean: look-ups bound to locals, the
    family test as one ``isinstance`` against the type a label of the family has (a
    multilabel answer is a ``frozenset``, any other a ``str``).
    """
    label_type = frozenset if loss_family(data.scheme) is Family.MULTILABEL else str
    groups: dict[str, _Group] = {}
    no_machine = no_field = bad_shape = 0
    dev_get = data.dev.get
    machine_get = machine.get
    fields_get = data.item_fields.get
    no_fields: Mapping[str, Any] = {}
    key = "all"
    for item in population(data):
        labels = dev_get(item)
        first = labels[0] if labels else None
        m = machine_get(item)
        if m is None:
            no_machine += first is not None
            continue
        if by is not None:
            value = fields_get(item, no_fields).get(by)
            if value is None:
                no_field += 1
                continue
            key = str(value)
        group = groups.get(key)
        if group is None:
            group = groups[key] = _Group([], [], 0)
        label = m.label
        if not isinstance(label, label_type) or (
                first is not None and not isinstance(first.label, label_type)):
            bad_shape += 1
            continue
        group.size += 1
        if first is None:
            group.unlabelled.append(label)
        else:
            group.labelled.append(Labelled(item, first.label, label, first.pi))
    if no_machine:
        what = ("no machine label the cascade would deliver" if delivered_only
                else "no machine label")
        notes.append(f"{no_machine} dev-labelled items have {what} and are left out of "
                     "the estimate")
    if no_field:
        notes.append(f"{no_field} items have no field '{by}' and are in no group")
    if bad_shape:
        notes.append(f"{bad_shape} items have a label that is not a label of this schema's "
                     "family and are left out")
    return groups


def _interval(est: MeanEstimate) -> list[float] | None:
    return None if est.interval is None else [est.interval[0], est.interval[1]]


def _labels_needed(group: GroupEstimate, max_width: float | None) -> tuple[int | None, bool]:
    """(dev labels the group needs, whether it is ready); ``None``: cannot project."""
    n = group.n_labelled
    needed = MIN_LABELS
    projectable = True
    ready = n >= MIN_LABELS
    for est in group.estimates.values():
        if est.interval is None:
            ready = False
            projectable = projectable and n < MIN_LABELS
            continue
        if max_width is not None:
            width = est.interval[1] - est.interval[0]
            if width > max_width:
                ready = False
                needed = max(needed, math.ceil(n * (width / max_width) ** 2 - 1e-9))
    return (needed if projectable else None), ready


def evaluate_ppi(spec: ContractSpec, data: SchemaData,
                 delivered: Mapping[str, MachineLabel] | None = None) -> KindOutcome:
    """Estimate prevalences (or a mean) with PPI++ or Horvitz–Thompson; see the module.

    ``met``: every group has at least :data:`MIN_LABELS` labelled items and every
    interval is defined and at most ``max_width`` (when given). ``pending``: no dev
    labels. ``insufficient`` otherwise, with a ``projection`` where one is possible.
    """
    params = spec.params
    estimand = str(params.get("estimand") or "prevalence")
    by = params.get("by")
    confidence = float(params.get("confidence") or DEFAULT_CONFIDENCE)
    max_width = params.get("max_width")
    notes: list[str] = []
    result: dict[str, Any] = {"estimand": estimand, "by": by, "confidence": confidence,
                              "max_width": max_width, "estimates": {}}
    if dev_label_count(data) == 0:
        notes.append("no dev labels yet: nothing to estimate")
        return KindOutcome("pending", result, notes)
    groups = _split(data, machine_labels(data, delivered), by, notes, delivered is not None)
    total = sum(g.size for g in groups.values()) or 1
    estimates: dict[str, Any] = {}
    details: dict[str, Any] = {}
    projection: dict[str, Any] = {}
    all_ready = bool(groups)
    for key in sorted(groups):
        group = groups[key]
        name = f"group '{key}'" if by is not None else "the schema"
        if not group.labelled:
            all_ready = False
            estimates[key] = {}
            details[key] = {"method": None, "lambda": None, "n_labelled": 0,
                            "n_unlabelled": len(group.unlabelled)}
            projection[key] = _projection(MIN_LABELS, 0, group.size / total,
                                          data.dev_fraction)
            notes.append(f"{name} has no dev-labelled item with a machine label")
            continue
        g = estimate_group(data.scheme, estimand, group.labelled, group.unlabelled,
                           data.dev_fraction, confidence)
        estimates[key] = {label: {"estimate": est.estimate, "interval": _interval(est)}
                          for label, est in g.estimates.items()}
        details[key] = {"method": g.method, "lambda": g.lam, "n_labelled": g.n_labelled,
                        "n_unlabelled": g.n_unlabelled}
        if g.note:
            notes.append(f"{name}: {g.note}")
        for label, est in g.estimates.items():
            if est.reason:
                notes.append(f"{name}, {label}: interval undefined: {est.reason}")
        needed, ready = _labels_needed(g, max_width)
        if not ready:
            all_ready = False
            if needed is not None:
                projection[key] = _projection(needed, g.n_labelled, group.size / total,
                                              data.dev_fraction)
    if not groups:
        notes.append("no item has both a machine label and a usable answer")
    if by is None:
        result["estimates"] = estimates.get("all", {})
        result["details"] = details.get("all", {})
    else:
        result["estimates"] = estimates
        result["details"] = details
    if all_ready:
        return KindOutcome("met", result, notes)
    if projection:
        result["projection"] = projection.get("all", {}) if by is None else projection
    if n_short := [k for k, d in details.items() if d["n_labelled"] < MIN_LABELS]:
        where = "" if by is None else f" (groups {', '.join(n_short)})"
        notes.append(f"fewer than {MIN_LABELS} dev-labelled items{where}: too few to report")
    return KindOutcome("insufficient", result, notes)


def _projection(needed: int, have: int, share: float, dev_fraction: float) -> dict[str, int]:
    more = max(0, needed - have)
    requests = math.ceil(more / (dev_fraction * share)) if share > 0 and more else 0
    return {"dev_labels_needed": needed, "more_dev_labels": more, "requests_needed": requests}


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the estimates on the delivered labels."""
    return evaluate_ppi(spec, data, context.delivered)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``ppi`` contract promises, in one sentence."""
    by = f" within each value of '{params['by']}'" if params.get("by") else ""
    width = (f", each interval at most {params['max_width']:g} wide"
             if params.get("max_width") is not None else "")
    return (f"the intervals for the {params.get('estimand', 'prevalence')} of '{schema}'"
            f"{by} cover the true value{width}")
