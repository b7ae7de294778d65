"""The ``distributional`` contract: how far the machine's label distribution is from the
people's, beside how far people are from each other (``contracts.md``).

``evaluate_distributional(spec, data) -> KindOutcome`` reads the **dev** labels only and
never spends a look. Per item the people's label counts form the human distribution;
the machine's distribution is its ``probs`` where the tier gives them, else its label
one-hot. The per-item Jensen–Shannon distance (base 2,
:func:`~app.core.contracts.statistics.jensen_shannon.jensen_shannon_distance`) is
averaged over items, with a percentile bootstrap over items
(:func:`~app.core.contracts.statistics.jensen_shannon.bootstrap_interval`: 2,000
resamples, seed 20261129, at the contract's confidence) and the split-half noise ceiling
(:func:`~app.core.contracts.statistics.jensen_shannon.split_half_noise_ceiling`, 20
splits).

Choices where the spec is silent (each with its reason):

- **Machine label**: the one the cascade would deliver under the current rules, which
  the engine passes as ``delivered`` (as for ``ppi``: a contract is a claim about the
  labels the study ends up with, so the machine compared with people is the one whose
  labels are delivered, and its distribution is the delivering tier's ``probs``). Items
  the cascade routes to people are left out. Before any rule delivers anything
  (``delivered`` is ``None``), the first tier, cheapest first, with a prediction stands
  in (:func:`app.core.contracts.kinds.ppi.delivered_labels`) and the engine adds a note.
  Probabilities with no positive mass, or absent, fall back to the label one-hot.
- **Items**: dev items with at least 3 people (2 within a group) *and* a machine label;
  the noise ceiling is computed on the same items so that the two numbers compare
  like with like. Items are taken in sorted order (the bootstrap and the split draws
  depend on the order, so it is fixed).
- **Categories**: the scheme's labels (or scale), then any other label a person used
  or the machine gave a probability to, sorted.
- **A verdict needs 20 items** (:data:`MIN_ITEMS`) with 3+ people, also with
  ``max_distance``: a percentile bootstrap over a handful of items understates the
  spread (over one item its interval has no width), and the spec's own minimum without
  ``max_distance`` is 20.
- **States** (estimates, so no ``unmet``): ``met`` when the upper end is at most
  ``max_distance`` (or, without it, at 20 items); ``infeasible`` when the lower end is
  above it; an interval that straddles ``max_distance`` is ``insufficient``: more items
  narrow it. Its projection assumes the half-width shrinks as 1/√n and is given only
  when the mean is below ``max_distance``.
- **Groups** (``groups_by``) are reported, not judged: the state follows the overall
  numbers, because a group is a view of the same people. A person without an answer to
  the question is in no group; a group with no item that two of its people labelled
  has ``None`` numbers and a ``reason``. When nobody answered the question,
  ``groups`` is empty and ``groups_reason`` (and a note) say so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.contracts.config.contract_specs import DEFAULT_CONFIDENCE, ContractSpec
from app.core.contracts.kinds.base import (
    HumanLabel,
    KindContext,
    KindOutcome,
    MachineLabel,
    SchemaData,
)
from app.core.contracts.labels.machine_labels import (
    dev_label_count,
    label_classes,
    machine_labels,
    population,
)
from app.core.contracts.statistics.jensen_shannon import (
    bootstrap_interval,
    jensen_shannon_distance,
    split_half_noise_ceiling,
)

MIN_PEOPLE = 3
MIN_PEOPLE_IN_GROUP = 2
MIN_ITEMS = 20


def machine_distribution(label: MachineLabel, classes: Sequence[str]) -> list[float]:
    """The machine's weights over ``classes``: its probabilities, else its label one-hot."""
    if label.probs:
        weights = [max(0.0, float(label.probs.get(c, 0.0))) for c in classes]
        if sum(weights) > 0:
            return weights
    return [1.0 if c == str(label.label) else 0.0 for c in classes]


def human_counts(labels: Sequence[HumanLabel], classes: Sequence[str]) -> dict[str, int]:
    """Label → number of people who gave it, over every class (zeros included)."""
    counts = dict.fromkeys(classes, 0)
    for h in labels:
        counts[str(h.label)] += 1
    return counts


def _summary(labels_by_item: Mapping[str, Sequence[HumanLabel]],
             machine: Mapping[str, MachineLabel], classes: Sequence[str],
             confidence: float) -> dict[str, Any]:
    """``mean_js``, ``interval``, ``noise_ceiling``, ``n_items`` over the given items."""
    if not labels_by_item:
        return {"mean_js": None, "interval": None, "noise_ceiling": None, "n_items": 0}
    counts = {item: human_counts(labels, classes) for item, labels in labels_by_item.items()}
    distances = [jensen_shannon_distance(machine_distribution(machine[item], classes),
                                         [counts[item][c] for c in classes])
                 for item in labels_by_item]
    low, high = bootstrap_interval(distances, confidence)
    ceiling = split_half_noise_ceiling(counts)
    return {"mean_js": math.fsum(distances) / len(distances), "interval": [low, high],
            "noise_ceiling": ceiling.value, "n_items": len(distances)}


def _groups(data: SchemaData, question: str, machine: Mapping[str, MachineLabel],
            classes: Sequence[str], confidence: float, notes: list[str]
            ) -> tuple[dict[str, Any], str | None]:
    answer = {person: str(record[question]) for person, record in data.annotators.items()
              if record.get(question) is not None}
    if not answer:
        reason = (f"nobody answered the prestudy question '{question}', so there are no "
                  "groups")
        notes.append(reason)
        return {}, reason
    people = {p for labels in data.dev.values() for p in (h.annotator for h in labels)}
    unanswered = sorted(people - set(answer))
    if unanswered:
        notes.append(f"{len(unanswered)} dev annotators did not answer '{question}' and are "
                     "in no group")
    out: dict[str, Any] = {}
    for value in sorted(set(answer.values())):
        items = {}
        for item in population(data):
            mine = [h for h in data.dev.get(item, ()) if answer.get(h.annotator) == value]
            if len(mine) >= MIN_PEOPLE_IN_GROUP and item in machine:
                items[item] = mine
        summary = _summary(items, machine, classes, confidence)
        if not items:
            summary["reason"] = (f"no dev item has {MIN_PEOPLE_IN_GROUP} people of this "
                                 "group and a machine label")
        out[value] = summary
    return out, None


def evaluate_distributional(spec: ContractSpec, data: SchemaData,
                            delivered: Mapping[str, MachineLabel] | None = None
                            ) -> KindOutcome:
    """Mean JS distance, bootstrap interval and noise ceiling; see the module."""
    params = spec.params
    max_distance = params.get("max_distance")
    question = params.get("groups_by")
    confidence = float(params.get("confidence") or DEFAULT_CONFIDENCE)
    notes: list[str] = []
    result: dict[str, Any] = {"mean_js": None, "interval": None, "noise_ceiling": None,
                              "n_items": 0, "max_distance": max_distance,
                              "confidence": confidence}
    if dev_label_count(data) == 0:
        notes.append("no dev labels yet: nothing to estimate")
        return KindOutcome("pending", result, notes)
    machine = machine_labels(data, delivered)
    observed = [h.label for labels in data.dev.values() for h in labels]
    observed += [m.label for m in machine.values()]
    observed += [k for m in machine.values() for k in (m.probs or {})]
    classes = label_classes(data.scheme, observed)
    eligible = {item: list(data.dev[item]) for item in population(data)
                if len(data.dev.get(item, ())) >= MIN_PEOPLE and item in machine}
    missing = sum(1 for item, labels in data.dev.items()
                  if len(labels) >= MIN_PEOPLE and item not in machine)
    if missing:
        notes.append(f"{missing} dev items with {MIN_PEOPLE}+ people have no machine label "
                     "and are left out")
    result.update(_summary(eligible, machine, classes, confidence))
    if question is not None:
        groups, reason = _groups(data, str(question), machine, classes, confidence, notes)
        result["groups"] = groups
        if reason is not None:
            result["groups_reason"] = reason
    n = len(eligible)
    if n < MIN_ITEMS:
        result["projection"] = {"items_needed": MIN_ITEMS, "more_items": MIN_ITEMS - n}
        notes.append(f"{n} dev items have {MIN_PEOPLE} or more people; a verdict needs "
                     f"{MIN_ITEMS}")
        return KindOutcome("insufficient", result, notes)
    if max_distance is None:
        return KindOutcome("met", result, notes)
    low, high = result["interval"]
    if high <= max_distance:
        return KindOutcome("met", result, notes)
    if low > max_distance:
        notes.append(f"the whole interval is above max_distance {max_distance}: more "
                     "labels cannot bring the distance under it")
        return KindOutcome("infeasible", result, notes)
    mean = result["mean_js"]
    if mean < max_distance:
        needed = math.ceil(n * ((high - mean) / (max_distance - mean)) ** 2 - 1e-9)
        result["projection"] = {"items_needed": needed, "more_items": max(0, needed - n)}
    else:
        notes.append(f"the mean distance {mean:.4f} is not below max_distance "
                     f"{max_distance}: no number of items is projected to meet it")
    notes.append(f"the interval straddles max_distance {max_distance}: more items are "
                 "needed to decide")
    return KindOutcome("insufficient", result, notes)


def evaluate(spec: ContractSpec, data: SchemaData, context: KindContext) -> KindOutcome:
    """The registry's entry: the distances on the delivered labels."""
    return evaluate_distributional(spec, data, context.delivered)


def claim(schema: str, params: dict[str, Any]) -> str:
    """What a ``distributional`` contract promises, in one sentence."""
    limit = (f" within Jensen–Shannon distance {params['max_distance']:g} of"
             if params.get("max_distance") is not None else " compared with")
    return f"the machine's label distribution on '{schema}' is{limit} the people's"
